//! Scheduling a group of co-resident blocks: one block, the blocks of a cluster, or every block
//! of a cooperative grid. Warps run round-robin on one host thread until they finish or wait:
//! at a block barrier (`sync_threads`, named barriers), the cluster barrier, the grid barrier, or
//! an `mbarrier` phase. A barrier releases its warps when its count is complete; an `mbarrier`
//! waiter runs again once the phase it waits for has completed. When no warp can move and some
//! have not finished, the launch fails with a message naming each waiting warp and what it waits
//! for (a hang on the GPU).

use std::collections::{HashMap, HashSet};

use ferrocm_ir::intrinsics::Wait;

use crate::lanes::Lanes;
use crate::launch::Launch;
use crate::memory::zeroed;

/// Where a warp is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Ready,
    Done,
    /// Waits for block barrier `id` to release.
    Named(u32),
    /// Waits for the cluster barrier's phase it arrived in.
    Cluster,
    /// Waits at the grid barrier.
    Grid,
    /// Waits for an `mbarrier` phase (and then runs the waiting instruction again).
    Mbarrier {
        rank: u32,
        addr: u64,
        parity: u32,
    },
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Frame {
    If { outer: u32, else_mask: u32 },
    Loop { outer: u32, brk: u32, cont: u32 },
}

pub(crate) struct Warp {
    pub id: u32,
    /// Thread coordinates (x, y, z) of each lane.
    pub coords: [[u32; 32]; 3],
    pub pc: usize,
    pub active: u32,
    pub gone: u32,
    pub live: u32,
    pub frames: Vec<Frame>,
    pub regs: Vec<Lanes>,
    pub local: Vec<u64>,
    pub state: State,
    /// The cluster-barrier phase this warp arrived in and has not waited for yet.
    pub cluster_arrived: Option<u64>,
}

impl Warp {
    pub fn placeholder() -> Warp {
        Warp {
            id: u32::MAX,
            coords: [[0; 32]; 3],
            pc: 0,
            active: 0,
            gone: 0,
            live: 0,
            frames: Vec::new(),
            regs: Vec::new(),
            local: Vec::new(),
            state: State::Done,
            cluster_arrived: None,
        }
    }
}

/// Why a warp stopped running.
pub(crate) enum Stop {
    Done,
    /// `sync_threads` at instruction `pc`.
    SyncThreads {
        pc: usize,
    },
    /// Arrive and go on.
    Arrive(Wait),
    /// Arrive (named and grid barriers) or wait (cluster barrier), until released.
    Block(Wait),
    /// Wait, then run the instruction again.
    Retry(Wait),
}

/// A block barrier (`bar.sync`/`bar.arrive` id): warps expected and arrived in this round.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Bar {
    expected: u32,
    arrived: u32,
    /// The instruction of the `sync_threads` warps wait at (they must all wait at one).
    sync_pc: Option<usize>,
}

pub(crate) struct BlockState {
    pub coords: (u32, u32, u32),
    /// Rank within its cluster.
    pub rank: u32,
    /// Index in the group of the cluster's rank-0 block.
    pub cluster_base: usize,
    /// Which of the group's clusters the block is in.
    pub cluster: usize,
    pub shared: Vec<u64>,
    pub warps: Vec<Warp>,
    bars: [Bar; 16],
}

/// An `mbarrier`'s state.
#[derive(Debug)]
pub(crate) struct Mbar {
    /// The barrier's name (`@full[1]`) for messages.
    pub name: String,
    pub expected: u32,
    pub pending: u32,
    /// Phases completed so far; the current phase's parity is `phase & 1`.
    pub phase: u64,
    pub tx: i64,
    /// Threads (block, warp, lane) that arrived in the current phase.
    pub arrived: HashSet<(usize, u32, u32)>,
}

/// The state of one group of co-resident blocks, reused from group to group on a host thread.
#[derive(Default)]
pub(crate) struct GroupState {
    pub blocks: Vec<BlockState>,
    /// By (block in group, shared address).
    pub mbars: HashMap<(usize, u64), Mbar>,
    /// Completed phases of each cluster's barrier.
    pub cluster_phase: Vec<u64>,
}

impl GroupState {
    /// Sets up the blocks `ids` (linear block ids, clusters contiguous and ordered by rank).
    fn prepare(&mut self, l: &Launch, ids: &[u64]) -> Result<(), String> {
        let nwarps = l.nwarps as usize;
        let nregs = l.k.prog.nregs as usize;
        let local_words = (l.k.local_bytes as usize / 8) * 32;
        let name = &l.k.func.name;
        self.blocks.truncate(ids.len());
        self.mbars.clear();
        let csize = l.cluster.volume() as usize;
        self.cluster_phase.clear();
        self.cluster_phase.resize(ids.len().div_ceil(csize), 0);
        for (gi, &id) in ids.iter().enumerate() {
            let coords = l.block_coords(id);
            let rank = l.cluster_rank(coords);
            if gi == self.blocks.len() {
                self.blocks.push(BlockState {
                    coords,
                    rank,
                    cluster_base: 0,
                    cluster: 0,
                    shared: Vec::new(),
                    warps: Vec::new(),
                    bars: [Bar::default(); 16],
                });
            }
            let b = &mut self.blocks[gi];
            b.coords = coords;
            b.rank = rank;
            b.cluster_base = gi - rank as usize;
            b.cluster = gi / csize;
            b.bars = [Bar::default(); 16];
            zeroed(&mut b.shared, l.shared_words, "shared memory", name)?;
            b.warps.truncate(nwarps);
            for id in 0..nwarps as u32 {
                let threads = (l.block_threads - id * 32).min(32);
                let live = if threads == 32 { !0 } else { (1u32 << threads) - 1 };
                if id as usize == b.warps.len() {
                    b.warps.push(Warp::placeholder());
                }
                let w = &mut b.warps[id as usize];
                w.id = id;
                w.coords = l.coords[id as usize];
                w.pc = 0;
                w.active = live;
                w.gone = 0;
                w.live = live;
                w.frames.clear();
                w.state = State::Ready;
                w.cluster_arrived = None;
                // Registers need no clearing: every value and variable is written before it is
                // read (values by construction, variables by their `let mut` initializer).
                if w.regs.len() != nregs {
                    zeroed(&mut w.regs, nregs, "registers", name)?;
                }
                zeroed(&mut w.local, local_words, "local memory", name)?;
            }
        }
        Ok(())
    }
}

/// Runs the blocks `ids` as one co-resident group to completion.
pub(crate) fn run_group(l: &Launch, ids: &[u64], gs: &mut GroupState) -> Result<(), String> {
    gs.prepare(l, ids)?;
    loop {
        let mut progress = false;
        let mut all_done = true;
        for bi in 0..gs.blocks.len() {
            for wi in 0..gs.blocks[bi].warps.len() {
                match gs.blocks[bi].warps[wi].state {
                    State::Done => continue,
                    State::Ready => {}
                    State::Mbarrier { rank, addr, parity } => {
                        all_done = false;
                        if !mbar_done(l, gs, bi, rank, addr, parity)? {
                            continue;
                        }
                        gs.blocks[bi].warps[wi].state = State::Ready;
                    }
                    _ => {
                        all_done = false;
                        continue;
                    }
                }
                all_done = false;
                progress = true;
                run_until_stopped(l, gs, bi, wi)?;
            }
        }
        if all_done {
            return finish(l, gs);
        }
        if !progress {
            return Err(deadlock(l, gs));
        }
        l.check_deadline()?;
    }
}

/// Runs one warp until it finishes or waits, registering its barrier arrivals.
fn run_until_stopped(l: &Launch, gs: &mut GroupState, bi: usize, wi: usize) -> Result<(), String> {
    loop {
        let mut w = std::mem::replace(&mut gs.blocks[bi].warps[wi], Warp::placeholder());
        let stop = crate::warp::run_warp(l, gs, bi, &mut w);
        gs.blocks[bi].warps[wi] = w;
        let name = &l.k.func.name;
        let blk = gs.blocks[bi].coords;
        match stop? {
            Stop::Done => {
                gs.blocks[bi].warps[wi].state = State::Done;
                return Ok(());
            }
            Stop::SyncThreads { pc } => {
                let bar = &mut gs.blocks[bi].bars[0];
                if let Some(p) = bar.sync_pc {
                    if p != pc {
                        return Err(format!(
                            "kernel `{name}`: warps of block {blk:?} wait at different sync_threads() calls \
                             (instructions {p} and {pc}): a barrier inside divergent control flow"
                        ));
                    }
                }
                bar.sync_pc = Some(pc);
                arrive_named(l, gs, bi, wi, 0, l.nwarps, true)?;
                return Ok(());
            }
            Stop::Arrive(Wait::Named { id, threads }) => {
                arrive_named(l, gs, bi, wi, id, threads / 32, false)?
            }
            Stop::Block(Wait::Named { id, threads }) => {
                arrive_named(l, gs, bi, wi, id, threads / 32, true)?;
                return Ok(());
            }
            Stop::Arrive(Wait::Cluster) => {
                let c = gs.blocks[bi].cluster;
                let phase = gs.cluster_phase[c];
                let w = &mut gs.blocks[bi].warps[wi];
                if w.cluster_arrived == Some(phase) {
                    return Err(format!(
                        "kernel `{name}`: warp {wi} of block {blk:?} arrives at the cluster barrier twice without \
                         waiting"
                    ));
                }
                w.cluster_arrived = Some(phase);
                release_cluster(gs, c);
            }
            Stop::Block(Wait::Cluster) => {
                let c = gs.blocks[bi].cluster;
                let phase = gs.cluster_phase[c];
                let w = &mut gs.blocks[bi].warps[wi];
                match w.cluster_arrived {
                    None => {
                        return Err(format!(
                        "kernel `{name}`: warp {wi} of block {blk:?} waits at the cluster barrier without \
                             arriving first"
                    ))
                    }
                    // Its phase already completed: go on.
                    Some(p) if p < phase => w.cluster_arrived = None,
                    Some(_) => {
                        w.state = State::Cluster;
                        return Ok(());
                    }
                }
            }
            Stop::Block(Wait::Grid) => {
                if !l.cooperative {
                    return Err(format!(
                        "kernel `{name}`: grid_sync() in a launch that is not cooperative (launch it with \
                         LaunchConfig::cooperative)"
                    ));
                }
                gs.blocks[bi].warps[wi].state = State::Grid;
                release_grid(l, gs)?;
                return Ok(());
            }
            Stop::Retry(Wait::Mbarrier { rank, addr, parity }) => {
                gs.blocks[bi].warps[wi].state = State::Mbarrier { rank, addr, parity };
                return Ok(());
            }
            Stop::Arrive(w) | Stop::Block(w) | Stop::Retry(w) => {
                return Err(format!("kernel `{name}`: the executor cannot wait for {w:?} that way"));
            }
        }
    }
}

/// Warp `wi` arrives at block barrier `id`, which completes when `warps` warps have arrived.
fn arrive_named(
    l: &Launch,
    gs: &mut GroupState,
    bi: usize,
    wi: usize,
    id: u32,
    warps: u32,
    wait: bool,
) -> Result<(), String> {
    let b = &mut gs.blocks[bi];
    let bar = &mut b.bars[id as usize];
    if bar.expected == 0 {
        bar.expected = warps;
    } else if bar.expected != warps {
        return Err(format!(
            "kernel `{}`: barrier {id} of block {:?} is used with {} and {} threads at once",
            l.k.func.name,
            b.coords,
            bar.expected * 32,
            warps * 32
        ));
    }
    bar.arrived += 1;
    if wait {
        b.warps[wi].state = State::Named(id);
    }
    if bar.arrived >= bar.expected {
        *bar = Bar::default();
        for w in &mut b.warps {
            if w.state == State::Named(id) {
                w.state = State::Ready;
            }
        }
    }
    Ok(())
}

/// Completes the cluster barrier's phase when every warp of cluster `c` has arrived (or
/// finished).
fn release_cluster(gs: &mut GroupState, c: usize) {
    let phase = gs.cluster_phase[c];
    let members = || gs.blocks.iter().filter(|b| b.cluster == c).flat_map(|b| b.warps.iter());
    if !members().all(|w| w.state == State::Done || w.cluster_arrived == Some(phase)) {
        return;
    }
    gs.cluster_phase[c] += 1;
    for b in gs.blocks.iter_mut().filter(|b| b.cluster == c) {
        for w in &mut b.warps {
            if w.state == State::Cluster {
                w.state = State::Ready;
                w.cluster_arrived = None;
            }
        }
    }
}

/// Releases the grid barrier when every warp of the grid waits at it.
fn release_grid(l: &Launch, gs: &mut GroupState) -> Result<(), String> {
    let warps = || gs.blocks.iter().flat_map(|b| b.warps.iter());
    if !warps().all(|w| w.state == State::Grid || w.state == State::Done) {
        return Ok(());
    }
    if warps().any(|w| w.state == State::Done) {
        return Err(format!(
            "kernel `{}`: grid_sync() was reached by only part of the grid (some threads had already returned)",
            l.k.func.name
        ));
    }
    for b in &mut gs.blocks {
        for w in &mut b.warps {
            w.state = State::Ready;
        }
    }
    Ok(())
}

/// The `mbarrier` of block `bi`'s cluster CTA `rank` at `addr`.
fn target_block(l: &Launch, gs: &GroupState, bi: usize, rank: u32) -> Result<usize, String> {
    let size = l.cluster.volume() as u32;
    if rank >= size {
        return Err(format!(
            "kernel `{}`: CTA rank {rank} is outside the cluster of {size} blocks",
            l.k.func.name
        ));
    }
    Ok(gs.blocks[bi].cluster_base + rank as usize)
}

pub(crate) fn mbar_done(
    l: &Launch,
    gs: &GroupState,
    bi: usize,
    rank: u32,
    addr: u64,
    parity: u32,
) -> Result<bool, String> {
    let tb = target_block(l, gs, bi, rank)?;
    match gs.mbars.get(&(tb, addr)) {
        Some(m) => Ok((m.phase & 1) as u32 != parity),
        None => Err(format!(
            "kernel `{}`: block {:?} waits on the mbarrier at shared address {addr:#x} ({}) before it was \
             initialized",
            l.k.func.name,
            gs.blocks[bi].coords,
            l.shared_name(addr)
        )),
    }
}

/// Applies an `mbarrier` operation of thread (`bi`, `warp`, `lane`).
pub(crate) fn mbarrier(
    l: &Launch,
    gs: &mut GroupState,
    bi: usize,
    (warp, lane): (u32, u32),
    rank: u32,
    addr: u64,
    op: ferrocm_ir::intrinsics::MbarrierOp,
) -> Result<(), String> {
    use ferrocm_ir::intrinsics::MbarrierOp::*;
    let name = &l.k.func.name;
    let tb = target_block(l, gs, bi, rank)?;
    let blk = gs.blocks[tb].coords;
    if let Init { count } = op {
        if count == 0 || count >= 1 << 20 {
            return Err(format!(
                "kernel `{name}`: mbarrier {} of block {blk:?} initialized with count {count}; counts are 1 to \
                 2^20 - 1",
                l.shared_name(addr)
            ));
        }
        gs.mbars.insert(
            (tb, addr),
            Mbar {
                name: l.shared_name(addr),
                expected: count,
                pending: count,
                phase: 0,
                tx: 0,
                arrived: HashSet::new(),
            },
        );
        return Ok(());
    }
    let Some(m) = gs.mbars.get_mut(&(tb, addr)) else {
        return Err(format!(
            "kernel `{name}`: warp {warp} of block {:?} uses the mbarrier {} of block {blk:?} before it was \
             initialized",
            gs.blocks[bi].coords,
            l.shared_name(addr)
        ));
    };
    match op {
        Arrive { expect_tx } => {
            m.tx += expect_tx as i64;
            if !m.arrived.insert((bi, warp, lane)) {
                return Err(format!(
                    "kernel `{name}`: thread {lane} of warp {warp} of block {:?} arrives twice in phase {} of \
                     mbarrier {} of block {blk:?} (arriving too often: its count is {})",
                    gs.blocks[bi].coords, m.phase, m.name, m.expected
                ));
            }
            if m.pending == 0 {
                return Err(format!(
                    "kernel `{name}`: warp {warp} of block {:?} arrives at mbarrier {} of block {blk:?} after all {} \
                     arrivals of phase {} are in (arriving too often)",
                    gs.blocks[bi].coords, m.name, m.expected, m.phase
                ));
            }
            m.pending -= 1;
        }
        ExpectTx { bytes } => m.tx += bytes as i64,
        CompleteTx { bytes } => m.tx -= bytes as i64,
        Init { .. } => {}
    }
    if m.pending == 0 && m.tx == 0 {
        m.phase += 1;
        m.pending = m.expected;
        m.arrived.clear();
    }
    Ok(())
}

/// At the end of a group, every `mbarrier` must be between phases: a phase left half done means
/// an arrival or a transaction too many or too few.
fn finish(l: &Launch, gs: &GroupState) -> Result<(), String> {
    let mut bad: Vec<_> = gs.mbars.iter().filter(|(_, m)| m.pending != m.expected || m.tx != 0).collect();
    bad.sort_by_key(|(k, _)| **k);
    if let Some(((bi, _), m)) = bad.first() {
        return Err(format!(
            "kernel `{}`: mbarrier {} of block {:?} ended with phase {} incomplete ({} of {} arrivals, {} \
             transaction bytes outstanding): an arrival or transaction too many or too few",
            l.k.func.name,
            m.name,
            gs.blocks[*bi].coords,
            m.phase,
            m.expected - m.pending,
            m.expected,
            m.tx
        ));
    }
    Ok(())
}

/// The error for a group where no warp can move: what each waiting warp waits for.
fn deadlock(l: &Launch, gs: &GroupState) -> String {
    let name = &l.k.func.name;
    // The common case first: a block barrier some warps never reach because they returned.
    for b in &gs.blocks {
        let done: Vec<u32> = b.warps.iter().filter(|w| w.state == State::Done).map(|w| w.id).collect();
        if !done.is_empty() && b.warps.iter().any(|w| w.state == State::Named(0)) {
            return format!(
                "kernel `{name}`: a barrier in block {:?} was reached by only part of the block (warps {done:?} had \
                 already returned)",
                b.coords
            );
        }
    }
    let mut waits = Vec::new();
    for b in &gs.blocks {
        for w in &b.warps {
            let what = match w.state {
                State::Named(id) => format!("block barrier {id}"),
                State::Cluster => "the cluster barrier".to_string(),
                State::Grid => "the grid barrier".to_string(),
                State::Mbarrier { rank, addr, parity } => {
                    let tb = b.cluster_base + rank as usize;
                    match gs.mbars.get(&(tb, addr)) {
                        Some(m) => format!(
                            "mbarrier {} for the phase of parity {parity}, which cannot complete (phase {}: {} of {} \
                             arrivals pending, {} transaction bytes outstanding)",
                            m.name, m.phase, m.pending, m.expected, m.tx
                        ),
                        None => format!("mbarrier at {addr:#x}"),
                    }
                }
                _ => continue,
            };
            waits.push(format!("warp {} of block {:?} waits on {what}", w.id, b.coords));
        }
    }
    format!("kernel `{name}`: no thread can go on (a hang on the GPU): {}", waits.join("; "))
}
