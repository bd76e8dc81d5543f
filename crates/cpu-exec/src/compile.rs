//! Lowering the structured IR to the executor's flat, register-based code.
//!
//! Every IR value and variable gets registers (one per vector element); control flow becomes
//! mask-manipulating markers (`IfBegin`, `Else`, `EndIf`, `LoopBegin`, `Latch`, `LoopBack`,
//! `LoopEnd`) whose targets are patched once the region they close is emitted. `skip` targets
//! point at the marker that closes the innermost region, where a warp whose mask became empty
//! resumes.

use ferrocm_ir::*;

pub type Reg = u32;

#[derive(Clone, Debug)]
pub enum Code {
    Const {
        dst: Reg,
        bits: u64,
    },
    Param {
        dst: Reg,
        slot: u32,
    },
    Special {
        dst: Reg,
        s: Special,
    },
    Len {
        dst: Reg,
        mem: u32,
    },
    Unary {
        op: UnaryOp,
        ty: ScalarType,
        dst: Reg,
        a: Reg,
    },
    Binary {
        op: BinaryOp,
        ty: ScalarType,
        dst: Reg,
        a: Reg,
        b: Reg,
        bty: ScalarType,
    },
    Cmp {
        op: CmpOp,
        ty: ScalarType,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Select {
        dst: Reg,
        c: Reg,
        a: Reg,
        b: Reg,
        n: u32,
    },
    Cast {
        from: ScalarType,
        to: ScalarType,
        dst: Reg,
        a: Reg,
    },
    Fma {
        ty: ScalarType,
        dst: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },
    /// Copies `n` registers; `masked` writes only active lanes (variable writes).
    Mov {
        dst: Reg,
        src: Reg,
        n: u32,
        masked: bool,
    },
    Load {
        dst: Reg,
        mem: u32,
        idx: Reg,
        ity: ScalarType,
        lanes: u32,
    },
    Store {
        src: Reg,
        mem: u32,
        idx: Reg,
        ity: ScalarType,
        lanes: u32,
    },
    Barrier,
    /// An intrinsic call: index into [`Program::calls`].
    Intrinsic(u32),
    IfBegin {
        cond: Reg,
        else_pc: u32,
    },
    Else {
        end_pc: u32,
    },
    EndIf {
        skip: u32,
    },
    LoopBegin,
    Latch {
        end_pc: u32,
    },
    LoopBack {
        body_pc: u32,
        end_pc: u32,
    },
    LoopEnd {
        skip: u32,
    },
    Break {
        depth: u32,
        skip: u32,
    },
    Continue {
        depth: u32,
        skip: u32,
    },
    Return {
        skip: u32,
    },
    End,
}

/// An intrinsic call with its operands' registers.
#[derive(Clone, Debug)]
pub struct IntrinsicCode {
    pub call: Call,
    /// First register, number of registers (vector elements) and type of each value operand.
    pub args: Vec<(Reg, u32, Type)>,
    /// First register and number of registers of each variable operand.
    pub vars: Vec<(Reg, u32)>,
    /// First register and number of registers of the result.
    pub result: Option<(Reg, u32)>,
}

/// A kernel lowered for the executor.
#[derive(Clone, Debug)]
pub struct Program {
    pub code: Vec<Code>,
    pub calls: Vec<IntrinsicCode>,
    pub nregs: u32,
}

struct Lower<'a> {
    f: &'a Function,
    code: Vec<Code>,
    calls: Vec<IntrinsicCode>,
    value_reg: Vec<Reg>,
    var_reg: Vec<Reg>,
    nregs: u32,
    /// Launch-argument slot of each parameter.
    param_slot: Vec<u32>,
}

impl Lower<'_> {
    fn alloc(&mut self, n: u32) -> Reg {
        let r = self.nregs;
        self.nregs += n;
        r
    }

    fn reg(&self, v: Value) -> Reg {
        self.value_reg[v.0 as usize]
    }

    fn ty(&self, v: Value) -> Type {
        self.f.value_type(v)
    }

    fn emit(&mut self, c: Code) -> usize {
        self.code.push(c);
        self.code.len() - 1
    }

    fn patch(&mut self, at: &[usize], target: usize) {
        let t = target as u32;
        for &i in at {
            match &mut self.code[i] {
                Code::EndIf { skip }
                | Code::LoopEnd { skip }
                | Code::Break { skip, .. }
                | Code::Continue { skip, .. }
                | Code::Return { skip } => *skip = t,
                _ => {}
            }
        }
    }

    fn region(&mut self, r: Region) -> Vec<usize> {
        let mut pending = Vec::new();
        for inst in self.f.region(r) {
            let dst = inst.result.map(|v| {
                let n = self.ty(v).lanes();
                let reg = self.alloc(n);
                self.value_reg[v.0 as usize] = reg;
                reg
            });
            let d = dst.unwrap_or(0);
            match &inst.op {
                Op::Const(c) => {
                    self.emit(Code::Const { dst: d, bits: c.bits });
                }
                Op::Param(i) => {
                    let slot = self.param_slot[*i as usize];
                    self.emit(Code::Param { dst: d, slot });
                }
                Op::Special(s) => {
                    self.emit(Code::Special { dst: d, s: *s });
                }
                Op::Len(m) => {
                    self.emit(Code::Len { dst: d, mem: m.0 });
                }
                Op::Unary(op, a) => {
                    let c = Code::Unary { op: *op, ty: self.ty(*a).elem(), dst: d, a: self.reg(*a) };
                    self.emit(c);
                }
                Op::Binary(op, a, b) => {
                    let c = Code::Binary {
                        op: *op,
                        ty: self.ty(*a).elem(),
                        dst: d,
                        a: self.reg(*a),
                        b: self.reg(*b),
                        bty: self.ty(*b).elem(),
                    };
                    self.emit(c);
                }
                Op::Cmp(op, a, b) => {
                    let c = Code::Cmp {
                        op: *op,
                        ty: self.ty(*a).elem(),
                        dst: d,
                        a: self.reg(*a),
                        b: self.reg(*b),
                    };
                    self.emit(c);
                }
                Op::Select(c, a, b) => {
                    let n = self.ty(*a).lanes();
                    let c = Code::Select { dst: d, c: self.reg(*c), a: self.reg(*a), b: self.reg(*b), n };
                    self.emit(c);
                }
                Op::Cast(a) => {
                    let to = inst.result.map(|v| self.ty(v).elem()).unwrap_or(ScalarType::U32);
                    let c = Code::Cast { from: self.ty(*a).elem(), to, dst: d, a: self.reg(*a) };
                    self.emit(c);
                }
                Op::Bitcast(a) => {
                    let c = Code::Mov { dst: d, src: self.reg(*a), n: 1, masked: false };
                    self.emit(c);
                }
                Op::Fma(a, b, c) => {
                    let c = Code::Fma {
                        ty: self.ty(*a).elem(),
                        dst: d,
                        a: self.reg(*a),
                        b: self.reg(*b),
                        c: self.reg(*c),
                    };
                    self.emit(c);
                }
                Op::MakeVector(parts) => {
                    for (i, p) in parts.iter().enumerate() {
                        let c = Code::Mov { dst: d + i as u32, src: self.reg(*p), n: 1, masked: false };
                        self.emit(c);
                    }
                }
                Op::Extract(v, lane) => {
                    let c = Code::Mov { dst: d, src: self.reg(*v) + *lane as u32, n: 1, masked: false };
                    self.emit(c);
                }
                Op::ReadVar(var) => {
                    let n = self.f.vars[var.0 as usize].ty.lanes();
                    let c = Code::Mov { dst: d, src: self.var_reg[var.0 as usize], n, masked: false };
                    self.emit(c);
                }
                Op::WriteVar(var, v) => {
                    let n = self.f.vars[var.0 as usize].ty.lanes();
                    let c =
                        Code::Mov { dst: self.var_reg[var.0 as usize], src: self.reg(*v), n, masked: true };
                    self.emit(c);
                }
                Op::ReadVarLane(var, lane) => {
                    let src = self.var_reg[var.0 as usize] + *lane as u32;
                    self.emit(Code::Mov { dst: d, src, n: 1, masked: false });
                }
                Op::WriteVarLane(var, lane, v) => {
                    let dst = self.var_reg[var.0 as usize] + *lane as u32;
                    self.emit(Code::Mov { dst, src: self.reg(*v), n: 1, masked: true });
                }
                Op::Load { mem, index } => {
                    let lanes = inst.result.map(|v| self.ty(v).lanes()).unwrap_or(1);
                    let c = Code::Load {
                        dst: d,
                        mem: mem.0,
                        idx: self.reg(*index),
                        ity: self.ty(*index).elem(),
                        lanes,
                    };
                    self.emit(c);
                }
                Op::Store { mem, index, value } => {
                    let c = Code::Store {
                        src: self.reg(*value),
                        mem: mem.0,
                        idx: self.reg(*index),
                        ity: self.ty(*index).elem(),
                        lanes: self.ty(*value).lanes(),
                    };
                    self.emit(c);
                }
                Op::Barrier => {
                    self.emit(Code::Barrier);
                }
                Op::Intrinsic(call, args) => {
                    let args =
                        args.iter().map(|a| (self.reg(*a), self.ty(*a).lanes(), self.ty(*a))).collect();
                    let vars = call
                        .vars
                        .iter()
                        .map(|v| (self.var_reg[v.0 as usize], self.f.vars[v.0 as usize].ty.lanes()))
                        .collect();
                    let result = inst.result.map(|v| (d, self.ty(v).lanes()));
                    self.calls.push(IntrinsicCode { call: call.clone(), args, vars, result });
                    self.emit(Code::Intrinsic(self.calls.len() as u32 - 1));
                }
                Op::If { cond, then_region, else_region } => {
                    let at_if = self.emit(Code::IfBegin { cond: self.reg(*cond), else_pc: 0 });
                    let p1 = self.region(*then_region);
                    let at_else = self.emit(Code::Else { end_pc: 0 });
                    self.patch(&p1, at_else);
                    let p2 = self.region(*else_region);
                    let at_end = self.emit(Code::EndIf { skip: 0 });
                    self.patch(&p2, at_end);
                    self.code[at_if] = Code::IfBegin { cond: self.reg(*cond), else_pc: at_else as u32 };
                    self.code[at_else] = Code::Else { end_pc: at_end as u32 };
                    pending.push(at_end);
                }
                Op::Loop { body, latch } => {
                    self.emit(Code::LoopBegin);
                    let body_pc = self.code.len() as u32;
                    let p1 = self.region(*body);
                    let at_latch = self.emit(Code::Latch { end_pc: 0 });
                    self.patch(&p1, at_latch);
                    let p2 = self.region(*latch);
                    let at_back = self.emit(Code::LoopBack { body_pc, end_pc: 0 });
                    self.patch(&p2, at_back);
                    let at_end = self.emit(Code::LoopEnd { skip: 0 });
                    self.code[at_latch] = Code::Latch { end_pc: at_end as u32 };
                    self.code[at_back] = Code::LoopBack { body_pc, end_pc: at_end as u32 };
                    pending.push(at_end);
                }
                Op::Break { depth } => pending.push(self.emit(Code::Break { depth: *depth, skip: 0 })),
                Op::Continue { depth } => pending.push(self.emit(Code::Continue { depth: *depth, skip: 0 })),
                Op::Return => pending.push(self.emit(Code::Return { skip: 0 })),
            }
        }
        pending
    }
}

/// Lowers a verified function.
pub fn lower(f: &Function) -> Program {
    let mut slot = 0;
    let param_slot = f
        .params
        .iter()
        .map(|p| {
            let s = slot;
            slot += match p.kind {
                ParamKind::Scalar(_) | ParamKind::TensorMap => 1,
                ParamKind::Slice { .. } => 2,
            };
            s
        })
        .collect();
    let mut l = Lower {
        f,
        code: Vec::new(),
        calls: Vec::new(),
        value_reg: vec![0; f.values.len()],
        var_reg: Vec::new(),
        nregs: 0,
        param_slot,
    };
    for v in &f.vars {
        let r = l.alloc(v.ty.lanes());
        l.var_reg.push(r);
    }
    let pending = l.region(f.body);
    let end = l.emit(Code::End);
    l.patch(&pending, end);
    Program { code: l.code, calls: l.calls, nregs: l.nregs }
}
