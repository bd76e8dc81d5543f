//! ferrocm's CPU executor: runs kernel IR on the host with GPU semantics. It is the reference
//! every GPU result is checked against.
//!
//! Design: SIMT interpretation. The IR is lowered once to a flat, register-based program
//! ([`compile::Program`]). A block's threads run as 32-lane warps; each instruction is
//! interpreted for all 32 lanes at once under an execution mask, so shuffles and votes see
//! their neighbours exactly as on a GPU. Structured control flow keeps masks simple: `if` narrows
//! the mask, `break`/`continue`/`return` move lanes to a `gone` set until the loop latch, the loop
//! exit or the end of the kernel gives them back. A warp is a resumable state (pc, masks,
//! registers): a barrier suspends it until every warp of the block has arrived. Blocks run in
//! parallel on rayon's pool; global-memory accesses are relaxed atomics and atomics are real
//! atomics, so concurrently running blocks never make undefined behaviour on the host.
//!
//! Errors (never UB, never a panic): an out-of-range index names the kernel, the buffer, the
//! index and the thread; a barrier reached by part of a block, and a shuffle, `mma` or
//! `ldmatrix` executed by part of a warp (undefined on the GPU), name the kernel and the warp.

// Lane loops index several parallel register arrays by lane number; iterators would hide that.
#![allow(clippy::needless_range_loop)]

mod compile;
mod lanes;

use std::collections::HashMap;
use std::sync::atomic::*;
use std::sync::Arc;

use ferrocm_backend::{CpuKernel, CpuModule, FunctionAttributes, LaunchDims};
use ferrocm_ir::*;
use rayon::prelude::*;

use compile::Reg;
pub use compile::{lower, Code, Program};
use lanes::Lanes;

/// Why a kernel could not be prepared for the executor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    #[error("kernel `{kernel}` failed verification: {source}")]
    Invalid { kernel: String, source: VerifyError },
}

/// A kernel ready to run on the CPU.
#[derive(Debug)]
pub struct ExecKernel {
    func: Arc<Function>,
    prog: Program,
    shared_offsets: Vec<Option<u32>>,
    static_shared: u32,
    local_offsets: Vec<u32>,
    local_bytes: u32,
}

impl ExecKernel {
    /// Verifies and lowers `func`.
    pub fn new(func: Arc<Function>) -> Result<ExecKernel, ExecError> {
        verify(&func).map_err(|source| ExecError::Invalid { kernel: func.name.clone(), source })?;
        let prog = lower(&func);
        let (shared_offsets, static_shared) = func.shared_layout();
        let mut local_bytes = 0u32;
        let local_offsets = func
            .mems
            .iter()
            .map(|m| match m.space {
                MemSpace::Local { len } => {
                    let at = local_bytes;
                    local_bytes = (local_bytes + len * m.elem.size()).next_multiple_of(16);
                    at
                }
                _ => 0,
            })
            .collect();
        Ok(ExecKernel { func, prog, shared_offsets, static_shared, local_offsets, local_bytes })
    }

    pub fn name(&self) -> &str {
        &self.func.name
    }

    pub fn function(&self) -> &Function {
        &self.func
    }
}

/// A set of kernels, loadable by the CPU backend as a module.
#[derive(Default)]
pub struct ExecModule {
    kernels: HashMap<String, Arc<ExecKernel>>,
}

impl ExecModule {
    pub fn new(kernels: impl IntoIterator<Item = Arc<ExecKernel>>) -> ExecModule {
        ExecModule { kernels: kernels.into_iter().map(|k| (k.func.name.clone(), k)).collect() }
    }
}

impl CpuModule for ExecModule {
    fn function(&self, name: &str) -> Option<Arc<dyn CpuKernel>> {
        self.kernels.get(name).map(|k| k.clone() as Arc<dyn CpuKernel>)
    }
}

impl CpuKernel for ExecKernel {
    fn launch(&self, dims: LaunchDims, args: &[&[u8]]) -> Result<(), String> {
        let launch = Launch::new(self, dims, args)?;
        let nblocks = dims.grid.volume();
        (0..nblocks).into_par_iter().try_for_each_init(Vec::new, |warps, b| launch.run_block(b, warps))
    }

    fn attributes(&self) -> FunctionAttributes {
        FunctionAttributes {
            max_threads_per_block: self.func.max_threads.map_or(1024, |t| t.min(1024)),
            static_shared_bytes: self.static_shared,
            registers_per_thread: 0,
            local_bytes_per_thread: self.local_bytes,
        }
    }
}

/// Where one memory object is, for this launch.
#[derive(Clone, Copy, Debug)]
enum Place {
    Global { base: u64 },
    Shared { offset: u32 },
    Local { offset: u32 },
}

struct MemInfo {
    place: Place,
    len: u64,
    size: u32,
    elem: ScalarType,
}

struct Launch<'a> {
    k: &'a ExecKernel,
    dims: LaunchDims,
    params: Vec<u64>,
    mems: Vec<MemInfo>,
    block_threads: u32,
    shared_words: usize,
    /// Thread coordinates (x, y, z) of each lane of each warp; the same for every block.
    coords: Vec<[[u32; 32]; 3]>,
}

#[derive(Clone, Copy, Debug)]
enum Frame {
    If { outer: u32, else_mask: u32 },
    Loop { outer: u32, brk: u32, cont: u32 },
}

struct Warp {
    id: u32,
    /// Thread coordinates (x, y, z) of each lane, computed once per block.
    coords: [[u32; 32]; 3],
    pc: usize,
    active: u32,
    gone: u32,
    live: u32,
    frames: Vec<Frame>,
    regs: Vec<Lanes>,
    local: Vec<u64>,
    done: bool,
}

enum Status {
    Barrier,
    Done,
}

fn read_le(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
    u64::from_le_bytes(b)
}

/// Reads `size` bytes at `p` as a relaxed atomic.
///
/// # Safety
/// `p` must be valid for reads of `size` bytes and aligned to `size`.
#[inline(always)]
unsafe fn read_mem(p: *mut u8, size: u32) -> u64 {
    match size {
        1 => AtomicU8::from_ptr(p).load(Ordering::Relaxed) as u64,
        2 => AtomicU16::from_ptr(p as *mut u16).load(Ordering::Relaxed) as u64,
        4 => AtomicU32::from_ptr(p as *mut u32).load(Ordering::Relaxed) as u64,
        _ => AtomicU64::from_ptr(p as *mut u64).load(Ordering::Relaxed),
    }
}

/// Writes the low `size` bytes of `v` at `p` as a relaxed atomic.
///
/// # Safety
/// `p` must be valid for writes of `size` bytes and aligned to `size`.
#[inline(always)]
unsafe fn write_mem(p: *mut u8, size: u32, v: u64) {
    match size {
        1 => AtomicU8::from_ptr(p).store(v as u8, Ordering::Relaxed),
        2 => AtomicU16::from_ptr(p as *mut u16).store(v as u16, Ordering::Relaxed),
        4 => AtomicU32::from_ptr(p as *mut u32).store(v as u32, Ordering::Relaxed),
        _ => AtomicU64::from_ptr(p as *mut u64).store(v, Ordering::Relaxed),
    }
}

/// The result register `dst` (mutable) and `N` operand registers (shared) of one instruction.
/// Lowering gives every result a fresh register, so `dst` never aliases an operand; if it did,
/// the operand is taken from a copy instead.
#[inline(always)]
fn regs_mut<const N: usize>(regs: &mut [Lanes], dst: Reg, ops: [Reg; N]) -> (&mut Lanes, [&Lanes; N]) {
    let d = dst as usize;
    assert!(d < regs.len() && ops.iter().all(|&o| (o as usize) < regs.len()), "register out of range");
    let base = regs.as_mut_ptr();
    // SAFETY: all indices are in bounds (checked above); `dst` is distinct from every operand
    // (the lowering allocates a fresh register per result, and the `assert` below keeps it so),
    // so the one mutable and the shared borrows never overlap.
    assert!(ops.iter().all(|&o| o as usize != d), "result register aliases an operand");
    unsafe { (&mut *base.add(d), ops.map(|o| &*base.add(o as usize))) }
}

/// Loads element `ix[lane]` (of `N` bytes) from `base` into `d` for each active lane.
///
/// # Safety
/// Every active lane's element must lie inside valid, `N`-aligned memory at `base`.
#[inline]
unsafe fn gather<const N: u32>(base: *mut u8, ix: &[i64; 32], active: u32, d: &mut Lanes) {
    for lane in 0..32 {
        if active >> lane & 1 != 0 {
            d[lane] = read_mem(base.add(ix[lane] as usize * N as usize), N);
        }
    }
}

/// Stores `v[lane]` (`N` bytes) at element `ix[lane]` of `base` for each active lane.
///
/// # Safety
/// As for [`gather`], for writes.
#[inline]
unsafe fn scatter<const N: u32>(base: *mut u8, ix: &[i64; 32], active: u32, v: &Lanes) {
    for lane in 0..32 {
        if active >> lane & 1 != 0 {
            write_mem(base.add(ix[lane] as usize * N as usize), N, v[lane]);
        }
    }
}

/// One atomic read-modify-write; returns the old bits.
///
/// # Safety
/// `p` must be valid for reads and writes of the element and aligned to its size.
unsafe fn atomic_rmw(op: AtomicOp, elem: ScalarType, p: *mut u8, v: u64, cmp: u64) -> u64 {
    macro_rules! int_rmw {
        ($A:ty, $t:ty, $u:ty) => {{
            let a = <$A>::from_ptr(p as *mut $t);
            let x = v as $u as $t;
            let o = Ordering::SeqCst;
            let old = match op {
                AtomicOp::Add => a.fetch_add(x, o),
                AtomicOp::Sub => a.fetch_sub(x, o),
                AtomicOp::Min => a.fetch_min(x, o),
                AtomicOp::Max => a.fetch_max(x, o),
                AtomicOp::And => a.fetch_and(x, o),
                AtomicOp::Or => a.fetch_or(x, o),
                AtomicOp::Xor => a.fetch_xor(x, o),
                AtomicOp::Exch => a.swap(x, o),
                AtomicOp::Cas => a.compare_exchange(cmp as $u as $t, x, o, o).unwrap_or_else(|e| e),
            };
            old as $u as u64
        }};
    }
    macro_rules! float_rmw {
        ($A:ty, $f:ty, $u:ty) => {{
            let a = <$A>::from_ptr(p as *mut $u);
            let x = <$f>::from_bits(v as $u);
            let o = Ordering::SeqCst;
            match op {
                AtomicOp::Exch => a.swap(v as $u, o) as u64,
                _ => a
                    .fetch_update(o, o, |old| Some((<$f>::from_bits(old) + x).to_bits()))
                    .unwrap_or_else(|e| e) as u64,
            }
        }};
    }
    match elem {
        ScalarType::I32 => int_rmw!(AtomicI32, i32, u32),
        ScalarType::U32 => int_rmw!(AtomicU32, u32, u32),
        ScalarType::I64 => int_rmw!(AtomicI64, i64, u64),
        ScalarType::U64 => int_rmw!(AtomicU64, u64, u64),
        ScalarType::F32 => float_rmw!(AtomicU32, f32, u32),
        _ => float_rmw!(AtomicU64, f64, u64),
    }
}

impl<'a> Launch<'a> {
    fn new(k: &'a ExecKernel, dims: LaunchDims, args: &[&[u8]]) -> Result<Launch<'a>, String> {
        let f = &k.func;
        let name = &f.name;
        if args.len() != f.abi_arg_count() {
            return Err(format!(
                "kernel `{name}` takes {} launch arguments (a slice counts as pointer and length), got {}",
                f.abi_arg_count(),
                args.len()
            ));
        }
        let mut params = Vec::new();
        let mut slices = Vec::new();
        let mut i = 0;
        for p in &f.params {
            match p.kind {
                ParamKind::Scalar(t) => {
                    if args[i].len() != t.size() as usize {
                        return Err(format!(
                            "kernel `{name}`: parameter `{}` is {} bytes, got {}",
                            p.name,
                            t.size(),
                            args[i].len()
                        ));
                    }
                    params.push(read_le(args[i]));
                    slices.push((0, 0));
                    i += 1;
                }
                ParamKind::Slice { elem, .. } => {
                    if args[i].len() != 8 || args[i + 1].len() != 8 {
                        return Err(format!(
                            "kernel `{name}`: slice parameter `{}` is passed as a u64 address and a u64 length",
                            p.name
                        ));
                    }
                    let (base, len) = (read_le(args[i]), read_le(args[i + 1]));
                    if base % elem.size() as u64 != 0 {
                        return Err(format!(
                            "kernel `{name}`: slice `{}` at {base:#x} is not aligned to its element size {}",
                            p.name,
                            elem.size()
                        ));
                    }
                    if base == 0 && len != 0 {
                        return Err(format!("kernel `{name}`: slice `{}` is a null pointer", p.name));
                    }
                    params.push(base);
                    params.push(len);
                    slices.push((base, len));
                    i += 2;
                }
            }
        }
        let dyn_shared = dims.shared_mem_bytes;
        let mems = f
            .mems
            .iter()
            .enumerate()
            .map(|(m, data)| {
                let size = data.elem.size();
                let (place, len) = match data.space {
                    MemSpace::Global { param, .. } => {
                        let (base, len) = slices[param as usize];
                        (Place::Global { base }, len)
                    }
                    MemSpace::Shared { len } => {
                        (Place::Shared { offset: k.shared_offsets[m].unwrap_or(0) }, len as u64)
                    }
                    MemSpace::DynShared => {
                        (Place::Shared { offset: k.static_shared }, (dyn_shared / size) as u64)
                    }
                    MemSpace::Local { len } => (Place::Local { offset: k.local_offsets[m] }, len as u64),
                };
                MemInfo { place, len, size, elem: data.elem }
            })
            .collect();
        let block_threads = dims.block.volume();
        if block_threads > 1024 {
            return Err(format!(
                "kernel `{name}`: a block of {block_threads} threads is over the limit of 1024"
            ));
        }
        let shared_words = (k.static_shared as usize + dyn_shared as usize).div_ceil(8);
        let b = dims.block;
        let coords = (0..(block_threads as u32).div_ceil(32))
            .map(|w| {
                let mut c = [[0u32; 32]; 3];
                for lane in 0..32u32 {
                    let tid = w * 32 + lane;
                    c[0][lane as usize] = tid % b.x.max(1);
                    c[1][lane as usize] = (tid / b.x.max(1)) % b.y.max(1);
                    c[2][lane as usize] = tid / (b.x.max(1) * b.y.max(1));
                }
                c
            })
            .collect();
        Ok(Launch { k, dims, params, mems, block_threads: block_threads as u32, shared_words, coords })
    }

    fn thread_coords(&self, tid: u32) -> (u32, u32, u32) {
        let b = self.dims.block;
        (tid % b.x, (tid / b.x) % b.y, tid / (b.x * b.y))
    }

    fn block_coords(&self, blk: u64) -> (u32, u32, u32) {
        let g = self.dims.grid;
        let (gx, gy) = (g.x as u64, g.y as u64);
        ((blk % gx) as u32, ((blk / gx) % gy) as u32, (blk / (gx * gy)) as u32)
    }

    fn run_block(&self, blk: u64, warps: &mut Vec<Warp>) -> Result<(), String> {
        let nwarps = self.block_threads.div_ceil(32);
        let nregs = self.k.prog.nregs as usize;
        let local_words = (self.k.local_bytes as usize / 8) * 32;
        warps.truncate(nwarps as usize);
        for id in 0..nwarps {
            let threads = (self.block_threads - id * 32).min(32);
            let live = if threads == 32 { !0 } else { (1u32 << threads) - 1 };
            let coords = self.coords[id as usize];
            if let Some(w) = warps.get_mut(id as usize) {
                w.coords = coords;
                w.pc = 0;
                w.active = live;
                w.gone = 0;
                w.live = live;
                w.frames.clear();
                w.done = false;
                // Registers need no clearing: every value and variable is written before it is
                // read (values by construction, variables by their `let mut` initializer).
                w.regs.resize(nregs, [0; 32]);
                w.local.clear();
                w.local.resize(local_words, 0);
            } else {
                warps.push(Warp {
                    id,
                    coords,
                    pc: 0,
                    active: live,
                    gone: 0,
                    live,
                    frames: Vec::new(),
                    regs: vec![[0; 32]; nregs],
                    local: vec![0; local_words],
                    done: false,
                });
            }
        }
        let mut shared = vec![0u64; self.shared_words];
        let shared_ptr = shared.as_mut_ptr() as *mut u8;
        let coords = self.block_coords(blk);
        loop {
            let mut waiting = 0;
            let mut finished = Vec::new();
            for w in warps.iter_mut() {
                if w.done {
                    finished.push(w.id);
                    continue;
                }
                match self.run_warp(w, coords, shared_ptr)? {
                    Status::Barrier => waiting += 1,
                    Status::Done => {
                        w.done = true;
                        finished.push(w.id);
                    }
                }
            }
            if waiting == 0 {
                return Ok(());
            }
            if !finished.is_empty() {
                return Err(format!(
                    "kernel `{}`: a barrier in block {coords:?} was reached by only part of the block \
                     (warps {finished:?} had already returned)",
                    self.k.func.name
                ));
            }
        }
    }

    fn oob(&self, w: &Warp, lane: usize, mem: u32, index: i128, blk: (u32, u32, u32)) -> String {
        let m = &self.mems[mem as usize];
        format!(
            "kernel `{}`: index {index} out of bounds for `{}` of length {} in thread {:?} of block {:?}",
            self.k.func.name,
            self.k.func.mems[mem as usize].name,
            m.len,
            self.thread_coords(w.id * 32 + lane as u32),
            blk
        )
    }

    /// The address of element `index` (of `lanes` elements) of `mem` for `lane`, bounds checked.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn addr(
        &self,
        w: &Warp,
        shared: *mut u8,
        mem: u32,
        index: i128,
        lanes: u32,
        lane: usize,
        blk: (u32, u32, u32),
    ) -> Result<*mut u8, String> {
        let m = &self.mems[mem as usize];
        let first = index * lanes as i128;
        if index < 0 || first + lanes as i128 > m.len as i128 {
            return Err(self.oob(w, lane, mem, index, blk));
        }
        let off = first as usize * m.size as usize;
        Ok(match m.place {
            Place::Global { base } => (base as usize + off) as *mut u8,
            // SAFETY (of the pointer arithmetic): the bounds check above keeps `off` inside the
            // block's shared buffer or this lane's local area, both sized at launch.
            Place::Shared { offset } => unsafe { shared.add(offset as usize + off) },
            Place::Local { offset } => unsafe {
                (w.local.as_ptr() as *mut u8).add(lane * self.k.local_bytes as usize + offset as usize + off)
            },
        })
    }

    /// The base address of a global or shared memory after checking every active lane's
    /// (scalar) index against its length.
    fn checked_base(
        &self,
        w: &Warp,
        shared: *mut u8,
        mem: u32,
        ity: ScalarType,
        idx: u32,
        blk: (u32, u32, u32),
    ) -> Result<(*mut u8, [i64; 32]), String> {
        let m = &self.mems[mem as usize];
        let ix = lanes::indices(ity, &w.regs[idx as usize]);
        for lane in 0..32 {
            if w.active >> lane & 1 != 0 && (ix[lane] < 0 || ix[lane] as u64 >= m.len) {
                return Err(self.oob(w, lane, mem, ix[lane] as i128, blk));
            }
        }
        let base = match m.place {
            Place::Global { base } => base as *mut u8,
            // SAFETY: the offset lies inside the block's shared buffer, sized at launch.
            Place::Shared { offset } => unsafe { shared.add(offset as usize) },
            Place::Local { .. } => std::ptr::null_mut(),
        };
        Ok((base, ix))
    }

    fn special(&self, w: &Warp, s: Special, blk: (u32, u32, u32), d: &mut Lanes) {
        let (b, g) = (self.dims.block, self.dims.grid);
        let axis = |a: Axis| match a {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        };
        let pick = |a: Axis, x: u32, y: u32, z: u32| [x, y, z][axis(a)];
        let uniform = match s {
            Special::ThreadIdx(a) => {
                let c = &w.coords[axis(a)];
                for lane in 0..32 {
                    d[lane] = c[lane] as u64;
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
        };
        *d = [uniform as u64; 32];
    }

    fn loop_frame(w: &mut Warp, depth: u32) -> Option<&mut Frame> {
        w.frames.iter_mut().rev().filter(|f| matches!(f, Frame::Loop { .. })).nth(depth as usize)
    }

    fn run_warp(&self, w: &mut Warp, blk: (u32, u32, u32), shared: *mut u8) -> Result<Status, String> {
        let code = &self.k.prog.code;
        let name = &self.k.func.name;
        loop {
            let pc = w.pc;
            w.pc += 1;
            match &code[pc] {
                Code::Const { dst, bits } => w.regs[*dst as usize] = [*bits; 32],
                Code::Param { dst, slot } => w.regs[*dst as usize] = [self.params[*slot as usize]; 32],
                Code::Special { dst, s } => {
                    let mut d = [0; 32];
                    self.special(w, *s, blk, &mut d);
                    w.regs[*dst as usize] = d;
                }
                Code::Len { dst, mem } => w.regs[*dst as usize] = [self.mems[*mem as usize].len; 32],
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
                Code::Load { dst, mem, idx, ity, lanes: 1 }
                    if !matches!(self.mems[*mem as usize].place, Place::Local { .. }) =>
                {
                    let (base, ix) = self.checked_base(w, shared, *mem, *ity, *idx, blk)?;
                    let m = &self.mems[*mem as usize];
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
                    if !matches!(self.mems[*mem as usize].place, Place::Local { .. }) =>
                {
                    let (base, ix) = self.checked_base(w, shared, *mem, *ity, *idx, blk)?;
                    let size = self.mems[*mem as usize].size;
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
                    let m = &self.mems[*mem as usize];
                    let (size, is_bool) = (m.size, m.elem == ScalarType::Bool);
                    let iv = w.regs[*idx as usize];
                    for lane in 0..32 {
                        if w.active >> lane & 1 == 0 {
                            continue;
                        }
                        let index = lanes::index_value(*ity, iv[lane]);
                        let p = self.addr(w, shared, *mem, index, *lanes, lane, blk)?;
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
                }
                Code::Store { src, mem, idx, ity, lanes } => {
                    let size = self.mems[*mem as usize].size;
                    let iv = w.regs[*idx as usize];
                    for lane in 0..32 {
                        if w.active >> lane & 1 == 0 {
                            continue;
                        }
                        let index = lanes::index_value(*ity, iv[lane]);
                        let p = self.addr(w, shared, *mem, index, *lanes, lane, blk)?;
                        for k in 0..*lanes as usize {
                            let v = w.regs[*src as usize + k][lane];
                            // SAFETY: as for loads.
                            unsafe { write_mem(p.add(k * size as usize), size, v) };
                        }
                    }
                }
                Code::Atomic { op, dst, mem, idx, ity, val, cmp } => {
                    let elem = self.mems[*mem as usize].elem;
                    let iv = w.regs[*idx as usize];
                    let vv = w.regs[*val as usize];
                    let cv = cmp.map(|c| w.regs[c as usize]).unwrap_or([0; 32]);
                    let mut d = [0; 32];
                    for lane in 0..32 {
                        if w.active >> lane & 1 == 0 {
                            continue;
                        }
                        let index = lanes::index_value(*ity, iv[lane]);
                        let p = self.addr(w, shared, *mem, index, 1, lane, blk)?;
                        // SAFETY: as for loads; the builder only allows atomics on 4- and
                        // 8-byte integer and float elements.
                        d[lane] = unsafe { atomic_rmw(*op, elem, p, vv[lane], cv[lane]) };
                    }
                    w.regs[*dst as usize] = d;
                }
                Code::Shuffle { .. } | Code::Mma { .. } | Code::LdMatrix { .. } if w.active != w.live => {
                    // The PTX forms take the full warp (`shfl.sync` with mask -1, `.aligned`
                    // mma/ldmatrix): a partial warp is undefined behaviour on the GPU.
                    let what = match &code[pc] {
                        Code::Shuffle { .. } => "warp shuffle",
                        Code::Mma { .. } => "mma.sync",
                        _ => "ldmatrix",
                    };
                    return Err(format!(
                        "kernel `{name}`: a {what} in block {blk:?} was executed by only part of warp {} \
                         (lanes {:#010x} of {:#010x}); it needs the whole warp converged",
                        w.id, w.active, w.live
                    ));
                }
                Code::Shuffle { mode, dst, val, lane } => {
                    let (v, l) = (w.regs[*val as usize], w.regs[*lane as usize]);
                    let mut d = [0; 32];
                    for i in 0..32usize {
                        let b = l[i] as u32 as usize;
                        let src = match mode {
                            ShuffleMode::Idx => b % 32,
                            ShuffleMode::Up => i.checked_sub(b).unwrap_or(i),
                            ShuffleMode::Down => {
                                if i + b < 32 {
                                    i + b
                                } else {
                                    i
                                }
                            }
                            ShuffleMode::Xor => (i ^ b) % 32,
                        };
                        d[i] = v[src];
                    }
                    w.regs[*dst as usize] = d;
                }
                Code::Vote { mode, dst, pred } => {
                    let p = w.regs[*pred as usize];
                    let mut ballot = 0u32;
                    for (i, x) in p.iter().enumerate() {
                        if w.active >> i & 1 != 0 && x & 1 != 0 {
                            ballot |= 1 << i;
                        }
                    }
                    let r = match mode {
                        VoteMode::Any => (ballot != 0) as u64,
                        VoteMode::All => (ballot == w.active) as u64,
                        VoteMode::Ballot => ballot as u64,
                    };
                    w.regs[*dst as usize] = [r; 32];
                }
                Code::Barrier => {
                    if w.active != w.live {
                        return Err(format!(
                            "kernel `{name}`: a barrier in block {blk:?} was reached by only part of warp {} \
                             (lanes {:#010x} of {:#010x})",
                            w.id, w.active, w.live
                        ));
                    }
                    return Ok(Status::Barrier);
                }
                Code::Fence(scope) => {
                    if *scope != FenceScope::Block {
                        fence(Ordering::SeqCst);
                    }
                }
                Code::Mma { elem, dst, a, b, c } => {
                    let d = mma_m16n8k16(
                        *elem,
                        &w.regs[*a as usize..*a as usize + 4],
                        &w.regs[*b as usize..*b as usize + 2],
                        &w.regs[*c as usize..*c as usize + 4],
                    );
                    for (k, lanes) in d.into_iter().enumerate() {
                        w.regs[*dst as usize + k] = lanes;
                    }
                }
                Code::LdMatrix { mem, num, trans, dst, idx, ity } => {
                    // Row starts come from lanes 8m+r; gather all rows first (every lane's
                    // address is read, as on the GPU where the whole warp takes part).
                    let iv = w.regs[*idx as usize];
                    let mut rows = [[0u16; 8]; 32];
                    for lane in 0..(*num as usize * 8) {
                        let index = lanes::index_value(*ity, iv[lane]);
                        if index % 8 != 0 {
                            return Err(format!(
                                "kernel `{name}`: ldmatrix row start {index} of `{}` is not 16-byte aligned",
                                self.k.func.mems[*mem as usize].name
                            ));
                        }
                        let p = self
                            .addr(w, shared, *mem, index / 8, 8, lane, blk)
                            .map_err(|e| format!("{e} (ldmatrix row {} of matrix {})", lane % 8, lane / 8))?;
                        for (k, v) in rows[lane].iter_mut().enumerate() {
                            // SAFETY: `addr` checked the 8 elements against the memory's length.
                            *v = unsafe { read_mem(p.add(k * 2), 2) } as u16;
                        }
                    }
                    for m in 0..*num as usize {
                        let mut d = [0u64; 32];
                        for (lane, out) in d.iter_mut().enumerate() {
                            let (r, c) = (lane / 4, 2 * (lane % 4));
                            let (lo, hi) = if *trans {
                                (rows[m * 8 + c][r], rows[m * 8 + c + 1][r])
                            } else {
                                (rows[m * 8 + r][c], rows[m * 8 + r][c + 1])
                            };
                            *out = lo as u64 | (hi as u64) << 16;
                        }
                        w.regs[*dst as usize + m] = d;
                    }
                }
                Code::CpAsync { dst, src, elems, didx, dty, sidx, sty } => {
                    let size = self.mems[*dst as usize].size as usize;
                    let (dv, sv) = (w.regs[*didx as usize], w.regs[*sidx as usize]);
                    for lane in 0..32 {
                        if w.active >> lane & 1 == 0 {
                            continue;
                        }
                        // Indices are in elements; the copy is `elems` elements long.
                        let di = lanes::index_value(*dty, dv[lane]);
                        let si = lanes::index_value(*sty, sv[lane]);
                        let n = *elems as i128;
                        let check = |mem: u32, i: i128| -> Result<*mut u8, String> {
                            if i % n != 0 {
                                return Err(format!(
                                    "kernel `{name}`: cp.async index {i} of `{}` is not aligned to {} elements",
                                    self.k.func.mems[mem as usize].name, n
                                ));
                            }
                            self.addr(w, shared, mem, i / n, *elems, lane, blk)
                        };
                        let (pd, ps) = (check(*dst, di)?, check(*src, si)?);
                        for k in 0..*elems as usize {
                            // SAFETY: both ranges were bounds checked by `addr`.
                            unsafe {
                                let v = read_mem(ps.add(k * size), size as u32);
                                write_mem(pd.add(k * size), size as u32, v);
                            }
                        }
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
                    if let Some(Frame::Loop { brk, .. }) = Self::loop_frame(w, *depth) {
                        *brk |= a;
                    }
                    w.gone |= a;
                    w.active = 0;
                    w.pc = *skip as usize;
                }
                Code::Continue { depth, skip } => {
                    let a = w.active;
                    if let Some(Frame::Loop { cont, .. }) = Self::loop_frame(w, *depth) {
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
                Code::End => return Ok(Status::Done),
            }
        }
    }
}

/// `mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}`: the fragments are laid out as PTX
/// documents them. `a` holds 4 registers of packed half pairs, `b` 2, `c` 4 f32.
fn mma_m16n8k16(elem: ScalarType, a: &[Lanes], b: &[Lanes], c: &[Lanes]) -> [Lanes; 4] {
    let half = |bits: u64| -> f32 {
        if elem == ScalarType::BF16 {
            half::bf16::from_bits(bits as u16).to_f32()
        } else {
            half::f16::from_bits(bits as u16).to_f32()
        }
    };
    // Element i (0..8) of lane l's A fragment: register i/2, half i%2.
    let mut am = [[0f32; 16]; 16];
    let mut bm = [[0f32; 8]; 16];
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        for i in 0..8 {
            let bits = a[i / 2][l] >> (16 * (i % 2));
            let row = if i % 4 < 2 { g } else { g + 8 };
            let col = t * 2 + (i & 1) + if i >= 4 { 8 } else { 0 };
            am[row][col] = half(bits);
        }
        for i in 0..4 {
            let bits = b[i / 2][l] >> (16 * (i % 2));
            let row = t * 2 + (i & 1) + if i >= 2 { 8 } else { 0 };
            bm[row][g] = half(bits);
        }
    }
    let mut d = [[0u64; 32]; 4];
    for l in 0..32 {
        let (g, t) = (l / 4, l % 4);
        for (i, di) in d.iter_mut().enumerate() {
            let row = g + if i >= 2 { 8 } else { 0 };
            let col = t * 2 + (i & 1);
            let mut acc = f32::from_bits(c[i][l] as u32);
            for (k, arow) in am[row].iter().enumerate() {
                acc += arow * bm[k][col];
            }
            di[l] = acc.to_bits() as u64;
        }
    }
    d
}
