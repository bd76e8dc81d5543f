//! The legacy ordering of the host API (`Generator`) on every device against cuRAND's long
//! streams (`tests/data/curand_host_layouts.txt`: the calls short enough for the CPU
//! executor, at offsets up to the end of the 64-bit range) and against the reference (itself
//! checked against those streams to 2^24 values) across every layout boundary.

use crate::common;

use crate::common::{devices, is_gpu};
use ferrocm_kernel::runtime::{Device, DeviceRepr};
use ferrocm_rand::reference::host::{PseudoGenerator, PseudoKind};
use ferrocm_rand::{Generator, Ordering, RandError, RngType};

fn kinds(gen: &str) -> (RngType, PseudoKind) {
    match gen {
        "philox" => (RngType::Philox4x32_10, PseudoKind::Philox4x32_10),
        "xorwow" => (RngType::Xorwow, PseudoKind::Xorwow),
        _ => (RngType::Mrg32k3a, PseudoKind::Mrg32k3a),
    }
}

/// One legacy call on `d`: `dist` as in the data file, values as bit patterns (u32 and f32
/// zero-extended, f64) in the first vector, or as values (normals) in the second.
fn device_call(
    d: &Device,
    rng: RngType,
    seed: u64,
    offset: u64,
    n: usize,
    dist: &str,
) -> (Vec<u64>, Vec<f64>) {
    let stream = d.create_stream().unwrap();
    let mut g = Generator::new(&stream, rng).unwrap();
    g.set_ordering(Ordering::Legacy);
    g.set_seed(seed);
    g.set_offset(offset);
    fn get<T: DeviceRepr + Default + Clone>(
        s: &ferrocm_kernel::runtime::Stream,
        n: usize,
        f: impl FnOnce(&mut ferrocm_kernel::runtime::DeviceBuffer<T>) -> Result<(), RandError>,
    ) -> Vec<T> {
        let mut b = s.alloc_zeroed::<T>(n).unwrap();
        f(&mut b).unwrap();
        s.clone_dtoh(&b).unwrap()
    }
    let u32s = |v: Vec<u32>| (v.into_iter().map(u64::from).collect(), vec![]);
    match dist {
        "u32" => u32s(get(&stream, n, |b| g.generate_u32(b))),
        "uniform" => {
            (get(&stream, n, |b| g.generate_uniform(b)).iter().map(|x| x.to_bits() as u64).collect(), vec![])
        }
        "uniform_double" => {
            (get(&stream, n, |b| g.generate_uniform_double(b)).iter().map(|x| x.to_bits()).collect(), vec![])
        }
        "normal" => {
            (vec![], get(&stream, n, |b| g.generate_normal(b, 0.0, 1.0)).iter().map(|&x| x as f64).collect())
        }
        "log_normal" => (
            vec![],
            get(&stream, n, |b| g.generate_log_normal(b, 0.5, 0.75)).iter().map(|&x| x as f64).collect(),
        ),
        "normal_double" => (vec![], get(&stream, n, |b| g.generate_normal_double(b, 0.0, 1.0))),
        "log_normal_double" => (vec![], get(&stream, n, |b| g.generate_log_normal_double(b, 0.5, 0.75))),
        p => {
            let lambda: f64 = p.strip_prefix("poisson:").expect("a Poisson case").parse().unwrap();
            u32s(get(&stream, n, |b| g.generate_poisson(b, lambda)))
        }
    }
}

/// Float normals: the GPU's approximate `sin/cos/lg2` against cuRAND's `__sincosf`.
fn tol(d: &Device, dist: &str) -> f64 {
    let t = match (dist.contains("double"), is_gpu(d)) {
        (true, _) => 4e-15,
        (false, false) => 4e-6,
        (false, true) => 2e-5,
    };
    if dist.starts_with("log") {
        4.0 * t
    } else {
        t
    }
}

fn compare(label: &str, d: &Device, dist: &str, ours: &(Vec<u64>, Vec<f64>), want: &(Vec<u64>, Vec<f64>)) {
    if dist == "poisson:5000" {
        // Rounded float normals: a value may differ by one where a normal straddles a boundary.
        let off = ours.0.iter().zip(&want.0).filter(|(a, b)| a != b).count();
        assert!(ours.0.iter().zip(&want.0).all(|(a, b)| a.abs_diff(*b) <= 1), "{label}");
        assert!(off * 1000 <= ours.0.len(), "{label}: {off} values off by one");
    } else if want.1.is_empty() {
        assert_eq!(ours.0, want.0, "{label}");
    } else {
        common::assert_close(label, &ours.1, &want.1, tol(d, dist));
    }
}

/// cuRAND's own outputs, for the data file's calls of at most 4108 values: offsets above 2^32
/// and calls ending exactly at 2^64, every distribution.
#[test]
fn legacy_ordering_matches_curand_long_layouts_on_every_device() {
    let cases: Vec<_> =
        common::parse(common::HOST_LAYOUTS).into_iter().filter(|c| c.u64("count") <= 4108).collect();
    assert!(cases.len() >= 20, "short cases in the data file: {}", cases.len());
    for d in devices() {
        for c in &cases {
            // XORWOW's skip-ahead by 2^52 draws in each of its 4096 states costs minutes on the
            // debug-built CPU executor; GPUs run those calls, the CPU the rest.
            if !is_gpu(&d) && c.get("gen") == "xorwow" && c.u64("offset") > 1 << 40 {
                continue;
            }
            let (rng, _) = kinds(c.get("gen"));
            let (dist, n) = (c.get("dist"), c.u64("count") as usize);
            let label = format!("{} on {}", c.label(), d.properties().name);
            let ours = device_call(&d, rng, c.u64("seed"), c.u64("offset"), n, dist);
            let starts: Vec<usize> = c.get("windows").split(',').map(|w| w.parse().unwrap()).collect();
            if c.get("digest") != "-" {
                assert_eq!(
                    common::mix_digest(ours.0.iter().copied()).to_string(),
                    c.get("digest"),
                    "{label}"
                );
            }
            for (w, &s) in starts.iter().enumerate() {
                let theirs = &c.values[8 * w..8 * w + 8];
                if ours.1.is_empty() {
                    for (k, &t) in theirs.iter().enumerate() {
                        assert!(
                            ours.0[s + k].abs_diff(t) <= u64::from(dist == "poisson:5000"),
                            "{label} value {}",
                            s + k
                        );
                    }
                } else {
                    let theirs: Vec<f64> = if dist.contains("double") {
                        theirs.iter().map(|&b| f64::from_bits(b)).collect()
                    } else {
                        theirs.iter().map(|&b| f32::from_bits(b as u32) as f64).collect()
                    };
                    common::assert_close(&label, &ours.1[s..s + 8], &theirs, tol(&d, dist));
                }
            }
        }
    }
}

/// Short calls straddling every layout boundary (XORWOW's 4096 states, MRG32k3a's 81,920,
/// Philox's 65,536 blocks; pairs and doubles at twice the index) at offsets that start a state
/// late, against the reference.
#[test]
fn legacy_ordering_matches_reference_across_layout_boundaries() {
    let dists = [
        "u32",
        "uniform",
        "uniform_double",
        "normal",
        "normal_double",
        "log_normal",
        "poisson:4",
        "poisson:5000",
    ];
    for d in devices() {
        for (gen, bounds) in [
            ("xorwow", [4096u64, 8192, 3 * 4096]),
            ("mrg", [81_920, 2 * 81_920, 3 * 81_920]),
            ("philox", [4 * 65_536, 8 * 65_536, 4 * 65_536 + 2]),
        ] {
            let (rng, kind) = kinds(gen);
            for (k, &b) in bounds.iter().enumerate() {
                let dist = dists[(k * 3 + gen.len()) % dists.len()];
                for (offset, n) in [(b - 37, 96usize), (b - 200, 410), (3 * b + 1 - 64, 128)] {
                    let mut r = PseudoGenerator::new(kind);
                    r.set_seed(99);
                    r.set_offset(offset);
                    let want: (Vec<u64>, Vec<f64>) = match dist {
                        "u32" | "poisson:4" | "poisson:5000" => {
                            let mut o = vec![0u32; n];
                            match dist {
                                "u32" => r.generate(&mut o).unwrap(),
                                "poisson:4" => r.generate_poisson(&mut o, 4.0).unwrap(),
                                _ => r.generate_poisson(&mut o, 5000.0).unwrap(),
                            }
                            (o.into_iter().map(u64::from).collect(), vec![])
                        }
                        "uniform" => {
                            let mut o = vec![0f32; n];
                            r.generate_uniform(&mut o).unwrap();
                            (o.iter().map(|x| x.to_bits() as u64).collect(), vec![])
                        }
                        "uniform_double" => {
                            let mut o = vec![0f64; n];
                            r.generate_uniform_double(&mut o).unwrap();
                            (o.iter().map(|x| x.to_bits()).collect(), vec![])
                        }
                        "normal" | "log_normal" => {
                            let mut o = vec![0f32; n];
                            if dist == "normal" {
                                r.generate_normal(&mut o, 0.0, 1.0).unwrap();
                            } else {
                                r.generate_log_normal(&mut o, 0.5, 0.75).unwrap();
                            }
                            (vec![], o.iter().map(|&x| x as f64).collect())
                        }
                        _ => {
                            let mut o = vec![0f64; n];
                            r.generate_normal_double(&mut o, 0.0, 1.0).unwrap();
                            (vec![], o)
                        }
                    };
                    let ours = device_call(&d, rng, 99, offset, n, dist);
                    let label = format!("{gen} {dist} offset {offset} n {n} on {}", d.properties().name);
                    compare(&label, &d, dist, &ours, &want);
                }
            }
        }
    }
}
