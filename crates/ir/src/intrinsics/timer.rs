//! Clocks: the device's nanosecond timer and the multiprocessor a block runs on. Kernel
//! tracing reads both in the timed variant of a kernel (see [`crate::timed`](mod@crate::timed)); kernels may use
//! the timer for spin-waits and measurements of their own.

use super::*;

/// Nanoseconds of the host's `CLOCK_MONOTONIC` (the executor's `%globaltimer`).
fn monotonic_ns() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid out-pointer; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn timer_exec(e: &mut dyn Exec, _: &Call) -> Result<Flow, String> {
    let t = monotonic_ns();
    e.set_result(0, [t; 32]);
    Ok(Flow::Next)
}

/// `%globaltimer`: a `u64` count of nanoseconds, the same for every multiprocessor of the
/// device (NVIDIA updates it every microsecond or so on most parts; read twice, it never goes
/// back). The CPU executor reads the host's `CLOCK_MONOTONIC`, so its times are the host's.
pub static GLOBAL_TIMER: Def = Def {
    name: "globaltimer",
    doc: "the device's nanosecond timer (u64; the host's CLOCK_MONOTONIC on the CPU executor)",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: |_, c| arg_count(c.args, 0).map(|_| Some(U64)),
    // A clock read is ordered with the code around it: never moved or merged.
    effects: Effects::SYNC,
    feature: None,
    extra_feature: no_extra,
    ptx_version: (3, 1),
    ptx: ptx_text!("mov.u64 $[d], %globaltimer;"),
    ptx_globals: &[],
    exec: timer_exec,
};

/// `%smid`: the multiprocessor the block runs on (`u32`, below `%nsmid`; 0 on the CPU
/// executor). Only a hint for spreading work: a block may, in principle, be moved.
pub static SMID: Def = Def {
    name: "smid",
    doc: "the multiprocessor the block runs on (u32; 0 on the CPU executor)",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: |_, c| arg_count(c.args, 0).map(|_| Some(U32)),
    effects: Effects::PURE,
    feature: None,
    extra_feature: no_extra,
    ptx_version: (1, 3),
    ptx: ptx_text!("mov.u32 $[d], %smid;"),
    ptx_globals: &[],
    exec: |e, _| {
        e.set_result(0, [0; 32]);
        Ok(Flow::Next)
    },
};
