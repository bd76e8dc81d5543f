//! The types and functions `#[kernel]` bodies expand to. Calling a kernel's generated `build`
//! runs its body once, on the host, against a thread-local IR [`Builder`]: runtime values are
//! [`Val`] handles (operators emit instructions), compile-time values are ordinary Rust values
//! (so an `if` on a `const` is a Rust `if` and a `for` over a constant range unrolls).
//!
//! Most items here are used by the macro's expansion; the built-ins a kernel author calls
//! (thread indices, barriers, atomics, shuffles, shared memory, math methods) are re-exported
//! from [`crate::prelude`].

use std::cell::RefCell;
use std::marker::PhantomData;
use std::ops;

use ferrocm_ir::{
    AtomicOp, Axis, BinaryOp, BuildError, Builder, CmpOp, FenceScope, Function, Intrinsic, Mem, MemSpace,
    ScalarType, ShuffleMode, Special, Type, UnaryOp, Value, VoteMode,
};
use half::{bf16, f16};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LoopKind {
    Runtime,
    Unrolled,
}

struct Ctx {
    b: Builder,
    loops: Vec<LoopKind>,
    /// For each inlined device function with early returns: the loop depth of its one-trip loop.
    fns: Vec<usize>,
    counter: u32,
}

thread_local! {
    static CTX: RefCell<Vec<Ctx>> = const { RefCell::new(Vec::new()) };
}

fn with<R>(f: impl FnOnce(&mut Ctx) -> R) -> R {
    CTX.with(|c| {
        let mut stack = c.borrow_mut();
        // Every DSL value is created inside `build_kernel`, which pushes a context; calling a
        // kernel body function outside of it is a programming error of the generated code.
        let ctx = stack.last_mut().expect("ferrocm kernel DSL used outside of a kernel build");
        f(ctx)
    })
}

fn b<R>(f: impl FnOnce(&mut Builder) -> R) -> R {
    with(|c| f(&mut c.b))
}

fn fail(e: BuildError) {
    b(|b| b.fail(e))
}

/// Runs `body` against a fresh builder and returns the kernel it built.
pub fn build_kernel(name: &str, body: impl FnOnce()) -> Result<Function, BuildError> {
    CTX.with(|c| {
        c.borrow_mut().push(Ctx { b: Builder::new(name), loops: Vec::new(), fns: Vec::new(), counter: 0 })
    });
    // Pop the context even if the body panics, so the thread's builder stack stays balanced.
    struct Pop;
    impl Drop for Pop {
        fn drop(&mut self) {
            CTX.with(|c| c.borrow_mut().pop());
        }
    }
    let guard = Pop;
    body();
    let ctx = CTX.with(|c| c.borrow_mut().pop());
    std::mem::forget(guard);
    match ctx {
        Some(ctx) => ctx.b.finish(),
        None => Err(BuildError::Unbalanced { what: "builder stack" }),
    }
}

// ---------------------------------------------------------------- element types

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

// ---------------------------------------------------------------- values

/// A runtime value of element type `T` (a handle to an IR value).
pub struct Val<T> {
    v: Value,
    _t: PhantomData<T>,
}
impl<T> Clone for Val<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Val<T> {}
impl<T> std::fmt::Debug for Val<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "%{}", self.v.0)
    }
}

impl<T: Elem> Val<T> {
    pub fn from_ir(v: Value) -> Self {
        Val { v, _t: PhantomData }
    }
    pub fn ir(self) -> Value {
        self.v
    }
    /// A constant.
    pub fn constant(x: T) -> Self {
        Val::from_ir(b(|b| b.constant(T::TY, x.to_bits())))
    }
}

/// Anything usable where a runtime `T` is expected: a `Val<T>` or a plain `T` (a constant).
pub trait IntoVal<T> {
    fn into_val(self) -> Val<T>;
}
impl<T: Elem> IntoVal<T> for Val<T> {
    fn into_val(self) -> Val<T> {
        self
    }
}
impl<T: Elem> IntoVal<T> for T {
    fn into_val(self) -> Val<T> {
        Val::constant(self)
    }
}

/// A value that can live in a mutable variable or be merged after a runtime `if`.
pub trait DslValue: Copy {
    fn ir_type() -> Type;
    fn to_ir(self) -> Value;
    fn from_ir_value(v: Value) -> Self;
}
impl<T: Elem> DslValue for Val<T> {
    fn ir_type() -> Type {
        T::TY.into()
    }
    fn to_ir(self) -> Value {
        self.v
    }
    fn from_ir_value(v: Value) -> Self {
        Val::from_ir(v)
    }
}

/// Converts an initializer into the DSL value a `let mut` variable holds.
pub trait IntoDsl {
    type V: DslValue;
    fn into_dsl(self) -> Self::V;
}
impl<T: Elem> IntoDsl for T {
    type V = Val<T>;
    fn into_dsl(self) -> Val<T> {
        Val::constant(self)
    }
}
impl<T: Elem> IntoDsl for Val<T> {
    type V = Val<T>;
    fn into_dsl(self) -> Val<T> {
        self
    }
}
impl<T: Elem, const N: usize> IntoDsl for VecVal<T, N> {
    type V = VecVal<T, N>;
    fn into_dsl(self) -> Self {
        self
    }
}

/// A mutable variable (`let mut`) holding a [`DslValue`].
pub struct Var<V> {
    var: ferrocm_ir::Var,
    _v: PhantomData<V>,
}
impl<V> Clone for Var<V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<V> Copy for Var<V> {}

impl<V: DslValue> Var<V> {
    pub fn get(self) -> V {
        V::from_ir_value(b(|b| b.read_var(self.var)))
    }
    pub fn set(self, v: impl IntoDsl<V = V>) {
        let v = v.into_dsl().to_ir();
        b(|b| b.write_var(self.var, v))
    }
}

fn new_var<V: DslValue>(name: &str) -> Var<V> {
    let var = b(|b| b.var(name, V::ir_type()));
    Var { var, _v: PhantomData }
}

/// `let mut name = init;`
pub fn var<I: IntoDsl>(name: &str, init: I) -> Var<I::V> {
    let v = init.into_dsl();
    let var = new_var::<I::V>(name);
    let x = v.to_ir();
    b(|b| b.write_var(var.var, x));
    var
}

/// `let mut name: T = init;`
pub fn var_typed<T: Elem>(name: &str, init: impl IntoVal<T>) -> Var<Val<T>> {
    var(name, init.into_val())
}

/// `let name: T = init;`
pub fn typed<T: Elem>(init: impl IntoVal<T>) -> Val<T> {
    init.into_val()
}

// ---------------------------------------------------------------- operators

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

// ---------------------------------------------------------------- control flow

/// Values an `if` may produce: merged through a variable when the condition is a runtime one.
pub trait Merge: Sized {
    type Slot: Copy;
    fn slot() -> Self::Slot;
    fn write(self, slot: Self::Slot);
    fn read(slot: Self::Slot) -> Self;
}
impl Merge for () {
    type Slot = ();
    fn slot() {}
    fn write(self, _: ()) {}
    fn read(_: ()) {}
}
impl<T: Elem> Merge for Val<T> {
    type Slot = Var<Val<T>>;
    fn slot() -> Self::Slot {
        new_var("merge")
    }
    fn write(self, s: Self::Slot) {
        let x = self.to_ir();
        b(|b| b.write_var(s.var, x))
    }
    fn read(s: Self::Slot) -> Self {
        s.get()
    }
}
impl<T: Elem, const N: usize> Merge for VecVal<T, N> {
    type Slot = Var<VecVal<T, N>>;
    fn slot() -> Self::Slot {
        new_var("merge")
    }
    fn write(self, s: Self::Slot) {
        let x = self.to_ir();
        b(|b| b.write_var(s.var, x))
    }
    fn read(s: Self::Slot) -> Self {
        s.get()
    }
}
macro_rules! merge_plain {
    ($($p:ty),*) => {$(
        impl Merge for $p {
            type Slot = ();
            fn slot() {}
            fn write(self, _: ()) {
                fail(BuildError::Unsupported {
                    what: format!("a compile-time {} chosen by a runtime condition", stringify!($p)),
                    why: "make the value a runtime value (e.g. with `as` on a runtime operand)".into(),
                })
            }
            fn read(_: ()) -> Self { Default::default() }
        }
    )*};
}
merge_plain!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

/// The condition of an `if`/`while`: a compile-time `bool` or a runtime `Val<bool>`.
pub trait Cond: Copy {
    fn if_else<R: Merge>(self, t: impl FnOnce() -> R, e: impl FnOnce() -> R) -> R;
    fn runtime(self) -> Val<bool>;
}
impl Cond for bool {
    fn if_else<R: Merge>(self, t: impl FnOnce() -> R, e: impl FnOnce() -> R) -> R {
        if self {
            t()
        } else {
            e()
        }
    }
    fn runtime(self) -> Val<bool> {
        Val::constant(self)
    }
}
impl Cond for Val<bool> {
    fn if_else<R: Merge>(self, t: impl FnOnce() -> R, e: impl FnOnce() -> R) -> R {
        let slot = R::slot();
        b(|b| b.begin_if(self.v));
        t().write(slot);
        b(|b| b.begin_else());
        e().write(slot);
        b(|b| b.end_if());
        R::read(slot)
    }
    fn runtime(self) -> Val<bool> {
        self
    }
}

/// `if c { t } else { e }`. The branches may mix a runtime and a plain value of one element type
/// (`if c { x[i] } else { 0.0f32 }`); the result is then a runtime value.
pub fn if_else<C: Cond, A: Unify<B>, B>(c: C, t: impl FnOnce() -> A, e: impl FnOnce() -> B) -> A::Out {
    c.if_else(|| t().left(), || A::right(e()))
}

/// The common type of an `if`'s two branches.
pub trait Unify<B> {
    type Out: Merge;
    fn left(self) -> Self::Out;
    fn right(b: B) -> Self::Out;
}
impl<A: Merge> Unify<A> for A {
    type Out = A;
    fn left(self) -> A {
        self
    }
    fn right(b: A) -> A {
        b
    }
}
impl<T: Elem> Unify<T> for Val<T> {
    type Out = Val<T>;
    fn left(self) -> Val<T> {
        self
    }
    fn right(b: T) -> Val<T> {
        Val::constant(b)
    }
}
impl<T: Elem> Unify<Val<T>> for T {
    type Out = Val<T>;
    fn left(self) -> Val<T> {
        Val::constant(self)
    }
    fn right(b: Val<T>) -> Val<T> {
        b
    }
}

fn open_loop() {
    with(|c| {
        c.loops.push(LoopKind::Runtime);
        c.b.begin_loop()
    });
}
fn latch() {
    b(|b| b.begin_latch());
}
fn close_loop() {
    with(|c| {
        c.loops.pop();
        c.b.end_loop()
    });
}

/// `loop { body }`.
pub fn loop_(mut body: impl FnMut()) {
    open_loop();
    body();
    close_loop();
}

/// `while cond { body }`.
pub fn while_<C: Cond>(mut cond: impl FnMut() -> C, mut body: impl FnMut()) {
    open_loop();
    let c = cond().runtime();
    let stop = !c;
    b(|b| b.begin_if(stop.v));
    break_();
    b(|b| b.end_if());
    body();
    close_loop();
}

/// The ranges a `for` loop can run over.
pub trait ForRange {
    type Item;
    fn run(self, step: Self::Item, body: &mut dyn FnMut(Self::Item));
    fn one() -> Self::Item;
}

macro_rules! range_plain {
    ($($p:ty),*) => {$(
        impl ForRange for ($p, $p) {
            type Item = $p;
            fn run(self, step: $p, body: &mut dyn FnMut($p)) {
                with(|c| c.loops.push(LoopKind::Unrolled));
                let mut i = self.0;
                while i < self.1 {
                    body(i);
                    i += step;
                }
                with(|c| c.loops.pop());
            }
            fn one() -> $p { 1 }
        }
    )*};
}
range_plain!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

fn runtime_range<T: Int>(start: Val<T>, end: Val<T>, step: Val<T>, body: &mut dyn FnMut(Val<T>)) {
    let i = var("i", start);
    open_loop();
    let cur = i.get();
    let stop = !cur.dsl_cmp(CmpOp::Lt, end);
    b(|b| b.begin_if(stop.v));
    break_();
    b(|b| b.end_if());
    body(cur);
    latch();
    i.set(i.get() + step);
    close_loop();
}

macro_rules! range_rt {
    ($($l:ty, $r:ty);*) => {$(
        impl<T: Int> ForRange for ($l, $r) {
            type Item = Val<T>;
            fn run(self, step: Val<T>, body: &mut dyn FnMut(Val<T>)) {
                runtime_range(self.0.into_val(), self.1.into_val(), step, body)
            }
            fn one() -> Val<T> {
                // `Int` types all convert from 1u8 through a constant of their own type.
                Val::from_ir(b(|b| b.constant(T::TY, 1)))
            }
        }
    )*};
}
range_rt!(Val<T>, Val<T>; T, Val<T>; Val<T>, T);

/// `for i in start..end { body }`.
pub fn for_range<S, E, F>(start: S, end: E, mut body: F)
where
    (S, E): ForRange,
    F: FnMut(<(S, E) as ForRange>::Item),
{
    let step = <(S, E)>::one();
    (start, end).run(step, &mut body)
}

/// `for i in (start..end).step_by(step) { body }`.
pub fn for_range_step<S, E, F>(start: S, end: E, step: impl IntoStep<<(S, E) as ForRange>::Item>, mut body: F)
where
    (S, E): ForRange,
    F: FnMut(<(S, E) as ForRange>::Item),
{
    (start, end).run(step.into_step(), &mut body)
}

/// A `step_by` argument: a plain integer, or a runtime value for a runtime range.
pub trait IntoStep<I> {
    fn into_step(self) -> I;
}
impl<T: Copy> IntoStep<T> for T {
    fn into_step(self) -> T {
        self
    }
}
impl<T: Int> IntoStep<Val<T>> for T {
    fn into_step(self) -> Val<T> {
        Val::constant(self)
    }
}

fn jump_depth(what: &'static str) -> Option<u32> {
    with(|c| match c.loops.last() {
        Some(LoopKind::Runtime) => Some(0),
        Some(LoopKind::Unrolled) => {
            c.b.fail(BuildError::Unsupported {
                what: format!("`{what}` in a loop unrolled at compile time"),
                why: "use a runtime range (a runtime bound) for loops that break or continue".into(),
            });
            None
        }
        None => {
            c.b.fail(BuildError::NotInLoop { what });
            None
        }
    })
}

pub fn break_() {
    if let Some(d) = jump_depth("break") {
        b(|b| b.break_(d))
    }
}

pub fn continue_() {
    if let Some(d) = jump_depth("continue") {
        b(|b| b.continue_(d))
    }
}

/// `return` in a kernel.
pub fn return_() {
    b(|b| b.return_())
}

/// The body of a `#[device]` function that contains `return`: run in a one-trip loop so a
/// `return` is a `break` out of it, with the result merged through a variable.
pub fn device_fn<R: Merge>(body: impl FnOnce(R::Slot) -> R) -> R {
    let slot = R::slot();
    open_loop();
    let depth = with(|c| c.loops.len());
    with(|c| c.fns.push(depth));
    let r = body(slot);
    r.write(slot);
    with(|c| c.b.break_(0));
    with(|c| c.fns.pop());
    close_loop();
    R::read(slot)
}

/// `return value` inside a `#[device]` function.
pub fn device_return<R: Merge>(slot: R::Slot, value: R) {
    value.write(slot);
    with(|c| {
        let target = c.fns.last().copied().unwrap_or(0).min(c.loops.len());
        // Unrolled loops emit no IR loop, so only runtime loops count toward the depth.
        let runtime = c.loops[target..].iter().filter(|k| **k == LoopKind::Runtime).count();
        c.b.break_(runtime as u32)
    });
}

// ---------------------------------------------------------------- parameters and memory

pub fn scalar_param<T: Elem>(name: &str) -> Val<T> {
    Val::from_ir(b(|b| b.scalar_param(name, T::TY)))
}

/// Memory a kernel reads: a slice parameter, a shared or a local array.
pub trait Memory<T: Elem>: Copy {
    fn mem(&self) -> Mem;

    /// The number of elements.
    fn len(&self) -> Val<usize> {
        let m = self.mem();
        Val::from_ir(b(|b| b.len(m)))
    }
    fn is_empty(&self) -> Val<bool> {
        self.len().dsl_cmp(CmpOp::Eq, 0usize)
    }
    fn load(&self, i: impl Index) -> Val<T> {
        let (m, i) = (self.mem(), i.index());
        Val::from_ir(b(|b| b.load(m, i, 1)))
    }
    /// Loads elements `2i, 2i+1` in one 2-wide access.
    fn load2(&self, i: impl Index) -> VecVal<T, 2> {
        let (m, i) = (self.mem(), i.index());
        VecVal::from_ir_value(b(|b| b.load(m, i, 2)))
    }
    /// Loads elements `4i .. 4i+4` in one wide (16 bytes for f32) access.
    fn load4(&self, i: impl Index) -> VecVal<T, 4> {
        let (m, i) = (self.mem(), i.index());
        VecVal::from_ir_value(b(|b| b.load(m, i, 4)))
    }
}

/// Memory a kernel writes.
pub trait MemoryMut<T: Elem>: Memory<T> {
    fn store(&self, i: impl Index, v: impl IntoVal<T>) {
        let (m, i, v) = (self.mem(), i.index(), v.into_val().v);
        b(|b| b.store(m, i, v))
    }
    fn store2(&self, i: impl Index, v: VecVal<T, 2>) {
        let (m, i) = (self.mem(), i.index());
        b(|b| b.store(m, i, v.v))
    }
    fn store4(&self, i: impl Index, v: VecVal<T, 4>) {
        let (m, i) = (self.mem(), i.index());
        b(|b| b.store(m, i, v.v))
    }
}

/// Atomics (global and shared memory); each returns the old value.
pub trait Atomics<T: Elem>: MemoryMut<T> {
    fn atomic(&self, op: AtomicOp, i: impl Index, v: impl IntoVal<T>, cmp: Option<Val<T>>) -> Val<T> {
        let (m, i, v) = (self.mem(), i.index(), v.into_val().v);
        Val::from_ir(b(|b| b.atomic(op, m, i, v, cmp.map(|c| c.v))))
    }
    fn atomic_add(&self, i: impl Index, v: impl IntoVal<T>) -> Val<T> {
        self.atomic(AtomicOp::Add, i, v, None)
    }
    fn atomic_sub(&self, i: impl Index, v: impl IntoVal<T>) -> Val<T> {
        self.atomic(AtomicOp::Sub, i, v, None)
    }
    fn atomic_min(&self, i: impl Index, v: impl IntoVal<T>) -> Val<T> {
        self.atomic(AtomicOp::Min, i, v, None)
    }
    fn atomic_max(&self, i: impl Index, v: impl IntoVal<T>) -> Val<T> {
        self.atomic(AtomicOp::Max, i, v, None)
    }
    fn atomic_and(&self, i: impl Index, v: impl IntoVal<T>) -> Val<T> {
        self.atomic(AtomicOp::And, i, v, None)
    }
    fn atomic_or(&self, i: impl Index, v: impl IntoVal<T>) -> Val<T> {
        self.atomic(AtomicOp::Or, i, v, None)
    }
    fn atomic_xor(&self, i: impl Index, v: impl IntoVal<T>) -> Val<T> {
        self.atomic(AtomicOp::Xor, i, v, None)
    }
    fn atomic_exch(&self, i: impl Index, v: impl IntoVal<T>) -> Val<T> {
        self.atomic(AtomicOp::Exch, i, v, None)
    }
    /// Writes `new` if the element equals `expected`; returns the old value.
    fn atomic_cas(&self, i: impl Index, expected: impl IntoVal<T>, new: impl IntoVal<T>) -> Val<T> {
        let c = expected.into_val();
        self.atomic(AtomicOp::Cas, i, new, Some(c))
    }
}

macro_rules! mem_type {
    ($(#[$m:meta])* $name:ident, mut: $mutable:tt, atomics: $atomics:tt) => {
        $(#[$m])*
        pub struct $name<T> {
            mem: Mem,
            _t: PhantomData<T>,
        }
        impl<T> Clone for $name<T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<T> {}
        impl<T: Elem> Memory<T> for $name<T> {
            fn mem(&self) -> Mem {
                self.mem
            }
        }
        mem_type!(@mut $mutable $name);
        mem_type!(@atomics $atomics $name);
    };
    (@mut true $name:ident) => { impl<T: Elem> MemoryMut<T> for $name<T> {} };
    (@mut false $name:ident) => {};
    (@atomics true $name:ident) => { impl<T: Elem> Atomics<T> for $name<T> {} };
    (@atomics false $name:ident) => {};
}
// A reference to a memory handle is the handle (so `f(&x)` passes a slice to a device function).
impl<T: Elem, M: Memory<T>> Memory<T> for &M {
    fn mem(&self) -> Mem {
        (**self).mem()
    }
}
impl<T: Elem, M: MemoryMut<T>> MemoryMut<T> for &M {}
impl<T: Elem, M: Atomics<T>> Atomics<T> for &M {}

mem_type!(
    /// A read-only slice parameter (`&[T]`).
    Slice, mut: false, atomics: false
);
mem_type!(
    /// A writable slice parameter (`&mut [T]`).
    SliceMut, mut: true, atomics: true
);
mem_type!(
    /// A shared-memory array, one per block (static or dynamic size).
    Shared, mut: true, atomics: true
);
mem_type!(
    /// A per-thread array.
    Local, mut: true, atomics: false
);

pub fn slice_param<T: Elem>(name: &str) -> Slice<T> {
    Slice { mem: b(|b| b.slice_param(name, T::TY, false)), _t: PhantomData }
}
pub fn slice_mut_param<T: Elem>(name: &str) -> SliceMut<T> {
    SliceMut { mem: b(|b| b.slice_param(name, T::TY, true)), _t: PhantomData }
}

fn fresh_name(prefix: &str) -> String {
    with(|c| {
        c.counter += 1;
        format!("{prefix}{}", c.counter - 1)
    })
}

/// A shared-memory array of `len` elements (a compile-time size), one per block.
pub fn shared_array<T: Elem>(len: usize) -> Shared<T> {
    let name = fresh_name("shared");
    Shared { mem: b(|b| b.add_mem(&name, T::TY, MemSpace::Shared { len: len as u32 })), _t: PhantomData }
}

/// The block's dynamic shared memory (its size is the launch's `shared_mem_bytes`).
pub fn dyn_shared<T: Elem>() -> Shared<T> {
    let name = fresh_name("dyn_shared");
    Shared { mem: b(|b| b.add_mem(&name, T::TY, MemSpace::DynShared)), _t: PhantomData }
}

/// A per-thread array of `len` elements (a compile-time size).
pub fn local_array<T: Elem>(len: usize) -> Local<T> {
    let name = fresh_name("local");
    Local { mem: b(|b| b.add_mem(&name, T::TY, MemSpace::Local { len: len as u32 })), _t: PhantomData }
}

/// Index operands: runtime integers of any width, or compile-time integers.
pub trait Index {
    fn index(self) -> Value;
}
impl<T: Int> Index for Val<T> {
    fn index(self) -> Value {
        self.v
    }
}
macro_rules! index_plain {
    ($($p:ty),*) => {$(
        impl Index for $p {
            fn index(self) -> Value { Val::constant(self).v }
        }
    )*};
}
index_plain!(i32, u32, i64, u64, usize);

/// `a[i]` as an expression: a load from kernel memory, or plain indexing of a compile-time
/// array or `Vec` (with a compile-time index).
pub trait IndexLoad<I> {
    type Out;
    fn index_load(&self, i: I) -> Self::Out;
}
macro_rules! index_load_mem {
    ($($m:ident),*) => {$(
        impl<T: Elem, I: Index> IndexLoad<I> for $m<T> {
            type Out = Val<T>;
            fn index_load(&self, i: I) -> Val<T> {
                self.load(i)
            }
        }
    )*};
}
index_load_mem!(Slice, SliceMut, Shared, Local);
impl<T: Clone> IndexLoad<usize> for Vec<T> {
    type Out = T;
    fn index_load(&self, i: usize) -> T {
        self[i].clone()
    }
}
impl<T: Clone, const N: usize> IndexLoad<usize> for [T; N] {
    type Out = T;
    fn index_load(&self, i: usize) -> T {
        self[i].clone()
    }
}
impl<T: Clone> IndexLoad<usize> for &[T] {
    type Out = T;
    fn index_load(&self, i: usize) -> T {
        self[i].clone()
    }
}

pub fn index_load<B: IndexLoad<I>, I>(base: &B, i: I) -> B::Out {
    base.index_load(i)
}
/// `a[i] = v`.
pub fn index_store<T: Elem, M: MemoryMut<T>>(m: &M, i: impl Index, v: impl IntoVal<T>) {
    m.store(i, v)
}

// ---------------------------------------------------------------- vectors

/// A 2- or 4-wide vector value, for wide loads and stores.
pub struct VecVal<T, const N: usize> {
    v: Value,
    _t: PhantomData<T>,
}
impl<T, const N: usize> Clone for VecVal<T, N> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const N: usize> Copy for VecVal<T, N> {}
impl<T: Elem, const N: usize> DslValue for VecVal<T, N> {
    fn ir_type() -> Type {
        Type::Vector(T::TY, N as u8)
    }
    fn to_ir(self) -> Value {
        self.v
    }
    fn from_ir_value(v: Value) -> Self {
        VecVal { v, _t: PhantomData }
    }
}
impl<T: Elem, const N: usize> VecVal<T, N> {
    /// Element `k` (a compile-time index).
    pub fn get(self, k: usize) -> Val<T> {
        Val::from_ir(b(|b| b.extract(self.v, k as u8)))
    }
}
pub type Vec2<T> = VecVal<T, 2>;
pub type Vec4<T> = VecVal<T, 4>;

pub fn vec2<T: Elem>(a: impl IntoVal<T>, b_: impl IntoVal<T>) -> Vec2<T> {
    let p = [a.into_val().v, b_.into_val().v];
    VecVal::from_ir_value(b(|b| b.make_vector(&p)))
}
pub fn vec4<T: Elem>(
    a: impl IntoVal<T>,
    b_: impl IntoVal<T>,
    c: impl IntoVal<T>,
    d: impl IntoVal<T>,
) -> Vec4<T> {
    let p = [a.into_val().v, b_.into_val().v, c.into_val().v, d.into_val().v];
    VecVal::from_ir_value(b(|b| b.make_vector(&p)))
}

// ---------------------------------------------------------------- built-ins

macro_rules! special_fns {
    ($($name:ident => $s:expr;)*) => {$(
        #[doc = concat!("`", stringify!($name), "` of the calling thread (a runtime `u32`).")]
        pub fn $name() -> Val<u32> {
            Val::from_ir(b(|b| b.special($s)))
        }
    )*};
}
special_fns! {
    thread_idx_x => Special::ThreadIdx(Axis::X);
    thread_idx_y => Special::ThreadIdx(Axis::Y);
    thread_idx_z => Special::ThreadIdx(Axis::Z);
    block_idx_x => Special::BlockIdx(Axis::X);
    block_idx_y => Special::BlockIdx(Axis::Y);
    block_idx_z => Special::BlockIdx(Axis::Z);
    block_dim_x => Special::BlockDim(Axis::X);
    block_dim_y => Special::BlockDim(Axis::Y);
    block_dim_z => Special::BlockDim(Axis::Z);
    grid_dim_x => Special::GridDim(Axis::X);
    grid_dim_y => Special::GridDim(Axis::Y);
    grid_dim_z => Special::GridDim(Axis::Z);
    lane_id => Special::LaneId;
    warp_size => Special::WarpSize;
}

/// `block_idx_x * block_dim_x + thread_idx_x`, as a `usize` (computed in 64 bits).
pub fn global_index() -> Val<usize> {
    let bi: Val<usize> = cast::<usize, _>(block_idx_x());
    let bd: Val<usize> = cast::<usize, _>(block_dim_x());
    let t: Val<usize> = cast::<usize, _>(thread_idx_x());
    bi * bd + t
}

/// `grid_dim_x * block_dim_x`: the stride of a grid-stride loop, as a `usize`.
pub fn grid_stride() -> Val<usize> {
    let g: Val<usize> = cast::<usize, _>(grid_dim_x());
    let bd: Val<usize> = cast::<usize, _>(block_dim_x());
    g * bd
}

/// `__launch_bounds__(max_threads, min_blocks_per_sm)`: the largest block this kernel will be
/// launched with, and (if not 0) how many such blocks should fit on one multiprocessor. The
/// compiler keeps registers within what that allows (PTX `.maxntid`, `.minnctapersm`), and a
/// launch with a larger block is refused on every backend. Call it once, anywhere in the body.
pub fn launch_bounds(max_threads: u32, min_blocks_per_sm: u32) {
    b(|b| b.set_launch_bounds(max_threads, min_blocks_per_sm))
}

/// Block-wide barrier (`__syncthreads`).
pub fn sync_threads() {
    b(|b| b.barrier())
}
/// Orders this thread's memory accesses as seen by its block.
pub fn fence_block() {
    b(|b| b.fence(FenceScope::Block))
}
/// Orders this thread's memory accesses as seen by the whole device.
pub fn fence_device() {
    b(|b| b.fence(FenceScope::Device))
}
/// Orders this thread's memory accesses as seen by the host and peer devices.
pub fn fence_system() {
    b(|b| b.fence(FenceScope::System))
}

fn shuffle<T: Elem>(mode: ShuffleMode, v: Val<T>, lane: impl IntoVal<u32>) -> Val<T> {
    let l = lane.into_val().v;
    Val::from_ir(b(|b| b.shuffle(mode, v.v, l)))
}
/// The value of `v` in lane `lane` of the warp (the whole warp must be converged).
pub fn shfl_idx<T: Elem>(v: Val<T>, lane: impl IntoVal<u32>) -> Val<T> {
    shuffle(ShuffleMode::Idx, v, lane)
}
/// The value of `v` in lane `lane_id - delta` (own value in the first `delta` lanes).
pub fn shfl_up<T: Elem>(v: Val<T>, delta: impl IntoVal<u32>) -> Val<T> {
    shuffle(ShuffleMode::Up, v, delta)
}
/// The value of `v` in lane `lane_id + delta` (own value in the last `delta` lanes).
pub fn shfl_down<T: Elem>(v: Val<T>, delta: impl IntoVal<u32>) -> Val<T> {
    shuffle(ShuffleMode::Down, v, delta)
}
/// The value of `v` in lane `lane_id ^ mask`.
pub fn shfl_xor<T: Elem>(v: Val<T>, mask: impl IntoVal<u32>) -> Val<T> {
    shuffle(ShuffleMode::Xor, v, mask)
}
/// Whether `p` holds in any active lane of the warp.
pub fn vote_any(p: Val<bool>) -> Val<bool> {
    Val::from_ir(b(|b| b.vote(VoteMode::Any, p.v)))
}
/// Whether `p` holds in every active lane of the warp.
pub fn vote_all(p: Val<bool>) -> Val<bool> {
    Val::from_ir(b(|b| b.vote(VoteMode::All, p.v)))
}
/// Bit `i` set where `p` holds in lane `i`.
pub fn ballot(p: Val<bool>) -> Val<u32> {
    Val::from_ir(b(|b| b.vote(VoteMode::Ballot, p.v)))
}

/// `c ? a : b` without branching.
pub fn select<T: Elem>(c: Val<bool>, a: impl IntoVal<T>, b_: impl IntoVal<T>) -> Val<T> {
    let (a, bb) = (a.into_val().v, b_.into_val().v);
    Val::from_ir(b(|b| b.select(c.v, a, bb)))
}

/// One tensor-core step `d = a * b + c` on a 16x8x16 tile (`mma.sync.aligned.m16n8k16`,
/// row-major A, column-major B, f32 accumulators). `a` holds 4 `u32` registers of packed
/// half pairs, `b` 2, `c` 4 f32, per lane in the PTX fragment layout. `elem` is `f16` or `bf16`.
pub fn mma_m16n8k16<H: Elem>(a: Vec4<u32>, b_: Vec2<u32>, c: Vec4<f32>) -> Vec4<f32> {
    let args = vec![a.v, b_.v, c.v];
    let r = b(|b| {
        b.intrinsic(Intrinsic::MmaM16N8K16 { elem: H::TY }, args, Some(Type::Vector(ScalarType::F32, 4)))
    });
    VecVal::from_ir_value(r.unwrap_or(Value(0)))
}

/// Packs two halves (`f16`/`bf16`) into a `u32`: `lo` in bits 0..16.
pub fn pack_half2<H: Elem>(lo: Val<H>, hi: Val<H>) -> Val<u32> {
    let bits = |h: Val<H>| -> Val<u32> {
        // Reinterpret through a 16-bit integer: a half's bits are its value's encoding.
        let as16: Val<u16> = Val::from_ir(b(|b| b.bitcast(h.v, ScalarType::U16)));
        cast::<u32, _>(as16)
    };
    bits(lo) | (bits(hi) << 16u32)
}

// ---------------------------------------------------------------- math

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

// ---------------------------------------------------------------- integer and bit intrinsics

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

// ---------------------------------------------------------------- tensor-core data movement

fn ldmatrix<H: Elem>(s: &Shared<H>, row_start: impl Index, num: u8, trans: bool) -> Value {
    let (m, i) = (s.mem(), row_start.index());
    let ty = if num == 1 { Type::Scalar(ScalarType::U32) } else { Type::Vector(ScalarType::U32, num) };
    b(|b| b.intrinsic(Intrinsic::LdMatrix { mem: m, num, trans }, vec![i], Some(ty))).unwrap_or(Value(0))
}

/// `ldmatrix .x4`: four 8x8 matrices of 16-bit elements from shared memory. Lane `8m + r` passes
/// the element index where row `r` of matrix `m` starts (16-byte aligned); each lane gets one
/// `u32` (two halves: row `lane / 4`, columns `2 * (lane % 4)`, `+1`) per matrix, the layout of
/// an `mma.m16n8k16` fragment. The whole warp must execute it.
pub fn ldmatrix_x4<H: Elem>(s: &Shared<H>, row_start: impl Index) -> Vec4<u32> {
    VecVal::from_ir_value(ldmatrix(s, row_start, 4, false))
}
/// [`ldmatrix_x4`] with each matrix transposed.
pub fn ldmatrix_x4_trans<H: Elem>(s: &Shared<H>, row_start: impl Index) -> Vec4<u32> {
    VecVal::from_ir_value(ldmatrix(s, row_start, 4, true))
}
/// `ldmatrix .x2` (lanes 0..16 give row starts).
pub fn ldmatrix_x2<H: Elem>(s: &Shared<H>, row_start: impl Index) -> Vec2<u32> {
    VecVal::from_ir_value(ldmatrix(s, row_start, 2, false))
}
/// [`ldmatrix_x2`] with each matrix transposed.
pub fn ldmatrix_x2_trans<H: Elem>(s: &Shared<H>, row_start: impl Index) -> Vec2<u32> {
    VecVal::from_ir_value(ldmatrix(s, row_start, 2, true))
}

/// Starts an asynchronous copy of `bytes` (4, 8 or 16, a compile-time value) from global memory
/// at element `src_index` to shared memory at element `dst_index` (both aligned to the copy).
/// The data is ready after [`cp_async_commit`] and a [`cp_async_wait`] covering its group.
pub fn cp_async<T: Elem, M: Memory<T>>(
    dst: &Shared<T>,
    dst_index: impl Index,
    src: &M,
    src_index: impl Index,
    bytes: u32,
) {
    let (d, s) = (dst.mem(), src.mem());
    let (di, si) = (dst_index.index(), src_index.index());
    b(|b| b.intrinsic(Intrinsic::CpAsync { dst: d, src: s, bytes: bytes as u8 }, vec![di, si], None));
}
/// Closes the group of asynchronous copies issued since the previous commit.
pub fn cp_async_commit() {
    b(|b| b.intrinsic(Intrinsic::CpAsyncCommit, vec![], None));
}
/// Waits until at most `pending` committed groups of this thread's copies are still in flight.
pub fn cp_async_wait(pending: u32) {
    b(|b| b.intrinsic(Intrinsic::CpAsyncWait { pending }, vec![], None));
}

/// A compile-time array of runtime variables (registers), indexed with compile-time indices:
/// accumulators and fragments of a register-blocked kernel.
pub struct VarArray<V> {
    vars: Vec<Var<V>>,
}
impl<V: DslValue> VarArray<V> {
    pub fn get(&self, i: usize) -> V {
        self.vars[i].get()
    }
    pub fn set(&self, i: usize, v: impl IntoDsl<V = V>) {
        self.vars[i].set(v)
    }
    pub fn len(&self) -> usize {
        self.vars.len()
    }
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }
}

/// `n` variables, each starting at `init`.
pub fn var_array<I: IntoDsl>(n: usize, init: I) -> VarArray<I::V> {
    let v = init.into_dsl().to_ir();
    let vars = (0..n)
        .map(|_| {
            let var = new_var::<I::V>("arr");
            b(|b| b.write_var(var.var, v));
            var
        })
        .collect();
    VarArray { vars }
}
