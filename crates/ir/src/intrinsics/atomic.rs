//! Atomics, memory fences, and shared-window addresses.

use super::*;

const ATOMIC_OPS: &[&str] = &["add", "sub", "min", "max", "and", "or", "xor", "exch", "cas"];
const ATOMIC_OP_VALUES: [AtomicOp; 9] = [
    AtomicOp::Add,
    AtomicOp::Sub,
    AtomicOp::Min,
    AtomicOp::Max,
    AtomicOp::And,
    AtomicOp::Or,
    AtomicOp::Xor,
    AtomicOp::Exch,
    AtomicOp::Cas,
];

/// The atomic operation an `atomic` call's `op` immediate stands for.
pub fn atomic_op(call: &Call) -> AtomicOp {
    ATOMIC_OP_VALUES[call.imm("op").clamp(0, 8) as usize]
}

/// The `op` immediate of `op`.
pub fn atomic_imm(op: AtomicOp) -> i64 {
    ATOMIC_OP_VALUES.iter().position(|o| *o == op).unwrap_or(0) as i64
}

fn atomic_sig(def: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    let m = &c.mems[0];
    let op = ATOMIC_OP_VALUES[c.imm(def, "op").clamp(0, 8) as usize];
    let elem: Type = m.elem.into();
    if op == AtomicOp::Cas {
        arg_count(c.args, 3)?;
    } else {
        arg_count(c.args, 2)?;
    }
    is_index(c.args, 0)?;
    for (i, t) in c.args.iter().enumerate().skip(1) {
        if *t != elem {
            return Err(format!("operand {i} is {t}, expected the element type {elem} of `{}`", m.name));
        }
    }
    use ScalarType::*;
    let ok = match m.elem {
        I32 | U32 | I64 | U64 => true,
        F32 => op == AtomicOp::Add || op == AtomicOp::Exch,
        F64 => op == AtomicOp::Add,
        _ => false,
    };
    if !ok {
        return Err(format!(
            "atomic {} on {} is not supported: atomics support i32, u32, i64, u64, add and exch on f32, add on f64",
            ATOMIC_OPS[c.imm(def, "op").clamp(0, 8) as usize],
            m.elem
        ));
    }
    Ok(Some(elem))
}

fn atomic_ptx(call: &Call, args: &[Type], _: &Function) -> Result<String, String> {
    use ScalarType::*;
    let elem = args[1].elem();
    let wide = elem.size() == 8;
    let bits = if wide { "b64" } else { "b32" };
    let op = atomic_op(call);
    let (m, ty) = match op {
        AtomicOp::Add | AtomicOp::Sub => (
            "add",
            match elem {
                I32 | U32 => "u32",
                I64 | U64 => "u64",
                F32 => "f32",
                _ => "f64",
            },
        ),
        AtomicOp::Min | AtomicOp::Max => (
            if op == AtomicOp::Min { "min" } else { "max" },
            match elem {
                I32 => "s32",
                U32 => "u32",
                I64 => "s64",
                _ => "u64",
            },
        ),
        AtomicOp::And => ("and", bits),
        AtomicOp::Or => ("or", bits),
        AtomicOp::Xor => ("xor", bits),
        AtomicOp::Exch => ("exch", bits),
        AtomicOp::Cas => ("cas", bits),
    };
    Ok(match op {
        AtomicOp::Sub => {
            let (t, neg) = if wide { ("$[t.b64.0]", "neg.s64") } else { ("$[t.b32.0]", "neg.s32") };
            format!("{neg} {t}, $[a1];\natom.$[space0].add.{ty} $[d], [$[addr0:a0]], {t};")
        }
        AtomicOp::Cas => format!("atom.$[space0].cas.{ty} $[d], [$[addr0:a0]], $[a2], $[a1];"),
        _ => format!("atom.$[space0].{m}.{ty} $[d], [$[addr0:a0]], $[a1];"),
    })
}

fn atomic_exec(e: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    let op = atomic_op(call);
    let (iv, vv) = (e.arg(0)[0], e.arg(1)[0]);
    let cv = if op == AtomicOp::Cas { e.arg(2)[0] } else { [0; 32] };
    let index_ty = e.arg_type(0);
    let mut d = [0u64; 32];
    each_lane(e.active(), |lane| {
        let index = index_value(index_ty, iv[lane]);
        d[lane] = e.atomic(0, lane, index, op, vv[lane], cv[lane])?;
        Ok(())
    })?;
    e.set_result(0, d);
    Ok(Flow::Next)
}

/// Atomic read-modify-write of one element of global or shared memory; the result is the old
/// value. Operands: the element index, the value, and for `cas` the expected value.
pub static ATOMIC: Def = Def {
    name: "atomic",
    doc:
        "atomic read-modify-write of one element (operands: index, value[, expected for cas]); the old value",
    imms: &[Imm { name: "op", kind: ImmKind::Word(ATOMIC_OPS) }],
    mems: &[MemRule::GlobalMutOrShared],
    vars: 0,
    sig: atomic_sig,
    effects: Effects::WRITE,
    feature: None,
    extra_feature: no_extra,
    ptx_version: (6, 0),
    ptx: atomic_ptx,
    ptx_globals: &[],
    exec: atomic_exec,
};

fn fence_exec(_: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    // A block's warps run on one host thread; wider scopes order against other blocks.
    if call.imm("scope") != 0 {
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    }
    Ok(Flow::Next)
}

/// `membar.{cta,gl,sys}`: orders the thread's memory accesses as seen by the scope.
pub static FENCE: Def = Def {
    name: "fence",
    doc: "orders this thread's memory accesses as seen by its block, the device or the system",
    imms: &[Imm { name: "scope", kind: ImmKind::Word(&["block", "device", "system"]) }],
    mems: &[],
    vars: 0,
    sig: sig_none,
    effects: Effects::SYNC,
    feature: None,
    extra_feature: no_extra,
    ptx_version: (6, 0),
    ptx: |call, _, _| {
        Ok(match call.imm("scope") {
            0 => "membar.cta;",
            1 => "membar.gl;",
            _ => "membar.sys;",
        }
        .to_string())
    },
    ptx_globals: &[],
    exec: fence_exec,
};

/// `fence.proxy.async.shared::cta`: shared memory written by ordinary stores becomes visible to
/// the asynchronous proxy (TMA stores, `wgmma` operands) after a following barrier.
pub static FENCE_PROXY_ASYNC: Def = Def {
    name: "fence.proxy_async",
    doc: "makes this thread's shared-memory writes visible to asynchronous operations (TMA, wgmma)",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: sig_none,
    effects: Effects::SYNC,
    feature: Some(Feature::Tma),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: ptx_text!("fence.proxy.async.shared::cta;"),
    ptx_globals: &[],
    // The executor's asynchronous operations read shared memory when they are issued.
    exec: |_, _| Ok(Flow::Next),
};

/// `fence.mbarrier_init.release.cluster`: makes `mbarrier` initializations visible to the
/// cluster (before other CTAs arrive on them remotely or TMA multicasts complete on them).
pub static FENCE_MBARRIER_INIT: Def = Def {
    name: "fence.mbarrier_init",
    doc: "makes this thread's mbarrier initializations visible to the other CTAs of the cluster",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: sig_none,
    effects: Effects::SYNC,
    feature: Some(Feature::Clusters),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: ptx_text!("fence.mbarrier_init.release.cluster;"),
    ptx_globals: &[],
    exec: |_, _| Ok(Flow::Next),
};

fn shared_addr_sig(_: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    arg_count(c.args, 1)?;
    is_index(c.args, 0)?;
    Ok(Some(U32))
}

fn shared_addr_exec(e: &mut dyn Exec, _: &Call) -> Result<Flow, String> {
    let iv = e.arg(0)[0];
    let ty = e.arg_type(0);
    let mut d = [0u64; 32];
    each_lane(e.active(), |lane| {
        d[lane] = e.shared_addr(0, lane, index_value(ty, iv[lane]))?;
        Ok(())
    })?;
    e.set_result(0, d);
    Ok(Flow::Next)
}

/// The 32-bit shared-window address of an element of shared memory (for matrix descriptors and
/// address arithmetic).
pub static SHARED_ADDR: Def = Def {
    name: "shared_addr",
    doc: "the shared-window byte address of an element of shared memory (a u32)",
    imms: &[],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: shared_addr_sig,
    effects: Effects::PURE,
    feature: None,
    extra_feature: no_extra,
    ptx_version: (6, 0),
    ptx: ptx_text!("mov.u32 $[d], $[saddr0:a0];"),
    ptx_globals: &[],
    exec: shared_addr_exec,
};
