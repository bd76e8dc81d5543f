use ferrocm_kernel::prelude::*;

#[kernel]
fn k(x: &mut [f32]) {
    println!("hello");
    x[0usize] = 1.0f32;
}

fn main() {}
