//! One PTX kernel to ferrocm IR.
//!
//! Registers become IR variables (read and written through a per-block cache of values); PTX's
//! loosely typed register use (`add.s32` on a `.b32` register, `mov.b32` between float and
//! integer registers) becomes bit casts and width changes on the way in and out. Memory
//! accesses become byte-addressed loads, stores and atomics in the address space the opcode
//! names (generic where it names none); `.const` and `.global` variables live in host memory
//! the module owns, so both are global addresses. Kernel parameters arrive as launch arguments
//! split into chunks of at most 8 bytes (see [`ParamPlan`]); call-sequence parameters, local
//! variables and the parameters of inlined functions share the thread's local frame.

use std::collections::HashMap;

use ferrocm_ir::generic::{LOCAL_BASE, SHARED_BASE};
use ferrocm_ir::{
    AddrSpace, AtomicOp, Axis, BinaryOp, Builder, CmpOp, FenceScope, Mem, MemSpace, ScalarType, ShuffleMode,
    Special, UnaryOp, Value, Var, VoteMode,
};

use crate::control::{Block, Code};
use crate::flatten::Flat;
use crate::parse::{Function, Inst, Module, Operand, PtxType, Space};
use crate::FrontendError;

/// How a kernel's PTX parameters map onto the IR's scalar parameters: each PTX parameter is cut
/// into chunks (8 bytes, then 4, 2 and 1 for the tail), each one IR parameter of that size;
/// one hidden `u32` parameter follows with the launch's dynamic shared memory size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamPlan {
    /// Per PTX parameter: its size and the sizes of its chunks, in order.
    pub params: Vec<(u64, Vec<u64>)>,
}

impl ParamPlan {
    pub(crate) fn new(f: &Function) -> ParamPlan {
        let params = f
            .params
            .iter()
            .map(|p| {
                let size = p.size();
                let mut chunks = Vec::new();
                let mut left = size;
                for c in [8u64, 4, 2, 1] {
                    while left >= c {
                        chunks.push(c);
                        left -= c;
                    }
                }
                (size, chunks)
            })
            .collect();
        ParamPlan { params }
    }
}

fn scalar(t: PtxType) -> ScalarType {
    use PtxType::*;
    match t {
        B8 | U8 => ScalarType::U8,
        S8 => ScalarType::I8,
        B16 | U16 => ScalarType::U16,
        S16 => ScalarType::I16,
        F16 => ScalarType::F16,
        Bf16 => ScalarType::BF16,
        B32 | U32 | F16x2 | Bf16x2 => ScalarType::U32,
        S32 => ScalarType::I32,
        F32 => ScalarType::F32,
        B64 | U64 => ScalarType::U64,
        S64 => ScalarType::I64,
        F64 => ScalarType::F64,
        Pred => ScalarType::Bool,
    }
}

fn unsigned_of(size: u32) -> ScalarType {
    match size {
        1 => ScalarType::U8,
        2 => ScalarType::U16,
        4 => ScalarType::U32,
        _ => ScalarType::U64,
    }
}

/// An opcode split into its base and modifiers.
struct Opcode<'a> {
    base: &'a str,
    mods: Vec<&'a str>,
}

impl<'a> Opcode<'a> {
    fn new(s: &'a str) -> Opcode<'a> {
        let mut it = s.split('.');
        let base = it.next().unwrap_or("");
        Opcode { base, mods: it.collect() }
    }

    fn has(&self, m: &str) -> bool {
        self.mods.contains(&m)
    }

    /// The type modifiers, in order (`cvt.rn.f32.s32` gives f32, s32).
    fn types(&self) -> Vec<PtxType> {
        self.mods.iter().filter_map(|m| PtxType::from_name(m)).collect()
    }

    fn ty(&self) -> Option<PtxType> {
        self.types().last().copied()
    }

    fn space(&self) -> Option<Space> {
        for m in &self.mods {
            let m = m.split("::").next().unwrap_or(m);
            match m {
                "global" => return Some(Space::Global),
                "shared" => return Some(Space::Shared),
                "local" => return Some(Space::Local),
                "const" => return Some(Space::Const),
                "param" => return Some(Space::Param),
                _ => {}
            }
        }
        None
    }

    fn lanes(&self) -> u8 {
        if self.has("v2") {
            2
        } else if self.has("v4") {
            4
        } else {
            1
        }
    }
}

pub(crate) struct Translator<'a> {
    module: &'a Module,
    blocks: &'a [Block],
    b: Builder,
    vars: HashMap<String, (Var, ScalarType)>,
    cache: HashMap<String, Value>,
    written: Vec<String>,
    mems: HashMap<(AddrSpace, ScalarType), Mem>,
    /// Kernel parameter name -> chunks as (offset, size, value).
    kparams: HashMap<String, Vec<(u64, u64, Value)>>,
    frame: HashMap<String, u64>,
    shared: HashMap<String, u64>,
    globals: &'a HashMap<String, u64>,
    dyn_smem: Value,
    carry: Option<Var>,
    line: usize,
}

type R<T> = Result<T, FrontendError>;

impl<'a> Translator<'a> {
    fn unsupported<T>(&self, what: impl Into<String>) -> R<T> {
        Err(FrontendError::Unsupported { line: self.line, what: what.into() })
    }

    fn invalid<T>(&self, message: impl Into<String>) -> R<T> {
        Err(FrontendError::Invalid { line: self.line, message: message.into() })
    }

    fn konst(&mut self, ty: ScalarType, bits: u64) -> Value {
        let bits = if ty.bits() >= 64 { bits } else { bits & ((1u64 << ty.bits()) - 1) };
        self.b.constant(ty, bits)
    }

    fn u32c(&mut self, v: u32) -> Value {
        self.konst(ScalarType::U32, v as u64)
    }

    // ---- value conversions ----

    /// `v` as type `to`: bit casts between types of one size, width changes (sign-extending a
    /// signed source) between integers, bits in between for the rest.
    fn conv(&mut self, v: Value, to: ScalarType) -> Value {
        let from = self.b.value_type(v).elem();
        if from == to {
            return v;
        }
        if from == ScalarType::Bool {
            let (one, zero) = (self.konst(to, one_bits(to)), self.konst(to, 0));
            return self.b.select(v, one, zero);
        }
        if to == ScalarType::Bool {
            let u = self.conv(v, unsigned_of(from.size()));
            let zero = self.konst(unsigned_of(from.size()), 0);
            return self.b.cmp(CmpOp::Ne, u, zero);
        }
        if from.size() == to.size() {
            return self.b.bitcast(v, to);
        }
        if from.is_int() && to.is_int() {
            return self.b.cast(v, to);
        }
        let bits = if from.is_float() { self.b.bitcast(v, unsigned_of(from.size())) } else { v };
        let bits = self.b.cast(bits, unsigned_of(to.size()));
        if to.is_float() {
            self.b.bitcast(bits, to)
        } else {
            self.b.cast(bits, to)
        }
    }

    fn var(&self, name: &str) -> R<(Var, ScalarType)> {
        match self.vars.get(name) {
            Some(v) => Ok(*v),
            None => self.invalid(format!("unknown register `{name}`")),
        }
    }

    fn read_reg(&mut self, name: &str) -> R<Value> {
        if let Some(v) = self.cache.get(name) {
            return Ok(*v);
        }
        if let Some(v) = self.special(name)? {
            return Ok(v);
        }
        let (var, _) = self.var(name)?;
        let v = self.b.read_var(var);
        self.cache.insert(name.to_string(), v);
        Ok(v)
    }

    fn write_reg(&mut self, name: &str, v: Value) -> R<()> {
        let (var, ty) = self.var(name)?;
        let v = self.conv(v, ty);
        self.b.write_var(var, v);
        self.cache.insert(name.to_string(), v);
        self.written.push(name.to_string());
        Ok(())
    }

    fn write(&mut self, op: &Operand, v: Value) -> R<()> {
        match op {
            Operand::Reg(r) => self.write_reg(r, v),
            Operand::Sink => Ok(()),
            _ => self.invalid("the destination is not a register"),
        }
    }

    /// The value of operand `op` as type `ty`.
    fn read(&mut self, op: &Operand, ty: ScalarType) -> R<Value> {
        match op {
            Operand::Reg(r) => {
                let v = self.read_reg(r)?;
                Ok(self.conv(v, ty))
            }
            Operand::Imm(i) => Ok(if ty.is_float() {
                let f = *i as f64;
                let bits = float_bits(ty, f);
                self.konst(ty, bits)
            } else if ty == ScalarType::Bool {
                self.konst(ty, (*i != 0) as u64)
            } else {
                self.konst(ty, *i as u64)
            }),
            Operand::Float { bits, double } => {
                let f = if *double { f64::from_bits(*bits) } else { f32::from_bits(*bits as u32) as f64 };
                let bits = if ty.is_float() {
                    float_bits(ty, f)
                } else if *double {
                    *bits
                } else {
                    *bits & 0xffff_ffff
                };
                Ok(self.konst(ty, bits))
            }
            Operand::Sym(s) => {
                let a = self.symbol_address(s)?;
                Ok(self.konst(ty, a))
            }
            Operand::Not(inner) => {
                let v = self.read(inner, ScalarType::Bool)?;
                let v = self.b.unary(UnaryOp::Not, v);
                Ok(self.conv(v, ty))
            }
            _ => self.invalid("an operand of this form cannot be read as a value"),
        }
    }

    fn special(&mut self, name: &str) -> R<Option<Value>> {
        let axis = |s: &str| match s {
            "x" => Some(Axis::X),
            "y" => Some(Axis::Y),
            "z" => Some(Axis::Z),
            _ => None,
        };
        let (reg, sub) = name.split_once('.').unwrap_or((name, ""));
        let s = match (reg, axis(sub)) {
            ("%tid", Some(a)) => Special::ThreadIdx(a),
            ("%ntid", Some(a)) => Special::BlockDim(a),
            ("%ctaid", Some(a)) => Special::BlockIdx(a),
            ("%nctaid", Some(a)) => Special::GridDim(a),
            ("%laneid", None) => Special::LaneId,
            ("%warpid", None) => {
                let t = self.linear_tid();
                let c = self.u32c(5);
                return Ok(Some(self.b.binary(BinaryOp::Shr, t, c)));
            }
            ("%lanemask_eq" | "%lanemask_lt" | "%lanemask_le" | "%lanemask_gt" | "%lanemask_ge", None) => {
                let lane = self.b.special(Special::LaneId);
                let one = self.u32c(1);
                let bit = self.b.binary(BinaryOp::Shl, one, lane);
                let lt = self.b.binary(BinaryOp::Sub, bit, one);
                let v = match reg {
                    "%lanemask_eq" => bit,
                    "%lanemask_lt" => lt,
                    "%lanemask_le" => self.b.binary(BinaryOp::Or, lt, bit),
                    "%lanemask_gt" => {
                        let le = self.b.binary(BinaryOp::Or, lt, bit);
                        self.b.unary(UnaryOp::Not, le)
                    }
                    _ => self.b.unary(UnaryOp::Not, lt),
                };
                return Ok(Some(v));
            }
            ("%dynamic_smem_size", None) => return Ok(Some(self.dyn_smem)),
            ("%globaltimer" | "%globaltimer_lo" | "%globaltimer_hi", None) => {
                // The executor's timer is the host's CLOCK_MONOTONIC, in nanoseconds.
                let call = ferrocm_ir::Call::new(&ferrocm_ir::intrinsics::timer::GLOBAL_TIMER, &[], &[], &[]);
                let t = self.b.intrinsic_value(call, vec![], ferrocm_ir::Type::Scalar(ScalarType::U64));
                let v = match reg {
                    "%globaltimer_lo" => self.b.cast(t, ScalarType::U32),
                    "%globaltimer_hi" => {
                        let c = self.b.constant(ScalarType::U64, 32);
                        let hi = self.b.binary(BinaryOp::Shr, t, c);
                        self.b.cast(hi, ScalarType::U32)
                    }
                    _ => t,
                };
                return Ok(Some(v));
            }
            ("%smid", None) => {
                let call = ferrocm_ir::Call::new(&ferrocm_ir::intrinsics::timer::SMID, &[], &[], &[]);
                return Ok(Some(self.b.intrinsic_value(
                    call,
                    vec![],
                    ferrocm_ir::Type::Scalar(ScalarType::U32),
                )));
            }
            ("%clock" | "%clock64", None) => {
                return self.unsupported(format!(
                "the timer register `{name}` (the CPU executor has no cycle counter shared by its threads)"
            ))
            }
            _ if name.starts_with('%') && !self.vars.contains_key(name) && name.contains('.') => {
                return self.unsupported(format!("the special register `{name}`"))
            }
            _ => return Ok(None),
        };
        Ok(Some(self.b.special(s)))
    }

    fn linear_tid(&mut self) -> Value {
        let (tx, ty, tz) = (
            self.b.special(Special::ThreadIdx(Axis::X)),
            self.b.special(Special::ThreadIdx(Axis::Y)),
            self.b.special(Special::ThreadIdx(Axis::Z)),
        );
        let (nx, ny) =
            (self.b.special(Special::BlockDim(Axis::X)), self.b.special(Special::BlockDim(Axis::Y)));
        let zy = self.b.binary(BinaryOp::Mul, tz, ny);
        let zy = self.b.binary(BinaryOp::Add, zy, ty);
        let r = self.b.binary(BinaryOp::Mul, zy, nx);
        self.b.binary(BinaryOp::Add, r, tx)
    }

    fn symbol_address(&self, s: &str) -> R<u64> {
        if let Some(a) = self.frame.get(s) {
            return Ok(*a);
        }
        if let Some(a) = self.shared.get(s) {
            return Ok(*a);
        }
        if let Some(a) = self.globals.get(s) {
            return Ok(*a);
        }
        if self.kparams.contains_key(s) {
            return self.invalid(format!("the address of kernel parameter `{s}` (not copied to the frame)"));
        }
        if self.module.functions.iter().any(|f| f.name == s) {
            return self.unsupported(format!("a function pointer to `{s}`"));
        }
        self.invalid(format!("unknown symbol `{s}`"))
    }

    fn mem(&mut self, space: AddrSpace, ty: ScalarType) -> Mem {
        if let Some(m) = self.mems.get(&(space, ty)) {
            return *m;
        }
        let m = self.b.add_mem(&format!("{}_{ty}", space.name()), ty, MemSpace::Addressed(space));
        self.mems.insert((space, ty), m);
        m
    }

    /// The address an `[...]` operand names (a `u64`, or a `u32` from a 32-bit register).
    fn address(&mut self, op: &Operand) -> R<Value> {
        let Operand::Addr { base, offset } = op else { return self.invalid("expected an address `[...]`") };
        let base = match base.as_ref() {
            Operand::Reg(r) => {
                let v = self.read_reg(r)?;
                let t = self.b.value_type(v).elem();
                if t.size() == 4 {
                    self.conv(v, ScalarType::U32)
                } else {
                    self.conv(v, ScalarType::U64)
                }
            }
            Operand::Sym(s) => {
                let a = self.symbol_address(s)?;
                self.konst(ScalarType::U64, a)
            }
            Operand::Imm(i) => self.konst(ScalarType::U64, *i as u64),
            _ => return self.invalid("bad address base"),
        };
        if *offset == 0 {
            return Ok(base);
        }
        let t = self.b.value_type(base).elem();
        let off = self.konst(t, *offset as u64);
        Ok(self.b.binary(BinaryOp::Add, base, off))
    }

    fn addr_space(&self, op: &Opcode) -> AddrSpace {
        match op.space() {
            Some(Space::Global) | Some(Space::Const) => AddrSpace::Global,
            Some(Space::Shared) => AddrSpace::Shared,
            // A .param address in a register names a kernel parameter copied to the frame.
            Some(Space::Local) | Some(Space::Param) => AddrSpace::Local,
            None => AddrSpace::Generic,
        }
    }

    /// The symbol and offset of a `[param+off]` operand (`None` for a register address: a
    /// kernel parameter whose address was taken, copied to the local frame).
    fn param_operand<'o>(&self, op: &'o Operand) -> R<Option<(&'o str, u64)>> {
        match op {
            Operand::Addr { base, offset } => match base.as_ref() {
                Operand::Sym(s) => Ok(Some((s, *offset as u64))),
                Operand::Reg(_) => Ok(None),
                _ => self.invalid("bad .param address"),
            },
            _ => self.invalid("expected `[param+offset]`"),
        }
    }

    /// `size` bytes at `offset` of kernel parameter `name`, as an unsigned integer.
    fn kernel_param_bits(&mut self, name: &str, offset: u64, size: u64) -> R<Value> {
        let Some(chunks) = self.kparams.get(name).cloned() else {
            return self.invalid(format!("unknown parameter `{name}`"));
        };
        let total: u64 = chunks.iter().map(|c| c.1).sum();
        if offset + size > total {
            return self.invalid(format!(
                "reading {size} bytes at offset {offset} of parameter `{name}`, which has {total} bytes"
            ));
        }
        let want = unsigned_of(size as u32);
        if let Some(&(_, _, v)) = chunks.iter().find(|c| c.0 == offset && c.1 == size) {
            return Ok(self.conv(v, want));
        }
        // Assemble the bytes from the chunks that overlap them.
        let mut acc = self.konst(ScalarType::U64, 0);
        for (co, cs, v) in chunks {
            let (lo, hi) = (co.max(offset), (co + cs).min(offset + size));
            if lo >= hi {
                continue;
            }
            let wide = self.conv(v, unsigned_of(cs as u32));
            let wide = self.b.cast(wide, ScalarType::U64);
            let sh = self.u32c(((lo - co) * 8) as u32);
            let part = self.b.binary(BinaryOp::Shr, wide, sh);
            let mask = if hi - lo >= 8 { !0u64 } else { (1u64 << ((hi - lo) * 8)) - 1 };
            let mask = self.konst(ScalarType::U64, mask);
            let part = self.b.binary(BinaryOp::And, part, mask);
            let sh = self.u32c(((lo - offset) * 8) as u32);
            let part = self.b.binary(BinaryOp::Shl, part, sh);
            acc = self.b.binary(BinaryOp::Or, acc, part);
        }
        Ok(self.b.cast(acc, want))
    }

    fn frame_addr(&mut self, name: &str, offset: u64) -> R<Value> {
        let Some(&base) = self.frame.get(name) else {
            return self.invalid(format!("unknown parameter `{name}`"));
        };
        Ok(self.konst(ScalarType::U32, base + offset))
    }

    // ---- structured code ----

    pub(crate) fn code(&mut self, c: &Code) -> R<()> {
        match c {
            Code::Block(i) => {
                self.cache.clear();
                let blocks = self.blocks;
                for inst in &blocks[*i].insts {
                    self.line = inst.line;
                    self.guarded(inst)?;
                }
            }
            Code::Seq(v) => {
                for c in v {
                    self.code(c)?;
                }
            }
            Code::If { pred, negated, then, else_ } => {
                let mut cond = self.read_reg(pred)?;
                cond = self.conv(cond, ScalarType::Bool);
                if *negated {
                    cond = self.b.unary(UnaryOp::Not, cond);
                }
                self.b.begin_if(cond);
                self.cache.clear();
                self.code(then)?;
                self.b.begin_else();
                self.cache.clear();
                self.code(else_)?;
                self.b.end_if();
                self.cache.clear();
            }
            Code::Loop(body) => {
                self.cache.clear();
                self.b.begin_loop();
                self.code(body)?;
                self.b.break_(0);
                self.b.end_loop();
                self.cache.clear();
            }
            Code::Break(d) => self.b.break_(*d),
            Code::Continue(d) => self.b.continue_(*d),
            Code::Return => self.b.return_(),
        }
        Ok(())
    }

    /// An instruction, inside `if guard` when it has one.
    fn guarded(&mut self, i: &Inst) -> R<()> {
        let Some((p, neg)) = &i.guard else { return self.inst(i) };
        let mut cond = self.read_reg(p)?;
        cond = self.conv(cond, ScalarType::Bool);
        if *neg {
            cond = self.b.unary(UnaryOp::Not, cond);
        }
        let saved = self.cache.clone();
        let mark = self.written.len();
        self.b.begin_if(cond);
        let r = self.inst(i);
        self.b.end_if();
        self.cache = saved;
        for w in self.written.split_off(mark) {
            self.cache.remove(&w);
        }
        r
    }

    fn dst_src<'o>(&self, i: &'o Inst, n: usize) -> R<&'o [Operand]> {
        if i.operands.len() < n {
            return self.invalid(format!("`{}` needs {n} operands, found {}", i.opcode, i.operands.len()));
        }
        Ok(&i.operands)
    }

    fn inst(&mut self, i: &Inst) -> R<()> {
        let op = Opcode::new(&i.opcode);
        let ty = op.ty().map(scalar);
        match op.base {
            "mov" => self.mov(i, &op),
            "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor" | "addc"
            | "subc" => self.arith(i, &op),
            "mad" | "fma" => self.mad(i, &op),
            "mul24" | "mad24" => {
                let o = self.dst_src(i, 3)?;
                let t = ty.unwrap_or(ScalarType::U32);
                let (a, b) = (self.read(&o[1], t)?, self.read(&o[2], t)?);
                let (a, b) = (self.low24(a), self.low24(b));
                let mut r = if op.has("hi") {
                    self.b.binary(BinaryOp::MulHi, a, b)
                } else {
                    self.b.binary(BinaryOp::Mul, a, b)
                };
                if op.base == "mad24" {
                    let c = self.read(&o[3], t)?;
                    r = self.b.binary(BinaryOp::Add, r, c);
                }
                self.write(&o[0], r)
            }
            "sad" => {
                let o = self.dst_src(i, 4)?;
                let t = ty.unwrap_or(ScalarType::U32);
                let (a, b, c) = (self.read(&o[1], t)?, self.read(&o[2], t)?, self.read(&o[3], t)?);
                let (mx, mn) = (self.b.binary(BinaryOp::Max, a, b), self.b.binary(BinaryOp::Min, a, b));
                let d = self.b.binary(BinaryOp::Sub, mx, mn);
                let d = self.conv(d, t);
                let r = self.b.binary(BinaryOp::Add, d, c);
                self.write(&o[0], r)
            }
            "neg" | "abs" | "not" | "cnot" | "popc" | "clz" | "brev" | "bfind" => self.unary(i, &op),
            "sqrt" | "rsqrt" | "rcp" | "sin" | "cos" | "lg2" | "ex2" | "tanh" => self.float_unary(i, &op),
            "shl" | "shr" => {
                let o = self.dst_src(i, 3)?;
                let t = ty.unwrap_or(ScalarType::U32);
                let t = if op.base == "shr"
                    && op
                        .types()
                        .first()
                        .is_some_and(|p| matches!(p, PtxType::S16 | PtxType::S32 | PtxType::S64))
                {
                    t
                } else {
                    unsigned_of(t.size())
                };
                let a = self.read(&o[1], t)?;
                let s = self.read(&o[2], ScalarType::U32)?;
                let r = self.b.binary(if op.base == "shl" { BinaryOp::Shl } else { BinaryOp::Shr }, a, s);
                self.write(&o[0], r)
            }
            "setp" => self.setp(i, &op),
            "set" => self.unsupported("`set` (use setp)"),
            "selp" => {
                let o = self.dst_src(i, 4)?;
                let t = ty.unwrap_or(ScalarType::U32);
                let (a, b) = (self.read(&o[1], t)?, self.read(&o[2], t)?);
                let c = self.read(&o[3], ScalarType::Bool)?;
                let r = self.b.select(c, a, b);
                self.write(&o[0], r)
            }
            "copysign" => {
                let o = self.dst_src(i, 3)?;
                let t = ty.unwrap_or(ScalarType::F32);
                let u = unsigned_of(t.size());
                let (a, b) = (self.read(&o[1], u)?, self.read(&o[2], u)?);
                let sign = self.konst(u, 1u64 << (t.bits() - 1));
                let nsign = self.konst(u, !(1u64 << (t.bits() - 1)));
                let s = self.b.binary(BinaryOp::And, a, sign);
                let m = self.b.binary(BinaryOp::And, b, nsign);
                let r = self.b.binary(BinaryOp::Or, s, m);
                let r = self.conv(r, t);
                self.write(&o[0], r)
            }
            "testp" => self.testp(i, &op),
            "cvt" => self.cvt(i, &op),
            "cvta" => {
                let o = self.dst_src(i, 2)?;
                let t = ty.unwrap_or(ScalarType::U64);
                let a = self.read(&o[1], t)?;
                let to = op.has("to");
                let base = match op.space() {
                    Some(Space::Shared) => SHARED_BASE,
                    Some(Space::Local) => LOCAL_BASE,
                    Some(Space::Global) | Some(Space::Const) | None => 0,
                    // Kernel parameters whose address is taken live in the local frame.
                    Some(Space::Param) => LOCAL_BASE,
                };
                let r = if base == 0 {
                    a
                } else {
                    let a64 = self.conv(a, ScalarType::U64);
                    let k = self.konst(ScalarType::U64, base);
                    let r = self.b.binary(if to { BinaryOp::Sub } else { BinaryOp::Add }, a64, k);
                    self.conv(r, t)
                };
                self.write(&o[0], r)
            }
            "isspacep" => {
                let o = self.dst_src(i, 2)?;
                let a = self.read(&o[1], ScalarType::U64)?;
                let r = match op.space() {
                    Some(Space::Shared) | Some(Space::Local) => {
                        let base = if op.space() == Some(Space::Shared) { SHARED_BASE } else { LOCAL_BASE };
                        let k = self.konst(ScalarType::U64, base);
                        let d = self.b.binary(BinaryOp::Sub, a, k);
                        let w = self.konst(ScalarType::U64, ferrocm_ir::generic::WINDOW_BYTES);
                        self.b.cmp(CmpOp::Lt, d, w)
                    }
                    _ => {
                        let k = self.konst(ScalarType::U64, LOCAL_BASE);
                        self.b.cmp(CmpOp::Lt, a, k)
                    }
                };
                self.write(&o[0], r)
            }
            "ld" | "ldu" => self.load(i, &op),
            "st" => self.store(i, &op),
            "atom" | "red" => self.atom(i, &op),
            "bar" | "barrier" => {
                if op.has("warp") {
                    return Ok(());
                }
                if op.has("red") || op.has("arrive") {
                    return self.unsupported(format!("`{}`", i.opcode));
                }
                match i.operands.as_slice() {
                    [Operand::Imm(0)] => {
                        self.b.barrier();
                        Ok(())
                    }
                    _ => self.unsupported("a named barrier or a barrier with a thread count"),
                }
            }
            "membar" | "fence" => {
                let scope = if op.has("cta") {
                    FenceScope::Block
                } else if op.has("sys") {
                    FenceScope::System
                } else {
                    FenceScope::Device
                };
                if op.has("proxy") {
                    return Ok(());
                }
                self.b.fence(scope);
                Ok(())
            }
            "shfl" => self.shfl(i, &op),
            "vote" => self.vote(i, &op),
            "activemask" => {
                let o = self.dst_src(i, 1)?;
                let t = self.konst(ScalarType::Bool, 1);
                let r = self.b.vote(VoteMode::Ballot, t);
                self.write(&o[0], r)
            }
            "bfe" => self.bfe(i, &op),
            "bfi" => self.bfi(i, &op),
            "prmt" => self.prmt(i, &op),
            "trap" => {
                self.b.trap();
                Ok(())
            }
            "nanosleep" => {
                // The executor lets the other warps of the group run (spin-waits that sleep, such
                // as the grid barrier of the cooperative-groups header, make progress).
                let o = self.dst_src(i, 1)?;
                let t = self.read(&o[0], ScalarType::U32)?;
                self.b.nanosleep(t);
                Ok(())
            }
            "prefetch" | "prefetchu" | "discard" | "pmevent" | "applypriority" => Ok(()),
            "ferrocm" => self.syscall(i, &op),
            _ => self.unsupported(format!("the instruction `{}`", i.opcode)),
        }
    }

    fn low24(&mut self, a: Value) -> Value {
        let sh = self.u32c(8);
        let l = self.b.binary(BinaryOp::Shl, a, sh);
        self.b.binary(BinaryOp::Shr, l, sh)
    }

    fn mov(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 2)?;
        let t = op.ty().map(scalar).unwrap_or(ScalarType::U32);
        match (&o[0], &o[1]) {
            (Operand::Vector(parts), src) => {
                // Unpack: the low part first.
                let n = parts.len() as u32;
                let whole = self.read(src, unsigned_of(t.size()))?;
                let pw = t.size() / n;
                let wide = self.b.cast(whole, ScalarType::U64);
                for (k, p) in parts.iter().enumerate() {
                    let sh = self.u32c(k as u32 * pw * 8);
                    let v = self.b.binary(BinaryOp::Shr, wide, sh);
                    let v = self.b.cast(v, unsigned_of(pw));
                    self.write(p, v)?;
                }
                Ok(())
            }
            (dst, Operand::Vector(parts)) => {
                let n = parts.len() as u32;
                let pw = t.size() / n;
                let mut acc = self.konst(ScalarType::U64, 0);
                for (k, p) in parts.iter().enumerate() {
                    let v = self.read(p, unsigned_of(pw))?;
                    let v = self.b.cast(v, ScalarType::U64);
                    let sh = self.u32c(k as u32 * pw * 8);
                    let v = self.b.binary(BinaryOp::Shl, v, sh);
                    acc = self.b.binary(BinaryOp::Or, acc, v);
                }
                let r = self.b.cast(acc, unsigned_of(t.size()));
                self.write(dst, r)
            }
            (dst, src) => {
                let v = self.read(src, t)?;
                self.write(dst, v)
            }
        }
    }

    fn float_mods_ok(&self, op: &Opcode) -> R<()> {
        for m in ["rz", "rm", "rp"] {
            if op.has(m) {
                return self.unsupported(format!("floating-point rounding mode .{m}"));
            }
        }
        Ok(())
    }

    fn saturate(&mut self, v: Value, t: ScalarType) -> Value {
        let (zero, one) = (self.konst(t, float_bits(t, 0.0)), self.konst(t, float_bits(t, 1.0)));
        let v = self.b.binary(BinaryOp::Max, v, zero);
        self.b.binary(BinaryOp::Min, v, one)
    }

    fn arith(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 3)?;
        let Some(pt) = op.ty() else { return self.invalid(format!("`{}` names no type", i.opcode)) };
        let t = scalar(pt);
        if pt == PtxType::F16x2 || pt == PtxType::Bf16x2 {
            return self.unsupported(format!("packed half arithmetic `{}`", i.opcode));
        }
        if t.is_float() {
            self.float_mods_ok(op)?;
        }
        let carry_in = op.base == "addc" || op.base == "subc";
        let carry_out = op.has("cc");
        let bop = match op.base {
            "add" | "addc" => BinaryOp::Add,
            "sub" | "subc" => BinaryOp::Sub,
            "mul" => BinaryOp::Mul,
            "div" => BinaryOp::Div,
            "rem" => BinaryOp::Rem,
            "min" => BinaryOp::Min,
            "max" => BinaryOp::Max,
            "and" => BinaryOp::And,
            "or" => BinaryOp::Or,
            _ => BinaryOp::Xor,
        };
        if op.base == "mul" && t.is_int() && (op.has("hi") || op.has("wide")) {
            let (a, b) = (self.read(&o[1], t)?, self.read(&o[2], t)?);
            let r = if op.has("hi") && t.size() < 4 {
                // The high half of a narrow product, through 32 bits.
                let w = if t.is_signed() { ScalarType::I32 } else { ScalarType::U32 };
                let (a, b) = (self.b.cast(a, w), self.b.cast(b, w));
                let p = self.b.binary(BinaryOp::Mul, a, b);
                let sh = self.u32c(t.bits());
                let p = self.b.binary(BinaryOp::Shr, p, sh);
                self.b.cast(p, t)
            } else if op.has("hi") {
                self.b.binary(BinaryOp::MulHi, a, b)
            } else if t.size() == 4 {
                self.b.binary(BinaryOp::MulWide, a, b)
            } else {
                // mul.wide.u16/s16: a 32-bit product.
                let w = if t.is_signed() { ScalarType::I32 } else { ScalarType::U32 };
                let (a, b) = (self.b.cast(a, w), self.b.cast(b, w));
                self.b.binary(BinaryOp::Mul, a, b)
            };
            return self.write(&o[0], r);
        }
        // Bitwise ops on predicates are logical ops.
        let t = if matches!(bop, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor) && pt != PtxType::Pred {
            unsigned_of(t.size())
        } else {
            t
        };
        let (a, b) = (self.read(&o[1], t)?, self.read(&o[2], t)?);
        let mut r = self.b.binary(bop, a, b);
        if carry_in || carry_out {
            if !t.is_int() {
                return self.invalid("carry arithmetic on a float type");
            }
            let Some(cv) = self.carry else { return self.invalid("carry flag missing") };
            let mut cin_wrap = None;
            if carry_in {
                let c = self.b.read_var(cv);
                let c = self.conv(c, t);
                let r2 = self.b.binary(bop, r, c);
                // A carry out of adding the carry itself: the sum wrapped to below it.
                cin_wrap = Some((r, r2));
                r = r2;
            }
            if carry_out {
                let out = if bop == BinaryOp::Add {
                    let c1 = self.b.cmp(CmpOp::Lt, cin_wrap.map(|p| p.0).unwrap_or(r), a);
                    match cin_wrap {
                        Some((mid, fin)) => {
                            let c2 = self.b.cmp(CmpOp::Lt, fin, mid);
                            self.b.binary(BinaryOp::Or, c1, c2)
                        }
                        None => c1,
                    }
                } else {
                    let c1 = self.b.cmp(CmpOp::Lt, a, b);
                    match cin_wrap {
                        Some((mid, _)) => {
                            let c = self.b.read_var(cv);
                            let z = self.konst(t, 0);
                            let is0 = self.b.cmp(CmpOp::Eq, mid, z);
                            let c2 = self.b.binary(BinaryOp::And, is0, c);
                            self.b.binary(BinaryOp::Or, c1, c2)
                        }
                        None => c1,
                    }
                };
                self.b.write_var(cv, out);
            }
        }
        if op.has("sat") && t.is_float() {
            r = self.saturate(r, t);
        } else if op.has("sat") {
            return self.unsupported(format!("saturating integer arithmetic `{}`", i.opcode));
        }
        self.write(&o[0], r)
    }

    fn mad(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 4)?;
        let Some(pt) = op.ty() else { return self.invalid(format!("`{}` names no type", i.opcode)) };
        let t = scalar(pt);
        if t.is_float() {
            if pt == PtxType::F16x2 || pt == PtxType::Bf16x2 {
                return self.unsupported(format!("packed half arithmetic `{}`", i.opcode));
            }
            self.float_mods_ok(op)?;
            let (a, b, c) = (self.read(&o[1], t)?, self.read(&o[2], t)?, self.read(&o[3], t)?);
            let mut r = self.b.fma(a, b, c);
            if op.has("sat") {
                r = self.saturate(r, t);
            }
            return self.write(&o[0], r);
        }
        if op.has("cc") || op.base == "madc" {
            return self.unsupported(format!("`{}`", i.opcode));
        }
        let (a, b) = (self.read(&o[1], t)?, self.read(&o[2], t)?);
        let (p, ct) = if op.has("hi") {
            (self.b.binary(BinaryOp::MulHi, a, b), t)
        } else if op.has("wide") {
            let w = self.b.binary(BinaryOp::MulWide, a, b);
            let wt = self.b.value_type(w).elem();
            (w, wt)
        } else {
            (self.b.binary(BinaryOp::Mul, a, b), t)
        };
        let c = self.read(&o[3], ct)?;
        let r = self.b.binary(BinaryOp::Add, p, c);
        self.write(&o[0], r)
    }

    fn unary(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 2)?;
        let Some(pt) = op.ty() else { return self.invalid(format!("`{}` names no type", i.opcode)) };
        let t = scalar(pt);
        let r = match op.base {
            "neg" | "abs" => {
                let st = if t.is_int() { signed_of(t) } else { t };
                let a = self.read(&o[1], st)?;
                if t.is_int() && op.base == "neg" {
                    let z = self.konst(st, 0);
                    self.b.binary(BinaryOp::Sub, z, a)
                } else if t.is_int() {
                    // abs of the most negative value is itself, as on the GPU.
                    let z = self.konst(st, 0);
                    let n = self.b.binary(BinaryOp::Sub, z, a);
                    let lt = self.b.cmp(CmpOp::Lt, a, z);
                    self.b.select(lt, n, a)
                } else {
                    self.b.unary(if op.base == "neg" { UnaryOp::Neg } else { UnaryOp::Abs }, a)
                }
            }
            "not" => {
                let t = if t == ScalarType::Bool { t } else { unsigned_of(t.size()) };
                let a = self.read(&o[1], t)?;
                self.b.unary(UnaryOp::Not, a)
            }
            "cnot" => {
                let u = unsigned_of(t.size());
                let a = self.read(&o[1], u)?;
                let z = self.konst(u, 0);
                let c = self.b.cmp(CmpOp::Eq, a, z);
                self.conv(c, u)
            }
            "popc" | "clz" | "brev" => {
                let u = unsigned_of(t.size());
                let a = self.read(&o[1], u)?;
                let u_op = match op.base {
                    "popc" => UnaryOp::CountOnes,
                    "clz" => UnaryOp::LeadingZeros,
                    _ => UnaryOp::ReverseBits,
                };
                self.b.unary(u_op, a)
            }
            _ => {
                // bfind: the position of the most significant non-sign bit, or all ones.
                if t.is_signed() {
                    return self.unsupported("bfind on a signed type");
                }
                let a = self.read(&o[1], t)?;
                let lz = self.b.unary(UnaryOp::LeadingZeros, a);
                let w = self.u32c(t.bits());
                let none = self.b.cmp(CmpOp::Eq, lz, w);
                let pos = if op.has("shiftamt") {
                    lz
                } else {
                    let top = self.u32c(t.bits() - 1);
                    self.b.binary(BinaryOp::Sub, top, lz)
                };
                let ones = self.u32c(u32::MAX);
                self.b.select(none, ones, pos)
            }
        };
        self.write(&o[0], r)
    }

    fn float_unary(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 2)?;
        let t = op.ty().map(scalar).unwrap_or(ScalarType::F32);
        if !t.is_float() {
            return self.invalid(format!("`{}` needs a float type", i.opcode));
        }
        self.float_mods_ok(op)?;
        let a = self.read(&o[1], t)?;
        let r = match op.base {
            "sqrt" if op.has("approx") => self.b.unary(UnaryOp::SqrtApprox, a),
            "sqrt" => self.b.unary(UnaryOp::Sqrt, a),
            "rsqrt" => self.b.unary(UnaryOp::Rsqrt, a),
            "rcp" => {
                let one = self.konst(t, float_bits(t, 1.0));
                self.b.binary(BinaryOp::Div, one, a)
            }
            "sin" => self.b.unary(UnaryOp::Sin, a),
            "cos" => self.b.unary(UnaryOp::Cos, a),
            "lg2" => self.b.unary(UnaryOp::Log2, a),
            "ex2" => self.b.unary(UnaryOp::Exp2, a),
            _ => self.b.unary(UnaryOp::Tanh, a),
        };
        self.write(&o[0], r)
    }

    fn setp(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 3)?;
        let Some(pt) = op.ty() else { return self.invalid("setp names no type") };
        let t = scalar(pt);
        let cmp = op.mods.first().copied().unwrap_or("");
        let signed = matches!(pt, PtxType::S8 | PtxType::S16 | PtxType::S32 | PtxType::S64);
        let ct = if t.is_float() || signed && matches!(cmp, "lt" | "le" | "gt" | "ge") {
            t
        } else {
            unsigned_of(t.size())
        };
        let (a, b) = (self.read(&o[1], ct)?, self.read(&o[2], ct)?);
        let num = |s: &mut Self| {
            let x = s.b.cmp(CmpOp::Eq, a, a);
            let y = s.b.cmp(CmpOp::Eq, b, b);
            s.b.binary(BinaryOp::And, x, y)
        };
        let r = match cmp {
            "eq" => self.b.cmp(CmpOp::Eq, a, b),
            "ne" if t.is_float() => {
                let ne = self.b.cmp(CmpOp::Ne, a, b);
                let n = num(self);
                self.b.binary(BinaryOp::And, ne, n)
            }
            "ne" => self.b.cmp(CmpOp::Ne, a, b),
            "lt" | "lo" => self.b.cmp(CmpOp::Lt, a, b),
            "le" | "ls" => self.b.cmp(CmpOp::Le, a, b),
            "gt" | "hi" => self.b.cmp(CmpOp::Gt, a, b),
            "ge" | "hs" => self.b.cmp(CmpOp::Ge, a, b),
            "equ" => {
                let eq = self.b.cmp(CmpOp::Eq, a, b);
                let n = num(self);
                let nan = self.b.unary(UnaryOp::Not, n);
                self.b.binary(BinaryOp::Or, eq, nan)
            }
            "neu" => self.b.cmp(CmpOp::Ne, a, b),
            "ltu" | "leu" | "gtu" | "geu" => {
                let inv = match cmp {
                    "ltu" => CmpOp::Ge,
                    "leu" => CmpOp::Gt,
                    "gtu" => CmpOp::Le,
                    _ => CmpOp::Lt,
                };
                let c = self.b.cmp(inv, a, b);
                self.b.unary(UnaryOp::Not, c)
            }
            "num" => num(self),
            "nan" => {
                let n = num(self);
                self.b.unary(UnaryOp::Not, n)
            }
            _ => return self.unsupported(format!("the comparison `{}`", i.opcode)),
        };
        // setp.cmp.bool.type p, a, b, c: combined with a third predicate.
        let combine = op.mods.get(1).copied().filter(|m| matches!(*m, "and" | "or" | "xor"));
        let r = match combine {
            Some(c) => {
                let Some(third) = o.get(3) else {
                    return self.invalid("setp with .and/.or/.xor needs a predicate");
                };
                let q = self.read(third, ScalarType::Bool)?;
                let bop = match c {
                    "and" => BinaryOp::And,
                    "or" => BinaryOp::Or,
                    _ => BinaryOp::Xor,
                };
                self.b.binary(bop, r, q)
            }
            None => r,
        };
        match &o[0] {
            Operand::Pair(p, q) => {
                self.write(p, r)?;
                let n = self.b.unary(UnaryOp::Not, r);
                self.write(q, n)
            }
            d => self.write(d, r),
        }
    }

    fn testp(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 2)?;
        let t = op.ty().map(scalar).unwrap_or(ScalarType::F32);
        let u = unsigned_of(t.size());
        let bits = self.read(&o[1], u)?;
        let (mant_bits, exp_mask) = if t == ScalarType::F64 { (52, 0x7ffu64) } else { (23, 0xffu64) };
        let sh = self.u32c(mant_bits);
        let e = self.b.binary(BinaryOp::Shr, bits, sh);
        let em = self.konst(u, exp_mask);
        let e = self.b.binary(BinaryOp::And, e, em);
        let mm = self.konst(u, (1u64 << mant_bits) - 1);
        let m = self.b.binary(BinaryOp::And, bits, mm);
        let z = self.konst(u, 0);
        let e_max = self.b.cmp(CmpOp::Eq, e, em);
        let e_zero = self.b.cmp(CmpOp::Eq, e, z);
        let m_zero = self.b.cmp(CmpOp::Eq, m, z);
        let r = match op.mods.first().copied().unwrap_or("") {
            "finite" => self.b.unary(UnaryOp::Not, e_max),
            "infinite" => self.b.binary(BinaryOp::And, e_max, m_zero),
            "notanumber" => {
                let mnz = self.b.unary(UnaryOp::Not, m_zero);
                self.b.binary(BinaryOp::And, e_max, mnz)
            }
            "number" => {
                let mnz = self.b.unary(UnaryOp::Not, m_zero);
                let nan = self.b.binary(BinaryOp::And, e_max, mnz);
                self.b.unary(UnaryOp::Not, nan)
            }
            "normal" => {
                let a = self.b.unary(UnaryOp::Not, e_max);
                let b2 = self.b.unary(UnaryOp::Not, e_zero);
                self.b.binary(BinaryOp::And, a, b2)
            }
            "subnormal" => {
                let mnz = self.b.unary(UnaryOp::Not, m_zero);
                self.b.binary(BinaryOp::And, e_zero, mnz)
            }
            other => return self.unsupported(format!("testp.{other}")),
        };
        self.write(&o[0], r)
    }

    /// `x` rounded to an integral value by `mode` (rni, rzi, rmi, rpi), in its float type.
    fn round_integral(&mut self, x: Value, t: ScalarType, mode: &str) -> Value {
        match mode {
            "rmi" => self.b.unary(UnaryOp::Floor, x),
            "rpi" => self.b.unary(UnaryOp::Ceil, x),
            "rzi" => {
                let fl = self.b.unary(UnaryOp::Floor, x);
                let ce = self.b.unary(UnaryOp::Ceil, x);
                let z = self.konst(t, 0);
                let neg = self.b.cmp(CmpOp::Lt, x, z);
                self.b.select(neg, ce, fl)
            }
            _ => {
                // Round half to even: floor(x), and up when the rest is over a half, or exactly a
                // half with an odd floor. Infinities, NaN and integral values come back as they are.
                let fl = self.b.unary(UnaryOp::Floor, x);
                let rest = self.b.binary(BinaryOp::Sub, x, fl);
                let half = self.konst(t, float_bits(t, 0.5));
                let one = self.konst(t, float_bits(t, 1.0));
                let two = self.konst(t, float_bits(t, 2.0));
                let up = self.b.binary(BinaryOp::Add, fl, one);
                let gt = self.b.cmp(CmpOp::Gt, rest, half);
                let eq = self.b.cmp(CmpOp::Eq, rest, half);
                let halved = self.b.binary(BinaryOp::Div, fl, two);
                let hf = self.b.unary(UnaryOp::Floor, halved);
                let odd = self.b.cmp(CmpOp::Ne, halved, hf);
                let tie_up = self.b.binary(BinaryOp::And, eq, odd);
                let go_up = self.b.binary(BinaryOp::Or, gt, tie_up);
                let r = self.b.select(go_up, up, fl);
                // Keep the sign of zero (rint(-0.3) is -0).
                let u = unsigned_of(t.size());
                let xb = self.b.bitcast(x, u);
                let rb = self.b.bitcast(r, u);
                let sign = self.konst(u, 1u64 << (t.bits() - 1));
                let s = self.b.binary(BinaryOp::And, xb, sign);
                let rb = self.b.binary(BinaryOp::Or, rb, s);
                let r = self.b.bitcast(rb, t);
                // Large magnitudes are already integral (and `rest` may be inexact there).
                let ax = self.b.unary(UnaryOp::Abs, x);
                let big = self.konst(
                    t,
                    float_bits(t, if t == ScalarType::F64 { 4503599627370496.0 } else { 8388608.0 }),
                );
                let is_big = self.b.cmp(CmpOp::Ge, ax, big);
                let nan = self.b.cmp(CmpOp::Ne, x, x);
                let keep = self.b.binary(BinaryOp::Or, is_big, nan);
                self.b.select(keep, x, r)
            }
        }
    }

    fn cvt(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 2)?;
        let tys = op.types();
        let [dt, st] = tys[..] else { return self.invalid(format!("`{}` needs two types", i.opcode)) };
        if matches!(dt, PtxType::F16x2 | PtxType::Bf16x2) || matches!(st, PtxType::F16x2 | PtxType::Bf16x2) {
            return self.unsupported(format!("packed conversion `{}`", i.opcode));
        }
        let (d, s) = (scalar(dt), scalar(st));
        let mut v = self.read(&o[1], s)?;
        let rounding = op
            .mods
            .iter()
            .copied()
            .find(|m| matches!(*m, "rn" | "rz" | "rm" | "rp" | "rni" | "rzi" | "rmi" | "rpi"));
        if s.is_float() && (d.is_int() || d == s) {
            if let Some(m) = rounding.filter(|m| m.ends_with('i')) {
                v = self.round_integral(v, s, m);
            }
        } else if s.is_float() && d.is_float() {
            if matches!(rounding, Some("rz" | "rm" | "rp")) && d.size() < s.size() {
                return self.unsupported(format!("narrowing float conversion with rounding `{}`", i.opcode));
            }
        } else if s.is_int() && d.is_float() && matches!(rounding, Some("rz" | "rm" | "rp")) {
            return self.unsupported(format!("int-to-float conversion with rounding `{}`", i.opcode));
        }
        let mut r = if d == s { v } else { self.b.cast(v, d) };
        if op.has("sat") {
            if d.is_float() {
                r = self.saturate(r, d);
            } else if s.is_int() && d.is_int() {
                // Clamp the source to the destination's range before narrowing.
                let (lo, hi) = int_range(d);
                let wide = if s.is_signed() { ScalarType::I64 } else { ScalarType::U64 };
                let w = self.b.cast(v, wide);
                let lo_v = self.konst(wide, if s.is_signed() { lo as u64 } else { lo.max(0) as u64 });
                let hi_v = self.konst(wide, hi as u64);
                let w = self.b.binary(BinaryOp::Max, w, lo_v);
                let w = self.b.binary(BinaryOp::Min, w, hi_v);
                r = self.b.cast(w, d);
            }
        }
        self.write(&o[0], r)
    }

    fn load(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 2)?;
        let Some(pt) = op.ty() else { return self.invalid("ld names no type") };
        let t = scalar(pt);
        let lanes = op.lanes();
        let dsts: Vec<Operand> = match &o[0] {
            Operand::Vector(v) => v.clone(),
            d => vec![d.clone()],
        };
        if dsts.len() != lanes as usize {
            return self.invalid(format!(
                "`{}` loads {lanes} values into {} registers",
                i.opcode,
                dsts.len()
            ));
        }
        if op.space() == Some(Space::Param) && self.param_operand(&o[1])?.is_some() {
            let Some((name, off)) = self.param_operand(&o[1])? else { return Ok(()) };
            let name = name.to_string();
            for (k, d) in dsts.iter().enumerate() {
                let at = off + k as u64 * pt.size();
                let v = if self.kparams.contains_key(&name) {
                    let bits = self.kernel_param_bits(&name, at, pt.size())?;
                    self.conv(bits, t)
                } else {
                    let a = self.frame_addr(&name, at)?;
                    let m = self.mem(AddrSpace::Local, t);
                    self.b.load(m, a, 1)
                };
                let v = self.extend_loaded(v, t, d)?;
                self.write(d, v)?;
            }
            return Ok(());
        }
        let space = self.addr_space(op);
        let a = self.address(&o[1])?;
        let m = self.mem(space, t);
        let v = self.b.load(m, a, lanes);
        for (k, d) in dsts.iter().enumerate() {
            let e = if lanes == 1 { v } else { self.b.extract(v, k as u8) };
            let e = self.extend_loaded(e, t, d)?;
            self.write(d, e)?;
        }
        if op.has("acquire") {
            self.b.fence(FenceScope::Device);
        }
        Ok(())
    }

    /// A loaded value narrower than its register: sign- or zero-extended by the load's type.
    fn extend_loaded(&mut self, v: Value, t: ScalarType, d: &Operand) -> R<Value> {
        let Operand::Reg(r) = d else { return Ok(v) };
        let (_, rt) = self.var(r)?;
        if t.is_int() && rt.size() > t.size() {
            let wide = if t.is_signed() { signed_of(rt) } else { unsigned_of(rt.size()) };
            return Ok(self.b.cast(v, wide));
        }
        Ok(v)
    }

    fn store(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 2)?;
        let Some(pt) = op.ty() else { return self.invalid("st names no type") };
        let t = scalar(pt);
        let lanes = op.lanes();
        let srcs: Vec<Operand> = match &o[1] {
            Operand::Vector(v) => v.clone(),
            s => vec![s.clone()],
        };
        if srcs.len() != lanes as usize {
            return self.invalid(format!(
                "`{}` stores {lanes} values from {} operands",
                i.opcode,
                srcs.len()
            ));
        }
        let vals = srcs.iter().map(|s| self.read(s, t)).collect::<R<Vec<_>>>()?;
        if op.has("release") {
            self.b.fence(FenceScope::Device);
        }
        if op.space() == Some(Space::Param) {
            let Some((name, off)) = self.param_operand(&o[0])? else {
                return self.unsupported("a .param store through a register address");
            };
            let name = name.to_string();
            if self.kparams.contains_key(&name) {
                return self.unsupported("a store to a kernel parameter");
            }
            for (k, v) in vals.into_iter().enumerate() {
                let a = self.frame_addr(&name, off + k as u64 * pt.size())?;
                let m = self.mem(AddrSpace::Local, t);
                self.b.store(m, a, v);
            }
            return Ok(());
        }
        let space = self.addr_space(op);
        let a = self.address(&o[0])?;
        let m = self.mem(space, t);
        let v = if lanes == 1 { vals[0] } else { self.b.make_vector(&vals) };
        self.b.store(m, a, v);
        Ok(())
    }

    fn atom(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let red = op.base == "red";
        let o = self.dst_src(i, if red { 2 } else { 3 })?;
        let Some(pt) = op.ty() else { return self.invalid(format!("`{}` names no type", i.opcode)) };
        let mut t = scalar(pt);
        let aop = if op.has("add") {
            AtomicOp::Add
        } else if op.has("min") {
            AtomicOp::Min
        } else if op.has("max") {
            AtomicOp::Max
        } else if op.has("and") {
            AtomicOp::And
        } else if op.has("or") {
            AtomicOp::Or
        } else if op.has("xor") {
            AtomicOp::Xor
        } else if op.has("exch") {
            AtomicOp::Exch
        } else if op.has("cas") {
            AtomicOp::Cas
        } else if op.has("inc") || op.has("dec") {
            return self.unsupported(format!(
                "`{}` (atomicInc/atomicDec are compare-and-swap loops in ferrocm's headers)",
                i.opcode
            ));
        } else {
            return self.unsupported(format!("the atomic `{}`", i.opcode));
        };
        if t.size() < 4 {
            return self.unsupported(format!("a {}-byte atomic", t.size()));
        }
        // `.b32`/`.b64` atomics (exch, cas, bitwise) work on the bits.
        if t == ScalarType::F32 && aop == AtomicOp::Exch {
            t = ScalarType::U32;
        }
        if t == ScalarType::F64 && aop != AtomicOp::Add {
            t = ScalarType::U64;
        }
        let (addr_op, first) = if red { (&o[0], 1) } else { (&o[1], 2) };
        let space = self.addr_space(op);
        let a = self.address(addr_op)?;
        let m = self.mem(space, t);
        let v = self.read(&o[first], t)?;
        let cmp = if aop == AtomicOp::Cas {
            let Some(n) = o.get(first + 1) else {
                return self.invalid("atom.cas needs a compare and a new value");
            };
            let newv = self.read(n, t)?;
            // PTX: atom.cas d, [a], b, c stores c if [a] == b.
            let old = self.b.atomic(AtomicOp::Cas, m, a, newv, Some(v));
            if !red {
                self.write(&o[0], old)?;
            }
            return Ok(());
        } else {
            None
        };
        let old = self.b.atomic(aop, m, a, v, cmp);
        if !red {
            self.write(&o[0], old)?;
        }
        Ok(())
    }

    fn shfl(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 4)?;
        let mode =
            op.mods.iter().copied().find(|m| matches!(*m, "idx" | "up" | "down" | "bfly")).unwrap_or("");
        let v = self.read(&o[1], ScalarType::U32)?;
        let b = self.read(&o[2], ScalarType::U32)?;
        let c_imm = match &o[3] {
            Operand::Imm(c) => Some(*c as u32),
            _ => None,
        };
        let (dst, pdst) = match &o[0] {
            Operand::Pair(d, p) => (d.as_ref().clone(), Some(p.as_ref().clone())),
            d => (d.clone(), None),
        };
        // The common forms need no lane arithmetic: a whole-warp segment.
        let plain = matches!((mode, c_imm), ("idx" | "down" | "bfly", Some(0x1f)) | ("up", Some(0)));
        if plain && pdst.is_none() {
            let m = match mode {
                "idx" => ShuffleMode::Idx,
                "down" => ShuffleMode::Down,
                "bfly" => ShuffleMode::Xor,
                _ => ShuffleMode::Up,
            };
            let r = self.b.shuffle(m, v, b);
            return self.write(&dst, r);
        }
        // PTX's general definition: segment mask and clamp from c.
        let c = self.read(&o[3], ScalarType::U32)?;
        let lane = self.b.special(Special::LaneId);
        let eight = self.u32c(8);
        let c5 = self.u32c(0x1f);
        let seg = self.b.binary(BinaryOp::Shr, c, eight);
        let seg = self.b.binary(BinaryOp::And, seg, c5);
        let cval = self.b.binary(BinaryOp::And, c, c5);
        let nseg = self.b.unary(UnaryOp::Not, seg);
        let lseg = self.b.binary(BinaryOp::And, lane, seg);
        let cns = self.b.binary(BinaryOp::And, cval, nseg);
        let max_lane = self.b.binary(BinaryOp::Or, lseg, cns);
        let (j, ok) = match mode {
            "up" => {
                let li = self.b.bitcast(lane, ScalarType::I32);
                let bi = self.b.bitcast(b, ScalarType::I32);
                let j = self.b.binary(BinaryOp::Sub, li, bi);
                let mi = self.b.bitcast(max_lane, ScalarType::I32);
                let ok = self.b.cmp(CmpOp::Ge, j, mi);
                (self.b.bitcast(j, ScalarType::U32), ok)
            }
            "down" | "bfly" | "idx" => {
                let j = match mode {
                    "down" => self.b.binary(BinaryOp::Add, lane, b),
                    "bfly" => self.b.binary(BinaryOp::Xor, lane, b),
                    _ => {
                        let bn = self.b.binary(BinaryOp::And, b, nseg);
                        self.b.binary(BinaryOp::Or, lseg, bn)
                    }
                };
                let ok = self.b.cmp(CmpOp::Le, j, max_lane);
                (j, ok)
            }
            _ => return self.unsupported(format!("the shuffle `{}`", i.opcode)),
        };
        let src = self.b.select(ok, j, lane);
        let src = self.b.binary(BinaryOp::And, src, c5);
        let r = self.b.shuffle(ShuffleMode::Idx, v, src);
        self.write(&dst, r)?;
        if let Some(p) = pdst {
            self.write(&p, ok)?;
        }
        Ok(())
    }

    fn vote(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 2)?;
        let p = self.read(&o[1], ScalarType::Bool)?;
        let r = if op.has("ballot") {
            self.b.vote(VoteMode::Ballot, p)
        } else if op.has("any") {
            self.b.vote(VoteMode::Any, p)
        } else if op.has("all") {
            self.b.vote(VoteMode::All, p)
        } else if op.has("uni") {
            let all = self.b.vote(VoteMode::All, p);
            let any = self.b.vote(VoteMode::Any, p);
            let none = self.b.unary(UnaryOp::Not, any);
            self.b.binary(BinaryOp::Or, all, none)
        } else {
            return self.unsupported(format!("the vote `{}`", i.opcode));
        };
        self.write(&o[0], r)
    }

    fn bfe(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 4)?;
        let Some(pt) = op.ty() else { return self.invalid("bfe names no type") };
        let t = scalar(pt);
        let bits = t.bits();
        let a = self.read(&o[1], t)?;
        let pos = self.read(&o[2], ScalarType::U32)?;
        let len = self.read(&o[3], ScalarType::U32)?;
        let ff = self.u32c(0xff);
        let pos = self.b.binary(BinaryOp::And, pos, ff);
        let len = self.b.binary(BinaryOp::And, len, ff);
        // Shift the field to the top, then back down (arithmetically for a signed type).
        let w = self.u32c(bits);
        let end = self.b.binary(BinaryOp::Add, pos, len);
        let end = self.b.binary(BinaryOp::Min, end, w);
        let up = self.b.binary(BinaryOp::Sub, w, end);
        let top = self.b.binary(BinaryOp::Shl, a, up);
        let keep = self.b.binary(BinaryOp::Sub, end, pos);
        let keep = self.b.binary(BinaryOp::Min, keep, w);
        let pos_big = self.b.cmp(CmpOp::Ge, pos, w);
        let down = self.b.binary(BinaryOp::Sub, w, keep);
        let r = self.b.binary(BinaryOp::Shr, top, down);
        // len 0: 0; a field starting past the end: 0 or the sign of the source.
        let z = self.konst(t, 0);
        let zero32 = self.u32c(0);
        let zero_len = self.b.cmp(CmpOp::Eq, len, zero32);
        let r = self.b.select(zero_len, z, r);
        let r = if t.is_signed() {
            let sh = self.u32c(bits - 1);
            let sign = self.b.binary(BinaryOp::Shr, a, sh);
            let past = self.b.select(pos_big, sign, r);
            self.b.select(zero_len, z, past)
        } else {
            self.b.select(pos_big, z, r)
        };
        self.write(&o[0], r)
    }

    fn bfi(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 5)?;
        let Some(pt) = op.ty() else { return self.invalid("bfi names no type") };
        let t = unsigned_of(scalar(pt).size());
        let bits = t.bits() as u64;
        let (a, b) = (self.read(&o[1], t)?, self.read(&o[2], t)?);
        let pos = self.read(&o[3], ScalarType::U32)?;
        let len = self.read(&o[4], ScalarType::U32)?;
        let ff = self.u32c(0xff);
        let pos = self.b.binary(BinaryOp::And, pos, ff);
        let len = self.b.binary(BinaryOp::And, len, ff);
        // mask = ((1 << len) - 1) << pos, computed in 64 bits so len == width works.
        let one = self.konst(ScalarType::U64, 1);
        let m = self.b.binary(BinaryOp::Shl, one, len);
        let m = self.b.binary(BinaryOp::Sub, m, one);
        let w = self.u32c(bits as u32);
        let len_big = self.b.cmp(CmpOp::Ge, len, w);
        let all = self.konst(ScalarType::U64, !0);
        let m = self.b.select(len_big, all, m);
        let m = self.b.binary(BinaryOp::Shl, m, pos);
        let m = self.b.cast(m, t);
        let av = self.b.binary(BinaryOp::Shl, a, pos);
        let av = self.b.binary(BinaryOp::And, av, m);
        let nm = self.b.unary(UnaryOp::Not, m);
        let bv = self.b.binary(BinaryOp::And, b, nm);
        let r = self.b.binary(BinaryOp::Or, av, bv);
        self.write(&o[0], r)
    }

    fn prmt(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let o = self.dst_src(i, 4)?;
        if op.mods.iter().any(|m| matches!(*m, "f4e" | "b4e" | "rc8" | "ecl" | "ecr" | "rc16")) {
            return self.unsupported(format!("`{}`", i.opcode));
        }
        let (a, b) = (self.read(&o[1], ScalarType::U32)?, self.read(&o[2], ScalarType::U32)?);
        let s = self.read(&o[3], ScalarType::U32)?;
        let a64 = self.b.cast(a, ScalarType::U64);
        let b64 = self.b.cast(b, ScalarType::U64);
        let sh32 = self.u32c(32);
        let hi = self.b.binary(BinaryOp::Shl, b64, sh32);
        let src = self.b.binary(BinaryOp::Or, hi, a64);
        let mut acc = self.u32c(0);
        for k in 0..4u32 {
            let shk = self.u32c(4 * k);
            let sel = self.b.binary(BinaryOp::Shr, s, shk);
            let f = self.u32c(0xf);
            let sel = self.b.binary(BinaryOp::And, sel, f);
            let seven = self.u32c(7);
            let idx = self.b.binary(BinaryOp::And, sel, seven);
            let eight = self.u32c(8);
            let bitpos = self.b.binary(BinaryOp::Mul, idx, eight);
            let byte = self.b.binary(BinaryOp::Shr, src, bitpos);
            let byte = self.b.cast(byte, ScalarType::U32);
            let ffm = self.u32c(0xff);
            let byte = self.b.binary(BinaryOp::And, byte, ffm);
            // Bit 3 of the selector replicates the byte's sign bit.
            let msb_sel = self.b.binary(BinaryOp::And, sel, eight);
            let zero32 = self.u32c(0);
            let replicate = self.b.cmp(CmpOp::Ne, msb_sel, zero32);
            let seven_b = self.u32c(7);
            let sign = self.b.binary(BinaryOp::Shr, byte, seven_b);
            let one = self.u32c(1);
            let sign = self.b.binary(BinaryOp::And, sign, one);
            let neg = self.b.cmp(CmpOp::Ne, sign, zero32);
            let fill = self.b.select(neg, ffm, zero32);
            let byte = self.b.select(replicate, fill, byte);
            let shout = self.u32c(8 * k);
            let byte = self.b.binary(BinaryOp::Shl, byte, shout);
            acc = self.b.binary(BinaryOp::Or, acc, byte);
        }
        self.write(&o[0], acc)
    }

    /// The PTX system calls (`vprintf`, `__assertfail`), read from their call-sequence
    /// parameters in the local frame.
    fn syscall(&mut self, i: &Inst, op: &Opcode) -> R<()> {
        let (Some(Operand::List(rets)), Some(Operand::List(args))) = (i.operands.first(), i.operands.get(1))
        else {
            return self.invalid("malformed system call");
        };
        let arg = |s: &mut Self, k: usize, t: ScalarType| -> R<Value> {
            let Some(Operand::Sym(name)) = args.get(k) else {
                return s.invalid("a system call argument is not a .param");
            };
            let a = s.frame_addr(name, 0)?;
            let m = s.mem(AddrSpace::Local, t);
            Ok(s.b.load(m, a, 1))
        };
        if op.has("vprintf") {
            if args.len() != 2 {
                return self.invalid("vprintf takes a format and an argument buffer");
            }
            let (f, a) = (arg(self, 0, ScalarType::U64)?, arg(self, 1, ScalarType::U64)?);
            let r = self.b.printf(f, a);
            if let Some(Operand::Sym(ret)) = rets.first() {
                let at = self.frame_addr(ret, 0)?;
                let m = self.mem(AddrSpace::Local, ScalarType::I32);
                self.b.store(m, at, r);
            }
            return Ok(());
        }
        if args.len() < 4 {
            return self.invalid("__assertfail takes a message, file, line and function");
        }
        let (msg, file) = (arg(self, 0, ScalarType::U64)?, arg(self, 1, ScalarType::U64)?);
        let line = arg(self, 2, ScalarType::U32)?;
        let func = arg(self, 3, ScalarType::U64)?;
        self.b.assert_fail(msg, file, func, line);
        Ok(())
    }
}

fn signed_of(t: ScalarType) -> ScalarType {
    match t.size() {
        1 => ScalarType::I8,
        2 => ScalarType::I16,
        4 => ScalarType::I32,
        _ => ScalarType::I64,
    }
}

fn one_bits(t: ScalarType) -> u64 {
    if t.is_float() {
        float_bits(t, 1.0)
    } else {
        1
    }
}

fn float_bits(t: ScalarType, f: f64) -> u64 {
    match t {
        ScalarType::F64 => f.to_bits(),
        ScalarType::F32 => (f as f32).to_bits() as u64,
        ScalarType::F16 => half::f16::from_f64(f).to_bits() as u64,
        ScalarType::BF16 => half::bf16::from_f64(f).to_bits() as u64,
        _ => f as i64 as u64,
    }
}

fn int_range(t: ScalarType) -> (i64, i64) {
    match t {
        ScalarType::I8 => (i8::MIN as i64, i8::MAX as i64),
        ScalarType::I16 => (i16::MIN as i64, i16::MAX as i64),
        ScalarType::I32 => (i32::MIN as i64, i32::MAX as i64),
        ScalarType::U8 => (0, u8::MAX as i64),
        ScalarType::U16 => (0, u16::MAX as i64),
        ScalarType::U32 => (0, u32::MAX as i64),
        ScalarType::U64 => (0, i64::MAX),
        _ => (i64::MIN, i64::MAX),
    }
}

/// A kernel translated to IR, with the layout its launches need.
pub(crate) struct Translated {
    pub func: ferrocm_ir::Function,
    pub plan: ParamPlan,
}

/// Translates kernel `f` (flattened, with blocks and structure computed).
#[allow(clippy::too_many_arguments)]
pub(crate) fn translate(
    module: &Module,
    f: &Function,
    flat: &Flat,
    blocks: &[Block],
    code: &Code,
    globals: &HashMap<String, u64>,
) -> Result<Translated, FrontendError> {
    let valid = |n: &str| {
        let mut c = n.chars();
        c.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let mut b = Builder::new(if valid(&f.name) { f.name.clone() } else { ir_name(&f.name) });
    let plan = ParamPlan::new(f);
    let mut kparams = HashMap::new();
    for (p, (_, chunks)) in f.params.iter().zip(&plan.params) {
        let mut off = 0;
        let mut v = Vec::new();
        for (k, &c) in chunks.iter().enumerate() {
            let val = b.scalar_param(&ir_name(&format!("{}.{k}", p.name)), unsigned_of(c as u32));
            v.push((off, c, val));
            off += c;
        }
        kparams.insert(p.name.clone(), v);
    }
    let dyn_smem = b.scalar_param("__dynamic_smem_size", ScalarType::U32);
    // Shared memory: module-scope and function-scope static arrays this kernel may use, then
    // the extern (dynamic) arrays at the end of the static part.
    let mut shared = HashMap::new();
    let mut offset = 0u64;
    let statics = module
        .vars
        .iter()
        .filter(|v| v.space == Space::Shared && v.count != Some(0))
        .chain(flat.shared.iter().filter(|v| v.count != Some(0)));
    for v in statics {
        if shared.contains_key(&v.name) {
            continue;
        }
        offset = offset.next_multiple_of(v.align.max(1));
        shared.insert(v.name.clone(), offset);
        offset += v.size();
    }
    let static_bytes = offset;
    // The shared array is aligned for its most aligned variable, the dynamic shared memory for
    // the most aligned `.extern` array (at least 16 bytes each, at most 1024).
    let align_of = |dynamic: bool| {
        module
            .vars
            .iter()
            .chain(&flat.shared)
            .filter(|v| v.space == Space::Shared && (v.count == Some(0)) == dynamic)
            .map(|v| v.align)
            .max()
            .unwrap_or(16)
            .clamp(16, 1024)
    };
    let (static_align, dynamic_align) = (align_of(false), align_of(true));
    if static_bytes > u32::MAX as u64 {
        return Err(FrontendError::Invalid {
            line: f.line,
            message: "static shared memory over 4 GiB".into(),
        });
    }
    if static_bytes > 0 {
        b.add_mem(
            "__shared",
            ScalarType::U8,
            MemSpace::Shared { len: static_bytes as u32, align: static_align as u32 },
        );
    }
    if dynamic_align > 16 {
        // Only its alignment matters: accesses go through byte-addressed shared memory.
        b.add_mem("__dyn_shared", ScalarType::U8, MemSpace::DynShared { align: dynamic_align as u32 });
    }
    let dynamic_base = static_bytes.next_multiple_of(dynamic_align);
    for v in module.vars.iter().chain(&flat.shared).filter(|v| v.space == Space::Shared && v.count == Some(0))
    {
        shared.insert(v.name.clone(), dynamic_base);
    }
    // The local frame: kernel parameters whose address is taken (copied in at the start),
    // then local variables and call-sequence parameters.
    let mut frame = HashMap::new();
    let mut fo = 0u64;
    let mut addressed = std::collections::HashSet::new();
    for it in &flat.items {
        if let crate::flatten::Item::Inst(i) = it {
            for o in &i.operands {
                if let Operand::Sym(s) = o {
                    if kparams.contains_key(s) {
                        addressed.insert(s.clone());
                    }
                }
            }
        }
    }
    let mut copies = Vec::new();
    for p in f.params.iter().filter(|p| addressed.contains(&p.name)) {
        fo = fo.next_multiple_of(p.align.max(1));
        frame.insert(p.name.clone(), fo);
        copies.push((fo, kparams[&p.name].clone()));
        fo += p.size();
    }
    for v in &flat.locals {
        fo = fo.next_multiple_of(v.align.max(1));
        frame.insert(v.name.clone(), fo);
        fo += v.size().max(v.ty.size());
    }
    if fo > ferrocm_runtime_limits::MAX_LOCAL_BYTES {
        return Err(FrontendError::Invalid {
            line: f.line,
            message: format!("{fo} bytes of local memory per thread (the limit is 512 KiB)"),
        });
    }
    if fo > 0 {
        b.add_mem("__local", ScalarType::U8, MemSpace::Local { len: fo as u32 });
    }
    let mut t = Translator {
        module,
        blocks,
        b,
        vars: HashMap::new(),
        cache: HashMap::new(),
        written: Vec::new(),
        mems: HashMap::new(),
        kparams,
        frame,
        shared,
        globals,
        dyn_smem,
        carry: None,
        line: f.line,
    };
    // Registers, each initialised to zero (the executor requires a write before any read).
    let mut regs: Vec<(&String, &PtxType)> = flat.regs.iter().collect();
    regs.sort_by(|a, b| a.0.cmp(b.0));
    for (name, ty) in regs {
        let st = scalar(*ty);
        let var = t.b.var(&ir_name(name), st.into());
        let z = t.b.constant(st, 0);
        t.b.write_var(var, z);
        t.vars.insert(name.clone(), (var, st));
    }
    for (base, chunks) in copies {
        for (off, size, v) in chunks {
            let a = t.konst(ScalarType::U32, base + off);
            let m = t.mem(AddrSpace::Local, unsigned_of(size as u32));
            t.b.store(m, a, v);
        }
    }
    // The carry flag of add.cc/addc.
    let carry = t.b.var("__carry", ScalarType::Bool.into());
    let f0 = t.b.constant(ScalarType::Bool, 0);
    t.b.write_var(carry, f0);
    t.carry = Some(carry);
    t.code(code)?;
    let line = t.line;
    let func =
        t.b.finish()
            .map_err(|e| FrontendError::Invalid { line, message: format!("IR construction failed: {e}") })?;
    Ok(Translated { func, plan })
}

/// Limits the CPU path checks itself (the runtime checks the rest when the kernel loads).
mod ferrocm_runtime_limits {
    /// Local memory per thread, as on the GPU.
    pub const MAX_LOCAL_BYTES: u64 = 512 * 1024;
}

/// A PTX identifier (`%r1`, `p.0`, `$L1`) as an IR name (letters, digits and `_`): `_` becomes
/// `__` and every other character `_` and its two hex digits, so distinct PTX names stay
/// distinct.
fn ir_name(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len() + 4);
    for c in ptx.chars() {
        match c {
            '_' => out.push_str("__"),
            c if c.is_ascii_alphanumeric() => out.push(c),
            c => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("_{b:02x}"));
                }
            }
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}
