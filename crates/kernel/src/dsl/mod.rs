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

use ferrocm_ir::intrinsics::{self, Call, Def};
use ferrocm_ir::{
    AtomicOp, Axis, BinaryOp, BuildError, Builder, CmpOp, FenceScope, Function, Mem, MemSpace, ScalarType,
    ShuffleMode, Special, Type, UnaryOp, Value, VoteMode,
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

/// Emits a call of intrinsic `def` with a result of type `ty`.
pub(crate) fn intrinsic_value(
    def: &'static Def,
    imms: &[(&str, i64)],
    mems: &[Mem],
    args: Vec<Value>,
    ty: Type,
) -> Value {
    let call = Call::new(def, imms, mems, &[]);
    b(|b| b.intrinsic_value(call, args, ty))
}

/// Emits a call of intrinsic `def` without a result.
pub(crate) fn intrinsic(def: &'static Def, imms: &[(&str, i64)], mems: &[Mem], args: Vec<Value>) {
    let call = Call::new(def, imms, mems, &[]);
    b(|b| b.intrinsic(call, args));
}

mod builtins;
mod control;
mod elem;
mod hopper;
mod math;
mod memory;
mod operators;
mod tensor;
mod value;
mod vector;

pub use builtins::*;
pub use control::*;
pub use elem::*;
pub use hopper::*;
pub use math::*;
pub use memory::*;
pub use operators::*;
pub use tensor::*;
pub use value::*;
pub use vector::*;
