//! The device engine between processes of one host: rings (and, for all-to-all, pairwise
//! exchanges) over staging buffers in exportable device memory, ordered by stream memory
//! operations (NCCL's simple protocol).
//!
//! Each rank allocates an inbox with one *lane* per other rank ([`lane`]), each of [`SLOTS`]
//! slots (`FERROCM_CCL_BUFFSIZE` bytes per lane, [`crate::Config::buffsize`]), and `2n` words,
//! as [`SharedBuffer`]s on its own device, and a mailbox in host memory (below), and hands the
//! three to every other rank over Unix sockets (`SCM_RIGHTS`, as the shm transport does) at
//! init; it maps every other rank's inbox, words and mailbox. Of a rank's words, `READY(p)`
//! counts the slots of its lane for `p` that `p` has filled, and `ACK(q)` counts the slots of
//! its lane in `q`'s inbox that `q` has consumed. Per piece of data, on the rank's stream:
//!
//! - receiving from `p`: wait until `READY(p)` reaches the piece's number, read the slot (a
//!   reduce or copy kernel), then write the count of consumed slots into `p`'s `ACK(me)`;
//! - sending to `q`: wait until `ACK(q)` says the slot's previous piece was consumed, write the
//!   slot of this rank's lane in `q`'s inbox (the same kernel), then write the count of filled
//!   slots into `q`'s `READY(me)`.
//!
//! Rings send to the right neighbour and receive from the left one; all-to-all uses every
//! lane, and so do groups of sends and receives ([`IpcEngine::run_p2p`]). Each (sender, receiver) pair is one FIFO whose ends both rank enqueue in operation
//! order, so operations of both kinds may follow each other on one communicator.
//!
//! Ordering is only ever a stream waiting on a word (`Stream::wait_value`), never a kernel
//! spinning on memory, so ranks sharing one GPU, or CPU devices sharing the executor's thread
//! pool, cannot deadlock; and only [`SLOTS`] pieces may be in flight per direction, so large
//! messages pipeline through a fixed staging area. The counters grow across operations (the
//! greater-or-equal wait is cyclic, so they may wrap).
//!
//! Ring operations loop over *slices* as NCCL does: slice `k` is the `k`-th piece (one slot) of
//! every block, and the whole ring (every reduce-scatter step, then for all-reduce every
//! all-gather step) runs over one slice before the next begins. So every rank alternates
//! receiving and sending (in step with its neighbours, at most two pieces are in flight towards
//! each): a rank's `i`-th send waits for its right neighbour's receive number `i - SLOTS + 1`,
//! which that neighbour queues after fewer sends of its own than `i`, so no wait depends on
//! work queued behind it and the ring cannot deadlock, whatever the message size. (Enqueuing every
//! piece of a block per step instead deadlocks once a block has more pieces than [`SLOTS`]: each
//! rank's fifth send of step 0 waits for an acknowledgement its neighbour gives only in step 1,
//! queued behind its own step-0 sends.) Blocks of unequal length give zero-length pieces at the
//! tail of the shorter blocks; sender and receiver compute the same lengths and both skip them.
//!
//! The host side only enqueues, after one rendezvous per operation through shared host memory:
//! every rank has a *mailbox* (a page of host memory, shared with every other rank at init as
//! the inboxes are) where it posts the header of each operation it enters (sequence number,
//! operation, type, operator, count, root), numbered by a round that counts this engine's
//! operations; it then reads every other rank's mailbox until each has posted the same round,
//! and compares. There mismatched calls are caught (both ranks see both headers) and a rank that
//! does not arrive within `FERROCM_CCL_TIMEOUT` is named, before any stream waits on a word;
//! the host neither sends nor receives a message, so the rendezvous costs a few reads of shared
//! memory once every rank is there. A mailbox keeps its last two headers: a rank can be at most
//! one round ahead of another (it passes round `t` only once every rank has posted `t`), so the
//! header a slower rank looks for is never overwritten. A rank that dies after that leaves its neighbours' streams waiting on words that never come: a
//! watchdog thread sees the communicator fail (the bootstrap notices the death) and writes every
//! awaited value into this rank's own words from a stream of its own (NCCL's abort), so the
//! streams drain (the results are garbage) and every later call returns the failure.

use std::io::{Read, Write};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferrocm_runtime::{
    AsDeviceSlice, BackendKind, Device, ShareableHandle, SharedBuffer, Stream, WaitCondition,
};

use super::{launch_copy, launch_reduce, Region};
use crate::bootstrap::TimeoutReport;
use crate::comm::Core;
use crate::op::{Op, OpKind};
use crate::state::{lock, WaitError, Waiter};
use crate::types::{DataType, ReduceOp};
use crate::{CclError, Result};

/// Slots per inbox: the pieces one rank may have in flight towards its right neighbour.
pub(crate) const SLOTS: u64 = 4;
/// How far past every awaited value the abort writes (the waits are cyclic, 2^63 wide).
const ABORT_AHEAD: u64 = 1 << 62;

/// A rank's words: `READY(p)` counts the slots of its lane for `p` that `p` has filled;
/// `ACK(n, q)` counts the slots of `q`'s lane for this rank that `q` has consumed.
#[allow(non_snake_case)]
fn READY(p: usize) -> usize {
    p
}
#[allow(non_snake_case)]
fn ACK(n: usize, q: usize) -> usize {
    n + q
}

/// The lane of `to`'s inbox that `from` writes: one per other rank, in rank order.
fn lane(from: usize, to: usize) -> u64 {
    (if from < to { from } else { from - 1 }) as u64
}

/// Headers a mailbox keeps (a rank is at most one round ahead of any other).
const ENTRIES: usize = 2;
/// Words of one mailbox entry: the round, then the header ([`Header::words`]).
const ENTRY_WORDS: usize = 8;
const COLLECTIVE_WORDS: usize = ENTRIES * ENTRY_WORDS;
/// Point-to-point headers a mailbox keeps per peer and direction.
const P2P_ENTRIES: usize = 8;
/// Words of one point-to-point entry: the pair's sequence number, the count, the type.
const P2P_WORDS: usize = 3;
/// Sends (or receives) to one peer that one group may run on this engine: with at most
/// [`SLOTS`] per slice and direction, the slice loop cannot wait on itself, and the mailbox
/// keeps every header of a group until its peer has read it.
pub(crate) const P2P_PER_PEER: usize = SLOTS as usize;
const SEND: usize = 0;
const RECV: usize = 1;

fn mailbox_words(n: usize) -> usize {
    COLLECTIVE_WORDS + n * 2 * P2P_ENTRIES * P2P_WORDS
}

/// The first word of the point-to-point entry for `peer`, direction `dir`, sequence `seq`.
fn p2p_at(peer: usize, dir: usize, seq: u64) -> usize {
    COLLECTIVE_WORDS + ((peer * 2 + dir) * P2P_ENTRIES + seq as usize % P2P_ENTRIES) * P2P_WORDS
}

/// A rank's mailbox: host memory (a CPU device's exportable memory, whose addresses are host
/// addresses) holding the headers of its last [`ENTRIES`] rendezvous, read by every rank.
struct Mailbox(SharedBuffer<u64>, usize);

impl Mailbox {
    /// A zeroed mailbox of this process, for a communicator of `n` ranks.
    fn create(device: &Device, n: usize) -> Result<Mailbox> {
        let host = if device.kind() == BackendKind::Cpu { device.clone() } else { Device::cpu()? };
        let words = mailbox_words(n);
        let m = Mailbox(SharedBuffer::<u64>::new(&host, words)?, words);
        for i in 0..words {
            m.word(i).store(0, Ordering::Relaxed);
        }
        Ok(m)
    }

    /// Maps another rank's mailbox.
    fn import(handle: &ShareableHandle, n: usize) -> std::result::Result<Mailbox, String> {
        let words = mailbox_words(n);
        if handle.shared_bytes() < (words * 8) as u64 {
            return Err(format!(
                "the mailbox holds {} bytes, fewer than the {} needed",
                handle.shared_bytes(),
                words * 8
            ));
        }
        let host = Device::cpu().map_err(|e| e.to_string())?;
        SharedBuffer::<u64>::import(&host, handle).map(|b| Mailbox(b, words)).map_err(|e| e.to_string())
    }

    fn word(&self, i: usize) -> &AtomicU64 {
        assert!(i < self.1, "mailbox word {i} of {}", self.1);
        let base = self.0.device_ptr().0 as *const AtomicU64;
        // SAFETY: a CPU device's buffer address is the host address of its mapping, which is
        // page-aligned, at least `self.1` words long (checked at creation and import) and
        // lives as long as `self`; other processes access these words only atomically, so
        // viewing them as atomics is sound.
        unsafe { &*base.add(i) }
    }

    /// Posts `header` as round `round` (the header first, then the round that publishes it).
    fn post(&self, round: u64, header: &[u64; ENTRY_WORDS - 1]) {
        let at = (round as usize % ENTRIES) * ENTRY_WORDS;
        for (i, &w) in header.iter().enumerate() {
            self.word(at + 1 + i).store(w, Ordering::Relaxed);
        }
        self.word(at).store(round, Ordering::Release);
    }

    /// The header posted as round `round`, once it is there.
    fn read(&self, round: u64) -> Option<[u64; ENTRY_WORDS - 1]> {
        let at = (round as usize % ENTRIES) * ENTRY_WORDS;
        if self.word(at).load(Ordering::Acquire) != round {
            return None;
        }
        Some(std::array::from_fn(|i| self.word(at + 1 + i).load(Ordering::Relaxed)))
    }

    /// Posts the header of send or receive number `seq` with `peer` (direction `dir`).
    fn post_p2p(&self, peer: usize, dir: usize, seq: u64, count: u64, dtype: DataType) {
        let at = p2p_at(peer, dir, seq);
        self.word(at + 1).store(count, Ordering::Relaxed);
        self.word(at + 2).store(dtype.code() as u64, Ordering::Relaxed);
        self.word(at).store(seq, Ordering::Release);
    }

    /// The count and type of send or receive number `seq` with `peer`, once posted.
    fn read_p2p(&self, peer: usize, dir: usize, seq: u64) -> Option<(u64, Option<DataType>)> {
        let at = p2p_at(peer, dir, seq);
        if self.word(at).load(Ordering::Acquire) != seq {
            return None;
        }
        let count = self.word(at + 1).load(Ordering::Relaxed);
        let dtype =
            u8::try_from(self.word(at + 2).load(Ordering::Relaxed)).ok().and_then(DataType::from_code);
        Some((count, dtype))
    }
}

/// The operations this engine runs; the rest go to the host engine.
pub(crate) fn supports(kind: OpKind) -> bool {
    matches!(
        kind,
        OpKind::AllReduce
            | OpKind::AllGather
            | OpKind::ReduceScatter
            | OpKind::Broadcast
            | OpKind::Reduce
            | OpKind::AllToAll
    )
}

fn socket_name(magic: u64, rank: usize) -> String {
    format!("ferrocm-ccl-ipc-{magic:016x}-{rank}")
}

/// The rank's mapped memory and its counters; one operation enqueues at a time.
struct Ring {
    rank: usize,
    nranks: usize,
    /// One lane of [`SLOTS`] slots per other rank ([`lane`]).
    inbox: SharedBuffer<u8>,
    /// `2 * nranks` words: [`READY`] and [`ACK`] of each rank.
    words: SharedBuffer<u64>,
    /// Every other rank's inbox and words, mapped (`None` for this rank).
    peer_inbox: Vec<Option<SharedBuffer<u8>>>,
    peer_words: Vec<Option<SharedBuffer<u64>>>,
    /// Bytes per slot (one piece).
    slot_bytes: u64,
    /// Pieces sent to and received from each rank over the communicator's life.
    sent: Vec<u64>,
    received: Vec<u64>,
}

impl Ring {
    fn peer<'a, T>(v: &'a mut [Option<T>], p: usize, what: &str) -> Result<&'a mut T> {
        v[p].as_mut().ok_or_else(|| CclError::bootstrap("device engine", format!("no {what} of rank {p}")))
    }
}

/// The cross-process device engine of one rank.
pub(crate) struct IpcEngine {
    rank: usize,
    nranks: usize,
    device: Device,
    health: Arc<crate::state::Health>,
    ring: Arc<Mutex<Ring>>,
    /// Every rank's mailbox, this rank's own included.
    mailboxes: Vec<Mailbox>,
    /// Rendezvous so far (the round of the last one).
    round: AtomicU64,
    stop: Arc<AtomicBool>,
    watchdog: Option<std::thread::JoinHandle<()>>,
}

/// What one rank sends every other at init: its rank and the handles of its inbox, words and
/// mailbox.
fn send_mine(sock: &UnixStream, me: usize, mine: &Prepared) -> std::io::Result<()> {
    let io = |e: ferrocm_runtime::Error| std::io::Error::other(e.to_string());
    (&*sock).write_all(&(me as u64).to_le_bytes())?;
    mine.inbox.export().map_err(io)?.send(sock).map_err(io)?;
    mine.words.export().map_err(io)?.send(sock).map_err(io)?;
    mine.mailbox.0.export().map_err(io)?.send(sock).map_err(io)
}

/// A peer's rank and the handles of its inbox, words and mailbox.
struct Theirs {
    rank: usize,
    inbox: ShareableHandle,
    words: ShareableHandle,
    mailbox: ShareableHandle,
}

fn recv_theirs(sock: &UnixStream) -> std::io::Result<Theirs> {
    let io = |e: ferrocm_runtime::Error| std::io::Error::other(e.to_string());
    let mut b = [0u8; 8];
    (&*sock).read_exact(&mut b)?;
    let inbox = ShareableHandle::recv(sock).map_err(io)?;
    let words = ShareableHandle::recv(sock).map_err(io)?;
    let mailbox = ShareableHandle::recv(sock).map_err(io)?;
    Ok(Theirs { rank: u64::from_le_bytes(b) as usize, inbox, words, mailbox })
}

/// A rank's half-built ring: its own staging memory and listening socket, before the ranks
/// have agreed that every one of them could make theirs.
pub(crate) struct Prepared {
    inbox: SharedBuffer<u8>,
    words: SharedBuffer<u64>,
    mailbox: Mailbox,
    listener: UnixListener,
}

impl IpcEngine {
    /// Allocates this rank's exportable staging memory and opens its socket (no communication:
    /// the caller all-gathers whether every rank could, then calls [`IpcEngine::connect`]).
    pub fn prepare(core: &Core) -> Result<Prepared> {
        let rank = core.rank;
        let err = |reason: String| CclError::Transport { transport: "ipc", peer: rank, reason };
        let device = &core.device;
        let n = core.nranks;
        let inbox = SharedBuffer::<u8>::new(device, core.config.buffsize * (n - 1))?;
        let mut words = SharedBuffer::<u64>::new(device, 2 * n)?;
        device.create_stream()?.copy_htod(&vec![0u64; 2 * n], &mut words)?;
        let mailbox = Mailbox::create(device, n)?;
        let addr = SocketAddr::from_abstract_name(socket_name(core.magic, rank).as_bytes())
            .map_err(|e| err(format!("socket name: {e}")))?;
        let listener =
            UnixListener::bind_addr(&addr).map_err(|e| err(format!("listening on a Unix socket: {e}")))?;
        listener.set_nonblocking(true).map_err(|e| err(e.to_string()))?;
        Ok(Prepared { inbox, words, mailbox, listener })
    }

    /// Connects the ring: every rank of the communicator calls this after a successful
    /// [`IpcEngine::prepare`] on every rank (it all-gathers over the bootstrap once). Every
    /// rank sends every other its handles, and each maps every other rank's inbox, words and
    /// mailbox.
    pub fn connect(core: &Arc<Core>, prepared: Prepared) -> Result<IpcEngine> {
        let (rank, n, timeout) = (core.rank, core.nranks, core.config.timeout);
        let err = |peer: usize, reason: String| CclError::Transport { transport: "ipc", peer, reason };
        let device = &core.device;
        let peers: Vec<usize> = (0..n).filter(|&p| p != rank).collect();
        let mut outgoing = Vec::new();
        for &p in &peers {
            let addr = SocketAddr::from_abstract_name(socket_name(core.magic, p).as_bytes())
                .map_err(|e| err(p, e.to_string()))?;
            let sock = UnixStream::connect_addr(&addr).map_err(|e| err(p, format!("connecting: {e}")))?;
            send_mine(&sock, rank, &prepared).map_err(|e| err(p, format!("sending handles: {e}")))?;
            outgoing.push(sock);
        }
        let deadline = Instant::now() + timeout;
        let mut got: Vec<Theirs> = Vec::new();
        while got.len() < peers.len() {
            match prepared.listener.accept() {
                Ok((sock, _)) => {
                    sock.set_nonblocking(false).map_err(|e| err(rank, e.to_string()))?;
                    sock.set_read_timeout(Some(timeout)).map_err(|e| err(rank, e.to_string()))?;
                    let theirs =
                        recv_theirs(&sock).map_err(|e| err(rank, format!("receiving handles: {e}")))?;
                    if !peers.contains(&theirs.rank) || got.iter().any(|g| g.rank == theirs.rank) {
                        return Err(err(
                            theirs.rank,
                            format!(
                                "rank {} sent its handles twice or is not in the communicator",
                                theirs.rank
                            ),
                        ));
                    }
                    got.push(theirs);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    core.health.check()?;
                    if Instant::now() > deadline {
                        let missing =
                            peers.iter().copied().filter(|p| !got.iter().any(|g| g.rank == *p)).collect();
                        return Err(CclError::Timeout {
                            operation: "connecting the device engine's ring (init)".into(),
                            waited: timeout,
                            missing,
                            detail: format!("rank {rank} expected the other ranks' staging buffers"),
                        });
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(e) => return Err(err(rank, e.to_string())),
            }
        }
        drop(outgoing);
        let Prepared { inbox, words, mailbox, listener } = prepared;
        drop(listener);
        let theirs =
            |p: usize| got.iter().find(|g| g.rank == p).ok_or_else(|| err(p, "no handles received".into()));
        let (mut peer_inbox, mut peer_words) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for p in 0..n {
            if p == rank {
                peer_inbox.push(None);
                peer_words.push(None);
            } else {
                let t = theirs(p)?;
                let lanes = core.config.buffsize as u64 * (n as u64 - 1);
                if t.inbox.shared_bytes() < lanes || t.words.shared_bytes() < 16 * n as u64 {
                    return Err(err(
                        p,
                        format!("its staging memory is smaller than the {lanes} bytes expected"),
                    ));
                }
                peer_inbox.push(Some(SharedBuffer::import(device, &t.inbox)?));
                peer_words.push(Some(SharedBuffer::import(device, &t.words)?));
            }
        }
        let mut mailboxes = Vec::with_capacity(n);
        let mut own = Some(mailbox);
        for p in 0..n {
            if p == rank {
                mailboxes.push(own.take().expect("this rank's mailbox is placed once"));
            } else {
                let m =
                    Mailbox::import(&theirs(p)?.mailbox, n).map_err(|e| err(p, format!("mailbox: {e}")))?;
                mailboxes.push(m);
            }
        }
        // Every rank has mapped every other rank's memory before anyone writes into it.
        core.bootstrap.all_gather(Vec::new(), timeout)?;
        let ring = Arc::new(Mutex::new(Ring {
            rank,
            nranks: n,
            inbox,
            words,
            peer_inbox,
            peer_words,
            slot_bytes: core.config.buffsize as u64 / SLOTS,
            sent: vec![0; n],
            received: vec![0; n],
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let watchdog = {
            let (ring, stop, health, device) =
                (ring.clone(), stop.clone(), core.health.clone(), device.clone());
            let name = format!("ferrocm-ccl-ipc-watchdog-{rank}");
            std::thread::Builder::new()
                .name(name)
                .spawn(move || watch(&ring, &stop, &health, &device))
                .map_err(|e| err(rank, format!("starting the watchdog: {e}")))?
        };
        Ok(IpcEngine {
            rank,
            nranks: n,
            device: device.clone(),
            health: core.health.clone(),
            ring,
            mailboxes,
            round: AtomicU64::new(0),
            stop,
            watchdog: Some(watchdog),
        })
    }

    /// The rendezvous of one operation: this rank posts its header in its mailbox and reads
    /// every other rank's until each has posted the same round; a mismatch fails every rank, a
    /// rank that does not arrive within the timeout is named by the bootstrap's report.
    fn rendezvous(&self, core: &Core, op: &Op) -> Result<()> {
        let mine = Header::of(op);
        core.state.started.fetch_max(op.seq, Ordering::AcqRel);
        let round = self.round.fetch_add(1, Ordering::AcqRel) + 1;
        self.mailboxes[self.rank].post(round, &mine.words());
        let waiter = Waiter::new(&core.health, &core.state, core.config.timeout);
        for r in (0..self.nranks).filter(|&r| r != self.rank) {
            let theirs = match waiter.wait_for(Some(r), || self.mailboxes[r].read(round)) {
                Ok(h) => h,
                Err(WaitError::TimedOut) => {
                    return Err(core.bootstrap.report_timeout(TimeoutReport {
                        seq: op.seq,
                        operation: op.describe(),
                        waited: waiter.start.elapsed(),
                        rank: self.rank,
                        waiting_on: Some(r),
                    }))
                }
                Err(WaitError::Failed(e)) => return Err(in_operation(e, op)),
            };
            let diff = match Header::from_words(&theirs) {
                Some(h) => mine.diff(&h, self.rank, r),
                None => vec![format!("rank {r} posted an unreadable operation header")],
            };
            if !diff.is_empty() {
                let e = CclError::Mismatch {
                    operation: op.describe(),
                    rank: self.rank,
                    peer: r,
                    detail: diff.join("; "),
                };
                core.bootstrap.abort(&e);
                return Err(e);
            }
        }
        Ok(())
    }

    /// Enqueues `op` on `stream` (after its rendezvous).
    pub fn run(&self, core: &Core, stream: &Stream, op: &Op) -> Result<()> {
        core.health.check().map_err(|e| in_operation(e, op))?;
        self.rendezvous(core, op)?;
        let mut ring = lock(&self.ring);
        let mut q = Queue { ring: &mut ring, stream, n: self.nranks, rank: self.rank, op };
        match op.kind {
            OpKind::AllReduce => q.all_reduce(),
            OpKind::ReduceScatter => q.reduce_scatter(),
            OpKind::AllGather => q.all_gather(),
            OpKind::Broadcast => q.broadcast(),
            OpKind::Reduce => q.reduce(),
            OpKind::AllToAll => q.all_to_all(),
            _ => Err(CclError::Unsupported {
                what: format!("{} on the device engine between processes", op.kind.name()),
            }),
        }
    }
}

impl IpcEngine {
    /// Enqueues a group of sends and receives on `stream`: every header is posted, then each
    /// is matched against its peer's (count and type), then the pieces are queued slice by
    /// slice across the group (every send's piece of a slice, then every receive's). The caller
    /// checked [`p2p_fits`].
    pub fn run_p2p(&self, core: &Core, stream: &Stream, ops: &[Op]) -> Result<()> {
        core.health.check()?;
        let (me, n) = (self.rank, self.nranks);
        let dir = |op: &Op| if op.kind == OpKind::Send { SEND } else { RECV };
        for op in ops {
            self.mailboxes[me].post_p2p(op.root, dir(op), op.seq, op.count as u64, op.dtype);
        }
        let waiter = Waiter::new(&core.health, &core.state, core.config.timeout);
        for op in ops {
            let peer = op.root;
            let theirs = match waiter
                .wait_for(Some(peer), || self.mailboxes[peer].read_p2p(me, 1 - dir(op), op.seq))
            {
                Ok(t) => t,
                Err(WaitError::TimedOut) => {
                    return Err(core.bootstrap.report_timeout(TimeoutReport {
                        seq: 0,
                        operation: op.describe(),
                        waited: waiter.start.elapsed(),
                        rank: me,
                        waiting_on: Some(peer),
                    }))
                }
                Err(WaitError::Failed(e)) => return Err(in_operation(e, op)),
            };
            if theirs != (op.count as u64, Some(op.dtype)) {
                let name = |d: Option<DataType>| d.map_or("an unknown type".to_string(), |d| d.to_string());
                let (sender, receiver, sends, receives) = if op.kind == OpKind::Send {
                    (me, peer, (op.count as u64, Some(op.dtype)), theirs)
                } else {
                    (peer, me, theirs, (op.count as u64, Some(op.dtype)))
                };
                let e = CclError::Mismatch {
                    operation: op.describe(),
                    rank: me,
                    peer,
                    detail: format!(
                        "rank {sender} sends {} {} but rank {receiver} receives {} {}",
                        sends.0,
                        name(sends.1),
                        receives.0,
                        name(receives.1)
                    ),
                };
                core.bootstrap.abort(&e);
                return Err(e);
            }
        }
        let mut ring = lock(&self.ring);
        let mut k = 0u64;
        loop {
            let mut more = false;
            for pass in [SEND, RECV] {
                for op in ops.iter().filter(|o| dir(o) == pass) {
                    let mut q = Queue { ring: &mut ring, stream, n, rank: me, op };
                    let per = q.piece_elems();
                    let (off, count) = (k * per, op.count as u64);
                    if off >= count {
                        continue;
                    }
                    more = true;
                    let es = q.es();
                    q.piece(Piece {
                        from: (pass == RECV).then_some(op.root),
                        input: (pass == SEND).then_some(op.send + off * es),
                        output: (pass == RECV).then_some(op.recv + off * es),
                        to: (pass == SEND).then_some(op.root),
                        finalize: false,
                        elems: per.min(count - off),
                    })?;
                }
            }
            if !more {
                return Ok(());
            }
            k += 1;
        }
    }
}

/// Whether a group of point-to-point operations can run on this engine: no rank sends to or
/// receives from itself, and at most [`P2P_PER_PEER`] operations per peer and direction.
pub(crate) fn p2p_fits(me: usize, ops: &[(OpKind, usize)]) -> bool {
    let mut per = std::collections::HashMap::new();
    for &(kind, peer) in ops {
        if !kind.is_p2p() || peer == me {
            return false;
        }
        *per.entry((kind, peer)).or_insert(0usize) += 1;
    }
    per.values().all(|&c| c <= P2P_PER_PEER)
}

impl Drop for IpcEngine {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(w) = self.watchdog.take() {
            let _ = w.join();
        }
        // A failed communicator may have waits that no peer will satisfy: release them before
        // the staging memory is dropped (which waits for the streams that used it).
        if self.health.is_failed() {
            release_waits(&self.ring, &self.device);
        }
    }
}

/// A rank's death as seen from inside `op`.
fn in_operation(e: CclError, op: &Op) -> CclError {
    match e {
        CclError::RankDied { ranks, operation: None, detail } => {
            CclError::RankDied { ranks, operation: Some(op.describe()), detail }
        }
        e => e,
    }
}

/// What every rank must agree on for one operation.
#[derive(PartialEq)]
struct Header {
    seq: u64,
    kind: &'static str,
    dtype: DataType,
    redop: Option<ReduceOp>,
    count: u64,
    root: Option<u64>,
}

impl Header {
    fn of(op: &Op) -> Header {
        Header {
            seq: op.seq,
            kind: op.kind.name(),
            dtype: op.dtype,
            redop: op.kind.reduces().then_some(op.redop),
            count: op.count as u64,
            root: op.kind.rooted().then_some(op.root as u64),
        }
    }

    /// The kinds a header may name, by their index in a mailbox.
    const KINDS: [OpKind; 6] = [
        OpKind::AllReduce,
        OpKind::AllGather,
        OpKind::ReduceScatter,
        OpKind::Broadcast,
        OpKind::Reduce,
        OpKind::AllToAll,
    ];

    /// The header as mailbox words: sequence, operation, type, operator, count, root.
    fn words(&self) -> [u64; ENTRY_WORDS - 1] {
        let kind = Header::KINDS.iter().position(|k| k.name() == self.kind).map_or(u64::MAX, |i| i as u64);
        [
            self.seq,
            kind,
            self.dtype.code() as u64,
            self.redop.map_or(u64::MAX, |r| r.code() as u64),
            self.count,
            self.root.unwrap_or(u64::MAX),
            0,
        ]
    }

    fn from_words(w: &[u64; ENTRY_WORDS - 1]) -> Option<Header> {
        let kind = Header::KINDS.get(usize::try_from(w[1]).ok()?)?.name();
        let dtype = DataType::from_code(u8::try_from(w[2]).ok()?)?;
        let redop = match w[3] {
            u64::MAX => None,
            c => Some(ReduceOp::from_code(u8::try_from(c).ok()?)?),
        };
        let root = Some(w[5]).filter(|&x| x != u64::MAX);
        Some(Header { seq: w[0], kind, dtype, redop, count: w[4], root })
    }

    /// What differs between this rank's (`me`) header and rank `r`'s, in words.
    fn diff(&self, o: &Header, me: usize, r: usize) -> Vec<String> {
        let mut d = Vec::new();
        if o.kind != self.kind || o.seq != self.seq {
            d.push(format!(
                "rank {me} called {} #{} but rank {r} called {} #{}",
                self.kind, self.seq, o.kind, o.seq
            ));
        }
        if o.count != self.count {
            d.push(format!("count {} on rank {me}, {} on rank {r}", self.count, o.count));
        }
        if o.dtype != self.dtype {
            d.push(format!("type {} on rank {me}, {} on rank {r}", self.dtype, o.dtype));
        }
        if o.redop != self.redop {
            let name = |x: Option<ReduceOp>| x.map_or("none".to_string(), |x| x.to_string());
            d.push(format!("operator {} on rank {me}, {} on rank {r}", name(self.redop), name(o.redop)));
        }
        if o.root != self.root {
            let name = |x: Option<u64>| x.map_or("none".to_string(), |x| x.to_string());
            d.push(format!("root {} on rank {me}, {} on rank {r}", name(self.root), name(o.root)));
        }
        d
    }
}

/// Waits for the communicator to fail (or the engine to stop); on failure writes every value a
/// stream of this rank could be waiting for into its own words, so the waits end.
fn watch(ring: &Mutex<Ring>, stop: &AtomicBool, health: &crate::state::Health, device: &Device) {
    while !stop.load(Ordering::Acquire) {
        if health.is_failed() {
            release_waits(ring, device);
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Writes, from a stream of its own, values past everything this rank's streams were told to
/// wait for into its own words.
fn release_waits(ring: &Mutex<Ring>, device: &Device) {
    let mut r = lock(ring);
    let mut abort = || -> ferrocm_runtime::Result<()> {
        let s = device.create_stream()?;
        let (me, n) = (r.rank, r.nranks);
        for p in (0..n).filter(|&p| p != me) {
            let (ready, ack) = (r.received[p].wrapping_add(ABORT_AHEAD), r.sent[p].wrapping_add(ABORT_AHEAD));
            s.write_value(&mut r.words.slice_mut(READY(p)..READY(p) + 1)?, ready)?;
            s.write_value(&mut r.words.slice_mut(ACK(n, p)..ACK(n, p) + 1)?, ack)?;
        }
        s.synchronize()
    };
    let _ = abort();
}

/// The chunks of a ring operation: `n` blocks of `count / n` elements, the last taking the rest
/// (the block layout of all-gather and reduce-scatter, where `count` is a multiple of `n`).
fn block(count: usize, n: usize, i: usize) -> (usize, usize) {
    let base = count / n;
    let start = base * i;
    (start, if i == n - 1 { count - start } else { base })
}

/// The enqueuing of one operation's pieces on one rank's stream.
struct Queue<'a> {
    ring: &'a mut Ring,
    stream: &'a Stream,
    n: usize,
    rank: usize,
    op: &'a Op,
}

/// One piece: what it combines and where the result goes.
struct Piece {
    /// Receive a piece from this rank.
    from: Option<usize>,
    /// The rank's own data: reduced with the received piece, or (not receiving) sent as is.
    input: Option<u64>,
    /// Where the result is also stored on this rank.
    output: Option<u64>,
    /// Send the result to this rank.
    to: Option<usize>,
    /// The last combine of an average: divide by the number of ranks.
    finalize: bool,
    elems: u64,
}

impl Queue<'_> {
    fn es(&self) -> u64 {
        self.op.dtype.size() as u64
    }

    /// The ring neighbours: this rank receives from the left one and sends to the right one.
    fn left(&self) -> usize {
        (self.rank + self.n - 1) % self.n
    }

    fn right(&self) -> usize {
        (self.rank + 1) % self.n
    }

    /// The address of slot `index` (modulo [`SLOTS`]) of the lane `from` writes in `to`'s
    /// inbox `buf`.
    fn slot_addr(&self, buf: &SharedBuffer<u8>, from: usize, to: usize, index: u64) -> u64 {
        let lane_bytes = SLOTS * self.ring.slot_bytes;
        buf.device_ptr().0 + lane(from, to) * lane_bytes + (index % SLOTS) * self.ring.slot_bytes
    }

    /// Elements per piece.
    fn piece_elems(&self) -> u64 {
        self.ring.slot_bytes / self.es()
    }

    fn region(&self, addr: u64, elems: u64) -> Region {
        Region { addr, len: elems }
    }

    /// Enqueues one piece: the waits, one or two kernels, the counter writes.
    fn piece(&mut self, p: Piece) -> Result<()> {
        if p.elems == 0 {
            return Ok(());
        }
        let (s, es, n) = (self.stream, self.es(), self.n as u32);
        let bytes = p.elems * es;
        let (me, nr) = (self.rank, self.n);
        let mut src = None;
        if let Some(from) = p.from {
            let next = self.ring.received[from] + 1;
            s.wait_value(&self.ring.words.slice(READY(from)..READY(from) + 1)?, next, WaitCondition::Geq)?;
            src = Some(self.slot_addr(&self.ring.inbox, from, me, self.ring.received[from]));
        }
        let mut dst = None;
        if let Some(to) = p.to {
            let sent = self.ring.sent[to];
            if sent >= SLOTS {
                let ack = ACK(nr, to);
                s.wait_value(&self.ring.words.slice(ack..ack + 1)?, sent - SLOTS + 1, WaitCondition::Geq)?;
            }
            let inbox = Ring::peer(&mut self.ring.peer_inbox, to, "inbox")?;
            let inbox_base = SharedBuffer::device_ptr(inbox).0;
            let lane_bytes = SLOTS * self.ring.slot_bytes;
            dst = Some(inbox_base + lane(me, to) * lane_bytes + (sent % SLOTS) * self.ring.slot_bytes);
        }
        // The result goes to the local output if there is one (then on to the right slot), or
        // straight to the right slot.
        let first = p
            .output
            .or(dst)
            .ok_or_else(|| CclError::bootstrap("device engine", "a piece with nowhere to go"))?;
        match (src, p.input) {
            (Some(a), Some(b)) => launch_reduce(
                s,
                self.op.dtype,
                self.op.redop,
                p.finalize,
                n,
                self.region(a, p.elems),
                self.region(b, p.elems),
                self.region(first, p.elems),
                p.elems,
            )?,
            (Some(a), None) if a != first => launch_copy(s, a, first, bytes)?,
            (None, Some(b)) if b != first => launch_copy(s, b, first, bytes)?,
            _ => {}
        }
        if let (Some(d), true) = (dst, p.output.is_some()) {
            launch_copy(s, first, d, bytes)?;
        }
        if let Some(from) = p.from {
            self.ring.received[from] += 1;
            let consumed = self.ring.received[from];
            let words = Ring::peer(&mut self.ring.peer_words, from, "words")?;
            s.write_value(&mut words.slice_mut(ACK(nr, me)..ACK(nr, me) + 1)?, consumed)?;
        }
        if let Some(to) = p.to {
            self.ring.sent[to] += 1;
            let filled = self.ring.sent[to];
            let words = Ring::peer(&mut self.ring.peer_words, to, "words")?;
            s.write_value(&mut words.slice_mut(READY(me)..READY(me) + 1)?, filled)?;
        }
        Ok(())
    }

    /// Runs `f(offset, elems)` over the pieces of a chain of `elems` elements.
    fn pieces(&mut self, elems: usize, mut f: impl FnMut(&mut Self, u64, u64) -> Result<()>) -> Result<()> {
        let per = self.piece_elems();
        let mut off = 0u64;
        while off < elems as u64 {
            let k = per.min(elems as u64 - off);
            f(self, off, k)?;
            off += k;
        }
        Ok(())
    }

    /// Runs `f(offset)` over the slices of a ring operation on `count` elements in `n` blocks
    /// (`block`): slice `k` is piece `k` of every block, at offset `k * piece` into each.
    fn slices(&mut self, count: usize, mut f: impl FnMut(&mut Self, u64) -> Result<()>) -> Result<()> {
        let per = self.piece_elems();
        // The last block is the longest.
        let longest = block(count, self.n, self.n - 1).1 as u64;
        let mut off = 0u64;
        while off < longest {
            f(self, off)?;
            off += per;
        }
        Ok(())
    }

    /// Block `b`'s piece at slice offset `off`: its first element and length (0 past the
    /// block's end: both neighbours compute the same and skip it).
    fn slice_of(&self, count: usize, b: usize, off: u64) -> (u64, u64) {
        let (start, len) = block(count, self.n, b);
        (start as u64 + off, (len as u64).saturating_sub(off).min(self.piece_elems()))
    }

    /// One slice of the ring reduce-scatter over `count` elements in `n` blocks, leaving the
    /// slice of block `rank`'s reduction at `out` (block-relative) and, with `gather`, sending
    /// it on as the first step of the all-gather. At step `s` (0..n-1) this rank sends block
    /// `rank + n - 1 - s`; what it receives at step `s` is what it sends, reduced with its own,
    /// at step `s + 1`.
    fn reduce_scatter_slice(
        &mut self,
        send: u64,
        count: usize,
        out: u64,
        off: u64,
        gather: bool,
    ) -> Result<()> {
        let (n, r, es) = (self.n, self.rank, self.es());
        let (left, right) = (self.left(), self.right());
        let avg = self.op.redop == crate::ReduceOp::Avg;
        for step in 0..n {
            let b = (r + n - 1 - step) % n;
            let (at, k) = self.slice_of(count, b, off);
            let last = step == n - 1;
            self.piece(Piece {
                from: (step > 0).then_some(left),
                input: Some(send + at * es),
                output: last.then_some(out + off * es),
                to: (!last || gather).then_some(right),
                finalize: last && avg,
                elems: k,
            })?;
        }
        Ok(())
    }

    /// One slice of the ring all-gather of `n` blocks into `recv` (`block`), steps `first..n`:
    /// at step 0 this rank sends its own block (from `own`, copied into place), at step `s` it
    /// receives block `rank - s` and (but at the last step) passes it on.
    fn all_gather_slice(&mut self, recv: u64, count: usize, own: u64, off: u64, first: usize) -> Result<()> {
        let (n, r, es) = (self.n, self.rank, self.es());
        let (left, right) = (self.left(), self.right());
        for step in first..n {
            let b = (r + n - step) % n;
            let (at, k) = self.slice_of(count, b, off);
            self.piece(Piece {
                from: (step > 0).then_some(left),
                input: (step == 0).then_some(own + off * es),
                output: Some(recv + at * es),
                to: (step < n - 1).then_some(right),
                finalize: false,
                elems: k,
            })?;
        }
        Ok(())
    }

    /// Ring reduce-scatter then all-gather, slice by slice; the last reduce-scatter step
    /// stores the reduced piece and sends it on (NCCL's recvReduceCopySend).
    fn all_reduce(&mut self) -> Result<()> {
        let (op, es) = (self.op, self.es());
        let (start, _) = block(op.count, self.n, self.rank);
        let mine = op.recv + start as u64 * es;
        self.slices(op.count, |q, off| {
            q.reduce_scatter_slice(op.send, op.count, mine, off, true)?;
            q.all_gather_slice(op.recv, op.count, mine, off, 1)
        })
    }

    fn reduce_scatter(&mut self) -> Result<()> {
        let op = self.op;
        let count = op.count * self.n;
        self.slices(count, |q, off| q.reduce_scatter_slice(op.send, count, op.recv, off, false))
    }

    fn all_gather(&mut self) -> Result<()> {
        let op = self.op;
        let count = op.count * self.n;
        self.slices(count, |q, off| q.all_gather_slice(op.recv, count, op.send, off, 0))
    }

    /// Pairwise exchange through every peer's lane: the rank's own block is a local copy; then,
    /// slice by slice, this rank sends its piece of block `rank + j` to rank `rank + j` and
    /// receives rank `rank - j`'s piece of block `rank` for every `j` in `1..n` (every send of
    /// a slice before its receives: a rank's sends of slice `k` wait only on its peers'
    /// receives of slice `k - SLOTS + 1` or earlier, so no wait depends on work queued behind
    /// it).
    fn all_to_all(&mut self) -> Result<()> {
        let (op, n, r, es) = (self.op, self.n, self.rank, self.es());
        let c = op.count as u64;
        let block = |b: usize, off: u64| (b as u64 * c + off) * es;
        launch_copy(self.stream, op.send + block(r, 0), op.recv + block(r, 0), c * es)?;
        let per = self.piece_elems();
        let mut off = 0u64;
        while off < c {
            let k = per.min(c - off);
            for j in 1..n {
                let to = (r + j) % n;
                self.piece(Piece {
                    from: None,
                    input: Some(op.send + block(to, off)),
                    output: None,
                    to: Some(to),
                    finalize: false,
                    elems: k,
                })?;
            }
            for j in 1..n {
                let from = (r + n - j) % n;
                self.piece(Piece {
                    from: Some(from),
                    input: None,
                    output: Some(op.recv + block(from, off)),
                    to: None,
                    finalize: false,
                    elems: k,
                })?;
            }
            off += k;
        }
        Ok(())
    }

    /// A pipelined chain around the ring that ends at the root: the rank after the root sends
    /// its input, each next rank adds its own and passes it on, the root stores the result
    /// (other ranks' `recv` is not written).
    fn reduce(&mut self) -> Result<()> {
        let (op, n, r) = (self.op, self.n, self.rank);
        let es = self.es();
        let position = (r + n - op.root - 1) % n;
        let (first, is_root) = (position == 0, r == op.root);
        let avg = op.redop == crate::ReduceOp::Avg;
        self.pieces(op.count, |q, off, k| {
            q.piece(Piece {
                from: (!first).then_some(q.left()),
                input: Some(op.send + off * es),
                output: is_root.then_some(op.recv + off * es),
                to: (!is_root).then_some(q.right()),
                finalize: is_root && avg,
                elems: k,
            })
        })
    }

    /// A pipelined chain from the root around the ring; the rank before the root only receives.
    fn broadcast(&mut self) -> Result<()> {
        let (op, n, r) = (self.op, self.n, self.rank);
        let es = self.es();
        let is_root = r == op.root;
        let last = (op.root + n - 1) % n == r;
        self.pieces(op.count, |q, off, k| {
            q.piece(Piece {
                from: (!is_root).then_some(q.left()),
                input: is_root.then_some(op.send + off * es),
                output: Some(op.recv + off * es),
                to: (!last).then_some(q.right()),
                finalize: false,
                elems: k,
            })
        })
    }
}
