//! The statistical checks shared by the reference and the host-API tests: Kolmogorov-Smirnov
//! against an exact CDF, chi-square against exact probabilities, moments.
#![allow(dead_code)]

/// Kolmogorov's asymptotic critical value at the 0.1% level, times sqrt(n).
pub const KS_CRIT_001: f64 = 1.949;
/// Standard normal quantile at 0.999, for the Wilson-Hilferty chi-square bound.
pub const Z_999: f64 = 3.090;

/// erfc with fractional error below 1.2e-7 (Chebyshev fit, Numerical Recipes `erfcc`).
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

pub fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / core::f64::consts::SQRT_2)
}

/// KS test of `samples` against `cdf` at the 0.1% level, plus the stated moment bounds.
pub fn check_ks(name: &str, mut samples: Vec<f64>, cdf: impl Fn(f64) -> f64) {
    assert!(samples.iter().all(|x| x.is_finite()), "{name}: non-finite sample");
    samples.sort_by(|a, b| a.total_cmp(b));
    let n = samples.len() as f64;
    let d = samples
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
        })
        .fold(0.0, f64::max);
    let crit = KS_CRIT_001 / n.sqrt();
    assert!(d < crit, "{name}: KS statistic {d:.5} >= critical {crit:.5}");
}

/// Chi-square test of observed counts against expected probabilities (bins with expected
/// count below 5 are pooled into their neighbour).
pub fn check_chi2(name: &str, observed: &[u64], probs: &[f64]) {
    let total: u64 = observed.iter().sum();
    let (mut stat, mut bins, mut acc_o, mut acc_e) = (0.0, 0usize, 0.0, 0.0);
    for (&o, &p) in observed.iter().zip(probs) {
        acc_o += o as f64;
        acc_e += p * total as f64;
        if acc_e >= 5.0 {
            stat += (acc_o - acc_e).powi(2) / acc_e;
            bins += 1;
            acc_o = 0.0;
            acc_e = 0.0;
        }
    }
    if acc_e > 0.0 {
        stat += (acc_o - acc_e).powi(2) / acc_e.max(1e-300);
        bins += 1;
    }
    let k = (bins - 1) as f64;
    let crit = k * (1.0 - 2.0 / (9.0 * k) + Z_999 * (2.0 / (9.0 * k)).sqrt()).powi(3);
    assert!(stat < crit, "{name}: chi-square {stat:.2} >= critical {crit:.2} ({bins} bins)");
}

pub fn moments(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var)
}
