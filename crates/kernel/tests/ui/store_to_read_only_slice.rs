use ferrocm_kernel::prelude::*;

#[kernel]
fn k(x: &[f32]) {
    let i = global_index();
    x[i] = 1.0f32;
}

fn main() {}
