//! Calls that reach past the kernel: device-side `printf`, failed assertions, `trap`, and
//! `nanosleep`.
//!
//! The PTX front end makes the first three from PTX's `vprintf` and `__assertfail` system calls
//! and its `trap` instruction. Their operands are generic addresses (`u64`) of C strings and of
//! `vprintf`'s argument buffer, which only the executor can follow (through its byte-addressed
//! memory, [`MemSpace::Addressed`]); the PTX back end refuses `printf` and `assert_fail`, since
//! GPUs run the PTX such calls were read from. `nanosleep` suspends the thread for a while: on
//! the executor it lets the other warps of its group run, so spin-waits that sleep (the grid
//! barrier of HIP's cooperative groups) make progress.

use super::*;

/// Why the PTX back end does not lower a host call.
fn host_call_ptx(call: &Call, _: &[Type], _: &Function) -> Result<String, String> {
    Err(format!(
        "`{}` is a host call made by the PTX front end for the CPU executor (a GPU runs the PTX it was read \
         from)",
        call.def.name
    ))
}

fn printf_sig(_: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    args_are(c.args, &[U64, U64])?;
    Ok(Some(Type::Scalar(ScalarType::I32)))
}

fn printf_exec(e: &mut dyn Exec, _: &Call) -> Result<Flow, String> {
    let (format, args) = (e.arg(0)[0], e.arg(1)[0]);
    let mut d = [0u64; 32];
    each_lane(e.active(), |lane| {
        d[lane] = e.printf(lane, format[lane], args[lane])? as u32 as u64;
        Ok(())
    })?;
    e.set_result(0, d);
    Ok(Flow::Next)
}

/// Device-side `printf` (PTX's `vprintf`): operand 0 is the generic address of the
/// NUL-terminated format, operand 1 the generic address of the argument buffer (each argument
/// aligned to its size, `float` promoted to `double`). Each active lane prints, in lane order;
/// the result is the number of arguments formatted (a malformed conversion is printed as text).
pub static PRINTF: Def = Def {
    name: "printf",
    doc: "device printf of the format and argument buffer at two generic addresses (vprintf's layout); the \
          number of arguments",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: printf_sig,
    effects: Effects::WRITE,
    feature: None,
    extra_feature: no_extra,
    ptx_version: (6, 0),
    ptx: host_call_ptx,
    ptx_globals: &[],
    exec: printf_exec,
};

fn assert_fail_sig(_: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    args_are(c.args, &[U64, U64, U64, U32]).map(|_| None)
}

fn assert_fail_exec(e: &mut dyn Exec, _: &Call) -> Result<Flow, String> {
    let active = e.active();
    if active == 0 {
        return Ok(Flow::Next);
    }
    let lane = active.trailing_zeros() as usize;
    let (msg, file, func, line) =
        (e.arg(0)[0][lane], e.arg(1)[0][lane], e.arg(2)[0][lane], e.arg(3)[0][lane]);
    // A string that cannot be read still leaves the assertion failed.
    let mut text = |addr: u64| {
        e.c_string(lane, addr)
            .map(|s| String::from_utf8_lossy(&s).into_owned())
            .unwrap_or_else(|_| "?".into())
    };
    let (msg, file, func) = (text(msg), text(file), text(func));
    Err(e.fault(&format!(
        "device-side assertion `{msg}` failed at {file}:{} in `{func}` (lane {lane})",
        line as u32
    )))
}

/// A failed device-side `assert` (PTX's `__assertfail`): stops the kernel with an error that
/// quotes the message, the file, the line and the function. Operands: the generic addresses of
/// the message, the file name and the function name, then the line.
pub static ASSERT_FAIL: Def = Def {
    name: "assert_fail",
    doc:
        "stops the kernel with a failed assertion (generic addresses of message, file and function; the line)",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: assert_fail_sig,
    effects: Effects::SYNC,
    feature: None,
    extra_feature: no_extra,
    ptx_version: (6, 0),
    ptx: host_call_ptx,
    ptx_globals: &[],
    exec: assert_fail_exec,
};

fn trap_exec(e: &mut dyn Exec, _: &Call) -> Result<Flow, String> {
    if e.active() == 0 {
        return Ok(Flow::Next);
    }
    Err(e.fault(&format!("device-side trap (lane {})", e.active().trailing_zeros())))
}

/// `trap`: stops the kernel with an error.
pub static TRAP: Def = Def {
    name: "trap",
    doc: "stops the kernel with an error",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: sig_none,
    effects: Effects::SYNC,
    feature: None,
    extra_feature: no_extra,
    ptx_version: (6, 0),
    ptx: ptx_text!("trap;"),
    ptx_globals: &[],
    exec: trap_exec,
};

/// `nanosleep.u32 t`: suspends the thread for about `t` nanoseconds (at most 1 ms). The
/// executor lets the other warps of the group run instead.
pub static NANOSLEEP: Def = Def {
    name: "nanosleep",
    doc: "suspends the thread for up to the given nanoseconds (u32), letting other warps run",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: |_, c| args_are(c.args, &[U32]).map(|_| None),
    effects: Effects::SYNC,
    feature: None,
    extra_feature: no_extra,
    ptx_version: (6, 3),
    ptx: ptx_text!("nanosleep.u32 $[a0];"),
    ptx_globals: &[],
    exec: |_, _| Ok(Flow::Yield),
};
