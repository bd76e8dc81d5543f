use ferrocm_kernel::prelude::*;

#[kernel]
fn k(x: &[f32], y: &mut [u32]) {
    let i = global_index();
    y[i] = x[i] + 1u32;
}

fn main() {}
