//! MTGP32 against cuRAND's host API (`tests/data/curand_host_mtgp32.txt`, and
//! `curand_host_mtgp32_dists.txt` for doubles, normals, log-normals and Poisson): the reference,
//! and the host `Generator` on every device.

use crate::common;

use ferrocm_rand::reference::distributions::uniform_f32;
use ferrocm_rand::reference::mtgp32::host_generate;

const DATA: &str = include_str!("data/curand_host_mtgp32.txt");
const DISTS: &str = include_str!("data/curand_host_mtgp32_dists.txt");

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
    }
}

/// cuRAND's MTGP32 maps of its 32-bit stream, on the host: doubles `x 2^-32 + 2^-32` and
/// Poisson by Sobol32's maps with the inverse CDF from lambda 32, bit for bit (both sides of
/// the switch, lambda 31.99 and 32, and of 8000); normals within 1e-6 of the inverse CDF of
/// `x 2^-32 + 2^-33` (cuRAND's own is a float computation), double normals that float value
/// widened, double log-normals `exp(0.5 + 0.75 z)` with the double inverse CDF.
#[test]
fn mtgp32_distributions_follow_curands_maps_of_the_stream() {
    use ferrocm_rand::reference::distributions::normal_icdf;
    use ferrocm_rand::reference::host_poisson::QuasiPoisson;
    let s = 2f64.powi(-32);
    let mut ran = 0;
    for c in common::parse(DISTS) {
        let n = c.u64("count") as usize;
        let mut x = vec![0u32; n];
        host_generate(c.u64("seed"), 0, &mut x);
        let dist = c.get("dist");
        let (name, param) = dist.split_once(':').unwrap_or((dist, ""));
        let icdf = |v: u32| normal_icdf(v as f64 * s + s / 2.0);
        let starts: Vec<usize> = c.get("windows").split(',').map(|w| w.parse().unwrap()).collect();
        let exact: Option<Vec<u64>> = match name {
            "uniform_double" => Some(x.iter().map(|&v| (v as f64 * s + s).to_bits()).collect()),
            "poisson" => {
                let map = QuasiPoisson::mtgp32(param.parse().unwrap()).unwrap();
                Some(x.iter().map(|&v| map.sample_bits(v) as u64).collect())
            }
            _ => None,
        };
        if let Some(ours) = exact {
            assert_eq!(
                common::mix_digest(ours.iter().copied()).to_string(),
                c.get("digest"),
                "{}",
                c.label()
            );
            ran += 1;
            continue;
        }
        for (w, &at) in starts.iter().enumerate() {
            for j in 0..8 {
                let (v, theirs) = (x[at + j], c.values[8 * w + j]);
                let (want, got, tol) = match name {
                    "normal" => (icdf(v), f32::from_bits(theirs as u32) as f64, 1e-6),
                    "log_normal" => {
                        ((0.5 + 0.75 * icdf(v)).exp(), f32::from_bits(theirs as u32) as f64, 2e-6)
                    }
                    // cuRAND widens its float normal: within float precision of the double one.
                    "normal_double" => (icdf(v), f64::from_bits(theirs), 1e-6),
                    "log_normal_double" => ((0.5 + 0.75 * icdf(v)).exp(), f64::from_bits(theirs), 1e-13),
                    _ => panic!("unknown distribution {dist}"),
                };
                assert!(
                    (want - got).abs() <= tol * got.abs().max(1.0),
                    "{}: value {}: {want} vs cuRAND {got}",
                    c.label(),
                    at + j
                );
            }
        }
        ran += 1;
    }
    assert_eq!(ran, 13);
}

/// Every distribution of the host `Generator` against cuRAND's values on every device, call by
/// call as recorded (odd lengths, a second call that continues inside a round): doubles and
/// Poisson by digest (Gaussian-map Poisson within one of cuRAND's, at most one value off), the
/// normals within ferrocm's device inverse-CDF tolerances.
#[test]
fn mtgp32_generator_distributions_match_curand_on_every_device() {
    use ferrocm_rand::{Generator, RngType};
    let cases = common::parse(DISTS);
    assert_eq!(cases.len(), 13);
    for d in common::devices() {
        let stream = d.create_stream().unwrap();
        for c in &cases {
            let dist = c.get("dist");
            let (name, param) = dist.split_once(':').unwrap_or((dist, ""));
            let mut g = Generator::new(&stream, RngType::Mtgp32).unwrap();
            g.set_seed(c.u64("seed"));
            let mut ours: Vec<u64> = Vec::new();
            for n in c.get("calls").split(',').map(|n| n.parse::<usize>().unwrap()) {
                ours.extend(common::generate_bits(&mut g, &stream, dist, n));
            }
            let label = format!("{} on {}", c.label(), d.properties().name);
            let starts: Vec<usize> = c.get("windows").split(',').map(|w| w.parse().unwrap()).collect();
            let lambda: f64 = param.parse().unwrap_or(0.0);
            if name == "uniform_double" || (name == "poisson" && lambda <= 8000.0) {
                assert_eq!(common::mix_digest(ours.iter().copied()).to_string(), c.get("digest"), "{label}");
            }
            let mut off = 0;
            for (w, &s) in starts.iter().enumerate() {
                for j in 0..8 {
                    let (a, b) = (ours[s + j], c.values[8 * w + j]);
                    let ok = match name {
                        "poisson" => {
                            off += (a != b) as usize;
                            (a as i64 - b as i64).abs() <= 1
                        }
                        "normal" | "log_normal" => {
                            let (a, b) = (f32::from_bits(a as u32) as f64, f32::from_bits(b as u32) as f64);
                            (a - b).abs() <= 4e-5 * b.abs().max(1.0)
                        }
                        "normal_double" | "log_normal_double" => {
                            let (a, b) = (f64::from_bits(a), f64::from_bits(b));
                            (a - b).abs() <= 4e-5 * b.abs().max(1.0)
                        }
                        _ => a == b,
                    };
                    assert!(ok, "{label}: value {} is {a:#x}, cuRAND {b:#x}", s + j);
                }
            }
            assert!(off <= 1, "{label}: {off} window values off");
        }
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
