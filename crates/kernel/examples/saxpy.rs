//! SAXPY (`y = a*x + y`) with a grid-stride loop, on the default device.
//!
//!     cargo run -p ferrocm-kernel --example saxpy
//!     FERROCM_DUMP=ir,ptx cargo run -p ferrocm-kernel --example saxpy   # see what was generated

use ferrocm_kernel::prelude::*;

#[kernel]
fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let mut i = global_index();
    while i < y.len() {
        y[i] = a.mul_add(x[i], y[i]);
        i += grid_stride();
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::default_device()?;
    let stream = device.create_stream()?;
    let n = 3_000_000;
    let x: Vec<f32> = (0..n).map(|i| (i % 1013) as f32 / 1013.0).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 17) as f32).collect();
    let dx = stream.clone_htod(&x)?;
    let mut dy = stream.clone_htod(&y)?;
    saxpy::launch(&stream, LaunchConfig::new(256, 256), 2.5, &dx, &mut dy)?;
    let out = stream.clone_dtoh(&dy)?;
    let worst = (0..n).map(|i| (out[i] as f64 - (2.5 * x[i] as f64 + y[i] as f64)).abs()).fold(0.0, f64::max);
    println!("saxpy on {}: {n} elements, max abs error {worst:e}", device.properties().name);
    if worst > 1e-5 {
        return Err("saxpy: wrong results".into());
    }
    Ok(())
}
