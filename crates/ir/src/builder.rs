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
    #[error("{what} `{name}` of {bytes} bytes is larger than any device allows ({max} bytes at most)")]
    TooLarge { what: &'static str, name: String, bytes: u64, max: u64 },
    #[error("`{name}`: {problem}")]
    Intrinsic { name: String, problem: String },
    #[error(
        "`{name}` is not a valid {what} name: names are letters, digits and `_`, not starting with a digit"
    )]
    BadName { what: &'static str, name: String },
    #[error("two {what}s are called `{name}`")]
    DuplicateName { what: &'static str, name: String },
}

/// Whether `s` is a name the text form can spell: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The largest array a kernel can declare (its byte size must fit the 32-bit sizes devices report).
pub const MAX_ARRAY_BYTES: u64 = u32::MAX as u64;

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
        let name = name.into();
        let error = (!is_name(&name)).then(|| BuildError::BadName { what: "kernel", name: name.clone() });
        Builder {
            func: Function {
                name,
                params: Vec::new(),
                attrs: KernelAttrs::default(),
                values: Vec::new(),
                vars: Vec::new(),
                mems: Vec::new(),
                regions: vec![Vec::new()],
                body: Region(0),
            },
            stack: Vec::new(),
            cur: Region(0),
            error,
        }
    }

    /// Sets how the kernel must be launched.
    pub fn set_attrs(&mut self, attrs: KernelAttrs) {
        for (what, v) in
            [("maximum threads", attrs.max_threads), ("blocks per multiprocessor", attrs.min_blocks_per_sm)]
        {
            if v == Some(0) {
                self.fail(BuildError::Unsupported {
                    what: format!("{what} of 0"),
                    why: "it must be at least 1".into(),
                });
            }
        }
        if let Some(c) = attrs.cluster {
            if c.contains(&0) || c.iter().map(|&x| x as u64).product::<u64>() > 16 {
                self.fail(BuildError::Unsupported {
                    what: format!("a cluster of {c:?} blocks"),
                    why: "clusters have 1 to 16 blocks".into(),
                });
            }
        }
        self.func.attrs = attrs;
    }

    fn check_param_name(&mut self, name: &str) {
        if !is_name(name) {
            self.fail(BuildError::BadName { what: "parameter", name: name.into() });
        } else if self.func.params.iter().any(|p| p.name == name) {
            self.fail(BuildError::DuplicateName { what: "parameter", name: name.into() });
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
        self.check_param_name(name);
        self.func.params.push(Param { name: name.to_string(), kind: ParamKind::Scalar(ty) });
        let idx = self.func.params.len() as u32 - 1;
        self.emit_v(Op::Param(idx), ty.into())
    }

    /// Adds a slice parameter and returns the memory it names.
    pub fn slice_param(&mut self, name: &str, elem: ScalarType, mutable: bool) -> Mem {
        self.check_param_name(name);
        self.func.params.push(Param { name: name.to_string(), kind: ParamKind::Slice { elem, mutable } });
        let param = self.func.params.len() as u32 - 1;
        self.add_mem(name, elem, MemSpace::Global { param, mutable })
    }

    /// Adds a tensor-map parameter (128 bytes by value) and returns the memory TMA intrinsics
    /// name it by.
    pub fn tensor_map_param(&mut self, name: &str) -> Mem {
        self.check_param_name(name);
        self.func.params.push(Param { name: name.to_string(), kind: ParamKind::TensorMap });
        let param = self.func.params.len() as u32 - 1;
        self.add_mem(name, ScalarType::U8, MemSpace::TensorMap { param })
    }

    /// Adds a shared, dynamic shared or local memory object. An array whose byte size cannot
    /// exist on any device, or an alignment that is not a power of two from 16 to 1024, is an
    /// error.
    pub fn add_mem(&mut self, name: &str, elem: ScalarType, space: MemSpace) -> Mem {
        if !is_name(name) {
            self.fail(BuildError::BadName { what: "memory", name: name.into() });
        } else if self.func.mems.iter().any(|m| m.name == name) {
            self.fail(BuildError::DuplicateName { what: "memory", name: name.into() });
        }
        let data = MemData { name: name.to_string(), elem, space };
        let what = match space {
            MemSpace::Local { .. } => "local array",
            _ => "shared array",
        };
        if data.bytes() > MAX_ARRAY_BYTES {
            self.fail(BuildError::TooLarge {
                what,
                name: name.into(),
                bytes: data.bytes(),
                max: MAX_ARRAY_BYTES,
            });
        }
        if let MemSpace::Shared { align, .. } | MemSpace::DynShared { align } = space {
            if !(align.is_power_of_two() && (16..=1024).contains(&align)) {
                self.fail(BuildError::Unsupported {
                    what: format!("shared memory `{name}` aligned to {align} bytes"),
                    why: "alignments are powers of two from 16 to 1024".into(),
                });
            }
        }
        self.func.mems.push(data);
        Mem(self.func.mems.len() as u32 - 1)
    }

    pub fn var(&mut self, name: &str, ty: Type) -> Var {
        if !is_name(name) {
            self.fail(BuildError::BadName { what: "variable", name: name.into() });
        }
        if let Type::Vector(_, n) = ty {
            if !(2..=Type::MAX_LANES).contains(&(n as u32)) {
                self.fail(BuildError::Unsupported {
                    what: format!("a variable of {n} elements"),
                    why: format!("vectors have 2 to {} elements", Type::MAX_LANES),
                });
            }
        }
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
            MemSpace::Global { .. } | MemSpace::DynShared { .. } | MemSpace::TensorMap { .. } => {}
            MemSpace::Shared { len, .. } | MemSpace::Local { len } => {
                return self.constant(ScalarType::U64, len as u64)
            }
            MemSpace::Addressed(_) => {
                self.fail(BuildError::Unsupported {
                    what: format!("the length of byte-addressed memory `{}`", self.func.mem(mem).name),
                    why: "byte-addressed memory has no length; its accesses are checked one by one".into(),
                });
                return self.constant(ScalarType::U64, 0);
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
        if !(2..=Type::MAX_LANES as usize).contains(&parts.len()) {
            self.fail(BuildError::Unsupported {
                what: format!("a vector of {} elements", parts.len()),
                why: format!("vectors have 2 to {} elements", Type::MAX_LANES),
            });
            return self.constant(ScalarType::U32, 0);
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

    /// Element `lane` of vector variable `var`.
    pub fn read_var_lane(&mut self, var: Var, lane: u8) -> Value {
        let t = self.func.vars[var.0 as usize].ty;
        if t.is_scalar() || lane as u32 >= t.lanes() {
            self.mismatch("read of a variable element", "a vector variable with that many elements", t);
        }
        self.emit_v(Op::ReadVarLane(var, lane), t.elem().into())
    }

    /// Writes element `lane` of vector variable `var`.
    pub fn write_var_lane(&mut self, var: Var, lane: u8, v: Value) {
        let (t, tv) = (self.func.vars[var.0 as usize].ty, self.value_type(v));
        if t.is_scalar() || lane as u32 >= t.lanes() {
            self.mismatch("write of a variable element", "a vector variable with that many elements", t);
        }
        if tv != t.elem().into() {
            self.mismatch("write of a variable element", t.elem().name(), tv);
        }
        self.emit(Op::WriteVarLane(var, lane, v), None);
    }

    pub fn write_var(&mut self, var: Var, v: Value) {
        let (t, tv) = (self.func.vars[var.0 as usize].ty, self.value_type(v));
        if t != tv {
            self.mismatch("assignment", &t.to_string(), tv);
        }
        self.emit(Op::WriteVar(var, v), None);
    }

    // ---- memory ----

    /// Loads and stores move 1, 2 or 4 elements of an array, not of a tensor map.
    fn check_access(&mut self, op: &str, mem: Mem, lanes: u8) {
        let m = self.func.mem(mem).clone();
        if ![1, 2, 4].contains(&lanes) {
            self.fail(BuildError::Unsupported {
                what: format!("a {op} of {lanes} elements of `{}`", m.name),
                why: "loads and stores move 1, 2 or 4 elements".into(),
            });
        }
        if matches!(m.space, MemSpace::TensorMap { .. }) {
            self.fail(BuildError::Unsupported {
                what: format!("a {op} of tensor map `{}`", m.name),
                why: "tensor maps are read by TMA copies only".into(),
            });
        }
    }

    fn check_index(&mut self, op: &str, mem: Mem, index: Value) {
        let t = self.value_type(index);
        if let MemSpace::Addressed(_) = self.func.mem(mem).space {
            if !matches!(t, Type::Scalar(ScalarType::U32 | ScalarType::U64)) {
                self.mismatch(op, "a u32 or u64 byte address", t);
            }
        } else if !(t.is_scalar() && t.elem().is_int()) {
            self.mismatch(op, "an integer index", t);
        }
    }

    /// Loads `lanes` (1, 2 or 4) consecutive elements.
    pub fn load(&mut self, mem: Mem, index: Value, lanes: u8) -> Value {
        self.check_index("load", mem, index);
        self.check_access("load", mem, lanes);
        let elem = self.func.mem(mem).elem;
        let ty = if lanes == 1 { Type::Scalar(elem) } else { Type::Vector(elem, lanes) };
        self.emit_v(Op::Load { mem, index }, ty)
    }

    pub fn store(&mut self, mem: Mem, index: Value, value: Value) {
        self.check_index("store", mem, index);
        let lanes = self.value_type(value).lanes() as u8;
        self.check_access("store", mem, lanes);
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

    /// An atomic read-modify-write of element `index` of `mem`; the old value (the `atomic`
    /// intrinsic).
    pub fn atomic(
        &mut self,
        op: AtomicOp,
        mem: Mem,
        index: Value,
        value: Value,
        compare: Option<Value>,
    ) -> Value {
        let call = Call::new(
            &intrinsics::atomic::ATOMIC,
            &[("op", intrinsics::atomic::atomic_imm(op))],
            &[mem],
            &[],
        );
        let mut args = vec![index, value];
        args.extend(compare);
        self.intrinsic_value(call, args, self.func.mem(mem).elem.into())
    }

    // ---- warp and block ----

    /// The value of another lane (the `shfl` intrinsic).
    pub fn shuffle(&mut self, mode: ShuffleMode, value: Value, lane: Value) -> Value {
        let call = Call::new(&intrinsics::warp::SHFL, &[("mode", mode as i64)], &[], &[]);
        let ty = self.value_type(value);
        self.intrinsic_value(call, vec![value, lane], ty)
    }

    /// A warp vote (the `vote` intrinsic).
    pub fn vote(&mut self, mode: VoteMode, pred: Value) -> Value {
        let call = Call::new(&intrinsics::warp::VOTE, &[("mode", mode as i64)], &[], &[]);
        let ty = if mode == VoteMode::Ballot { ScalarType::U32 } else { ScalarType::Bool };
        self.intrinsic_value(call, vec![pred], ty.into())
    }

    pub fn barrier(&mut self) {
        self.emit(Op::Barrier, None);
    }

    /// A memory fence (the `fence` intrinsic).
    pub fn fence(&mut self, scope: FenceScope) {
        let call = Call::new(&intrinsics::atomic::FENCE, &[("scope", scope as i64)], &[], &[]);
        self.intrinsic(call, vec![]);
    }

    /// Device `printf` of the format and `vprintf` argument buffer at two generic addresses
    /// (the [`intrinsics::host::PRINTF`] row); the number of arguments.
    pub fn printf(&mut self, format: Value, args: Value) -> Value {
        let call = Call::new(&intrinsics::host::PRINTF, &[], &[], &[]);
        self.intrinsic_value(call, vec![format, args], ScalarType::I32.into())
    }

    /// A failed device-side assertion (the [`intrinsics::host::ASSERT_FAIL`] row): generic
    /// addresses of the message, file and function names, and the line.
    pub fn assert_fail(&mut self, message: Value, file: Value, function: Value, line: Value) {
        let call = Call::new(&intrinsics::host::ASSERT_FAIL, &[], &[], &[]);
        self.intrinsic(call, vec![message, file, function, line]);
    }

    /// `trap`: stops the kernel with an error.
    pub fn trap(&mut self) {
        self.intrinsic(Call::new(&intrinsics::host::TRAP, &[], &[], &[]), vec![]);
    }

    /// `nanosleep` for up to `ns` (u32) nanoseconds.
    pub fn nanosleep(&mut self, ns: Value) {
        self.intrinsic(Call::new(&intrinsics::host::NANOSLEEP, &[], &[], &[]), vec![ns]);
    }

    /// A call of an intrinsic; its row checks the operands and gives the result type. On a
    /// mismatch the error is recorded and no result is produced.
    pub fn intrinsic(&mut self, call: Call, args: Vec<Value>) -> Option<Value> {
        let mut types = Vec::with_capacity(args.len());
        for &a in &args {
            match self.func.values.get(a.0 as usize) {
                Some(t) => types.push(*t),
                None => {
                    self.fail(BuildError::Unbalanced { what: "intrinsic operand" });
                    return None;
                }
            }
        }
        match call.check(&self.func, &types) {
            Ok(result) => self.emit(Op::Intrinsic(call, args), result),
            Err(problem) => {
                self.fail(BuildError::Intrinsic { name: call.text_name(), problem });
                None
            }
        }
    }

    /// [`Builder::intrinsic`] for intrinsics with a result; after an error, a constant of type
    /// `ty` stands in so the front end can go on.
    pub fn intrinsic_value(&mut self, call: Call, args: Vec<Value>, ty: Type) -> Value {
        match self.intrinsic(call, args) {
            Some(v) => v,
            None => {
                let elem = ty.elem();
                let c = self.constant(elem, 0);
                match ty {
                    Type::Scalar(_) => c,
                    Type::Vector(_, n) => self.emit_v(Op::MakeVector(vec![c; n as usize]), ty),
                }
            }
        }
    }

    // ---- control flow ----

    /// The number of regions (`if` branches, loop bodies and latches) open around the
    /// instructions being emitted.
    pub fn region_depth(&self) -> usize {
        self.stack.len()
    }

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
