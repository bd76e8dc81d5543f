//! Warp-level intrinsics (shuffles, votes, `elect.sync`) and block- and grid-level barriers
//! beyond `sync_threads` (named barriers, the cooperative grid barrier).

use super::*;

/// The register class of a scalar type in PTX: what a shuffle moves.
fn width(t: ScalarType) -> &'static str {
    match t {
        ScalarType::Bool => "pred",
        ScalarType::F16 | ScalarType::BF16 => "b16",
        t if t.size() == 8 => "b64",
        _ => "b32",
    }
}

fn shfl_sig(_: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    arg_count(c.args, 2)?;
    if !c.args[0].is_scalar() {
        return Err(format!("shuffles move scalars, not {}", c.args[0]));
    }
    if c.args[1] != U32 {
        return Err(format!("the lane operand is {}, expected u32", c.args[1]));
    }
    Ok(Some(c.args[0]))
}

fn shfl_ptx(call: &Call, args: &[Type], _: &Function) -> Result<String, String> {
    let (mode, clamp) = match call.word("mode") {
        "idx" => ("idx", 31),
        "up" => ("up", 0),
        "down" => ("down", 31),
        _ => ("bfly", 31),
    };
    let shfl = |x: &str, y: &str| format!("shfl.sync.{mode}.b32 {y}, {x}, $[a1], {clamp}, -1;");
    Ok(match width(args[0].elem()) {
        "b32" => shfl("$[a0]", "$[d]"),
        "b64" => format!(
            "mov.b64 {{$[t.b32.0], $[t.b32.1]}}, $[a0];\n{}\n{}\nmov.b64 $[d], {{$[t.b32.0], $[t.b32.1]}};",
            shfl("$[t.b32.0]", "$[t.b32.0]"),
            shfl("$[t.b32.1]", "$[t.b32.1]")
        ),
        "b16" => format!(
            "cvt.u32.u16 $[t.b32.0], $[a0];\n{}\ncvt.u16.u32 $[d], $[t.b32.0];",
            shfl("$[t.b32.0]", "$[t.b32.0]")
        ),
        _ => format!(
            "selp.u32 $[t.b32.0], 1, 0, $[a0];\n{}\nsetp.ne.u32 $[d], $[t.b32.0], 0;",
            shfl("$[t.b32.0]", "$[t.b32.0]")
        ),
    })
}

fn shfl_exec(e: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    let (v, l) = (e.arg(0)[0], e.arg(1)[0]);
    let mode = call.imm("mode");
    let mut d = [0; 32];
    for (i, out) in d.iter_mut().enumerate() {
        let b = l[i] as u32 as usize;
        let src = match mode {
            0 => b % 32,
            1 => i.checked_sub(b).unwrap_or(i),
            2 => {
                if i + b < 32 {
                    i + b
                } else {
                    i
                }
            }
            _ => (i ^ b) % 32,
        };
        *out = v[src];
    }
    e.set_result(0, d);
    Ok(Flow::Next)
}

/// `shfl.sync.{idx,up,down,bfly}`: a value from another lane of the (converged) warp.
pub static SHFL: Def = Def {
    name: "shfl",
    doc: "the value of another lane of the warp (idx: lane `l`; up/down: `laneid -/+ l`, own value past the \
          ends; xor: `laneid ^ l`)",
    imms: &[Imm { name: "mode", kind: ImmKind::Word(&["idx", "up", "down", "xor"]) }],
    mems: &[],
    vars: 0,
    sig: shfl_sig,
    effects: Effects::WARP,
    feature: None,
    extra_feature: no_extra,
    ptx_version: (6, 0),
    ptx: shfl_ptx,
    ptx_globals: &[],
    exec: shfl_exec,
};

fn vote_sig(def: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    args_are(c.args, &[BOOL])?;
    Ok(Some(if c.imm(def, "mode") == 2 { U32 } else { BOOL }))
}

fn vote_ptx(call: &Call, _: &[Type], _: &Function) -> Result<String, String> {
    let m = call.word("mode");
    let ty = if m == "ballot" { "b32" } else { "pred" };
    Ok(format!("activemask.b32 $[t.b32.0];\nvote.sync.{m}.{ty} $[d], $[a0], $[t.b32.0];"))
}

fn vote_exec(e: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    let p = e.arg(0)[0];
    let active = e.active();
    let mut ballot = 0u32;
    for (i, x) in p.iter().enumerate() {
        if active >> i & 1 != 0 && x & 1 != 0 {
            ballot |= 1 << i;
        }
    }
    let r = match call.imm("mode") {
        0 => (ballot != 0) as u64,
        1 => (ballot == active) as u64,
        _ => ballot as u64,
    };
    e.set_result(0, [r; 32]);
    Ok(Flow::Next)
}

/// `vote.sync.{any,all,ballot}` over the active lanes.
pub static VOTE: Def = Def {
    name: "vote",
    doc: "whether a predicate holds in any / every active lane, or the ballot of it (bit i: lane i)",
    imms: &[Imm { name: "mode", kind: ImmKind::Word(&["any", "all", "ballot"]) }],
    mems: &[],
    vars: 0,
    sig: vote_sig,
    effects: Effects::PURE,
    feature: None,
    extra_feature: no_extra,
    ptx_version: (6, 0),
    ptx: vote_ptx,
    ptx_globals: &[],
    exec: vote_exec,
};

fn elect_sig(_: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    arg_count(c.args, 0)?;
    Ok(Some(BOOL))
}

fn elect_exec(e: &mut dyn Exec, _: &Call) -> Result<Flow, String> {
    // PTX leaves the choice open; the executor elects the lowest active lane.
    let active = e.active();
    let mut d = [0u64; 32];
    if active != 0 {
        d[active.trailing_zeros() as usize] = 1;
    }
    e.set_result(0, d);
    Ok(Flow::Next)
}

/// `elect.sync`: true in exactly one active lane.
pub static ELECT: Def = Def {
    name: "elect",
    doc: "true in exactly one active lane of the warp (a leader), false in the others",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: elect_sig,
    effects: Effects::PURE,
    feature: Some(Feature::ElectSync),
    extra_feature: no_extra,
    ptx_version: (8, 0),
    ptx: ptx_text!("activemask.b32 $[t.b32.0];\nelect.sync _|$[d], $[t.b32.0];"),
    ptx_globals: &[],
    exec: elect_exec,
};

fn warp_sync_sig(_: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    args_are(c.args, &[U32]).map(|_| None)
}

/// Lanes step together in the executor, so the wait is immediate; what is checked is the
/// protocol: every executing lane is in the mask, and every live lane the mask names is here
/// (a named lane on another path would leave the GPU waiting).
fn warp_sync_exec(e: &mut dyn Exec, _: &Call) -> Result<Flow, String> {
    let mask = uniform(e, &e.arg(0)[0], "the bar.warp.sync mask")? as u32;
    let (active, live) = (e.active(), e.live());
    if active & !mask != 0 {
        return Err(e.fault(&format!(
            "lane {} executes bar.warp.sync with mask {mask:#010x}, which does not name it",
            (active & !mask).trailing_zeros()
        )));
    }
    let missing = mask & live & !active;
    if missing != 0 {
        return Err(e.fault(&format!(
            "bar.warp.sync with mask {mask:#010x} waits for lane {}, which is not at this call (lanes \
             {active:#010x} are)",
            missing.trailing_zeros()
        )));
    }
    Ok(Flow::Next)
}

/// `bar.warp.sync mask`: the named lanes of the warp meet, and their memory accesses before it
/// are ordered before their accesses after it (`__syncwarp`).
pub static WARP_SYNC: Def = Def {
    name: "warp.sync",
    doc: "the lanes of the warp named by the mask wait for each other, ordering their memory accesses \
          (__syncwarp)",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: warp_sync_sig,
    effects: Effects::SYNC,
    feature: None,
    extra_feature: no_extra,
    ptx_version: (6, 0),
    ptx: ptx_text!("bar.warp.sync $[a0];"),
    ptx_globals: &[],
    exec: warp_sync_exec,
};

fn named_barrier_sig(_: &Def, c: &SigCtx) -> Result<Option<Type>, String> {
    args_are(c.args, &[U32, U32]).map(|_| None)
}

fn named_barrier_exec(e: &mut dyn Exec, call: &Call) -> Result<Flow, String> {
    let id = uniform(e, &e.arg(0)[0], "the barrier id")?;
    let threads = uniform(e, &e.arg(1)[0], "the barrier's thread count")?;
    if id >= 16 {
        return Err(e.fault(&format!("named barrier {id} does not exist; ids are 0 to 15")));
    }
    let block = e.block_threads().next_multiple_of(32) as u64;
    if threads == 0 || !threads.is_multiple_of(32) || threads > block {
        return Err(e.fault(&format!(
            "named barrier {id} counts {threads} threads; the count must be a multiple of 32 from 32 to the \
             block's {block}"
        )));
    }
    let wait = Wait::Named { id: id as u32, threads: threads as u32 };
    Ok(if call.imm("kind") == 0 { Flow::Block(wait) } else { Flow::Arrive(wait) })
}

/// `bar.sync id, count` / `bar.arrive id, count`: named barriers among part of a block.
pub static NAMED_BARRIER: Def = Def {
    name: "barrier",
    doc:
        "named barrier `id` (0 to 15) of `count` threads (a multiple of 32): sync arrives and waits, arrive \
          only arrives",
    imms: &[Imm { name: "kind", kind: ImmKind::Word(&["sync", "arrive"]) }],
    mems: &[],
    vars: 0,
    sig: named_barrier_sig,
    effects: Effects::SYNC.converged(Converged::Warp),
    feature: None,
    extra_feature: no_extra,
    ptx_version: (6, 0),
    ptx: |call, _, _| Ok(format!("bar.{} $[a0], $[a1];", call.word("kind"))),
    ptx_globals: &[],
    exec: named_barrier_exec,
};

/// The grid barrier of a cooperative launch, after CUDA's: the block's thread 0 adds 1 (block
/// 0 adds `2^31 - (blocks - 1)`) to a counter, so each complete round flips its top bit, and
/// waits for the flip; the block's barriers around it hold the other threads. The counter is a
/// module variable that starts at zero and returns to its low bits after every round, so
/// launches need no reset (launches of one kernel must not overlap).
const GRID_SYNC_PTX: &str = "bar.sync 0;
mov.u32 $[t.b32.0], %tid.x;
mov.u32 $[t.b32.1], %tid.y;
or.b32 $[t.b32.0], $[t.b32.0], $[t.b32.1];
mov.u32 $[t.b32.1], %tid.z;
or.b32 $[t.b32.0], $[t.b32.0], $[t.b32.1];
setp.ne.u32 $[t.pred.0], $[t.b32.0], 0;
@$[t.pred.0] bra $[l.0];
mov.u32 $[t.b32.0], %ctaid.x;
mov.u32 $[t.b32.1], %ctaid.y;
or.b32 $[t.b32.0], $[t.b32.0], $[t.b32.1];
mov.u32 $[t.b32.1], %ctaid.z;
or.b32 $[t.b32.0], $[t.b32.0], $[t.b32.1];
setp.eq.u32 $[t.pred.1], $[t.b32.0], 0;
mov.u32 $[t.b32.1], %nctaid.x;
mov.u32 $[t.b32.2], %nctaid.y;
mul.lo.u32 $[t.b32.1], $[t.b32.1], $[t.b32.2];
mov.u32 $[t.b32.2], %nctaid.z;
mul.lo.u32 $[t.b32.1], $[t.b32.1], $[t.b32.2];
mov.u32 $[t.b32.2], 0x80000001;
sub.u32 $[t.b32.2], $[t.b32.2], $[t.b32.1];
selp.u32 $[t.b32.2], $[t.b32.2], 1, $[t.pred.1];
fence.acq_rel.gpu;
atom.add.release.gpu.global.u32 $[t.b32.3], [ferrocm_grid_barrier], $[t.b32.2];
$[l.1]:
ld.acquire.gpu.global.u32 $[t.b32.0], [ferrocm_grid_barrier];
xor.b32 $[t.b32.0], $[t.b32.0], $[t.b32.3];
and.b32 $[t.b32.0], $[t.b32.0], 0x80000000;
setp.eq.u32 $[t.pred.0], $[t.b32.0], 0;
@$[t.pred.0] bra $[l.1];
$[l.0]:
bar.sync 0;";

/// `grid.sync`: every thread of a cooperative launch arrives before any goes on.
pub static GRID_SYNC: Def = Def {
    name: "grid.sync",
    doc: "grid-wide barrier of a cooperative launch (every block is resident): every thread of the grid \
          arrives before any goes on",
    imms: &[],
    mems: &[],
    vars: 0,
    sig: sig_none,
    effects: Effects::SYNC.converged(Converged::Warp),
    feature: None,
    extra_feature: no_extra,
    ptx_version: (7, 0),
    ptx: ptx_text!(GRID_SYNC_PTX),
    ptx_globals: &[".global .align 4 .u32 ferrocm_grid_barrier;"],
    exec: |_, _| Ok(Flow::Block(Wait::Grid)),
};
