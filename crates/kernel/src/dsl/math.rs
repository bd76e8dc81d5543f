//! Math on runtime values, and integer and bit intrinsics.

use super::*;

impl<T: Num> Val<T> {
    pub fn min(self, o: impl IntoVal<T>) -> Val<T> {
        let o = o.into_val();
        Val::from_ir(b(|b| b.binary(BinaryOp::Min, self.v, o.v)))
    }
    pub fn max(self, o: impl IntoVal<T>) -> Val<T> {
        let o = o.into_val();
        Val::from_ir(b(|b| b.binary(BinaryOp::Max, self.v, o.v)))
    }
}
impl<T: Signed> Val<T> {
    pub fn abs(self) -> Val<T> {
        Val::from_ir(b(|b| b.unary(UnaryOp::Abs, self.v)))
    }
}

macro_rules! unary_math {
    ($($(#[$m:meta])* $name:ident => $op:ident;)*) => {
        impl<T: Float> Val<T> {
            $($(#[$m])* pub fn $name(self) -> Val<T> {
                Val::from_ir(b(|b| b.unary(UnaryOp::$op, self.v)))
            })*
        }
    };
}
unary_math! {
    /// Square root, correctly rounded.
    sqrt => Sqrt;
    /// Square root with a relative error of about 2^-22: on NVIDIA, f32: `sqrt.approx.ftz.f32`
    /// (one special-function instruction instead of the correctly rounded sequence; inputs
    /// below 2^-126 count as zero), f64: correctly rounded. Exact on the CPU executor.
    sqrt_approx => SqrtApprox;
    /// `1 / sqrt(x)` (a correctly rounded square root, then a correctly rounded reciprocal).
    rsqrt => Rsqrt;
    /// `e^x`; on NVIDIA, f32: `ex2.approx` of `x * log2(e)` (relative error about 1e-6 for
    /// |x| < 10), f64: an f64 reduction and polynomial (relative error below 1e-15).
    exp => Exp;
    /// `2^x`; on NVIDIA `ex2.approx` (about 2 ulp).
    exp2 => Exp2;
    /// Natural logarithm; on NVIDIA, f32: `lg2.approx` times `ln 2` (absolute error about 1e-7),
    /// f64: an f64 reduction and polynomial (relative error below 1e-15).
    ln => Log;
    /// Base-2 logarithm; on NVIDIA `lg2.approx`.
    log2 => Log2;
    /// Sine; on NVIDIA, f32: `sin.approx` (absolute error about 1e-6 for |x| < 100), f64: an
    /// f64 reduction by pi/2 and polynomial (relative error below 1e-15 for |x| < 1e5).
    sin => Sin;
    /// Cosine; on NVIDIA, f32: `cos.approx`, f64: as `sin`.
    cos => Cos;
    /// Hyperbolic tangent; on NVIDIA `tanh.approx` (relative error about 5e-4).
    tanh => Tanh;
    floor => Floor;
    ceil => Ceil;
}

impl<T: Float> Val<T> {
    /// Natural logarithm (alias of [`Val::ln`]).
    pub fn log(self) -> Val<T> {
        self.ln()
    }
    /// `x^y`, as `exp2(y * log2(x))` on NVIDIA (defined for x > 0).
    pub fn powf(self, y: impl IntoVal<T>) -> Val<T> {
        let y = y.into_val();
        Val::from_ir(b(|b| b.binary(BinaryOp::Pow, self.v, y.v)))
    }
    /// `self * a + c` with a single rounding.
    pub fn mul_add(self, a: impl IntoVal<T>, c: impl IntoVal<T>) -> Val<T> {
        let (a, c) = (a.into_val(), c.into_val());
        Val::from_ir(b(|b| b.fma(self.v, a.v, c.v)))
    }
    /// The error function, by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7 plus the
    /// error of `exp`), the same formula on every back end.
    pub fn erf(self) -> Val<T> {
        let x32: Val<f32> = cast::<f32, _>(self);
        let ax = x32.abs();
        let t = 1.0f32 / (ax * 0.327_591_1f32 + 1.0f32);
        let poly = t
            * (t * (t * (t * (t * 1.061_405_4f32 + -1.453_152_1f32) + 1.421_413_7f32) + -0.284_496_72f32)
                + 0.254_829_6f32);
        let e = (-(ax * ax)).exp();
        let y = 1.0f32 - poly * e;
        let neg = x32.dsl_cmp(CmpOp::Lt, 0.0f32);
        let r = select(neg, -y, y);
        cast::<T, _>(r)
    }
}

/// 32- and 64-bit integer element types: [`Val::mul_hi`] and the bit counts.
pub trait Word: Int {}
impl Word for i32 {}
impl Word for u32 {}
impl Word for i64 {}
impl Word for u64 {}
impl Word for isize {}
impl Word for usize {}

/// 32-bit integer element types and the type of their full product ([`Val::mul_wide`]).
pub trait Widen: Word {
    type Wide: Int;
}
impl Widen for u32 {
    type Wide = u64;
}
impl Widen for i32 {
    type Wide = i64;
}

impl<T: Word> Val<T> {
    /// The high half of the full product `self * o` (PTX `mul.hi`); with [`Val::mul_wide`] or
    /// `*` (the low half) it gives the whole product.
    pub fn mul_hi(self, o: impl IntoVal<T>) -> Val<T> {
        let o = o.into_val();
        Val::from_ir(b(|b| b.binary(BinaryOp::MulHi, self.v, o.v)))
    }
    /// Number of leading zero bits; the width for 0 (PTX `clz`).
    pub fn leading_zeros(self) -> Val<u32> {
        Val::from_ir(b(|b| b.unary(UnaryOp::LeadingZeros, self.v)))
    }
    /// Number of trailing zero bits; the width for 0 (PTX `brev` then `clz`).
    pub fn trailing_zeros(self) -> Val<u32> {
        Val::from_ir(b(|b| b.unary(UnaryOp::TrailingZeros, self.v)))
    }
    /// Number of one bits (PTX `popc`).
    pub fn count_ones(self) -> Val<u32> {
        Val::from_ir(b(|b| b.unary(UnaryOp::CountOnes, self.v)))
    }
    /// The bits in reverse order (PTX `brev`).
    pub fn reverse_bits(self) -> Val<T> {
        Val::from_ir(b(|b| b.unary(UnaryOp::ReverseBits, self.v)))
    }
}

impl<T: Widen> Val<T> {
    /// The full product: `u32 x u32 -> u64`, `i32 x i32 -> i64` (PTX `mul.wide`).
    pub fn mul_wide(self, o: impl IntoVal<T>) -> Val<T::Wide> {
        let o = o.into_val();
        Val::from_ir(b(|b| b.binary(BinaryOp::MulWide, self.v, o.v)))
    }
}

/// Float element types and the unsigned integer type of their size (their bit pattern).
pub trait FloatBits: Float {
    type Bits: Int;
}
impl FloatBits for f16 {
    type Bits = u16;
}
impl FloatBits for bf16 {
    type Bits = u16;
}
impl FloatBits for f32 {
    type Bits = u32;
}
impl FloatBits for f64 {
    type Bits = u64;
}

impl<T: FloatBits> Val<T> {
    /// The value's bit pattern (as Rust's `f32::to_bits`; a register move, no conversion).
    pub fn to_bits(self) -> Val<T::Bits> {
        Val::from_ir(b(|b| b.bitcast(self.v, <T::Bits as Elem>::TY)))
    }
    /// The float with bit pattern `bits` (as Rust's `f32::from_bits`).
    pub fn from_bits(bits: impl IntoVal<T::Bits>) -> Val<T> {
        let bits = bits.into_val();
        Val::from_ir(b(|b| b.bitcast(bits.v, T::TY)))
    }
}

/// `f32::from_bits(x)` and the like in a kernel body (the macro rewrites those calls to
/// [`from_bits`]): a plain integer gives a plain float, a runtime integer a runtime float.
pub trait FromBits<F> {
    type Out;
    fn float_with_bits(self) -> Self::Out;
}
macro_rules! from_bits_plain {
    ($($f:ty => $u:ty),*) => {$(
        impl FromBits<$f> for $u {
            type Out = $f;
            fn float_with_bits(self) -> $f {
                <$f>::from_bits(self)
            }
        }
    )*};
}
from_bits_plain!(f16 => u16, bf16 => u16, f32 => u32, f64 => u64);
impl<F: FloatBits> FromBits<F> for Val<F::Bits> {
    type Out = Val<F>;
    fn float_with_bits(self) -> Val<F> {
        Val::<F>::from_bits(self)
    }
}

/// `F::from_bits(bits)`: the float `F` with that bit pattern.
pub fn from_bits<F, B: FromBits<F>>(bits: B) -> B::Out {
    bits.float_with_bits()
}
/// `f32::from_bits` for a runtime `u32`.
pub fn f32_from_bits(bits: impl IntoVal<u32>) -> Val<f32> {
    Val::<f32>::from_bits(bits)
}
/// `f64::from_bits` for a runtime `u64`.
pub fn f64_from_bits(bits: impl IntoVal<u64>) -> Val<f64> {
    Val::<f64>::from_bits(bits)
}
/// `f16::from_bits` for a runtime `u16`.
pub fn f16_from_bits(bits: impl IntoVal<u16>) -> Val<f16> {
    Val::<f16>::from_bits(bits)
}
/// `bf16::from_bits` for a runtime `u16`.
pub fn bf16_from_bits(bits: impl IntoVal<u16>) -> Val<bf16> {
    Val::<bf16>::from_bits(bits)
}
