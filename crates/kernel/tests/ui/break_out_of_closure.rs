use ferrocm_kernel::prelude::*;

#[kernel]
fn k(x: &mut [u32]) {
    let mut i = 0u32;
    loop {
        let stop = || {
            if i > 4u32 {
                break;
            }
        };
        stop();
        i += 1u32;
    }
    x[0u32] = i;
}

fn main() {}
