//! Operators on runtime values: arithmetic, bitwise, comparisons, `&&`/`||`, casts.

use super::*;

macro_rules! binop {
    ($Tr:ident, $m:ident, $op:ident, $bound:ident, [$($prim:ty),*]) => {
        impl<T: $bound> ops::$Tr<Val<T>> for Val<T> {
            type Output = Val<T>;
            fn $m(self, r: Val<T>) -> Val<T> {
                Val::from_ir(b(|b| b.binary(BinaryOp::$op, self.v, r.v)))
            }
        }
        impl<T: $bound> ops::$Tr<T> for Val<T> {
            type Output = Val<T>;
            fn $m(self, r: T) -> Val<T> {
                let r = Val::constant(r);
                Val::from_ir(b(|b| b.binary(BinaryOp::$op, self.v, r.v)))
            }
        }
        $(impl ops::$Tr<Val<$prim>> for $prim {
            type Output = Val<$prim>;
            fn $m(self, r: Val<$prim>) -> Val<$prim> {
                let l = Val::constant(self);
                Val::from_ir(b(|b| b.binary(BinaryOp::$op, l.v, r.v)))
            }
        })*
    };
}
binop!(Add, add, Add, Num, [i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f16, bf16, f32, f64]);
binop!(Sub, sub, Sub, Num, [i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f16, bf16, f32, f64]);
binop!(Mul, mul, Mul, Num, [i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f16, bf16, f32, f64]);
binop!(Div, div, Div, Num, [i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f16, bf16, f32, f64]);
binop!(Rem, rem, Rem, Num, [i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f16, bf16, f32, f64]);
binop!(BitAnd, bitand, And, Bits, [i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, bool]);
binop!(BitOr, bitor, Or, Bits, [i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, bool]);
binop!(BitXor, bitxor, Xor, Bits, [i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, bool]);

/// Types with bitwise `& | ^ !`: integers and bool.
pub trait Bits: Elem {}
impl<T: Int> Bits for T {}
impl Bits for bool {}

impl<T: Int, U: Int> ops::Shl<Val<U>> for Val<T> {
    type Output = Val<T>;
    fn shl(self, r: Val<U>) -> Val<T> {
        Val::from_ir(b(|b| b.binary(BinaryOp::Shl, self.v, r.v)))
    }
}
impl<T: Int, U: Int> ops::Shr<Val<U>> for Val<T> {
    type Output = Val<T>;
    fn shr(self, r: Val<U>) -> Val<T> {
        Val::from_ir(b(|b| b.binary(BinaryOp::Shr, self.v, r.v)))
    }
}
macro_rules! shift_plain {
    ($($p:ty),*) => {$(
        impl<T: Int> ops::Shl<$p> for Val<T> {
            type Output = Val<T>;
            fn shl(self, r: $p) -> Val<T> { self << Val::constant(r) }
        }
        impl<T: Int> ops::Shr<$p> for Val<T> {
            type Output = Val<T>;
            fn shr(self, r: $p) -> Val<T> { self >> Val::constant(r) }
        }
    )*};
}
shift_plain!(i32, u32, usize);

impl<T: Signed> ops::Neg for Val<T> {
    type Output = Val<T>;
    fn neg(self) -> Val<T> {
        Val::from_ir(b(|b| b.unary(UnaryOp::Neg, self.v)))
    }
}
impl<T: Bits> ops::Not for Val<T> {
    type Output = Val<T>;
    fn not(self) -> Val<T> {
        Val::from_ir(b(|b| b.unary(UnaryOp::Not, self.v)))
    }
}

/// Comparisons; the macro rewrites `a < b` to `DslCmp::dsl_lt(a, b)`. Plain values compare at
/// compile time (a `bool`); anything involving a [`Val`] compares at run time (a `Val<bool>`).
pub trait DslCmp<R> {
    type Out;
    fn dsl_cmp(self, op: CmpOp, r: R) -> Self::Out;
}
impl<T: PartialOrd> DslCmp<T> for T {
    type Out = bool;
    fn dsl_cmp(self, op: CmpOp, r: T) -> bool {
        match op {
            CmpOp::Eq => self == r,
            CmpOp::Ne => self != r,
            CmpOp::Lt => self < r,
            CmpOp::Le => self <= r,
            CmpOp::Gt => self > r,
            CmpOp::Ge => self >= r,
        }
    }
}
impl<T: Elem> DslCmp<Val<T>> for Val<T> {
    type Out = Val<bool>;
    fn dsl_cmp(self, op: CmpOp, r: Val<T>) -> Val<bool> {
        Val::from_ir(b(|b| b.cmp(op, self.v, r.v)))
    }
}
impl<T: Elem> DslCmp<T> for Val<T> {
    type Out = Val<bool>;
    fn dsl_cmp(self, op: CmpOp, r: T) -> Val<bool> {
        self.dsl_cmp(op, Val::constant(r))
    }
}
macro_rules! cmp_plain {
    ($($p:ty),*) => {$(
        impl DslCmp<Val<$p>> for $p {
            type Out = Val<bool>;
            fn dsl_cmp(self, op: CmpOp, r: Val<$p>) -> Val<bool> {
                Val::constant(self).dsl_cmp(op, r)
            }
        }
    )*};
}
cmp_plain!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f16, bf16, f32, f64);

/// `==` and `!=`; the macro rewrites `a == b` to `DslEq::dsl_eq(a, CmpOp::Eq, b)`. As
/// [`DslCmp`], but plain values need only `PartialEq` (enums of a compile-time plan, say).
pub trait DslEq<R> {
    type Out;
    fn dsl_eq(self, op: CmpOp, r: R) -> Self::Out;
}
impl<T: PartialEq> DslEq<T> for T {
    type Out = bool;
    fn dsl_eq(self, op: CmpOp, r: T) -> bool {
        match op {
            CmpOp::Ne => self != r,
            _ => self == r,
        }
    }
}
impl<T: Elem, R> DslEq<R> for Val<T>
where
    Val<T>: DslCmp<R>,
{
    type Out = <Val<T> as DslCmp<R>>::Out;
    fn dsl_eq(self, op: CmpOp, r: R) -> Self::Out {
        self.dsl_cmp(op, r)
    }
}
macro_rules! eq_plain {
    ($($p:ty),*) => {$(
        impl DslEq<Val<$p>> for $p {
            type Out = Val<bool>;
            fn dsl_eq(self, op: CmpOp, r: Val<$p>) -> Val<bool> {
                Val::constant(self).dsl_cmp(op, r)
            }
        }
    )*};
}
eq_plain!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f16, bf16, f32, f64);

/// `a && b` and `a || b`, short-circuiting at run time too (`b` is built inside an `if`).
pub trait DslLogic<B> {
    type Out;
    fn and_then(self, f: impl FnOnce() -> B) -> Self::Out;
    fn or_else(self, f: impl FnOnce() -> B) -> Self::Out;
}
impl DslLogic<bool> for bool {
    type Out = bool;
    fn and_then(self, f: impl FnOnce() -> bool) -> bool {
        self && f()
    }
    fn or_else(self, f: impl FnOnce() -> bool) -> bool {
        self || f()
    }
}
impl DslLogic<Val<bool>> for bool {
    type Out = Val<bool>;
    fn and_then(self, f: impl FnOnce() -> Val<bool>) -> Val<bool> {
        if self {
            f()
        } else {
            Val::constant(false)
        }
    }
    fn or_else(self, f: impl FnOnce() -> Val<bool>) -> Val<bool> {
        if self {
            Val::constant(true)
        } else {
            f()
        }
    }
}
impl<B: IntoVal<bool>> DslLogic<B> for Val<bool> {
    type Out = Val<bool>;
    fn and_then(self, f: impl FnOnce() -> B) -> Val<bool> {
        let r = var("and", false);
        if_else(self, || r.set(f().into_val()), || ());
        r.get()
    }
    fn or_else(self, f: impl FnOnce() -> B) -> Val<bool> {
        let r = var("or", true);
        if_else(self, || (), || r.set(f().into_val()));
        r.get()
    }
}

/// `e as T`.
pub trait CastTo<T> {
    type Out;
    fn cast_to(self) -> Self::Out;
}
impl<U: Elem, T: Elem> CastTo<T> for Val<U> {
    type Out = Val<T>;
    fn cast_to(self) -> Val<T> {
        Val::from_ir(b(|b| b.cast(self.v, T::TY)))
    }
}
macro_rules! cast_plain {
    ($from:ty => $($to:ty),*) => {$(
        impl CastTo<$to> for $from {
            type Out = $to;
            #[allow(clippy::unnecessary_cast)]
            fn cast_to(self) -> $to { self as $to }
        }
    )*};
}
macro_rules! cast_all {
    ($($from:ty),*) => {$(
        cast_plain!($from => i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);
    )*};
}
cast_all!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);
cast_plain!(bool => i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

pub fn cast<T, E: CastTo<T>>(e: E) -> E::Out {
    e.cast_to()
}

// A variable (a struct field holding one) reads itself in arithmetic and comparisons, as a
// `Cell` would: `self.count + 1u32`, `self.index < 4u32`.
macro_rules! var_binop {
    ($($Tr:ident, $m:ident;)*) => {$(
        impl<T: Elem, R> ops::$Tr<R> for Var<Val<T>>
        where
            Val<T>: ops::$Tr<R>,
        {
            type Output = <Val<T> as ops::$Tr<R>>::Output;
            fn $m(self, r: R) -> Self::Output {
                ops::$Tr::$m(self.get(), r)
            }
        }
    )*};
}
var_binop! {
    Add, add; Sub, sub; Mul, mul; Div, div; Rem, rem;
    BitAnd, bitand; BitOr, bitor; BitXor, bitxor; Shl, shl; Shr, shr;
}
impl<T: Elem, R> DslCmp<R> for Var<Val<T>>
where
    Val<T>: DslCmp<R>,
{
    type Out = <Val<T> as DslCmp<R>>::Out;
    fn dsl_cmp(self, op: CmpOp, r: R) -> Self::Out {
        self.get().dsl_cmp(op, r)
    }
}
impl<T: Elem, R> DslEq<R> for Var<Val<T>>
where
    Val<T>: DslCmp<R>,
{
    type Out = <Val<T> as DslCmp<R>>::Out;
    fn dsl_eq(self, op: CmpOp, r: R) -> Self::Out {
        self.get().dsl_cmp(op, r)
    }
}
