//! Memory-bound kernels written in the kernel language (copy, SAXPY, sum reduction), each with
//! 16-byte accesses and a grid-stride loop, against the device's own device-to-device copy.
//! Prints one machine-readable line per kernel:
//!
//!     bench=memory device=... kernel=copy bytes=... ms=... gbps=... vs_d2d=...
//!
//!     cargo run --release -p ferrocm-kernel --example bench_memory [MiB per buffer]

use ferrocm_kernel::prelude::*;

#[path = "support/timing.rs"]
mod timing;

#[kernel]
fn copy4(x: &[f32], y: &mut [f32]) {
    let n = x.len() / 4usize;
    let mut i = global_index();
    while i < n {
        y.store4(i, x.load4(i));
        i += grid_stride();
    }
}

#[kernel]
fn saxpy4(a: f32, x: &[f32], y: &mut [f32]) {
    let n = x.len() / 4usize;
    let mut i = global_index();
    while i < n {
        let v = x.load4(i);
        let w = y.load4(i);
        y.store4(
            i,
            vec4(
                a * v.get(0) + w.get(0),
                a * v.get(1) + w.get(1),
                a * v.get(2) + w.get(2),
                a * v.get(3) + w.get(3),
            ),
        );
        i += grid_stride();
    }
}

#[kernel]
fn sum4(x: &[f32], out: &mut [f32]) {
    let warp_sums = shared_array::<f32>(32);
    let n = x.len() / 4usize;
    let mut acc = 0.0f32;
    let mut i = global_index();
    while i < n {
        let v = x.load4(i);
        acc += (v.get(0) + v.get(1)) + (v.get(2) + v.get(3));
        i += grid_stride();
    }
    for k in 0..5u32 {
        acc += shfl_xor(acc, 16u32 >> k);
    }
    let warp = thread_idx_x() / 32u32;
    if lane_id() == 0u32 {
        warp_sums[warp] = acc;
    }
    sync_threads();
    if warp == 0u32 {
        let mut s = if lane_id() < block_dim_x() / 32u32 { warp_sums[lane_id()] } else { 0.0f32 };
        for k in 0..5u32 {
            s += shfl_xor(s, 16u32 >> k);
        }
        if lane_id() == 0u32 {
            out.atomic_add(0u32, s);
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::default_device()?;
    let stream = device.create_stream()?;
    let gpu = device.kind() != ferrocm_kernel::runtime::BackendKind::Cpu;
    let mib: usize =
        std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(if gpu { 1024 } else { 64 });
    let n = mib * (1 << 20) / 4;
    let name = device.properties().name.replace(' ', "_");
    let host: Vec<f32> = (0..n).map(|i| ((i * 2654435761usize) % 1000) as f32 / 1000.0 - 0.5).collect();
    let x = stream.clone_htod(&host)?;
    let mut y = stream.clone_htod(&host)?;
    let mut out = stream.alloc_zeroed::<f32>(1)?;
    let cfg = LaunchConfig::new(device.properties().compute_units.max(1) * 4, 512);
    let (warmup, reps) = if gpu { (3, 20) } else { (1, 3) };
    let bytes = (n * 4) as f64;

    let d2d = timing::median_ms(&stream, warmup, reps, || stream.copy_dtod(&x, &mut y).expect("d2d copy"))?;
    let d2d_gbps = 2.0 * bytes / d2d / 1e6;
    println!(
        "bench=memory device={name} kernel=d2d_copy bytes={} ms={d2d:.4} gbps={d2d_gbps:.1} vs_d2d=1.000",
        2.0 * bytes
    );

    let report = |kernel: &str, moved: f64, ms: f64| {
        let gbps = moved / ms / 1e6;
        println!(
            "bench=memory device={name} kernel={kernel} bytes={moved} ms={ms:.4} gbps={gbps:.1} vs_d2d={:.3}",
            gbps / d2d_gbps
        );
    };
    let ms =
        timing::median_ms(&stream, warmup, reps, || copy4::launch(&stream, cfg, &x, &mut y).expect("copy4"))?;
    report("copy", 2.0 * bytes, ms);
    let ms = timing::median_ms(&stream, warmup, reps, || {
        saxpy4::launch(&stream, cfg, 1.0001, &x, &mut y).expect("saxpy4")
    })?;
    report("saxpy", 3.0 * bytes, ms);
    let ms =
        timing::median_ms(&stream, warmup, reps, || sum4::launch(&stream, cfg, &x, &mut out).expect("sum4"))?;
    report("sum", bytes, ms);

    // Check the reduction once, from a zeroed accumulator.
    let mut out = stream.alloc_zeroed::<f32>(1)?;
    sum4::launch(&stream, cfg, &x, &mut out)?;
    let got = stream.clone_dtoh(&out)?[0] as f64;
    let want: f64 = host.iter().map(|&v| v as f64).sum();
    println!(
        "check=memory kernel=sum got={got} want={want} rel_err={:.2e}",
        (got - want).abs() / want.abs().max(1.0)
    );
    Ok(())
}
