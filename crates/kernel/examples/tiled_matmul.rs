//! Shared-memory tiled matrix multiply (`C = A * B`, f32), 16x16 tiles.
//!
//!     cargo run -p ferrocm-kernel --example tiled_matmul

use ferrocm_kernel::prelude::*;

#[kernel]
fn matmul<const T: usize>(a: &[f32], b: &[f32], c: &mut [f32], n: u32) {
    let ta = shared_array::<f32>(T * T);
    let tb = shared_array::<f32>(T * T);
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    let row = block_idx_y() * (T as u32) + ty;
    let col = block_idx_x() * (T as u32) + tx;
    let mut acc = 0.0f32;
    for k0 in (0u32..n).step_by(T as u32) {
        ta[ty * (T as u32) + tx] = if row < n && k0 + tx < n { a[row * n + k0 + tx] } else { 0.0f32 };
        tb[ty * (T as u32) + tx] = if k0 + ty < n && col < n { b[(k0 + ty) * n + col] } else { 0.0f32 };
        sync_threads();
        for k in 0..T {
            acc += ta[ty * (T as u32) + k as u32] * tb[k as u32 * (T as u32) + tx];
        }
        sync_threads();
    }
    if row < n && col < n {
        c[row * n + col] = acc;
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::default_device()?;
    let stream = device.create_stream()?;
    let n = 200usize;
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 37) % 101) as f32 / 101.0 - 0.5).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 53) % 97) as f32 / 97.0 - 0.5).collect();
    let (da, db) = (stream.clone_htod(&a)?, stream.clone_htod(&b)?);
    let mut dc = stream.alloc_zeroed::<f32>(n * n)?;
    let g = (n as u32).div_ceil(16);
    matmul::launch::<16>(&stream, LaunchConfig::new((g, g), (16, 16)), &da, &db, &mut dc, n as u32)?;
    let c = stream.clone_dtoh(&dc)?;
    let mut worst = 0f64;
    for i in 0..n {
        for j in 0..n {
            let want: f64 = (0..n).map(|k| a[i * n + k] as f64 * b[k * n + j] as f64).sum();
            worst = worst.max((c[i * n + j] as f64 - want).abs());
        }
    }
    println!("matmul {n}x{n} on {}: max abs error {worst:e}", device.properties().name);
    if worst > 1e-3 {
        return Err("matmul: wrong results".into());
    }
    Ok(())
}
