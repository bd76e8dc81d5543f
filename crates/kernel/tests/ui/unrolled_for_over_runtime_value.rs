use ferrocm_kernel::prelude::*;

#[kernel]
fn k(n: u32, x: &mut [u32]) {
    for i in n {
        x[i] = i;
    }
}

fn main() {}
