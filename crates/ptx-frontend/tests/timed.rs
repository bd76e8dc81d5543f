//! Timed copies of PTX entries (`ferrocm_ir::timed_ptx`) run on the CPU executor: each computes
//! what its entry computes (checked against host references) and writes a timing slot that
//! `read_timing_slot` reads inside the launch's host time window; entries of every shape the
//! rewriter must handle (several entries and device functions, predicated `ret` and `exit`,
//! bodies that fall off their end, no parameters, comments holding `ret;`, labels, register
//! ranges, kernels reading `%globaltimer` and `%smid` themselves), and clang's own PTX.

use std::sync::{Arc, Mutex};

use ferrocm_backend::{CpuModule, Dim3, LaunchDims};
use ferrocm_cpu_exec::HostEnv;
use ferrocm_ir::timed::{read_timing_slot, TIMING_SLOT_WORDS};
use ferrocm_ir::timed_ptx::{instrument, TimedPtx};
use ferrocm_ptx_frontend::{CpuPtxModule, PtxModule};

#[derive(Default)]
struct Host(Mutex<Vec<(u64, u64)>>);

impl HostEnv for Host {
    fn global_range(&self, addr: u64) -> Option<(u64, u64)> {
        self.0.lock().unwrap().iter().copied().find(|&(b, n)| addr >= b && addr - b < n)
    }
}

impl Host {
    fn add<T>(&self, v: &mut [T]) -> [u8; 8] {
        let at = v.as_mut_ptr() as u64;
        self.0.lock().unwrap().push((at, std::mem::size_of_val(v).max(1) as u64));
        at.to_le_bytes()
    }
}

fn now() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// A module and its instrumented text, both loaded for the CPU executor.
struct Pair {
    host: Arc<Host>,
    plain: Arc<CpuPtxModule>,
    timed: Arc<CpuPtxModule>,
    t: TimedPtx,
}

fn pair(text: &str) -> Pair {
    let t = instrument(text).expect("the module can be instrumented");
    let host = Arc::new(Host::default());
    let plain = PtxModule::parse(text).unwrap().load_cpu(host.clone()).unwrap();
    let parsed = PtxModule::parse(&t.text).unwrap_or_else(|e| panic!("{e}\n{}", t.text));
    let timed = parsed.load_cpu(host.clone()).unwrap();
    for k in PtxModule::parse(text).unwrap().kernels() {
        assert_eq!(timed.kernel_error(&k.name), None, "{}", k.name);
        if let Some(name) = t.timed_name(&k.name) {
            assert_eq!(timed.kernel_error(name), None, "{name}\n{}", t.text);
        }
    }
    Pair { host, plain, timed, t }
}

impl Pair {
    /// Runs `kernel` of the plain module with `args`, then its timed copy with `args` and a
    /// fresh slot (reset with `reset` before each run); returns the slot's (start, end) and the
    /// host window around the timed launch.
    fn run(
        &self,
        kernel: &str,
        grid: u32,
        block: u32,
        args: &[&[u8]],
        reset: &mut dyn FnMut(),
    ) -> (u64, u64, u64, u64) {
        let dims = LaunchDims::new(Dim3::new(grid, 1, 1), Dim3::new(block, 1, 1), 0);
        reset();
        let k = self.plain.function(kernel).unwrap();
        // SAFETY: a translated PTX kernel's accesses are checked against the host's ranges.
        unsafe { k.launch(dims, args) }.unwrap();
        let timed_name = self.t.timed_name(kernel).unwrap_or_else(|| panic!("{kernel} has no timed copy"));
        let k = self.timed.function(timed_name).unwrap();
        let mut slot = vec![0u64; TIMING_SLOT_WORDS];
        let at = self.host.add(&mut slot);
        let len = (TIMING_SLOT_WORDS as u64).to_le_bytes();
        let mut all: Vec<&[u8]> = args.to_vec();
        all.push(&at);
        all.push(&len);
        reset();
        let before = now();
        // SAFETY: as above.
        unsafe { k.launch(dims, &all) }.unwrap();
        let after = now();
        let (s, e) = read_timing_slot(&slot).expect("the timed copy wrote its slot");
        assert!(before <= s && s <= e && e <= after, "{kernel}: {before} <= {s} <= {e} <= {after}");
        // `%smid` is 0 on the executor: only lane 0 is written.
        assert!(slot[2..].iter().all(|&w| w == 0), "{kernel}: {slot:?}");
        (before, s, e, after)
    }
}

const SHAPES: &str = r#"
.version 8.0
.target sm_80
.address_size 64

// Counts launches of `count` (a module variable the copies share).
.visible .global .align 4 .u32 runs;

// A device function with its own `ret;` (left as it is).
.func (.param .b32 twice_ret) twice(.param .b32 twice_x)
{
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [twice_x];
	add.s32 %r2, %r1, %r1;
	st.param.b32 [twice_ret], %r2;
	ret;
}

/* out[i] = 2 * i for i < n; threads past n leave by a predicated
   ret; (this comment's `ret;` is not an instruction) */
.visible .entry early(
	.param .u64 early_param_0, // the output ret;
	.param .u32 early_param_1
)
.maxntid 256, 1, 1
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<5>;

	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r4, %r1, %r2, %r3;
	ld.param.u32 %r5, [early_param_1];
	setp.ge.u32 %p1, %r4, %r5;
	@%p1 ret;
	{
	.param .b32 param0;
	st.param.b32 [param0], %r4;
	.param .b32 retval0;
	call.uni (retval0), twice, (param0);
	ld.param.b32 %r6, [retval0];
	}
	ld.param.u64 %rd1, [early_param_0];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %r4, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r6;
	ret;
}

// out[t] = 7 for odd t (which leave by `@!%p exit`), 9 for even t, which fall off the end.
.visible .entry negexit(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	mov.u32 %r4, 7;
	st.global.u32 [%rd3], %r4;
	and.b32 %r2, %r1, 1;
	setp.eq.u32 %p1, %r2, 0;
	@!%p1 exit;
	mov.u32 %r3, 9;
	st.global.u32 [%rd3], %r3;
}

// No parameters: counts its blocks in `runs`.
.visible .entry count
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra $L__done;
	atom.global.add.u32 %r2, [runs], 1;
$L__done:
	ret;
}

// out[t] = sum of 0..t by a loop over labels, plus %smid (0 here), plus whether its own
// %globaltimer reads went forward; the body ends with a label reached by a branch.
.visible .entry timer_user(.param .u64 timer_user_out)
{
	.reg .pred %p<4>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<8>;
	mov.u64 %rd5, %globaltimer;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, 0;
	mov.u32 %r3, 0;
$L__loop:
	setp.ge.u32 %p1, %r3, %r1;
	@%p1 bra $L__out;
	add.s32 %r2, %r2, %r3;
	add.s32 %r3, %r3, 1;
	bra.uni $L__loop;
$L__out:
	mov.u32 %r4, %smid;
	add.s32 %r2, %r2, %r4;
	mov.u64 %rd6, %globaltimer;
	setp.ge.u64 %p2, %rd6, %rd5;
	selp.u32 %r5, 1000, 0, %p2;
	add.s32 %r2, %r2, %r5;
	ld.param.u64 %rd1, [timer_user_out];
	cvta.to.global.u64 %rd1, %rd1;
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r2;
	setp.eq.u32 %p3, %r1, 0;
	@%p3 bra $L__end;
	bra.uni $L__end;
$L__end:
}
"#;

#[test]
fn every_shape_computes_what_the_original_does_and_writes_its_slot() {
    let p = pair(SHAPES);
    assert_eq!(
        p.t.entries.iter().map(|e| e.kernel.as_str()).collect::<Vec<_>>(),
        ["early", "negexit", "count", "timer_user"]
    );
    assert!(p.t.refused.is_empty(), "{:?}", p.t.refused);

    // `early`: two blocks of 64 and n = 50, so block 1's first thread leaves by the
    // predicated `ret` and block 0's by the last one.
    let n = 50u32;
    let mut out = vec![u32::MAX; 128];
    let at = p.host.add(&mut out);
    let out_ptr = out.as_mut_ptr();
    let mut reset = || unsafe { std::slice::from_raw_parts_mut(out_ptr, 128).fill(u32::MAX) };
    p.run("early", 2, 64, &[&at, &n.to_le_bytes()], &mut reset);
    let want: Vec<u32> = (0..128).map(|i| if i < n { 2 * i } else { u32::MAX }).collect();
    assert_eq!(out, want);

    let mut out = vec![0u32; 64];
    let at = p.host.add(&mut out);
    let out_ptr = out.as_mut_ptr();
    let mut reset = || unsafe { std::slice::from_raw_parts_mut(out_ptr, 64).fill(0) };
    p.run("negexit", 1, 64, &[&at], &mut reset);
    assert_eq!(out, (0..64).map(|t| if t % 2 == 1 { 7 } else { 9 }).collect::<Vec<u32>>());

    let mut out = vec![0u32; 64];
    let at = p.host.add(&mut out);
    let out_ptr = out.as_mut_ptr();
    let mut reset = || unsafe { std::slice::from_raw_parts_mut(out_ptr, 64).fill(0) };
    p.run("timer_user", 1, 64, &[&at], &mut reset);
    assert_eq!(out, (0..64u32).map(|t| t * t.saturating_sub(1) / 2 + 1000).collect::<Vec<u32>>());
}

#[test]
fn copies_share_the_module_variables_of_their_entries() {
    let p = pair(SHAPES);
    let (runs, _) = p.timed.global("runs").unwrap();
    let read = || unsafe { (runs as *const u32).read_volatile() };
    let dims = LaunchDims::new(Dim3::new(3, 1, 1), Dim3::new(32, 1, 1), 0);
    // SAFETY: the kernel takes no parameters.
    unsafe { p.timed.function("count").unwrap().launch(dims, &[]) }.unwrap();
    assert_eq!(read(), 3);
    let mut slot = vec![0u64; TIMING_SLOT_WORDS];
    let at = p.host.add(&mut slot);
    let copy = p.timed.function(p.t.timed_name("count").unwrap()).unwrap();
    // SAFETY: the copy's two parameters are the slot and its length.
    unsafe { copy.launch(dims, &[&at, &(TIMING_SLOT_WORDS as u64).to_le_bytes()]) }.unwrap();
    // Three blocks each from the entry and its copy, counted in the one variable.
    assert_eq!(read(), 6);
    assert!(read_timing_slot(&slot).is_some());
}

/// clang's PTX (`data/kernels.ptx`): every entry gets a copy that translates, and copies of a
/// kernel with an early return and of a grid-stride loop compute what the host does.
#[test]
fn clang_s_kernels_keep_their_results() {
    let text = include_str!("data/kernels.ptx");
    let p = pair(text);
    assert_eq!(p.t.entries.len(), PtxModule::parse(text).unwrap().kernels().len());
    // Every original entry, function and variable is still there, byte for byte.
    let mut rest = p.t.text.as_str();
    for piece in text.split("\n}\n") {
        let at = rest.find(piece).unwrap_or_else(|| panic!("missing:\n{piece}"));
        rest = &rest[at + piece.len()..];
    }

    for n in [1usize, 255, 256, 257, 1000] {
        let mut a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 3.0).collect();
        let mut b: Vec<f32> = (0..n).map(|i| 1.0 / (i as f32 + 1.0)).collect();
        let mut c = vec![f32::NAN; n + 1];
        let (pa, pb, pc) = (p.host.add(&mut a), p.host.add(&mut b), p.host.add(&mut c));
        let c_ptr = c.as_mut_ptr();
        let mut reset = || unsafe { std::slice::from_raw_parts_mut(c_ptr, n + 1).fill(f32::NAN) };
        p.run(
            "vector_add",
            n.div_ceil(256) as u32,
            256,
            &[&pa, &pb, &pc, &(n as i32).to_le_bytes()],
            &mut reset,
        );
        for i in 0..n {
            assert_eq!(c[i], a[i] + b[i], "n={n} i={i}");
        }
        assert!(c[n].is_nan(), "nothing past n is written");
    }

    let n = 5000;
    let mut x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 - 48.0).collect();
    let y0: Vec<f32> = (0..n).map(|i| (i % 13) as f32 * 0.25).collect();
    let mut y = y0.clone();
    let (px, py) = (p.host.add(&mut x), p.host.add(&mut y));
    let y_ptr = y.as_mut_ptr();
    let y0c = y0.clone();
    let mut reset = || unsafe { std::slice::from_raw_parts_mut(y_ptr, n).copy_from_slice(&y0c) };
    p.run("saxpy_loop", 3, 128, &[&(n as i32).to_le_bytes(), &1.5f32.to_le_bytes(), &px, &py], &mut reset);
    for i in 0..n {
        assert_eq!(y[i], 1.5f32.mul_add(x[i], y0[i]), "i={i}");
    }
}
