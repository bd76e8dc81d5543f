//! `ferrocm bench blas`: rocblas-bench-style timing of one BLAS call (`-f gemm --transposeA T
//! -m 4096 -n 4096 -k 4096 -r f32_r --batch_count 1`), the same request as
//! `scripts/vendor_baselines.py cublas`. Inputs are fresh random values; the output is checked
//! against an f64 host computation on sampled elements before anything is timed; then one
//! warm-up call and event timing of each repetition, median reported.

use anyhow::{bail, ensure, Result};
use ferrocm::{Device, DeviceBuffer, Event, Stream};
use ferrocm_blas::{Complex, Engine, GemmFamily, Handle, Operation, Scalar, C32, C64};

use super::{median, print, Row};

#[derive(clap::Args)]
pub struct Args {
    /// gemm, gemm_strided_batched, gemm_batched (pointer arrays; see `--entries`), gemv, axpy,
    /// dot or nrm2; gemm_ex or gemm_strided_batched_ex
    /// with f16_r or bf16_r (A, B and C of that type, f32 compute, as torch's half matmul), or
    /// f32_r with `--compute_type tf32_r` (cuBLAS's CUBLAS_COMPUTE_32F_FAST_TF32).
    #[arg(short = 'f', long = "function", default_value = "gemm")]
    function: String,
    /// Element type, rocBLAS's names: f32_r, f64_r, f32_c, f64_c (gemm_ex: f16_r, bf16_r).
    #[arg(short = 'r', long = "precision", alias = "a_type", default_value = "f32_r")]
    precision: String,
    /// op(A): N, T or C (gemv's op).
    #[arg(long = "transposeA", default_value = "N")]
    transpose_a: String,
    /// op(B): N, T or C.
    #[arg(long = "transposeB", default_value = "N")]
    transpose_b: String,
    #[arg(short = 'm', default_value_t = 1024)]
    m: usize,
    #[arg(short = 'n', default_value_t = 1024)]
    n: usize,
    #[arg(short = 'k', default_value_t = 1024)]
    k: usize,
    /// gemm_ex's compute type: f32_r, or tf32_r (alias xf32_r, hipBLASLt's name) for f32
    /// inputs with tf32 products.
    #[arg(long = "compute_type", default_value = "f32_r")]
    compute_type: String,
    /// Batches (gemm_strided_batched, gemm_batched).
    #[arg(long = "batch_count", default_value_t = 1)]
    batch_count: usize,
    /// gemm_batched's entries, all in one buffer per operand: in-order (entry i is matrix i of
    /// each buffer, the layout a strided batch has), reversed (entry i is matrix batch - 1 - i
    /// of each: a strided batch once sorted) or scattered (A and B reversed, C in order: no
    /// order of the entries is a strided batch).
    #[arg(long, default_value = "in-order")]
    entries: String,
    /// Timed repetitions; the median is reported.
    #[arg(long, default_value_t = 10)]
    reps: usize,
    /// auto (native CPU BLAS on the CPU device) or kernels (the kernel-language kernels
    /// everywhere, the CPU executor on the CPU device).
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Forces the GEMM kernel family (simt, dmma, dmma16, dmma16-w32, dmma16-k8, warp-tiled, native); default: the
    /// planner's choice.
    #[arg(long)]
    family: Option<String>,
    /// Device index (see `ferrocm info`); default: the default device.
    #[arg(long)]
    device: Option<usize>,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
}

fn op(s: &str) -> Result<Operation> {
    Ok(match s {
        "N" | "n" => Operation::N,
        "T" | "t" => Operation::T,
        "C" | "c" => Operation::C,
        _ => bail!("operation {s:?}: expected N, T or C"),
    })
}

pub fn run(a: Args) -> Result<()> {
    let dev = match a.device {
        Some(i) => Device::get(i)?,
        None => Device::default_device()?,
    };
    ensure!(a.reps > 0, "--reps must be at least 1");
    let ex = a.function.starts_with("gemm") && a.function.ends_with("_ex");
    match a.precision.as_str() {
        "f32_r" if ex => bench_ex::<f32>(&a, &dev),
        "f32_r" | "s" => bench::<f32>(&a, &dev),
        "f64_r" | "d" => bench::<f64>(&a, &dev),
        "f32_c" | "c" => bench::<C32>(&a, &dev),
        "f64_c" | "z" => bench::<C64>(&a, &dev),
        "f16_r" | "h" => bench_ex::<half::f16>(&a, &dev),
        "bf16_r" => bench_ex::<half::bf16>(&a, &dev),
        p => bail!("precision {p:?}: expected f32_r, f64_r, f32_c, f64_c, f16_r or bf16_r"),
    }
}

/// xorshift64* values in [-1, 1), from a time-based seed.
struct Rng(u64);

impl Rng {
    fn fresh() -> Rng {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(1);
        Rng((t as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    fn vec<T: Scalar>(&mut self, n: usize) -> Vec<T> {
        (0..n).map(|_| T::from_parts(real::<T>(self.next()), real::<T>(self.next()))).collect()
    }
}

fn real<T: Scalar>(x: f64) -> T::Real {
    <T::Real as ferrocm_blas::RealScalar>::from_f64(x)
}

fn c64<T: Scalar>(v: T) -> Complex<f64> {
    use ferrocm_blas::RealScalar;
    let (re, im) = v.parts();
    Complex::new(re.to_f64(), im.to_f64())
}

fn opc(o: Operation, v: Complex<f64>) -> Complex<f64> {
    if o == Operation::C {
        v.conj()
    } else {
        v
    }
}

/// Checks `got` against `want` within `tol` relative to `scale`.
fn check(what: &str, got: Complex<f64>, want: Complex<f64>, scale: f64, tol: f64) -> Result<()> {
    let err = (got - want).norm();
    ensure!(
        err <= tol * scale.max(1e-300),
        "{what}: got {got}, expected {want} (error {err:e} > {tol:e} x {scale:e})"
    );
    Ok(())
}

/// Unit roundoff of `T`.
fn eps<T: Scalar>() -> f64 {
    if size_of::<T::Real>() == 4 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

fn bench<T: Scalar>(a: &Args, dev: &Device) -> Result<()> {
    let stream = dev.create_stream()?;
    let mut h = Handle::new(&stream)?;
    h.set_engine(match a.engine.as_str() {
        "auto" => Engine::Auto,
        "kernels" => Engine::Kernels,
        e => bail!("engine {e:?}: expected auto or kernels"),
    });
    if let Some(f) = &a.family {
        h.set_gemm_family(Some(match f.as_str() {
            "simt" => GemmFamily::Simt,
            "dmma" => GemmFamily::Dmma,
            "dmma16" => GemmFamily::Dmma16,
            "dmma16-w32" => GemmFamily::Dmma16W32,
            "dmma16-k8" => GemmFamily::Dmma16K8,
            "warp-tiled" => GemmFamily::WarpTiled,
            "native" => GemmFamily::Native,
            f => bail!(
                "family {f:?}: expected simt, dmma, dmma16, dmma16-w32, dmma16-k8, warp-tiled or native"
            ),
        }));
    }
    let mut rng = Rng::fresh();
    let cx = if T::COMPLEX { 4.0 } else { 1.0 };
    let ty = T::TYPE.name();
    let (value, unit, metric, family) = match a.function.as_str() {
        "gemm" | "gemm_strided_batched" | "gemm_batched" => {
            let (ta, tb) = (op(&a.transpose_a)?, op(&a.transpose_b)?);
            let (m, n, k) = (a.m, a.n, a.k);
            let batch = if a.function == "gemm" { 1 } else { a.batch_count };
            // gemm_batched's entry `z` reads matrix `slot_in(z)` of A and B and writes matrix
            // `slot_out(z)` of C.
            let (rev_in, rev_out) = match a.entries.as_str() {
                "in-order" => (false, false),
                "reversed" => (true, true),
                "scattered" => (true, false),
                e => bail!("--entries {e:?}: expected in-order, reversed or scattered"),
            };
            let slot_in = move |z: usize| if rev_in { batch - 1 - z } else { z };
            let slot_out = move |z: usize| if rev_out { batch - 1 - z } else { z };
            let (ra, ca) = if ta == Operation::N { (m, k) } else { (k, m) };
            let (rb, cb) = if tb == Operation::N { (k, n) } else { (n, k) };
            let (sa, sb, sc) = (ra * ca, rb * cb, m * n);
            let ha = rng.vec::<T>(sa * batch);
            let hb = rng.vec::<T>(sb * batch);
            let (da, db) = (stream.clone_htod(&ha)?, stream.clone_htod(&hb)?);
            let mut dc = stream.alloc_zeroed::<T>(sc * batch)?;
            let call = |h: &Handle, dc: &mut DeviceBuffer<T>| -> Result<()> {
                if a.function != "gemm_batched" {
                    return Ok(h.gemm_strided_batched(
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        T::one(),
                        &da,
                        ra,
                        sa,
                        &db,
                        rb,
                        sb,
                        T::zero(),
                        dc,
                        m,
                        sc,
                        batch,
                    )?);
                }
                let av = (0..batch)
                    .map(|z| da.slice(slot_in(z) * sa..(slot_in(z) + 1) * sa))
                    .collect::<Result<Vec<_>, _>>()?;
                let bv = (0..batch)
                    .map(|z| db.slice(slot_in(z) * sb..(slot_in(z) + 1) * sb))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut by_slot = Vec::with_capacity(batch);
                let mut rest = dc.slice_mut(..)?;
                for _ in 0..batch {
                    let (head, tail) = rest.split_at_mut(sc)?;
                    by_slot.push(Some(head));
                    rest = tail;
                }
                let mut cv: Vec<_> = (0..batch).filter_map(|z| by_slot[slot_out(z)].take()).collect();
                Ok(h.gemm_batched(ta, tb, m, n, k, T::one(), &av, ra, &bv, rb, T::zero(), &mut cv, m)?)
            };
            call(&h, &mut dc)?;
            let c = stream.clone_dtoh(&dc)?;
            for s in 0..32 {
                let (z, i, j) = (s * 7919 % batch, s * 104_729 % m, s * 1_299_709 % n);
                // Matrix z of C is entry slot_out(z)'s (the slots are their own inverses).
                let y = if a.function == "gemm_batched" { slot_in(slot_out(z)) } else { z };
                let (mut want, mut scale) = (Complex::new(0.0, 0.0), 0.0);
                for l in 0..k {
                    let av =
                        if ta == Operation::N { ha[y * sa + i + l * ra] } else { ha[y * sa + l + i * ra] };
                    let bv =
                        if tb == Operation::N { hb[y * sb + l + j * rb] } else { hb[y * sb + j + l * rb] };
                    let p = opc(ta, c64(av)) * opc(tb, c64(bv));
                    want += p;
                    scale += p.norm();
                }
                let got = c64(c[z * sc + i + j * m]);
                check(
                    &format!("C[{i}, {j}] of batch {z}"),
                    got,
                    want,
                    scale,
                    2.0 * cx * (k as f64 + 2.0) * eps::<T>(),
                )?;
            }
            let t = timed_median(dev, &stream, a.reps, || call(&h, &mut dc))?;
            let flops = 2.0 * cx * (m * n * k * batch) as f64;
            let fam = format!("{:?}", h.gemm_family(T::TYPE, m, n, k));
            let shape = format!("{}{} {m}x{n}x{k}", ta.letter(), tb.letter());
            let b = match (batch, a.function.as_str()) {
                (1, _) => String::new(),
                (_, "gemm_batched") => format!(" batch={batch} entries={}", a.entries),
                _ => format!(" batch={batch}"),
            };
            (flops / t / 1e6, "GFLOP/s", format!("{} {ty} {shape}{b}", a.function), fam)
        }
        "gemv" => {
            let o = op(&a.transpose_a)?;
            let (m, n) = (a.m, a.n);
            ensure!(m > 0 && n > 0, "sizes must be positive");
            let (lx, ly) = if o == Operation::N { (n, m) } else { (m, n) };
            let ha = rng.vec::<T>(m * n);
            let hx = rng.vec::<T>(lx);
            let (da, dx) = (stream.clone_htod(&ha)?, stream.clone_htod(&hx)?);
            let mut dy = stream.alloc_zeroed::<T>(ly)?;
            let call = |h: &Handle, dy: &mut DeviceBuffer<T>| -> Result<()> {
                Ok(h.gemv(o, m, n, T::one(), &da, m, &dx, 1, T::zero(), dy, 1)?)
            };
            call(&h, &mut dy)?;
            let y = stream.clone_dtoh(&dy)?;
            for s in 0..32 {
                let i = s * 104_729 % ly;
                let (mut want, mut scale) = (Complex::new(0.0, 0.0), 0.0);
                for l in 0..lx {
                    let av = if o == Operation::N { ha[i + l * m] } else { ha[l + i * m] };
                    let p = opc(o, c64(av)) * c64(hx[l]);
                    want += p;
                    scale += p.norm();
                }
                check(&format!("y[{i}]"), c64(y[i]), want, scale, 2.0 * cx * (lx as f64 + 2.0) * eps::<T>())?;
            }
            let t = timed_median(dev, &stream, a.reps, || call(&h, &mut dy))?;
            let bytes = ((m * n + lx + ly) * size_of::<T>()) as f64;
            // gemv runs on the native CPU BLAS where the GEMM planner picks it, else on kernels.
            let fam = match h.gemm_family(T::TYPE, m, n, 1) {
                GemmFamily::Native => "Native",
                _ => "Kernels",
            }
            .to_string();
            (bytes / t / 1e6, "GB/s", format!("gemv {ty} {} {m}x{n}", o.letter()), fam)
        }
        "axpy" | "dot" | "nrm2" => {
            let n = a.n;
            ensure!(n > 0, "-n must be positive");
            let hx = rng.vec::<T>(n);
            let hy = rng.vec::<T>(n);
            let (dx, mut dy) = (stream.clone_htod(&hx)?, stream.clone_htod(&hy)?);
            let mut r = stream.alloc_zeroed::<T>(1)?;
            let mut rr = stream.alloc_zeroed::<T::Real>(1)?;
            let f = a.function.clone();
            let call = |h: &Handle,
                        dy: &mut DeviceBuffer<T>,
                        r: &mut DeviceBuffer<T>,
                        rr: &mut DeviceBuffer<T::Real>|
             -> Result<()> {
                match f.as_str() {
                    "axpy" => h.axpy(n, T::one(), &dx, 1, dy, 1)?,
                    "dot" => h.dot_device(n, &dx, 1, &*dy, 1, r)?,
                    _ => h.nrm2_device(n, &dx, 1, rr)?,
                }
                Ok(())
            };
            call(&h, &mut dy, &mut r, &mut rr)?;
            match f.as_str() {
                "axpy" => {
                    let y = stream.clone_dtoh(&dy)?;
                    for s in 0..32 {
                        let i = s * 104_729 % n;
                        let want = c64(hy[i]) + c64(hx[i]);
                        check(&format!("y[{i}]"), c64(y[i]), want, want.norm() + 2.0, 4.0 * eps::<T>())?;
                    }
                }
                "dot" => {
                    let (mut want, mut scale) = (Complex::new(0.0, 0.0), 0.0);
                    for (x, y) in hx.iter().zip(&hy) {
                        let p = c64(*x) * c64(*y);
                        want += p;
                        scale += p.norm();
                    }
                    let got = c64(stream.clone_dtoh(&r)?[0]);
                    check("dot", got, want, scale, 2.0 * cx * (n as f64).sqrt().max(64.0) * eps::<T>())?;
                }
                _ => {
                    let want = hx.iter().map(|x| c64(*x).norm_sqr()).sum::<f64>().sqrt();
                    let got = Complex::new(ferrocm_blas::RealScalar::to_f64(stream.clone_dtoh(&rr)?[0]), 0.0);
                    check(
                        "nrm2",
                        got,
                        Complex::new(want, 0.0),
                        want,
                        (n as f64).sqrt().max(64.0) * eps::<T>(),
                    )?;
                }
            }
            let t = timed_median(dev, &stream, a.reps, || call(&h, &mut dy, &mut r, &mut rr))?;
            let vectors = if f == "axpy" {
                3.0
            } else if f == "dot" {
                2.0
            } else {
                1.0
            };
            let bytes = vectors * (n * size_of::<T>()) as f64;
            (bytes / t / 1e6, "GB/s", format!("{f} {ty} n={n}"), "level1".into())
        }
        f => bail!(
            "function {f:?}: expected gemm, gemm_strided_batched, gemm_batched, gemv, axpy, dot or nrm2"
        ),
    };
    let rows = vec![Row {
        bench: "blas",
        metric: format!("{metric} [{family}]"),
        ferrocm: value,
        baseline: None,
        baseline_name: "cuBLAS through torch (scripts/vendor_baselines.py cublas), numpy's BLAS on the CPU",
        unit,
        ratio: None,
        ratio_meaning: "ferrocm / vendor",
        target: "GEMMs and gemv >= 1.0x cuBLAS (fp8 0.95x); Level 1 >= 0.9x device copy; CPU sgemm/dgemm >= 0.8x OpenBLAS",
    }];
    print(&rows, a.json)
}

/// The element types `bench_ex` times: A, B and C of one type.
trait ExElem: ferrocm_blas::GemmExType {
    fn from_f32(x: f32) -> Self;
    fn to_f32(self) -> f32;
    /// The relative error of rounding the f32 sum to this type.
    const ROUND: f64;
}
impl ExElem for half::f16 {
    fn from_f32(x: f32) -> Self {
        half::f16::from_f32(x)
    }
    fn to_f32(self) -> f32 {
        half::f16::to_f32(self)
    }
    const ROUND: f64 = 1.0 / 1024.0;
}
impl ExElem for half::bf16 {
    fn from_f32(x: f32) -> Self {
        half::bf16::from_f32(x)
    }
    fn to_f32(self) -> f32 {
        half::bf16::to_f32(self)
    }
    const ROUND: f64 = 1.0 / 128.0;
}
impl ExElem for f32 {
    fn from_f32(x: f32) -> Self {
        x
    }
    fn to_f32(self) -> f32 {
        self
    }
    const ROUND: f64 = 0.0;
}

/// `gemm_ex` / `gemm_strided_batched_ex` on A, B and C of one type: half precision with f32
/// compute (`rocblas-bench -f gemm_ex --a_type bf16_r --c_type bf16_r --compute_type f32_r`),
/// or f32 with f32 or tf32 compute (`--a_type f32_r --compute_type tf32_r`).
fn bench_ex<H: ExElem>(a: &Args, dev: &Device) -> Result<()> {
    let compute = match a.compute_type.as_str() {
        "f32_r" => ferrocm_blas::ComputeType::F32,
        "tf32_r" | "xf32_r" if H::TYPE == ferrocm_blas::DataType::F32 => {
            ferrocm_blas::ComputeType::F32FastTf32
        }
        c => bail!("compute type {c:?} with {}: expected f32_r (or tf32_r for f32_r inputs)", a.precision),
    };
    let stream = dev.create_stream()?;
    let mut h = Handle::new(&stream)?;
    h.set_engine(match a.engine.as_str() {
        "auto" => Engine::Auto,
        "kernels" => Engine::Kernels,
        e => bail!("engine {e:?}: expected auto or kernels"),
    });
    if let Some(f) = &a.family {
        h.set_gemm_family(Some(match f.as_str() {
            "simt" => GemmFamily::Simt,
            "wgmma" => GemmFamily::Wgmma,
            "native" => GemmFamily::Native,
            f => bail!("family {f:?}: expected simt, wgmma or native for half-precision gemm_ex"),
        }));
    }
    let batch = match a.function.as_str() {
        "gemm_ex" => 1,
        "gemm_strided_batched_ex" => a.batch_count,
        f => bail!("function {f:?} on {}: expected gemm_ex or gemm_strided_batched_ex", a.precision),
    };
    let (ta, tb) = (op(&a.transpose_a)?, op(&a.transpose_b)?);
    let (m, n, k) = (a.m, a.n, a.k);
    ensure!(m > 0 && n > 0 && k > 0 && batch > 0, "sizes and --batch_count must be positive");
    let (ra, ca) = if ta == Operation::N { (m, k) } else { (k, m) };
    let (rb, cb) = if tb == Operation::N { (k, n) } else { (n, k) };
    let (sa, sb, sc) = (ra * ca, rb * cb, m * n);
    let mut rng = Rng::fresh();
    let ha: Vec<H> = (0..sa * batch).map(|_| H::from_f32(rng.next() as f32)).collect();
    let hb: Vec<H> = (0..sb * batch).map(|_| H::from_f32(rng.next() as f32)).collect();
    let (da, db) = (stream.clone_htod(&ha)?, stream.clone_htod(&hb)?);
    let mut dc = stream.alloc_zeroed::<H>(sc * batch)?;
    let call = |h: &Handle, dc: &mut DeviceBuffer<H>| -> Result<()> {
        Ok(h.gemm_strided_batched_ex(
            ta, tb, m, n, k, 1.0f32, &da, ra, sa, &db, rb, sb, 0.0f32, dc, m, sc, batch, compute,
        )?)
    };
    call(&h, &mut dc)?;
    let c = stream.clone_dtoh(&dc)?;
    for s in 0..32 {
        let (z, i, j) = (s * 7919 % batch, s * 104_729 % m, s * 1_299_709 % n);
        let (mut want, mut scale) = (0.0f64, 0.0f64);
        for l in 0..k {
            let av = if ta == Operation::N { ha[z * sa + i + l * ra] } else { ha[z * sa + l + i * ra] };
            let bv = if tb == Operation::N { hb[z * sb + l + j * rb] } else { hb[z * sb + j + l * rb] };
            let p = av.to_f32() as f64 * bv.to_f32() as f64;
            want += p;
            scale += p.abs();
        }
        let got = c[z * sc + i + j * m].to_f32() as f64;
        // f32 accumulation, one rounding to H; tf32 products within 2^-9 + 2^-20 each.
        let tf32 = if compute == ferrocm_blas::ComputeType::F32FastTf32 {
            1.0 / 512.0 + 1.0 / 1048576.0
        } else {
            0.0
        };
        let tol = (k as f64 + 2.0) * f32::EPSILON as f64 + H::ROUND + tf32;
        check(
            &format!("C[{i}, {j}] of batch {z}"),
            Complex::new(got, 0.0),
            Complex::new(want, 0.0),
            scale,
            tol,
        )?;
    }
    let t = timed_median(dev, &stream, a.reps, || call(&h, &mut dc))?;
    let flops = 2.0 * (m * n * k * batch) as f64;
    let shape = format!("{}{} {m}x{n}x{k}", ta.letter(), tb.letter());
    let b = if batch > 1 { format!(" batch={batch}") } else { String::new() };
    let tf32 = if compute == ferrocm_blas::ComputeType::F32FastTf32 { " compute tf32_r" } else { "" };
    let metric = format!("{} {}{tf32} {shape}{b}", a.function, a.precision);
    let family = h.gemm_family_forced().map_or("planner".to_string(), |f| format!("{f:?}"));
    let rows = vec![Row {
        bench: "blas",
        metric: format!("{metric} [{family}]"),
        ferrocm: flops / t / 1e6,
        baseline: None,
        baseline_name: "cuBLAS through torch (scripts/vendor_baselines.py cublas)",
        unit: "GFLOP/s",
        ratio: None,
        ratio_meaning: "ferrocm / vendor",
        target: "bf16 / f16 / tf32 GEMMs >= 1.0x cuBLAS",
    }];
    print(&rows, a.json)
}

/// One warm-up call, then `reps` calls each between two events on `stream`: the median in ms.
fn timed_median(
    dev: &Device,
    stream: &Stream,
    reps: usize,
    mut call: impl FnMut() -> Result<()>,
) -> Result<f64> {
    call()?;
    let mut ms = Vec::with_capacity(reps);
    for _ in 0..reps {
        let (s, e) = (Event::new(dev)?, Event::new(dev)?);
        s.record(stream)?;
        call()?;
        e.record(stream)?;
        e.synchronize()?;
        ms.push(s.elapsed_ms(&e)? as f64);
    }
    Ok(median(ms))
}
