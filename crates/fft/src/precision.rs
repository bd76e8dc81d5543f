//! The element precisions a plan computes in.

use ferrocm_kernel::dsl::{Elem, Float, Signed};
use ferrocm_kernel::runtime::DeviceRepr;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A real element type of a transform: `f32` (cuFFT's C2C/R2C/C2R) or `f64` (Z2Z/D2Z/Z2D).
pub trait FftFloat:
    Float + Signed + Elem<Repr = Self> + DeviceRepr + rustfft::FftNum + sealed::Sealed
{
    /// `"f32"` or `"f64"`.
    const NAME: &'static str;
    /// The nearest value to `x`.
    fn lit(x: f64) -> Self;
    /// The value as an `f64` (exact).
    fn as_f64(self) -> f64;
}

impl FftFloat for f32 {
    const NAME: &'static str = "f32";
    fn lit(x: f64) -> f32 {
        x as f32
    }
    fn as_f64(self) -> f64 {
        self as f64
    }
}

impl FftFloat for f64 {
    const NAME: &'static str = "f64";
    fn lit(x: f64) -> f64 {
        x
    }
    fn as_f64(self) -> f64 {
        self
    }
}
