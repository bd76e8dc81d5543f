use ferrocm_kernel::prelude::*;

#[kernel]
fn k(x: &mut [f32]) {
    let s = 0.0f32;
    s = x[0usize];
    x[1usize] = s;
}

fn main() {}
