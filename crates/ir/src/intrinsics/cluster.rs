//! Thread-block clusters (sm_90): the cluster barrier and distributed shared memory (loads and
//! stores to the shared memory of another CTA of the cluster, through `mapa`). The cluster's
//! special registers are core [`Special`] values.

use super::*;

/// `barrier.cluster.arrive.release`.
pub static ARRIVE: Def = Def {
    name: "cluster.arrive",
    doc: "arrives at the cluster barrier (release: earlier memory accesses are visible to the cluster's \
          threads after their wait)",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: sig_none,
    effects: Effects::SYNC.converged(Converged::Warp),
    feature: Some(Feature::Clusters),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: ptx_text!("barrier.cluster.arrive.release.aligned;"),
    ptx_globals: &[],
    exec: |_, _| Ok(Flow::Arrive(Wait::Cluster)),
};

/// `barrier.cluster.wait.acquire`.
pub static WAIT: Def = Def {
    name: "cluster.wait",
    doc: "waits until every thread of the cluster has arrived at the cluster barrier (after this thread's \
          own arrival)",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: sig_none,
    effects: Effects::SYNC.converged(Converged::Warp),
    feature: Some(Feature::Clusters),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: ptx_text!("barrier.cluster.wait.acquire.aligned;"),
    ptx_globals: &[],
    exec: |_, _| Ok(Flow::Block(Wait::Cluster)),
};

fn dsmem_sig(c: &SigCtx, store: bool) -> Result<Option<Type>, String> {
    let elem: Type = c.mems[0].elem.into();
    arg_count(c.args, 2 + store as usize)?;
    is_index(c.args, 0)?;
    if c.args[1] != U32 {
        return Err(format!("the CTA rank is {}, expected u32", c.args[1]));
    }
    if store {
        if c.args[2] != elem {
            return Err(format!("the stored value is {}, expected {elem}", c.args[2]));
        }
        return Ok(None);
    }
    Ok(Some(elem))
}

fn dsmem_ptx(store: bool, call: &Call, f: &Function) -> String {
    let map = "mapa.shared::cluster.u32 $[t.b32.0], $[saddr0:a0], $[a1];";
    // Bools are bytes in memory and predicates in registers.
    let is_bool = f.mems.get(call.mems[0].0 as usize).is_some_and(|m| m.elem == ScalarType::Bool);
    match (store, is_bool) {
        (true, true) => {
            format!(
                "{map}\nselp.u32 $[t.b32.1], 1, 0, $[a2];\nst.shared::cluster.u8 [$[t.b32.0]], $[t.b32.1];"
            )
        }
        (false, true) => {
            format!(
                "{map}\nld.shared::cluster.u8 $[t.b32.1], [$[t.b32.0]];\nsetp.ne.u32 $[d], $[t.b32.1], 0;"
            )
        }
        (true, false) => format!("{map}\nst.shared::cluster.$[mty0] [$[t.b32.0]], $[a2];"),
        (false, false) => format!("{map}\nld.shared::cluster.$[mty0] $[d], [$[t.b32.0]];"),
    }
}

/// A lane's CTA rank operand, checked against the size of its cluster.
fn lane_rank(
    e: &dyn Exec,
    value: u64,
    lane: usize,
    size_of_cluster: u32,
    array: &str,
) -> Result<u32, String> {
    let rank = value as u32;
    if rank >= size_of_cluster {
        return Err(e.fault(&format!(
            "CTA rank {rank} (lane {lane}) is outside the cluster of {size_of_cluster} for `{array}`"
        )));
    }
    Ok(rank)
}

fn dsmem_exec(e: &mut dyn Exec, call: &Call, store: bool) -> Result<Flow, String> {
    let (iv, rv) = (e.arg(0)[0], e.arg(1)[0]);
    let vv = if store { e.arg(2)[0] } else { [0; 32] };
    let ty = e.arg_type(0);
    let m = e.func().mem(call.mems[0]).clone();
    let (size, is_bool) = (m.elem.size(), m.elem == ScalarType::Bool);
    let size_of_cluster = e.cluster_size();
    let mut d = [0u64; 32];
    each_lane(e.active(), |lane| {
        let rank = lane_rank(e, rv[lane], lane, size_of_cluster, &m.name)?;
        // The array has the same place in every CTA of the cluster.
        let addr = e.shared_addr(0, lane, index_value(ty, iv[lane]))?;
        if store {
            e.shared_write(rank, addr, size, if is_bool { vv[lane] & 1 } else { vv[lane] })
        } else {
            let v = e.shared_read(rank, addr, size)?;
            d[lane] = if is_bool { (v != 0) as u64 } else { v };
            Ok(())
        }
    })?;
    if !store {
        e.set_result(0, d);
    }
    Ok(Flow::Next)
}

/// `mapa` then `ld.shared::cluster`: an element of the same array in CTA `rank`'s shared memory.
pub static DSMEM_LOAD: Def = Def {
    name: "dsmem.load",
    doc:
        "loads an element (operands: index, CTA rank) of the same shared array in another CTA of the cluster",
    imms: &[],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: |_, c| dsmem_sig(c, false),
    effects: Effects::READ,
    feature: Some(Feature::Clusters),
    extra_feature: no_extra,
    ptx_version: (7, 8),
    ptx: |call, _, f| Ok(dsmem_ptx(false, call, f)),
    ptx_globals: &[],
    exec: |e, c| dsmem_exec(e, c, false),
};

/// `mapa` then `st.shared::cluster`.
pub static DSMEM_STORE: Def = Def {
    name: "dsmem.store",
    doc:
        "stores an element (operands: index, CTA rank, value) of the same shared array in another CTA of the \
          cluster",
    imms: &[],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: |_, c| dsmem_sig(c, true),
    effects: Effects::WRITE,
    feature: Some(Feature::Clusters),
    extra_feature: no_extra,
    ptx_version: (7, 8),
    ptx: |call, _, f| Ok(dsmem_ptx(true, call, f)),
    ptx_globals: &[],
    exec: |e, c| dsmem_exec(e, c, true),
};

fn dsmem_load2_sig(c: &SigCtx) -> Result<Option<Type>, String> {
    let elem = c.mems[0].elem;
    if elem == ScalarType::Bool {
        return Err(format!("loads pairs of numbers, but `{}` holds bools", c.mems[0].name));
    }
    // The operands are `dsmem.load`'s.
    dsmem_sig(c, false)?;
    Ok(Some(Type::Vector(elem, 2)))
}

/// The CTA rank and shared address of lane `lane`'s 2-element access (`dsmem.load2`,
/// `dsmem.store2`): operand 0 the even element index, operand 1 the rank.
fn pair_access(e: &mut dyn Exec, call: &Call, lane: usize) -> Result<(u32, u64), String> {
    let (iv, rv) = (e.arg(0)[0], e.arg(1)[0]);
    let name = e.func().mem(call.mems[0]).name.clone();
    let size_of_cluster = e.cluster_size();
    let rank = lane_rank(e, rv[lane], lane, size_of_cluster, &name)?;
    let index = index_value(e.arg_type(0), iv[lane]);
    if index % 2 != 0 {
        return Err(e.fault(&format!(
            "a 2-element access to `{name}` at element {index}, which is not a multiple of 2"
        )));
    }
    Ok((rank, e.shared_addr(0, lane, index)?))
}

fn dsmem_load2_exec(e: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    let size = e.func().mem(call.mems[0]).elem.size();
    let (mut d0, mut d1) = ([0u64; 32], [0u64; 32]);
    each_lane(e.active(), |lane| {
        let (rank, addr) = pair_access(e, call, lane)?;
        d0[lane] = e.shared_read(rank, addr, size)?;
        d1[lane] = e.shared_read(rank, addr + size as u64, size)?;
        Ok(())
    })?;
    e.set_result(0, d0);
    e.set_result(1, d1);
    Ok(Flow::Next)
}

/// `mapa` then `ld.shared::cluster.v2`: two adjacent elements (from an even index) of the same
/// array in CTA `rank`'s shared memory.
pub static DSMEM_LOAD2: Def = Def {
    name: "dsmem.load2",
    doc: "loads elements `i` and `i + 1` (operands: index `i`, even; CTA rank) of the same shared array in \
          another CTA of the cluster, in one access",
    imms: &[],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: |_, c| dsmem_load2_sig(c),
    effects: Effects::READ,
    feature: Some(Feature::Clusters),
    extra_feature: no_extra,
    ptx_version: (7, 8),
    ptx: |_, _, _| {
        Ok("mapa.shared::cluster.u32 $[t.b32.0], $[saddr0:a0], $[a1];\nld.shared::cluster.v2.$[mty0] $[d], [$[t.b32.0]];"
            .into())
    },
    ptx_globals: &[],
    exec: dsmem_load2_exec,
};

fn dsmem_store2_sig(c: &SigCtx) -> Result<Option<Type>, String> {
    let elem = c.mems[0].elem;
    if elem == ScalarType::Bool {
        return Err(format!("stores pairs of numbers, but `{}` holds bools", c.mems[0].name));
    }
    arg_count(c.args, 3)?;
    // The index and rank are `dsmem.load`'s.
    dsmem_sig(&SigCtx { args: &c.args[..2], ..*c }, false)?;
    if c.args[2] != Type::Vector(elem, 2) {
        return Err(format!("the stored value is {}, expected {}", c.args[2], Type::Vector(elem, 2)));
    }
    Ok(None)
}

fn dsmem_store2_exec(e: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    let (v0, v1) = (e.arg(2)[0], e.arg(2)[1]);
    let size = e.func().mem(call.mems[0]).elem.size();
    each_lane(e.active(), |lane| {
        let (rank, addr) = pair_access(e, call, lane)?;
        e.shared_write(rank, addr, size, v0[lane])?;
        e.shared_write(rank, addr + size as u64, size, v1[lane])
    })?;
    Ok(Flow::Next)
}

/// `mapa` then `st.shared::cluster.v2`: two adjacent elements (from an even index) of the same
/// array in CTA `rank`'s shared memory.
pub static DSMEM_STORE2: Def = Def {
    name: "dsmem.store2",
    doc: "stores elements `i` and `i + 1` (operands: index `i`, even; CTA rank; a 2-vector) of the same \
          shared array in another CTA of the cluster, in one access",
    imms: &[],
    mems: &[MemRule::Shared],
    vars: 0,
    sig: |_, c| dsmem_store2_sig(c),
    effects: Effects::WRITE,
    feature: Some(Feature::Clusters),
    extra_feature: no_extra,
    ptx_version: (7, 8),
    ptx: |_, _, _| {
        Ok("mapa.shared::cluster.u32 $[t.b32.0], $[saddr0:a0], $[a1];\nst.shared::cluster.v2.$[mty0] [$[t.b32.0]], $[a2];"
            .into())
    },
    ptx_globals: &[],
    exec: dsmem_store2_exec,
};
