//! Histogram: per-block bins in shared memory with shared atomics, merged with global atomics.
//!
//!     cargo run -p ferrocm-kernel --example histogram

use ferrocm_kernel::prelude::*;

#[kernel]
fn histogram<const BINS: usize>(x: &[u8], bins: &mut [u32]) {
    let local = shared_array::<u32>(BINS);
    let mut t = thread_idx_x();
    while t < BINS as u32 {
        local[t] = 0u32;
        t += block_dim_x();
    }
    sync_threads();
    let mut i = global_index();
    while i < x.len() {
        local.atomic_add((x[i] as u32) % (BINS as u32), 1u32);
        i += grid_stride();
    }
    sync_threads();
    let mut t = thread_idx_x();
    while t < BINS as u32 {
        bins.atomic_add(t, local[t]);
        t += block_dim_x();
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::default_device()?;
    let stream = device.create_stream()?;
    let n = 5_000_000;
    let mut s = 12345u32;
    let x: Vec<u8> = (0..n)
        .map(|_| {
            s = s.wrapping_mul(1664525).wrapping_add(1013904223);
            (s >> 24) as u8
        })
        .collect();
    let dx = stream.clone_htod(&x)?;
    let mut dbins = stream.alloc_zeroed::<u32>(256)?;
    histogram::launch::<256>(&stream, LaunchConfig::new(64, 256), &dx, &mut dbins)?;
    let bins = stream.clone_dtoh(&dbins)?;
    let mut want = vec![0u32; 256];
    for &v in &x {
        want[v as usize] += 1;
    }
    println!(
        "histogram on {}: {n} bytes into 256 bins, bins match host: {}",
        device.properties().name,
        bins == want
    );
    if bins != want {
        return Err("histogram: wrong counts".into());
    }
    Ok(())
}
