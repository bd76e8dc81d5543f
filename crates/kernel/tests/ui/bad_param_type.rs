use ferrocm_kernel::prelude::*;

#[kernel]
fn k(x: Vec<f32>, y: &mut [f32]) {
    y[0usize] = 1.0f32;
}

fn main() {}
