//! MTGP32 against cuRAND's host API (`tests/data/curand_host_mtgp32.txt`): the reference, and
//! the host `Generator` on every device.

use crate::common;

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

/// The host `Generator` on every device: each data line's call (a fresh generator; the
/// `u32_second_call` line after a first call of the same length), by digest and windows.
#[test]
fn mtgp32_generator_matches_curand_on_every_device() {
    use ferrocm_rand::{Generator, RngType};
    // Every recorded case, up to 1,048,588 values (about 21 rounds of each generator).
    let cases = common::parse(DATA);
    assert_eq!(cases.len(), 6);
    for d in common::devices() {
        let stream = d.create_stream().unwrap();
        for c in &cases {
            let n = c.u64("count") as usize;
            let mut g = Generator::new(&stream, RngType::Mtgp32).unwrap();
            g.set_seed(c.u64("seed"));
            let bits: Vec<u64> = if c.get("dist") == "uniform" {
                let mut o = stream.alloc_zeroed::<f32>(n).unwrap();
                g.generate_uniform(&mut o).unwrap();
                stream.clone_dtoh(&o).unwrap().iter().map(|x| x.to_bits() as u64).collect()
            } else {
                let mut o = stream.alloc_zeroed::<u32>(n).unwrap();
                g.generate_u32(&mut o).unwrap();
                if c.get("dist") == "u32_second_call" {
                    g.generate_u32(&mut o).unwrap();
                }
                stream.clone_dtoh(&o).unwrap().into_iter().map(u64::from).collect()
            };
            let label = format!("{} on {}", c.label(), d.properties().name);
            assert_eq!(common::mix_digest(bits.iter().copied()).to_string(), c.get("digest"), "{label}");
        }
        // Other distributions are refused, and write nothing.
        let mut g = Generator::new(&stream, RngType::Mtgp32).unwrap();
        let mut o = stream.clone_htod(&[7.0f32; 4]).unwrap();
        assert!(g.generate_normal(&mut o, 0.0, 1.0).is_err());
        assert_eq!(stream.clone_dtoh(&o).unwrap(), [7.0; 4]);
    }
}

/// An offset set ahead (which cuRAND refuses for MTGP32) computes the rounds before it: inside
/// the first round, across the first pass over the 192 generators, and then a continuing
/// call, on every device against the reference.
#[test]
fn mtgp32_generator_offsets_agree_with_the_reference_on_every_device() {
    use ferrocm_rand::{Generator, RngType};
    for d in common::devices() {
        let stream = d.create_stream().unwrap();
        for (first, n) in [(100u64, 300usize), (49_000, 60_000), (1_000_003, 5000)] {
            let mut want = vec![0u32; 2 * n];
            host_generate(77, first, &mut want);
            let mut g = Generator::new(&stream, RngType::Mtgp32).unwrap();
            g.set_seed(77);
            g.set_offset(first);
            let mut ours = Vec::new();
            for _ in 0..2 {
                let mut o = stream.alloc_zeroed::<u32>(n).unwrap();
                g.generate_u32(&mut o).unwrap();
                ours.extend(stream.clone_dtoh(&o).unwrap());
            }
            assert_eq!(ours, want, "offset {first} on {}", d.properties().name);
        }
    }
}
