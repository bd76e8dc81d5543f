//! Statistical checks of the host API's outputs (default ordering, every generator) on every
//! device, with the reference suite's KS and moment helpers at the 0.1% level.

mod common;

use common::devices;
use common::stats::{check_ks, moments, normal_cdf};
use ferrocm_kernel::runtime::Device;
use ferrocm_rand::{Generator, RngType};

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
