//! Control flow: `if` merging values, loops, `break`/`continue`/`return`, inlined device functions.

use super::*;

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
/// (`if c { x[i] } else { 0.0f32 }`); the result is then a runtime value. On a compile-time
/// condition this is Rust's `if`: the branches may produce any one type (a tuple, an array, a
/// `Vec` of runtime values, a struct).
pub fn if_else<C: IfElse<A, B>, A, B>(c: C, t: impl FnOnce() -> A, e: impl FnOnce() -> B) -> C::Out {
    c.if_else(t, e)
}

/// An `if` on a condition of type `Self` with branches of types `A` and `B`: a compile-time
/// `bool` picks a branch while the kernel is built (any type, or a runtime and a plain value
/// of one element type); a runtime `Val<bool>` builds both and merges their values
/// ([`Merge`], [`Unify`]).
pub trait IfElse<A, B> {
    type Out;
    fn if_else(self, t: impl FnOnce() -> A, e: impl FnOnce() -> B) -> Self::Out;
}
impl<A> IfElse<A, A> for bool {
    type Out = A;
    fn if_else(self, t: impl FnOnce() -> A, e: impl FnOnce() -> A) -> A {
        if self {
            t()
        } else {
            e()
        }
    }
}
impl<T: Elem> IfElse<Val<T>, T> for bool {
    type Out = Val<T>;
    fn if_else(self, t: impl FnOnce() -> Val<T>, e: impl FnOnce() -> T) -> Val<T> {
        if self {
            t()
        } else {
            Val::constant(e())
        }
    }
}
impl<T: Elem> IfElse<T, Val<T>> for bool {
    type Out = Val<T>;
    fn if_else(self, t: impl FnOnce() -> T, e: impl FnOnce() -> Val<T>) -> Val<T> {
        if self {
            Val::constant(t())
        } else {
            e()
        }
    }
}
impl<A: Unify<B>, B> IfElse<A, B> for Val<bool> {
    type Out = A::Out;
    fn if_else(self, t: impl FnOnce() -> A, e: impl FnOnce() -> B) -> A::Out {
        Cond::if_else(self, || t().left(), || A::right(e()))
    }
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

/// A `for` over a compile-time iterator (`for (k, &c) in COEFFS.iter().enumerate()`): `body`
/// runs the Rust loop while the kernel is built, unrolling it; `break` and `continue` inside
/// are build errors, as in other unrolled loops.
pub fn unrolled<R>(body: impl FnOnce() -> R) -> R {
    with(|c| c.loops.push(LoopKind::Unrolled));
    let r = body();
    with(|c| c.loops.pop());
    r
}

/// The number of runtime regions (`if` branches, loop bodies) open where the kernel is being
/// built; see [`comptime_assign`].
pub fn region_depth() -> usize {
    b(|b| b.region_depth())
}

/// Checks an assignment to a `#[comptime] let mut` binding declared at region depth `depth`:
/// such a binding is a Rust variable holding a value of the build, so assigning it inside a
/// runtime `if` or loop opened since would not make its value depend on the runtime condition
/// (it is a build error).
pub fn comptime_assign(depth: usize, name: &str) {
    if region_depth() != depth {
        fail(BuildError::Unsupported {
            what: format!("assigning the compile-time binding `{name}` inside a runtime `if` or loop"),
            why: "its value is fixed while the kernel is built; declare it `let mut` (a kernel variable) \
                  to change it at run time"
                .into(),
        })
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
