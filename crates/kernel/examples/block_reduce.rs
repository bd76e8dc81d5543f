//! Sum reduction: each warp reduces with shuffles, warps combine through shared memory after a
//! barrier, and each block adds its sum to the result with one atomic.
//!
//!     cargo run -p ferrocm-kernel --example block_reduce

use ferrocm_kernel::prelude::*;

#[device]
fn warp_sum(v: f32) -> f32 {
    let mut s = v;
    for k in 0..5u32 {
        s += shfl_xor(s, 16u32 >> k);
    }
    s
}

#[kernel]
fn reduce_sum(x: &[f32], out: &mut [f32]) {
    let warp_sums = shared_array::<f32>(32);
    let mut acc = 0.0f32;
    let mut i = global_index();
    while i < x.len() {
        acc += x[i];
        i += grid_stride();
    }
    let s = warp_sum(acc);
    let warp = thread_idx_x() / 32u32;
    if lane_id() == 0u32 {
        warp_sums[warp] = s;
    }
    sync_threads();
    if warp == 0u32 {
        let nwarps = block_dim_x() / 32u32;
        let v = if lane_id() < nwarps { warp_sums[lane_id()] } else { 0.0f32 };
        let total = warp_sum(v);
        if lane_id() == 0u32 {
            out.atomic_add(0u32, total);
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::default_device()?;
    let stream = device.create_stream()?;
    let n = 1 << 22;
    let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 / 1000.0).collect();
    let dx = stream.clone_htod(&x)?;
    let mut dout = stream.alloc_zeroed::<f32>(1)?;
    reduce_sum::launch(&stream, LaunchConfig::new(256, 256), &dx, &mut dout)?;
    let got = stream.clone_dtoh(&dout)?[0] as f64;
    let want: f64 = x.iter().map(|&v| v as f64).sum();
    println!(
        "reduce_sum on {}: got {got}, host {want}, relative error {:e}",
        device.properties().name,
        (got - want).abs() / want
    );
    if (got - want).abs() > 1e-4 * want {
        return Err("reduce_sum: wrong result".into());
    }
    Ok(())
}
