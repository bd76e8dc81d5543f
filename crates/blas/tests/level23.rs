//! Level 2 (`gemv`) and Level 3 (`gemm`, `gemm_strided_batched`) against the double-double
//! reference, on every device and engine, from `cases/level2.txt` and `cases/level3.txt`.
//! Besides each result, every element outside the output matrix or vector (rows past `m`
//! within the leading dimension, gaps between batches, elements between strided entries,
//! padding past the end) is checked unchanged.

use crate::common::{cd, close, expand, gamma, run_cases, scalar, widened, Case, Cd, Rng, Target};
use ferrocm_blas::{Engine, GemmFamily, Operation, Scalar, ScalarArg, C32, C64};
use ferrocm_kernel::runtime::{BackendKind, DeviceBuffer};

const L2: &str = include_str!("cases/level2.txt");
const L3: &str = include_str!("cases/level3.txt");

/// Extra elements after each view (must stay untouched).
const PAD: usize = 3;

/// Products larger than this many multiply-adds skip the CPU executor (it interprets every
/// thread; the native engine and GPUs run them).
const EXECUTOR_MAX: usize = 40_000;
/// The same for d GEMMs (the FP64 tensor-core kernel, fewer threads per multiply-add).
const DMMA_EXECUTOR_MAX: usize = 1_500_000;

fn op(s: &str) -> Operation {
    match s {
        "N" => Operation::N,
        "T" => Operation::T,
        "C" => Operation::C,
        _ => panic!("operation {s}"),
    }
}

fn upload<T: Scalar>(t: &Target, v: &[T]) -> DeviceBuffer<T> {
    t.stream.clone_htod(v).expect("upload")
}

fn download<T: Scalar>(t: &Target, b: &DeviceBuffer<T>) -> Vec<T> {
    t.stream.clone_dtoh(b).expect("download")
}

/// NaN in every part (a complex NaN with a zero part would make `0 * NaN` depend on
/// whether the product is formed in complex or real arithmetic).
fn nan<T: Scalar>() -> T {
    scalar((f64::NAN, f64::NAN))
}

/// A bound that a NaN input made NaN: the parts whose reference is finite must then match
/// exactly (the imaginary part of a real type).
fn finite(bound: f64) -> f64 {
    if bound.is_nan() {
        0.0
    } else {
        bound
    }
}

/// `op(M)(i, l)` of a column-major matrix with leading dimension `ld`, in double-double.
fn elem<T: Scalar>(m: &[T], ld: usize, o: Operation, i: usize, l: usize) -> Cd {
    match o {
        Operation::N => cd(m[i + l * ld]),
        Operation::T => cd(m[l + i * ld]),
        Operation::C => cd(m[l + i * ld]).conj(),
    }
}

/// `alpha * sum + beta * c` as BLAS defines it: `beta = 0` ignores `c`, `alpha = 0` (or an
/// empty sum) ignores the products.
fn combine(alpha: Cd, sum: Cd, live: bool, beta: Cd, c: Cd) -> Cd {
    let p = if live { alpha * sum } else { Cd::ZERO };
    if beta.is_zero() {
        p
    } else {
        p + beta * c
    }
}

/// The GEMM table runs as four interleaved shards (case `i` in shard `i % 4`) so that the
/// test harness's threads share it; together they run every case once.
const GEMM_SHARDS: usize = 4;

#[test]
fn gemm_cases_0() {
    gemm_shard(0);
}

#[test]
fn gemm_cases_1() {
    gemm_shard(1);
}

#[test]
fn gemm_cases_2() {
    gemm_shard(2);
}

#[test]
fn gemm_cases_3() {
    gemm_shard(3);
}

fn gemm_shard(shard: usize) {
    let all = expand(L3);
    assert!(all.len() > 500, "the case table expands to {} cases", all.len());
    let cases: Vec<Case> = all.into_iter().skip(shard).step_by(GEMM_SHARDS).collect();
    run_cases(&cases, |c, t, seed| match c.get("type") {
        "s" => gemm::<f32>(c, t, seed),
        "d" => gemm::<f64>(c, t, seed),
        "c" => gemm::<C32>(c, t, seed),
        "z" => gemm::<C64>(c, t, seed),
        other => panic!("type {other}"),
    });
}

fn gemm<T: Scalar>(c: &Case, t: &Target, seed: u64) {
    let (ta, tb) = (op(c.get("transa")), op(c.get("transb")));
    let (m, n, k) = (c.usize("m"), c.usize("n"), c.usize("k"));
    let batched = c.routine == "gemm_batched";
    let batch = if batched { c.usize("batch") } else { 1 };
    // The executor interprets every thread of the 128 x 128 (real) or 64 x 64 (complex) tiles:
    // it runs the two SIMT shapes through s (real, 8 x 8 registers) and z (complex, 4 x 4)
    // at small sizes (c is the same code at another width, run natively and on GPUs), and d
    // on the FP64 tensor-core kernel (the executor has every feature), whose 128 x 64 tiles
    // and 8-deep slabs need larger shapes to reach its full-tile (`cp.async`) path.
    // A row may raise the cap (`executor=N`) to reach a tile boundary past it.
    let cap = c.usize_or("executor", if c.get("type") == "d" { DMMA_EXECUTOR_MAX } else { EXECUTOR_MAX });
    if t.executor && (m * n * k * batch.max(1) > cap || c.get("type") == "c") {
        return;
    }
    let mut r = Rng::new(seed);
    let pad = c.usize_or("pad", 0);
    let extra = c.usize_or("extra", 0);
    let alpha: T = scalar(c.complex("alpha"));
    let beta: T = scalar(c.complex("beta"));
    let (ra, ca) = if ta == Operation::N { (m, k) } else { (k, m) };
    let (rb, cb) = if tb == Operation::N { (k, n) } else { (n, k) };
    // `ld4`: leading dimensions rounded up to multiples of 4 (f32 GEMMs on sm_80+ then take
    // the warp-tiled kernel, which reads A and B 16 bytes at a time).
    let ld = |rows: usize| {
        let l = rows.max(1) + pad;
        if c.get_or("ld4", "no") == "yes" {
            l.next_multiple_of(4)
        } else {
            l
        }
    };
    let (lda, ldb, ldc) = (ld(ra), ld(rb), ld(m));
    let span =
        |rows: usize, cols: usize, ld: usize| if rows == 0 || cols == 0 { 0 } else { ld * (cols - 1) + rows };
    let stride_of = |key: &str, rows, cols, ld| {
        c.keys.get(key).map(|v| v.parse().expect("stride")).unwrap_or(span(rows, cols, ld) + extra)
    };
    let (sa, sb, sc) = (
        stride_of("stride_a", ra, ca, lda),
        stride_of("stride_b", rb, cb, ldb),
        stride_of("stride_c", m, n, ldc),
    );
    let total = |s: usize, one: usize| if batch == 0 { 0 } else { (batch - 1) * s + one } + PAD;
    let mut a = r.vec::<T>(total(sa, span(ra, ca, lda)));
    let b = r.vec::<T>(total(sb, span(rb, cb, ldb)));
    let mut c0 = r.vec::<T>(total(sc, span(m, n, ldc)));
    match c.get_or("nan", "none") {
        "c" => c0.iter_mut().for_each(|v| *v = nan()),
        "a" if !a.is_empty() && ra > 0 && ca > 0 => {
            let at = (ra / 2) + (ca / 2) * lda;
            a[at] = nan();
        }
        _ => {}
    }
    let (da, db, mut dc) = (upload(t, &a), upload(t, &b), upload(t, &c0));
    let (dal, dbe) = (upload(t, &[alpha]), upload(t, &[beta]));
    let device = c.get_or("mode", "host") == "device";
    let (al, be) = if device {
        (ScalarArg::device(&dal), ScalarArg::device(&dbe))
    } else {
        (ScalarArg::Host(alpha), ScalarArg::Host(beta))
    };
    let mut h = t.handle();
    // `math=tf32`: f32 products may be tf32 (cuBLAS's TF32 math mode): on sm_90a and the
    // executor, T/N products with 16-byte leading dimensions take ferrocm-gemm's tf32 kernel.
    let tf32 = c.get_or("math", "default") == "tf32";
    if tf32 {
        h.set_math_mode(ferrocm_blas::MathMode::Tf32Allowed);
    }
    // `family=`: the row runs on that kernel family wherever kernels run (the CPU executor
    // runs them all; the native engine computes the row natively). Without it the planner
    // chooses (d: Dmma16W32 on the executor and sm_90+, Dmma on sm_80..sm_89).
    let kernels = t.engine == Engine::Kernels || t.stream.device().kind() != BackendKind::Cpu;
    if let (Some(f), true) = (c.keys.get("family"), kernels) {
        h.set_gemm_family(Some(match f.as_str() {
            "dmma" => GemmFamily::Dmma,
            "dmma16" => GemmFamily::Dmma16,
            "dmma16-w32" => GemmFamily::Dmma16W32,
            "dmma16-k8" => GemmFamily::Dmma16K8,
            "simt" => GemmFamily::Simt,
            "wgmma" => GemmFamily::Wgmma,
            other => panic!("family {other}"),
        }));
    }
    // Each product of inputs cut to tf32 is within 2^-9 + 2^-20 of the exact one.
    let u_tf32 =
        if tf32 && T::TYPE == ferrocm_blas::DataType::F32 { 1.0 / 512.0 + 1.0 / 1048576.0 } else { 0.0 };
    if batched {
        h.gemm_strided_batched(ta, tb, m, n, k, al, &da, lda, sa, &db, ldb, sb, be, &mut dc, ldc, sc, batch)
            .expect("gemm_strided_batched");
    } else {
        h.gemm(ta, tb, m, n, k, al, &da, lda, &db, ldb, be, &mut dc, ldc).expect("gemm");
    }
    let got = download(t, &dc);
    let label = c.label();
    let (cal, cbe) = (cd(alpha), cd(beta));
    let live = k > 0 && !alpha.is_zero();
    let mut touched = vec![false; got.len()];
    for z in 0..batch {
        let (a, b) = (&a[z * sa..], &b[z * sb..]);
        // op(A) by rows, op(B) by columns, each element widened once (`widened`).
        let k_live = if live { k } else { 0 };
        let (opa, maga) = widened(m, k_live, |i, l| elem(a, lda, ta, i, l));
        let (opb, magb) = widened(n, k_live, |j, l| elem(b, ldb, tb, l, j));
        for j in 0..n {
            for i in 0..m {
                let ic = z * sc + i + j * ldc;
                let (mut sum, mut mag) = (Cd::ZERO, 0.0);
                if live {
                    for l in 0..k {
                        sum = sum + opa[i * k + l] * opb[j * k + l];
                        mag += maga[i * k + l] * magb[j * k + l];
                    }
                }
                let want = combine(cal, sum, live, cbe, cd(c0[ic]));
                let bound = gamma::<T>(k + 2)
                    * (cal.mag() * mag + if beta.is_zero() { 0.0 } else { cbe.mag() * cd(c0[ic]).mag() })
                    + u_tf32 * cal.mag() * mag;
                close(&label, "c", ic, got[ic], want, finite(bound));
                touched[ic] = true;
            }
        }
    }
    for (i, (&g, &o)) in got.iter().zip(&c0).enumerate() {
        if !touched[i] {
            assert!(
                g == o || (cd(o).re.hi.is_nan() && cd(g).re.hi.is_nan()),
                "{label}: c[{i}] was written ({o:?} -> {g:?})"
            );
        }
    }
}

#[test]
fn gemv_cases() {
    let cases = expand(L2);
    assert!(cases.len() > 500, "the case table expands to {} cases", cases.len());
    run_cases(&cases, |c, t, seed| match c.get("type") {
        "s" => gemv::<f32>(c, t, seed),
        "d" => gemv::<f64>(c, t, seed),
        "c" => gemv::<C32>(c, t, seed),
        "z" => gemv::<C64>(c, t, seed),
        other => panic!("type {other}"),
    });
}

fn span(n: usize, inc: isize) -> usize {
    if n == 0 {
        0
    } else {
        (n - 1) * inc.unsigned_abs() + 1
    }
}

fn at(i: usize, n: usize, inc: isize) -> usize {
    if inc > 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

fn gemv<T: Scalar>(c: &Case, t: &Target, seed: u64) {
    let o = op(c.get("op"));
    let (m, n) = (c.usize("m"), c.usize("n"));
    if t.executor && m * n > 50 * EXECUTOR_MAX {
        return;
    }
    let (incx, incy) = (c.isize("incx"), c.isize("incy"));
    let mut r = Rng::new(seed);
    let lda = m.max(1) + c.usize_or("pad", 0);
    let (lx, ly) = if o == Operation::N { (n, m) } else { (m, n) };
    let alpha: T = scalar(c.complex("alpha"));
    let beta: T = scalar(c.complex("beta"));
    let mut a = r.vec::<T>(if m == 0 || n == 0 { PAD } else { lda * (n - 1) + m + PAD });
    let x = r.vec::<T>(span(lx, incx) + PAD);
    let mut y0 = r.vec::<T>(span(ly, incy) + PAD);
    match c.get_or("nan", "none") {
        "y" => y0.iter_mut().for_each(|v| *v = nan()),
        "a" if m > 0 && n > 0 => a[m / 2 + (n / 2) * lda] = nan(),
        _ => {}
    }
    let (da, dx, mut dy) = (upload(t, &a), upload(t, &x), upload(t, &y0));
    let (dal, dbe) = (upload(t, &[alpha]), upload(t, &[beta]));
    let device = c.get_or("mode", "host") == "device";
    let (al, be) = if device {
        (ScalarArg::device(&dal), ScalarArg::device(&dbe))
    } else {
        (ScalarArg::Host(alpha), ScalarArg::Host(beta))
    };
    let mut h = t.handle();
    // `workspace=0` leaves no room for the split gemv N's partials: the one-pass kernel runs.
    if let Some(w) = c.keys.get("workspace") {
        h.set_workspace_limit(Some(w.parse().expect("workspace")));
    }
    h.gemv(o, m, n, al, &da, lda, &dx, incx, be, &mut dy, incy).expect("gemv");
    let got = download(t, &dy);
    let label = c.label();
    let (cal, cbe) = (cd(alpha), cd(beta));
    let mut touched = vec![false; got.len()];
    // Reference BLAS returns at once for an empty matrix (y unchanged).
    if m > 0 && n > 0 {
        let live = !alpha.is_zero();
        for i in 0..ly {
            let iy = at(i, ly, incy);
            let (mut sum, mut mag) = (Cd::ZERO, 0.0);
            if live {
                for l in 0..lx {
                    let av = elem(&a, lda, o, i, l);
                    let xv = cd(x[at(l, lx, incx)]);
                    sum = sum + av * xv;
                    mag += av.mag() * xv.mag();
                }
            }
            let want = combine(cal, sum, live, cbe, cd(y0[iy]));
            let bound = gamma::<T>(lx + 2)
                * (cal.mag() * mag + if beta.is_zero() { 0.0 } else { cbe.mag() * cd(y0[iy]).mag() });
            close(&label, "y", iy, got[iy], want, finite(bound));
            touched[iy] = true;
        }
    }
    for (i, (&g, &o)) in got.iter().zip(&y0).enumerate() {
        if !touched[i] {
            assert!(
                g == o || (cd(o).re.hi.is_nan() && cd(g).re.hi.is_nan()),
                "{label}: y[{i}] was written ({o:?} -> {g:?})"
            );
        }
    }
}
