//! Statistical checks of the host API's outputs (default ordering, every generator) on every
//! device, with the reference suite's KS and moment helpers at the 0.1% level.

use crate::common::devices;
use crate::common::stats::{check_chi2, check_ks, moments, normal_cdf};
use ferrocm_kernel::runtime::Device;
use ferrocm_rand::{DiscreteTable, Generator, RngType};

const N: usize = 20_000;

fn generate(d: &Device, rng: RngType, normal: Option<(f32, f32)>, log: bool) -> Vec<f64> {
    let stream = d.create_stream().unwrap();
    let mut g = Generator::new(&stream, rng).unwrap();
    g.set_seed(20_251_122);
    let mut buf = stream.alloc_zeroed::<f32>(N).unwrap();
    match normal {
        None => g.generate_uniform(&mut buf).unwrap(),
        Some((m, s)) if log => g.generate_log_normal(&mut buf, m, s).unwrap(),
        Some((m, s)) => g.generate_normal(&mut buf, m, s).unwrap(),
    }
    stream.clone_dtoh(&buf).unwrap().into_iter().map(|x| x as f64).collect()
}

#[test]
fn host_api_uniform_and_normal_outputs_have_their_distributions() {
    for d in devices() {
        for rng in [RngType::Philox4x32_10, RngType::Xorwow, RngType::Mrg32k3a, RngType::Sobol32] {
            let name = format!("{rng:?} on {}", d.properties().name);
            let u = generate(&d, rng, None, false);
            assert!(u.iter().all(|&x| x > 0.0 && x <= 1.0), "{name}: uniform outside (0, 1]");
            check_ks(&format!("{name} uniform"), u, |x| x.clamp(0.0, 1.0));
            if rng == RngType::Sobol32 {
                continue;
            }
            let z = generate(&d, rng, Some((1.5, 2.0)), false);
            let (m, v) = moments(&z);
            assert!(
                (m - 1.5).abs() < 0.05 && (v.sqrt() - 2.0).abs() < 0.05,
                "{name}: normal mean {m} sd {}",
                v.sqrt()
            );
            check_ks(&format!("{name} normal"), z, |x| normal_cdf((x - 1.5) / 2.0));
            let l = generate(&d, rng, Some((0.25, 0.5)), true);
            let logs: Vec<f64> = l.iter().map(|x| x.ln()).collect();
            check_ks(&format!("{name} log-normal"), logs, |x| normal_cdf((x - 0.25) / 0.5));
        }
    }
}

fn counts(v: &[u32], bins: usize) -> Vec<u64> {
    let mut c = vec![0u64; bins];
    for &x in v {
        c[(x as usize).min(bins - 1)] += 1;
    }
    c
}

/// Poisson (lambda 3.5) and a discrete table, chi-square at the 0.1% level.
#[test]
fn host_api_poisson_and_discrete_outputs_have_their_distributions() {
    let lambda = 3.5f64;
    let mut probs = Vec::new();
    let mut p = (-lambda).exp();
    for k in 0..30 {
        probs.push(p);
        p *= lambda / (k + 1) as f64;
    }
    let tail = 1.0 - probs.iter().sum::<f64>();
    *probs.last_mut().unwrap() += tail;
    let weights = [1.0, 3.0, 0.0, 6.0];
    let total: f64 = weights.iter().sum();
    let wprobs: Vec<f64> = weights.iter().map(|w| w / total).collect();
    for d in devices() {
        for rng in [RngType::Philox4x32_10, RngType::Xorwow, RngType::Mrg32k3a] {
            let stream = d.create_stream().unwrap();
            let mut g = Generator::new(&stream, rng).unwrap();
            g.set_seed(77);
            let mut buf = stream.alloc_zeroed::<u32>(N).unwrap();
            g.generate_poisson(&mut buf, lambda).unwrap();
            let v = stream.clone_dtoh(&buf).unwrap();
            check_chi2(
                &format!("{rng:?} Poisson({lambda}) on {}", d.properties().name),
                &counts(&v, 30),
                &probs,
            );
            let table = DiscreteTable::new(&stream, &weights).unwrap();
            g.generate_discrete(&mut buf, &table).unwrap();
            let v = stream.clone_dtoh(&buf).unwrap();
            assert!(v.iter().all(|&x| x != 2), "{rng:?}: a zero-weight outcome was drawn");
            let (obs, exp): (Vec<u64>, Vec<f64>) =
                counts(&v, 4).into_iter().zip(wprobs.iter().copied()).filter(|(_, p)| *p > 0.0).unzip();
            check_chi2(&format!("{rng:?} discrete on {}", d.properties().name), &obs, &exp);
        }
    }
}

/// `Poisson(lambda)` probabilities of `0..=k_max`, the upper tail folded into the last.
fn poisson_probs(lambda: f64, k_max: usize) -> Vec<f64> {
    let mut lp = -lambda;
    let mut probs = Vec::with_capacity(k_max + 1);
    for k in 0..=k_max {
        probs.push(lp.exp());
        lp += (lambda / (k + 1) as f64).ln();
    }
    let tail = 1.0 - probs.iter().sum::<f64>();
    *probs.last_mut().unwrap() += tail.max(0.0);
    probs
}

/// Poisson through the host API for every method cuRAND uses (Knuth below 64, the gamma
/// rejection up to 4000, the rounded normal approximation above), every pseudo generator,
/// chi-square at the 0.1% level on a few thousand draws.
#[test]
fn host_api_poisson_has_its_distribution_for_every_method() {
    const M: usize = 2000;
    for d in devices() {
        for lambda in [0.5f64, 10.0, 100.0, 5000.0] {
            // The last bin (the folded upper tail) expects at least 5 draws, so the
            // chi-square's leftover bin is never a sliver.
            let full = poisson_probs(lambda, (lambda + 10.0 * lambda.sqrt() + 10.0) as usize);
            let mut k_max = full.len() - 1;
            while full[k_max..].iter().sum::<f64>() * (M as f64) < 5.0 {
                k_max -= 1;
            }
            let probs = poisson_probs(lambda, k_max);
            for rng in [RngType::Philox4x32_10, RngType::Xorwow, RngType::Mrg32k3a] {
                let stream = d.create_stream().unwrap();
                let mut g = Generator::new(&stream, rng).unwrap();
                g.set_seed(4242);
                let mut buf = stream.alloc_zeroed::<u32>(M).unwrap();
                g.generate_poisson(&mut buf, lambda).unwrap();
                let v = stream.clone_dtoh(&buf).unwrap();
                let (m, var) = moments(&v.iter().map(|&x| x as f64).collect::<Vec<_>>());
                let name = format!("{rng:?} Poisson({lambda}) on {}", d.properties().name);
                // Mean within 5 standard errors.
                assert!((m - lambda).abs() < 5.0 * (lambda / M as f64).sqrt(), "{name}: mean {m}");
                assert!((var / lambda - 1.0).abs() < 0.25, "{name}: variance {var}");
                check_chi2(&name, &counts(&v, k_max + 1), &probs);
            }
        }
    }
}
