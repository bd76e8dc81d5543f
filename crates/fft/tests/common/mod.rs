//! Shared by the FFT test binaries: the backends each case runs on, fresh random inputs, the
//! references (a direct `f64` DFT, `rustfft` in `f64` for `f32` results, and a double-double
//! FFT for `f64` results), and rocFFT's accuracy rule.
#![allow(dead_code)]

pub mod dd;
pub mod runner;

use ferrocm_fft::{Complex, Engine};
use ferrocm_kernel::runtime::{BackendKind, Device};

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

pub fn require_gpu() -> bool {
    std::env::var("FERROCM_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// Where a case runs: a device and the engine the plans use.
#[derive(Clone)]
pub struct Backend {
    pub device: Device,
    pub engine: Engine,
    pub name: &'static str,
}

impl Backend {
    pub fn is_gpu(&self) -> bool {
        self.device.kind() != BackendKind::Cpu
    }
    /// Whether the kernel-language kernels run on the CPU executor (slow: sample sizes).
    pub fn is_executor(&self) -> bool {
        !self.is_gpu() && self.engine == Engine::Kernels
    }
    /// Whether plans are made of the kernel-language passes (the executor or a GPU) rather than
    /// handed to rustfft: the cases that pin down a pass structure (three-pass chains, row
    /// pairs, fused unfolds) test the rustfft engine on one representative shape only.
    pub fn runs_kernels(&self) -> bool {
        self.is_gpu() || self.engine == Engine::Kernels
    }
}

/// Runs `case` on the backend `which` ("cpu": rustfft engine, "cpu_kernels": the kernels on the
/// CPU executor, "cuda": the kernels on the first GPU; skipped without one unless required).
pub fn on_backend(which: &'static str, case: fn(&Backend) -> TestResult) {
    let (kind, engine) = match which {
        "cpu" => (BackendKind::Cpu, Engine::Auto),
        "cpu_kernels" => (BackendKind::Cpu, Engine::Kernels),
        _ => (BackendKind::Cuda, Engine::Auto),
    };
    let Some(device) = Device::of_kind(kind).into_iter().next() else {
        assert!(!(kind == BackendKind::Cuda && require_gpu()), "FERROCM_REQUIRE_GPU=1 but no CUDA device");
        return;
    };
    let b = Backend { device, engine, name: which };
    if let Err(e) = case(&b) {
        panic!("{which} ({}): {e}", b.device.properties().name);
    }
}

/// One `#[test]` per backend for each case: `name::cpu`, `name::cpu_kernels`, `name::cuda`.
#[macro_export]
macro_rules! fft_conformance {
    ($($name:ident($b:ident) $body:block)*) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            fn case($b: &$crate::common::Backend) -> $crate::common::TestResult $body
            #[test]
            fn cpu() { $crate::common::on_backend("cpu", case) }
            #[test]
            fn cpu_kernels() { $crate::common::on_backend("cpu_kernels", case) }
            #[test]
            fn cuda() { $crate::common::on_backend("cuda", case) }
        }
    )*};
}

/// A small generator for test data (xorshift64*), seeded fresh per run unless
/// `FERROCM_TEST_SEED` is set; the seed is printed so a failure can be replayed.
pub struct Rng(u64);

impl Rng {
    pub fn new() -> Rng {
        let seed =
            std::env::var("FERROCM_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(7)
            });
        eprintln!("FERROCM_TEST_SEED={seed}");
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [-1, 1).
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn complex<T: ferrocm_fft::FftFloat>(&mut self, n: usize) -> Vec<Complex<T>> {
        (0..n).map(|_| Complex::new(T::lit(self.f64()), T::lit(self.f64()))).collect()
    }
    pub fn reals<T: ferrocm_fft::FftFloat>(&mut self, n: usize) -> Vec<T> {
        (0..n).map(|_| T::lit(self.f64())).collect()
    }
}

impl Default for Rng {
    fn default() -> Self {
        Rng::new()
    }
}

/// `e^{-2 pi i e / n}` exactly reduced (the library's own host twiddle, itself checked against
/// the double-double one in the tests).
fn w(e: usize, n: usize) -> Complex<f64> {
    ferrocm_fft::twiddle::root(e as u64, n as u64)
}

/// The direct DFT in `f64` (O(n^2)), forward or inverse (unnormalised).
pub fn dft(x: &[Complex<f64>], inverse: bool) -> Vec<Complex<f64>> {
    let n = x.len();
    (0..n)
        .map(|k| {
            let mut acc = Complex::new(0.0, 0.0);
            for (j, v) in x.iter().enumerate() {
                let t = w((j * k) % n, n);
                acc += v * if inverse { t.conj() } else { t };
            }
            acc
        })
        .collect()
}

/// `rustfft` in `f64`: the reference for `f32` results.
pub fn fft64(x: &mut [Complex<f64>], n: usize, inverse: bool) {
    thread_local! {
        static PLANNER: std::cell::RefCell<rustfft::FftPlanner<f64>> = std::cell::RefCell::new(rustfft::FftPlanner::new());
    }
    let f = PLANNER.with(|p| {
        let mut p = p.borrow_mut();
        if inverse {
            p.plan_fft_inverse(n)
        } else {
            p.plan_fft_forward(n)
        }
    });
    f.process(x);
}

/// The reference of a batched C2C transform over `dims` (the last contiguous) of packed data,
/// by 1D transforms along each axis with `line` (e.g. [`fft64`] or the double-double FFT).
pub fn nd_ref(
    x: &[Complex<f64>],
    dims: &[usize],
    batch: usize,
    inverse: bool,
    line: &dyn Fn(&mut [Complex<f64>], bool),
) -> Vec<Complex<f64>> {
    let mut y = x.to_vec();
    let total: usize = dims.iter().product();
    for d in 0..dims.len() {
        let n = dims[d];
        let inner: usize = dims[d + 1..].iter().product();
        let outer = total / (n * inner);
        let mut buf = vec![Complex::new(0.0, 0.0); n];
        for b in 0..batch {
            for o in 0..outer {
                for i in 0..inner {
                    let base = b * total + o * n * inner + i;
                    for j in 0..n {
                        buf[j] = y[base + j * inner];
                    }
                    line(&mut buf, inverse);
                    for j in 0..n {
                        y[base + j * inner] = buf[j];
                    }
                }
            }
        }
    }
    y
}

/// rocFFT's `eps` for a precision.
pub fn eps_of(name: &str) -> f64 {
    if name == "f64" {
        1e-15
    } else {
        3.75e-5
    }
}

/// Checks `got` against `want` with rocFFT's rule for transforms of `n` elements: relative L2
/// error at most `eps sqrt(log2 n)` and relative max error at most `eps ln n` (exact for
/// `n = 1`). NaN never passes.
pub fn check_accuracy(
    what: &str,
    got: &[Complex<f64>],
    want: &[Complex<f64>],
    n: usize,
    eps: f64,
) -> Result<(), String> {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let (mut e2, mut r2, mut emax, mut rmax) = (0f64, 0f64, 0f64, 0f64);
    for (g, w) in got.iter().zip(want) {
        let d = (g - w).norm();
        if !d.is_finite() {
            return Err(format!("{what}: non-finite output {g}"));
        }
        e2 += d * d;
        r2 += w.norm_sqr();
        emax = emax.max(d);
        rmax = rmax.max(w.norm());
    }
    let (l2, linf) = if r2 == 0.0 { (e2.sqrt(), emax) } else { (e2.sqrt() / r2.sqrt(), emax / rmax) };
    let nf = (n.max(2)) as f64;
    let (tl2, tinf) = if n == 1 { (0.0, 0.0) } else { (eps * nf.log2().sqrt(), eps * nf.ln()) };
    if l2 > tl2 || linf > tinf {
        return Err(format!(
            "{what}: relative L2 error {l2:.3e} (limit {tl2:.3e}), relative max error {linf:.3e} (limit {tinf:.3e})"
        ));
    }
    Ok(())
}

pub fn widen<T: ferrocm_fft::FftFloat>(x: &[Complex<T>]) -> Vec<Complex<f64>> {
    x.iter().map(|c| Complex::new(c.re.as_f64(), c.im.as_f64())).collect()
}

/// A random Hermitian half spectrum for a C2R input of `n` along the last axis: the spectrum
/// of random reals (so its values at 0 and n/2 are real), computed in `f64`.
pub fn hermitian_half(rng: &mut Rng, n: usize) -> Vec<Complex<f64>> {
    let mut x: Vec<Complex<f64>> = (0..n).map(|_| Complex::new(rng.f64(), 0.0)).collect();
    fft64(&mut x, n, false);
    x.truncate(n / 2 + 1);
    x
}
