//! Vectors (wide accesses, fragments) and compile-time arrays of variables.

use super::*;

/// A 2- or 4-wide vector value, for wide loads and stores.
pub struct VecVal<T, const N: usize> {
    pub(crate) v: Value,
    pub(crate) _t: PhantomData<T>,
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
