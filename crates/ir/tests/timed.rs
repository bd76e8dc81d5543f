//! The timed variant (`ferrocm_ir::timed`): what it adds, that it stays valid IR that prints and
//! parses back, and how a slot is read.

use ferrocm_ir::timed::{read_timing_slot, timed, TIMING_LANES, TIMING_PARAM, TIMING_SLOT_WORDS};
use ferrocm_ir::*;

/// A kernel whose returns sit in a branch, inside a loop, and at the end of the body.
const KERNEL: &str = "kernel k(n: u32, y: &mut [u32]) {
  var $i.0: u32
  %0: u32 = param n
  %1: u32 = const 0
  %2: bool = cmp.eq %0, %1
  if %2 {
    return
  }
  write $i.0, %1
  loop {
    %3: u32 = read $i.0
    %4: bool = cmp.ge %3, %0
    if %4 {
      return
    }
    store @y[%3], %3
  } latch {
    %5: u32 = read $i.0
    %6: u32 = const 1
    %7: u32 = add %5, %6
    write $i.0, %7
  }
}
";

fn count(f: &Function, pred: impl Fn(&Op) -> bool) -> usize {
    let mut n = 0;
    f.walk(&mut |i| n += pred(&i.op) as usize);
    n
}

#[test]
fn the_timed_variant_adds_a_slot_and_folds_at_entry_and_each_exit() {
    let f = parse(KERNEL).unwrap();
    let t = timed(&f);
    verify(&t).unwrap();
    assert_eq!(t.params.len(), f.params.len() + 1);
    let last = t.params.last().unwrap();
    assert_eq!(last.name, TIMING_PARAM);
    assert_eq!(last.kind, ParamKind::Slice { elem: ScalarType::U64, mutable: true });
    let timer = |op: &Op| matches!(op, Op::Intrinsic(c, _) if c.def.name == "globaltimer");
    let atomics = |op: &Op| matches!(op, Op::Intrinsic(c, _) if c.def.name == "atomic");
    // Entry, two returns, the end of the body.
    assert_eq!(count(&t, timer), 4);
    assert_eq!(count(&t, atomics), 4);
    assert_eq!(count(&t, |op| matches!(op, Op::Return)), count(&f, |op| matches!(op, Op::Return)));
    assert_eq!(count(&f, timer), 0, "the kernel itself is untouched");
    // Printed, it reads back as the same function (regions may be numbered differently).
    let text = t.to_string();
    let back = parse(&text).unwrap();
    verify(&back).unwrap();
    assert_eq!(back.to_string(), text);
}

#[test]
fn a_slot_gives_the_earliest_start_and_the_latest_end_of_the_lanes_written() {
    let mut slot = vec![0u64; TIMING_SLOT_WORDS];
    assert_eq!(read_timing_slot(&slot), None, "nothing ran");
    // Lane 3: blocks from 1_000 to 5_000; lane 15: from 800 to 4_000; the others unwritten.
    slot[2 * 3] = !1_000;
    slot[2 * 3 + 1] = 5_000;
    slot[2 * (TIMING_LANES as usize - 1)] = !800;
    slot[2 * (TIMING_LANES as usize - 1) + 1] = 4_000;
    assert_eq!(read_timing_slot(&slot), Some((800, 5_000)));
    // A start without an end (a block still running) is not a finished launch.
    let mut started = vec![0u64; TIMING_SLOT_WORDS];
    started[0] = !1_000;
    assert_eq!(read_timing_slot(&started), None);
    // A short slice is read as far as it goes.
    assert_eq!(read_timing_slot(&slot[..8]), Some((1_000, 5_000)));
}
