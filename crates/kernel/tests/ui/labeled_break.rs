use ferrocm_kernel::prelude::*;

#[kernel]
fn k(x: &mut [u32], n: u32) {
    'outer: for i in 0u32..n {
        if i > 3u32 {
            break 'outer;
        }
        x[i] = i;
    }
}

fn main() {}
