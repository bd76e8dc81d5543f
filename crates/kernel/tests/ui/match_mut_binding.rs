use ferrocm_kernel::prelude::*;

#[kernel]
fn k(#[comptime] bias: Option<u32>, x: &mut [u32]) {
    let i = global_index();
    x[i] = match bias {
        Some(mut b) => b,
        None => 2u32,
    };
}

fn main() {}
