//! Misuse, as data: each case is a call with one bad argument that must fail with the stated
//! error kind (naming the stated argument) and leave the poisoned output exactly as it was, on
//! every device and engine.

mod common;

use common::{targets, Target};
use ferrocm_blas::{BlasError, Diagonal, Fill, GemmFamily, Operation, ScalarArg, Side, C32};
use ferrocm_kernel::runtime::{AsDeviceSlice, AsDeviceSliceMut};

/// Every output starts as this value, so a stray write shows.
const POISON: f32 = 7.25;
/// Elements in every buffer unless a case says fewer.
const LEN: usize = 64;

/// A call on `f32` data: `a`, `b` are inputs of `la`, `lb` elements, `c` the poisoned output
/// of `lc` elements.
#[derive(Clone, Copy)]
enum Call {
    /// `gemm(N|T, N, m, n, k, .., lda, .., ldb, .., ldc)` (A transposed when `ta`).
    Gemm { ta: bool, m: usize, n: usize, k: usize, lda: usize, ldb: usize, ldc: usize },
    /// A valid `4 x 4 x 4` f32 `gemm` on a handle forced onto `family`.
    GemmForced { family: GemmFamily },
    /// Strided batched GEMM, `N, N`, `m = n = k = 4`, leading dimensions 4.
    Batched { stride_a: usize, stride_c: usize, batch: usize },
    /// `gemv(op, m, n, .., lda, x, incx, .., y, incy)`.
    Gemv { t: bool, m: usize, n: usize, lda: usize, incx: isize, incy: isize },
    /// `axpy(n, 2, a, incx, c, incy)`.
    Axpy { n: usize, incx: isize, incy: isize },
    /// `axpy` with alpha read from an empty device view.
    AxpyEmptyScalar,
    /// `dot(n, a, incx, c, incy)` into a device result.
    Dot { n: usize, incx: isize, incy: isize },
    /// `syrk(Upper, N|T, n, k, .., a, lda, .., c, ldc)` (`two`: `syr2k` with `b`, `ldb = lda`).
    Syrk { t: bool, two: bool, n: usize, k: usize, lda: usize, ldc: usize },
    /// `herk` on the buffers viewed as `C32`, with `op`.
    HerkC32 { op: Operation },
    /// `symm(side, Upper, m, n, .., a, lda, b, ldb, .., c, ldc)` (`herm`: `hemm`).
    Symm { right: bool, herm: bool, m: usize, n: usize, lda: usize, ldb: usize, ldc: usize },
    /// `trmm` (`solve`: `trsm`) `(side, Upper, N, NonUnit, m, n, 1, a, lda, c, ldb)`.
    Tri { solve: bool, right: bool, m: usize, n: usize, lda: usize, ldb: usize },
    /// `trsm` with alpha read from an empty device view.
    TrsmEmptyScalar,
    /// `trsm_strided_batched(Left, .., m = n = 4, a, 4, 0, c, 4, stride_b, batch)`.
    TrsmStrided { stride_b: usize, batch: usize },
    /// `trsm_batched` with `na` entries of `a` and `nb` of `b` (4 x 4 each).
    TrsmArray { na: usize, nb: usize },
}

struct Case {
    name: &'static str,
    call: Call,
    sizes: (usize, usize, usize),
    /// The error's kind and the argument it must name.
    want: (&'static str, &'static str),
}

fn case(name: &'static str, call: Call, want: (&'static str, &'static str)) -> Case {
    Case { name, call, sizes: (LEN, LEN, LEN), want }
}

fn cases() -> Vec<Case> {
    use Call::*;
    let g = |ta, m, n, k, lda, ldb, ldc| Gemm { ta, m, n, k, lda, ldb, ldc };
    vec![
        case("gemm lda < m", g(false, 4, 4, 4, 3, 4, 4), ("LeadingDimension", "lda")),
        case("gemm lda < k for op(A) = T", g(true, 6, 2, 4, 3, 4, 6), ("LeadingDimension", "lda")),
        case("gemm lda 0 for m 0", g(false, 0, 4, 4, 0, 4, 1), ("LeadingDimension", "lda")),
        case("gemm ldb < k", g(false, 4, 4, 5, 4, 4, 4), ("LeadingDimension", "ldb")),
        case("gemm ldc < m", g(false, 5, 4, 4, 5, 4, 4), ("LeadingDimension", "ldc")),
        Case {
            name: "gemm A too short",
            call: g(false, 8, 2, 8, 8, 8, 8),
            sizes: (63, LEN, LEN),
            want: ("MatrixTooShort", "a"),
        },
        Case {
            name: "gemm C too short",
            call: g(false, 8, 8, 2, 8, 2, 8),
            sizes: (LEN, LEN, 63),
            want: ("MatrixTooShort", "c"),
        },
        // The FP64 tensor-core families compute f64 only: forced onto an f32 GEMM they refuse
        // it on every device and engine (the native engine: no kernel family runs there).
        case(
            "gemm f32 forced onto Dmma16",
            GemmForced { family: GemmFamily::Dmma16 },
            ("Unsupported", "family"),
        ),
        case("gemm f32 forced onto Dmma", GemmForced { family: GemmFamily::Dmma }, ("Unsupported", "family")),
        case(
            "batched C overlapping",
            Batched { stride_a: 16, stride_c: 15, batch: 2 },
            ("InvalidValue", "stride_c"),
        ),
        case("batched A too short", Batched { stride_a: 16, stride_c: 16, batch: 5 }, ("TooShort", "a")),
        case("batched C too short", Batched { stride_a: 0, stride_c: 16, batch: 5 }, ("TooShort", "c")),
        case(
            "gemv lda < m",
            Gemv { t: false, m: 4, n: 4, lda: 3, incx: 1, incy: 1 },
            ("LeadingDimension", "lda"),
        ),
        case(
            "gemv x zero increment",
            Gemv { t: false, m: 4, n: 4, lda: 4, incx: 0, incy: 1 },
            ("ZeroIncrement", "incx"),
        ),
        case(
            "gemv y zero increment",
            Gemv { t: true, m: 4, n: 4, lda: 4, incx: 1, incy: 0 },
            ("ZeroIncrement", "incy"),
        ),
        case(
            "gemv T x too short",
            Gemv { t: true, m: 40, n: 1, lda: 40, incx: 2, incy: 1 },
            ("VectorTooShort", "x"),
        ),
        case(
            "gemv N y too short",
            Gemv { t: false, m: 40, n: 1, lda: 40, incx: 1, incy: -2 },
            ("VectorTooShort", "y"),
        ),
        case("axpy zero incx", Axpy { n: 4, incx: 0, incy: 1 }, ("ZeroIncrement", "incx")),
        case("axpy x too short", Axpy { n: 33, incx: 2, incy: 1 }, ("VectorTooShort", "x")),
        case("axpy y too short", Axpy { n: 23, incx: 1, incy: -3 }, ("VectorTooShort", "y")),
        case("axpy empty device alpha", AxpyEmptyScalar, ("TooShort", "alpha")),
        case("dot x too short", Dot { n: 65, incx: 1, incy: 1 }, ("VectorTooShort", "x")),
        case("dot zero incy", Dot { n: 3, incx: 1, incy: 0 }, ("ZeroIncrement", "incy")),
        case(
            "syrk ldc < n",
            Syrk { t: false, two: false, n: 4, k: 2, lda: 4, ldc: 3 },
            ("LeadingDimension", "ldc"),
        ),
        case(
            "syrk lda < k for T",
            Syrk { t: true, two: false, n: 2, k: 4, lda: 3, ldc: 2 },
            ("LeadingDimension", "lda"),
        ),
        Case {
            name: "syrk C too short",
            call: Syrk { t: false, two: false, n: 8, k: 1, lda: 8, ldc: 8 },
            sizes: (LEN, LEN, 63),
            want: ("MatrixTooShort", "c"),
        },
        Case {
            name: "syr2k B too short",
            call: Syrk { t: false, two: true, n: 8, k: 8, lda: 8, ldc: 8 },
            sizes: (LEN, 63, LEN),
            want: ("MatrixTooShort", "b"),
        },
        case("herk T on a complex type", HerkC32 { op: Operation::T }, ("InvalidValue", "trans")),
        case(
            "symm right lda < n",
            Symm { right: true, herm: false, m: 2, n: 4, lda: 3, ldb: 2, ldc: 2 },
            ("LeadingDimension", "lda"),
        ),
        Case {
            name: "hemm B too short",
            call: Symm { right: false, herm: true, m: 8, n: 8, lda: 8, ldb: 8, ldc: 8 },
            sizes: (LEN, 63, LEN),
            want: ("MatrixTooShort", "b"),
        },
        case(
            "trmm ldb < m",
            Tri { solve: false, right: false, m: 4, n: 2, lda: 4, ldb: 3 },
            ("LeadingDimension", "ldb"),
        ),
        Case {
            name: "trsm A too short",
            call: Tri { solve: true, right: true, m: 2, n: 8, lda: 8, ldb: 2 },
            sizes: (63, LEN, LEN),
            want: ("MatrixTooShort", "a"),
        },
        case("trsm empty device alpha", TrsmEmptyScalar, ("TooShort", "alpha")),
        case(
            "trsm_strided_batched B overlapping",
            TrsmStrided { stride_b: 15, batch: 2 },
            ("InvalidValue", "stride_b"),
        ),
        case("trsm_strided_batched B too short", TrsmStrided { stride_b: 16, batch: 5 }, ("TooShort", "b")),
        case("trsm_batched a and b lengths differ", TrsmArray { na: 2, nb: 1 }, ("InvalidValue", "a")),
    ]
}

/// The variant name and the argument an error names.
fn kind(e: &BlasError) -> (&'static str, &'static str) {
    match e {
        BlasError::LeadingDimension { arg, .. } => ("LeadingDimension", arg),
        BlasError::ZeroIncrement { arg } => ("ZeroIncrement", arg),
        BlasError::VectorTooShort { arg, .. } => ("VectorTooShort", arg),
        BlasError::MatrixTooShort { arg, .. } => ("MatrixTooShort", arg),
        BlasError::TooShort { arg, .. } => ("TooShort", arg),
        BlasError::InvalidValue { arg, .. } => ("InvalidValue", arg),
        BlasError::SizeTooLarge { arg, .. } => ("SizeTooLarge", arg),
        BlasError::DeviceMismatch { arg, .. } => ("DeviceMismatch", arg),
        BlasError::Unsupported { what } if what.contains("GemmFamily::") => ("Unsupported", "family"),
        other => panic!("unexpected error {other:?}"),
    }
}

fn check(case: &Case, t: &Target) {
    let s = &t.stream;
    let (la, lb, lc) = case.sizes;
    let a = s.clone_htod(&vec![1.5f32; la]).expect("a");
    let b = s.clone_htod(&vec![-0.5f32; lb]).expect("b");
    let mut c = s.clone_htod(&vec![POISON; lc]).expect("c");
    let mut r = s.clone_htod(&[POISON]).expect("result");
    let scalars = s.clone_htod(&[2.0f32]).expect("scalars");
    let empty = scalars.slice(0..0).expect("empty view");
    let mut h = t.handle();
    let err = match case.call {
        Call::GemmForced { family } => {
            h.set_gemm_family(Some(family));
            h.gemm(Operation::N, Operation::N, 4, 4, 4, 1.0f32, &a, 4, &b, 4, 0.0f32, &mut c, 4)
        }
        Call::Gemm { ta, m, n, k, lda, ldb, ldc } => {
            let ta = if ta { Operation::T } else { Operation::N };
            h.gemm(ta, Operation::N, m, n, k, 1.0f32, &a, lda, &b, ldb, 0.0f32, &mut c, ldc)
        }
        Call::Batched { stride_a, stride_c, batch } => h.gemm_strided_batched(
            Operation::N,
            Operation::N,
            4,
            4,
            4,
            1.0f32,
            &a,
            4,
            stride_a,
            &b,
            4,
            0,
            0.0f32,
            &mut c,
            4,
            stride_c,
            batch,
        ),
        Call::Gemv { t: tr, m, n, lda, incx, incy } => {
            let op = if tr { Operation::T } else { Operation::N };
            h.gemv(op, m, n, 1.0f32, &a, lda, &b, incx, 0.0f32, &mut c, incy)
        }
        Call::Axpy { n, incx, incy } => h.axpy(n, 2.0f32, &a, incx, &mut c, incy),
        Call::AxpyEmptyScalar => h.axpy(4, ScalarArg::device(&empty), &a, 1, &mut c, 1),
        Call::Dot { n, incx, incy } => h.dot_device(n, &a, incx, &b, incy, &mut r),
        Call::Syrk { t: tr, two, n, k, lda, ldc } => {
            let op = if tr { Operation::T } else { Operation::N };
            if two {
                h.syr2k(Fill::Upper, op, n, k, 1.0f32, &a, lda, &b, lda, 0.0f32, &mut c, ldc)
            } else {
                h.syrk(Fill::Upper, op, n, k, 1.0f32, &a, lda, 0.0f32, &mut c, ldc)
            }
        }
        Call::HerkC32 { op } => {
            let ac = a.as_device_slice().reinterpret::<C32>().expect("complex view");
            let mut cc = c.as_device_slice_mut().reinterpret::<C32>().expect("complex view");
            h.herk(Fill::Lower, op, 4, 4, 1.0f32, &ac, 4, 0.0f32, &mut cc, 4)
        }
        Call::Symm { right, herm, m, n, lda, ldb, ldc } => {
            let side = if right { Side::Right } else { Side::Left };
            if herm {
                h.hemm(side, Fill::Upper, m, n, 1.0f32, &a, lda, &b, ldb, 0.0f32, &mut c, ldc)
            } else {
                h.symm(side, Fill::Upper, m, n, 1.0f32, &a, lda, &b, ldb, 0.0f32, &mut c, ldc)
            }
        }
        Call::Tri { solve, right, m, n, lda, ldb } => {
            let side = if right { Side::Right } else { Side::Left };
            let (u, o, d) = (Fill::Upper, Operation::N, Diagonal::NonUnit);
            if solve {
                h.trsm(side, u, o, d, m, n, 1.0f32, &a, lda, &mut c, ldb)
            } else {
                h.trmm(side, u, o, d, m, n, 1.0f32, &a, lda, &mut c, ldb)
            }
        }
        Call::TrsmEmptyScalar => h.trsm(
            Side::Left,
            Fill::Lower,
            Operation::N,
            Diagonal::Unit,
            4,
            4,
            ScalarArg::device(&empty),
            &a,
            4,
            &mut c,
            4,
        ),
        Call::TrsmStrided { stride_b, batch } => h.trsm_strided_batched(
            Side::Left,
            Fill::Upper,
            Operation::T,
            Diagonal::NonUnit,
            4,
            4,
            1.0f32,
            &a,
            4,
            0,
            &mut c,
            4,
            stride_b,
            batch,
        ),
        Call::TrsmArray { na, nb } => {
            let av: Vec<_> = (0..na).map(|_| a.slice(..16).expect("view")).collect();
            let mut bv = vec![c.slice_mut(..16).expect("view")];
            bv.truncate(nb);
            h.trsm_batched(
                Side::Right,
                Fill::Upper,
                Operation::N,
                Diagonal::NonUnit,
                4,
                4,
                1.0f32,
                &av,
                4,
                &mut bv,
                4,
            )
        }
    }
    .expect_err(case.name);
    assert_eq!(kind(&err), case.want, "[{}] {}: {err}", t.label, case.name);
    assert!(!err.to_string().is_empty());
    s.synchronize().expect("sync");
    let after = s.clone_dtoh(&c).expect("c back");
    assert!(after.iter().all(|&v| v == POISON), "[{}] {}: the output was written", t.label, case.name);
    assert_eq!(
        s.clone_dtoh(&r).expect("r back"),
        vec![POISON],
        "[{}] {}: the result was written",
        t.label,
        case.name
    );
}

#[test]
fn misuse_table() {
    let cases = cases();
    for t in &targets() {
        for c in &cases {
            check(c, t);
        }
    }
}
