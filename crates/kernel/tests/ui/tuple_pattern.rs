use ferrocm_kernel::prelude::*;

#[kernel]
fn k(x: &mut [f32]) {
    let (a, b) = (1.0f32, 2.0f32);
    x[0usize] = a + b;
}

fn main() {}
