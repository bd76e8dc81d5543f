//! Misuse, as data: each case is a call with one bad argument that must fail with the stated
//! error kind (naming the stated argument) and leave the poisoned output exactly as it was, on
//! every device and engine.

use crate::common::{targets, Target};
use ferrocm_blas::{
    BlasError, ComputeType, DataType, Diagonal, Fill, GemmFamily, Operation, ScalarArg, Side, C32,
};
use ferrocm_kernel::runtime::{AsDeviceSlice, AsDeviceSliceMut, DevicePtr, ExternalBuffer};

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
    /// `gemm` (f32, `T, N`, 4 x 4 x 4, `lda` 5) on a handle allowing tf32 with
    /// [`GemmFamily::Wgmma`] forced: TMA reads rows of multiples of 16 bytes only.
    GemmTf32ForcedLda5,
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
    /// `ger(m, n, 2, a, incx, b, incy, c, lda)`.
    Ger { m: usize, n: usize, incx: isize, incy: isize, lda: usize },
    /// `syr2(Upper, n, 2, a, incx, b, incy, c, lda)`.
    Syr2 { n: usize, incx: isize, incy: isize, lda: usize },
    /// `spr(Lower, n, 2, a, incx, c)` (`c` the packed triangle).
    Spr { n: usize, incx: isize },
    /// `gemv_strided_batched(N, 4, 4, .., a, 4, 16, b, 1, 4, .., c, incy, stride_y, 3)`.
    GemvStrided { incy: isize, stride_y: usize },
    /// `gemm_batched` of two `4 x 4 x 4` entries whose C views start `c_gap` elements apart
    /// in `c` (two views of the same memory: overlapping when `c_gap < 16`), with `entries_b`
    /// B views.
    GemmBatched { c_gap: usize, entries_b: usize },
    /// `symv(U, n, 1, a, lda, b, incx, 0, c, incy)`.
    Symv { n: usize, lda: usize, incx: isize, incy: isize },
    /// `symv` with alpha read from an empty device view.
    SymvEmptyScalar,
    /// `gbmv(N|T, m, n, kl, ku, 1, a, lda, b, incx, 0, c, 1)`.
    Gbmv { t: bool, m: usize, n: usize, kl: usize, ku: usize, lda: usize, incx: isize },
    /// `sbmv(L, n, k, 1, a, lda, b, 1, 0, c, 1)`.
    Sbmv { n: usize, k: usize, lda: usize },
    /// `spmv(U, n, 1, a, b, 1, 0, c, 1)`.
    Spmv { n: usize },
    /// A triangular routine (`trmv`, `tbmv`, `tpmv`, `trsv`, `tbsv`, `tpsv`; `U`, `N`,
    /// `NonUnit`) on `A = a`, `x = c`.
    Tri { routine: &'static str, n: usize, k: usize, lda: usize, incx: isize },
    /// `syrk(Upper, N|T, n, k, .., a, lda, .., c, ldc)` (`two`: `syr2k` with `b`, `ldb = lda`).
    Syrk { t: bool, two: bool, n: usize, k: usize, lda: usize, ldc: usize },
    /// `herk` on the buffers viewed as `C32`, with `op`.
    HerkC32 { op: Operation },
    /// `symm(side, Upper, m, n, .., a, lda, b, ldb, .., c, ldc)` (`herm`: `hemm`).
    Symm { right: bool, herm: bool, m: usize, n: usize, lda: usize, ldb: usize, ldc: usize },
    /// `trmm` (`solve`: `trsm`) `(side, Upper, N, NonUnit, m, n, 1, a, lda, c, ldb)`.
    Tr3 { solve: bool, right: bool, m: usize, n: usize, lda: usize, ldb: usize },
    /// `trsm` with alpha read from an empty device view.
    TrsmEmptyScalar,
    /// `trsm_strided_batched(Left, .., m = n = 4, a, 4, 0, c, 4, stride_b, batch)`.
    TrsmStrided { stride_b: usize, batch: usize },
    /// `trsm_batched` with `na` entries of `a` and `nb` of `b` (4 x 4 each).
    TrsmArray { na: usize, nb: usize },
    /// A `4 x 4 x 4` `gemm_ex` with A and B viewed as `a`, C as `c` (f32 bits), the compute
    /// type and the scalars' type; `lda` as given.
    GemmEx { a: DataType, c: DataType, compute: ComputeType, scalar: DataType, lda: usize },
    /// A `4 x 4 x 4` f16 -> f32 `matmul` with one thing wrong.
    Matmul(MatmulMisuse),
}

/// What a `matmul` misuse case gets wrong.
#[derive(Clone, Copy)]
enum MatmulMisuse {
    /// f32 inputs with an f16 D.
    Types,
    /// A `*Bias` epilogue without a bias.
    NoBias,
    /// A bias given to an epilogue without one.
    UnwantedBias,
    /// An `*Aux` epilogue without an aux matrix.
    NoAux,
    /// `ldd < m`.
    Ldd,
    /// A workspace limit below the algorithm's need.
    Workspace,
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

fn ex(a: DataType, c: DataType, compute: ComputeType, scalar: DataType, lda: usize) -> Call {
    Call::GemmEx { a, c, compute, scalar, lda }
}

fn cases() -> Vec<Case> {
    use Call::*;
    use DataType::*;
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
        case(
            "gemm f32 forced onto Dmma16W32",
            GemmForced { family: GemmFamily::Dmma16W32 },
            ("Unsupported", "family"),
        ),
        case(
            "gemm f32 forced onto Dmma16K8",
            GemmForced { family: GemmFamily::Dmma16K8 },
            ("Unsupported", "family"),
        ),
        case("gemm f32 forced onto Dmma", GemmForced { family: GemmFamily::Dmma }, ("Unsupported", "family")),
        case("gemm tf32 T, N with lda 5 forced onto Wgmma", GemmTf32ForcedLda5, ("Unsupported", "family")),
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
        // gemm_ex: combinations outside the supported table, and the shared argument rules.
        case("gemm_ex f16 in, i32 out", ex(F16, I32, ComputeType::F32, F32, 4), ("Unsupported", "types")),
        case(
            "gemm_ex f16 with f64 compute",
            ex(F16, F32, ComputeType::F64, F32, 4),
            ("Unsupported", "types"),
        ),
        case(
            "gemm_ex bf16 with f64 scalars",
            ex(BF16, F32, ComputeType::F32, F64, 4),
            ("Unsupported", "types"),
        ),
        case("gemm_ex i8 in, f32 out", ex(I8, F32, ComputeType::I32, I32, 4), ("Unsupported", "types")),
        case("gemm_ex i8 with f32 compute", ex(I8, I32, ComputeType::F32, I32, 4), ("Unsupported", "types")),
        case(
            "gemm_ex f32 with i32 compute",
            ex(F32, F32, ComputeType::I32, F32, 4),
            ("Unsupported", "types"),
        ),
        case(
            "gemm_ex f64 with tf32 compute",
            ex(F64, F64, ComputeType::F32FastTf32, F64, 4),
            ("Unsupported", "types"),
        ),
        case(
            "gemm_ex f16 in, f16 out, lda < m",
            ex(F16, F16, ComputeType::F32, F32, 3),
            ("LeadingDimension", "lda"),
        ),
        case("matmul f32 in, f16 out", Matmul(MatmulMisuse::Types), ("Unsupported", "types")),
        case("matmul bias epilogue without bias", Matmul(MatmulMisuse::NoBias), ("InvalidValue", "bias")),
        case(
            "matmul bias without a bias epilogue",
            Matmul(MatmulMisuse::UnwantedBias),
            ("InvalidValue", "bias"),
        ),
        case("matmul aux epilogue without aux", Matmul(MatmulMisuse::NoAux), ("InvalidValue", "aux")),
        case("matmul ldd < m", Matmul(MatmulMisuse::Ldd), ("LeadingDimension", "ldd")),
        case(
            "matmul workspace over the limit",
            Matmul(MatmulMisuse::Workspace),
            ("WorkspaceTooSmall", "workspace"),
        ),
        case("gemm_ex i8 lda < m", ex(I8, I32, ComputeType::I32, I32, 3), ("LeadingDimension", "lda")),
        case("ger lda < m", Ger { m: 4, n: 4, incx: 1, incy: 1, lda: 3 }, ("LeadingDimension", "lda")),
        case("ger x too short", Ger { m: 33, n: 1, incx: 2, incy: 1, lda: 33 }, ("VectorTooShort", "x")),
        case("ger zero incy", Ger { m: 4, n: 4, incx: 1, incy: 0, lda: 4 }, ("ZeroIncrement", "incy")),
        case("ger A too short", Ger { m: 8, n: 9, incx: 1, incy: 1, lda: 8 }, ("MatrixTooShort", "a")),
        case("syr2 lda < n", Syr2 { n: 5, incx: 1, incy: 1, lda: 4 }, ("LeadingDimension", "lda")),
        case("syr2 y too short", Syr2 { n: 5, incx: 1, incy: -20, lda: 5 }, ("VectorTooShort", "y")),
        case("spr zero incx", Spr { n: 4, incx: 0 }, ("ZeroIncrement", "incx")),
        case(
            "gemv strided batched y entries sharing elements",
            GemvStrided { incy: 2, stride_y: 4 },
            ("InvalidValue", "stride_y"),
        ),
        case("gemv strided batched y too short", GemvStrided { incy: 1, stride_y: 40 }, ("TooShort", "y")),
        case(
            "gemm batched C entries overlapping",
            GemmBatched { c_gap: 12, entries_b: 2 },
            ("InvalidValue", "c"),
        ),
        case("gemm batched B entry count", GemmBatched { c_gap: 16, entries_b: 1 }, ("InvalidValue", "b")),
        case("spr packed triangle too short", Spr { n: 11, incx: 1 }, ("TooShort", "ap")),
        case("symv lda < n", Symv { n: 4, lda: 3, incx: 1, incy: 1 }, ("LeadingDimension", "lda")),
        case("symv lda 0 for n 0", Symv { n: 0, lda: 0, incx: 1, incy: 1 }, ("LeadingDimension", "lda")),
        Case {
            name: "symv A too short",
            call: Symv { n: 8, lda: 8, incx: 1, incy: 1 },
            sizes: (63, LEN, LEN),
            want: ("MatrixTooShort", "a"),
        },
        case("symv zero incx", Symv { n: 4, lda: 4, incx: 0, incy: 1 }, ("ZeroIncrement", "incx")),
        case("symv y too short", Symv { n: 7, lda: 7, incx: 1, incy: -11 }, ("VectorTooShort", "y")),
        case("symv empty device alpha", SymvEmptyScalar, ("TooShort", "alpha")),
        case(
            "gbmv lda < kl + ku + 1",
            Gbmv { t: false, m: 4, n: 4, kl: 2, ku: 1, lda: 3, incx: 1 },
            ("LeadingDimension", "lda"),
        ),
        case(
            "gbmv T x too short",
            Gbmv { t: true, m: 40, n: 4, kl: 1, ku: 1, lda: 3, incx: 2 },
            ("VectorTooShort", "x"),
        ),
        case(
            "gbmv band array too short",
            Gbmv { t: false, m: 4, n: 30, kl: 1, ku: 1, lda: 3, incx: 1 },
            ("MatrixTooShort", "a"),
        ),
        case(
            "gbmv kl + ku + 1 overflows",
            Gbmv { t: false, m: 4, n: 4, kl: usize::MAX, ku: 1, lda: 3, incx: 1 },
            ("SizeTooLarge", "kl + ku"),
        ),
        case("sbmv lda < k + 1", Sbmv { n: 4, k: 3, lda: 3 }, ("LeadingDimension", "lda")),
        case("spmv packed too short", Spmv { n: 11 }, ("TooShort", "ap")),
        case(
            "trmv lda < n",
            Tri { routine: "trmv", n: 4, k: 0, lda: 3, incx: 1 },
            ("LeadingDimension", "lda"),
        ),
        case(
            "trsv zero incx",
            Tri { routine: "trsv", n: 4, k: 0, lda: 4, incx: 0 },
            ("ZeroIncrement", "incx"),
        ),
        case(
            "tbmv lda < k + 1",
            Tri { routine: "tbmv", n: 4, k: 2, lda: 2, incx: 1 },
            ("LeadingDimension", "lda"),
        ),
        case(
            "tbsv x too short",
            Tri { routine: "tbsv", n: 33, k: 0, lda: 1, incx: 2 },
            ("VectorTooShort", "x"),
        ),
        case(
            "tpmv x too short",
            Tri { routine: "tpmv", n: 10, k: 0, lda: 1, incx: -8 },
            ("VectorTooShort", "x"),
        ),
        case(
            "tpsv packed too short",
            Tri { routine: "tpsv", n: 11, k: 0, lda: 1, incx: 1 },
            ("TooShort", "ap"),
        ),
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
            Tr3 { solve: false, right: false, m: 4, n: 2, lda: 4, ldb: 3 },
            ("LeadingDimension", "ldb"),
        ),
        Case {
            name: "trsm A too short",
            call: Tr3 { solve: true, right: true, m: 2, n: 8, lda: 8, ldb: 2 },
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
        BlasError::Unsupported { what } if what.contains("gemm_ex with A") => ("Unsupported", "types"),
        BlasError::Unsupported { what } if what.contains("matmul with") => ("Unsupported", "types"),
        BlasError::WorkspaceTooSmall { .. } => ("WorkspaceTooSmall", "workspace"),
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
        Call::GemmTf32ForcedLda5 => {
            h.set_math_mode(ferrocm_blas::MathMode::Tf32Allowed);
            h.set_gemm_family(Some(GemmFamily::Wgmma));
            h.gemm(Operation::T, Operation::N, 4, 4, 4, 1.0f32, &a, 5, &b, 4, 0.0f32, &mut c, 4)
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
        Call::Matmul(what) => matmul(&mut h, &a, &mut c, what),
        Call::GemmEx { a: ta, c: tc, compute, scalar, lda } => {
            gemm_ex(&h, &a, &mut c, ta, tc, compute, scalar, lda)
        }
        Call::Ger { m, n, incx, incy, lda } => h.ger(m, n, 2.0f32, &a, incx, &b, incy, &mut c, lda),
        Call::Syr2 { n, incx, incy, lda } => h.syr2(Fill::Upper, n, 2.0f32, &a, incx, &b, incy, &mut c, lda),
        Call::Spr { n, incx } => h.spr(Fill::Lower, n, 2.0f32, &a, incx, &mut c),
        Call::GemvStrided { incy, stride_y } => h.gemv_strided_batched(
            Operation::N,
            4,
            4,
            1.0f32,
            &a,
            4,
            16,
            &b,
            1,
            4,
            0.0f32,
            &mut c,
            incy,
            stride_y,
            3,
        ),
        Call::GemmBatched { c_gap, entries_b } => {
            // Two views of c's memory (the safe API cannot make overlapping writable views;
            // foreign memory can).
            let base = c.device_ptr().0;
            // SAFETY: both lie inside `c` (16 + 16 elements from at most 16 in), which outlives
            // them; nothing else uses `c` meanwhile, and the call must fail before writing.
            let mut cs = unsafe {
                [
                    ExternalBuffer::<f32>::new(s.device(), DevicePtr(base), 16),
                    ExternalBuffer::<f32>::new(s.device(), DevicePtr(base + 4 * c_gap as u64), 16),
                ]
            };
            let (av, bv) = ([a.slice(..16).unwrap(), a.slice(16..32).unwrap()], [b.slice(..16).unwrap(); 2]);
            let r = h.gemm_batched(
                Operation::N,
                Operation::N,
                4,
                4,
                4,
                1.0f32,
                &av,
                4,
                &bv[..entries_b],
                4,
                0.0f32,
                &mut cs,
                4,
            );
            drop(cs);
            r
        }
        Call::Symv { n, lda, incx, incy } => {
            h.symv(Fill::Upper, n, 1.0f32, &a, lda, &b, incx, 0.0f32, &mut c, incy)
        }
        Call::SymvEmptyScalar => {
            h.symv(Fill::Upper, 4, ScalarArg::device(&empty), &a, 4, &b, 1, 0.0f32, &mut c, 1)
        }
        Call::Gbmv { t: tr, m, n, kl, ku, lda, incx } => {
            let op = if tr { Operation::T } else { Operation::N };
            h.gbmv(op, m, n, kl, ku, 1.0f32, &a, lda, &b, incx, 0.0f32, &mut c, 1)
        }
        Call::Sbmv { n, k, lda } => h.sbmv(Fill::Lower, n, k, 1.0f32, &a, lda, &b, 1, 0.0f32, &mut c, 1),
        Call::Spmv { n } => h.spmv(Fill::Upper, n, 1.0f32, &a, &b, 1, 0.0f32, &mut c, 1),
        Call::Tri { routine, n, k, lda, incx } => {
            let (f, o, d) = (Fill::Upper, Operation::N, Diagonal::NonUnit);
            match routine {
                "trmv" => h.trmv(f, o, d, n, &a, lda, &mut c, incx),
                "tbmv" => h.tbmv(f, o, d, n, k, &a, lda, &mut c, incx),
                "tpmv" => h.tpmv(f, o, d, n, &a, &mut c, incx),
                "trsv" => h.trsv(f, o, d, n, &a, lda, &mut c, incx),
                "tbsv" => h.tbsv(f, o, d, n, k, &a, lda, &mut c, incx),
                "tpsv" => h.tpsv(f, o, d, n, &a, &mut c, incx),
                other => panic!("routine {other}"),
            }
        }
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
        Call::Tr3 { solve, right, m, n, lda, ldb } => {
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

/// `gemm_ex` on the f32 buffers viewed as the types asked for (each view holds at least the
/// 16 elements a 4 x 4 matrix spans).
#[allow(clippy::too_many_arguments)]
fn gemm_ex(
    h: &ferrocm_blas::Handle,
    a: &ferrocm_kernel::runtime::DeviceBuffer<f32>,
    c: &mut ferrocm_kernel::runtime::DeviceBuffer<f32>,
    ta: DataType,
    tc: DataType,
    compute: ComputeType,
    scalar: DataType,
    lda: usize,
) -> Result<(), BlasError> {
    use half::{bf16, f16};
    let n = Operation::N;
    macro_rules! go {
        ($a:ty, $c:ty, $s:ty) => {{
            let av = a.slice(..).unwrap().reinterpret::<$a>().unwrap();
            let mut cv = c.slice_mut(..).unwrap().reinterpret::<$c>().unwrap();
            let (one, zero) = (<$s>::default(), <$s>::default());
            h.gemm_ex(n, n, 4, 4, 4, one, &av, lda, &av, 4, zero, &mut cv, 4, compute)
        }};
    }
    use DataType::*;
    match (ta, tc, scalar) {
        (F16, I32, F32) => go!(f16, i32, f32),
        (F16, F32, F32) => go!(f16, f32, f32),
        (F16, F16, F32) => go!(f16, f16, f32),
        (BF16, F32, F64) => go!(bf16, f32, f64),
        (I8, F32, I32) => go!(i8, f32, i32),
        (I8, I32, I32) => go!(i8, i32, i32),
        (F32, F32, F32) => go!(f32, f32, f32),
        (F64, F64, F64) => go!(f64, f64, f64),
        other => panic!("no misuse call for {other:?}"),
    }
}

/// A `4 x 4 x 4` matmul on the f32 buffers (A and B viewed as f16) with `what` wrong.
fn matmul(
    h: &mut ferrocm_blas::Handle,
    a: &ferrocm_kernel::runtime::DeviceBuffer<f32>,
    c: &mut ferrocm_kernel::runtime::DeviceBuffer<f32>,
    what: MatmulMisuse,
) -> Result<(), BlasError> {
    use ferrocm_blas::{Epilogue, MatmulAlgo, MatmulDesc, MatmulType};
    use half::f16;
    use MatmulMisuse::*;
    let n = Operation::N;
    let input = if matches!(what, Types) { MatmulType::F32 } else { MatmulType::F16 };
    let output = if matches!(what, Types) { MatmulType::F16 } else { MatmulType::F32 };
    let epilogue = match what {
        NoBias => Epilogue::ReluBias,
        NoAux => Epilogue::GeluAux,
        Workspace => Epilogue::Relu,
        _ => Epilogue::Default,
    };
    let mut desc = MatmulDesc::new(n, n, 4, 4, 4, input, output).with_epilogue(epilogue);
    if matches!(what, Ldd) {
        desc = desc.with_leading_dims(4, 4, 3);
    }
    // The handle's first offer (any family: the misuse is not the algorithm's).
    let algo = h
        .matmul_algorithms(&MatmulDesc::new(n, n, 4, 4, 4, MatmulType::F16, MatmulType::F32), u64::MAX)
        .first()
        .copied()
        .unwrap_or(MatmulAlgo { family: GemmFamily::Simt, workspace_bytes: 0 });
    if matches!(what, Workspace) {
        h.set_workspace_limit(Some(63));
    }
    let bias = a.slice(0..8).unwrap();
    let av = a.slice(..).unwrap().reinterpret::<f16>().unwrap();
    let mut d = c.slice_mut(..).unwrap();
    let with_bias = matches!(what, UnwantedBias) || epilogue.has_bias();
    let bias = if with_bias && !matches!(what, NoBias) { Some(bias) } else { None };
    if matches!(what, Types) {
        let af = a.slice(..).unwrap();
        let mut dh = d.reinterpret::<f16>().unwrap();
        return h.matmul::<f32, f16, f32>(&desc, &algo, 1.0, &af, &af, 0.0, &mut dh, None, None);
    }
    h.matmul::<f16, f32, f32>(&desc, &algo, 1.0, &av, &av, 0.0, &mut d, bias, None)
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
