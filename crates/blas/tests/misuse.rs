//! Misuse, as data: each case is a call with one bad argument that must fail with the stated
//! error kind (naming the stated argument) and leave the poisoned output exactly as it was, on
//! every device and engine.

mod common;

use common::{targets, Target};
use ferrocm_blas::{BlasError, ComputeType, DataType, GemmFamily, Operation, ScalarArg};

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
