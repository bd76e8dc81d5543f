//! The timed variant of a kernel, which kernel tracing launches instead of the kernel itself:
//! the same code with one more slice parameter, a launch's timing slot, into which the first
//! thread of each block folds the device timer ([`intrinsics::timer::GLOBAL_TIMER`]) read at
//! entry and at every exit, so the tracer gets a launch's device start and end without timing
//! events.
//!
//! **Slot layout.** A slot is [`TIMING_SLOT_WORDS`] `u64`s, zeroed before the launch: for each
//! of [`TIMING_LANES`] lanes, word `2 * lane` is the largest `!start` (the bitwise complement, so
//! the earliest start is a maximum too and one zero fill serves both words) and word
//! `2 * lane + 1` the largest end seen by blocks on a multiprocessor whose `%smid` is `lane`
//! modulo the lane count. The launch's start is the earliest start over the lanes that were
//! written, its end the latest end. Lanes spread the atomics of a large grid over as many
//! addresses, so they do not queue behind each other on one.
//!
//! **What is timed.** Thread (0, 0, 0) of each block reads the timer at entry and when it
//! leaves (at each `return` and at the end of the body), so the end is when the last block's
//! first thread left: a block whose other threads run on after their first thread has left
//! ends later than recorded. Every other thread runs one extra comparison and branch at entry
//! and at each exit.

use crate::intrinsics::{atomic, timer, Call};
use crate::*;

/// Lanes of a timing slot (a power of two).
pub const TIMING_LANES: u32 = 16;
/// `u64` words in one launch's timing slot.
pub const TIMING_SLOT_WORDS: usize = 2 * TIMING_LANES as usize;
/// The name of the parameter the timed variant adds (last, after the kernel's own).
pub const TIMING_PARAM: &str = "ferrocm_timing_slot";

/// The earliest start and the latest end of a launch, from its timing slot (device timer
/// nanoseconds); `None` when no block wrote it (the kernel has not run).
pub fn read_timing_slot(slot: &[u64]) -> Option<(u64, u64)> {
    let (mut start, mut end, mut any) = (u64::MAX, 0u64, false);
    for lane in slot.chunks_exact(2).take(TIMING_LANES as usize) {
        if lane[0] != 0 {
            start = start.min(!lane[0]);
            end = end.max(lane[1]);
            any = true;
        }
    }
    (any && end != 0).then_some((start, end.max(start)))
}

struct Rewriter {
    f: Function,
    slot: Mem,
    lead: Value,
}

impl Rewriter {
    fn value(&mut self, ty: Type) -> Value {
        self.f.values.push(ty);
        Value(self.f.values.len() as u32 - 1)
    }

    fn push(&mut self, out: &mut Vec<Inst>, op: Op, ty: Option<Type>) -> Value {
        let result = ty.map(|t| self.value(t));
        out.push(Inst { result, op });
        result.unwrap_or(Value(u32::MAX))
    }

    fn region(&mut self, insts: Vec<Inst>) -> Region {
        self.f.regions.push(insts);
        Region(self.f.regions.len() as u32 - 1)
    }

    /// `if lead { slot[2 * (smid % LANES) + word] max= value() }`, with `value` emitted inside.
    fn fold(&mut self, out: &mut Vec<Inst>, word: u64, complement: bool) {
        let u32t = Some(Type::Scalar(ScalarType::U32));
        let u64t = Some(Type::Scalar(ScalarType::U64));
        let mut then = Vec::new();
        let t =
            self.push(&mut then, Op::Intrinsic(Call::new(&timer::GLOBAL_TIMER, &[], &[], &[]), vec![]), u64t);
        let t = if complement { self.push(&mut then, Op::Unary(UnaryOp::Not, t), u64t) } else { t };
        let sm = self.push(&mut then, Op::Intrinsic(Call::new(&timer::SMID, &[], &[], &[]), vec![]), u32t);
        let mask = self.push(
            &mut then,
            Op::Const(Const { ty: ScalarType::U32, bits: (TIMING_LANES - 1) as u64 }),
            u32t,
        );
        let lane = self.push(&mut then, Op::Binary(BinaryOp::And, sm, mask), u32t);
        let lane = self.push(&mut then, Op::Cast(lane), u64t);
        let two = self.push(&mut then, Op::Const(Const { ty: ScalarType::U64, bits: 2 }), u64t);
        let at = self.push(&mut then, Op::Binary(BinaryOp::Mul, lane, two), u64t);
        let w = self.push(&mut then, Op::Const(Const { ty: ScalarType::U64, bits: word }), u64t);
        let at = self.push(&mut then, Op::Binary(BinaryOp::Add, at, w), u64t);
        let call =
            Call::new(&atomic::ATOMIC, &[("op", atomic::atomic_imm(AtomicOp::Max))], &[self.slot], &[]);
        self.push(&mut then, Op::Intrinsic(call, vec![at, t]), u64t);
        let then_region = self.region(then);
        let else_region = self.region(Vec::new());
        out.push(Inst { result: None, op: Op::If { cond: self.lead, then_region, else_region } });
    }

    /// Puts the end fold before each `return` of region `r` and the regions inside it.
    fn rewrite(&mut self, r: Region, at_end: bool) {
        let old = std::mem::take(&mut self.f.regions[r.0 as usize]);
        let mut out = Vec::with_capacity(old.len() + 2);
        let mut returned = false;
        for inst in old {
            match &inst.op {
                Op::If { then_region, else_region, .. } => {
                    self.rewrite(*then_region, false);
                    self.rewrite(*else_region, false);
                }
                Op::Loop { body, latch } => {
                    self.rewrite(*body, false);
                    self.rewrite(*latch, false);
                }
                Op::Return => {
                    self.fold(&mut out, 1, false);
                    returned = true;
                }
                _ => {}
            }
            out.push(inst);
        }
        if at_end && !returned {
            self.fold(&mut out, 1, false);
        }
        self.f.regions[r.0 as usize] = out;
    }
}

/// The timed variant of `f` (see the module documentation): `f`'s parameters and one more,
/// [`TIMING_PARAM`], a writable `u64` slice of at least [`TIMING_SLOT_WORDS`] elements. It
/// computes what `f` computes; under the launch ABI the caller appends the slot's address and
/// length to `f`'s arguments.
pub fn timed(f: &Function) -> Function {
    let mut f = f.clone();
    let param = f.params.len() as u32;
    f.params.push(Param {
        name: TIMING_PARAM.into(),
        kind: ParamKind::Slice { elem: ScalarType::U64, mutable: true },
    });
    f.mems.push(MemData {
        name: TIMING_PARAM.into(),
        elem: ScalarType::U64,
        space: MemSpace::Global { param, mutable: true },
    });
    let slot = Mem(f.mems.len() as u32 - 1);
    let body = f.body;
    let mut rw = Rewriter { f, slot, lead: Value(0) };
    // lead = (tid.x | tid.y | tid.z) == 0
    let u32t = Some(Type::Scalar(ScalarType::U32));
    let mut entry = Vec::new();
    let x = rw.push(&mut entry, Op::Special(Special::ThreadIdx(Axis::X)), u32t);
    let y = rw.push(&mut entry, Op::Special(Special::ThreadIdx(Axis::Y)), u32t);
    let z = rw.push(&mut entry, Op::Special(Special::ThreadIdx(Axis::Z)), u32t);
    let xy = rw.push(&mut entry, Op::Binary(BinaryOp::Or, x, y), u32t);
    let xyz = rw.push(&mut entry, Op::Binary(BinaryOp::Or, xy, z), u32t);
    let zero = rw.push(&mut entry, Op::Const(Const { ty: ScalarType::U32, bits: 0 }), u32t);
    rw.lead = rw.push(&mut entry, Op::Cmp(CmpOp::Eq, xyz, zero), Some(Type::Scalar(ScalarType::Bool)));
    rw.fold(&mut entry, 0, true);
    rw.rewrite(body, true);
    // After the scalar parameters' values, which the text form has first.
    let mut rest = std::mem::take(&mut rw.f.regions[body.0 as usize]);
    let params = rest.iter().take_while(|i| matches!(i.op, Op::Param(_))).count();
    let tail = rest.split_off(params);
    rest.extend(entry);
    rest.extend(tail);
    rw.f.regions[body.0 as usize] = rest;
    let mut f = rw.f;
    renumber(&mut f);
    f
}

/// Numbers values in program order (as the text form requires), remapping every use.
fn renumber(f: &mut Function) {
    fn assign(f: &Function, r: Region, map: &mut [u32], types: &mut Vec<Type>) {
        for inst in f.region(r) {
            if let Some(v) = inst.result {
                map[v.0 as usize] = types.len() as u32;
                types.push(f.values[v.0 as usize]);
            }
            match &inst.op {
                Op::If { then_region, else_region, .. } => {
                    assign(f, *then_region, map, types);
                    assign(f, *else_region, map, types);
                }
                Op::Loop { body, latch } => {
                    assign(f, *body, map, types);
                    assign(f, *latch, map, types);
                }
                _ => {}
            }
        }
    }
    let mut map = vec![u32::MAX; f.values.len()];
    let mut types = Vec::with_capacity(f.values.len());
    assign(f, f.body, &mut map, &mut types);
    // Values no instruction defines keep a place after the others.
    for (old, m) in map.iter_mut().enumerate() {
        if *m == u32::MAX {
            *m = types.len() as u32;
            types.push(f.values[old]);
        }
    }
    let new = |v: &mut Value| *v = Value(map[v.0 as usize]);
    for region in &mut f.regions {
        for inst in region {
            if let Some(v) = &mut inst.result {
                new(v);
            }
            match &mut inst.op {
                Op::Const(_)
                | Op::Param(_)
                | Op::Special(_)
                | Op::Len(_)
                | Op::ReadVar(_)
                | Op::ReadVarLane(..)
                | Op::Barrier
                | Op::Loop { .. }
                | Op::Break { .. }
                | Op::Continue { .. }
                | Op::Return => {}
                Op::Unary(_, a) | Op::Cast(a) | Op::Bitcast(a) | Op::Extract(a, _) => new(a),
                Op::WriteVar(_, a) | Op::WriteVarLane(_, _, a) => new(a),
                Op::Binary(_, a, b) | Op::Cmp(_, a, b) => {
                    new(a);
                    new(b);
                }
                Op::Select(a, b, c) | Op::Fma(a, b, c) => {
                    new(a);
                    new(b);
                    new(c);
                }
                Op::MakeVector(vs) | Op::Intrinsic(_, vs) => vs.iter_mut().for_each(new),
                Op::Load { index, .. } => new(index),
                Op::Store { index, value, .. } => {
                    new(index);
                    new(value);
                }
                Op::If { cond, .. } => new(cond),
            }
        }
    }
    f.values = types;
}
