use ferrocm_fft::*;
use ferrocm_kernel::runtime::Device;
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dev = Device::cpu()?;
    let (mut tp, mut te, mut ts, mut tc) = (0f64, 0f64, 0f64, 0f64);
    for n in 1..=1000usize {
        let t = std::time::Instant::now();
        let stream = dev.create_stream()?;
        ts += t.elapsed().as_secs_f64();
        let x: Vec<Complex<f32>> = (0..n).map(|i| Complex::new(i as f32, 1.0)).collect();
        let t = std::time::Instant::now();
        let din = stream.clone_htod(&x)?;
        let mut dout = stream.alloc_zeroed::<Complex<f32>>(n)?;
        tc += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let plan = PlanBuilder::new(TransformType::C2C, &[n]).build::<f32>(&stream)?;
        tp += t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        plan.exec_c2c(&din, &mut dout, Direction::Forward)?;
        stream.synchronize()?;
        te += t.elapsed().as_secs_f64();
    }
    println!("stream {ts:.3} copy {tc:.3} plan {tp:.3} exec {te:.3}");
    Ok(())
}
