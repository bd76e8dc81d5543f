//! Sobol64 in the device API: direct points ([`sobol64_point`]) and Gray-code steps
//! ([`sobol64_next`]) against the reference, at offsets below and above 2^32 and across the
//! wrap of the 64-bit index.

use crate::common::devices;
use ferrocm_kernel::dsl::Memory;
use ferrocm_kernel::prelude::*;
use ferrocm_rand::device::{sobol64_next, sobol64_point};
use ferrocm_rand::reference::sobol::direction_vectors64;
use ferrocm_rand::reference::Sobol64;

const POINTS: u64 = 40;

/// Thread `d` writes, for points `first + j`, the direct point and the step from the previous
/// direct point, interleaved.
#[kernel]
fn sobol64_points(first: u64, directions: &[u64], out: &mut [u64]) {
    let dims = directions.len() as u64 / 64u64;
    let d = global_index() as u64;
    if d < dims {
        let base = (d * 64u64) as u32;
        for j in 0..POINTS {
            let i = first + j;
            out[(d * POINTS + j) * 2u64] = sobol64_point(directions, base, i);
            let prev = i - 1u64;
            let stepped = sobol64_next(directions, base, prev, sobol64_point(directions, base, prev));
            out[(d * POINTS + j) * 2u64 + 1u64] = stepped;
        }
    }
}

#[test]
fn sobol64_device_points_match_reference() {
    let dims = 3u32;
    let dirs: Vec<u64> = (0..dims).flat_map(|d| direction_vectors64(d).unwrap()).collect();
    for first in [1u64, 1000, (1 << 32) - 7, u64::MAX - 20] {
        let want: Vec<u64> = (0..dims)
            .flat_map(|d| {
                let mut s = Sobol64::new(d, first).unwrap();
                (0..POINTS).flat_map(move |_| {
                    let x = s.next_u64();
                    [x, x]
                })
            })
            .collect();
        for dev in devices() {
            let stream = dev.create_stream().unwrap();
            let input = stream.clone_htod(&dirs).unwrap();
            let mut out = stream.alloc_zeroed::<u64>(want.len()).unwrap();
            sobol64_points::launch(&stream, LaunchConfig::for_num_elems(dims), first, &input, &mut out)
                .unwrap();
            let got = stream.clone_dtoh(&out).unwrap();
            assert_eq!(got, want, "first point {first} on {}", dev.properties().name);
        }
    }
}

/// The kernel lowers to PTX (64-bit `trailing_zeros` included) without local memory.
#[test]
fn sobol64_kernel_lowers_to_ptx() {
    let ptx = sobol64_points::kernel().unwrap().ptx("sm_90").unwrap().to_string();
    assert!(ptx.contains("clz.b64") || ptx.contains("bfind.u64"), "no 64-bit bit search in the PTX");
    assert!(!ptx.contains(".local"), "local memory");
}
