//! The device engine between processes of one host: rings over staging buffers in exportable
//! device memory, ordered by stream memory operations (NCCL's simple protocol).
//!
//! Each rank allocates an inbox of [`SLOTS`] slots (`FERROCM_CCL_BUFFSIZE` bytes in all,
//! [`crate::Config::buffsize`]) and two words as
//! [`SharedBuffer`]s on its own device, and hands both to its ring neighbours over Unix sockets
//! (`SCM_RIGHTS`, as the shm transport does) at init; it maps its right neighbour's inbox and
//! words and its left neighbour's words. Word 0 of a rank's words (`ready`) counts the slots its
//! left neighbour has filled; word 1 (`ack`) counts the slots of its right neighbour's inbox that
//! the right neighbour has consumed. Per piece of data, on the rank's stream:
//!
//! - receiving: wait until `ready` reaches the piece's number, read the slot (a reduce or copy
//!   kernel), then write the count of consumed slots into the left neighbour's `ack`;
//! - sending: wait until `ack` says the slot's previous piece was consumed, write the slot of
//!   the right neighbour's inbox (the same kernel), then write the count of filled slots into
//!   the right neighbour's `ready`.
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
//! receiving and sending, and at most two pieces are ever in flight towards a neighbour: the
//! ring cannot fill its slots and wait on itself, whatever the message size. (Enqueuing every
//! piece of a block per step instead deadlocks once a block has more pieces than [`SLOTS`]: each
//! rank's fifth send of step 0 waits for an acknowledgement its neighbour gives only in step 1,
//! queued behind its own step-0 sends.) Blocks of unequal length give zero-length pieces at the
//! tail of the shorter blocks; sender and receiver compute the same lengths and both skip them.
//!
//! The host side only enqueues, after one rendezvous per operation over the bootstrap (an
//! all-gather of the operation's header): there mismatched calls are caught and a rank that does
//! not arrive within `FERROCM_CCL_TIMEOUT` is named, before any stream waits on a word. A rank
//! that dies after that leaves its neighbours' streams waiting on words that never come: a
//! watchdog thread sees the communicator fail (the bootstrap notices the death) and writes every
//! awaited value into this rank's own words from a stream of its own (NCCL's abort), so the
//! streams drain (the results are garbage) and every later call returns the failure.

use std::io::{Read, Write};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferrocm_runtime::{AsDeviceSlice, Device, ShareableHandle, SharedBuffer, Stream, WaitCondition};

use super::{launch_copy, launch_reduce, Region};
use crate::bootstrap::TimeoutReport;
use crate::comm::Core;
use crate::op::{Op, OpKind};
use crate::state::lock;
use crate::types::{DataType, ReduceOp};
use crate::wire::{Reader, Writer};
use crate::{CclError, Result};

/// Slots per inbox: the pieces one rank may have in flight towards its right neighbour.
pub(crate) const SLOTS: u64 = 4;
/// How far past every awaited value the abort writes (the waits are cyclic, 2^63 wide).
const ABORT_AHEAD: u64 = 1 << 62;

const READY: usize = 0;
const ACK: usize = 1;

/// The operations this engine runs; the rest go to the host engine.
pub(crate) fn supports(kind: OpKind) -> bool {
    matches!(
        kind,
        OpKind::AllReduce | OpKind::AllGather | OpKind::ReduceScatter | OpKind::Broadcast | OpKind::Reduce
    )
}

fn socket_name(magic: u64, rank: usize) -> String {
    format!("ferrocm-ccl-ipc-{magic:016x}-{rank}")
}

/// The rank's mapped memory and its counters; one operation enqueues at a time.
struct Ring {
    inbox: SharedBuffer<u8>,
    words: SharedBuffer<u64>,
    right_inbox: SharedBuffer<u8>,
    right_words: SharedBuffer<u64>,
    /// The left neighbour's words (`None` with two ranks: the right neighbour's).
    left_words: Option<SharedBuffer<u64>>,
    /// Bytes per slot (one piece).
    slot_bytes: u64,
    /// Pieces sent to the right neighbour and received from the left one, over the
    /// communicator's life.
    sent: u64,
    received: u64,
}

/// The cross-process device engine of one rank.
pub(crate) struct IpcEngine {
    rank: usize,
    nranks: usize,
    device: Device,
    health: Arc<crate::state::Health>,
    ring: Arc<Mutex<Ring>>,
    stop: Arc<AtomicBool>,
    watchdog: Option<std::thread::JoinHandle<()>>,
}

/// What one rank sends a neighbour at init: its rank and the handles of its inbox and words.
fn send_mine(
    sock: &UnixStream,
    me: usize,
    inbox: &SharedBuffer<u8>,
    words: &SharedBuffer<u64>,
) -> std::io::Result<()> {
    let io = |e: ferrocm_runtime::Error| std::io::Error::other(e.to_string());
    (&*sock).write_all(&(me as u64).to_le_bytes())?;
    inbox.export().map_err(io)?.send(sock).map_err(io)?;
    words.export().map_err(io)?.send(sock).map_err(io)
}

fn recv_theirs(sock: &UnixStream) -> std::io::Result<(usize, ShareableHandle, ShareableHandle)> {
    let io = |e: ferrocm_runtime::Error| std::io::Error::other(e.to_string());
    let mut b = [0u8; 8];
    (&*sock).read_exact(&mut b)?;
    let inbox = ShareableHandle::recv(sock).map_err(io)?;
    let words = ShareableHandle::recv(sock).map_err(io)?;
    Ok((u64::from_le_bytes(b) as usize, inbox, words))
}

/// A rank's half-built ring: its own staging memory and listening socket, before the ranks
/// have agreed that every one of them could make theirs.
pub(crate) struct Prepared {
    inbox: SharedBuffer<u8>,
    words: SharedBuffer<u64>,
    listener: UnixListener,
}

impl IpcEngine {
    /// Allocates this rank's exportable staging memory and opens its socket (no communication:
    /// the caller all-gathers whether every rank could, then calls [`IpcEngine::connect`]).
    pub fn prepare(core: &Core) -> Result<Prepared> {
        let rank = core.rank;
        let err = |reason: String| CclError::Transport { transport: "ipc", peer: rank, reason };
        let device = &core.device;
        let inbox = SharedBuffer::<u8>::new(device, core.config.buffsize)?;
        let mut words = SharedBuffer::<u64>::new(device, 2)?;
        device.create_stream()?.copy_htod(&[0u64, 0], &mut words)?;
        let addr = SocketAddr::from_abstract_name(socket_name(core.magic, rank).as_bytes())
            .map_err(|e| err(format!("socket name: {e}")))?;
        let listener =
            UnixListener::bind_addr(&addr).map_err(|e| err(format!("listening on a Unix socket: {e}")))?;
        listener.set_nonblocking(true).map_err(|e| err(e.to_string()))?;
        Ok(Prepared { inbox, words, listener })
    }

    /// Connects the ring: every rank of the communicator calls this after a successful
    /// [`IpcEngine::prepare`] on every rank (it all-gathers over the bootstrap once).
    pub fn connect(core: &Arc<Core>, prepared: Prepared) -> Result<IpcEngine> {
        let Prepared { inbox, words, listener } = prepared;
        let (rank, n, timeout) = (core.rank, core.nranks, core.config.timeout);
        let (left, right) = ((rank + n - 1) % n, (rank + 1) % n);
        let err = |peer: usize, reason: String| CclError::Transport { transport: "ipc", peer, reason };
        let device = &core.device;
        // Connect to each neighbour (once when they are the same rank) and send this rank's
        // handles; accept each neighbour's connection and receive theirs.
        let mut neighbours = vec![right];
        if left != right {
            neighbours.push(left);
        }
        let mut outgoing = Vec::new();
        for &p in &neighbours {
            let addr = SocketAddr::from_abstract_name(socket_name(core.magic, p).as_bytes())
                .map_err(|e| err(p, e.to_string()))?;
            let sock = UnixStream::connect_addr(&addr).map_err(|e| err(p, format!("connecting: {e}")))?;
            send_mine(&sock, rank, &inbox, &words).map_err(|e| err(p, format!("sending handles: {e}")))?;
            outgoing.push(sock);
        }
        let deadline = Instant::now() + timeout;
        let mut got: Vec<(usize, ShareableHandle, ShareableHandle)> = Vec::new();
        while got.len() < neighbours.len() {
            match listener.accept() {
                Ok((sock, _)) => {
                    sock.set_nonblocking(false).map_err(|e| err(rank, e.to_string()))?;
                    sock.set_read_timeout(Some(timeout)).map_err(|e| err(rank, e.to_string()))?;
                    let theirs =
                        recv_theirs(&sock).map_err(|e| err(rank, format!("receiving handles: {e}")))?;
                    if !neighbours.contains(&theirs.0) || got.iter().any(|g| g.0 == theirs.0) {
                        return Err(err(
                            theirs.0,
                            format!("rank {} is not a ring neighbour of rank {rank}", theirs.0),
                        ));
                    }
                    got.push(theirs);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    core.health.check()?;
                    if Instant::now() > deadline {
                        let missing =
                            neighbours.iter().copied().filter(|p| !got.iter().any(|g| g.0 == *p)).collect();
                        return Err(CclError::Timeout {
                            operation: "connecting the device engine's ring (init)".into(),
                            waited: timeout,
                            missing,
                            detail: format!("rank {rank} expected its neighbours' staging buffers"),
                        });
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(e) => return Err(err(rank, e.to_string())),
            }
        }
        drop(outgoing);
        let import = |p: usize| -> Result<(SharedBuffer<u8>, SharedBuffer<u64>)> {
            let (_, i, w) =
                got.iter().find(|g| g.0 == p).ok_or_else(|| err(p, "no handles received".into()))?;
            Ok((SharedBuffer::import(device, i)?, SharedBuffer::import(device, w)?))
        };
        let (right_inbox, right_words) = import(right)?;
        let left_words = if left != right { Some(import(left)?.1) } else { None };
        // Every rank has mapped its neighbours' memory before anyone writes into it.
        core.bootstrap.all_gather(Vec::new(), timeout)?;
        let ring = Arc::new(Mutex::new(Ring {
            inbox,
            words,
            right_inbox,
            right_words,
            left_words,
            slot_bytes: core.config.buffsize as u64 / SLOTS,
            sent: 0,
            received: 0,
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
            stop,
            watchdog: Some(watchdog),
        })
    }

    /// The rendezvous of one operation: every rank's header, compared; a mismatch fails every
    /// rank, a rank that does not arrive is named by the bootstrap's timeout.
    fn rendezvous(&self, core: &Core, op: &Op) -> Result<()> {
        let mine = Header::of(op);
        core.state.started.fetch_max(op.seq, Ordering::AcqRel);
        let all = match core.bootstrap.all_gather(mine.encode(), core.config.timeout) {
            Ok(all) => all,
            Err(CclError::Timeout { waited, missing, .. }) => {
                return Err(core.bootstrap.report_timeout(TimeoutReport {
                    seq: op.seq,
                    operation: op.describe(),
                    waited,
                    rank: self.rank,
                    waiting_on: missing.first().copied(),
                }))
            }
            Err(e) => return Err(in_operation(core.health.failure().unwrap_or(e), op)),
        };
        for (r, theirs) in all.iter().enumerate() {
            let diff = match Header::decode(theirs) {
                Some(h) => mine.diff(&h, self.rank, r),
                None => vec![format!("rank {r} sent an unreadable operation header")],
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
            _ => Err(CclError::Unsupported {
                what: format!("{} on the device engine between processes", op.kind.name()),
            }),
        }
    }
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

    fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u64(self.seq)
            .str(self.kind)
            .u8(self.dtype.code())
            .u8(self.redop.map_or(u8::MAX, ReduceOp::code))
            .u64(self.count)
            .u64(self.root.map_or(u64::MAX, |r| r));
        w.finish()
    }

    fn decode(b: &[u8]) -> Option<Header> {
        let mut r = Reader::new(b);
        let seq = r.u64().ok()?;
        let name = r.string().ok()?;
        let kind =
            [OpKind::AllReduce, OpKind::AllGather, OpKind::ReduceScatter, OpKind::Broadcast, OpKind::Reduce]
                .into_iter()
                .map(OpKind::name)
                .find(|k| *k == name)?;
        let dtype = DataType::from_code(r.u8().ok()?)?;
        let redop = match r.u8().ok()? {
            u8::MAX => None,
            c => Some(ReduceOp::from_code(c)?),
        };
        let count = r.u64().ok()?;
        let root = Some(r.u64().ok()?).filter(|&x| x != u64::MAX);
        Some(Header { seq, kind, dtype, redop, count, root })
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
    let (ready, ack) = (r.received.wrapping_add(ABORT_AHEAD), r.sent.wrapping_add(ABORT_AHEAD));
    let mut abort = || -> ferrocm_runtime::Result<()> {
        let s = device.create_stream()?;
        s.write_value(&mut r.words.slice_mut(READY..READY + 1)?, ready)?;
        s.write_value(&mut r.words.slice_mut(ACK..ACK + 1)?, ack)?;
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

/// Where a piece's result goes besides the right neighbour's slot.
struct Piece {
    /// Receive a piece from the left neighbour.
    recv: bool,
    /// The rank's own data: reduced with the received piece, or (not receiving) sent as is.
    input: Option<u64>,
    /// Where the result is also stored on this rank.
    output: Option<u64>,
    /// Send the result to the right neighbour.
    send: bool,
    /// The last combine of an average: divide by the number of ranks.
    finalize: bool,
    elems: u64,
}

impl Queue<'_> {
    fn es(&self) -> u64 {
        self.op.dtype.size() as u64
    }

    fn slot_addr(&self, buf: &SharedBuffer<u8>, index: u64) -> u64 {
        buf.device_ptr().0 + (index % SLOTS) * self.ring.slot_bytes
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
        let mut src = None;
        if p.recv {
            let next = self.ring.received + 1;
            s.wait_value(&self.ring.words.slice(READY..READY + 1)?, next, WaitCondition::Geq)?;
            src = Some(self.slot_addr(&self.ring.inbox, self.ring.received));
        }
        let mut dst = None;
        if p.send {
            if self.ring.sent >= SLOTS {
                let consumed = self.ring.sent - SLOTS + 1;
                s.wait_value(&self.ring.words.slice(ACK..ACK + 1)?, consumed, WaitCondition::Geq)?;
            }
            dst = Some(self.slot_addr(&self.ring.right_inbox, self.ring.sent));
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
        if p.recv {
            self.ring.received += 1;
            let consumed = self.ring.received;
            let left = self.ring.left_words.as_mut().unwrap_or(&mut self.ring.right_words);
            s.write_value(&mut left.slice_mut(ACK..ACK + 1)?, consumed)?;
        }
        if p.send {
            self.ring.sent += 1;
            let filled = self.ring.sent;
            s.write_value(&mut self.ring.right_words.slice_mut(READY..READY + 1)?, filled)?;
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
        let avg = self.op.redop == crate::ReduceOp::Avg;
        for step in 0..n {
            let b = (r + n - 1 - step) % n;
            let (at, k) = self.slice_of(count, b, off);
            let last = step == n - 1;
            self.piece(Piece {
                recv: step > 0,
                input: Some(send + at * es),
                output: last.then_some(out + off * es),
                send: !last || gather,
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
        for step in first..n {
            let b = (r + n - step) % n;
            let (at, k) = self.slice_of(count, b, off);
            self.piece(Piece {
                recv: step > 0,
                input: (step == 0).then_some(own + off * es),
                output: Some(recv + at * es),
                send: step < n - 1,
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
                recv: !first,
                input: Some(op.send + off * es),
                output: is_root.then_some(op.recv + off * es),
                send: !is_root,
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
                recv: !is_root,
                input: is_root.then_some(op.send + off * es),
                output: Some(op.recv + off * es),
                send: !last,
                finalize: false,
                elems: k,
            })
        })
    }
}
