use ferrocm_kernel::prelude::*;

#[kernel]
fn k(x: &[f32]) -> f32 {
    x[0usize]
}

fn main() {}
