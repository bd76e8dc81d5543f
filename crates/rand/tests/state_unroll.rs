//! The XORWOW/MRG32k3a default ordering's loop draws two units per trip; it gives the same
//! values as each state drawing its units in order. On GPUs the request spans more than two
//! units per state, so the paired loop and the single-unit tail both run; the CPU executor
//! (where initialising all kept states is slow) covers only the tail path. (The
//! `state-unroll1` measurement variant, one unit per trip, is checked by `ferrocm bench rand`,
//! which compares its first values with the reference.)

use crate::common::{devices, is_gpu};
use ferrocm_rand::reference::{self as r, CurandDevice};
use ferrocm_rand::{Generator, RngType, DEFAULT_STATES};

#[test]
fn paired_unit_loop_keeps_each_states_order() {
    let seed = 5u64;
    let s = DEFAULT_STATES;
    for d in devices() {
        let units = if is_gpu(&d) { 2 * s + 3 } else { 10 };
        for rng in [RngType::Xorwow, RngType::Mrg32k3a] {
            let stream = d.create_stream().unwrap();
            let mut g = Generator::new(&stream, rng).unwrap();
            g.set_seed(seed);
            let mut a = stream.alloc_zeroed::<u32>(4 * units as usize).unwrap();
            g.generate_u32(&mut a).unwrap();
            let a = stream.clone_dtoh(&a).unwrap();
            for t in [0u64, 1, 2, 3, 7, s - 1].into_iter().filter(|&t| t < units) {
                let mut st: Box<dyn CurandDevice> = match rng {
                    RngType::Xorwow => Box::new(r::Xorwow::new(seed, t, 0)),
                    _ => Box::new(r::Mrg32k3a::new(seed, t, 0)),
                };
                let mut q = t;
                while q < units {
                    let want: Vec<u32> = (0..4).map(|_| st.next_u32()).collect();
                    let got = &a[4 * q as usize..4 * q as usize + 4];
                    assert_eq!(got, want, "{rng:?} state {t} unit {q} on {}", d.properties().name);
                    q += s;
                }
            }
        }
    }
}
