//! 8-bit floating-point element types for GEMM inputs: [`E4M3`] and [`E5M2`] (the OCP FP8
//! formats NVIDIA's `wgmma` reads, `float8_e4m3fn` and `float8_e5m2` in PyTorch).
//!
//! Both hold the byte as stored on the device. Conversion to `f32` is exact. Conversion from
//! `f32` rounds to nearest, ties to even, and saturates: finite values past the largest one and
//! infinities become the largest finite value of their sign (PTX `cvt.rn.satfinite`); NaN stays
//! NaN.

use ferrocm_kernel::runtime::{DeviceRepr, TensorMapElement};

/// The shape of a minifloat format: exponent and mantissa bits and how the top exponent is used.
struct Format {
    exp_bits: u32,
    man_bits: u32,
    /// Infinities and NaNs take the whole top exponent (IEEE, e5m2); otherwise only the all-ones
    /// code is NaN (e4m3 "fn": finite, NaN-only).
    ieee_top: bool,
}

impl Format {
    const fn bias(&self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    /// The magnitude code (7 bits) of the largest finite value.
    const fn max_code(&self) -> u8 {
        if self.ieee_top {
            (((1u32 << self.exp_bits) - 2) << self.man_bits | ((1 << self.man_bits) - 1)) as u8
        } else {
            0x7e
        }
    }

    fn decode(&self, bits: u8) -> f32 {
        let sign = if bits & 0x80 != 0 { -1.0f32 } else { 1.0 };
        let mag = bits & 0x7f;
        let e = (mag >> self.man_bits) as i32;
        let m = (mag & ((1 << self.man_bits) - 1)) as f32;
        let top = (1 << self.exp_bits) - 1;
        if mag > self.max_code() {
            return if self.ieee_top && m == 0.0 { sign * f32::INFINITY } else { f32::NAN };
        }
        debug_assert!(e <= top);
        let scale = (1u32 << self.man_bits) as f32;
        // Every value is a small integer times a power of two: exact in f32.
        if e == 0 {
            sign * m * exp2(1 - self.bias() - self.man_bits as i32)
        } else {
            sign * (scale + m) * exp2(e - self.bias() - self.man_bits as i32)
        }
    }

    fn encode(&self, x: f32) -> u8 {
        let sign = if x.is_sign_negative() { 0x80u8 } else { 0 };
        if x.is_nan() {
            return 0x7f | sign;
        }
        let max = self.decode(self.max_code()) as f64;
        let a = (x.abs() as f64).min(max * 2.0);
        // The spacing of representable values around `a`: that of the binade of `a`, or of the
        // subnormals below the smallest normal.
        let min_exp = 1 - self.bias();
        let e = if a == 0.0 { min_exp } else { ((a.to_bits() >> 52) as i32 - 1023).max(min_exp) };
        let ulp = 2f64.powi(e - self.man_bits as i32);
        // `a / ulp` is exact (a power of two), and so is the rounded value times `ulp`.
        let value = (a / ulp).round_ties_even() * ulp;
        if value >= max {
            return self.max_code() | sign;
        }
        let mag = if value < 2f64.powi(min_exp) {
            (value / 2f64.powi(min_exp - self.man_bits as i32)) as u32
        } else {
            // Rounding may have carried into the next binade: read the exponent again.
            let e = (value.to_bits() >> 52) as i32 - 1023;
            let m = value / 2f64.powi(e - self.man_bits as i32) - (1u32 << self.man_bits) as f64;
            (((e + self.bias()) as u32) << self.man_bits) | m as u32
        };
        mag as u8 | sign
    }
}

fn exp2(e: i32) -> f32 {
    2f32.powi(e)
}

const E4M3_FORMAT: Format = Format { exp_bits: 4, man_bits: 3, ieee_top: false };
const E5M2_FORMAT: Format = Format { exp_bits: 5, man_bits: 2, ieee_top: true };

macro_rules! fp8_type {
    ($(#[$doc:meta])* $name:ident, $format:expr, $max:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        #[repr(transparent)]
        pub struct $name(pub u8);

        impl $name {
            /// The largest finite value.
            pub const MAX: $name = $name($format.max_code());
            /// The largest finite value, as `f32`.
            pub const MAX_F32: f32 = $max;
            /// A NaN.
            pub const NAN: $name = $name(0x7f);

            /// The value with these bits.
            pub const fn from_bits(bits: u8) -> $name {
                $name(bits)
            }

            /// The bits as stored.
            pub const fn to_bits(self) -> u8 {
                self.0
            }

            /// `x` rounded to nearest (ties to even), saturating to `+-MAX` (see the module docs).
            pub fn from_f32(x: f32) -> $name {
                $name($format.encode(x))
            }

            /// `x` rounded once from f64 through f32 (exact for every value this type holds).
            pub fn from_f64(x: f64) -> $name {
                $name::from_f32(x as f32)
            }

            /// The exact value.
            pub fn to_f32(self) -> f32 {
                $format.decode(self.0)
            }

            /// The exact value.
            pub fn to_f64(self) -> f64 {
                self.to_f32() as f64
            }

            /// Whether the value is NaN.
            pub fn is_nan(self) -> bool {
                self.to_f32().is_nan()
            }
        }

        // SAFETY: `#[repr(transparent)]` over `u8`: no padding, every bit pattern is a value.
        unsafe impl DeviceRepr for $name {}

        impl TensorMapElement for $name {
            // TMA only moves the bytes; `wgmma` interprets them.
            const DATA_TYPE: ferrocm_kernel::tensor_map::TensorMapDataType =
                ferrocm_kernel::tensor_map::TensorMapDataType::U8;
        }
    };
}

fp8_type!(
    /// An e4m3 float (`float8_e4m3fn`): 1 sign, 4 exponent bits (bias 7), 3 mantissa bits, no
    /// infinities, NaN `0x7f`/`0xff`; finite values up to 448, the smallest subnormal 2^-9.
    E4M3,
    E4M3_FORMAT,
    448.0
);

fp8_type!(
    /// An e5m2 float (`float8_e5m2`): 1 sign, 5 exponent bits (bias 15), 2 mantissa bits, IEEE
    /// infinities and NaNs (the top byte of an f16); finite values up to 57344.
    E5M2,
    E5M2_FORMAT,
    57344.0
);

#[cfg(test)]
mod tests {
    use super::*;

    /// e4m3 from its fields by the OCP spec's formula, in f64 (a second decoder).
    fn e4m3_spec(code: u8) -> f64 {
        let s = if code >> 7 == 1 { -1.0 } else { 1.0 };
        let (e, m) = (((code >> 3) & 15) as i32, (code & 7) as f64);
        match (e, code & 7) {
            (15, 7) => f64::NAN,
            (0, _) => s * 2f64.powi(-6) * (m / 8.0),
            _ => s * 2f64.powi(e - 7) * (1.0 + m / 8.0),
        }
    }

    /// e5m2 is the top byte of an IEEE half.
    fn e5m2_spec(code: u8) -> f64 {
        half::f16::from_bits((code as u16) << 8).to_f64()
    }

    fn same(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
    }

    #[test]
    fn every_code_decodes_as_the_spec_says() {
        for code in 0..=255u8 {
            let (a, b) = (E4M3(code).to_f64(), e4m3_spec(code));
            assert!(same(a, b), "e4m3 {code:#04x}: {a} != {b}");
            let (a, b) = (E5M2(code).to_f64(), e5m2_spec(code));
            assert!(same(a, b), "e5m2 {code:#04x}: {a} != {b}");
        }
        assert_eq!(E4M3::MAX.to_f32(), E4M3::MAX_F32);
        assert_eq!(E5M2::MAX.to_f32(), E5M2::MAX_F32);
        assert_eq!(E4M3(1).to_f32(), 2f32.powi(-9));
        assert_eq!(E5M2(1).to_f32(), 2f32.powi(-16));
        assert!(E4M3::NAN.is_nan() && E5M2::NAN.is_nan());
    }

    #[test]
    fn every_code_round_trips() {
        for code in 0..=255u8 {
            let x = E4M3(code);
            let back = E4M3::from_f32(x.to_f32());
            assert!(if x.is_nan() { back.is_nan() } else { back == x }, "e4m3 {code:#04x} -> {back:?}");
            let x = E5M2(code);
            let back = E5M2::from_f32(x.to_f32());
            let want = if x.to_f32().is_infinite() { E5M2(E5M2::MAX.0 | (code & 0x80)) } else { x };
            assert!(if x.is_nan() { back.is_nan() } else { back == want }, "e5m2 {code:#04x} -> {back:?}");
        }
    }

    /// The nearest finite code to `x` by search over every magnitude code (ties to the even
    /// code; infinities and values past the range to the largest), then the sign bit: the
    /// reference for the arithmetic encoder.
    fn nearest(decode: impl Fn(u8) -> f64, x: f32) -> Option<u8> {
        if x.is_nan() {
            return None;
        }
        let sign = if x.is_sign_negative() { 0x80 } else { 0 };
        let a = (x as f64).abs();
        let largest =
            (0..=0x7fu8).filter(|&c| decode(c).is_finite()).max_by(|&p, &q| decode(p).total_cmp(&decode(q)));
        if a >= decode(largest.unwrap()) {
            return largest.map(|c| c | sign);
        }
        let mut best: Option<(u8, f64)> = None;
        for code in 0..=0x7fu8 {
            let v = decode(code);
            if !v.is_finite() {
                continue;
            }
            let d = (v - a).abs();
            best = match best {
                Some((c, bd)) if bd < d || (bd == d && c & 1 == 0) => Some((c, bd)),
                _ => Some((code, d)),
            };
        }
        best.map(|b| b.0 | sign)
    }

    fn check_against_search(x: f32) {
        let want = nearest(e4m3_spec, x);
        let got = E4M3::from_f32(x);
        match want {
            None => assert!(got.is_nan(), "e4m3 of {x}: {got:?}, want NaN"),
            Some(w) => assert_eq!(got.0, w, "e4m3 of {x:e} ({:#010x})", x.to_bits()),
        }
        let want = nearest(e5m2_spec, x);
        let got = E5M2::from_f32(x);
        match want {
            None => assert!(got.is_nan(), "e5m2 of {x}: {got:?}, want NaN"),
            Some(w) => assert_eq!(got.0, w, "e5m2 of {x:e} ({:#010x})", x.to_bits()),
        }
    }

    #[test]
    fn rounding_matches_a_search_over_all_codes() {
        // Every value, every midpoint between neighbours (the ties) and the f32 values on either
        // side of each, in both formats' ranges and past them.
        let mut xs: Vec<f32> = Vec::new();
        for decode in [e4m3_spec as fn(u8) -> f64, e5m2_spec] {
            let mut vals: Vec<f64> = (0..=255u8).map(decode).filter(|v| v.is_finite()).collect();
            vals.sort_by(f64::total_cmp);
            vals.dedup();
            for w in vals.windows(2) {
                let mid = ((w[0] + w[1]) / 2.0) as f32;
                for x in
                    [w[0] as f32, mid, f32::from_bits(mid.to_bits() + 1), f32::from_bits(mid.to_bits() - 1)]
                {
                    xs.push(x);
                }
            }
        }
        // A spread of every f32 bit pattern, subnormals, infinities and NaNs included.
        xs.extend((0..=u32::MAX).step_by(1 << 16).map(f32::from_bits));
        xs.extend([0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 448.0, 464.0, 480.0, 1e30]);
        for x in xs {
            check_against_search(x);
            check_against_search(-x);
        }
    }

    #[test]
    fn saturation_and_specials() {
        assert_eq!(E4M3::from_f32(1e9), E4M3::MAX);
        assert_eq!(E4M3::from_f32(-f32::INFINITY).to_f32(), -448.0);
        assert_eq!(E4M3::from_f32(463.9).to_f32(), 448.0);
        assert_eq!(E5M2::from_f32(f32::INFINITY), E5M2::MAX);
        assert!(E4M3::from_f32(f32::NAN).is_nan());
        assert_eq!(E4M3::from_f32(-0.0).0, 0x80);
        // Half the smallest subnormal is a tie with zero: to even (zero).
        assert_eq!(E4M3::from_f32(2f32.powi(-10)).0, 0);
        assert_eq!(E4M3::from_f32(1.5 * 2f32.powi(-9)).0, 2);
    }
}
