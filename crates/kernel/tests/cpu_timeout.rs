//! `FERROCM_CPU_KERNEL_TIMEOUT`: a kernel that never ends on the CPU device fails its launch
//! with an error naming the kernel, instead of hanging the program (Reliability I, item 9), and
//! the stream goes on working. This file holds one test because it sets a process-wide variable.

use ferrocm_kernel::prelude::*;
use ferrocm_kernel::runtime::Device;
use std::time::{Duration, Instant};

const VAR: &str = "FERROCM_CPU_KERNEL_TIMEOUT";

/// Spins until `flag[0]` is non-zero, which nothing ever writes: a hang on any device.
#[kernel]
fn spin_forever(flag: &[u32], out: &mut [u32]) {
    let mut trips = 0u32;
    while flag[0u32] == 0u32 {
        trips += 1u32;
    }
    out[thread_idx_x()] = trips;
}

/// Waits at a barrier in a loop that never ends: the time limit is also checked between rounds
/// of a block's warps, not only at loop back-edges inside one warp.
#[kernel]
fn barrier_forever(flag: &[u32], out: &mut [u32]) {
    let s = shared_array::<u32>(64);
    while flag[0u32] == 0u32 {
        s[thread_idx_x()] = thread_idx_x();
        sync_threads();
    }
    out[thread_idx_x()] = s[0u32];
}

#[kernel]
fn add_one(x: &[u32], y: &mut [u32]) {
    let i = global_index();
    if i < y.len() {
        y[i] = x[i] + 1u32;
    }
}

fn set_limit(value: Option<&str>) {
    // SAFETY: this test binary holds a single test, so no other thread reads the environment
    // while it changes.
    unsafe {
        match value {
            Some(v) => std::env::set_var(VAR, v),
            None => std::env::remove_var(VAR),
        }
    }
}

/// The launch's own error, or else its stream's (queued launches fail at synchronization).
fn finish(launch: Result<(), ferrocm_kernel::KernelError>, stream: &Stream) -> Result<(), String> {
    launch.map_err(|e| e.to_string())?;
    stream.synchronize().map_err(|e| e.to_string())
}

#[test]
fn a_never_ending_kernel_fails_with_the_time_limit_on_the_cpu_device() {
    let device = Device::cpu().unwrap();
    let stream = device.create_stream().unwrap();
    let flag = stream.clone_htod(&[0u32]).unwrap();
    let sentinel = vec![0xDEAD_BEEFu32; 64];
    let mut out = stream.clone_htod(&sentinel).unwrap();

    set_limit(Some("0.3"));
    type Launch =
        fn(&Stream, &DeviceBuffer<u32>, &mut DeviceBuffer<u32>) -> Result<(), ferrocm_kernel::KernelError>;
    let cases: [(&str, Launch); 2] = [
        ("spin_forever", |s, f, o| spin_forever::launch(s, LaunchConfig::new(2, 64), f, o)),
        ("barrier_forever", |s, f, o| barrier_forever::launch(s, LaunchConfig::new(2, 64), f, o)),
    ];
    for (name, launch) in cases {
        let start = Instant::now();
        // The launch is queued; the error comes with the stream's synchronization.
        let err = finish(launch(&stream, &flag, &mut out), &stream).unwrap_err();
        let elapsed = start.elapsed();
        let msg = err;
        assert!(msg.contains(name) && msg.contains("FERROCM_CPU_KERNEL_TIMEOUT"), "{msg}");
        assert!(elapsed >= Duration::from_millis(300), "stopped after {elapsed:?}, before the limit");
        assert!(elapsed < Duration::from_secs(20), "stopped only after {elapsed:?}");
        // A failed launch leaves the stream usable (CUDA's launch failures are sticky; the CPU
        // device reports the error once).
        let _ = stream.synchronize();
    }
    assert_eq!(stream.clone_dtoh(&out).unwrap(), sentinel, "a stopped kernel wrote its output");

    // A kernel within the limit runs as before.
    let x: Vec<u32> = (0..1000).collect();
    let dx = stream.clone_htod(&x).unwrap();
    let mut dy = stream.alloc_zeroed::<u32>(1000).unwrap();
    add_one::launch(&stream, LaunchConfig::for_num_elems(1000), &dx, &mut dy).unwrap();
    let y = stream.clone_dtoh(&dy).unwrap();
    assert!(y.iter().zip(&x).all(|(y, x)| *y == x + 1));

    // A value that is not a time limit is an error naming the variable and what it accepts.
    for bad in ["ten", "-1", "0", "inf"] {
        set_limit(Some(bad));
        let err = finish(add_one::launch(&stream, LaunchConfig::for_num_elems(1000), &dx, &mut dy), &stream)
            .unwrap_err();
        let msg = err;
        assert!(msg.contains("FERROCM_CPU_KERNEL_TIMEOUT") && msg.contains("seconds"), "{bad}: {msg}");
        let _ = stream.synchronize();
    }
    set_limit(None);
}
