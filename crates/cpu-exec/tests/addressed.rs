//! Byte-addressed memory, device printf/assert and cooperative grids on the executor, with
//! kernels built directly with the IR builder (the PTX front end's tests run whole programs).

use std::sync::{Arc, Mutex};

use ferrocm_backend::{CpuKernel, Dim3, LaunchDims};
use ferrocm_cpu_exec::{ExecKernel, HostEnv};
use ferrocm_ir::generic::{LOCAL_BASE, SHARED_BASE};
use ferrocm_ir::*;

/// A host that knows a fixed set of allocations and keeps printf output.
#[derive(Default)]
struct Env {
    ranges: Vec<(u64, u64)>,
    printed: Mutex<Vec<u8>>,
}

impl HostEnv for Env {
    fn global_range(&self, addr: u64) -> Option<(u64, u64)> {
        self.ranges.iter().copied().find(|&(b, n)| addr >= b && addr < b + n)
    }
    fn print(&self, text: &[u8]) {
        self.printed.lock().unwrap().extend_from_slice(text);
    }
}

fn dims(grid: u32, block: u32) -> LaunchDims {
    LaunchDims::new(Dim3::new(grid, 1, 1), Dim3::new(block, 1, 1), 0)
}

fn run(f: Function, env: Option<Arc<Env>>, d: LaunchDims, args: &[&[u8]]) -> Result<(), String> {
    let mut k = ExecKernel::new(Arc::new(f)).map_err(|e| e.to_string())?;
    if let Some(env) = env {
        k = k.with_host(env);
    }
    // SAFETY: every argument is a scalar; the kernels reach memory only through byte addresses,
    // which the executor checks against `env`.
    unsafe { k.launch(d, args) }
}

/// Global thread index (u64).
fn gid(b: &mut Builder) -> Value {
    let t = b.special(Special::ThreadIdx(Axis::X));
    let bi = b.special(Special::BlockIdx(Axis::X));
    let bd = b.special(Special::BlockDim(Axis::X));
    let m = b.binary(BinaryOp::Mul, bi, bd);
    let i = b.binary(BinaryOp::Add, m, t);
    b.cast(i, ScalarType::U64)
}

/// `y[i] = 2 * x[i]` through byte addresses: `x` and `y` are u64 parameters, element `i` is at
/// `base + 4 * (i + shift)`.
fn scale_kernel(space: AddrSpace, shift: u64) -> Function {
    let mut b = Builder::new("scale");
    let x = b.scalar_param("x", ScalarType::U64);
    let y = b.scalar_param("y", ScalarType::U64);
    let m = b.add_mem("g_f32", ScalarType::F32, MemSpace::Addressed(space));
    let i = gid(&mut b);
    let s = b.constant(ScalarType::U64, shift);
    let i = b.binary(BinaryOp::Add, i, s);
    let four = b.constant(ScalarType::U64, 4);
    let off = b.binary(BinaryOp::Mul, i, four);
    let xa = b.binary(BinaryOp::Add, x, off);
    let ya = b.binary(BinaryOp::Add, y, off);
    let v = b.load(m, xa, 1);
    let two = b.constant(ScalarType::F32, 2f32.to_bits() as u64);
    let v = b.binary(BinaryOp::Mul, v, two);
    b.store(m, ya, v);
    b.finish().unwrap()
}

fn env_for(bufs: &[&[f32]]) -> Arc<Env> {
    Arc::new(Env {
        ranges: bufs.iter().map(|b| (b.as_ptr() as u64, (b.len() * 4) as u64)).collect(),
        ..Env::default()
    })
}

#[test]
fn global_and_generic_addresses_reach_known_allocations() {
    for space in [AddrSpace::Global, AddrSpace::Generic] {
        let x: Vec<f32> = (0..300).map(|i| i as f32 - 7.5).collect();
        let mut y = vec![0f32; 300];
        let env = env_for(&[&x, &y]);
        let (xa, ya) = ((x.as_ptr() as u64).to_le_bytes(), (y.as_mut_ptr() as u64).to_le_bytes());
        run(scale_kernel(space, 0), Some(env), dims(3, 100), &[&xa, &ya]).unwrap();
        let want: Vec<f32> = x.iter().map(|v| 2.0 * v).collect();
        assert_eq!(y, want, "{space:?}");
    }
}

#[test]
fn an_access_past_the_allocation_is_an_illegal_address_and_writes_nothing_outside() {
    let x = vec![1f32; 64];
    let y = vec![0f32; 65];
    // Only the first 64 elements of `y` are an allocation the kernel may touch.
    let env =
        Arc::new(Env { ranges: vec![(x.as_ptr() as u64, 256), (y.as_ptr() as u64, 256)], ..Env::default() });
    let (xa, ya) = ((x.as_ptr() as u64).to_le_bytes(), (y.as_ptr() as u64).to_le_bytes());
    // Thread i reads x[i + 1]: the last thread reads past `x`.
    let e = run(scale_kernel(AddrSpace::Global, 1), Some(env), dims(1, 64), &[&xa, &ya]).unwrap_err();
    assert!(e.contains("illegal address"), "{e}");
    assert_eq!(y[64], 0.0, "the byte past the allocation is untouched");
}

#[test]
fn without_a_host_every_global_access_is_refused() {
    let x = [1f32; 32];
    let y = [0f32; 32];
    let (xa, ya) = ((x.as_ptr() as u64).to_le_bytes(), (y.as_ptr() as u64).to_le_bytes());
    let e = run(scale_kernel(AddrSpace::Global, 0), None, dims(1, 32), &[&xa, &ya]).unwrap_err();
    assert!(e.contains("not inside any allocation"), "{e}");
    assert!(y.iter().all(|v| *v == 0.0));
}

#[test]
fn a_misaligned_access_is_an_error() {
    let x = vec![1f32; 33];
    let y = vec![0f32; 33];
    let env = env_for(&[&x, &y]);
    let xa = (x.as_ptr() as u64 + 2).to_le_bytes();
    let ya = (y.as_ptr() as u64).to_le_bytes();
    let e = run(scale_kernel(AddrSpace::Global, 0), Some(env), dims(1, 32), &[&xa, &ya]).unwrap_err();
    assert!(e.contains("misaligned address"), "{e}");
}

/// Each thread writes its index into shared memory at byte `4 * tid` (through `space`, with
/// `base` added to the address), then after a barrier reads its neighbour's and stores it to
/// `out[tid]`.
fn shared_exchange(space: AddrSpace, base: u64, dyn_shared: bool) -> Function {
    let mut b = Builder::new("exchange");
    let out = b.scalar_param("out", ScalarType::U64);
    if !dyn_shared {
        b.add_mem("tile", ScalarType::U32, MemSpace::Shared { len: 64, align: 16 });
    }
    let sh = b.add_mem("s_u32", ScalarType::U32, MemSpace::Addressed(space));
    let g = b.add_mem("g_u32", ScalarType::U32, MemSpace::Addressed(AddrSpace::Global));
    let t = b.special(Special::ThreadIdx(Axis::X));
    let t64 = b.cast(t, ScalarType::U64);
    let four = b.constant(ScalarType::U64, 4);
    let off = b.binary(BinaryOp::Mul, t64, four);
    let bs = b.constant(ScalarType::U64, base);
    let a = b.binary(BinaryOp::Add, off, bs);
    b.store(sh, a, t);
    b.barrier();
    let one = b.constant(ScalarType::U32, 1);
    let n = b.special(Special::BlockDim(Axis::X));
    let t1 = b.binary(BinaryOp::Add, t, one);
    let nb = b.binary(BinaryOp::Rem, t1, n);
    let nb = b.cast(nb, ScalarType::U64);
    let noff = b.binary(BinaryOp::Mul, nb, four);
    let na = b.binary(BinaryOp::Add, noff, bs);
    let v = b.load(sh, na, 1);
    let oa = b.binary(BinaryOp::Add, out, off);
    b.store(g, oa, v);
    b.finish().unwrap()
}

#[test]
fn shared_memory_by_offset_and_through_the_generic_window() {
    for (space, base, dynamic) in [
        (AddrSpace::Shared, 0, false),
        (AddrSpace::Generic, SHARED_BASE, false),
        (AddrSpace::Shared, 0, true),
    ] {
        let mut out = vec![0u32; 64];
        let env = Arc::new(Env { ranges: vec![(out.as_mut_ptr() as u64, 256)], ..Env::default() });
        let oa = (out.as_mut_ptr() as u64).to_le_bytes();
        let mut d = dims(1, 64);
        if dynamic {
            d.shared_mem_bytes = 256;
        }
        run(shared_exchange(space, base, dynamic), Some(env), d, &[&oa]).unwrap();
        let want: Vec<u32> = (0..64).map(|t| (t + 1) % 64).collect();
        assert_eq!(out, want, "{space:?} at {base:#x}");
    }
    // Past the 256 bytes of shared memory.
    let out = vec![0u32; 64];
    let env = Arc::new(Env { ranges: vec![(out.as_ptr() as u64, 256)], ..Env::default() });
    let oa = (out.as_ptr() as u64).to_le_bytes();
    let e = run(shared_exchange(AddrSpace::Shared, 4, false), Some(env), dims(1, 64), &[&oa]).unwrap_err();
    assert!(e.contains("outside the 256 bytes of shared memory"), "{e}");
}

#[test]
fn local_memory_is_private_to_each_thread() {
    // Each thread stores tid at local byte 8 (through the generic window), then reads it back.
    let mut b = Builder::new("local");
    let out = b.scalar_param("out", ScalarType::U64);
    b.add_mem("frame", ScalarType::U8, MemSpace::Local { len: 16 });
    let l = b.add_mem("l_u32", ScalarType::U32, MemSpace::Addressed(AddrSpace::Generic));
    let g = b.add_mem("g_u32", ScalarType::U32, MemSpace::Addressed(AddrSpace::Global));
    let t = b.special(Special::ThreadIdx(Axis::X));
    let at = b.constant(ScalarType::U64, LOCAL_BASE + 8);
    b.store(l, at, t);
    b.barrier();
    let v = b.load(l, at, 1);
    let t64 = b.cast(t, ScalarType::U64);
    let four = b.constant(ScalarType::U64, 4);
    let off = b.binary(BinaryOp::Mul, t64, four);
    let oa = b.binary(BinaryOp::Add, out, off);
    b.store(g, oa, v);
    let f = b.finish().unwrap();
    let mut out = vec![0u32; 40];
    let op = out.as_mut_ptr() as u64;
    let env = Arc::new(Env { ranges: vec![(op, 160)], ..Env::default() });
    run(f, Some(env), dims(1, 40), &[&op.to_le_bytes()]).unwrap();
    assert_eq!(out, (0..40).collect::<Vec<u32>>());
}

/// A byte string in "global" memory the host knows about.
fn cstr(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.push(0);
    v
}

#[test]
fn printf_formats_each_lane_in_order() {
    // printf("lane %d of %s: %.2f\n", tid, "warp", 0.5 * tid) with the vprintf layout.
    let fmt = cstr("lane %d of %s: %.2f\n");
    let word = cstr("warp");
    let mut b = Builder::new("hello");
    let fmt_p = b.scalar_param("fmt", ScalarType::U64);
    let word_p = b.scalar_param("word", ScalarType::U64);
    b.add_mem("frame", ScalarType::U8, MemSpace::Local { len: 24 });
    let l32 = b.add_mem("l_u32", ScalarType::U32, MemSpace::Addressed(AddrSpace::Local));
    let l64 = b.add_mem("l_u64", ScalarType::U64, MemSpace::Addressed(AddrSpace::Local));
    let lf = b.add_mem("l_f64", ScalarType::F64, MemSpace::Addressed(AddrSpace::Local));
    let t = b.special(Special::ThreadIdx(Axis::X));
    let (o0, o8, o16) =
        (b.constant(ScalarType::U32, 0), b.constant(ScalarType::U32, 8), b.constant(ScalarType::U32, 16));
    b.store(l32, o0, t);
    b.store(l64, o8, word_p);
    let tf = b.cast(t, ScalarType::F64);
    let half = b.constant(ScalarType::F64, 0.5f64.to_bits());
    let x = b.binary(BinaryOp::Mul, tf, half);
    b.store(lf, o16, x);
    let args = b.constant(ScalarType::U64, LOCAL_BASE);
    b.printf(fmt_p, args);
    let f = b.finish().unwrap();
    let env = Arc::new(Env {
        ranges: vec![(fmt.as_ptr() as u64, fmt.len() as u64), (word.as_ptr() as u64, word.len() as u64)],
        ..Env::default()
    });
    run(
        f,
        Some(env.clone()),
        dims(1, 3),
        &[&(fmt.as_ptr() as u64).to_le_bytes(), &(word.as_ptr() as u64).to_le_bytes()],
    )
    .unwrap();
    let text = String::from_utf8(env.printed.lock().unwrap().clone()).unwrap();
    assert_eq!(text, "lane 0 of warp: 0.00\nlane 1 of warp: 0.50\nlane 2 of warp: 1.00\n");
}

#[test]
fn a_failed_assertion_quotes_its_message_file_line_and_function() {
    let (msg, file, func) = (cstr("i < n"), cstr("kernel.hip"), cstr("void k(int)"));
    let mut b = Builder::new("asserts");
    let p: Vec<Value> = ["m", "f", "fu"].iter().map(|n| b.scalar_param(n, ScalarType::U64)).collect();
    let t = b.special(Special::ThreadIdx(Axis::X));
    let five = b.constant(ScalarType::U32, 5);
    let c = b.cmp(CmpOp::Eq, t, five);
    b.begin_if(c);
    let line = b.constant(ScalarType::U32, 42);
    b.assert_fail(p[0], p[1], p[2], line);
    b.end_if();
    let f = b.finish().unwrap();
    let env = Arc::new(Env {
        ranges: [&msg, &file, &func].iter().map(|s| (s.as_ptr() as u64, s.len() as u64)).collect(),
        ..Env::default()
    });
    let a = |s: &Vec<u8>| (s.as_ptr() as u64).to_le_bytes();
    let e = run(f, Some(env), dims(1, 32), &[&a(&msg), &a(&file), &a(&func)]).unwrap_err();
    assert!(e.contains("device-side assertion `i < n` failed at kernel.hip:42 in `void k(int)`"), "{e}");
    assert!(e.contains("lane 5") && e.contains("block (0, 0, 0), warp 0"), "names the thread: {e}");
}

#[test]
fn a_cooperative_grid_runs_every_block_at_once() {
    // Every block's thread 0 increments a counter, then spins until all blocks have: with the
    // blocks of a cooperative launch co-scheduled this finishes whatever the number of cores.
    let mut b = Builder::new("rendezvous");
    let counter = b.scalar_param("counter", ScalarType::U64);
    let g = b.add_mem("g_u32", ScalarType::U32, MemSpace::Addressed(AddrSpace::Global));
    let t = b.special(Special::ThreadIdx(Axis::X));
    let zero = b.constant(ScalarType::U32, 0);
    let c = b.cmp(CmpOp::Eq, t, zero);
    b.begin_if(c);
    let one = b.constant(ScalarType::U32, 1);
    b.atomic(AtomicOp::Add, g, counter, one, None);
    b.begin_loop();
    let n = b.special(Special::GridDim(Axis::X));
    let v = b.atomic(AtomicOp::Add, g, counter, zero, None);
    let done = b.cmp(CmpOp::Ge, v, n);
    b.begin_if(done);
    b.break_(0);
    b.end_if();
    b.end_loop();
    b.end_if();
    b.barrier();
    let f = b.finish().unwrap();
    // The kernel writes the counter behind the compiler's back: an atomic, read after the launch.
    let counter = std::sync::atomic::AtomicU32::new(0);
    let at = counter.as_ptr() as u64;
    let env = Arc::new(Env { ranges: vec![(at, 4)], ..Env::default() });
    let mut d = dims(12, 64);
    d.cooperative = true;
    run(f, Some(env), d, &[&at.to_le_bytes()]).unwrap();
    assert_eq!(counter.load(std::sync::atomic::Ordering::SeqCst), 12);
}

#[test]
fn byte_addressed_memory_prints_and_parses_back() {
    let f = scale_kernel(AddrSpace::Generic, 3);
    let text = f.to_string();
    assert!(text.contains("addressed @g_f32: f32 in generic"), "{text}");
    let g = parse(&text).unwrap();
    assert_eq!(g.to_string(), text);
}

#[test]
fn byte_addresses_must_be_u32_or_u64_and_local_atomics_are_refused() {
    let mut b = Builder::new("bad");
    let m = b.add_mem("g", ScalarType::U32, MemSpace::Addressed(AddrSpace::Global));
    let i = b.constant(ScalarType::I64, 0);
    b.load(m, i, 1);
    assert!(b.finish().is_err());
    let mut b = Builder::new("bad_atomic");
    let m = b.add_mem("l", ScalarType::U32, MemSpace::Addressed(AddrSpace::Local));
    let i = b.constant(ScalarType::U32, 0);
    b.atomic(AtomicOp::Add, m, i, i, None);
    assert!(b.finish().is_err());
    let mut b = Builder::new("bad_len");
    let m = b.add_mem("g", ScalarType::U32, MemSpace::Addressed(AddrSpace::Global));
    b.len(m);
    assert!(b.finish().is_err());
}
