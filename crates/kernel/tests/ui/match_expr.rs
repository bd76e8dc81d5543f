use ferrocm_kernel::prelude::*;

#[kernel]
fn k(x: &mut [u32]) {
    let i = global_index();
    x[i] = match 3 {
        3 => 1u32,
        _ => 2u32,
    };
}

fn main() {}
