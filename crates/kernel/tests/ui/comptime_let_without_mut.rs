use ferrocm_kernel::prelude::*;

#[kernel]
fn k(x: &mut [u32]) {
    #[comptime]
    let n = 4u32;
    x[0u32] = n;
}

fn main() {}
