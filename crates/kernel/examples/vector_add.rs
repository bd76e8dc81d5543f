//! Vector addition: the smallest kernel, launched on the default device (a GPU when one is
//! visible, the CPU otherwise) and checked against the host.
//!
//!     cargo run -p ferrocm-kernel --example vector_add

use ferrocm_kernel::prelude::*;

#[kernel]
fn vector_add(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = global_index();
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::default_device()?;
    let stream = device.create_stream()?;
    let n = 1 << 20;
    let a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| (i % 777) as f32 - 300.0).collect();
    let (da, db) = (stream.clone_htod(&a)?, stream.clone_htod(&b)?);
    let mut dc = stream.alloc_zeroed::<f32>(n)?;
    vector_add::launch(&stream, LaunchConfig::for_num_elems(n as u32), &da, &db, &mut dc)?;
    let c = stream.clone_dtoh(&dc)?;
    let bad = (0..n).filter(|&i| c[i] != a[i] + b[i]).count();
    println!(
        "vector_add on {} ({}): {n} elements, {bad} mismatches",
        device.properties().name,
        device.kind()
    );
    if bad != 0 {
        return Err("vector_add: wrong results".into());
    }
    Ok(())
}
