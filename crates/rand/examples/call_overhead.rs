//! Host cost of one small `generate_uniform` call (for profiling the call path, e.g. under
//! `valgrind --tool=callgrind`): 1024 f32 uniforms, `N` calls, one synchronize at the end.
use ferrocm_kernel::runtime::Device;
use ferrocm_rand::{Generator, RngType};

fn main() {
    let calls: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let device = Device::get(0).expect("a device");
    let stream = device.default_stream().expect("stream");
    let mut out = stream.alloc_zeroed::<f32>(1024).expect("allocation");
    let mut g = Generator::new(&stream, RngType::Philox4x32_10).expect("generator");
    g.generate_uniform(&mut out).expect("warm-up");
    stream.synchronize().expect("sync");
    let t = std::time::Instant::now();
    for _ in 0..calls {
        g.generate_uniform(&mut out).expect("uniform");
    }
    stream.synchronize().expect("sync");
    println!("{:.2} us per call", t.elapsed().as_secs_f64() * 1e6 / calls as f64);
}
