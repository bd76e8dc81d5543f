//! Kernel parameters and memory: slices, shared, dynamic shared and local arrays, loads, stores, atomics.

use super::*;

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

/// A memory name no parameter or earlier array has.
fn fresh_name(prefix: &str) -> String {
    with(|c| loop {
        c.counter += 1;
        let name = format!("{prefix}{}", c.counter - 1);
        if !c.b.func().mems.iter().any(|m| m.name == name)
            && !c.b.func().params.iter().any(|p| p.name == name)
        {
            return name;
        }
    })
}

/// The length of a compile-time array as the IR holds it; a length that does not fit is a build
/// error (and an empty array stands in, so the build can go on to report it).
fn array_len(what: &str, name: &str, len: usize, elem: ScalarType) -> u32 {
    u32::try_from(len).unwrap_or_else(|_| {
        fail(BuildError::TooLarge {
            what: if what == "local" { "local array" } else { "shared array" },
            name: name.into(),
            bytes: (len as u64).saturating_mul(elem.size() as u64),
            max: ferrocm_ir::MAX_ARRAY_BYTES,
        });
        0
    })
}

/// A shared-memory array of `len` elements (a compile-time size), one per block, 16-byte aligned.
pub fn shared_array<T: Elem>(len: usize) -> Shared<T> {
    shared_array_aligned(len, 16)
}

/// A shared-memory array of `len` elements aligned to `align` bytes (a power of two from 16 to
/// 1024): TMA destinations with a swizzle need 128 to 1024, `wgmma` operands as their layout says.
pub fn shared_array_aligned<T: Elem>(len: usize, align: u32) -> Shared<T> {
    let name = fresh_name("shared");
    let len = array_len("shared", &name, len, T::TY);
    Shared { mem: b(|b| b.add_mem(&name, T::TY, MemSpace::Shared { len, align })), _t: PhantomData }
}

/// The block's dynamic shared memory (its size is the launch's `shared_mem_bytes`).
pub fn dyn_shared<T: Elem>() -> Shared<T> {
    dyn_shared_aligned(16)
}

/// The block's dynamic shared memory with its start aligned to `align` bytes (16 to 1024).
pub fn dyn_shared_aligned<T: Elem>(align: u32) -> Shared<T> {
    let name = fresh_name("dyn_shared");
    Shared { mem: b(|b| b.add_mem(&name, T::TY, MemSpace::DynShared { align })), _t: PhantomData }
}

/// A per-thread array of `len` elements (a compile-time size).
pub fn local_array<T: Elem>(len: usize) -> Local<T> {
    let name = fresh_name("local");
    let len = array_len("local", &name, len, T::TY);
    Local { mem: b(|b| b.add_mem(&name, T::TY, MemSpace::Local { len })), _t: PhantomData }
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

impl<B: IndexLoad<I>, I> IndexLoad<I> for &B {
    type Out = B::Out;
    fn index_load(&self, i: I) -> B::Out {
        (**self).index_load(i)
    }
}

pub fn index_load<B: IndexLoad<I>, I>(base: &B, i: I) -> B::Out {
    base.index_load(i)
}
/// What `a[i] = v` can store into: kernel memory (a runtime index), or a compile-time array of
/// variables (a compile-time index).
#[diagnostic::on_unimplemented(
    message = "cannot assign to an element of `{Self}`",
    label = "not writable here",
    note = "a `&[T]` parameter is read-only (declare it `&mut [T]`); compile-time arrays take `Var` elements and a `usize` index"
)]
pub trait IndexStore<I, X> {
    fn index_store(&self, i: I, v: X);
}
macro_rules! index_store_mem {
    ($($m:ident),*) => {$(
        impl<T: Elem, I: Index, X: IntoVal<T>> IndexStore<I, X> for $m<T> {
            fn index_store(&self, i: I, v: X) {
                self.store(i, v)
            }
        }
    )*};
}
index_store_mem!(SliceMut, Shared, Local);
impl<B: IndexStore<I, X>, I, X> IndexStore<I, X> for &B {
    fn index_store(&self, i: I, v: X) {
        (**self).index_store(i, v)
    }
}
impl<V: DslValue, X: IntoDsl<V = V>, const N: usize> IndexStore<usize, X> for [Var<V>; N] {
    fn index_store(&self, i: usize, v: X) {
        self[i].set(v)
    }
}
impl<V: DslValue, X: IntoDsl<V = V>> IndexStore<usize, X> for Vec<Var<V>> {
    fn index_store(&self, i: usize, v: X) {
        self[i].set(v)
    }
}

/// `a[i] = v`.
pub fn index_store<B: IndexStore<I, X>, I, X>(b: &B, i: I, v: X) {
    b.index_store(i, v)
}
