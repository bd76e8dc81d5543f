//! `mbarrier` objects: 64-bit barriers in shared memory with a phase, an expected arrival count
//! and a transaction (byte) count. A phase completes when its arrivals and its expected bytes are
//! all in; waiters test the parity of the phase they wait for.
//!
//! The operand is an element of a `u64` shared array: memory operand 0 and the element index in
//! value operand 0. The executor keeps each barrier's state and reports misuse (use before
//! `init`, a wait nobody can complete, a thread arriving twice in one phase) as errors naming
//! the barrier and the warp.

use super::*;

fn mbar_sig(c: &SigCtx, rest: &[Type], result: Option<Type>) -> Result<Option<Type>, String> {
    let m = &c.mems[0];
    if m.elem != ScalarType::U64 {
        return Err(format!("mbarriers are u64 elements, but `{}` holds {}", m.name, m.elem));
    }
    arg_count(c.args, 1 + rest.len())?;
    is_index(c.args, 0)?;
    args_are(&c.args[1..], rest)?;
    Ok(result)
}

/// The barrier each active lane names: its shared address, by lane.
fn addresses(e: &mut dyn Exec) -> Result<[u64; 32], String> {
    let (iv, ty) = (e.arg(0)[0], e.arg_type(0));
    let mut a = [0u64; 32];
    each_lane(e.active(), |lane| {
        a[lane] = e.shared_addr(0, lane, index_value(ty, iv[lane]))?;
        Ok(())
    })?;
    Ok(a)
}

/// Applies `op(lane)` to each active lane's barrier in CTA `rank(lane)`, one lane at a time.
fn per_lane(
    e: &mut dyn Exec,
    rank: impl Fn(&dyn Exec, usize) -> u32,
    op: impl Fn(&dyn Exec, usize) -> MbarrierOp,
) -> Result<Flow, String> {
    let a = addresses(e)?;
    each_lane(e.active(), |lane| {
        let (r, o) = (rank(e, lane), op(e, lane));
        e.mbarrier(r, a[lane], o, lane)
    })?;
    Ok(Flow::Next)
}

fn own(e: &dyn Exec, _: usize) -> u32 {
    e.cta_rank()
}

fn arg1(e: &dyn Exec, lane: usize) -> u32 {
    e.arg(1)[0][lane] as u32
}

/// `mbarrier.init.shared.b64 [addr], count`.
pub static INIT: Def = Def {
    name: "mbarrier.init",
    doc: "initializes an mbarrier: phase 0, `count` arrivals (1 to 2^20 - 1) complete each phase",
    imms: &[],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: |_, c| mbar_sig(c, &[U32], None),
    effects: Effects::SYNC,
    feature: Some(Feature::Mbarrier),
    extra_feature: no_extra,
    ptx_version: (7, 0),
    ptx: ptx_text!("mbarrier.init.shared.b64 [$[saddr0:a0]], $[a1];"),
    ptx_globals: &[],
    exec: |e, _| per_lane(e, own, |e, lane| MbarrierOp::Init { count: arg1(e, lane) }),
};

/// `mbarrier.arrive.shared.b64`.
pub static ARRIVE: Def = Def {
    name: "mbarrier.arrive",
    doc: "one arrival on an mbarrier per thread that executes it",
    imms: &[],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: |_, c| mbar_sig(c, &[], None),
    effects: Effects::SYNC,
    feature: Some(Feature::Mbarrier),
    extra_feature: no_extra,
    ptx_version: (7, 0),
    ptx: ptx_text!("mbarrier.arrive.shared.b64 $[t.b64.0], [$[saddr0:a0]];"),
    ptx_globals: &[],
    exec: |e, _| per_lane(e, own, |_, _| MbarrierOp::Arrive { expect_tx: 0 }),
};

/// `mbarrier.arrive.expect_tx.shared::cta.b64`.
pub static ARRIVE_EXPECT_TX: Def = Def {
    name: "mbarrier.arrive_expect_tx",
    doc: "raises the bytes an mbarrier's current phase waits for, then arrives (the producer of a TMA copy)",
    imms: &[],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: |_, c| mbar_sig(c, &[U32], None),
    effects: Effects::SYNC,
    feature: Some(Feature::Tma),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: ptx_text!("mbarrier.arrive.expect_tx.shared::cta.b64 $[t.b64.0], [$[saddr0:a0]], $[a1];"),
    ptx_globals: &[],
    exec: |e, _| per_lane(e, own, |e, lane| MbarrierOp::Arrive { expect_tx: arg1(e, lane) }),
};

/// `mbarrier.expect_tx.relaxed.cta.shared::cta.b64`.
pub static EXPECT_TX: Def = Def {
    name: "mbarrier.expect_tx",
    doc: "raises the bytes an mbarrier's current phase waits for, without arriving",
    imms: &[],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: |_, c| mbar_sig(c, &[U32], None),
    effects: Effects::SYNC,
    feature: Some(Feature::Tma),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: ptx_text!("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [$[saddr0:a0]], $[a1];"),
    ptx_globals: &[],
    exec: |e, _| per_lane(e, own, |e, lane| MbarrierOp::ExpectTx { bytes: arg1(e, lane) }),
};

fn wait_exec(e: &mut dyn Exec, _: &Call) -> Result<Flow, String> {
    let a = addresses(e)?;
    let pv = e.arg(1)[0];
    let rank = e.cta_rank();
    let mut d = [0u64; 32];
    let mut blocked = None;
    each_lane(e.active(), |lane| {
        let parity = pv[lane] as u32 & 1;
        if e.mbarrier_done(rank, a[lane], parity)? {
            d[lane] = 1;
        } else if blocked.is_none() {
            blocked = Some(Wait::Mbarrier { rank, addr: a[lane], parity });
        }
        Ok(())
    })?;
    // A waiting thread is suspended until the phase completes (one valid schedule of a
    // potentially blocking wait), so the result the kernel sees is always true.
    if let Some(w) = blocked {
        return Ok(Flow::Retry(w));
    }
    e.set_result(0, d);
    Ok(Flow::Next)
}

/// `mbarrier.try_wait.parity.shared::cta.b64`.
pub static TRY_WAIT: Def = Def {
    name: "mbarrier.try_wait",
    doc: "whether the phase of the given parity (0 or 1) has completed, waiting a while for it (sm_90)",
    imms: &[],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: |_, c| mbar_sig(c, &[U32], Some(BOOL)),
    effects: Effects::SYNC,
    feature: Some(Feature::Tma),
    extra_feature: no_extra,
    ptx_version: (7, 8),
    ptx: ptx_text!("mbarrier.try_wait.parity.shared::cta.b64 $[d], [$[saddr0:a0]], $[a1];"),
    ptx_globals: &[],
    exec: wait_exec,
};

/// `mbarrier.test_wait.parity.shared.b64` (sm_80): the non-blocking test.
pub static TEST_WAIT: Def = Def {
    name: "mbarrier.test_wait",
    doc: "whether the phase of the given parity (0 or 1) has completed (sm_80)",
    imms: &[],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: |_, c| mbar_sig(c, &[U32], Some(BOOL)),
    effects: Effects::SYNC,
    feature: Some(Feature::Mbarrier),
    extra_feature: no_extra,
    ptx_version: (7, 1),
    ptx: ptx_text!("mbarrier.test_wait.parity.shared.b64 $[d], [$[saddr0:a0]], $[a1];"),
    ptx_globals: &[],
    exec: wait_exec,
};

/// `mapa` then `mbarrier.arrive.release.cluster.shared::cluster.b64`: an arrival on the barrier at
/// the same place in the shared memory of the cluster's CTA `rank`.
pub static ARRIVE_REMOTE: Def = Def {
    name: "mbarrier.arrive_remote",
    doc: "one arrival on the mbarrier at the same place in the shared memory of the cluster's CTA `rank`",
    imms: &[],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: |_, c| mbar_sig(c, &[U32], None),
    effects: Effects::SYNC,
    feature: Some(Feature::Clusters),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: ptx_text!(
        "mapa.shared::cluster.u32 $[t.b32.0], $[saddr0:a0], $[a1];\n\
         mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$[t.b32.0]];"
    ),
    ptx_globals: &[],
    exec: |e, _| per_lane(e, arg1, |_, _| MbarrierOp::Arrive { expect_tx: 0 }),
};
