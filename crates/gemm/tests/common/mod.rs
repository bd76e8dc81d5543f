//! Shared test helpers: devices, a seeded generator, the f64 host reference and the checker.
#![allow(dead_code)]

use ferrocm_gemm::{ElemType, Gemm, GemmDesc, GemmElement, GemmOutput, Layout, Tuning, E4M3, E5M2};
use ferrocm_kernel::runtime::{BackendKind, Device};
use ferrocm_kernel::{bf16, f16};

/// Every device present (the CPU device runs the kernel on the executor). With
/// `FERROCM_REQUIRE_GPU=1` a missing GPU is a failure, so a GPU run cannot pass by skipping.
pub fn devices() -> Vec<Device> {
    if std::env::var("FERROCM_REQUIRE_GPU").is_ok_and(|v| v == "1") {
        assert!(
            !Device::of_kind(BackendKind::Cuda).is_empty(),
            "FERROCM_REQUIRE_GPU=1 but no GPU is visible"
        );
    }
    Device::all().expect("devices")
}

pub fn is_gpu(d: &Device) -> bool {
    d.kind() == BackendKind::Cuda
}

/// xorshift64*, seeded from the clock unless `FERROCM_SEED` is set (printed for replay).
pub struct Rng(u64);

impl Rng {
    pub fn new() -> Rng {
        let seed = std::env::var("FERROCM_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
        }) | 1;
        eprintln!("FERROCM_SEED={seed}");
        Rng(seed)
    }
    pub fn u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [-1, 1).
    pub fn sym(&mut self) -> f64 {
        (self.u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

/// Conversions between the element types and f64.
pub trait Host: GemmElement {
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    /// Relative rounding bound of one conversion from f32.
    const EPS: f64;
    /// Bound on the summation error of a product of inputs of this type, relative to the sum of
    /// the products' magnitudes: f32 sums for 16-bit inputs; for 8-bit ones, Hopper's tensor
    /// cores keep about 13-14 bits of the running sum (DeepGEMM) and round it once per
    /// k32 `wgmma`, four times per promoted 128-K block, so 2^-10. (2^-12 was exceeded by up to
    /// 1.15x on the H100, whose output bits at 4096^3 and 8192^3 equal cuBLAS's through
    /// `torch._scaled_mm`: the hardware's accumulation, not the kernel.)
    const SUM_EPS: f64 = 2e-6;
    /// A fresh random value: uniform in [-1, 1) rounded to the type, or for 8-bit types a
    /// random finite code (every magnitude from 2^-9 to the largest).
    fn random(rng: &mut Rng) -> Self {
        Self::from_f64(rng.sym())
    }
}
macro_rules! fp8_host {
    ($t:ty) => {
        impl Host for $t {
            fn from_f64(x: f64) -> Self {
                <$t>::from_f64(x)
            }
            fn to_f64(self) -> f64 {
                <$t>::to_f64(self)
            }
            const EPS: f64 = 1.0 / 8.0;
            const SUM_EPS: f64 = 1.0 / 1024.0;
            fn random(rng: &mut Rng) -> Self {
                loop {
                    let x = <$t>::from_bits(rng.u64() as u8);
                    if x.to_f32().is_finite() {
                        return x;
                    }
                }
            }
        }
    };
}
fp8_host!(E4M3);
fp8_host!(E5M2);
impl Host for f16 {
    fn from_f64(x: f64) -> Self {
        f16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    const EPS: f64 = 1.0 / 1024.0;
}
impl Host for bf16 {
    fn from_f64(x: f64) -> Self {
        bf16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    const EPS: f64 = 1.0 / 128.0;
}
impl Host for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    const EPS: f64 = 1e-7;
}

/// Element (i, j) of a matrix stored with `layout` and leading dimension `ld`.
pub fn at(layout: Layout, ld: usize, i: usize, j: usize) -> usize {
    match layout {
        Layout::RowMajor => i * ld + j,
        Layout::ColMajor => j * ld + i,
    }
}

/// Elements a `rows x cols` matrix with leading dimension `ld` spans, plus `extra` past it.
pub fn storage(layout: Layout, rows: usize, cols: usize, ld: usize, extra: usize) -> usize {
    match layout {
        Layout::RowMajor => (rows - 1) * ld + cols + extra,
        Layout::ColMajor => (cols - 1) * ld + rows + extra,
    }
}

/// One GEMM case: shape, layouts, leading-dimension padding, alpha and beta.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub la: Layout,
    pub lb: Layout,
    pub lc: Layout,
    /// Elements added to each leading dimension (itself rounded up to a multiple of 8).
    pub pad: usize,
    pub alpha: f32,
    pub beta: f32,
    /// Per-tensor scales of A and B.
    pub scale_a: f32,
    pub scale_b: f32,
    /// Kernel shape instead of the planner's.
    pub tuning: Tuning,
    /// Elements added to C's leading dimension only (after `pad`).
    pub pad_c: usize,
    /// Elements before C's first element in its buffer (C's start alignment).
    pub c_offset: usize,
    /// The epilogue the plan must pick: `Some(true)` stmatrix + TMA store, `Some(false)` the
    /// register one.
    pub tma_store: Option<bool>,
    /// Products in one launch (`GemmDesc::with_batch` when above 1).
    pub batch: usize,
    /// A and B the same matrix for every product (batch stride 0).
    pub broadcast: [bool; 2],
    /// Elements between one product's A, B and C and the next's beyond the matrices' extent
    /// (leading dimension times outer dimension).
    pub batch_gap: usize,
    /// Elements added to C's batch stride only (after `batch_gap`).
    pub c_gap: usize,
    /// The plan's input type instead of the buffers' (`TF32` for f32 buffers).
    pub input: Option<ElemType>,
}

impl Case {
    pub fn new(m: usize, n: usize, k: usize) -> Case {
        use Layout::RowMajor as R;
        Case {
            m,
            n,
            k,
            la: R,
            lb: R,
            lc: R,
            pad: 0,
            alpha: 1.0,
            beta: 0.0,
            scale_a: 1.0,
            scale_b: 1.0,
            tuning: Tuning::default(),
            pad_c: 0,
            c_offset: 0,
            tma_store: None,
            batch: 1,
            broadcast: [false; 2],
            batch_gap: 0,
            c_gap: 0,
            input: None,
        }
    }
    /// A tf32 case (f32 buffers): A row-major, B column-major (the layouts tf32 needs).
    pub fn tf32(m: usize, n: usize, k: usize) -> Case {
        Case { input: Some(ElemType::TF32), ..Case::tn(m, n, k) }
    }
    /// `batch` products with `gap` elements between consecutive matrices.
    pub fn batched(self, batch: usize, gap: usize) -> Case {
        Case { batch, batch_gap: gap, ..self }
    }
    /// C's batch stride `c_gap` elements longer than the others'.
    pub fn c_gap(self, c_gap: usize) -> Case {
        Case { c_gap, ..self }
    }
    /// A (`[true, false]`) or B the same for every product.
    pub fn broadcast(self, broadcast: [bool; 2]) -> Case {
        Case { broadcast, ..self }
    }
    /// An 8-bit case: A row-major, B column-major (the layouts 8-bit inputs need), C row-major.
    pub fn tn(m: usize, n: usize, k: usize) -> Case {
        Case::new(m, n, k).layouts(Layout::RowMajor, Layout::ColMajor, Layout::RowMajor)
    }
    pub fn scales(self, scale_a: f32, scale_b: f32) -> Case {
        Case { scale_a, scale_b, ..self }
    }
    pub fn layouts(self, la: Layout, lb: Layout, lc: Layout) -> Case {
        Case { la, lb, lc, ..self }
    }
    pub fn pad(self, pad: usize) -> Case {
        Case { pad, ..self }
    }
    /// C's leading dimension `pad_c` elements longer than the others'.
    pub fn pad_c(self, pad_c: usize) -> Case {
        Case { pad_c, ..self }
    }
    /// C starting `c_offset` elements into its buffer.
    pub fn c_offset(self, c_offset: usize) -> Case {
        Case { c_offset, ..self }
    }
    /// Asserts which epilogue the plan picks.
    pub fn expect_tma_store(self, tma: bool) -> Case {
        Case { tma_store: Some(tma), ..self }
    }
    pub fn tuned(self, tuning: Tuning) -> Case {
        Case { tuning, ..self }
    }
    pub fn scale(self, alpha: f32, beta: f32) -> Case {
        Case { alpha, beta, ..self }
    }
    fn ld(&self, layout: Layout, rows: usize, cols: usize, size: usize) -> usize {
        // TMA reads rows whose pitch is a multiple of 16 bytes: packed dimensions round up to
        // 16 bytes' worth of the inputs (of 2-byte elements for C).
        let align = 16 / size.min(2);
        self.pad
            + match layout {
                Layout::RowMajor => cols,
                Layout::ColMajor => rows,
            }
            .next_multiple_of(align)
    }
}

/// Runs `case` on `device` with fresh random inputs and checks every element of C against an
/// f64 host product (and that nothing outside C changed).
pub fn check<T: Host, C: Host + GemmOutput>(device: &Device, case: Case, rng: &mut Rng) {
    let Case { m, n, k, la, lb, lc, beta, .. } = case;
    let size = T::TYPE.size();
    let (lda, ldb, ldc) =
        (case.ld(la, m, k, size), case.ld(lb, k, n, size), case.ld(lc, m, n, 2) + case.pad_c);
    let extra = 8;
    let off = case.c_offset;
    // Batch strides: each matrix's leading dimension times its outer dimension plus the gap
    // (0 for a broadcast operand); `nb` matrices of each operand are stored.
    let nb = case.batch;
    let outer = |l: Layout, rows: usize, cols: usize| if l == Layout::RowMajor { rows } else { cols };
    let stride = |ld: usize, o: usize, bcast: bool| if bcast { 0 } else { ld * o + case.batch_gap };
    let (sa, sb, sc) = (
        stride(lda, outer(la, m, k), case.broadcast[0]),
        stride(ldb, outer(lb, k, n), case.broadcast[1]),
        stride(ldc, outer(lc, m, n), false) + case.c_gap,
    );
    let a: Vec<T> = (0..sa * (nb - 1) + storage(la, m, k, lda, extra)).map(|_| T::random(rng)).collect();
    let b: Vec<T> = (0..sb * (nb - 1) + storage(lb, k, n, ldb, extra)).map(|_| T::random(rng)).collect();
    // C: random where beta reads it; a sentinel in the padding and past the end, NaN inside
    // when beta is 0 (so an unwritten element fails).
    let sentinel = C::from_f64(1234.5);
    let mut c0: Vec<C> = vec![sentinel; off + sc * (nb - 1) + storage(lc, m, n, ldc, extra)];
    for z in 0..nb {
        for i in 0..m {
            for j in 0..n {
                c0[off + z * sc + at(lc, ldc, i, j)] =
                    if beta == 0.0 { C::from_f64(f64::NAN) } else { C::from_f64(rng.sym()) };
            }
        }
    }
    let ty = case.input.unwrap_or(T::TYPE);
    let mut desc = GemmDesc::new(m, n, k, ty)
        .with_c_type(C::TYPE)
        .with_layouts(la, lb, lc)
        .with_leading_dims(lda, ldb, ldc)
        .with_alpha_beta(case.alpha, beta)
        .with_scales(case.scale_a, case.scale_b);
    if nb != 1 {
        desc = desc.with_batch(nb, sa, sb, sc);
    }
    // The factor of A B, in f64 (the kernel rounds it once to f32).
    let alpha = case.alpha as f64 * case.scale_a as f64 * case.scale_b as f64;
    let plan = Gemm::plan_tuned(device, &desc, case.tuning).unwrap_or_else(|e| panic!("plan {case:?}: {e}"));
    if let Some(tma) = case.tma_store {
        let name = plan.kernel_name();
        assert_eq!(name.contains("TMA store"), tma, "{case:?}: the plan picked {name}");
    }
    let stream = device.create_stream().unwrap();
    let da = stream.clone_htod(&a).unwrap();
    let db = stream.clone_htod(&b).unwrap();
    let mut dc = stream.clone_htod(&c0).unwrap();
    let mut cv = dc.slice_mut(off..).unwrap();
    plan.run(&stream, &da, &db, &mut cv).unwrap_or_else(|e| panic!("run {case:?}: {e}"));
    let got = stream.clone_dtoh(&dc).unwrap();
    let label =
        format!("{case:?} {ty:?}->{:?} on {} [{}]", C::TYPE, device.properties().name, plan.kernel_name());
    // The executor sums exact products in f32: hold it to f32's bound whatever the input type.
    let sum_eps = if is_gpu(device) { T::SUM_EPS } else { 2e-6 };
    let tf32 = ty == ElemType::TF32;
    let mut inside = vec![false; got.len()];
    let mut worst = 0.0f64;
    // Large products check a spread of rows in full (the first and last included), and that
    // every other element was written.
    let step = if m * n * k > 1 << 27 { (m / 61).max(1) } else { 1 };
    for z in 0..nb {
        let (a, b) = (&a[z * sa..], &b[z * sb..]);
        let off = off + z * sc;
        for i in 0..m {
            if i % step != 0 && i + 1 != m {
                for j in 0..n {
                    let idx = off + at(lc, ldc, i, j);
                    inside[idx] = true;
                    assert!(!got[idx].to_f64().is_nan(), "{label}: C{z}[{i}][{j}] was not written");
                }
                continue;
            }
            for j in 0..n {
                let (mut dot, mut mag, mut exact, mut exact_mag) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
                for p in 0..k {
                    let (x, y) = (a[at(la, lda, i, p)].to_f64(), b[at(lb, ldb, p, j)].to_f64());
                    exact += x * y;
                    exact_mag += (x * y).abs();
                    // tf32 inputs: the product of what the tensor cores read, the f32 values cut
                    // to 10 mantissa bits (the tensor map copies them unchanged).
                    let x = if tf32 { tf32_cut(x) * tf32_cut(y) } else { x * y };
                    dot += x;
                    mag += x.abs();
                }
                let idx = off + at(lc, ldc, i, j);
                inside[idx] = true;
                let old = if beta == 0.0 { 0.0 } else { beta as f64 * c0[idx].to_f64() };
                let want = alpha * dot + old;
                let bound = (alpha.abs() * mag + beta.abs() as f64) * sum_eps + want.abs() * C::EPS + 1e-30;
                let g = got[idx].to_f64();
                let err = (g - want).abs();
                assert!(
                    err <= bound,
                    "{label}: C{z}[{i}][{j}] = {g}, want {want} (error {err:e} > bound {bound:e})"
                );
                worst = worst.max(err / bound);
                if tf32 {
                    // The crate's documented bound against the f32 inputs themselves.
                    let want = alpha * exact + old;
                    let bound = alpha.abs() * exact_mag * TF32_EPS + bound;
                    let err = (g - want).abs();
                    assert!(
                        err <= bound,
                        "{label}: C{z}[{i}][{j}] = {g}, f32 product {want} (error {err:e} > tf32 bound {bound:e})"
                    );
                }
            }
        }
    }
    for (idx, (&g, &o)) in got.iter().zip(&c0).enumerate() {
        if !inside[idx] {
            assert_eq!(
                g.to_f64().to_bits(),
                o.to_f64().to_bits(),
                "{label}: element {idx} outside C changed"
            );
        }
    }
    eprintln!("ok {label} (worst error {worst:.3} of bound)");
}

/// The relative error of a product of two tf32 values cut from f32 ones: each loses less than
/// 2^-10 of itself (10 of f32's 23 mantissa bits kept, the rest dropped), so a product less
/// than 2^-9 + 2^-20 of itself.
pub const TF32_EPS: f64 = 1.0 / 512.0 + 1.0 / 1048576.0;

/// `x` (an f32 value) with the low 13 mantissa bits cleared: what `wgmma` reads of a tf32 operand.
pub fn tf32_cut(x: f64) -> f64 {
    f32::from_bits((x as f32).to_bits() & 0xffff_e000) as f64
}
