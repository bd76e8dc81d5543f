//! The references themselves: `rustfft` in `f64` (the reference for `f32` results) against the
//! direct `f64` DFT at small lengths, the double-double FFT (the reference for `f64` results)
//! against a direct double-double DFT, and the library's host twiddles against double-double
//! ones.

use crate::common::dd::{self, Cdd};
use crate::common::{dft, fft64, Rng};
use ferrocm_fft::Complex;

fn max_rel(a: &[Complex<f64>], b: &[Complex<f64>]) -> f64 {
    let scale = b.iter().map(|v| v.norm()).fold(0.0, f64::max).max(1e-300);
    a.iter().zip(b).map(|(x, y)| (x - y).norm()).fold(0.0, f64::max) / scale
}

#[test]
fn rustfft_f64_matches_the_direct_dft() {
    let mut rng = Rng::new();
    for n in (1..=64).chain([97, 100, 127, 128, 243, 256, 1000, 1021]) {
        let x = rng.complex::<f64>(n);
        for inverse in [false, true] {
            let mut y = x.clone();
            fft64(&mut y, n, inverse);
            let e = max_rel(&y, &dft(&x, inverse));
            assert!(e < 1e-13, "n = {n}, inverse = {inverse}: {e:e}");
        }
    }
}

/// The direct DFT in double-double.
fn dft_dd(x: &[Cdd], inverse: bool) -> Vec<Cdd> {
    let n = x.len();
    (0..n)
        .map(|k| {
            x.iter().enumerate().fold(Cdd::default(), |acc, (j, v)| {
                let w = dd::root(((j * k) % n) as u64, n as u64);
                acc.add(v.mul(if inverse { w.conj() } else { w }))
            })
        })
        .collect()
}

#[test]
fn double_double_fft_matches_the_direct_double_double_dft() {
    let mut rng = Rng::new();
    // Radix 2, the direct path (n <= 64) and Bluestein (other n above 64).
    for n in [1, 2, 7, 16, 60, 64, 65, 97, 100, 128, 200] {
        let x: Vec<Cdd> = rng.complex::<f64>(n).into_iter().map(Cdd::from).collect();
        for inverse in [false, true] {
            let (a, b) = (dd::fft(&x, inverse), dft_dd(&x, inverse));
            let scale = b.iter().map(|v| v.to_c64().norm()).fold(0.0, f64::max);
            for (p, q) in a.iter().zip(&b) {
                let d = p.sub(*q);
                let err = (d.re.hi.powi(2) + d.im.hi.powi(2)).sqrt() / scale;
                assert!(err < 1e-28, "n = {n}, inverse = {inverse}: {err:e}");
            }
        }
    }
}

#[test]
fn host_twiddles_are_within_an_ulp_of_double_double() {
    for n in [3u64, 5, 7, 8, 12, 1000, 1021, 4096, 1 << 20, 99991, (1 << 26) + 2] {
        for e in [0, 1, 2, n / 8, (n / 4).saturating_sub(1), n / 4, n / 3, n / 2, n / 2 + 1, n - 1, 12345 % n]
        {
            let (c, s) = ferrocm_fft::twiddle::unit_root(e, n);
            let r = dd::root(e, n);
            let ulp = f64::EPSILON;
            assert!((c - r.re.to_f64()).abs() <= ulp, "cos {e}/{n}: {c} vs {}", r.re.to_f64());
            assert!((s - r.im.to_f64()).abs() <= ulp, "sin {e}/{n}: {s} vs {}", r.im.to_f64());
        }
    }
}
