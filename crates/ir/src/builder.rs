//! Building a [`Function`] one instruction at a time.
//!
//! The builder checks each instruction's operand types as it is added and records the first
//! error instead of panicking (operator overloads in the kernel language cannot return
//! `Result`); [`Builder::finish`] reports it. After an error, results are still handed out so
//! the front end can keep going.

use crate::*;

/// Why a kernel could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    #[error("{op} expects {expected}, found {found}")]
    TypeMismatch { op: String, expected: String, found: String },
    #[error("`{what}` outside of a loop")]
    NotInLoop { what: &'static str },
    #[error("{what} is not supported: {why}")]
    Unsupported { what: String, why: String },
    #[error("memory `{name}` is read-only")]
    ReadOnly { name: String },
    #[error("unbalanced control flow: {what}")]
    Unbalanced { what: &'static str },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Then { inst_region: Region, index: usize },
    Else,
    LoopBody { inst_region: Region, index: usize },
    Latch,
}

/// Builds one [`Function`].
#[derive(Debug)]
pub struct Builder {
    func: Function,
    stack: Vec<(Region, Frame)>,
    cur: Region,
    error: Option<BuildError>,
}

impl Builder {
    pub fn new(name: impl Into<String>) -> Builder {
        Builder {
            func: Function {
                name: name.into(),
                params: Vec::new(),
                values: Vec::new(),
                vars: Vec::new(),
                mems: Vec::new(),
                regions: vec![Vec::new()],
                max_threads: None,
                min_blocks_per_sm: None,
                body: Region(0),
            },
            stack: Vec::new(),
            cur: Region(0),
            error: None,
        }
    }

    /// The function built so far.
    pub fn func(&self) -> &Function {
        &self.func
    }

    pub fn value_type(&self, v: Value) -> Type {
        self.func.value_type(v)
    }

    /// Records `e` unless an earlier error is recorded.
    pub fn fail(&mut self, e: BuildError) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    pub fn has_error(&self) -> bool {
        self.error.is_some()
    }

    /// The first recorded error, if any.
    pub fn clone_error(&self) -> Option<BuildError> {
        self.error.clone()
    }

    /// The finished function, or the first error.
    /// Declares the largest block the kernel will be launched with ([`Function::max_threads`])
    /// and, if not 0, the blocks per multiprocessor to allocate registers for.
    pub fn set_launch_bounds(&mut self, threads: u32, min_blocks_per_sm: u32) {
        self.func.max_threads = Some(threads);
        self.func.min_blocks_per_sm = (min_blocks_per_sm > 0).then_some(min_blocks_per_sm);
    }

    pub fn finish(mut self) -> Result<Function, BuildError> {
        if !self.stack.is_empty() {
            self.fail(BuildError::Unbalanced { what: "a region is still open" });
        }
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.func),
        }
    }

    fn new_value(&mut self, ty: Type) -> Value {
        self.func.values.push(ty);
        Value(self.func.values.len() as u32 - 1)
    }

    fn new_region(&mut self) -> Region {
        self.func.regions.push(Vec::new());
        Region(self.func.regions.len() as u32 - 1)
    }

    fn emit(&mut self, op: Op, ty: Option<Type>) -> Option<Value> {
        let result = ty.map(|t| self.new_value(t));
        self.func.regions[self.cur.0 as usize].push(Inst { result, op });
        result
    }

    fn emit_v(&mut self, op: Op, ty: Type) -> Value {
        // `emit` returns `Some` whenever a type is given.
        self.emit(op, Some(ty)).unwrap_or(Value(0))
    }

    fn mismatch(&mut self, op: &str, expected: &str, found: Type) {
        self.fail(BuildError::TypeMismatch {
            op: op.to_string(),
            expected: expected.to_string(),
            found: found.to_string(),
        });
    }

    fn expect_scalar(&mut self, op: &str, v: Value) -> ScalarType {
        let t = self.value_type(v);
        if !t.is_scalar() {
            self.mismatch(op, "a scalar", t);
        }
        t.elem()
    }

    // ---- parameters and memory ----

    /// Adds a scalar parameter and returns its value.
    pub fn scalar_param(&mut self, name: &str, ty: ScalarType) -> Value {
        self.func.params.push(Param { name: name.to_string(), kind: ParamKind::Scalar(ty) });
        let idx = self.func.params.len() as u32 - 1;
        self.emit_v(Op::Param(idx), ty.into())
    }

    /// Adds a slice parameter and returns the memory it names.
    pub fn slice_param(&mut self, name: &str, elem: ScalarType, mutable: bool) -> Mem {
        self.func.params.push(Param { name: name.to_string(), kind: ParamKind::Slice { elem, mutable } });
        let param = self.func.params.len() as u32 - 1;
        self.add_mem(name, elem, MemSpace::Global { param, mutable })
    }

    /// Adds a shared, dynamic shared or local memory object.
    pub fn add_mem(&mut self, name: &str, elem: ScalarType, space: MemSpace) -> Mem {
        self.func.mems.push(MemData { name: name.to_string(), elem, space });
        Mem(self.func.mems.len() as u32 - 1)
    }

    pub fn var(&mut self, name: &str, ty: Type) -> Var {
        self.func.vars.push(VarData { name: name.to_string(), ty });
        Var(self.func.vars.len() as u32 - 1)
    }

    // ---- plain values ----

    pub fn constant(&mut self, ty: ScalarType, bits: u64) -> Value {
        self.emit_v(Op::Const(Const { ty, bits }), ty.into())
    }

    pub fn special(&mut self, s: Special) -> Value {
        self.emit_v(Op::Special(s), ScalarType::U32.into())
    }

    pub fn len(&mut self, mem: Mem) -> Value {
        match self.func.mem(mem).space {
            MemSpace::Global { .. } | MemSpace::DynShared => {}
            MemSpace::Shared { len } | MemSpace::Local { len } => {
                return self.constant(ScalarType::U64, len as u64)
            }
        }
        self.emit_v(Op::Len(mem), ScalarType::U64.into())
    }

    pub fn unary(&mut self, op: UnaryOp, a: Value) -> Value {
        let t = self.expect_scalar("unary op", a);
        let ok = match op {
            UnaryOp::Neg => t.is_signed(),
            UnaryOp::Not => t.is_int() || t == ScalarType::Bool,
            UnaryOp::Abs => t.is_signed(),
            UnaryOp::LeadingZeros | UnaryOp::TrailingZeros | UnaryOp::CountOnes | UnaryOp::ReverseBits => {
                t.is_int() && t.size() >= 4
            }
            _ => t.is_float(),
        };
        if !ok {
            let expected =
                if t.is_int() { "a 32- or 64-bit integer" } else { "a type the operation supports" };
            self.mismatch(&format!("{op:?}"), expected, t.into());
        }
        self.emit_v(Op::Unary(op, a), op.result_type(t).into())
    }

    pub fn binary(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        let ta = self.expect_scalar("binary op", a);
        let tb = self.expect_scalar("binary op", b);
        let ok = match op {
            BinaryOp::Shl | BinaryOp::Shr => ta.is_int() && tb.is_int(),
            _ if ta != tb => false,
            BinaryOp::And | BinaryOp::Or | BinaryOp::Xor => ta.is_int() || ta == ScalarType::Bool,
            BinaryOp::Pow => ta.is_float(),
            BinaryOp::MulHi => ta.is_int() && ta.size() >= 4,
            BinaryOp::MulWide => op.result_type(ta).is_some(),
            _ => ta != ScalarType::Bool,
        };
        if !ok {
            let expected = match op {
                BinaryOp::MulHi => "two 32- or 64-bit integers of one type",
                BinaryOp::MulWide => "two u32 or two i32",
                _ => "operands of one supported type",
            };
            self.fail(BuildError::TypeMismatch {
                op: format!("{op:?}"),
                expected: expected.into(),
                found: format!("{ta} and {tb}"),
            });
        }
        self.emit_v(Op::Binary(op, a, b), op.result_type(ta).unwrap_or(ta).into())
    }

    pub fn cmp(&mut self, op: CmpOp, a: Value, b: Value) -> Value {
        let ta = self.expect_scalar("comparison", a);
        let tb = self.expect_scalar("comparison", b);
        if ta != tb {
            self.fail(BuildError::TypeMismatch {
                op: format!("{op:?}"),
                expected: "operands of one type".into(),
                found: format!("{ta} and {tb}"),
            });
        }
        self.emit_v(Op::Cmp(op, a, b), ScalarType::Bool.into())
    }

    pub fn select(&mut self, c: Value, a: Value, b: Value) -> Value {
        let tc = self.value_type(c);
        if tc != ScalarType::Bool.into() {
            self.mismatch("select", "bool", tc);
        }
        let (ta, tb) = (self.value_type(a), self.value_type(b));
        if ta != tb {
            self.mismatch("select", &ta.to_string(), tb);
        }
        self.emit_v(Op::Select(c, a, b), ta)
    }

    pub fn cast(&mut self, a: Value, to: ScalarType) -> Value {
        let t = self.expect_scalar("cast", a);
        if t == to {
            return a;
        }
        self.emit_v(Op::Cast(a), to.into())
    }

    pub fn bitcast(&mut self, a: Value, to: ScalarType) -> Value {
        let t = self.expect_scalar("bitcast", a);
        if t.size() != to.size() || t == ScalarType::Bool || to == ScalarType::Bool {
            self.mismatch("bitcast", &format!("a non-bool type of {} bytes", to.size()), t.into());
        }
        self.emit_v(Op::Bitcast(a), to.into())
    }

    pub fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        let t = self.expect_scalar("fma", a);
        for v in [b, c] {
            let tv = self.value_type(v);
            if tv != t.into() {
                self.mismatch("fma", t.name(), tv);
            }
        }
        if !t.is_float() {
            self.mismatch("fma", "a float type", t.into());
        }
        self.emit_v(Op::Fma(a, b, c), t.into())
    }

    pub fn make_vector(&mut self, parts: &[Value]) -> Value {
        let Some(&first) = parts.first() else {
            self.fail(BuildError::Unsupported {
                what: "an empty vector".into(),
                why: "vectors have 2 or 4 elements".into(),
            });
            return self.constant(ScalarType::U32, 0);
        };
        let t = self.expect_scalar("vector", first);
        for &p in parts {
            let tp = self.value_type(p);
            if tp != t.into() {
                self.mismatch("vector", t.name(), tp);
            }
        }
        if parts.len() != 2 && parts.len() != 4 {
            self.fail(BuildError::Unsupported {
                what: format!("a vector of {} elements", parts.len()),
                why: "vectors have 2 or 4 elements".into(),
            });
        }
        self.emit_v(Op::MakeVector(parts.to_vec()), Type::Vector(t, parts.len() as u8))
    }

    pub fn extract(&mut self, v: Value, lane: u8) -> Value {
        let t = self.value_type(v);
        if t.is_scalar() || lane as u32 >= t.lanes() {
            self.mismatch("extract", "a vector with that many lanes", t);
        }
        self.emit_v(Op::Extract(v, lane), t.elem().into())
    }

    pub fn read_var(&mut self, var: Var) -> Value {
        let t = self.func.vars[var.0 as usize].ty;
        self.emit_v(Op::ReadVar(var), t)
    }

    pub fn write_var(&mut self, var: Var, v: Value) {
        let (t, tv) = (self.func.vars[var.0 as usize].ty, self.value_type(v));
        if t != tv {
            self.mismatch("assignment", &t.to_string(), tv);
        }
        self.emit(Op::WriteVar(var, v), None);
    }

    // ---- memory ----

    fn check_index(&mut self, op: &str, index: Value) {
        let t = self.value_type(index);
        if !(t.is_scalar() && t.elem().is_int()) {
            self.mismatch(op, "an integer index", t);
        }
    }

    /// Loads `lanes` (1, 2 or 4) consecutive elements.
    pub fn load(&mut self, mem: Mem, index: Value, lanes: u8) -> Value {
        self.check_index("load", index);
        let elem = self.func.mem(mem).elem;
        let ty = if lanes == 1 { Type::Scalar(elem) } else { Type::Vector(elem, lanes) };
        self.emit_v(Op::Load { mem, index }, ty)
    }

    pub fn store(&mut self, mem: Mem, index: Value, value: Value) {
        self.check_index("store", index);
        let m = self.func.mem(mem).clone();
        if let MemSpace::Global { mutable: false, .. } = m.space {
            self.fail(BuildError::ReadOnly { name: m.name.clone() });
        }
        let t = self.value_type(value);
        if t.elem() != m.elem {
            self.mismatch(&format!("store to `{}`", m.name), m.elem.name(), t);
        }
        self.emit(Op::Store { mem, index, value }, None);
    }

    pub fn atomic(
        &mut self,
        op: AtomicOp,
        mem: Mem,
        index: Value,
        value: Value,
        compare: Option<Value>,
    ) -> Value {
        self.check_index("atomic", index);
        let m = self.func.mem(mem).clone();
        if let MemSpace::Global { mutable: false, .. } = m.space {
            self.fail(BuildError::ReadOnly { name: m.name.clone() });
        }
        if matches!(m.space, MemSpace::Local { .. }) {
            self.fail(BuildError::Unsupported {
                what: "an atomic on a local array".into(),
                why: "atomics work on global and shared memory".into(),
            });
        }
        let t = self.value_type(value);
        if t != m.elem.into() {
            self.mismatch("atomic", m.elem.name(), t);
        }
        use ScalarType::*;
        let ok = match m.elem {
            I32 | U32 | I64 | U64 => true,
            F32 | F64 => op == AtomicOp::Add || op == AtomicOp::Exch && m.elem == F32,
            _ => false,
        };
        if !ok {
            self.fail(BuildError::Unsupported {
                what: format!("atomic {op:?} on {}", m.elem),
                why: "atomics support i32, u32, i64, u64, and add on f32/f64".into(),
            });
        }
        self.emit_v(Op::Atomic { op, mem, index, value, compare }, m.elem.into())
    }

    // ---- warp and block ----

    pub fn shuffle(&mut self, mode: ShuffleMode, value: Value, lane: Value) -> Value {
        let t = self.expect_scalar("shuffle", value);
        let tl = self.value_type(lane);
        if tl != ScalarType::U32.into() {
            self.mismatch("shuffle lane", "u32", tl);
        }
        self.emit_v(Op::Shuffle { mode, value, lane }, t.into())
    }

    pub fn vote(&mut self, mode: VoteMode, pred: Value) -> Value {
        let t = self.value_type(pred);
        if t != ScalarType::Bool.into() {
            self.mismatch("vote", "bool", t);
        }
        let ty = if mode == VoteMode::Ballot { ScalarType::U32 } else { ScalarType::Bool };
        self.emit_v(Op::Vote { mode, pred }, ty.into())
    }

    pub fn barrier(&mut self) {
        self.emit(Op::Barrier, None);
    }

    pub fn fence(&mut self, scope: FenceScope) {
        self.emit(Op::Fence(scope), None);
    }

    pub fn intrinsic(&mut self, i: Intrinsic, args: Vec<Value>, result: Option<Type>) -> Option<Value> {
        match &i {
            Intrinsic::LdMatrix { mem, num, .. } => {
                let m = self.func.mem(*mem).clone();
                let shared = matches!(m.space, MemSpace::Shared { .. } | MemSpace::DynShared);
                if !shared || m.elem.size() != 2 || ![1, 2, 4].contains(num) {
                    self.fail(BuildError::Unsupported {
                        what: format!("ldmatrix x{num} on `{}` ({})", m.name, m.elem),
                        why: "ldmatrix reads 1, 2 or 4 matrices of 16-bit elements from shared memory".into(),
                    });
                }
            }
            Intrinsic::CpAsync { dst, src, bytes } => {
                let (d, s) = (self.func.mem(*dst).clone(), self.func.mem(*src).clone());
                let ok = matches!(d.space, MemSpace::Shared { .. } | MemSpace::DynShared)
                    && matches!(s.space, MemSpace::Global { .. })
                    && d.elem == s.elem
                    && [4, 8, 16].contains(bytes)
                    && (*bytes as u32).is_multiple_of(d.elem.size());
                if !ok {
                    self.fail(BuildError::Unsupported {
                        what: format!("cp.async of {bytes} bytes from `{}` to `{}`", s.name, d.name),
                        why: "cp.async copies 4, 8 or 16 bytes from global to shared memory of one element type".into(),
                    });
                }
            }
            _ => {}
        }
        for &a in &args {
            if a.0 as usize >= self.func.values.len() {
                self.fail(BuildError::Unbalanced { what: "intrinsic operand" });
            }
        }
        self.emit(Op::Intrinsic(i, args), result)
    }

    // ---- control flow ----

    fn loop_depth(&self) -> usize {
        self.stack.iter().filter(|(_, f)| matches!(f, Frame::LoopBody { .. } | Frame::Latch)).count()
    }

    /// Opens `if cond`; instructions go to the then-region until [`Builder::begin_else`] or
    /// [`Builder::end_if`].
    pub fn begin_if(&mut self, cond: Value) {
        let t = self.value_type(cond);
        if t != ScalarType::Bool.into() {
            self.mismatch("if", "bool", t);
        }
        let (then_region, else_region) = (self.new_region(), self.new_region());
        self.emit(Op::If { cond, then_region, else_region }, None);
        let index = self.func.regions[self.cur.0 as usize].len() - 1;
        self.stack.push((self.cur, Frame::Then { inst_region: self.cur, index }));
        self.cur = then_region;
    }

    pub fn begin_else(&mut self) {
        match self.stack.last().copied() {
            Some((outer, Frame::Then { inst_region, index })) => {
                let Op::If { else_region, .. } = self.func.regions[inst_region.0 as usize][index].op else {
                    return self.fail(BuildError::Unbalanced { what: "else without if" });
                };
                self.stack.pop();
                self.stack.push((outer, Frame::Else));
                self.cur = else_region;
            }
            _ => self.fail(BuildError::Unbalanced { what: "else without if" }),
        }
    }

    pub fn end_if(&mut self) {
        match self.stack.pop() {
            Some((outer, Frame::Then { .. } | Frame::Else)) => self.cur = outer,
            other => {
                if let Some(o) = other {
                    self.stack.push(o);
                }
                self.fail(BuildError::Unbalanced { what: "end of if without if" })
            }
        }
    }

    /// Opens a loop; instructions go to its body until [`Builder::begin_latch`].
    pub fn begin_loop(&mut self) {
        let (body, latch) = (self.new_region(), self.new_region());
        self.emit(Op::Loop { body, latch }, None);
        let index = self.func.regions[self.cur.0 as usize].len() - 1;
        self.stack.push((self.cur, Frame::LoopBody { inst_region: self.cur, index }));
        self.cur = body;
    }

    pub fn begin_latch(&mut self) {
        match self.stack.last().copied() {
            Some((outer, Frame::LoopBody { inst_region, index })) => {
                let Op::Loop { latch, .. } = self.func.regions[inst_region.0 as usize][index].op else {
                    return self.fail(BuildError::Unbalanced { what: "latch without loop" });
                };
                self.stack.pop();
                self.stack.push((outer, Frame::Latch));
                self.cur = latch;
            }
            _ => self.fail(BuildError::Unbalanced { what: "latch without loop" }),
        }
    }

    /// Closes the loop (opening an empty latch first if none was opened).
    pub fn end_loop(&mut self) {
        if let Some((_, Frame::LoopBody { .. })) = self.stack.last() {
            self.begin_latch();
        }
        match self.stack.pop() {
            Some((outer, Frame::Latch)) => self.cur = outer,
            other => {
                if let Some(o) = other {
                    self.stack.push(o);
                }
                self.fail(BuildError::Unbalanced { what: "end of loop without loop" })
            }
        }
    }

    pub fn break_(&mut self, depth: u32) {
        if depth as usize >= self.loop_depth() {
            return self.fail(BuildError::NotInLoop { what: "break" });
        }
        self.emit(Op::Break { depth }, None);
    }

    pub fn continue_(&mut self, depth: u32) {
        if depth as usize >= self.loop_depth() {
            return self.fail(BuildError::NotInLoop { what: "continue" });
        }
        self.emit(Op::Continue { depth }, None);
    }

    pub fn return_(&mut self) {
        self.emit(Op::Return, None);
    }

    /// Number of loops enclosing the current position.
    pub fn loops_open(&self) -> u32 {
        self.loop_depth() as u32
    }
}
