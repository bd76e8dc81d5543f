//! The text form reads back: `parse(print(f)) == f`, and malformed text is an error that names
//! the line.

use ferrocm_ir::*;

/// Parses `text`; `expect` is `Ok(())` for text that must print back identically, or a
/// fragment of the expected error.
fn check(text: &str, expect: Result<(), &str>) {
    match (parse(text), expect) {
        (Ok(f), Ok(())) => assert_eq!(f.to_string(), text, "round trip"),
        (Err(e), Err(frag)) => assert!(e.to_string().contains(frag), "error `{e}` lacks `{frag}`"),
        (got, want) => panic!("parse gave {got:?}, expected {want:?}"),
    }
}

const LOOP: &str = "kernel k(n: u32, y: &mut [f32]) {
  shared @shared0: [f32; 32]
  var $i.0: u32
  %0: u32 = param n
  %1: u32 = const 0
  write $i.0, %1
  loop {
    %2: u32 = read $i.0
    %3: bool = cmp.lt %2, %0
    %4: bool = not %3
    if %4 {
      break 0
    }
    %5: f32 = cast %2
    %6: f32 = sqrt %5
    store @shared0[%2], %6
    %7: f32 = load @shared0[%2]
    %8: f32 = atomic.add @y, %2, %7
  } latch {
    %9: u32 = read $i.0
    %10: u32 = const 1
    %11: u32 = add %9, %10
    write $i.0, %11
  }
  barrier
  fence.device
  return
}
";

#[test]
fn loop_with_shared_memory_and_atomics_round_trips() {
    check(LOOP, Ok(()));
    let f = parse(LOOP).expect("parses");
    verify(&f).expect("verifies");
}

#[test]
fn misnumbered_values_are_rejected() {
    check(&LOOP.replace("%1: u32 = const 0", "%7: u32 = const 0"), Err("numbered in order"));
}

#[test]
fn unknown_instructions_name_the_line() {
    check(&LOOP.replace("barrier", "frobnicate"), Err("line 25: unknown instruction `frobnicate`"));
}

#[test]
fn type_errors_in_text_are_build_errors() {
    check(&LOOP.replace("%11: u32 = add %9, %10", "%11: u32 = add %9, %6"), Err("found u32 and f32"));
    check(
        &LOOP.replace("%11: u32 = add %9, %10", "%11: u32 = add %9, %99"),
        Err("`%99` is not a defined value"),
    );
    check(&LOOP.replace("%5: f32 = cast %2", "%5: f32 = neg %2"), Err("Neg"));
}

#[test]
fn truncated_operand_lists_are_errors_not_panics() {
    for bad in
        ["%5: f32 = select %3", "%5: f32 = fma", "%5: u32x4 = extract", "write $i.0", "%5: f32 = shfl.xor %4"]
    {
        let text = LOOP.replace("%5: f32 = cast %2", bad);
        assert!(parse(&text).is_err(), "`{bad}` must not parse");
    }
}

const BITS: &str = "kernel bits(a: u32, b: i64, y: &mut [u64]) {
  %0: u32 = param a
  %1: i64 = param b
  %2: u32 = mul_hi %0, %0
  %3: u64 = mul_wide %0, %2
  %4: i64 = mul_hi %1, %1
  %5: u32 = leading_zeros %1
  %6: u32 = trailing_zeros %0
  %7: u32 = count_ones %4
  %8: i64 = reverse_bits %1
  %9: f32 = bitcast %0
  %10: u32 = bitcast %9
  store @y[%0], %3
}
";

#[test]
fn integer_intrinsics_and_bit_casts_round_trip() {
    check(BITS, Ok(()));
    verify(&parse(BITS).expect("parses")).expect("verifies");
}

#[test]
fn integer_intrinsics_reject_types_they_do_not_define() {
    // Bit counts and mul_hi are defined on 32- and 64-bit integers, mul_wide on u32 and i32.
    check(&BITS.replace("%10: u32 = bitcast %9", "%10: u32 = leading_zeros %9"), Err("LeadingZeros"));
    check(&BITS.replace("%4: i64 = mul_hi %1, %1", "%4: i64 = mul_wide %1, %1"), Err("two u32 or two i32"));
    check(&BITS.replace("%2: u32 = mul_hi %0, %0", "%2: u32 = mul_hi %0, %1"), Err("found u32 and i64"));
}
