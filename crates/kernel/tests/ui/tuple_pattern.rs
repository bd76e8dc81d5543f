use ferrocm_kernel::prelude::*;

fn make_pair() -> (f32, f32) {
    (1.0, 2.0)
}

#[kernel]
fn k(x: &mut [f32]) {
    let (mut a, b) = make_pair();
    x[0usize] = a + b;
}

fn main() {}
