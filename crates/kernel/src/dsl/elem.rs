//! Element types: the scalar types a kernel computes with.

use super::*;

/// A scalar type a kernel can compute with.
pub trait Elem: Copy + Send + Sync + 'static + std::fmt::Debug {
    const TY: ScalarType;
    /// How the type is held in device memory and passed to a launch (`bool` as `u8`).
    type Repr: ferrocm_runtime::DeviceRepr;
    /// The value's bits, zero-extended.
    fn to_bits(self) -> u64;
    fn to_repr(self) -> Self::Repr;
}

/// Element types with arithmetic (`+ - * / %`, `min`, `max`).
pub trait Num: Elem {}
/// Integer element types (bitwise operators, shifts).
pub trait Int: Num {}
/// Floating-point element types (math functions).
pub trait Float: Num {}
/// Element types with a sign (`-x`, `abs`).
pub trait Signed: Num {}

macro_rules! elem {
    ($t:ty, $s:ident, $bits:expr $(, $tr:ident)*) => {
        elem!(@repr $t, $t, $s, $bits $(, $tr)*);
    };
    (@repr $t:ty, $r:ty, $s:ident, $bits:expr $(, $tr:ident)*) => {
        impl Elem for $t {
            const TY: ScalarType = ScalarType::$s;
            type Repr = $r;
            #[allow(clippy::redundant_closure_call)]
            fn to_bits(self) -> u64 {
                ($bits)(self)
            }
            #[allow(clippy::unnecessary_cast)]
            fn to_repr(self) -> $r {
                self as $r
            }
        }
        $(impl $tr for $t {})*
    };
}
elem!(@repr bool, u8, Bool, |x: bool| x as u64);
elem!(i8, I8, |x: i8| x as u8 as u64, Num, Int, Signed);
elem!(i16, I16, |x: i16| x as u16 as u64, Num, Int, Signed);
elem!(i32, I32, |x: i32| x as u32 as u64, Num, Int, Signed);
elem!(i64, I64, |x: i64| x as u64, Num, Int, Signed);
elem!(isize, I64, |x: isize| x as u64, Num, Int, Signed);
elem!(u8, U8, |x: u8| x as u64, Num, Int);
elem!(u16, U16, |x: u16| x as u64, Num, Int);
elem!(u32, U32, |x: u32| x as u64, Num, Int);
elem!(u64, U64, |x: u64| x, Num, Int);
elem!(usize, U64, |x: usize| x as u64, Num, Int);
elem!(f16, F16, |x: f16| x.to_bits() as u64, Num, Float, Signed);
elem!(bf16, BF16, |x: bf16| x.to_bits() as u64, Num, Float, Signed);
elem!(f32, F32, |x: f32| x.to_bits() as u64, Num, Float, Signed);
elem!(f64, F64, |x: f64| x.to_bits(), Num, Float, Signed);
