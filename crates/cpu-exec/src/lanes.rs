//! Per-op arithmetic over the 32 lanes of a warp register. Each function matches the op and
//! type once, then runs a tight loop over the lanes (no per-lane dispatch).

use ferrocm_ir::{BinaryOp, CmpOp, ScalarType, UnaryOp};

pub type Lanes = [u64; 32];

pub trait Fl:
    Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Rem<Output = Self>
    + std::ops::Neg<Output = Self>
{
    fn un(self, op: UnaryOp) -> Self;
    fn min_(self, o: Self) -> Self;
    fn max_(self, o: Self) -> Self;
    fn pow_(self, o: Self) -> Self;
    fn fma_(self, b: Self, c: Self) -> Self;
    fn into_f64(self) -> f64;
}

macro_rules! impl_fl {
    ($t:ty) => {
        impl Fl for $t {
            #[inline]
            fn un(self, op: UnaryOp) -> Self {
                match op {
                    UnaryOp::Neg => -self,
                    UnaryOp::Abs => self.abs(),
                    UnaryOp::Sqrt | UnaryOp::SqrtApprox => self.sqrt(),
                    UnaryOp::Rsqrt => 1.0 / self.sqrt(),
                    UnaryOp::Exp => self.exp(),
                    UnaryOp::Exp2 => self.exp2(),
                    UnaryOp::Log => self.ln(),
                    UnaryOp::Log2 => self.log2(),
                    UnaryOp::Sin => self.sin(),
                    UnaryOp::Cos => self.cos(),
                    UnaryOp::Tanh => self.tanh(),
                    UnaryOp::Floor => self.floor(),
                    UnaryOp::Ceil => self.ceil(),
                    UnaryOp::Not
                    | UnaryOp::LeadingZeros
                    | UnaryOp::TrailingZeros
                    | UnaryOp::CountOnes
                    | UnaryOp::ReverseBits => self,
                }
            }
            fn min_(self, o: Self) -> Self {
                self.min(o)
            }
            fn max_(self, o: Self) -> Self {
                self.max(o)
            }
            fn pow_(self, o: Self) -> Self {
                self.powf(o)
            }
            fn fma_(self, b: Self, c: Self) -> Self {
                self.mul_add(b, c)
            }
            fn into_f64(self) -> f64 {
                self as f64
            }
        }
    };
}
impl_fl!(f32);
impl_fl!(f64);

/// How a float type is stored in a register and which type computes it.
pub trait FCodec {
    type F: Fl;
    fn dec(b: u64) -> Self::F;
    fn enc(x: Self::F) -> u64;
}
pub struct CF16;
pub struct CBF16;
pub struct CF32;
pub struct CF64;
impl FCodec for CF16 {
    type F = f32;
    fn dec(b: u64) -> f32 {
        half::f16::from_bits(b as u16).to_f32()
    }
    fn enc(x: f32) -> u64 {
        half::f16::from_f32(x).to_bits() as u64
    }
}
impl FCodec for CBF16 {
    type F = f32;
    fn dec(b: u64) -> f32 {
        half::bf16::from_bits(b as u16).to_f32()
    }
    fn enc(x: f32) -> u64 {
        half::bf16::from_f32(x).to_bits() as u64
    }
}
impl FCodec for CF32 {
    type F = f32;
    fn dec(b: u64) -> f32 {
        f32::from_bits(b as u32)
    }
    fn enc(x: f32) -> u64 {
        x.to_bits() as u64
    }
}
impl FCodec for CF64 {
    type F = f64;
    fn dec(b: u64) -> f64 {
        f64::from_bits(b)
    }
    fn enc(x: f64) -> u64 {
        x.to_bits()
    }
}

pub trait In: Copy + Ord {
    fn dec(b: u64) -> Self;
    fn enc(self) -> u64;
    fn bin(self, op: BinaryOp, o: Self) -> Self;
    fn un(self, op: UnaryOp) -> Self;
    fn shift(self, left: bool, amount: u64) -> Self;
    fn to_i128(self) -> i128;
    /// A bit count (`leading_zeros`, `trailing_zeros`, `count_ones`) as Rust defines it.
    fn count(self, op: UnaryOp) -> u32;
    /// The full product, encoded as a register of the type twice as wide.
    fn mul_wide(self, o: Self) -> u64;
}

macro_rules! impl_in {
    ($t:ty, $u:ty, $w:ty) => {
        impl In for $t {
            #[inline]
            fn dec(b: u64) -> Self {
                b as $u as $t
            }
            #[inline]
            fn enc(self) -> u64 {
                self as $u as u64
            }
            #[inline]
            fn bin(self, op: BinaryOp, o: Self) -> Self {
                match op {
                    BinaryOp::Add => self.wrapping_add(o),
                    BinaryOp::Sub => self.wrapping_sub(o),
                    BinaryOp::Mul => self.wrapping_mul(o),
                    // Division by zero gives all ones and the remainder the dividend, as the
                    // GPU's integer division does; it is never a trap.
                    BinaryOp::Div => {
                        if o == 0 {
                            !0
                        } else {
                            self.wrapping_div(o)
                        }
                    }
                    BinaryOp::Rem => {
                        if o == 0 {
                            self
                        } else {
                            self.wrapping_rem(o)
                        }
                    }
                    BinaryOp::And => self & o,
                    BinaryOp::Or => self | o,
                    BinaryOp::Xor => self ^ o,
                    BinaryOp::Min => self.min(o),
                    BinaryOp::Max => self.max(o),
                    // The high half of the product in the type twice as wide.
                    BinaryOp::MulHi => ((self as $w * o as $w) >> <$t>::BITS) as $t,
                    BinaryOp::Shl | BinaryOp::Shr | BinaryOp::Pow | BinaryOp::MulWide => self,
                }
            }
            #[inline]
            fn un(self, op: UnaryOp) -> Self {
                match op {
                    UnaryOp::Neg => (0 as $t).wrapping_sub(self),
                    UnaryOp::Not => !self,
                    UnaryOp::Abs => {
                        if self < (0 as $t) {
                            (0 as $t).wrapping_sub(self)
                        } else {
                            self
                        }
                    }
                    UnaryOp::ReverseBits => self.reverse_bits(),
                    _ => self,
                }
            }
            /// Shift amounts of the width or more give 0 (or the sign for a signed right
            /// shift), as PTX's clamped shifts do.
            #[inline]
            fn shift(self, left: bool, amount: u64) -> Self {
                let a = amount.min(<$t>::BITS as u64 - 1) as u32;
                let big = amount >= <$t>::BITS as u64;
                if left {
                    if big {
                        0
                    } else {
                        self << a
                    }
                } else if big {
                    (self >> a) >> 1u32.min(a)
                } else {
                    self >> a
                }
            }
            fn to_i128(self) -> i128 {
                self as i128
            }
            #[inline]
            fn count(self, op: UnaryOp) -> u32 {
                match op {
                    UnaryOp::LeadingZeros => self.leading_zeros(),
                    UnaryOp::TrailingZeros => self.trailing_zeros(),
                    _ => self.count_ones(),
                }
            }
            #[inline]
            fn mul_wide(self, o: Self) -> u64 {
                (self as $w).wrapping_mul(o as $w) as u64
            }
        }
    };
}
impl_in!(i8, u8, i16);
impl_in!(i16, u16, i32);
impl_in!(i32, u32, i64);
impl_in!(i64, u64, i128);
impl_in!(u8, u8, u16);
impl_in!(u16, u16, u32);
impl_in!(u32, u32, u64);
impl_in!(u64, u64, u128);

/// Runs `$body` with `$T` bound to the Rust integer type of `$ty`.
macro_rules! with_int {
    ($ty:expr, $T:ident => $body:expr, $other:expr) => {
        match $ty {
            ScalarType::I8 => {
                type $T = i8;
                $body
            }
            ScalarType::I16 => {
                type $T = i16;
                $body
            }
            ScalarType::I32 => {
                type $T = i32;
                $body
            }
            ScalarType::I64 => {
                type $T = i64;
                $body
            }
            ScalarType::U8 => {
                type $T = u8;
                $body
            }
            ScalarType::U16 => {
                type $T = u16;
                $body
            }
            ScalarType::U32 => {
                type $T = u32;
                $body
            }
            ScalarType::U64 => {
                type $T = u64;
                $body
            }
            _ => $other,
        }
    };
}
macro_rules! with_float {
    ($ty:expr, $C:ident => $body:expr, $other:expr) => {
        match $ty {
            ScalarType::F16 => {
                type $C = CF16;
                $body
            }
            ScalarType::BF16 => {
                type $C = CBF16;
                $body
            }
            ScalarType::F32 => {
                type $C = CF32;
                $body
            }
            ScalarType::F64 => {
                type $C = CF64;
                $body
            }
            _ => $other,
        }
    };
}

fn bin_float<C: FCodec>(op: BinaryOp, a: &Lanes, b: &Lanes, d: &mut Lanes) {
    macro_rules! each {
        (|$x:ident, $y:ident| $e:expr) => {
            for i in 0..32 {
                let ($x, $y) = (C::dec(a[i]), C::dec(b[i]));
                d[i] = C::enc($e);
            }
        };
    }
    match op {
        BinaryOp::Add => each!(|x, y| x + y),
        BinaryOp::Sub => each!(|x, y| x - y),
        BinaryOp::Mul => each!(|x, y| x * y),
        BinaryOp::Div => each!(|x, y| x / y),
        BinaryOp::Rem => each!(|x, y| x % y),
        BinaryOp::Min => each!(|x, y| x.min_(y)),
        BinaryOp::Max => each!(|x, y| x.max_(y)),
        BinaryOp::Pow => each!(|x, y| x.pow_(y)),
        _ => each!(|x, _y| x),
    }
}

fn bin_int<T: In>(op: BinaryOp, bty: ScalarType, a: &Lanes, b: &Lanes, d: &mut Lanes) {
    match op {
        BinaryOp::Shl | BinaryOp::Shr => {
            let left = op == BinaryOp::Shl;
            let signed_amount = bty.is_signed();
            let bbits = bty.bits();
            for i in 0..32 {
                // A negative amount (signed shift operand) shifts everything out.
                let raw = b[i] & if bbits == 64 { !0 } else { (1u64 << bbits) - 1 };
                let neg = signed_amount && (raw >> (bbits - 1)) & 1 == 1;
                let amt = if neg { u64::MAX } else { raw };
                d[i] = T::dec(a[i]).shift(left, amt).enc();
            }
        }
        BinaryOp::MulWide => {
            for i in 0..32 {
                d[i] = T::dec(a[i]).mul_wide(T::dec(b[i]));
            }
        }
        _ => {
            for i in 0..32 {
                d[i] = T::dec(a[i]).bin(op, T::dec(b[i])).enc();
            }
        }
    }
}

pub fn binary(op: BinaryOp, ty: ScalarType, bty: ScalarType, a: &Lanes, b: &Lanes, d: &mut Lanes) {
    with_int!(ty, T => bin_int::<T>(op, bty, a, b, d),
    with_float!(ty, C => bin_float::<C>(op, a, b, d), {
        // bool
        for i in 0..32 {
            d[i] = match op {
                BinaryOp::And => a[i] & b[i],
                BinaryOp::Or => a[i] | b[i],
                BinaryOp::Xor => a[i] ^ b[i],
                _ => a[i],
            } & 1;
        }
    }))
}

pub fn unary(op: UnaryOp, ty: ScalarType, a: &Lanes, d: &mut Lanes) {
    let count = matches!(op, UnaryOp::LeadingZeros | UnaryOp::TrailingZeros | UnaryOp::CountOnes);
    with_int!(ty, T => if count {
        // The result is a `u32`, held zero-extended like every `u32` register.
        for i in 0..32 { d[i] = T::dec(a[i]).count(op) as u64; }
    } else {
        for i in 0..32 { d[i] = T::dec(a[i]).un(op).enc(); }
    },
    with_float!(ty, C => for i in 0..32 { d[i] = C::enc(C::dec(a[i]).un(op)); }, {
        for i in 0..32 {
            d[i] = if op == UnaryOp::Not { (a[i] & 1) ^ 1 } else { a[i] };
        }
    }))
}

fn cmp_with<T: PartialOrd + Copy>(op: CmpOp, a: &Lanes, b: &Lanes, d: &mut Lanes, dec: impl Fn(u64) -> T) {
    macro_rules! each {
        ($o:tt) => {
            for i in 0..32 {
                d[i] = (dec(a[i]) $o dec(b[i])) as u64;
            }
        };
    }
    match op {
        CmpOp::Eq => each!(==),
        CmpOp::Ne => each!(!=),
        CmpOp::Lt => each!(<),
        CmpOp::Le => each!(<=),
        CmpOp::Gt => each!(>),
        CmpOp::Ge => each!(>=),
    }
}

pub fn cmp(op: CmpOp, ty: ScalarType, a: &Lanes, b: &Lanes, d: &mut Lanes) {
    with_int!(ty, T => cmp_with(op, a, b, d, T::dec),
        with_float!(ty, C => cmp_with(op, a, b, d, C::dec),
            cmp_with(op, a, b, d, |x| x & 1)))
}

pub fn fma(ty: ScalarType, a: &Lanes, b: &Lanes, c: &Lanes, d: &mut Lanes) {
    with_float!(ty, C => for i in 0..32 {
        d[i] = C::enc(C::dec(a[i]).fma_(C::dec(b[i]), C::dec(c[i])));
    }, {})
}

/// A decoded number, the intermediate of a cast.
#[derive(Clone, Copy)]
enum Num {
    I(i128),
    F(f64),
}

pub fn cast(from: ScalarType, to: ScalarType, a: &Lanes, d: &mut Lanes) {
    // Integer to integer, the common case (index arithmetic): one dispatch, then `as`.
    if from.is_int() && to.is_int() {
        with_int!(from, F => with_int!(to, T => {
            for i in 0..32 {
                d[i] = (F::dec(a[i]) as T).enc();
            }
        }, {}), {});
        return;
    }
    let mut n = [Num::I(0); 32];
    with_int!(from, T => for i in 0..32 { n[i] = Num::I(T::dec(a[i]).to_i128()); },
        with_float!(from, C => for i in 0..32 { n[i] = Num::F(C::dec(a[i]).into_f64()); },
            for i in 0..32 { n[i] = Num::I((a[i] & 1) as i128); }));
    macro_rules! to_int {
        ($t:ty) => {
            for i in 0..32 {
                d[i] = match n[i] {
                    Num::I(x) => x as $t,
                    Num::F(x) => x as $t,
                }
                .enc();
            }
        };
    }
    // Casting an i64/u64 to f32 directly (not through f64) rounds once, as `as` does.
    let to_f32 = |x: Num| match x {
        Num::I(v) => v as f32,
        Num::F(v) => v as f32,
    };
    match to {
        ScalarType::Bool => {
            for i in 0..32 {
                d[i] = match n[i] {
                    Num::I(x) => (x != 0) as u64,
                    Num::F(x) => (x != 0.0) as u64,
                }
            }
        }
        ScalarType::I8 => to_int!(i8),
        ScalarType::I16 => to_int!(i16),
        ScalarType::I32 => to_int!(i32),
        ScalarType::I64 => to_int!(i64),
        ScalarType::U8 => to_int!(u8),
        ScalarType::U16 => to_int!(u16),
        ScalarType::U32 => to_int!(u32),
        ScalarType::U64 => to_int!(u64),
        ScalarType::F16 => {
            for i in 0..32 {
                d[i] = match n[i] {
                    Num::I(v) => half::f16::from_f32(v as f32),
                    Num::F(v) => half::f16::from_f64(v),
                }
                .to_bits() as u64;
            }
        }
        ScalarType::BF16 => {
            for i in 0..32 {
                d[i] = match n[i] {
                    Num::I(v) => half::bf16::from_f32(v as f32),
                    Num::F(v) => half::bf16::from_f64(v),
                }
                .to_bits() as u64;
            }
        }
        ScalarType::F32 => {
            for i in 0..32 {
                d[i] = to_f32(n[i]).to_bits() as u64;
            }
        }
        ScalarType::F64 => {
            for i in 0..32 {
                d[i] = match n[i] {
                    Num::I(v) => v as f64,
                    Num::F(v) => v,
                }
                .to_bits();
            }
        }
    }
}

/// The signed value of an index register of type `ty`.
#[inline]
pub fn index_value(ty: ScalarType, bits: u64) -> i128 {
    with_int!(ty, T => T::dec(bits).to_i128(), 0)
}

/// The index registers of all 32 lanes as `i64` (a `u64` past `i64::MAX` saturates, which is
/// out of range of every memory anyway), decoded with one type dispatch.
pub fn indices(ty: ScalarType, a: &Lanes) -> [i64; 32] {
    let mut out = [0i64; 32];
    if ty == ScalarType::U64 {
        for i in 0..32 {
            out[i] = a[i].min(i64::MAX as u64) as i64;
        }
    } else {
        // The macro binds `T` to each integer type; for `i64` the cast is the identity.
        #[allow(clippy::unnecessary_cast)]
        {
            with_int!(ty, T => for i in 0..32 { out[i] = T::dec(a[i]) as i64; }, {});
        }
    }
    out
}
