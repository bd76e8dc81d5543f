//! Asynchronous copies: `cp.async` (sm_80) with its commit and wait groups, and the bulk-group
//! commit and wait of TMA stores (sm_90).
//!
//! The executor completes each copy when it is issued, which is one valid schedule; waits have
//! nothing left to wait for.

use super::*;

fn cp_async_sig(def: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    let bytes = c.imm(def, "bytes");
    let (d, s) = (&c.mems[0], &c.mems[1]);
    if ![4, 8, 16].contains(&bytes) {
        return Err(format!("copies 4, 8 or 16 bytes, not {bytes}"));
    }
    if d.elem != s.elem {
        return Err(format!("`{}` holds {} but `{}` holds {}", s.name, s.elem, d.name, d.elem));
    }
    if bytes % d.elem.size() as i64 != 0 {
        return Err(format!("{bytes} bytes is not a whole number of {} elements", d.elem));
    }
    arg_count(c.args, 2)?;
    is_index(c.args, 0)?;
    is_index(c.args, 1)?;
    Ok(None)
}

fn cp_async_exec(e: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    let n = call.imm("bytes") as i128 / e.func().mem(call.mems[0]).elem.size() as i128;
    let (dv, sv) = (e.arg(0)[0], e.arg(1)[0]);
    let (dt, st) = (e.arg_type(0), e.arg_type(1));
    each_lane(e.active(), |lane| {
        let (di, si) = (index_value(dt, dv[lane]), index_value(st, sv[lane]));
        for (m, i) in [(0, di), (1, si)] {
            if i % n != 0 {
                return Err(e.fault(&format!(
                    "cp.async index {i} of `{}` (lane {lane}) is not aligned to the {n}-element copy",
                    e.func().mem(call.mems[m]).name
                )));
            }
        }
        // Read the whole source first, so a bad destination index leaves nothing half copied.
        let mut v = [0u64; 16];
        for k in 0..n as usize {
            v[k] = e.read(1, lane, si + k as i128)?;
        }
        for (k, &x) in v.iter().enumerate().take(n as usize) {
            e.write(0, lane, di + k as i128, x)?;
        }
        Ok(())
    })?;
    Ok(Flow::Next)
}

/// `cp.async.{ca,cg}.shared.global`: copies 4, 8 or 16 bytes from global memory (element index
/// operand 1) to shared memory (element index operand 0), both aligned to the copy.
pub static CP_ASYNC: Def = Def {
    name: "cp_async",
    doc: "asynchronous copy of 4, 8 or 16 bytes from global to shared memory (operands: destination and \
          source element indices); complete after a cp_async.wait covering its group",
    imms: &[Imm { name: "bytes", kind: ImmKind::Num { prefix: "", min: 0, max: u32::MAX as i64 } }],
    mems: &[MemRule::Shared, MemRule::Global],
    vars: 0,
    sig: cp_async_sig,
    effects: Effects::WRITE,
    feature: Some(Feature::CpAsync),
    extra_feature: no_extra,
    ptx_version: (7, 0),
    ptx: |call, _, _| {
        let cache = if call.imm("bytes") == 16 { "cg" } else { "ca" };
        Ok(format!("cp.async.{cache}.shared.global [$[saddr0:a0]], [$[addr1:a1]], $[i.bytes];"))
    },
    ptx_globals: &[],
    exec: cp_async_exec,
};

/// `cp.async.commit_group`.
pub static CP_ASYNC_COMMIT: Def = Def {
    name: "cp_async.commit",
    doc: "closes the group of cp.async copies issued since the last commit",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: sig_none,
    effects: Effects::SYNC,
    feature: Some(Feature::CpAsync),
    extra_feature: no_extra,
    ptx_version: (7, 0),
    ptx: ptx_text!("cp.async.commit_group;"),
    ptx_globals: &[],
    exec: |_, _| Ok(Flow::Next),
};

/// `cp.async.wait_group N`.
pub static CP_ASYNC_WAIT: Def = Def {
    name: "cp_async.wait",
    doc: "waits until at most N committed cp.async groups of this thread are pending",
    imms: &[Imm { name: "pending", kind: ImmKind::Num { prefix: "", min: 0, max: 63 } }],
    mems: &[],
    vars: 0,
    sig: sig_none,
    effects: Effects::SYNC,
    feature: Some(Feature::CpAsync),
    extra_feature: no_extra,
    ptx_version: (7, 0),
    ptx: ptx_text!("cp.async.wait_group $[i.pending];"),
    ptx_globals: &[],
    exec: |_, _| Ok(Flow::Next),
};

/// `cp.async.bulk.commit_group`: closes the bulk group of TMA stores issued since the last one.
pub static BULK_COMMIT: Def = Def {
    name: "bulk.commit",
    doc: "closes the bulk group of TMA stores issued since the last commit",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: sig_none,
    effects: Effects::SYNC,
    feature: Some(Feature::Tma),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: ptx_text!("cp.async.bulk.commit_group;"),
    ptx_globals: &[],
    exec: |_, _| Ok(Flow::Next),
};

/// `cp.async.bulk.wait_group[.read] N`.
pub static BULK_WAIT: Def = Def {
    name: "bulk.wait",
    doc: "waits until at most N bulk groups of this thread are pending (read: until their sources have been \
          read, so shared memory may be reused)",
    imms: &[
        Imm { name: "pending", kind: ImmKind::Num { prefix: "", min: 0, max: 63 } },
        Imm { name: "read", kind: ImmKind::Flag("read") },
    ],
    mems: &[],
    vars: 0,
    sig: sig_none,
    effects: Effects::SYNC,
    feature: Some(Feature::Tma),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: |call, _, _| {
        let read = if call.imm("read") != 0 { ".read" } else { "" };
        Ok(format!("cp.async.bulk.wait_group{read} $[i.pending];"))
    },
    ptx_globals: &[],
    exec: |_, _| Ok(Flow::Next),
};
