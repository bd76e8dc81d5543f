//! `gemm_ex`, `gemm_strided_batched_ex` and `gemm_half` against the double-double reference
//! (the exact f64 values of the narrow inputs), on every device and engine, from
//! `cases/gemm_ex.txt`. Besides each result, every element outside the output (rows past `m`
//! within `ldc`, gaps between batches, padding past the end) is checked unchanged.

use crate::common::{expand, fresh_seed, run_cases, targets, widened, Case, Cd, Rng, Target};
use ferrocm_blas::{
    ComputeType, Engine, Epilogue, GemmExType, GemmFamily, MathMode, MatmulDesc, MatmulType, Operation,
    ScalarArg, C32, C64, E4M3, E5M2,
};
use ferrocm_kernel::runtime::{BackendKind, DeviceBuffer};
use half::{bf16, f16};

const CASES: &str = include_str!("cases/gemm_ex.txt");

/// Extra elements after each view (must stay untouched).
const PAD: usize = 3;
/// Products larger than this many multiply-adds skip the CPU executor unless a row raises it
/// (`executor=N`).
const EXECUTOR_MAX: usize = 40_000;

/// The test's view of an element type: random values, NaN, and construction from f64 parts.
trait Elem: ferrocm_kernel::runtime::DeviceRepr + Copy + std::fmt::Debug + Default {
    /// The value as f64 parts (exact).
    fn parts_f64(self) -> (f64, f64);
    /// Unit roundoff of one rounding to this type (0 for integers).
    const U: f64;
    /// Half the spacing of the type's subnormals (the absolute error of rounding a tiny value).
    const TINY: f64 = 0.0;
    const COMPLEX: bool = false;
    fn from_parts(re: f64, im: f64) -> Self;
    fn random(r: &mut Rng) -> Self {
        Self::from_parts(r.uniform(), r.uniform())
    }
    fn nan() -> Option<Self> {
        Some(Self::from_parts(f64::NAN, f64::NAN))
    }
}
impl Elem for f16 {
    fn parts_f64(self) -> (f64, f64) {
        GemmExType::to_parts(self)
    }
    const U: f64 = 1.0 / 2048.0;
    const TINY: f64 = 1.0 / (1u64 << 25) as f64;
    fn from_parts(re: f64, _: f64) -> Self {
        f16::from_f64(re)
    }
}
impl Elem for bf16 {
    fn parts_f64(self) -> (f64, f64) {
        GemmExType::to_parts(self)
    }
    const U: f64 = 1.0 / 256.0;
    fn from_parts(re: f64, _: f64) -> Self {
        bf16::from_f64(re)
    }
}
impl Elem for f32 {
    fn parts_f64(self) -> (f64, f64) {
        GemmExType::to_parts(self)
    }
    const U: f64 = f32::EPSILON as f64 / 2.0;
    fn from_parts(re: f64, _: f64) -> Self {
        re as f32
    }
}
impl Elem for f64 {
    fn parts_f64(self) -> (f64, f64) {
        GemmExType::to_parts(self)
    }
    const U: f64 = f64::EPSILON / 2.0;
    fn from_parts(re: f64, _: f64) -> Self {
        re
    }
}
impl Elem for C32 {
    fn parts_f64(self) -> (f64, f64) {
        GemmExType::to_parts(self)
    }
    const U: f64 = f32::EPSILON as f64 / 2.0;
    const COMPLEX: bool = true;
    fn from_parts(re: f64, im: f64) -> Self {
        C32::new(re as f32, im as f32)
    }
}
impl Elem for C64 {
    fn parts_f64(self) -> (f64, f64) {
        GemmExType::to_parts(self)
    }
    const U: f64 = f64::EPSILON / 2.0;
    const COMPLEX: bool = true;
    fn from_parts(re: f64, im: f64) -> Self {
        C64::new(re, im)
    }
}
impl Elem for i8 {
    fn parts_f64(self) -> (f64, f64) {
        GemmExType::to_parts(self)
    }
    const U: f64 = 0.0;
    fn from_parts(re: f64, _: f64) -> Self {
        re as i8
    }
    fn random(r: &mut Rng) -> Self {
        r.next_u64() as i8
    }
    fn nan() -> Option<Self> {
        None
    }
}
impl Elem for i32 {
    fn parts_f64(self) -> (f64, f64) {
        GemmExType::to_parts(self)
    }
    const U: f64 = 0.0;
    fn from_parts(re: f64, _: f64) -> Self {
        re as i32
    }
    fn random(r: &mut Rng) -> Self {
        (r.next_u64() % 2001) as i32 - 1000
    }
    fn nan() -> Option<Self> {
        None
    }
}

fn cdv<T: Elem>(v: T) -> Cd {
    let (re, im) = v.parts_f64();
    Cd::new(re, im)
}

fn op(s: &str) -> Operation {
    match s {
        "N" => Operation::N,
        "T" => Operation::T,
        "C" => Operation::C,
        _ => panic!("operation {s}"),
    }
}

fn upload<T: ferrocm_kernel::runtime::DeviceRepr>(t: &Target, v: &[T]) -> DeviceBuffer<T> {
    t.stream.clone_htod(v).expect("upload")
}

/// `op(M)(i, l)` of a column-major matrix, in double-double (`C` conjugates complex types).
fn elem<T: Elem>(m: &[T], ld: usize, o: Operation, i: usize, l: usize) -> Cd {
    match o {
        Operation::N => cdv(m[i + l * ld]),
        Operation::T => cdv(m[l + i * ld]),
        Operation::C => cdv(m[l + i * ld]).conj(),
    }
}

fn compute_type(s: &str) -> ComputeType {
    match s {
        "f32_r" => ComputeType::F32,
        "tf32_r" => ComputeType::F32FastTf32,
        "f64_r" => ComputeType::F64,
        "i32_r" => ComputeType::I32,
        _ => panic!("compute type {s}"),
    }
}

#[test]
fn gemm_ex_cases() {
    let cases: Vec<Case> = expand(CASES)
        .into_iter()
        .filter(|c| !c.routine.ends_with("_row_major") && c.routine != "matmul")
        .collect();
    assert!(cases.len() > 300, "the case table expands to {} cases", cases.len());
    run_cases(&cases, |c, t, seed| match (c.get("a"), c.get("c")) {
        ("f16_r", "f16_r") => ex::<f16, f16, f32>(c, t, seed),
        ("f16_r", "bf16_r") => ex::<f16, bf16, f32>(c, t, seed),
        ("f16_r", "f32_r") => ex::<f16, f32, f32>(c, t, seed),
        ("bf16_r", "f16_r") => ex::<bf16, f16, f32>(c, t, seed),
        ("bf16_r", "bf16_r") => ex::<bf16, bf16, f32>(c, t, seed),
        ("bf16_r", "f32_r") => ex::<bf16, f32, f32>(c, t, seed),
        ("f32_r", "f32_r") => ex::<f32, f32, f32>(c, t, seed),
        ("f64_r", "f64_r") => ex::<f64, f64, f64>(c, t, seed),
        ("f32_c", "f32_c") => ex::<C32, C32, C32>(c, t, seed),
        ("f64_c", "f64_c") => ex::<C64, C64, C64>(c, t, seed),
        ("i8_r", "i32_r") => ex::<i8, i32, i32>(c, t, seed),
        (a, o) => panic!("types {a} -> {o}"),
    });
}

fn ex<I: Elem + GemmExType, O: Elem + GemmExType, S: Elem + GemmExType>(c: &Case, t: &Target, seed: u64) {
    let (ta, tb) = (op(c.get("transa")), op(c.get("transb")));
    let (m, n, k) = (c.usize("m"), c.usize("n"), c.usize("k"));
    let batched = c.routine == "gemm_ex_batched";
    let batch = if batched { c.usize("batch") } else { 1 };
    if t.executor && m * n * k * batch.max(1) > c.usize_or("executor", EXECUTOR_MAX) {
        return;
    }
    let compute = compute_type(c.get_or("compute", if I::U == 0.0 { "i32_r" } else { "f32_r" }));
    let mut r = Rng::new(seed);
    let pad = c.usize_or("pad", 0);
    let extra = c.usize_or("extra", 0);
    let (al_re, al_im) = crate::common::parse_complex(c.get("alpha"));
    let (be_re, be_im) = crate::common::parse_complex(c.get("beta"));
    let (alpha, beta) = (S::from_parts(al_re, al_im), S::from_parts(be_re, be_im));
    let (ra, ca) = if ta == Operation::N { (m, k) } else { (k, m) };
    let (rb, cb) = if tb == Operation::N { (k, n) } else { (n, k) };
    // `ld8`: leading dimensions rounded up to multiples of 8 (16 bytes of f16: the Hopper
    // kernel's TMA rule).
    let ld = |rows: usize| {
        let l = rows.max(1) + pad;
        if c.get_or("ld8", "no") == "yes" {
            l.next_multiple_of(8)
        } else {
            l
        }
    };
    let (lda, ldb, ldc) = (ld(ra), ld(rb), ld(m));
    let span =
        |rows: usize, cols: usize, ld: usize| if rows == 0 || cols == 0 { 0 } else { ld * (cols - 1) + rows };
    let stride_of = |rows, cols, ld| {
        let s = span(rows, cols, ld) + extra;
        if c.get_or("ld8", "no") == "yes" {
            s.next_multiple_of(8)
        } else {
            s
        }
    };
    let (sa, sb, sc) = (stride_of(ra, ca, lda), stride_of(rb, cb, ldb), stride_of(m, n, ldc));
    let total = |s: usize, one: usize| if batch == 0 { 0 } else { (batch - 1) * s + one } + PAD;
    let mut a: Vec<I> = (0..total(sa, span(ra, ca, lda))).map(|_| I::random(&mut r)).collect();
    let b: Vec<I> = (0..total(sb, span(rb, cb, ldb))).map(|_| I::random(&mut r)).collect();
    let mut c0: Vec<O> = (0..total(sc, span(m, n, ldc))).map(|_| O::random(&mut r)).collect();
    match c.get_or("nan", "none") {
        "c" => c0.iter_mut().for_each(|v| *v = O::nan().expect("a float C")),
        "a" if ra > 0 && ca > 0 => a[ra / 2 + (ca / 2) * lda] = I::nan().expect("a float A"),
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
    // `math=tf32`: the handle allows tf32 products in f32 GEMMs (cuBLAS's TF32 math mode).
    let math_tf32 = c.get_or("math", "default") == "tf32";
    if math_tf32 {
        h.set_math_mode(MathMode::Tf32Allowed);
    }
    let kernels = t.engine == Engine::Kernels || t.stream.device().kind() != BackendKind::Cpu;
    if let (Some(f), true) = (c.keys.get("family"), kernels) {
        h.set_gemm_family(Some(match f.as_str() {
            "wgmma" => GemmFamily::Wgmma,
            "simt" => GemmFamily::Simt,
            other => panic!("family {other}"),
        }));
    }
    if batched {
        h.gemm_strided_batched_ex(
            ta, tb, m, n, k, al, &da, lda, sa, &db, ldb, sb, be, &mut dc, ldc, sc, batch, compute,
        )
        .expect("gemm_strided_batched_ex");
    } else if c.routine == "gemm_half" {
        gemm_half::<I, O>(&h, ta, tb, m, n, k, alpha, &da, lda, &db, ldb, beta, &mut dc, ldc);
    } else {
        h.gemm_ex(ta, tb, m, n, k, al, &da, lda, &db, ldb, be, &mut dc, ldc, compute).expect("gemm_ex");
    }
    let got = t.stream.clone_dtoh(&dc).expect("download");
    let label = c.label();
    let (cal, cbe) = (cdv(alpha), cdv(beta));
    let live = k > 0 && !cal.is_zero();
    let u_c = match compute {
        ComputeType::F64 => f64::EPSILON / 2.0,
        ComputeType::I32 => 0.0,
        _ => f32::EPSILON as f64 / 2.0,
    };
    let cx = if I::COMPLEX { 4.0 } else { 1.0 };
    // tf32 products: each f32 input cut to 10 mantissa bits (relative error under 2^-10), so
    // each product within 2^-9 + 2^-20 of the exact one (ferrocm-gemm's contract).
    let tf32 = I::TYPE == ferrocm_blas::DataType::F32 && (compute == ComputeType::F32FastTf32 || math_tf32);
    let u_tf32 = if tf32 { 1.0 / 512.0 + 1.0 / 1048576.0 } else { 0.0 };
    let mut touched = vec![false; got.len()];
    for z in 0..batch {
        let (a, b) = (&a[z * sa..], &b[z * sb..]);
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
                let old = cdv(c0[ic]);
                let mut want = if live { cal * sum } else { Cd::ZERO };
                if !cbe.is_zero() {
                    want = want + cbe * old;
                }
                let scale = cal.mag() * mag + if cbe.is_zero() { 0.0 } else { cbe.mag() * old.mag() };
                let e = cx * (k as f64 + 4.0) * u_c * 1.01 * scale + u_tf32 * cal.mag() * mag;
                let bound = e + O::U * 1.01 * (want.mag() + e) + O::TINY;
                check(&label, ic, got[ic], want, if bound.is_nan() { 0.0 } else { bound });
                touched[ic] = true;
            }
        }
    }
    for (i, (&g, &o)) in got.iter().zip(&c0).enumerate() {
        if !touched[i] {
            let (g, o) = (g.parts_f64(), o.parts_f64());
            assert!(g == o || (g.0.is_nan() && o.0.is_nan()), "{label}: c[{i}] was written ({o:?} -> {g:?})");
        }
    }
}

/// `gemm_half` for the rows that name it (A, B and C of one half type).
#[allow(clippy::too_many_arguments)]
fn gemm_half<I: Elem + GemmExType, O: Elem + GemmExType>(
    h: &ferrocm_blas::Handle,
    ta: Operation,
    tb: Operation,
    m: usize,
    n: usize,
    k: usize,
    alpha: impl Elem,
    a: &DeviceBuffer<I>,
    lda: usize,
    b: &DeviceBuffer<I>,
    ldb: usize,
    beta: impl Elem,
    c: &mut DeviceBuffer<O>,
    ldc: usize,
) {
    let (al, be) = (alpha.parts_f64().0 as f32, beta.parts_f64().0 as f32);
    // The row's types are one half type (checked by the reinterpretation's element size).
    macro_rules! go {
        ($h:ty) => {{
            let (a, b) = (
                a.slice(..).unwrap().reinterpret::<$h>().unwrap(),
                b.slice(..).unwrap().reinterpret::<$h>().unwrap(),
            );
            let mut c = c.slice_mut(..).unwrap().reinterpret::<$h>().unwrap();
            h.gemm_half(ta, tb, m, n, k, al, &a, lda, &b, ldb, be, &mut c, ldc).expect("gemm_half");
        }};
    }
    assert_eq!(I::TYPE, O::TYPE, "gemm_half rows have one type");
    match I::TYPE {
        ferrocm_blas::DataType::F16 => go!(f16),
        ferrocm_blas::DataType::BF16 => go!(bf16),
        other => panic!("gemm_half on {other:?}"),
    }
}

/// `got` equals `want` within `bound` (NaN matches NaN).
fn check<T: Elem>(label: &str, idx: usize, got: T, want: Cd, bound: f64) {
    let (gr, gi) = got.parts_f64();
    for (g, w, part) in [(gr, want.re.to_f64(), "re"), (gi, want.im.to_f64(), "im")] {
        let ok = if w.is_nan() { g.is_nan() } else { (g - w).abs() <= bound };
        assert!(
            ok,
            "{label}: c[{idx}].{part} = {g:e}, reference {w:e}, error {:e} > bound {bound:e}",
            (g - w).abs()
        );
    }
}

/// The Hopper family forced on the CPU executor (which runs `ferrocm-gemm`'s kernel as the
/// reference of sm_90a) refuses operands breaking TMA's rules, and writes nothing.
#[test]
fn wgmma_refuses_operands_tma_cannot_read() {
    let seed = fresh_seed();
    for t in targets().iter().filter(|t| t.executor) {
        let mut r = Rng::new(seed);
        let a: Vec<f16> = (0..64).map(|_| f16::random(&mut r)).collect();
        let c0 = vec![f32::NAN; 64];
        let (da, mut dc) = (upload(t, &a), upload(t, &c0));
        let mut h = t.handle();
        h.set_gemm_family(Some(GemmFamily::Wgmma));
        // lda = 7 f16 elements is 14 bytes: not a multiple of 16.
        let e = h
            .gemm_ex(
                Operation::N,
                Operation::N,
                7,
                4,
                4,
                1.0f32,
                &da,
                7,
                &da,
                8,
                0.0f32,
                &mut dc,
                7,
                ComputeType::F32,
            )
            .expect_err("lda 7 on Wgmma");
        assert!(e.to_string().contains("Wgmma"), "{e}");
        let back = t.stream.clone_dtoh(&dc).unwrap();
        assert!(back.iter().all(|v| v.is_nan()), "[{}] C was written", t.label);
    }
}

/// `op(M)(i, l)` of a row-major matrix with leading dimension `ld`.
fn elem_rm<T: Elem>(m: &[T], ld: usize, o: Operation, i: usize, l: usize) -> Cd {
    match o {
        Operation::N => cdv(m[i * ld + l]),
        Operation::T => cdv(m[l * ld + i]),
        Operation::C => cdv(m[l * ld + i]).conj(),
    }
}

/// The row-major helpers (`gemm_row_major`, `gemm_ex_row_major`, `gemv_row_major`) against the
/// row-major reference: `ld` pads every row, the padding and the tail checked unchanged.
#[test]
fn row_major_cases() {
    let cases: Vec<Case> = expand(CASES).into_iter().filter(|c| c.routine.ends_with("_row_major")).collect();
    assert!(cases.len() > 40, "{} row-major cases", cases.len());
    run_cases(&cases, |c, t, seed| match (c.routine.as_str(), c.get("a")) {
        ("gemv_row_major", "f32_r") => rm::<f32, f32>(c, t, seed),
        ("gemv_row_major", "f64_c") => rm::<C64, C64>(c, t, seed),
        (_, "f32_r") => rm::<f32, f32>(c, t, seed),
        (_, "f32_c") => rm::<C32, C32>(c, t, seed),
        (_, "f16_r") => rm::<f16, f32>(c, t, seed),
        (r, a) => panic!("{r} on {a}"),
    });
}

/// One row-major case: a product (`gemm*`: `m x n`, inner `k`) or a `gemv` (`m x n` A).
fn rm<I: Elem + GemmExType, O: Elem + GemmExType>(c: &Case, t: &Target, seed: u64) {
    let gemv = c.routine == "gemv_row_major";
    let (ta, tb) = (op(c.get("transa")), op(c.get_or("transb", "N")));
    let (m, n) = (c.usize("m"), c.usize("n"));
    let k = if gemv { 1 } else { c.usize("k") };
    let pad = c.usize_or("pad", 0);
    let mut r = Rng::new(seed);
    let (alpha, beta) = (O::from_parts(1.5, -0.5), O::from_parts(-0.75, 0.25));
    // Stored rows x columns of A (row-major: ld >= columns) and B; for gemv, x and y.
    let (ra, ca) = if gemv {
        (m, n)
    } else if ta == Operation::N {
        (m, k)
    } else {
        (k, m)
    };
    let (rb, cb) = if tb == Operation::N { (k, n) } else { (n, k) };
    let (lda, ldb) = (ca.max(1) + pad, cb.max(1) + pad);
    let ldc = n.max(1) + pad;
    let span =
        |rows: usize, cols: usize, ld: usize| if rows == 0 || cols == 0 { 0 } else { ld * (rows - 1) + cols };
    let a: Vec<I> = (0..span(ra, ca, lda) + PAD).map(|_| I::random(&mut r)).collect();
    let (lx, ly) = if ta == Operation::N { (n, m) } else { (m, n) };
    let b: Vec<I> = (0..if gemv { lx } else { span(rb, cb, ldb) } + PAD).map(|_| I::random(&mut r)).collect();
    let c0: Vec<O> = (0..if gemv { ly } else { span(m, n, ldc) } + PAD).map(|_| O::random(&mut r)).collect();
    let (da, db, mut dc) = (upload(t, &a), upload(t, &b), upload(t, &c0));
    let h = t.handle();
    // Types are checked by the match in `row_major_cases`; views are reinterpreted to the
    // Scalar types the classic helpers take.
    macro_rules! classic {
        ($ty:ty) => {{
            let av = da.slice(..).unwrap().reinterpret::<$ty>().unwrap();
            let bv = db.slice(..).unwrap().reinterpret::<$ty>().unwrap();
            let mut cv = dc.slice_mut(..).unwrap().reinterpret::<$ty>().unwrap();
            let (al, be) = (alpha.parts_f64(), beta.parts_f64());
            let al: $ty = crate::common::scalar(al);
            let be: $ty = crate::common::scalar(be);
            if gemv {
                h.gemv_row_major(ta, m, n, al, &av, lda, &bv, 1, be, &mut cv, 1).expect("gemv_row_major");
            } else {
                h.gemm_row_major(ta, tb, m, n, k, al, &av, lda, &bv, ldb, be, &mut cv, ldc)
                    .expect("gemm_row_major");
            }
        }};
    }
    match (c.routine.as_str(), O::TYPE) {
        ("gemm_ex_row_major", _) => h
            .gemm_ex_row_major(
                ta,
                tb,
                m,
                n,
                k,
                alpha,
                &da,
                lda,
                &db,
                ldb,
                beta,
                &mut dc,
                ldc,
                ComputeType::F32,
            )
            .expect("gemm_ex_row_major"),
        (_, ferrocm_blas::DataType::F32) => classic!(f32),
        (_, ferrocm_blas::DataType::C32) => classic!(C32),
        (_, ferrocm_blas::DataType::C64) => classic!(C64),
        (r, ty) => panic!("{r} on {ty:?}"),
    }
    let got = t.stream.clone_dtoh(&dc).expect("download");
    let label = c.label();
    let (cal, cbe) = (cdv(alpha), cdv(beta));
    let u =
        if I::TYPE == ferrocm_blas::DataType::C64 { f64::EPSILON / 2.0 } else { f32::EPSILON as f64 / 2.0 };
    let cx = if I::COMPLEX { 4.0 } else { 1.0 };
    let mut touched = vec![false; got.len()];
    let (rows, cols, inner) = if gemv { (ly, 1, lx) } else { (m, n, k) };
    for i in 0..rows {
        for j in 0..cols {
            let ic = if gemv { i } else { i * ldc + j };
            let (mut sum, mut mag) = (Cd::ZERO, 0.0);
            for l in 0..inner {
                let (x, y) = if gemv {
                    (elem_rm(&a, lda, ta, i, l), cdv(b[l]))
                } else {
                    (elem_rm(&a, lda, ta, i, l), elem_rm(&b, ldb, tb, l, j))
                };
                sum = sum + x * y;
                mag += x.mag() * y.mag();
            }
            let old = cdv(c0[ic]);
            let want = cal * sum + cbe * old;
            let e = cx * (inner as f64 + 4.0) * u * 1.01 * (cal.mag() * mag + cbe.mag() * old.mag());
            check(&label, ic, got[ic], want, e + O::U * 1.01 * (want.mag() + e));
            touched[ic] = true;
        }
    }
    for (i, (&g, &o)) in got.iter().zip(&c0).enumerate() {
        if !touched[i] {
            assert_eq!(g.parts_f64(), o.parts_f64(), "{label}: c[{i}] was written");
        }
    }
}

impl Elem for E4M3 {
    fn parts_f64(self) -> (f64, f64) {
        (self.to_f64(), 0.0)
    }
    const U: f64 = 0.0;
    fn from_parts(re: f64, _: f64) -> Self {
        E4M3::from_f64(re)
    }
}
impl Elem for E5M2 {
    fn parts_f64(self) -> (f64, f64) {
        (self.to_f64(), 0.0)
    }
    const U: f64 = 0.0;
    fn from_parts(re: f64, _: f64) -> Self {
        E5M2::from_f64(re)
    }
}

fn matmul_type(s: &str) -> MatmulType {
    match s {
        "f16_r" => MatmulType::F16,
        "bf16_r" => MatmulType::BF16,
        "f32_r" => MatmulType::F32,
        "f8_r" => MatmulType::E4M3,
        "bf8_r" => MatmulType::E5M2,
        _ => panic!("matmul type {s}"),
    }
}

fn epilogue(s: &str) -> Epilogue {
    match s {
        "default" => Epilogue::Default,
        "relu" => Epilogue::Relu,
        "bias" => Epilogue::Bias,
        "relu_bias" => Epilogue::ReluBias,
        "gelu" => Epilogue::Gelu,
        "gelu_bias" => Epilogue::GeluBias,
        "relu_aux" => Epilogue::ReluAux,
        "relu_aux_bias" => Epilogue::ReluAuxBias,
        "gelu_aux" => Epilogue::GeluAux,
        "gelu_aux_bias" => Epilogue::GeluAuxBias,
        _ => panic!("epilogue {s}"),
    }
}

/// GELU's tanh form in f64.
fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x)).tanh())
}

/// hipBLASLt-style matmul: every epilogue against the host reference (bias, ReLU, GELU, aux
/// equal to the pre-activation), 8-bit inputs with scales against the f64 product of the
/// decoded inputs, each algorithm the heuristic offers (or the one a row names).
#[test]
fn matmul_cases() {
    let cases: Vec<Case> = expand(CASES).into_iter().filter(|c| c.routine == "matmul").collect();
    assert!(cases.len() > 100, "{} matmul cases", cases.len());
    run_cases(&cases, |c, t, seed| {
        macro_rules! out {
            ($i:ty) => {
                match (c.get("d"), c.get_or("bias", "f32_r")) {
                    ("f16_r", "f32_r") => mm::<$i, f16, f32>(c, t, seed),
                    ("f16_r", _) => mm::<$i, f16, f16>(c, t, seed),
                    ("bf16_r", "f32_r") => mm::<$i, bf16, f32>(c, t, seed),
                    ("bf16_r", _) => mm::<$i, bf16, bf16>(c, t, seed),
                    _ => mm::<$i, f32, f32>(c, t, seed),
                }
            };
        }
        match c.get("a") {
            "f16_r" => out!(f16),
            "bf16_r" => out!(bf16),
            "f32_r" => out!(f32),
            "f8_r" => out!(E4M3),
            "bf8_r" => out!(E5M2),
            other => panic!("a {other}"),
        }
    });
}

#[allow(clippy::needless_range_loop)]
fn mm<I: Elem + ferrocm_blas::matmul::MatmulElement, O: Elem + ferrocm_blas::matmul::MatmulOutput, B>(
    c: &Case,
    t: &Target,
    seed: u64,
) where
    B: Elem + ferrocm_blas::matmul::MatmulOutput,
{
    let (ta, tb) = (op(c.get("transa")), op(c.get("transb")));
    let (m, n, k) = (c.usize("m"), c.usize("n"), c.usize("k"));
    let batch = c.usize_or("batch", 1);
    if t.executor && m * n * k * batch > c.usize_or("executor", EXECUTOR_MAX) {
        return;
    }
    let epi = epilogue(c.get("epilogue"));
    let (alpha, beta) = (c.get("alpha").parse::<f32>().unwrap(), c.get("beta").parse::<f32>().unwrap());
    let (sa_, sb_) =
        (c.get_or("scale_a", "1").parse::<f32>().unwrap(), c.get_or("scale_b", "1").parse::<f32>().unwrap());
    let pad = c.usize_or("pad", 0);
    let mut r = Rng::new(seed);
    let (ra, ca) = if ta == Operation::N { (m, k) } else { (k, m) };
    let (rb, cb) = if tb == Operation::N { (k, n) } else { (n, k) };
    let ld = |rows: usize| {
        (rows.max(1) + pad).next_multiple_of(if c.get_or("ld16", "no") == "yes" { 16 } else { 1 })
    };
    let (lda, ldb, ldd) = (ld(ra), ld(rb), ld(m));
    let span =
        |rows: usize, cols: usize, ld: usize| if rows == 0 || cols == 0 { 0 } else { ld * (cols - 1) + rows };
    let extra = c.usize_or("extra", 0);
    let stride = |rows, cols, ld| (span(rows, cols, ld) + extra).next_multiple_of(16);
    let (sa, sb, sd) = (stride(ra, ca, lda), stride(rb, cb, ldb), stride(m, n, ldd));
    let total = |s: usize, one: usize| (batch - 1) * s + one + PAD;
    let a: Vec<I> = (0..total(sa, span(ra, ca, lda))).map(|_| I::random(&mut r)).collect();
    let b: Vec<I> = (0..total(sb, span(rb, cb, ldb))).map(|_| I::random(&mut r)).collect();
    let mut d0: Vec<O> = (0..total(sd, span(m, n, ldd))).map(|_| O::random(&mut r)).collect();
    if c.get_or("nan", "none") == "d" {
        d0.iter_mut().for_each(|v| *v = O::nan().unwrap());
    }
    let bias: Vec<B> = (0..m + PAD).map(|_| B::random(&mut r)).collect();
    let aux0: Vec<O> = (0..total(sd, span(m, n, ldd))).map(|_| O::random(&mut r)).collect();
    let desc = MatmulDesc::new(ta, tb, m, n, k, matmul_type(c.get("a")), matmul_type(c.get("d")))
        .with_leading_dims(lda, ldb, ldd)
        .with_batches(batch, sa, sb, sd)
        .with_epilogue(epi)
        .with_scales(sa_, sb_);
    let h = t.handle();
    let algos = h.matmul_algorithms(&desc, u64::MAX);
    assert!(!algos.is_empty(), "no algorithm for {desc:?}");
    // The heuristic respects the workspace limit: an algorithm needing w bytes is offered
    // with limit w and left out with w - 1.
    for al in &algos {
        assert!(h.matmul_algorithms(&desc, al.workspace_bytes).contains(al));
        if al.workspace_bytes > 0 {
            assert!(!h.matmul_algorithms(&desc, al.workspace_bytes - 1).contains(al));
        }
    }
    let want_family = match c.get_or("algo", "first") {
        "first" => algos[0].family,
        "simt" => GemmFamily::Simt,
        "wgmma" => GemmFamily::Wgmma,
        other => panic!("algo {other}"),
    };
    let Some(algo) = algos.iter().find(|a| a.family == want_family) else {
        // A row naming a kernel family runs where the kernels run.
        assert!(!(t.executor), "[{}] {want_family:?} not offered on the executor", t.label);
        return;
    };
    let (da, db, mut dd) = (upload(t, &a), upload(t, &b), upload(t, &d0));
    let (dbias, mut daux) = (upload(t, &bias), upload(t, &aux0));
    h.matmul::<I, O, B>(
        &desc,
        algo,
        alpha,
        &da,
        &db,
        beta,
        &mut dd,
        epi.has_bias().then(|| dbias.slice(..).unwrap()),
        if epi.has_aux() { Some(daux.slice_mut(..).unwrap()) } else { None },
    )
    .expect("matmul");
    let got = t.stream.clone_dtoh(&dd).unwrap();
    let got_aux = t.stream.clone_dtoh(&daux).unwrap();
    let label = c.label();
    let scale = alpha as f64 * sa_ as f64 * sb_ as f64;
    let u = f32::EPSILON as f64 / 2.0;
    let relu = matches!(epi, Epilogue::Relu | Epilogue::ReluBias | Epilogue::ReluAux | Epilogue::ReluAuxBias);
    let gel = matches!(epi, Epilogue::Gelu | Epilogue::GeluBias | Epilogue::GeluAux | Epilogue::GeluAuxBias);
    let mut touched = vec![false; got.len()];
    for z in 0..batch {
        let (a, b) = (&a[z * sa..], &b[z * sb..]);
        for j in 0..n {
            for i in 0..m {
                let id = z * sd + i + j * ldd;
                let (mut sum, mut mag) = (0.0f64, 0.0f64);
                for l in 0..k {
                    let (x, y) = (elem(a, lda, ta, i, l).re.to_f64(), elem(b, ldb, tb, l, j).re.to_f64());
                    sum += x * y;
                    mag += (x * y).abs();
                }
                let old = d0[id].parts_f64().0;
                let bv = if epi.has_bias() { bias[i].parts_f64().0 } else { 0.0 };
                let mut x = scale * sum + bv;
                let mut e_mag = scale.abs() * mag + bv.abs();
                if beta != 0.0 {
                    x += beta as f64 * old;
                    e_mag += (beta as f64 * old).abs();
                }
                // 8-bit inputs may run on Hopper's tensor cores, which keep about 13-14 bits of
                // the running sum (the matmul module's stated bound).
                let fp8 = matches!(I::TYPE, MatmulType::E4M3 | MatmulType::E5M2);
                let e = if fp8 { 2f64.powi(-10) } else { (k as f64 + 6.0) * u * 1.01 } * e_mag;
                if epi.has_aux() {
                    let ia = id;
                    check(
                        &label,
                        ia,
                        got_aux[ia],
                        Cd::new(x, 0.0),
                        e + O::U * 1.01 * (x.abs() + e) + O::TINY,
                    );
                }
                let (want, e) = if relu {
                    (x.max(0.0), e)
                } else if gel {
                    (gelu(x), 1.13 * e + 1e-6 * (x.abs() + 1.0))
                } else {
                    (x, e)
                };
                check(&label, id, got[id], Cd::new(want, 0.0), e + O::U * 1.01 * (want.abs() + e) + O::TINY);
                touched[id] = true;
            }
        }
    }
    for (i, (&g, &o)) in got.iter().zip(&d0).enumerate() {
        if !touched[i] {
            let (g, o) = (g.parts_f64(), o.parts_f64());
            assert!(g == o || (g.0.is_nan() && o.0.is_nan()), "{label}: d[{i}] was written");
        }
    }
    for (i, (&g, &o)) in got_aux.iter().zip(&aux0).enumerate() {
        if !(epi.has_aux() && touched[i]) {
            assert_eq!(g.parts_f64(), o.parts_f64(), "{label}: aux[{i}] was written");
        }
    }
}
