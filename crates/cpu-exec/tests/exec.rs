//! Executor tests on kernels built directly with the IR builder (the macro-level conformance
//! suite lives in ferrocm-kernel).

use std::sync::Arc;

use ferrocm_backend::{CpuKernel, Dim3, LaunchDims};
use ferrocm_cpu_exec::ExecKernel;
use ferrocm_ir::*;

fn dims(grid: u32, block: u32) -> LaunchDims {
    LaunchDims::new(Dim3::new(grid, 1, 1), Dim3::new(block, 1, 1), 0)
}

fn slice_args<T>(s: &[T]) -> [[u8; 8]; 2] {
    [(s.as_ptr() as u64).to_le_bytes(), (s.len() as u64).to_le_bytes()]
}

/// Global thread index as u64.
fn gid(b: &mut Builder) -> Value {
    let t = b.special(Special::ThreadIdx(Axis::X));
    let bi = b.special(Special::BlockIdx(Axis::X));
    let bd = b.special(Special::BlockDim(Axis::X));
    let m = b.binary(BinaryOp::Mul, bi, bd);
    let i = b.binary(BinaryOp::Add, m, t);
    b.cast(i, ScalarType::U64)
}

/// Runs `f`; the tests pass only slices of live vectors that outlive the launch.
fn run(f: Function, d: LaunchDims, args: &[&[u8]]) -> Result<(), String> {
    let k = ExecKernel::new(Arc::new(f)).map_err(|e| e.to_string())?;
    // SAFETY: every address in `args` comes from `slice_args` of a vector the test keeps alive
    // across the launch, with its true length.
    unsafe { k.launch(d, args) }
}

fn copy_kernel(guard: bool) -> Function {
    let mut b = Builder::new("copy");
    let x = b.slice_param("x", ScalarType::F32, false);
    let y = b.slice_param("y", ScalarType::F32, true);
    let i = gid(&mut b);
    if guard {
        let n = b.len(y);
        let c = b.cmp(CmpOp::Lt, i, n);
        b.begin_if(c);
    }
    let v = b.load(x, i, 1);
    b.store(y, i, v);
    if guard {
        b.end_if();
    }
    b.finish().unwrap()
}

#[test]
fn guarded_copy_writes_every_element() {
    let x: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5).collect();
    let y = vec![0f32; 1000];
    let [xp, xl] = slice_args(&x);
    let [yp, yl] = slice_args(&y);
    run(copy_kernel(true), dims(4, 256), &[&xp, &xl, &yp, &yl]).unwrap();
    assert_eq!(x, y);
}

#[test]
fn out_of_range_store_names_kernel_buffer_and_index() {
    let x = vec![1f32; 1024];
    let y = vec![0f32; 1000];
    let [xp, xl] = slice_args(&x);
    let [yp, yl] = slice_args(&y);
    let err = run(copy_kernel(false), dims(4, 256), &[&xp, &xl, &yp, &yl]).unwrap_err();
    assert!(err.contains("kernel `copy`") && err.contains("`y`") && err.contains("index 10"), "{err}");
}

#[test]
fn warp_sum_by_xor_shuffle_and_loop_with_break() {
    // Each warp sums its lanes' values with a butterfly; the loop breaks when the offset is 0.
    let mut b = Builder::new("warp_sum");
    let x = b.slice_param("x", ScalarType::U32, false);
    let y = b.slice_param("y", ScalarType::U32, true);
    let i = gid(&mut b);
    let v0 = b.load(x, i, 1);
    let acc = b.var("acc", ScalarType::U32.into());
    let off = b.var("off", ScalarType::U32.into());
    b.write_var(acc, v0);
    let sixteen = b.constant(ScalarType::U32, 16);
    b.write_var(off, sixteen);
    b.begin_loop();
    let o = b.read_var(off);
    let zero = b.constant(ScalarType::U32, 0);
    let done = b.cmp(CmpOp::Eq, o, zero);
    b.begin_if(done);
    b.break_(0);
    b.end_if();
    let a = b.read_var(acc);
    let other = b.shuffle(ShuffleMode::Xor, a, o);
    let s = b.binary(BinaryOp::Add, a, other);
    b.write_var(acc, s);
    b.begin_latch();
    let o = b.read_var(off);
    let one = b.constant(ScalarType::U32, 1);
    let h = b.binary(BinaryOp::Shr, o, one);
    b.write_var(off, h);
    b.end_loop();
    let r = b.read_var(acc);
    b.store(y, i, r);
    let f = b.finish().unwrap();
    let xs: Vec<u32> = (0..128).map(|i| i * 3 + 1).collect();
    let ys = vec![0u32; 128];
    let [xp, xl] = slice_args(&xs);
    let [yp, yl] = slice_args(&ys);
    run(f, dims(2, 64), &[&xp, &xl, &yp, &yl]).unwrap();
    for w in 0..4 {
        let s: u32 = xs[w * 32..w * 32 + 32].iter().sum();
        assert!(ys[w * 32..w * 32 + 32].iter().all(|&v| v == s), "warp {w}");
    }
}

#[test]
fn barrier_after_partial_return_is_an_error() {
    let mut b = Builder::new("bad_barrier");
    let _y = b.slice_param("y", ScalarType::U32, true);
    let t = b.special(Special::ThreadIdx(Axis::X));
    let k = b.constant(ScalarType::U32, 40);
    let c = b.cmp(CmpOp::Ge, t, k);
    b.begin_if(c);
    b.return_();
    b.end_if();
    b.barrier();
    let ys = vec![0u32; 1];
    let [yp, yl] = slice_args(&ys);
    let err = run(b.finish().unwrap(), dims(1, 128), &[&yp, &yl]).unwrap_err();
    assert!(err.contains("barrier") && err.contains("bad_barrier"), "{err}");
}

/// `y[i] = op(x[i])` on f64, with the f64 math expanded as the PTX back end expands it.
fn expanded_f64_math(op: UnaryOp, x: &[f64]) -> Vec<f64> {
    let mut b = Builder::new("f64_math");
    let xm = b.slice_param("x", ScalarType::F64, false);
    let ym = b.slice_param("y", ScalarType::F64, true);
    let i = gid(&mut b);
    let n = b.len(ym);
    let c = b.cmp(CmpOp::Lt, i, n);
    b.begin_if(c);
    let v = b.load(xm, i, 1);
    let r = b.unary(op, v);
    b.store(ym, i, r);
    b.end_if();
    let mut f = b.finish().unwrap();
    assert!(has_f64_math(&f));
    expand_f64_math(&mut f);
    assert!(!f.to_string().contains(&format!("= {} ", format!("{op:?}").to_lowercase())), "{f}");
    verify(&f).unwrap();
    let y = vec![0f64; x.len()];
    let [xp, xl] = slice_args(x);
    let [yp, yl] = slice_args(&y);
    run(f, dims(x.len().div_ceil(128) as u32, 128), &[&xp, &xl, &yp, &yl]).unwrap();
    y
}

#[test]
fn expanded_f64_exp_ln_sin_cos_match_the_host_to_1e_14() {
    let mut s =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    eprintln!("seed {s}");
    let mut unit = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let specials = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-310, f64::MIN_POSITIVE, f64::INFINITY, f64::NAN];
    let mut wide: Vec<f64> = (0..4000).map(|_| unit() * 1400.0 - 700.0).collect();
    wide.extend((0..2000).map(|_| unit() * 2.0 - 1.0));
    wide.extend(specials);
    // Positive numbers over the whole range (log-uniform), near 1, and subnormal.
    let mut pos: Vec<f64> = (0..4000).map(|_| (unit() * 1400.0 - 700.0).exp()).collect();
    pos.extend((0..1000).map(|_| 1.0 + (unit() - 0.5) * 1e-3));
    pos.extend((0..200).map(|_| unit() * 2e-308));
    pos.extend(specials);
    pos.push(-2.0);
    let mut trig: Vec<f64> = (0..4000).map(|_| unit() * 2e4 - 1e4).collect();
    trig.extend((0..2000).map(|_| unit() * 8.0 - 4.0));
    trig.extend((0..200).map(|_| (unit() - 0.5) * 1e-6));
    trig.extend(&specials[..7]);
    type Case<'a> = (UnaryOp, &'a [f64], fn(f64) -> f64);
    let cases: [Case; 4] = [
        (UnaryOp::Exp, &wide, f64::exp),
        (UnaryOp::Log, &pos, f64::ln),
        (UnaryOp::Sin, &trig, f64::sin),
        (UnaryOp::Cos, &trig, f64::cos),
    ];
    for (op, xs, host) in cases {
        let got = expanded_f64_math(op, xs);
        let mut worst = 0f64;
        for (&x, &g) in xs.iter().zip(&got) {
            let w = host(x);
            if w.is_nan() || w.is_infinite() || w == 0.0 {
                assert!(
                    g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                    "{op:?}({x:e}) = {g:e}, want {w:e}"
                );
                continue;
            }
            // Subnormal results carry fewer bits: compare them absolutely, at their spacing.
            let err = (g - w).abs() / w.abs().max(f64::MIN_POSITIVE);
            worst = worst.max(err);
            assert!(err < 1e-14, "{op:?}({x:e}) = {g:e}, want {w:e} (relative error {err:e})");
        }
        eprintln!("{op:?}: worst relative error {worst:e}");
    }
}

/// One warp stores its thread index at `s[t * stride]` of a shared array of `elem`, and after a
/// barrier every thread copies its element back out to `y[t]`.
fn strided_shared_kernel(stride: u32, elem: ScalarType) -> Function {
    let mut b = Builder::new("strided_shared");
    let y = b.slice_param("y", elem, true);
    let s = b.add_mem("s", elem, MemSpace::Shared { len: 32 * stride.max(1), align: 16 });
    let t = b.special(Special::ThreadIdx(Axis::X));
    let k = b.constant(ScalarType::U32, stride as u64);
    let i = b.binary(BinaryOp::Mul, t, k);
    let v = b.cast(t, elem);
    b.store(s, i, v);
    b.barrier();
    let back = b.load(s, i, 1);
    let t64 = b.cast(t, ScalarType::U64);
    b.store(y, t64, back);
    b.finish().unwrap()
}

#[test]
fn shared_bank_wavefronts_follow_the_stride() {
    // (stride in elements, element type, wavefronts per access): 4-byte words 1, 2, 32 and 33
    // apart; 8-byte elements 1 and 2 apart.
    for (stride, elem, fronts) in [
        (1, ScalarType::U32, 1),
        (2, ScalarType::U32, 2),
        (32, ScalarType::U32, 32),
        (33, ScalarType::U32, 1),
        (1, ScalarType::U64, 2),
        (2, ScalarType::U64, 4),
    ] {
        let y = vec![0u64; 32];
        let [yp, yl] = slice_args(&y);
        let yl = if elem == ScalarType::U32 { 32u64.to_le_bytes() } else { yl };
        let k = ExecKernel::new(Arc::new(strided_shared_kernel(stride, elem))).unwrap();
        // SAFETY: `y` is live across the launch and holds at least 32 elements of either type.
        let s = unsafe { k.launch_counting_banks(dims(1, 32), &[&yp, &yl]) }.unwrap();
        let what = format!("stride {stride} of {elem:?}");
        assert_eq!((s.store_requests, s.load_requests), (1, 1), "{what}");
        assert_eq!((s.store_wavefronts, s.load_wavefronts), (fronts, fronts), "{what}");
        let words: Vec<u64> = if elem == ScalarType::U32 {
            y.iter().flat_map(|w| [w & 0xffff_ffff, w >> 32]).take(32).collect()
        } else {
            y.clone()
        };
        assert_eq!(words, (0..32).collect::<Vec<u64>>(), "{what}: the values made the round trip");
    }
}

#[test]
fn global_accesses_are_not_counted_as_shared() {
    let x: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let y = vec![0f32; 64];
    let [xp, xl] = slice_args(&x);
    let [yp, yl] = slice_args(&y);
    let k = ExecKernel::new(Arc::new(copy_kernel(false))).unwrap();
    // SAFETY: `x` and `y` are live across the launch with their true lengths.
    let s = unsafe { k.launch_counting_banks(dims(2, 32), &[&xp, &xl, &yp, &yl]) }.unwrap();
    assert_eq!(s, ferrocm_cpu_exec::SharedBankStats::default());
    assert_eq!(x, y);
}
