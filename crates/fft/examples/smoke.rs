use ferrocm_fft::*;
use ferrocm_kernel::runtime::Device;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dev = Device::cpu()?;
    let stream = dev.create_stream()?;
    for &n in &[1usize, 2, 3, 4, 5, 8, 12, 16, 17, 64, 100, 1000, 1021, 4096] {
        let batch = 3;
        let x: Vec<Complex<f32>> = (0..n * batch)
            .map(|i| {
                Complex::new(
                    ((i * 7919) % 1000) as f32 / 1000.0 - 0.5,
                    ((i * 104729) % 997) as f32 / 997.0 - 0.5,
                )
            })
            .collect();
        let din = stream.clone_htod(&x)?;
        for engine in [Engine::Auto, Engine::Kernels] {
            let plan = PlanBuilder::new(TransformType::C2C, &[n])
                .batch(batch)
                .engine(engine)
                .build::<f32>(&stream)?;
            let mut dout = stream.alloc_zeroed::<Complex<f32>>(n * batch)?;
            plan.exec_c2c(&din, &mut dout, Direction::Forward)?;
            let y = stream.clone_dtoh(&dout)?;
            let mut err = 0f64;
            let mut nrm = 0f64;
            for b in 0..batch {
                for k in 0..n {
                    let mut acc = (0f64, 0f64);
                    for j in 0..n {
                        let a = -2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                        let v = x[b * n + j];
                        acc.0 += v.re as f64 * a.cos() - v.im as f64 * a.sin();
                        acc.1 += v.re as f64 * a.sin() + v.im as f64 * a.cos();
                    }
                    let g = y[b * n + k];
                    err += (g.re as f64 - acc.0).powi(2) + (g.im as f64 - acc.1).powi(2);
                    nrm += acc.0 * acc.0 + acc.1 * acc.1;
                }
            }
            println!("n={n} {engine:?} rel err {:.3e}", (err / nrm).sqrt());
            if n == 1000 && engine == Engine::Kernels {
                print!("{}", plan.describe());
            }
        }
    }
    Ok(())
}
