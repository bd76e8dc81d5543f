//! Runtime values and mutable variables.

use super::*;

/// A runtime value of element type `T` (a handle to an IR value).
pub struct Val<T> {
    pub(crate) v: Value,
    pub(crate) _t: PhantomData<T>,
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
    pub(crate) var: ferrocm_ir::Var,
    pub(crate) _v: PhantomData<V>,
}
impl<V> Clone for Var<V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<V> Copy for Var<V> {}

impl<V: DslValue> Var<V> {
    /// A new variable holding `init` (what `let mut` makes, for struct fields).
    pub fn new(init: impl IntoDsl<V = V>) -> Var<V> {
        var("field", init)
    }
    pub fn get(self) -> V {
        V::from_ir_value(b(|b| b.read_var(self.var)))
    }
    fn set_value_ir(self, v: V) {
        let v = v.to_ir();
        b(|b| b.write_var(self.var, v))
    }
    pub fn set(self, v: impl IntoDsl<V = V>) {
        let v = v.into_dsl().to_ir();
        b(|b| b.write_var(self.var, v))
    }
}

/// A variable's value where a runtime value is expected (reads it).
impl<T: Elem> IntoVal<T> for Var<Val<T>> {
    fn into_val(self) -> Val<T> {
        self.get()
    }
}

/// What `place = v` and `place op= v` assign to in device code: a variable (a struct field that
/// holds one, say), read with [`Place::value`], written with [`Place::set_value`].
pub trait Place {
    type V: DslValue;
    fn value(&self) -> Self::V;
    fn set_value(&self, v: Self::V);
}
impl<V: DslValue> Place for Var<V> {
    type V = V;
    fn value(&self) -> V {
        self.get()
    }
    fn set_value(&self, v: V) {
        self.set_value_ir(v)
    }
}
impl<P: Place> Place for &P {
    type V = P::V;
    fn value(&self) -> P::V {
        (**self).value()
    }
    fn set_value(&self, v: P::V) {
        (**self).set_value(v)
    }
}

/// `place = v` for a field or element that holds a variable.
pub fn assign<P: Place>(place: &P, v: impl IntoDsl<V = P::V>) {
    place.set_value(v.into_dsl())
}

pub(crate) fn new_var<V: DslValue>(name: &str) -> Var<V> {
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
