//! MTGP32 against cuRAND's host API (`tests/data/curand_host_mtgp32.txt`): the reference, and
//! the host `Generator` on every device.

mod common;

use ferrocm_rand::reference::distributions::uniform_f32;
use ferrocm_rand::reference::mtgp32::host_generate;

const DATA: &str = include_str!("data/curand_host_mtgp32.txt");

#[test]
fn mtgp32_reference_matches_curand_host_api() {
    let mut ran = 0;
    for c in common::parse(DATA) {
        let (seed, n) = (c.u64("seed"), c.u64("count") as usize);
        let first = if c.get("dist") == "u32_second_call" { n as u64 } else { 0 };
        let mut o = vec![0u32; n];
        host_generate(seed, first, &mut o);
        let bits: Vec<u64> = if c.get("dist") == "uniform" {
            o.iter().map(|&x| uniform_f32(x).to_bits() as u64).collect()
        } else {
            o.iter().map(|&x| x as u64).collect()
        };
        assert_eq!(common::mix_digest(bits.iter().copied()).to_string(), c.get("digest"), "{}", c.label());
        let starts: Vec<usize> = c.get("windows").split(',').map(|w| w.parse().unwrap()).collect();
        for (w, &s) in starts.iter().enumerate() {
            assert_eq!(&bits[s..s + 8], &c.values[8 * w..8 * w + 8], "{} window {s}", c.label());
        }
        ran += 1;
    }
    assert_eq!(ran, 6);
}
