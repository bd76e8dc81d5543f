//! The warp interpreter: core ops run here over 32 lanes under an execution mask; intrinsics run
//! their row's semantics against [`Ctx`], this module's implementation of the executor services
//! ([`Exec`]).

use ferrocm_backend::tensor_map::TensorMapDesc;
use ferrocm_ir::intrinsics::{Converged, Exec, Flow, MbarrierOp};
use ferrocm_ir::*;

use crate::addressed;
use crate::compile::{Code, IntrinsicCode};
use crate::lanes::{self, Lanes};
use crate::launch::{Launch, Place};
use crate::memory::{atomic_rmw, gather, read_mem, regs_mut, scatter, write_mem};
use crate::sched::{self, Frame, GroupState, Stop, Warp};

fn oob(l: &Launch, w: &Warp, lane: usize, mem: u32, index: i128, blk: (u32, u32, u32)) -> String {
    let m = &l.mems[mem as usize];
    format!(
        "kernel `{}`: index {index} out of bounds for `{}` of length {} in thread {:?} of block {:?}",
        l.k.func.name,
        l.k.func.mems[mem as usize].name,
        m.len,
        l.thread_coords(w.id * 32 + lane as u32),
        blk
    )
}

/// The address of element `index` (of `lanes` elements) of `mem` for `lane`, bounds checked.
#[inline]
#[allow(clippy::too_many_arguments)]
fn addr(
    l: &Launch,
    w: &Warp,
    shared: *mut u8,
    mem: u32,
    index: i128,
    lanes: u32,
    lane: usize,
    blk: (u32, u32, u32),
) -> Result<*mut u8, String> {
    let m = &l.mems[mem as usize];
    let first = index * lanes as i128;
    if index < 0 || first + lanes as i128 > m.len as i128 {
        return Err(oob(l, w, lane, mem, index, blk));
    }
    let off = first as usize * m.size as usize;
    Ok(match m.place {
        Place::Global { base } => (base as usize + off) as *mut u8,
        // SAFETY (of the pointer arithmetic): the bounds check above keeps `off` inside the
        // block's shared buffer or this lane's local area, both sized at launch.
        Place::Shared { offset } => unsafe { shared.add(offset as usize + off) },
        Place::Local { offset } => unsafe {
            (w.local.as_ptr() as *mut u8).add(lane * l.k.local_bytes as usize + offset as usize + off)
        },
        // Tensor maps and byte-addressed memories have length 0, so the bounds check has already
        // failed (addressed accesses go through `addressed::resolve` instead).
        Place::TensorMap | Place::Addressed(_) => return Err(oob(l, w, lane, mem, index, blk)),
    })
}

/// Adds a warp-wide access of `lanes`-element vectors at element-vector `index(lane)` of memory
/// `mem` to the launch's bank counters, when it counts and `mem` is shared.
fn count_banks(l: &Launch, store: bool, active: u32, mem: u32, index: impl Fn(usize) -> u64, lanes: u32) {
    let m = &l.mems[mem as usize];
    if let (Some(c), Place::Shared { offset }) = (&l.banks, m.place) {
        let width = m.size * lanes;
        c.count(store, active, width, |lane| offset + index(lane) * width as u64);
    }
}

/// The base address of a global or shared memory after checking every active lane's (scalar)
/// index against its length.
fn checked_base(
    l: &Launch,
    w: &Warp,
    shared: *mut u8,
    mem: u32,
    ity: ScalarType,
    idx: u32,
    blk: (u32, u32, u32),
) -> Result<(*mut u8, [i64; 32]), String> {
    let m = &l.mems[mem as usize];
    let ix = lanes::indices(ity, &w.regs[idx as usize]);
    for lane in 0..32 {
        if w.active >> lane & 1 != 0 && (ix[lane] < 0 || ix[lane] as u64 >= m.len) {
            return Err(oob(l, w, lane, mem, ix[lane] as i128, blk));
        }
    }
    let base = match m.place {
        Place::Global { base } => base as *mut u8,
        // SAFETY: the offset lies inside the block's shared buffer, sized at launch.
        Place::Shared { offset } => unsafe { shared.add(offset as usize) },
        Place::Local { .. } | Place::TensorMap | Place::Addressed(_) => std::ptr::null_mut(),
    };
    Ok((base, ix))
}

fn special(l: &Launch, gs: &GroupState, bi: usize, w: &Warp, s: Special, d: &mut Lanes) {
    let (b, g, c) = (l.dims.block, l.dims.grid, l.cluster);
    let blk = gs.blocks[bi].coords;
    let pick = |a: Axis, x: u32, y: u32, z: u32| match a {
        Axis::X => x,
        Axis::Y => y,
        Axis::Z => z,
    };
    let uniform = match s {
        Special::ThreadIdx(a) => {
            let i = match a {
                Axis::X => 0,
                Axis::Y => 1,
                Axis::Z => 2,
            };
            for lane in 0..32 {
                d[lane] = w.coords[i][lane] as u64;
            }
            return;
        }
        Special::LaneId => {
            for (lane, out) in d.iter_mut().enumerate() {
                *out = lane as u64;
            }
            return;
        }
        Special::BlockIdx(a) => pick(a, blk.0, blk.1, blk.2),
        Special::BlockDim(a) => pick(a, b.x, b.y, b.z),
        Special::GridDim(a) => pick(a, g.x, g.y, g.z),
        Special::WarpSize => 32,
        Special::ClusterRank => gs.blocks[bi].rank,
        Special::ClusterSize => c.volume() as u32,
        Special::ClusterBlockIdx(a) => pick(a, blk.0 % c.x, blk.1 % c.y, blk.2 % c.z),
        Special::ClusterDim(a) => pick(a, c.x, c.y, c.z),
        Special::ClusterIdx(a) => pick(a, blk.0 / c.x, blk.1 / c.y, blk.2 / c.z),
        Special::ClusterGridDim(a) => pick(a, g.x / c.x, g.y / c.y, g.z / c.z),
    };
    *d = [uniform as u64; 32];
}

fn loop_frame(w: &mut Warp, depth: u32) -> Option<&mut Frame> {
    w.frames.iter_mut().rev().filter(|f| matches!(f, Frame::Loop { .. })).nth(depth as usize)
}

/// Runs one intrinsic for warp `w` of block `bi`, after checking that the threads it needs take
/// part.
fn run_intrinsic(
    l: &Launch,
    gs: &mut GroupState,
    bi: usize,
    w: &mut Warp,
    ic: &IntrinsicCode,
) -> Result<Flow, String> {
    let def = ic.call.def;
    let name = &l.k.func.name;
    let blk = gs.blocks[bi].coords;
    if def.effects.converged != Converged::No && w.active != w.live {
        // The PTX forms take the full warp (`.sync.aligned`, shuffles with a full mask): a
        // partial warp is undefined behaviour on the GPU.
        return Err(format!(
            "kernel `{name}`: `{}` in block {blk:?} was executed by only part of warp {} (lanes {:#010x} of \
             {:#010x}); it needs the whole warp converged",
            ic.call.text_name(),
            w.id,
            w.active,
            w.live
        ));
    }
    if def.effects.converged == Converged::Warpgroup && !l.block_threads.is_multiple_of(128) {
        return Err(format!(
            "kernel `{name}`: `{}` runs on warpgroups of 128 threads, but blocks have {} threads",
            ic.call.text_name(),
            l.block_threads
        ));
    }
    let mut ctx = Ctx { l, gs, bi, w, ic };
    (def.exec)(&mut ctx, &ic.call)
}

/// The executor's services for one intrinsic executed by one warp.
struct Ctx<'a> {
    l: &'a Launch<'a>,
    gs: &'a mut GroupState,
    bi: usize,
    w: &'a mut Warp,
    ic: &'a IntrinsicCode,
}

impl Ctx<'_> {
    fn mem_index(&self, m: usize) -> Result<u32, String> {
        self.ic
            .call
            .mems
            .get(m)
            .map(|m| m.0)
            .ok_or_else(|| self.fault(&format!("memory operand {m} is missing")))
    }

    /// The pointer to element `index` of memory operand `m` for `lane`, bounds checked (for
    /// byte-addressed memory, `index` is the byte address, checked as loads and stores are).
    fn element(&mut self, m: usize, lane: usize, index: i128) -> Result<(*mut u8, u32, ScalarType), String> {
        let mem = self.mem_index(m)?;
        let shared = self.gs.blocks[self.bi].shared.as_mut_ptr() as *mut u8;
        let blk = self.gs.blocks[self.bi].coords;
        let info = &self.l.mems[mem as usize];
        let (size, elem) = (info.size, info.elem);
        let p = match info.place {
            Place::Addressed(space) => {
                addressed::resolve(self.l, self.w, shared, space, index as u64, size, size, lane, blk)?
            }
            _ => addr(self.l, self.w, shared, mem, index, 1, lane, blk)?,
        };
        Ok((p, size, elem))
    }

    fn shared_base(&mut self) -> (*mut u8, (u32, u32, u32)) {
        let b = &mut self.gs.blocks[self.bi];
        (b.shared.as_mut_ptr() as *mut u8, b.coords)
    }

    /// The block of the cluster's CTA `rank`, and a pointer to `size` bytes at `addr` of its
    /// shared memory, checked to lie inside it and be aligned.
    fn shared_ptr(&mut self, rank: u32, addr: u64, size: u32) -> Result<*mut u8, String> {
        let csize = self.l.cluster.volume() as u32;
        if rank >= csize {
            return Err(self.fault(&format!("CTA rank {rank} is outside the cluster of {csize} blocks")));
        }
        let tb = self.gs.blocks[self.bi].cluster_base + rank as usize;
        if !addr.is_multiple_of(size as u64) || addr + size as u64 > self.l.shared_bytes {
            return Err(self.fault(&format!(
                "a {size}-byte shared-memory access at address {addr:#x} is outside the block's {} bytes or \
                 misaligned",
                self.l.shared_bytes
            )));
        }
        // SAFETY: the range lies inside the target block's shared buffer (checked above).
        Ok(unsafe { (self.gs.blocks[tb].shared.as_mut_ptr() as *mut u8).add(addr as usize) })
    }

    /// A pointer to `size` bytes at global `addr` inside the tensor of tensor map `m`.
    fn tensor_ptr(&self, m: usize, addr: u64, size: u32) -> Result<*mut u8, String> {
        let mem = self.mem_index(m)?;
        let Some((d, extent)) = self.l.maps.get(mem as usize).copied().flatten() else {
            return Err(self.fault(&format!("memory operand {m} is not a tensor map")));
        };
        let base = d.global_address.0;
        if addr < base || addr + size as u64 > base + extent || !addr.is_multiple_of(size as u64) {
            return Err(self.fault(&format!(
                "a TMA access at {addr:#x} lies outside the tensor of {extent} bytes at {base:#x}"
            )));
        }
        Ok(addr as *mut u8)
    }
}

impl Exec for Ctx<'_> {
    fn func(&self) -> &Function {
        &self.l.k.func
    }
    fn active(&self) -> u32 {
        self.w.active
    }
    fn live(&self) -> u32 {
        self.w.live
    }
    fn warp(&self) -> u32 {
        self.w.id
    }
    fn block_threads(&self) -> u32 {
        self.l.block_threads
    }
    fn arg(&self, i: usize) -> &[Lanes] {
        let (r, n, _) = self.ic.args[i];
        &self.w.regs[r as usize..(r + n) as usize]
    }
    fn arg_type(&self, i: usize) -> Type {
        self.ic.args[i].2
    }
    fn var(&mut self, i: usize) -> &mut [Lanes] {
        let (r, n) = self.ic.vars[i];
        &mut self.w.regs[r as usize..(r + n) as usize]
    }
    fn set_result(&mut self, k: usize, v: Lanes) {
        if let Some((r, n)) = self.ic.result {
            if (k as u32) < n {
                self.w.regs[r as usize + k] = v;
            }
        }
    }
    fn fault(&self, what: &str) -> String {
        format!(
            "kernel `{}`: {what} (`{}` in block {:?}, warp {})",
            self.l.k.func.name,
            self.ic.call.text_name(),
            self.gs.blocks[self.bi].coords,
            self.w.id
        )
    }
    fn read(&mut self, m: usize, lane: usize, index: i128) -> Result<u64, String> {
        let (p, size, elem) = self.element(m, lane, index)?;
        // SAFETY: `element` checked the index against the memory's length; global memory is valid
        // by the launch contract and aligned (checked at launch); shared/local buffers are ours.
        let v = unsafe { read_mem(p, size) };
        Ok(if elem == ScalarType::Bool { (v != 0) as u64 } else { v })
    }
    fn write(&mut self, m: usize, lane: usize, index: i128, bits: u64) -> Result<(), String> {
        let (p, size, elem) = self.element(m, lane, index)?;
        let mem = self.mem_index(m)?;
        if let MemSpace::Global { mutable: false, .. } = self.l.k.func.mems[mem as usize].space {
            return Err(self.fault(&format!("`{}` is read-only", self.l.k.func.mems[mem as usize].name)));
        }
        let bits = if elem == ScalarType::Bool { bits & 1 } else { bits };
        // SAFETY: as for `read`.
        unsafe { write_mem(p, size, bits) };
        Ok(())
    }
    fn atomic(
        &mut self,
        m: usize,
        lane: usize,
        index: i128,
        op: AtomicOp,
        bits: u64,
        compare: u64,
    ) -> Result<u64, String> {
        let mem = self.mem_index(m)?;
        if let Place::Addressed(space) = self.l.mems[mem as usize].place {
            // The row refuses atomics on addressed local memory; a generic address may still
            // point there.
            if addressed::split_generic(space, index as u64).0 == AddrSpace::Local {
                return Err(self.fault(&format!(
                    "an atomic on local memory (generic address {:#x}); atomics work on global and shared memory",
                    index as u64
                )));
            }
        }
        let (p, _, elem) = self.element(m, lane, index)?;
        // SAFETY: as for `read`; the row only allows atomics on 4- and 8-byte integer and float
        // elements.
        Ok(unsafe { atomic_rmw(op, elem, p, bits, compare) })
    }
    fn shared_addr(&mut self, m: usize, lane: usize, index: i128) -> Result<u64, String> {
        let mem = self.mem_index(m)?;
        let info = &self.l.mems[mem as usize];
        let Place::Shared { offset } = info.place else {
            return Err(
                self.fault(&format!("`{}` is not shared memory", self.l.k.func.mems[mem as usize].name))
            );
        };
        if index < 0 || index >= info.len as i128 {
            let blk = self.gs.blocks[self.bi].coords;
            return Err(oob(self.l, self.w, lane, mem, index, blk));
        }
        Ok(offset + index as u64 * info.size as u64)
    }
    fn shared_read(&mut self, rank: u32, addr: u64, size: u32) -> Result<u64, String> {
        let p = self.shared_ptr(rank, addr, size)?;
        // SAFETY: `shared_ptr` checked range and alignment.
        Ok(unsafe { read_mem(p, size) })
    }
    fn shared_write(&mut self, rank: u32, addr: u64, size: u32, bits: u64) -> Result<(), String> {
        let p = self.shared_ptr(rank, addr, size)?;
        // SAFETY: `shared_ptr` checked range and alignment.
        unsafe { write_mem(p, size, bits) };
        Ok(())
    }
    fn cta_rank(&self) -> u32 {
        self.gs.blocks[self.bi].rank
    }
    fn cluster_size(&self) -> u32 {
        self.l.cluster.volume() as u32
    }
    fn tensor_map(&self, m: usize) -> Result<TensorMapDesc, String> {
        let mem = self.mem_index(m)?;
        self.l
            .maps
            .get(mem as usize)
            .copied()
            .flatten()
            .map(|(d, _)| d)
            .ok_or_else(|| self.fault(&format!("memory operand {m} is not a tensor map")))
    }
    fn tensor_read(&mut self, m: usize, addr: u64, size: u32) -> Result<u64, String> {
        let p = self.tensor_ptr(m, addr, size)?;
        // SAFETY: the launch contract makes the tensor a tensor-map parameter describes valid
        // memory; `tensor_ptr` kept the access inside it and aligned.
        Ok(unsafe { read_mem(p, size) })
    }
    fn tensor_write(&mut self, m: usize, addr: u64, size: u32, bits: u64) -> Result<(), String> {
        let p = self.tensor_ptr(m, addr, size)?;
        // SAFETY: as for `tensor_read`.
        unsafe { write_mem(p, size, bits) };
        Ok(())
    }
    fn mbarrier(&mut self, rank: u32, addr: u64, op: MbarrierOp, lane: usize) -> Result<(), String> {
        sched::mbarrier(self.l, self.gs, self.bi, (self.w.id, lane as u32), rank, addr, op)
    }
    fn mbarrier_done(&mut self, rank: u32, addr: u64, parity: u32) -> Result<bool, String> {
        sched::mbar_done(self.l, self.gs, self.bi, rank, addr, parity)
    }
    fn c_string(&mut self, lane: usize, addr: u64) -> Result<Vec<u8>, String> {
        let (shared, blk) = self.shared_base();
        addressed::c_string(self.l, self.w, shared, addr, lane, blk)
    }
    fn printf(&mut self, lane: usize, format: u64, args: u64) -> Result<i32, String> {
        let (shared, blk) = self.shared_base();
        let (text, count) = addressed::printf(self.l, self.w, shared, format, args, lane, blk)?;
        self.l.k.print(&text);
        Ok(count)
    }
}

pub(crate) fn run_warp(l: &Launch, gs: &mut GroupState, bi: usize, w: &mut Warp) -> Result<Stop, String> {
    let code = &l.k.prog.code;
    let name = &l.k.func.name;
    let blk = gs.blocks[bi].coords;
    let shared = gs.blocks[bi].shared.as_mut_ptr() as *mut u8;
    loop {
        let pc = w.pc;
        w.pc += 1;
        match &code[pc] {
            Code::Const { dst, bits } => w.regs[*dst as usize] = [*bits; 32],
            Code::Param { dst, slot } => w.regs[*dst as usize] = [l.params[*slot as usize]; 32],
            Code::Special { dst, s } => {
                let mut d = [0; 32];
                special(l, gs, bi, w, *s, &mut d);
                w.regs[*dst as usize] = d;
            }
            Code::Len { dst, mem } => w.regs[*dst as usize] = [l.mems[*mem as usize].len; 32],
            Code::Unary { op, ty, dst, a } => {
                let (d, [a]) = regs_mut(&mut w.regs, *dst, [*a]);
                lanes::unary(*op, *ty, a, d);
            }
            Code::Binary { op, ty, dst, a, b, bty } => {
                let (d, [a, b]) = regs_mut(&mut w.regs, *dst, [*a, *b]);
                lanes::binary(*op, *ty, *bty, a, b, d);
            }
            Code::Cmp { op, ty, dst, a, b } => {
                let (d, [a, b]) = regs_mut(&mut w.regs, *dst, [*a, *b]);
                lanes::cmp(*op, *ty, a, b, d);
            }
            Code::Select { dst, c, a, b, n } => {
                for k in 0..*n as usize {
                    let (cv, av, bv) =
                        (w.regs[*c as usize], w.regs[*a as usize + k], w.regs[*b as usize + k]);
                    let mut d = [0; 32];
                    for i in 0..32 {
                        d[i] = if cv[i] & 1 != 0 { av[i] } else { bv[i] };
                    }
                    w.regs[*dst as usize + k] = d;
                }
            }
            Code::Cast { from, to, dst, a } => {
                let (d, [a]) = regs_mut(&mut w.regs, *dst, [*a]);
                lanes::cast(*from, *to, a, d);
            }
            Code::Fma { ty, dst, a, b, c } => {
                let (d, [a, b, c]) = regs_mut(&mut w.regs, *dst, [*a, *b, *c]);
                lanes::fma(*ty, a, b, c, d);
            }
            Code::Mov { dst, src, n, masked } => {
                for k in 0..*n as usize {
                    let s = w.regs[*src as usize + k];
                    if *masked {
                        let d = &mut w.regs[*dst as usize + k];
                        for i in 0..32 {
                            if w.active >> i & 1 != 0 {
                                d[i] = s[i];
                            }
                        }
                    } else {
                        w.regs[*dst as usize + k] = s;
                    }
                }
            }
            Code::Load { dst, mem, idx, ity, lanes }
                if matches!(l.mems[*mem as usize].place, Place::Addressed(_)) =>
            {
                let m = &l.mems[*mem as usize];
                let Place::Addressed(space) = m.place else { unreachable!() };
                let (size, is_bool) = (m.size, m.elem == ScalarType::Bool);
                let iv = w.regs[*idx as usize];
                for lane in 0..32 {
                    if w.active >> lane & 1 == 0 {
                        continue;
                    }
                    let a = lanes::index_value(*ity, iv[lane]) as u64;
                    let bytes = size * *lanes;
                    let p = addressed::resolve(l, w, shared, space, a, bytes, bytes, lane, blk)?;
                    for k in 0..*lanes as usize {
                        // SAFETY: `resolve` checked the whole access and its alignment.
                        let mut v = unsafe { read_mem(p.add(k * size as usize), size) };
                        if is_bool {
                            v = (v != 0) as u64;
                        }
                        w.regs[*dst as usize + k][lane] = v;
                    }
                }
            }
            Code::Store { src, mem, idx, ity, lanes }
                if matches!(l.mems[*mem as usize].place, Place::Addressed(_)) =>
            {
                let m = &l.mems[*mem as usize];
                let Place::Addressed(space) = m.place else { unreachable!() };
                let size = m.size;
                let iv = w.regs[*idx as usize];
                for lane in 0..32 {
                    if w.active >> lane & 1 == 0 {
                        continue;
                    }
                    let a = lanes::index_value(*ity, iv[lane]) as u64;
                    let bytes = size * *lanes;
                    let p = addressed::resolve(l, w, shared, space, a, bytes, bytes, lane, blk)?;
                    for k in 0..*lanes as usize {
                        let v = w.regs[*src as usize + k][lane];
                        // SAFETY: `resolve` checked the whole access and its alignment.
                        unsafe { write_mem(p.add(k * size as usize), size, v) };
                    }
                }
            }
            Code::Load { dst, mem, idx, ity, lanes: 1 }
                if !matches!(l.mems[*mem as usize].place, Place::Local { .. } | Place::TensorMap) =>
            {
                let (base, ix) = checked_base(l, w, shared, *mem, *ity, *idx, blk)?;
                let m = &l.mems[*mem as usize];
                count_banks(l, false, w.active, *mem, |lane| ix[lane] as u64, 1);
                let mut d = w.regs[*dst as usize];
                let active = w.active;
                // SAFETY: `checked_base` bounds-checked every active lane's index.
                unsafe {
                    match m.size {
                        4 => gather::<4>(base, &ix, active, &mut d),
                        8 => gather::<8>(base, &ix, active, &mut d),
                        2 => gather::<2>(base, &ix, active, &mut d),
                        _ => gather::<1>(base, &ix, active, &mut d),
                    }
                }
                if m.elem == ScalarType::Bool {
                    for v in d.iter_mut() {
                        *v = (*v != 0) as u64;
                    }
                }
                w.regs[*dst as usize] = d;
            }
            Code::Store { src, mem, idx, ity, lanes: 1 }
                if !matches!(l.mems[*mem as usize].place, Place::Local { .. } | Place::TensorMap) =>
            {
                let (base, ix) = checked_base(l, w, shared, *mem, *ity, *idx, blk)?;
                let size = l.mems[*mem as usize].size;
                count_banks(l, true, w.active, *mem, |lane| ix[lane] as u64, 1);
                let v = &w.regs[*src as usize];
                // SAFETY: `checked_base` bounds-checked every active lane's index.
                unsafe {
                    match size {
                        4 => scatter::<4>(base, &ix, w.active, v),
                        8 => scatter::<8>(base, &ix, w.active, v),
                        2 => scatter::<2>(base, &ix, w.active, v),
                        _ => scatter::<1>(base, &ix, w.active, v),
                    }
                }
            }
            Code::Load { dst, mem, idx, ity, lanes } => {
                let m = &l.mems[*mem as usize];
                let (size, is_bool) = (m.size, m.elem == ScalarType::Bool);
                let iv = w.regs[*idx as usize];
                for lane in 0..32 {
                    if w.active >> lane & 1 == 0 {
                        continue;
                    }
                    let index = lanes::index_value(*ity, iv[lane]);
                    let p = addr(l, w, shared, *mem, index, *lanes, lane, blk)?;
                    for k in 0..*lanes as usize {
                        // SAFETY: `addr` checked the element range against the memory's
                        // length; global memory is valid by the launch contract and aligned
                        // (checked in `Launch::new`); shared/local buffers are ours.
                        let mut v = unsafe { read_mem(p.add(k * size as usize), size) };
                        if is_bool {
                            v = (v != 0) as u64;
                        }
                        w.regs[*dst as usize + k][lane] = v;
                    }
                }
                // Every active lane's index was checked above.
                count_banks(
                    l,
                    false,
                    w.active,
                    *mem,
                    |lane| lanes::index_value(*ity, iv[lane]) as u64,
                    *lanes,
                );
            }
            Code::Store { src, mem, idx, ity, lanes } => {
                let size = l.mems[*mem as usize].size;
                let iv = w.regs[*idx as usize];
                for lane in 0..32 {
                    if w.active >> lane & 1 == 0 {
                        continue;
                    }
                    let index = lanes::index_value(*ity, iv[lane]);
                    let p = addr(l, w, shared, *mem, index, *lanes, lane, blk)?;
                    for k in 0..*lanes as usize {
                        let v = w.regs[*src as usize + k][lane];
                        // SAFETY: as for loads.
                        unsafe { write_mem(p.add(k * size as usize), size, v) };
                    }
                }
                count_banks(
                    l,
                    true,
                    w.active,
                    *mem,
                    |lane| lanes::index_value(*ity, iv[lane]) as u64,
                    *lanes,
                );
            }
            Code::Barrier => {
                if w.active != w.live {
                    return Err(format!(
                        "kernel `{name}`: a barrier in block {blk:?} was reached by only part of warp {} \
                         (lanes {:#010x} of {:#010x})",
                        w.id, w.active, w.live
                    ));
                }
                return Ok(Stop::SyncThreads { pc });
            }
            Code::Intrinsic(i) => {
                let ic = &l.k.prog.calls[*i as usize];
                match run_intrinsic(l, gs, bi, w, ic)? {
                    Flow::Next => {}
                    Flow::Arrive(wait) => return Ok(Stop::Arrive(wait)),
                    Flow::Block(wait) => return Ok(Stop::Block(wait)),
                    Flow::Retry(wait) => {
                        w.pc = pc;
                        return Ok(Stop::Retry(wait));
                    }
                    Flow::Yield => return Ok(Stop::Yield),
                }
            }
            Code::IfBegin { cond, else_pc } => {
                let cv = &w.regs[*cond as usize];
                let mut c = 0u32;
                for (i, x) in cv.iter().enumerate() {
                    c |= ((x & 1) as u32) << i;
                }
                w.frames.push(Frame::If { outer: w.active, else_mask: w.active & !c });
                w.active &= c;
                if w.active == 0 {
                    w.pc = *else_pc as usize;
                }
            }
            Code::Else { end_pc } => {
                if let Some(Frame::If { else_mask, .. }) = w.frames.last() {
                    w.active = else_mask & !w.gone;
                }
                if w.active == 0 {
                    w.pc = *end_pc as usize;
                }
            }
            Code::EndIf { skip } => {
                if let Some(Frame::If { outer, .. }) = w.frames.pop() {
                    w.active = outer & !w.gone;
                }
                if w.active == 0 {
                    w.pc = *skip as usize;
                }
            }
            Code::LoopBegin => w.frames.push(Frame::Loop { outer: w.active, brk: 0, cont: 0 }),
            Code::Latch { end_pc } => {
                if let Some(Frame::Loop { outer, cont, .. }) = w.frames.last_mut() {
                    w.gone &= !*cont;
                    *cont = 0;
                    w.active = *outer & !w.gone;
                }
                if w.active == 0 {
                    w.pc = *end_pc as usize;
                }
            }
            Code::LoopBack { body_pc, end_pc } => {
                w.pc = if w.active == 0 { *end_pc } else { *body_pc } as usize;
                // Every so many trips round a loop the warp checks the time limit (reading the
                // clock costs about as much as a short loop trip) and lets the rest of its group
                // run, as co-resident warps on a GPU all make progress: a thread spinning on a
                // flag another block of a cooperative grid sets then sees it set.
                w.trips += 1;
                if w.trips == sched::TRIPS_PER_TURN {
                    w.trips = 0;
                    l.check_deadline()?;
                    return Ok(Stop::Yield);
                }
            }
            Code::LoopEnd { skip } => {
                if let Some(Frame::Loop { outer, brk, .. }) = w.frames.pop() {
                    w.gone &= !brk;
                    w.active = outer & !w.gone;
                }
                if w.active == 0 {
                    w.pc = *skip as usize;
                }
            }
            Code::Break { depth, skip } => {
                let a = w.active;
                if let Some(Frame::Loop { brk, .. }) = loop_frame(w, *depth) {
                    *brk |= a;
                }
                w.gone |= a;
                w.active = 0;
                w.pc = *skip as usize;
            }
            Code::Continue { depth, skip } => {
                let a = w.active;
                if let Some(Frame::Loop { cont, .. }) = loop_frame(w, *depth) {
                    *cont |= a;
                }
                w.gone |= a;
                w.active = 0;
                w.pc = *skip as usize;
            }
            Code::Return { skip } => {
                w.gone |= w.active;
                w.active = 0;
                w.pc = *skip as usize;
            }
            Code::End => return Ok(Stop::Done),
        }
    }
}
