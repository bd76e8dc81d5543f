use ferrocm_kernel::prelude::*;

#[kernel]
fn k(x: &mut [f32]) {
    let f = |v: f32| {
        if v > 1.0 {
            return v;
        }
        v * 2.0
    };
    x[0usize] = f(1.0);
}

fn main() {}
