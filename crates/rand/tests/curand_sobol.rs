//! Sobol32/Sobol64 against the real cuRAND host API and its direction vectors.

use crate::common;

use crate::common::Case;
use ferrocm_rand::reference::host::{QuasiGenerator, QuasiKind};
use ferrocm_rand::reference::sobol::{direction_vectors32, direction_vectors64};

/// Tolerances of the inverse-CDF normals, scaled by max(1, |value|). cuRAND evaluates the
/// float ones in float (`erfcinvf`); ours are rounded from double, and differ by at most one
/// ulp (1.2e-7 seen). The double ones differed by at most 1.4e-15.
const ICDF_F32_TOL: f64 = 5e-7;
const ICDF_F64_TOL: f64 = 1e-14;

fn cases(gen: &str) -> Vec<Case> {
    common::parse(common::HOST_QUASI).into_iter().filter(|c| c.get("gen") == gen).collect()
}

fn check_directions(bits: u32) {
    let cs = cases(&format!("directions{bits}"));
    assert_eq!(cs.len(), 8, "direction vector rows");
    for c in cs {
        let dim = c.u64("dim") as u32;
        let ours: Vec<u64> = if bits == 32 {
            direction_vectors32(dim).unwrap().iter().map(|&x| x as u64).collect()
        } else {
            direction_vectors64(dim).unwrap().to_vec()
        };
        assert_eq!(ours, c.values, "direction vectors {bits} dim {dim}");
    }
}

#[test]
fn direction_vectors_match_curand_joekuo6() {
    check_directions(32);
    check_directions(64);
}

/// Replays one host line: a generator with `dims` dimensions at `offset`, all dimensions
/// generated, then the row of `dim` compared.
fn check(kind: QuasiKind, gen: &str) -> usize {
    let mut checked = 0;
    // Raw points per (dims, offset, points): the 20,000-dimension lines share one run.
    let mut raw: std::collections::HashMap<(u32, u64, usize), Vec<u64>> = Default::default();
    for c in cases(gen) {
        let dims = c.u64("dims") as u32;
        let dim = c.u64("dim") as usize;
        let n = c.values.len();
        let mut g = QuasiGenerator::new(kind, dims).unwrap();
        g.set_offset(c.u64("offset"));
        let total = dims as usize * n;
        let row = |v: Vec<u64>| v[dim * n..(dim + 1) * n].to_vec();
        let func = c.get("func");
        match func {
            "generate" => {
                let out = raw.entry((dims, c.u64("offset"), n)).or_insert_with(|| {
                    let mut out = vec![0u64; total];
                    g.generate(&mut out).unwrap();
                    out
                });
                assert_eq!(row(out.clone()), c.values, "{}", c.label());
            }
            "generate_uniform" => {
                let mut out = vec![0f32; total];
                g.generate_uniform(&mut out).unwrap();
                assert_eq!(row(out.iter().map(|x| x.to_bits() as u64).collect()), c.values, "{}", c.label());
            }
            "generate_uniform_double" => {
                let mut out = vec![0f64; total];
                g.generate_uniform_double(&mut out).unwrap();
                assert_eq!(row(out.iter().map(|x| x.to_bits()).collect()), c.values, "{}", c.label());
            }
            "generate_normal" | "generate_normal_double" => {
                let tol = if func == "generate_normal" { ICDF_F32_TOL } else { ICDF_F64_TOL };
                let (ours, theirs): (Vec<f64>, Vec<f64>) = if func == "generate_normal" {
                    let mut out = vec![0f32; total];
                    g.generate_normal(&mut out, 0.0, 1.0).unwrap();
                    (
                        out[dim * n..(dim + 1) * n].iter().map(|&x| x as f64).collect(),
                        c.values.iter().map(|&b| f32::from_bits(b as u32) as f64).collect(),
                    )
                } else {
                    let mut out = vec![0f64; total];
                    g.generate_normal_double(&mut out, 0.0, 1.0).unwrap();
                    (
                        out[dim * n..(dim + 1) * n].to_vec(),
                        c.values.iter().map(|&b| f64::from_bits(b)).collect(),
                    )
                };
                for (j, (a, b)) in ours.iter().zip(theirs.iter()).enumerate() {
                    assert!(
                        (a - b).abs() <= tol * b.abs().max(1.0),
                        "{} point {j}: ours {a} cuRAND {b}",
                        c.label()
                    );
                }
            }
            other => panic!("unknown func {other}"),
        }
        checked += 1;
    }
    checked
}

#[test]
fn sobol32_matches_curand_host_api() {
    assert!(check(QuasiKind::Sobol32, "sobol32") >= 20);
}

#[test]
fn sobol64_matches_curand_host_api() {
    assert!(check(QuasiKind::Sobol64, "sobol64") >= 20);
}
