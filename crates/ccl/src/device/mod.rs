//! The device engine: collectives as kernels of the kernel language over peer pointers, for
//! communicators whose ranks all live in one process (the GPU data path; on CPU devices the same
//! kernels run on the CPU executor).
//!
//! Each operation becomes, per rank, a short schedule of actions on the rank's stream: record
//! one of the rank's events, make the stream wait for a peer's event, or launch a reduce or copy
//! kernel that reads and writes the ranks' buffers directly. Ranks are ordered by events
//! between their streams, never by a kernel waiting for memory another kernel writes, so the
//! schedules are correct however the device runs them: ranks sharing one GPU, or CPU devices
//! whose kernels share a small thread pool, cannot deadlock.
//!
//! The host side is a rendezvous in a table shared by the ranks of the clique: every rank
//! deposits its operation (buffers, count, type), which is where mismatched calls are caught;
//! a rank enqueues a wait for a peer's event only after the peer has enqueued the record of it
//! for this operation. One thread may drive several ranks (a group over communicators from
//! [`crate::Communicator::init_all`]): their schedules are interleaved, each advancing until it
//! needs a peer's record.
//!
//! Event slots are reused from one operation to the next; this is safe because an operation's
//! deposits are complete only once every rank has finished enqueuing the previous one.

pub(crate) mod ipc;
pub(crate) mod kernels;
mod schedule;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use ferrocm_runtime::{
    AsDeviceSlice, Device, DeviceBuffer, Event, EventFlags, KernelArgs, LaunchConfig, Stream,
};

use crate::bootstrap::TimeoutReport;
use crate::comm::Core;
use crate::op::{Op, OpKind};
use crate::state::lock;
use crate::types::DataType;
use crate::{CclError, Result};

pub(crate) use schedule::Action;

/// Per-rank scratch for staging (one-shot all-reduce in place).
pub(crate) const SCRATCH_BYTES: usize = 4 << 20;

/// Identifies one operation in the rendezvous table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Coll(u64),
    P2p { src: usize, dst: usize, seq: u64 },
}

/// What a rank publishes about one operation.
#[derive(Clone, Debug)]
pub(crate) struct Deposit {
    pub op: Op,
    /// The rank's scratch buffer: address and bytes.
    pub scratch: (u64, usize),
}

/// A rank's device-side resources, registered at init.
pub(crate) struct RankSlot {
    pub device: Device,
    events: Mutex<Vec<Option<Event>>>,
    scratch: DeviceBuffer<u64>,
    pub core: Weak<Core>,
}

#[derive(Default)]
struct Table {
    deposits: HashMap<Key, Vec<Option<Deposit>>>,
    /// (operation, rank, slot, generation) records that have been enqueued.
    recorded: HashSet<(Key, usize, u16, u32)>,
    finished: HashMap<Key, usize>,
    /// Counts changes (deposits, records), so a runner that found nothing to do sleeps only
    /// until the next change.
    generation: u64,
}

/// The ranks of one communicator that live in this process, sharing their rendezvous.
pub(crate) struct Clique {
    pub nranks: usize,
    slots: Vec<OnceLock<RankSlot>>,
    table: Mutex<Table>,
    cv: Condvar,
}

fn cliques() -> &'static Mutex<HashMap<u64, Weak<Clique>>> {
    static C: OnceLock<Mutex<HashMap<u64, Weak<Clique>>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

impl Clique {
    /// The clique of communicator `magic` in this process (created by its first rank).
    pub fn get(magic: u64, nranks: usize) -> Arc<Clique> {
        let mut map = lock(cliques());
        map.retain(|_, w| w.strong_count() > 0);
        if let Some(c) = map.get(&magic).and_then(Weak::upgrade) {
            return c;
        }
        let c = Arc::new(Clique {
            nranks,
            slots: (0..nranks).map(|_| OnceLock::new()).collect(),
            table: Mutex::default(),
            cv: Condvar::new(),
        });
        map.insert(magic, Arc::downgrade(&c));
        c
    }

    /// Registers `rank`'s device and scratch.
    pub fn register(&self, rank: usize, device: &Device, core: Weak<Core>) -> Result<()> {
        let scratch = device.alloc::<u64>(SCRATCH_BYTES / 8)?;
        let slot = RankSlot { device: device.clone(), events: Mutex::new(Vec::new()), scratch, core };
        self.slots[rank]
            .set(slot)
            .map_err(|_| CclError::invalid("rank", rank, "each rank of a communicator joins once"))?;
        Ok(())
    }

    /// Enables peer access from `rank`'s device to every other rank's (after all registered).
    pub fn enable_peers(&self, rank: usize) -> Result<()> {
        let me = self.slot(rank)?.device.clone();
        for r in 0..self.nranks {
            let other = &self.slot(r)?.device;
            if *other != me && !me.has_peer_access(other) {
                me.enable_peer_access(other)?;
            }
        }
        Ok(())
    }

    fn slot(&self, rank: usize) -> Result<&RankSlot> {
        self.slots[rank]
            .get()
            .ok_or_else(|| CclError::bootstrap("device engine", format!("rank {rank} is not registered")))
    }

    fn event(&self, rank: usize, slot: u16) -> Result<Event> {
        let s = self.slot(rank)?;
        let mut ev = lock(&s.events);
        let i = slot as usize;
        if ev.len() <= i {
            ev.resize(i + 1, None);
        }
        if let Some(e) = &ev[i] {
            return Ok(e.clone());
        }
        let e = Event::with_flags(&s.device, EventFlags { timing: false, blocking_sync: false })?;
        ev[i] = Some(e.clone());
        Ok(e)
    }

    fn scratch(&self, rank: usize) -> Result<(u64, usize)> {
        let s = self.slot(rank)?;
        Ok((s.scratch.device_ptr().0, SCRATCH_BYTES))
    }
}

/// One rank's share of a launch: its operations on its stream.
pub(crate) struct RankLaunch<'a> {
    pub rank: usize,
    pub core: &'a Arc<Core>,
    pub stream: Stream,
    pub ops: Vec<Op>,
}

/// A rank's progress through its schedule.
struct Task<'a> {
    launch: &'a RankLaunch<'a>,
    /// Operations still to run, as (key, participants), in order.
    queue: Vec<(Key, Vec<usize>, Vec<Op>)>,
    actions: Vec<Action>,
    pc: usize,
    current: Option<(Key, Vec<usize>)>,
}

fn key_of(op: &Op, me: usize) -> (Key, Vec<usize>) {
    match op.kind {
        OpKind::Send => (Key::P2p { src: me, dst: op.root, seq: op.seq }, vec![me, op.root]),
        OpKind::Recv => (Key::P2p { src: op.root, dst: me, seq: op.seq }, vec![op.root, me]),
        _ => (Key::Coll(op.seq), Vec::new()),
    }
}

impl Clique {
    fn participants(&self, key: &Key, given: &[usize]) -> Vec<usize> {
        match key {
            Key::Coll(_) => (0..self.nranks).collect(),
            Key::P2p { .. } => given.to_vec(),
        }
    }

    fn deposit(&self, key: Key, rank: usize, d: Deposit) {
        let mut t = lock(&self.table);
        let n = self.nranks;
        t.deposits.entry(key).or_insert_with(|| vec![None; n])[rank] = Some(d);
        t.generation += 1;
        self.cv.notify_all();
    }

    /// Runs the launches of the ranks this thread drives.
    pub fn run(&self, launches: &[RankLaunch<'_>], timeout: Duration) -> Result<()> {
        let start = Instant::now();
        let mut tasks = Vec::new();
        for l in launches {
            let me = l.rank;
            let scratch = self.scratch(me)?;
            let mut queue: Vec<(Key, Vec<usize>, Vec<Op>)> = Vec::new();
            let mut p2p = Vec::new();
            for op in &l.ops {
                let (key, parts) = key_of(op, me);
                let d = Deposit { op: op.clone(), scratch };
                if op.kind.is_p2p() {
                    // Only a sender's buffer is read by its peer; sends to self need no rendezvous.
                    if op.kind == OpKind::Send && op.root != me {
                        self.deposit(key, me, d);
                    }
                    p2p.push(op.clone());
                } else {
                    self.deposit(key, me, d);
                    queue.push((key, parts, vec![op.clone()]));
                }
                l.core.state.started.fetch_max(
                    if op.kind.is_p2p() { 0 } else { op.seq },
                    std::sync::atomic::Ordering::AcqRel,
                );
            }
            if !p2p.is_empty() {
                // All point-to-point operations of the launch form one phase (their schedule
                // records every send's readiness before any wait, so matching pairs inside one
                // group cannot wait for each other).
                queue.push((schedule::p2p_key(), Vec::new(), p2p));
            }
            queue.reverse();
            tasks.push(Task { launch: l, queue, actions: Vec::new(), pc: 0, current: None });
        }
        loop {
            let seen = lock(&self.table).generation;
            let mut progress = false;
            let mut all_done = true;
            for t in tasks.iter_mut() {
                progress |= self.advance(t)?;
                all_done &= t.queue.is_empty() && t.pc >= t.actions.len();
            }
            if all_done {
                return Ok(());
            }
            if progress {
                continue;
            }
            for t in &tasks {
                if let Some(e) = t.launch.core.health.failure() {
                    return Err(e);
                }
            }
            if start.elapsed() >= timeout {
                return Err(self.timed_out(&tasks, start.elapsed()));
            }
            let table = lock(&self.table);
            if table.generation == seen {
                let _ =
                    self.cv.wait_timeout(table, Duration::from_millis(20)).unwrap_or_else(|e| e.into_inner());
            }
        }
    }

    fn timed_out(&self, tasks: &[Task], waited: Duration) -> CclError {
        let t = tasks.iter().find(|t| !(t.queue.is_empty() && t.pc >= t.actions.len())).unwrap_or(&tasks[0]);
        let core = t.launch.core;
        let (key, waiting_on) = match (&t.current, t.actions.get(t.pc)) {
            (Some((k, _)), Some(Action::Wait { rank, .. })) => (*k, Some(*rank)),
            (Some((k, _)), _) => (*k, None),
            (None, _) => (t.queue.last().map(|q| q.0).unwrap_or(Key::Coll(0)), None),
        };
        let (seq, operation, waiting_on) = match key {
            Key::Coll(s) => {
                let missing = {
                    let table = lock(&self.table);
                    table.deposits.get(&key).and_then(|d| d.iter().position(Option::is_none))
                };
                (s, core.state.description(s), waiting_on.or(missing))
            }
            Key::P2p { src, dst, seq } => {
                let peer = if src == t.launch.rank { dst } else { src };
                (0, format!("send/recv #{seq} between ranks {src} and {dst}"), waiting_on.or(Some(peer)))
            }
        };
        core.bootstrap.report_timeout(TimeoutReport {
            seq,
            operation,
            waited,
            rank: t.launch.rank,
            waiting_on,
        })
    }

    /// Advances one task as far as it can go; returns whether it did anything.
    fn advance(&self, t: &mut Task) -> Result<bool> {
        let mut progress = false;
        loop {
            if t.pc >= t.actions.len() {
                if let Some((key, parts)) = t.current.take() {
                    self.finish(key, &parts);
                }
                let Some((key, parts, ops)) = t.queue.last().cloned() else { return Ok(progress) };
                let me = t.launch.rank;
                let actions = if ops[0].kind.is_p2p() {
                    match self.p2p_actions(me, &ops)? {
                        Some(a) => a,
                        None => return Ok(progress),
                    }
                } else {
                    let parts = self.participants(&key, &parts);
                    let deposits = {
                        let table = lock(&self.table);
                        let d = &table.deposits[&key];
                        if parts.iter().any(|&p| d[p].is_none()) {
                            return Ok(progress);
                        }
                        d.clone()
                    };
                    let all: Vec<Deposit> = deposits.into_iter().map(|d| d.expect("checked above")).collect();
                    self.check_match(me, &all)?;
                    schedule::collective(me, self.nranks, &all)
                };
                t.queue.pop();
                t.actions = actions;
                t.pc = 0;
                t.current = Some((key, parts));
                progress = true;
                continue;
            }
            match t.actions[t.pc] {
                Action::Wait { key, rank, slot, gen, consume } => {
                    let entry = (key, rank, slot, gen);
                    {
                        let mut table = lock(&self.table);
                        if !table.recorded.contains(&entry) {
                            return Ok(progress);
                        }
                        if consume {
                            table.recorded.remove(&entry);
                        }
                    }
                    t.launch.stream.wait_event(&self.event(rank, slot)?)?;
                }
                Action::Record { key, slot, gen } => {
                    self.event(t.launch.rank, slot)?.record(&t.launch.stream)?;
                    let mut table = lock(&self.table);
                    table.recorded.insert((key, t.launch.rank, slot, gen));
                    table.generation += 1;
                    drop(table);
                    self.cv.notify_all();
                }
                Action::Reduce { dtype, op, finalize, nranks, a, b, out, n } => {
                    launch_reduce(&t.launch.stream, dtype, op, finalize, nranks, a, b, out, n)?;
                }
                Action::Copy { src, dst, bytes } => launch_copy(&t.launch.stream, src, dst, bytes)?,
            }
            t.pc += 1;
            progress = true;
        }
    }

    fn finish(&self, key: Key, parts: &[usize]) {
        if key == schedule::p2p_key() {
            // Point-to-point records are forgotten by their one waiter.
            return;
        }
        let mut t = lock(&self.table);
        let total = match key {
            Key::Coll(_) => self.nranks,
            Key::P2p { .. } => parts.len().max(1),
        };
        let done = {
            let f = t.finished.entry(key).or_insert(0);
            *f += 1;
            *f >= total
        };
        if done {
            t.finished.remove(&key);
            t.deposits.remove(&key);
            t.recorded.retain(|(k, ..)| *k != key);
        }
    }

    fn check_match(&self, me: usize, all: &[Deposit]) -> Result<()> {
        let mine = &all[me].op;
        for (r, d) in all.iter().enumerate() {
            let o = &d.op;
            let mut diff = Vec::new();
            if o.kind != mine.kind {
                diff.push(format!(
                    "rank {me} called {} but rank {r} called {}",
                    mine.kind.name(),
                    o.kind.name()
                ));
            }
            if o.count != mine.count {
                diff.push(format!("count {} on rank {me}, {} on rank {r}", mine.count, o.count));
            }
            if o.dtype != mine.dtype {
                diff.push(format!("type {} on rank {me}, {} on rank {r}", mine.dtype, o.dtype));
            }
            if mine.kind.reduces() && o.redop != mine.redop {
                diff.push(format!("operator {} on rank {me}, {} on rank {r}", mine.redop, o.redop));
            }
            if mine.kind.rooted() && o.root != mine.root {
                diff.push(format!("root {} on rank {me}, {} on rank {r}", mine.root, o.root));
            }
            if o.algorithm != mine.algorithm {
                diff.push(format!("algorithm {} on rank {me}, {} on rank {r}", mine.algorithm, o.algorithm));
            }
            if !diff.is_empty() {
                let e = CclError::Mismatch {
                    operation: mine.describe(),
                    rank: me,
                    peer: r,
                    detail: diff.join("; "),
                };
                if let Some(core) = self.slots[me].get().and_then(|s| s.core.upgrade()) {
                    core.bootstrap.abort(&e);
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// The schedule of a launch's point-to-point operations, once every peer has deposited.
    fn p2p_actions(&self, me: usize, ops: &[Op]) -> Result<Option<Vec<Action>>> {
        let table = lock(&self.table);
        let mut peers = HashMap::new();
        for op in ops.iter().filter(|o| o.kind == OpKind::Recv && o.root != me) {
            let (key, _) = key_of(op, me);
            let Some(d) = table.deposits.get(&key).and_then(|d| d[op.root].clone()) else { return Ok(None) };
            if d.op.count != op.count || d.op.dtype != op.dtype {
                let e = CclError::Mismatch {
                    operation: op.describe(),
                    rank: me,
                    peer: op.root,
                    detail: format!(
                        "rank {} sends {} {} but rank {me} receives {} {}",
                        op.root, d.op.count, d.op.dtype, op.count, op.dtype
                    ),
                };
                drop(table);
                if let Some(core) = self.slots[me].get().and_then(|s| s.core.upgrade()) {
                    core.bootstrap.abort(&e);
                }
                return Err(e);
            }
            peers.insert(key, d);
        }
        drop(table);
        schedule::p2p(me, self.nranks, ops, &peers).map(Some)
    }
}

/// A region of some rank's buffer: its address and its length in elements.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Region {
    pub addr: u64,
    pub len: u64,
}

fn blocks(device: &Device, units: u64) -> u32 {
    let max = (device.properties().compute_units.max(1) * 4).min(65_535) as u64;
    units.div_ceil(256).clamp(1, max) as u32
}

macro_rules! by_type {
    ($dt:expr, $T:ident => $body:expr) => {
        match $dt {
            DataType::I8 => {
                type $T = i8;
                $body
            }
            DataType::U8 => {
                type $T = u8;
                $body
            }
            DataType::I32 => {
                type $T = i32;
                $body
            }
            DataType::U32 => {
                type $T = u32;
                $body
            }
            DataType::I64 => {
                type $T = i64;
                $body
            }
            DataType::U64 => {
                type $T = u64;
                $body
            }
            DataType::F16 => {
                type $T = half::f16;
                $body
            }
            DataType::Bf16 => {
                type $T = half::bf16;
                $body
            }
            DataType::F32 => {
                type $T = f32;
                $body
            }
            DataType::F64 => {
                type $T = f64;
                $body
            }
        }
    };
}

#[allow(clippy::too_many_arguments)]
fn launch_reduce(
    stream: &Stream,
    dtype: DataType,
    op: crate::ReduceOp,
    finalize: bool,
    nranks: u32,
    a: Region,
    b: Region,
    out: Region,
    n: u64,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let es = dtype.size() as u64;
    let w: u64 = if es == 8 { 2 } else { 4 };
    let width = if [a.addr, b.addr, out.addr].iter().all(|x| x % (w * es) == 0) { w as u32 } else { 1 };
    let mut args = KernelArgs::new();
    for r in [a, b] {
        args.push(r.addr).push(r.len).push(0u64);
    }
    args.push(out.addr).push(out.len).push(0u64).push(n).push(nranks);
    let cfg = LaunchConfig::new(blocks(stream.device(), n / width as u64 + n % width as u64), 256);
    by_type!(dtype, T => {
        let k = kernels::reduce2::kernel::<T>(op, finalize, width)?;
        // SAFETY: the arguments follow `reduce2`'s parameters (slices as address and length,
        // then offsets, count and ranks); every region lies in a live buffer of a rank of this
        // clique, whose stream does not finish the operation (and so cannot free the buffer)
        // before this rank's events say it is done with it.
        unsafe { k.launch_raw(stream, cfg, &args)? };
    });
    Ok(())
}

fn launch_copy(stream: &Stream, src: u64, dst: u64, bytes: u64) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    let word = [4u64, 2, 1]
        .into_iter()
        .find(|w| src.is_multiple_of(*w) && dst.is_multiple_of(*w) && bytes.is_multiple_of(*w))
        .unwrap_or(1);
    let n = bytes / word;
    let width = if word == 4 && src.is_multiple_of(16) && dst.is_multiple_of(16) { 4 } else { 1 };
    let mut args = KernelArgs::new();
    args.push(src).push(n).push(0u64).push(dst).push(n).push(0u64).push(n);
    let cfg = LaunchConfig::new(blocks(stream.device(), n / width as u64 + n % width as u64), 256);
    let k = match word {
        4 => kernels::copy::kernel::<u32>(width)?,
        2 => kernels::copy::kernel::<u16>(1)?,
        _ => kernels::copy::kernel::<u8>(1)?,
    };
    // SAFETY: `copy`'s parameters (two slices as address and length with offsets, then the
    // count), over regions of live buffers of this clique's ranks (see `launch_reduce`).
    unsafe { k.launch_raw(stream, cfg, &args)? };
    Ok(())
}

/// Makes every stream in `others` wait for `main`'s work so far, or the reverse.
pub(crate) fn join(from: &Stream, to: &Stream) -> Result<()> {
    if from == to {
        return Ok(());
    }
    let e = Event::with_flags(from.device(), EventFlags { timing: false, blocking_sync: false })?;
    e.record(from)?;
    to.wait_event(&e)?;
    Ok(())
}
