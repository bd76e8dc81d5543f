//! Statistical checks of every distribution: Kolmogorov-Smirnov against the exact CDF for
//! continuous outputs, chi-square against the exact probabilities for discrete ones, plus
//! moments. Seeds are fixed, so each test is deterministic; the thresholds are the 0.1%
//! critical values, so a correct sampler passes with a wide margin and a biased one fails.

use ferrocm_rand::reference::{CurandDevice, DiscreteDistribution, Mrg32k3a, Philox4x32_10, Poisson, Xorwow};

const N: usize = 20_000;

use crate::common::stats::{check_chi2, check_ks, moments, normal_cdf};

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
