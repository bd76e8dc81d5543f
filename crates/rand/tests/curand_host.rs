//! Host-API pseudo-random generation against the real cuRAND (`curand_host_vectors.txt`,
//! seed 1234, 256 values per call, default ordering).

use crate::common;

use ferrocm_rand::reference::host::{PseudoGenerator, PseudoKind};

/// Tolerance for Box-Muller outputs (cuRAND's `__sincosf`), scaled by max(1, |value|).
const NORMAL_F32_TOL: f64 = 4e-6;
const NORMAL_F64_TOL: f64 = 2e-15;

fn kind(gen: &str) -> PseudoKind {
    match gen {
        "philox" => PseudoKind::Philox4x32_10,
        "xorwow" => PseudoKind::Xorwow,
        "mrg" => PseudoKind::Mrg32k3a,
        other => panic!("unknown generator {other}"),
    }
}

/// Replays every host line of one generator whose function we model; returns how many ran.
fn check(gen: &str) -> usize {
    let mut ran = 0;
    for c in common::parse(common::HOST).into_iter().filter(|c| c.get("gen") == gen) {
        let mut g = PseudoGenerator::new(kind(gen));
        g.set_seed(c.u64("seed"));
        g.set_offset(c.u64("offset"));
        let n = c.values.len();
        let label = c.label();
        let f32s = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
        let theirs32 = || c.values.iter().map(|&b| f32::from_bits(b as u32) as f64).collect::<Vec<_>>();
        let theirs64 = || c.values.iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>();
        let close = |ours: Vec<f64>, theirs: Vec<f64>, tol: f64| {
            for (j, (a, b)) in ours.iter().zip(theirs.iter()).enumerate() {
                assert!((a - b).abs() <= tol * b.abs().max(1.0), "{label} value {j}: ours {a} cuRAND {b}");
            }
        };
        match c.get("func") {
            "generate" => {
                let mut out = vec![0u32; n];
                g.generate(&mut out).unwrap();
                assert_eq!(out.iter().map(|&x| x as u64).collect::<Vec<_>>(), c.values, "{label}");
            }
            "generate_uniform" => {
                let mut out = vec![0f32; n];
                g.generate_uniform(&mut out).unwrap();
                assert_eq!(out.iter().map(|x| x.to_bits() as u64).collect::<Vec<_>>(), c.values, "{label}");
            }
            "generate_uniform_double" => {
                let mut out = vec![0f64; n];
                g.generate_uniform_double(&mut out).unwrap();
                assert_eq!(out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), c.values, "{label}");
            }
            "generate_normal" => {
                let mut out = vec![0f32; n];
                g.generate_normal(&mut out, 0.0, 1.0).unwrap();
                close(f32s(&out), theirs32(), NORMAL_F32_TOL);
            }
            "generate_normal_double" => {
                let mut out = vec![0f64; n];
                g.generate_normal_double(&mut out, 0.0, 1.0).unwrap();
                close(out, theirs64(), NORMAL_F64_TOL);
            }
            "generate_log_normal" => {
                let mut out = vec![0f32; n];
                g.generate_log_normal(&mut out, 0.5, 0.75).unwrap();
                close(f32s(&out), theirs32(), 4.0 * NORMAL_F32_TOL);
            }
            "generate_poisson_4" => {
                let mut out = vec![0u32; n];
                g.generate_poisson(&mut out, 4.0).unwrap();
                assert_eq!(out.iter().map(|&x| x as u64).collect::<Vec<_>>(), c.values, "{label}");
            }
            other => panic!("unknown func {other}"),
        }
        ran += 1;
    }
    ran
}

#[test]
fn xorwow_host_api_matches_curand() {
    assert_eq!(check("xorwow"), 8);
}

#[test]
fn philox_host_api_matches_curand() {
    assert_eq!(check("philox"), 8);
}

#[test]
fn mrg32k3a_host_api_matches_curand() {
    assert_eq!(check("mrg"), 8);
}

/// FNV-1a-64 over little-endian u32 bytes, as `tools/digest_host_raw.py` computes it.
fn fnv1a(values: &[u32]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in values {
        for b in v.to_le_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

/// The first 65,536 values of `curandGenerate` (seed 1234), compared through their digest:
/// 16 rounds of XORWOW's 4096 states, one round of Philox's 65,536 subsequences' first
/// blocks (a quarter of them) and of MRG32k3a's 81,920 states. Longer streams are in
/// `curand_host_layouts.rs`.
#[test]
fn long_host_streams_match_curand_digests() {
    let digests = common::parse(common::HOST_RAW_DIGESTS);
    assert_eq!(digests.len(), 3);
    for c in digests {
        let mut g = PseudoGenerator::new(kind(c.get("gen")));
        g.set_seed(c.u64("seed"));
        g.set_offset(c.u64("offset"));
        let mut out = vec![0u32; c.u64("count") as usize];
        g.generate(&mut out).unwrap();
        assert_eq!(fnv1a(&out), c.values[0], "{}", c.label());
    }
}
