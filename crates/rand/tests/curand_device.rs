//! Known-answer tests against vectors from the real cuRAND device API (`tests/data/`).
//!
//! Integers and uniforms must match bit for bit. Normal and log-normal values come from
//! cuRAND's `__sincosf` on the GPU, which is an approximation, so they are compared with a
//! tolerance (see `NORMAL_F32_TOL` and `NORMAL_F64_TOL`).

use crate::common;

use crate::common::Case;
use ferrocm_rand::reference::{CurandDevice, Mrg32k3a, Philox4x32_10, Poisson, Xorwow};

/// Tolerance for float normals, scaled by max(1, |value|). The largest difference seen over
/// all 2,160 device values was 1.4e-6 (about a fifth of them are bit-identical).
const NORMAL_F32_TOL: f64 = 4e-6;
/// Tolerance for double normals, scaled likewise. The largest difference seen was 4.5e-16
/// (two ulps; about 85% are bit-identical).
const NORMAL_F64_TOL: f64 = 2e-15;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Int,
    F32,
    F64,
}

/// Philox-only device functions (`curand4`, `curand_uniform4`, ...); other modes go to
/// [`produce_common`].
fn produce_philox(p: &mut Philox4x32_10, mode: &str, n: usize) -> Vec<(Kind, u64)> {
    use Kind::*;
    let f = |x: f32| (F32, x.to_bits() as u64);
    let d = |x: f64| (F64, x.to_bits());
    let i = |x: u32| (Int, x as u64);
    let poisson = Poisson::new(3.5).unwrap();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        match mode {
            "curand4" => out.extend(p.next4().map(i)),
            "uniform4" => out.extend(p.uniform4().map(f)),
            "normal4" => out.extend(p.normal4().map(f)),
            "uniform2_double" => out.extend(p.uniform2_double().map(d)),
            "normal4_double" => out.extend(p.normal4_double().map(d)),
            "poisson4_3.5" => out.extend(poisson.sample4(p).map(i)),
            "curand_curand4" => {
                out.push(i(p.next_u32()));
                out.push(i(p.next4()[3]));
            }
            _ => return produce_common(p, mode, n),
        }
    }
    out
}

/// Produces what one device-vector mode computes, as (kind, bit pattern) per value.
fn produce_common<G: CurandDevice + ?Sized>(g: &mut G, mode: &str, n: usize) -> Vec<(Kind, u64)> {
    use Kind::*;
    let f = |x: f32| (F32, x.to_bits() as u64);
    let d = |x: f64| (F64, x.to_bits());
    let i = |x: u32| (Int, x as u64);
    let pois = |l: f64| Poisson::new(l).unwrap();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let k = out.len();
        match mode {
            "curand" => out.push(i(g.next_u32())),
            "uniform" => out.push(f(g.uniform())),
            "normal" => out.push(f(g.normal())),
            "normal2" => out.extend(g.normal2().map(f)),
            "uniform_double" => out.push(d(g.uniform_double())),
            "normal_double" => out.push(d(g.normal_double())),
            "normal2_double" => out.extend(g.normal2_double().map(d)),
            "log_normal" => out.push(f(g.log_normal(0.5, 0.75))),
            "log_normal_double" => out.push(d(g.log_normal_double(0.5, 0.75))),
            "log_normal2" => out.extend(g.log_normal2(0.5, 0.75).map(f)),
            "poisson_3.5" => out.push(i(pois(3.5).sample(g))),
            "poisson_100" => out.push(i(pois(100.0).sample(g))),
            "poisson_5000" => out.push(i(pois(5000.0).sample(g))),
            "poisson_63.5" => out.push(i(pois(63.5).sample(g))),
            "poisson_0.25" => out.push(i(pois(0.25).sample(g))),
            "mixed" => out.push(match k % 8 {
                0 | 2 | 6 => f(g.normal()),
                1 => i(g.next_u32()),
                3 => d(g.normal_double()),
                4 => d(g.uniform_double()),
                5 => f(g.log_normal(0.0, 1.0)),
                _ => f(g.uniform()),
            }),
            other => panic!("unknown mode {other}"),
        }
    }
    out
}

/// Whether a mode's float values come from Box-Muller (and so are compared with a tolerance).
fn approximate(mode: &str) -> bool {
    mode.contains("normal") || mode == "mixed"
}

fn close(kind: Kind, want: u64, got: u64) -> bool {
    match kind {
        Kind::Int => want == got,
        Kind::F32 => {
            let (w, g) = (f32::from_bits(want as u32) as f64, f32::from_bits(got as u32) as f64);
            (w - g).abs() <= NORMAL_F32_TOL * w.abs().max(1.0)
        }
        Kind::F64 => {
            let (w, g) = (f64::from_bits(want), f64::from_bits(got));
            (w - g).abs() <= NORMAL_F64_TOL * w.abs().max(1.0)
        }
    }
}

/// Runs every device vector of one generator; returns (cases, mismatching cases with detail).
fn check(gen: &str) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let cases: Vec<Case> =
        common::parse(common::DEVICE).into_iter().filter(|c| c.get("gen") == gen).collect();
    for c in &cases {
        let (seed, sub, off) = (c.u64("seed"), c.u64("subsequence"), c.u64("offset"));
        let mode = c.get("mode");
        let n = c.values.len();
        let got = match gen {
            "philox" => produce_philox(&mut Philox4x32_10::new(seed, sub, off), mode, n),
            "xorwow" => produce_common(&mut Xorwow::new(seed, sub, off), mode, n),
            "mrg" => produce_common(&mut Mrg32k3a::new(seed, sub, off), mode, n),
            _ => unreachable!(),
        };
        assert!(got.len() >= n, "{}: produced {} of {n} values", c.label(), got.len());
        let exact = !approximate(mode);
        for (idx, (&want, &(kind, g))) in c.values.iter().zip(got.iter()).enumerate() {
            // In the mixed sequence, slots 1, 4 and 7 are curand, uniform_double and uniform.
            let exact = exact || (mode == "mixed" && matches!(idx % 8, 1 | 4 | 7));
            let ok = if exact || kind == Kind::Int { want == g } else { close(kind, want, g) };
            if !ok {
                failures.push(format!("{}: value {idx}: want {want} got {g} ({kind:?})", c.label()));
                break;
            }
        }
    }
    (cases.len(), failures)
}

#[test]
fn philox_matches_curand_device_vectors() {
    let (n, failures) = check("philox");
    assert!(n >= 100, "only {n} philox cases");
    assert!(failures.is_empty(), "{} of {n} cases differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn xorwow_matches_curand_device_vectors() {
    let (n, failures) = check("xorwow");
    assert!(n >= 80, "only {n} xorwow cases");
    assert!(failures.is_empty(), "{} of {n} cases differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn mrg32k3a_matches_curand_device_vectors() {
    let (n, failures) = check("mrg");
    assert!(n >= 80, "only {n} mrg cases");
    assert!(failures.is_empty(), "{} of {n} cases differ:\n{}", failures.len(), failures.join("\n"));
}
