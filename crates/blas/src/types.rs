//! The vocabulary of BLAS: element types, operations, triangles, sides, math modes and the
//! scalars a routine takes (a host value or one element of device memory).

use std::fmt::Debug;
use std::ops::{Add, AddAssign, Mul, Neg, Sub};

use ferrocm_kernel::runtime::{AsDeviceSlice, DeviceRepr, DeviceSlice};
use half::{bf16, f16};
use num_complex::Complex;

/// Single-precision complex (`rocblas_float_complex`).
pub type C32 = Complex<f32>;
/// Double-precision complex (`rocblas_double_complex`).
pub type C64 = Complex<f64>;

/// `op(A)`: how a matrix argument is read (`rocblas_operation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operation {
    /// `A` as stored.
    N,
    /// `A^T`.
    T,
    /// `A^H`, the conjugate transpose (the same as `T` for real types).
    C,
}

impl Operation {
    /// The letter BLAS uses (`'N'`, `'T'`, `'C'`).
    pub fn letter(self) -> char {
        match self {
            Operation::N => 'N',
            Operation::T => 'T',
            Operation::C => 'C',
        }
    }

    /// Whether the matrix is read transposed (`T` or `C`).
    pub fn is_trans(self) -> bool {
        self != Operation::N
    }

    /// The kernels' compile-time code: 0 for `N`, 1 for `T`, 2 for `C`.
    pub(crate) fn code(self) -> u32 {
        match self {
            Operation::N => 0,
            Operation::T => 1,
            Operation::C => 2,
        }
    }
}

/// Which triangle of a symmetric, Hermitian or triangular matrix is stored (`rocblas_fill`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fill {
    /// The upper triangle (`i <= j`).
    Upper,
    /// The lower triangle (`i >= j`).
    Lower,
}

/// Whether a triangular matrix has an implicit unit diagonal (`rocblas_diagonal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Diagonal {
    /// The diagonal is read from memory.
    NonUnit,
    /// The diagonal is taken as ones and never read.
    Unit,
}

/// Which side a symmetric or triangular matrix multiplies from (`rocblas_side`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// `op(A) * B`.
    Left,
    /// `B * op(A)`.
    Right,
}

/// What precision a routine may trade for speed (`rocblas_math_mode` and cuBLAS's math modes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MathMode {
    /// Full precision of the types asked for.
    #[default]
    Default,
    /// f32 GEMMs may cut their inputs to TF32 (10-bit mantissa) on tensor cores (cuBLAS's
    /// `CUBLAS_TF32_TENSOR_OP_MATH`): `gemm`/`gemm_strided_batched` on f32 and `gemm_ex` with
    /// f32 compute behave as `gemm_ex` with [`ComputeType::F32FastTf32`].
    Tf32Allowed,
    /// No reduced-precision shortcuts anywhere, and every routine takes its most careful
    /// kernel family (the SIMT kernels for f32 GEMM even where `gemm_ex` asked for TF32).
    Pedantic,
}

/// Which code computes a routine on the handle's device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Engine {
    /// The fastest for the device: kernel-language kernels on GPUs, the native CPU BLAS
    /// (the `gemm` crate for Level 3, Rust loops for Level 1 and 2) on the CPU device.
    #[default]
    Auto,
    /// The kernel-language kernels on every device (on the CPU device, the CPU executor runs
    /// them: how the GPU kernels are tested without a GPU).
    Kernels,
}

/// Element types (rocBLAS's `rocblas_datatype` names in [`DataType::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DataType {
    /// `f16_r`
    F16,
    /// `bf16_r`
    BF16,
    /// `f32_r`
    F32,
    /// `f64_r`
    F64,
    /// `f32_c`
    C32,
    /// `f64_c`
    C64,
    /// `i8_r`
    I8,
    /// `i32_r`
    I32,
}

impl DataType {
    /// rocBLAS's name (`f32_r`, `bf16_r`, `f64_c`, ...), as `rocblas-bench` takes it.
    pub fn name(self) -> &'static str {
        match self {
            DataType::F16 => "f16_r",
            DataType::BF16 => "bf16_r",
            DataType::F32 => "f32_r",
            DataType::F64 => "f64_r",
            DataType::C32 => "f32_c",
            DataType::C64 => "f64_c",
            DataType::I8 => "i8_r",
            DataType::I32 => "i32_r",
        }
    }

    /// The type with rocBLAS's name `name`.
    pub fn from_name(name: &str) -> Option<DataType> {
        [
            DataType::F16,
            DataType::BF16,
            DataType::F32,
            DataType::F64,
            DataType::C32,
            DataType::C64,
            DataType::I8,
            DataType::I32,
        ]
        .into_iter()
        .find(|t| t.name() == name)
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DataType::I8 => 1,
            DataType::F16 | DataType::BF16 => 2,
            DataType::F32 | DataType::I32 => 4,
            DataType::F64 | DataType::C32 => 8,
            DataType::C64 => 16,
        }
    }
}

/// The type arithmetic is done in by `gemm_ex` (`rocblas_computetype`, cuBLAS's
/// `cublasComputeType_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ComputeType {
    /// f32 arithmetic.
    F32,
    /// f32 with inputs cut to TF32 (cuBLAS's `CUBLAS_COMPUTE_32F_FAST_TF32`; see
    /// [`crate::gemm_ex`] for where it applies).
    F32FastTf32,
    /// f64 arithmetic.
    F64,
    /// Exact 32-bit integer arithmetic.
    I32,
}

impl ComputeType {
    /// The name `ferrocm bench blas --compute_type` takes (`f32_r`, `f64_r`, `i32_r`,
    /// `tf32_r`).
    pub fn name(self) -> &'static str {
        match self {
            ComputeType::F32 => "f32_r",
            ComputeType::F32FastTf32 => "tf32_r",
            ComputeType::F64 => "f64_r",
            ComputeType::I32 => "i32_r",
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// The four BLAS element types, `s`, `d`, `c` and `z`: `f32`, `f64`, [`C32`], [`C64`]. Sealed.
pub trait Scalar:
    DeviceRepr
    + Copy
    + Debug
    + PartialEq
    + Default
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + sealed::Sealed
{
    /// The real type of the components (`f32` for [`C32`]).
    type Real: RealScalar;
    /// The element type's name.
    const TYPE: DataType;
    /// Whether the type is complex.
    const COMPLEX: bool;
    /// 0.
    fn zero() -> Self;
    /// 1.
    fn one() -> Self;
    /// The value of `(re, im)` (the imaginary part is dropped for real types).
    fn from_parts(re: Self::Real, im: Self::Real) -> Self;
    /// `(re, im)` (`im` is 0 for real types).
    fn parts(self) -> (Self::Real, Self::Real);
    /// The complex conjugate (the value itself for real types).
    fn conj(self) -> Self;
    /// The real number `x` as this type.
    fn from_real(x: Self::Real) -> Self {
        Self::from_parts(x, <Self::Real as Scalar>::zero())
    }
    /// `|re| + |im|` (BLAS's `asum` and `iamax` measure).
    fn abs1(self) -> Self::Real {
        let (re, im) = self.parts();
        re.abs() + im.abs()
    }
    /// `self * x` for a real `x`.
    fn scale(self, x: Self::Real) -> Self {
        let (re, im) = self.parts();
        Self::from_parts(re * x, im * x)
    }
    /// Whether the value is exactly 0 (+0 or -0 in both parts).
    fn is_zero(self) -> bool {
        self == Self::zero()
    }
    /// Whether the value is exactly 1.
    fn is_one(self) -> bool {
        self == Self::one()
    }
}

/// The real BLAS types, `f32` and `f64`.
pub trait RealScalar:
    Scalar<Real = Self>
    + PartialOrd
    + ferrocm_kernel::dsl::Float
    + ferrocm_kernel::dsl::Signed
    + ferrocm_kernel::dsl::Elem<Repr = Self>
{
    /// `|x|`.
    fn abs(self) -> Self;
    /// The square root.
    fn sqrt(self) -> Self;
    /// The value as f64 (exact).
    fn to_f64(self) -> f64;
    /// `x` rounded to this type.
    fn from_f64(x: f64) -> Self;
    /// Whether the value is NaN.
    fn is_nan(self) -> bool;
    /// The unit roundoff (half the machine epsilon).
    const UNIT_ROUNDOFF: f64;
}

macro_rules! real {
    ($t:ty, $ty:ident) => {
        impl sealed::Sealed for $t {}
        impl Scalar for $t {
            type Real = $t;
            const TYPE: DataType = DataType::$ty;
            const COMPLEX: bool = false;
            fn zero() -> $t {
                0.0
            }
            fn one() -> $t {
                1.0
            }
            fn from_parts(re: $t, _im: $t) -> $t {
                re
            }
            fn parts(self) -> ($t, $t) {
                (self, 0.0)
            }
            fn conj(self) -> $t {
                self
            }
        }
        impl RealScalar for $t {
            fn abs(self) -> $t {
                <$t>::abs(self)
            }
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(x: f64) -> $t {
                x as $t
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            const UNIT_ROUNDOFF: f64 = <$t>::EPSILON as f64 / 2.0;
        }
    };
}
real!(f32, F32);
real!(f64, F64);

macro_rules! complex {
    ($r:ty, $ty:ident) => {
        impl sealed::Sealed for Complex<$r> {}
        impl Scalar for Complex<$r> {
            type Real = $r;
            const TYPE: DataType = DataType::$ty;
            const COMPLEX: bool = true;
            fn zero() -> Self {
                Complex::new(0.0, 0.0)
            }
            fn one() -> Self {
                Complex::new(1.0, 0.0)
            }
            fn from_parts(re: $r, im: $r) -> Self {
                Complex::new(re, im)
            }
            fn parts(self) -> ($r, $r) {
                (self.re, self.im)
            }
            fn conj(self) -> Self {
                Complex::new(self.re, -self.im)
            }
        }
    };
}
complex!(f32, C32);
complex!(f64, C64);

/// The half-precision types GEMM also takes (`h` and `bf16` GEMM, `gemm_ex` inputs): `f16` and
/// `bf16`. Sealed.
pub trait HalfScalar: DeviceRepr + Copy + Debug + Default + sealed::Sealed {
    /// The element type.
    const TYPE: DataType;
    /// The value as f32 (exact).
    fn to_f32(self) -> f32;
    /// `x` rounded to nearest even.
    fn from_f32(x: f32) -> Self;
}
impl sealed::Sealed for f16 {}
impl HalfScalar for f16 {
    const TYPE: DataType = DataType::F16;
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    fn from_f32(x: f32) -> f16 {
        f16::from_f32(x)
    }
}
impl sealed::Sealed for bf16 {}
impl HalfScalar for bf16 {
    const TYPE: DataType = DataType::BF16;
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
    fn from_f32(x: f32) -> bf16 {
        bf16::from_f32(x)
    }
}

/// A scalar argument (`alpha`, `beta`, rotation parameters): a host value, or the first
/// element of a device view read when the routine runs (rocBLAS's pointer mode, chosen per
/// argument by its type). A device scalar lets a routine run without the host knowing the
/// value, so it queues without synchronizing.
#[derive(Clone, Copy)]
pub enum ScalarArg<'a, T: DeviceRepr> {
    /// A value known on the host (`rocblas_pointer_mode_host`).
    Host(T),
    /// The first element of device memory (`rocblas_pointer_mode_device`).
    Device(DeviceSlice<'a, T>),
}

impl<T: DeviceRepr + Debug> Debug for ScalarArg<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScalarArg::Host(v) => write!(f, "Host({v:?})"),
            ScalarArg::Device(s) => write!(f, "Device({:#x})", s.device_ptr().0),
        }
    }
}

impl<T: DeviceRepr> From<T> for ScalarArg<'_, T> {
    fn from(v: T) -> Self {
        ScalarArg::Host(v)
    }
}

impl<'a, T: DeviceRepr> ScalarArg<'a, T> {
    /// The first element of `view`, read on the device when the routine runs.
    pub fn device(view: &'a impl AsDeviceSlice<T>) -> ScalarArg<'a, T> {
        ScalarArg::Device(view.as_device_slice())
    }

    /// The host value, if known.
    pub fn host(&self) -> Option<T> {
        match self {
            ScalarArg::Host(v) => Some(*v),
            ScalarArg::Device(_) => None,
        }
    }
}
