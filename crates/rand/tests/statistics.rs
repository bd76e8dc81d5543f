//! Statistical checks of every distribution: Kolmogorov-Smirnov against the exact CDF for
//! continuous outputs, chi-square against the exact probabilities for discrete ones, plus
//! moments. Seeds are fixed, so each test is deterministic; the thresholds are the 0.1%
//! critical values, so a correct sampler passes with a wide margin and a biased one fails.

use ferrocm_rand::reference::{CurandDevice, DiscreteDistribution, Mrg32k3a, Philox4x32_10, Poisson, Xorwow};

const N: usize = 20_000;
/// Kolmogorov's asymptotic critical value at the 0.1% level, times sqrt(n).
const KS_CRIT_001: f64 = 1.949;
/// Standard normal quantile at 0.999, for the Wilson-Hilferty chi-square bound.
const Z_999: f64 = 3.090;

/// erfc with fractional error below 1.2e-7 (Chebyshev fit, Numerical Recipes `erfcc`).
fn erfc(x: f64) -> f64 {
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

fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / core::f64::consts::SQRT_2)
}

/// KS test of `samples` against `cdf` at the 0.1% level, plus the stated moment bounds.
fn check_ks(name: &str, mut samples: Vec<f64>, cdf: impl Fn(f64) -> f64) {
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
fn check_chi2(name: &str, observed: &[u64], probs: &[f64]) {
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

fn moments(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

fn generators() -> Vec<(&'static str, Box<dyn CurandDevice>)> {
    vec![
        ("philox", Box::new(Philox4x32_10::new(2024, 1, 0))),
        ("xorwow", Box::new(Xorwow::new(2024, 1, 0))),
        ("mrg32k3a", Box::new(Mrg32k3a::new(2024, 1, 0))),
    ]
}

#[test]
fn uniform_f32_is_uniform_on_0_1() {
    for (name, mut g) in generators() {
        let s: Vec<f64> = (0..N).map(|_| g.uniform() as f64).collect();
        assert!(s.iter().all(|&x| x > 0.0 && x <= 1.0), "{name}: uniform outside (0, 1]");
        check_ks(&format!("{name} uniform"), s, |x| x.clamp(0.0, 1.0));
    }
}

#[test]
fn uniform_f64_is_uniform_on_0_1() {
    for (name, mut g) in generators() {
        let s: Vec<f64> = (0..N).map(|_| g.uniform_double()).collect();
        assert!(s.iter().all(|&x| x > 0.0 && x <= 1.0), "{name}: uniform_double outside (0, 1]");
        check_ks(&format!("{name} uniform_double"), s, |x| x.clamp(0.0, 1.0));
    }
}

#[test]
fn normal_f32_is_standard_normal() {
    for (name, mut g) in generators() {
        let s: Vec<f64> = (0..N).map(|_| g.normal() as f64).collect();
        let (mean, var) = moments(&s);
        assert!(mean.abs() < 5.0 / (N as f64).sqrt(), "{name}: normal mean {mean}");
        assert!((var - 1.0).abs() < 5.0 * (2.0 / N as f64).sqrt(), "{name}: normal variance {var}");
        check_ks(&format!("{name} normal"), s, normal_cdf);
    }
}

#[test]
fn normal_f64_is_standard_normal() {
    for (name, mut g) in generators() {
        let s: Vec<f64> = (0..N).map(|_| g.normal_double()).collect();
        check_ks(&format!("{name} normal_double"), s, normal_cdf);
    }
}

#[test]
fn normal_pairs_are_uncorrelated() {
    for (name, mut g) in generators() {
        let pairs: Vec<[f32; 2]> = (0..N / 2).map(|_| g.normal2()).collect();
        let r = pairs.iter().map(|p| p[0] as f64 * p[1] as f64).sum::<f64>() / pairs.len() as f64;
        assert!(r.abs() < 5.0 / (pairs.len() as f64).sqrt(), "{name}: pair correlation {r}");
    }
}

#[test]
fn log_normal_has_normal_logarithm() {
    for (name, mut g) in generators() {
        let s: Vec<f64> = (0..N).map(|_| (g.log_normal(0.5, 0.75) as f64).ln()).collect();
        check_ks(&format!("{name} log_normal"), s.clone(), |x| normal_cdf((x - 0.5) / 0.75));
        let d: Vec<f64> = (0..N).map(|_| g.log_normal_double(-1.0, 2.0).ln()).collect();
        check_ks(&format!("{name} log_normal_double"), d, |x| normal_cdf((x + 1.0) / 2.0));
    }
}

fn poisson_probs(lambda: f64, max: usize) -> Vec<f64> {
    let mut log_fact = 0.0;
    (0..=max)
        .map(|k| {
            if k > 0 {
                log_fact += (k as f64).ln();
            }
            (-lambda + k as f64 * lambda.ln() - log_fact).exp()
        })
        .collect()
}

#[test]
fn poisson_matches_its_distribution_for_each_method() {
    // 3.5: Knuth; 100 and 1000: gamma rejection; 5000: normal approximation.
    for lambda in [0.25, 3.5, 100.0, 1000.0, 5000.0] {
        let p = Poisson::new(lambda).unwrap();
        for (name, mut g) in generators() {
            let s: Vec<u32> = (0..N).map(|_| p.sample(g.as_mut())).collect();
            let f: Vec<f64> = s.iter().map(|&x| x as f64).collect();
            let (mean, var) = moments(&f);
            let se = (lambda / N as f64).sqrt();
            assert!((mean - lambda).abs() < 5.0 * se, "{name} poisson({lambda}) mean {mean}");
            assert!(
                (var / lambda - 1.0).abs() < 5.0 * (2.0 / N as f64).sqrt() + 0.01,
                "{name} poisson({lambda}) var {var}"
            );
            if lambda <= 1000.0 {
                let max = (lambda + 12.0 * lambda.sqrt() + 20.0) as usize;
                let mut counts = vec![0u64; max + 1];
                for &x in &s {
                    counts[(x as usize).min(max)] += 1;
                }
                check_chi2(&format!("{name} poisson({lambda})"), &counts, &poisson_probs(lambda, max));
            }
        }
    }
}

#[test]
fn discrete_matches_its_weights() {
    let weights = [1.0, 2.0, 3.0, 4.0, 0.0, 10.0, 0.5];
    let total: f64 = weights.iter().sum();
    let probs: Vec<f64> = weights.iter().map(|w| w / total).collect();
    let table = DiscreteDistribution::new(&weights).unwrap();
    for (name, mut g) in generators() {
        let mut counts = vec![0u64; weights.len()];
        for _ in 0..N {
            counts[table.sample(g.as_mut()) as usize] += 1;
        }
        assert_eq!(counts[4], 0, "{name}: zero-weight outcome drawn");
        check_chi2(&format!("{name} discrete"), &counts, &probs);
    }
}
