//! CPU executor throughput on SAXPY (scalar and 16-byte-vector forms), launched through the
//! runtime on the CPU device. Prints machine-readable lines:
//!
//!     bench=cpu_exec kernel=saxpy elems=... ms=... gelem_per_s=... gbps=...
//!
//!     cargo run --release -p ferrocm-kernel --example bench_cpu_exec [elements]

use ferrocm_kernel::prelude::*;

#[path = "support/timing.rs"]
mod timing;

#[kernel]
fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = global_index();
    if i < y.len() {
        y[i] = a * x[i] + y[i];
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::cpu()?;
    let stream = device.create_stream()?;
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1 << 24);
    let host: Vec<f32> = (0..n).map(|i| (i % 977) as f32).collect();
    let x = stream.clone_htod(&host)?;
    let mut y = stream.clone_htod(&host)?;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let ms =
        timing::median_ms(&stream, 1, 5, || saxpy::launch(&stream, cfg, 2.0, &x, &mut y).expect("saxpy"))?;
    println!(
        "bench=cpu_exec kernel=saxpy threads={} elems={n} ms={ms:.3} gelem_per_s={:.3} gbps={:.2}",
        device.properties().compute_units,
        n as f64 / ms / 1e6,
        12.0 * n as f64 / ms / 1e6
    );
    Ok(())
}
