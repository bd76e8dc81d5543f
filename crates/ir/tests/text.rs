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

/// What the `ir_parse` fuzz target found, and the printer-parser contract it checks: text the
/// parser accepts prints back to text that parses to the same function.
fn check_round_trip(text: &str) {
    let f = parse(text).unwrap_or_else(|e| panic!("does not parse: {e}\n{text}"));
    let printed = f.to_string();
    let again = parse(&printed).unwrap_or_else(|e| panic!("printed IR does not parse: {e}\n{printed}"));
    assert_eq!(again, f, "parse(print(f)) != f");
}

#[test]
fn fuzz_seed_corpus_round_trips() {
    for text in [
        include_str!("../../../fuzz/corpus/ir_parse/async_fragments.ir"),
        include_str!("../../../fuzz/corpus/ir_parse/block_sum.ir"),
        include_str!("../../../fuzz/corpus/ir_parse/histogram.ir"),
        include_str!("../../../fuzz/corpus/ir_parse/mma_tile.ir"),
        include_str!("../../../fuzz/corpus/ir_parse/saxpy.ir"),
        include_str!("../../../fuzz/corpus/ir_parse/warp_reduce.ir"),
        include_str!("../../../fuzz/corpus/ir_parse/wide_scale.ir"),
    ] {
        check_round_trip(text);
    }
}

const SMALL: &str = "kernel k(a: u32, y: &mut [u32]) {
  %0: u32 = param a
  store @y[%0], %0
}
";

#[test]
fn junk_in_the_kernel_header_is_refused() {
    // The first fuzz finding: junk between parameters was taken as part of a name, and the
    // printed text did not parse back.
    for (bad, frag) in [
        ("kernel k(a: u32,junk, y: &mut [u32]) {", "bad parameter type `u32,junk`"),
        ("kernel k(a: u32, y x: &mut [u32]) {", "not a parameter name"),
        ("kernel k(a: u32 , y: &mut [u32]) {", "bad parameter type `u32 `"),
        ("kernel k-1(a: u32, y: &mut [u32]) {", "not a kernel name"),
        ("kernel k(a: u32, y: &mut [u32]) {x", "expected `) {`"),
        ("kernel k(a: u32, a: &mut [u32]) {", "two parameters are called `a`"),
    ] {
        check(&SMALL.replacen("kernel k(a: u32, y: &mut [u32]) {", bad, 1), Err(frag));
    }
}

#[test]
fn text_the_printer_would_write_differently_is_refused() {
    for (from, to, frag) in [
        // A result declared with a type the instruction does not give.
        (
            "store @y[%0], %0",
            "%1: f32 = add %0, %0\n  store @y[%0], %0",
            "declared f32 but the instruction gives u32",
        ),
        // Numbers with signs or leading zeros, and constants out of their type's range.
        ("store @y[%0], %0", "%1: u32 = const 007\n  store @y[%0], %0", "bad u32 constant `007`"),
        ("store @y[%0], %0", "%1: u8 = const 300\n  store @y[%0], %0", "bad u8 constant `300`"),
        ("store @y[%0], %0", "%1: i8 = const -129\n  store @y[%0], %0", "bad i8 constant `-129`"),
        ("store @y[%0], %0", "%1: f32 = const 1e5\n  store @y[%0], %0", "bad f32 constant `1e5`"),
        ("store @y[%0], %0", "%1: f32x04 = vector %0, %0", "bad type `f32x04`"),
        // Closing lines are exactly `}`.
        ("  store @y[%0], %0\n}", "  store @y[%0], %0\n}}", "expected `}`"),
        // An instruction without a result written with one, and the reverse.
        ("store @y[%0], %0", "%1: u32 = store @y[%0], %0", "has no result"),
        ("store @y[%0], %0", "cmp.lt %0, %0", "needs a name and type"),
    ] {
        check(&SMALL.replacen(from, to, 1), Err(frag));
    }
}

#[test]
fn nan_constants_keep_their_payload() {
    let text = "kernel k(y: &mut [f32]) {
  %0: u32 = const 0
  %1: f32 = const nan:0x7fc00001
  store @y[%0], %1
}
";
    check(text, Ok(()));
    let f = parse(text).expect("parses");
    let Op::Const(c) = &f.region(f.body)[1].op else { panic!("a constant") };
    assert_eq!(c.bits, 0x7fc0_0001);
}

#[test]
fn intrinsics_are_spelled_one_way() {
    let text = "kernel k(y: &mut [u32]) {
  shared @s: [u16; 512] align 1024
  %0: u32 = special lane_id
  %1: u32x4 = ldmatrix.x4.trans @s, %0
  %2: u32 = extract %1, 0
  store @y[%0], %2
}
";
    check(text, Ok(()));
    check(&text.replace("ldmatrix.x4.trans", "ldmatrix.trans.x4"), Err("expected num as `xN`"));
    check(&text.replace("ldmatrix.x4.trans", "ldmatrix.x3.trans"), Err("moves 1, 2 or 4 matrices, not 3"));
    check(&text.replace("align 1024", "align 16"), Err("bad alignment `16`"));
    check(&text.replace("@s, %0", "%0, @s"), Err("expected `@memory`"));
}
