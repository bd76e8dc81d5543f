//! One tensor-core step: a warp multiplies a 16x16 bf16 tile of A by a 16x8 tile of B (given as
//! B^T, 8x16) with `mma.sync.aligned.m16n8k16` on NVIDIA GPUs (sm_80+), and with the same
//! fragment semantics on the CPU executor. Each lane loads its fragment by the PTX layout.
//!
//!     cargo run -p ferrocm-kernel --example mma_tile

use ferrocm_kernel::prelude::*;

#[kernel]
fn mma_tile(a: &[bf16], bt: &[bf16], c: &mut [f32]) {
    let lane = lane_id();
    let g = lane / 4u32;
    let t = lane % 4u32;
    // A fragment: rows g and g+8, columns 2t, 2t+1 and 2t+8, 2t+9 (two halves per register).
    let a0 = pack_half2(a[g * 16u32 + t * 2u32], a[g * 16u32 + t * 2u32 + 1u32]);
    let a1 = pack_half2(a[(g + 8u32) * 16u32 + t * 2u32], a[(g + 8u32) * 16u32 + t * 2u32 + 1u32]);
    let a2 = pack_half2(a[g * 16u32 + t * 2u32 + 8u32], a[g * 16u32 + t * 2u32 + 9u32]);
    let a3 = pack_half2(a[(g + 8u32) * 16u32 + t * 2u32 + 8u32], a[(g + 8u32) * 16u32 + t * 2u32 + 9u32]);
    // B fragment: column g, rows 2t, 2t+1 and 2t+8, 2t+9.
    let b0 = pack_half2(bt[g * 16u32 + t * 2u32], bt[g * 16u32 + t * 2u32 + 1u32]);
    let b1 = pack_half2(bt[g * 16u32 + t * 2u32 + 8u32], bt[g * 16u32 + t * 2u32 + 9u32]);
    let zero = vec4(0.0f32, 0.0f32, 0.0f32, 0.0f32);
    let d = mma_m16n8k16::<bf16>(vec4(a0, a1, a2, a3), vec2(b0, b1), zero);
    c[g * 8u32 + t * 2u32] = d.get(0);
    c[g * 8u32 + t * 2u32 + 1u32] = d.get(1);
    c[(g + 8u32) * 8u32 + t * 2u32] = d.get(2);
    c[(g + 8u32) * 8u32 + t * 2u32 + 1u32] = d.get(3);
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::default_device()?;
    let stream = device.create_stream()?;
    let a: Vec<bf16> = (0..256).map(|i| bf16::from_f32(((i * 37) % 29) as f32 / 29.0 - 0.5)).collect();
    let bt: Vec<bf16> = (0..128).map(|i| bf16::from_f32(((i * 11) % 23) as f32 / 23.0 - 0.5)).collect();
    let (da, db) = (stream.clone_htod(&a)?, stream.clone_htod(&bt)?);
    let mut dc = stream.alloc_zeroed::<f32>(128)?;
    mma_tile::launch(&stream, LaunchConfig::new(1, 32), &da, &db, &mut dc)?;
    let c = stream.clone_dtoh(&dc)?;
    let mut worst = 0f64;
    for i in 0..16 {
        for j in 0..8 {
            let want: f64 = (0..16).map(|k| a[i * 16 + k].to_f64() * bt[j * 16 + k].to_f64()).sum();
            worst = worst.max((c[i * 8 + j] as f64 - want).abs());
        }
    }
    println!("mma m16n8k16 bf16 on {}: max abs error {worst:e}", device.properties().name);
    if worst > 1e-4 {
        return Err("mma_tile: wrong results".into());
    }
    Ok(())
}
