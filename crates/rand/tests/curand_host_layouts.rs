//! The reference's host-API layouts against cuRAND's own long streams
//! (`tests/data/curand_host_layouts.txt`, from `tools/curand_host_layout.py`): every
//! generator and distribution of the legacy ordering, at lengths below, at and far above each
//! layout boundary (up to 2^24 + 4 values) and at offsets 0, 1, odd, even and above 2^32.
//! Integers, uniforms, doubles and the histogram Poisson are compared by a digest of the
//! whole output and by windows (the 2^24-value 32-bit calls by windows alone); float normals
//! by windows within a tolerance.

use crate::common;

use ferrocm_rand::reference::host::{PseudoGenerator, PseudoKind};

/// Float normals: cuRAND's `__sincosf` against the reference's libm, relative to max(1, |x|).
const NORMAL_F32_TOL: f64 = 4e-6;
/// Double normals: worst seen over these streams 3.0e-15.
const NORMAL_F64_TOL: f64 = 4e-15;

fn check(gen: &str) -> usize {
    let kind = match gen {
        "philox" => PseudoKind::Philox4x32_10,
        "xorwow" => PseudoKind::Xorwow,
        _ => PseudoKind::Mrg32k3a,
    };
    let mut ran = 0;
    for c in common::parse(common::HOST_LAYOUTS).into_iter().filter(|c| c.get("gen") == gen) {
        let mut g = PseudoGenerator::new(kind);
        g.set_seed(c.u64("seed"));
        g.set_offset(c.u64("offset"));
        let n = c.u64("count") as usize;
        let label = c.label();
        let starts: Vec<usize> =
            c.get("windows").split(',').map(|w| w.parse().expect("window start")).collect();
        assert_eq!(c.values.len(), 8 * starts.len(), "{label}: window values");
        // Our outputs as bit patterns, and as values for tolerance checks.
        let (bits, vals): (Vec<u64>, Vec<f64>) = match c.get("dist") {
            "u32" => {
                let mut o = vec![0u32; n];
                g.generate(&mut o).unwrap();
                (o.iter().map(|&x| x as u64).collect(), vec![])
            }
            "uniform" => {
                let mut o = vec![0f32; n];
                g.generate_uniform(&mut o).unwrap();
                (o.iter().map(|x| x.to_bits() as u64).collect(), vec![])
            }
            "uniform_double" => {
                let mut o = vec![0f64; n];
                g.generate_uniform_double(&mut o).unwrap();
                (o.iter().map(|x| x.to_bits()).collect(), vec![])
            }
            "normal" | "log_normal" => {
                let mut o = vec![0f32; n];
                if c.get("dist") == "normal" {
                    g.generate_normal(&mut o, 0.0, 1.0).unwrap();
                } else {
                    g.generate_log_normal(&mut o, 0.5, 0.75).unwrap();
                }
                (vec![], o.iter().map(|&x| x as f64).collect())
            }
            "normal_double" | "log_normal_double" => {
                let mut o = vec![0f64; n];
                if c.get("dist") == "normal_double" {
                    g.generate_normal_double(&mut o, 0.0, 1.0).unwrap();
                } else {
                    g.generate_log_normal_double(&mut o, 0.5, 0.75).unwrap();
                }
                (vec![], o)
            }
            p => {
                let lambda: f64 = p.strip_prefix("poisson:").expect("a Poisson case").parse().unwrap();
                let mut o = vec![0u32; n];
                g.generate_poisson(&mut o, lambda).unwrap();
                (o.iter().map(|&x| x as u64).collect(), vec![])
            }
        };
        let digest = c.get("digest");
        if digest != "-" {
            assert_eq!(common::mix_digest(bits.iter().copied()).to_string(), digest, "{label}: digest");
        }
        for (w, &s) in starts.iter().enumerate() {
            let theirs = &c.values[8 * w..8 * w + 8];
            if !vals.is_empty() {
                let f32s = matches!(c.get("dist"), "normal" | "log_normal");
                let scale = if c.get("dist").starts_with("log") { 4.0 } else { 1.0 };
                let tol = scale * if f32s { NORMAL_F32_TOL } else { NORMAL_F64_TOL };
                for (k, &t) in theirs.iter().enumerate() {
                    let t = if f32s { f32::from_bits(t as u32) as f64 } else { f64::from_bits(t) };
                    let ours = vals[s + k];
                    assert!(
                        (ours - t).abs() <= tol * t.abs().max(1.0),
                        "{label} value {}: ours {ours} cuRAND {t}",
                        s + k
                    );
                }
            } else if digest == "-" {
                // Rounded float normals (Gaussian Poisson): off by one at most, rarely.
                for (k, &t) in theirs.iter().enumerate() {
                    assert!(
                        bits[s + k].abs_diff(t) <= 1,
                        "{label} value {}: ours {} cuRAND {t}",
                        s + k,
                        bits[s + k]
                    );
                }
            } else {
                assert_eq!(&bits[s..s + 8], theirs, "{label}: window at {s}");
            }
        }
        ran += 1;
    }
    ran
}

#[test]
fn philox_host_layout_matches_curand_long_streams() {
    assert_eq!(check("philox"), 32);
}

#[test]
fn xorwow_host_layout_matches_curand_long_streams() {
    assert_eq!(check("xorwow"), 32);
}

#[test]
fn mrg32k3a_host_layout_matches_curand_long_streams() {
    assert_eq!(check("mrg"), 32);
}
