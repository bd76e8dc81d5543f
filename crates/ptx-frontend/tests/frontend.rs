//! The front end on small handwritten PTX: control flow the structurizer must get right (lanes
//! that leave a loop at different trips and meet at a barrier, breaks and continues, calls to
//! device functions), shuffles within segments, and the errors for what it does not support,
//! each naming the line.

use std::sync::{Arc, Mutex};

use ferrocm_backend::{CpuModule, Dim3, LaunchDims};
use ferrocm_cpu_exec::HostEnv;
use ferrocm_ptx_frontend::{FrontendError, PtxModule};

#[derive(Default)]
struct Host(Mutex<Vec<(u64, u64)>>);

impl HostEnv for Host {
    fn global_range(&self, addr: u64) -> Option<(u64, u64)> {
        self.0.lock().unwrap().iter().copied().find(|&(b, n)| addr >= b && addr - b < n)
    }
}

const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// Runs kernel `k` of `body` (after the module header) with one output buffer of `n` u32 as its
/// only parameter, `threads` threads in one block; returns the buffer.
fn run(body: &str, threads: u32, n: usize) -> Result<Vec<u32>, String> {
    let text = format!("{HEAD}{body}");
    let m = PtxModule::parse(&text).map_err(|e| e.to_string())?;
    let host = Arc::new(Host::default());
    let cpu = m.load_cpu(host.clone()).map_err(|e| e.to_string())?;
    if let Some(e) = cpu.kernel_error("k") {
        return Err(e);
    }
    let out = vec![0u32; n];
    host.0.lock().unwrap().push((out.as_ptr() as u64, (n * 4) as u64));
    let k = cpu.function("k").ok_or("no kernel k")?;
    // SAFETY: a translated PTX kernel trusts no argument as an address (its accesses are checked
    // against the host's allocations).
    unsafe {
        k.launch(
            LaunchDims::new(Dim3::new(1, 1, 1), Dim3::new(threads, 1, 1), 0),
            &[&(out.as_ptr() as u64).to_le_bytes()],
        )
    }?;
    Ok(out)
}

/// The error of translating or running `body`.
fn error(body: &str) -> String {
    match run(body, 32, 32) {
        Ok(_) => panic!("expected an error from:\n{body}"),
        Err(e) => e,
    }
}

/// Stores `%r9` to `out[tid]` and returns.
const STORE_R9: &str = "
    ld.param.u64 %rd1, [k_param_0];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r8, %tid.x;
    mul.wide.u32 %rd2, %r8, 4;
    add.s64 %rd1, %rd1, %rd2;
    st.global.u32 [%rd1], %r9;
    ret;
}";

const REGS: &str = ".visible .entry k(.param .u64 k_param_0)\n{\n    .reg .pred %p<8>;\n    .reg .b32 %r<16>;\n    .reg .b64 %rd<8>;\n";

#[test]
fn lanes_leaving_a_loop_at_different_trips_meet_at_the_barrier() {
    // Thread t loops t times; then all threads pass a barrier and read their neighbour's count
    // from shared memory.
    let body = format!(
        "{REGS}    .shared .align 4 .b8 counts[512];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
$LOOP:
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra $DONE;
    add.s32 %r2, %r2, 1;
    bra.uni $LOOP;
$DONE:
    mov.u32 %r3, counts;
    shl.b32 %r4, %r1, 2;
    add.s32 %r5, %r3, %r4;
    st.shared.u32 [%r5], %r2;
    bar.sync 0;
    add.s32 %r6, %r1, 1;
    rem.u32 %r6, %r6, 100;
    shl.b32 %r6, %r6, 2;
    add.s32 %r6, %r3, %r6;
    ld.shared.u32 %r9, [%r6];
{STORE_R9}"
    );
    let out = run(&body, 100, 100).unwrap();
    assert_eq!(out, (0..100).map(|t| (t + 1) % 100).collect::<Vec<u32>>());
}

#[test]
fn nested_loops_with_break_and_continue() {
    // r9 = sum over i < 10 of (i odd ? skip : (i > tid ? stop : i)).
    let body = format!(
        "{REGS}    mov.u32 %r1, %tid.x;
    mov.u32 %r9, 0;
    mov.u32 %r2, 0;
$OUTER:
    setp.ge.u32 %p1, %r2, 10;
    @%p1 bra $END;
    and.b32 %r3, %r2, 1;
    setp.ne.s32 %p2, %r3, 0;
    @%p2 bra $NEXT;
    setp.gt.u32 %p3, %r2, %r1;
    @%p3 bra $END;
    add.s32 %r9, %r9, %r2;
$NEXT:
    add.s32 %r2, %r2, 1;
    bra.uni $OUTER;
$END:
{STORE_R9}"
    );
    let out = run(&body, 32, 32).unwrap();
    let want: Vec<u32> =
        (0..32u32).map(|t| (0..10).filter(|i| i % 2 == 0).take_while(|&i| i <= t).sum()).collect();
    assert_eq!(out, want);
}

#[test]
fn device_functions_are_inlined_with_their_parameters() {
    let body = format!(
        ".func (.param .b32 sq_ret) sq(.param .b32 sq_x)
{{
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [sq_x];
    mul.lo.s32 %r2, %r1, %r1;
    st.param.b32 [sq_ret], %r2;
    ret;
}}
{REGS}    mov.u32 %r1, %tid.x;
    {{
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), sq, (param0);
    ld.param.b32 %r2, [retval0];
    }}
    setp.lt.u32 %p1, %r1, 5;
    mov.u32 %r3, 1000;
    {{
    .param .b32 param0;
    st.param.b32 [param0], %r3;
    .param .b32 retval0;
    @%p1 call.uni (retval0), sq, (param0);
    @%p1 ld.param.b32 %r3, [retval0];
    }}
    add.s32 %r9, %r2, %r3;
{STORE_R9}"
    );
    let out = run(&body, 8, 8).unwrap();
    assert_eq!(out, (0..8u32).map(|t| t * t + if t < 5 { 1_000_000 } else { 1000 }).collect::<Vec<_>>());
}

#[test]
fn shuffles_within_segments_follow_ptx_s_clamp_rules() {
    // shfl.sync.down with width 8 (c = 0x181f): lanes past their segment's end keep their value.
    let body = format!(
        "{REGS}    mov.u32 %r1, %tid.x;
    mul.lo.s32 %r2, %r1, 10;
    shfl.sync.down.b32 %r9|%p1, %r2, 3, 6175, -1;
{STORE_R9}"
    );
    let out = run(&body, 32, 32).unwrap();
    let want: Vec<u32> = (0..32u32).map(|l| if l % 8 + 3 < 8 { (l + 3) * 10 } else { l * 10 }).collect();
    assert_eq!(out, want);
}

#[test]
fn unsupported_ptx_names_the_instruction_and_its_line() {
    let body = format!("{REGS}    mov.u32 %r1, %tid.x;\n    tex.1d.v4.u32.s32 {{%r1, %r2, %r3, %r4}}, [tex, {{%r1}}];\n{STORE_R9}");
    let e = error(&body);
    assert!(e.contains("PTX line 10") && e.contains("tex.1d.v4.u32.s32"), "{e}");
    let body = format!("{REGS}    mov.u64 %rd3, %clock64;\n    mov.u32 %r9, 0;\n{STORE_R9}");
    let e = error(&body);
    assert!(e.contains("PTX line 9") && e.contains("%clock64"), "{e}");
}

#[test]
fn irreducible_control_flow_is_refused() {
    // Two blocks that jump into each other, both entered from the top.
    let body = format!(
        "{REGS}    mov.u32 %r1, %tid.x;
    mov.u32 %r9, 0;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra $B;
$A:
    add.s32 %r9, %r9, 1;
    setp.lt.u32 %p2, %r9, 4;
    @%p2 bra $B;
    bra.uni $OUT;
$B:
    add.s32 %r9, %r9, 2;
    setp.lt.u32 %p3, %r9, 4;
    @%p3 bra $A;
$OUT:
{STORE_R9}"
    );
    let e = error(&body);
    assert!(e.contains("irreducible control flow"), "{e}");
}

#[test]
fn recursion_is_refused() {
    let body = format!(
        ".func f(.param .b32 f_x)
{{
    .reg .b32 %r<2>;
    ld.param.u32 %r1, [f_x];
    {{
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    call.uni f, (param0);
    }}
    ret;
}}
{REGS}    mov.u32 %r9, 0;
    {{
    .param .b32 param0;
    st.param.b32 [param0], %r9;
    call.uni f, (param0);
    }}
{STORE_R9}"
    );
    assert!(error(&body).contains("recursive call to `f`"));
}

#[test]
fn syntax_errors_name_their_line() {
    for (text, line) in [
        (".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(\n.param .u64 a\n{\n}", 6),
        (".version 8.0\n.target sm_80\n\n.global .f33 x;\n", 4),
        (".version 8.0\n.visible .entry k()\n{\n    add.s32 %r1, %r2 %r3;\n}", 4),
        ("\u{7f}", 1),
    ] {
        match PtxModule::parse(text) {
            Err(FrontendError::Syntax { line: l, .. }) => assert_eq!(l, line, "{text:?}"),
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

#[test]
fn kernel_signatures_and_variables_are_reported() {
    let text = format!(
        "{HEAD}.visible .global .align 8 .u64 table[3] = {{1, 2, generic(counter)}};
.visible .global .align 4 .u32 counter;
.visible .const .align 4 .f32 scale = 0f3F000000;
.visible .entry k(.param .u64 a, .param .align 8 .b8 s[24], .param .f32 f) .maxntid 128, 1, 1
{{
    ret;
}}"
    );
    let m = PtxModule::parse(&text).unwrap();
    let k = m.kernel("k").unwrap();
    assert_eq!(k.params.iter().map(|p| (p.size, p.align)).collect::<Vec<_>>(), [(8, 8), (24, 8), (4, 4)]);
    assert_eq!(k.max_threads, Some(128));
    let g: Vec<(String, u64, bool)> = m.globals().into_iter().map(|g| (g.name, g.size, g.constant)).collect();
    assert_eq!(g, [("table".into(), 24, false), ("counter".into(), 4, false), ("scale".into(), 4, true)]);
    let cpu = m.load_cpu(Arc::new(Host::default())).unwrap();
    let (table, _) = cpu.global("table").unwrap();
    let (counter, _) = cpu.global("counter").unwrap();
    let (scale, _) = cpu.global("scale").unwrap();
    // SAFETY: module variables of the sizes reported, initialised at load.
    unsafe {
        assert_eq!(std::slice::from_raw_parts(table as *const u64, 3), [1, 2, counter]);
        assert_eq!(*(scale as *const f32), 0.5);
    }
}

#[test]
fn names_declared_twice_are_errors() {
    // Found by the ptx_frontend fuzz target: a duplicated parameter name made IR whose text
    // did not parse back.
    for (text, what) in [
        (".visible .entry k(.param .u64 a, .param .u8 a)\n{\n    ret;\n}", "parameter `a`"),
        (".global .u32 x;\n.global .u32 x;\n", "variable `x`"),
    ] {
        let e = PtxModule::parse(&format!("{HEAD}{text}")).unwrap_err().to_string();
        assert!(e.contains(what) && e.contains("declared twice"), "{e}");
    }
    let body = format!("{REGS}    mov.u32 %r9, 0;\n$L:\n    add.s32 %r9, %r9, 1;\n$L:\n{STORE_R9}");
    assert!(error(&body).contains("label `$L` is defined twice"));
}

/// `%globaltimer` is the host's `CLOCK_MONOTONIC` in nanoseconds on the executor (its low and
/// high halves too), so a PTX spin on it waits as long on the CPU as on a GPU; `%smid` is 0.
#[test]
fn the_global_timer_is_the_host_clock() {
    let now = || {
        let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: a valid out-pointer.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
        t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
    };
    // Spins 300 us, then stores the time spun, the low and high halves of the timer, and %smid.
    let body = format!(
        "{REGS}    mov.u64 %rd4, %globaltimer;
LOOP:
    mov.u64 %rd5, %globaltimer;
    sub.u64 %rd6, %rd5, %rd4;
    setp.lt.u64 %p1, %rd6, 300000;
    @%p1 bra LOOP;
    mov.u32 %r10, %globaltimer_lo;
    mov.u32 %r11, %globaltimer_hi;
    mov.u32 %r12, %smid;
    cvt.u32.u64 %r9, %rd6;
    mov.u32 %r8, %tid.x;
    setp.eq.u32 %p2, %r8, 1;
    @%p2 mov.u32 %r9, %r10;
    setp.eq.u32 %p2, %r8, 2;
    @%p2 mov.u32 %r9, %r11;
    setp.eq.u32 %p2, %r8, 3;
    @%p2 mov.u32 %r9, %r12;
{STORE_R9}"
    );
    let before = now();
    let out = run(&body, 4, 4).unwrap();
    let after = now();
    assert!(
        out[0] >= 300_000 && (out[0] as u64) <= after - before,
        "spun {} ns in {} ns",
        out[0],
        after - before
    );
    let timer = (out[2] as u64) << 32 | out[1] as u64;
    // The halves were read one after the other: the high half may have moved on once.
    assert!(timer >= before.saturating_sub(1 << 32) && timer <= after, "{before} <= {timer} <= {after}");
    assert!((before >> 32..=after >> 32).contains(&(out[2] as u64)), "high half {}", out[2]);
    assert_eq!(out[3], 0, "%smid");
}
