//! The host engine's algorithms: each operation as a sequence of sends and receives of chunks
//! over the links, with reductions in host memory. Every rank derives the same chunking from
//! the same (count, type, protocol), so a message's length is known to both ends.
//!
//! Before any data, the ranks pass their operation headers once around the ring, so every
//! rank's call is compared with its neighbour's (mismatches are caught where they start).
//!
//! Deadlock freedom: every step of every algorithm sends at most one chunk per link before it
//! receives, and a chunk fits in one FIFO slot; with several slots per FIFO the rank that is
//! furthest behind can always make progress.

use crate::config::{Algorithm, Protocol};
use crate::fifo::{LL_MAX_BYTES, SLOT_BYTES};
use crate::host::reduce::{finalize, reduce_into};
use crate::op::{Header, Op, OpKind, HEADER_BYTES};
use crate::state::{WaitError, Waiter};
use crate::transport::{Link, SendError};
use crate::CclError;

/// Why an operation stopped.
#[derive(Debug)]
pub(crate) enum ExecError {
    /// A wait passed the deadline (the bootstrap turns this into a report).
    TimedOut,
    /// The communicator failed, or this rank found a failure to report.
    Failed(CclError),
}

impl From<WaitError> for ExecError {
    fn from(e: WaitError) -> ExecError {
        match e {
            WaitError::TimedOut => ExecError::TimedOut,
            WaitError::Failed(e) => ExecError::Failed(e),
        }
    }
}

type R<T = ()> = Result<T, ExecError>;

/// `parts` balanced pieces of `len` elements: `(start, len)` each.
pub(crate) fn split(len: usize, parts: usize) -> Vec<(usize, usize)> {
    let (q, rem) = (len / parts, len % parts);
    let mut v = Vec::with_capacity(parts);
    let mut start = 0;
    for i in 0..parts {
        let l = q + (i < rem) as usize;
        v.push((start, l));
        start += l;
    }
    v
}

/// Raw memory of an operation's buffer.
#[derive(Clone, Copy)]
struct Mem(u64);

impl Mem {
    /// # Safety
    /// `[off, off + len)` lies inside the buffer, and no `&mut` view of it is alive.
    unsafe fn view<'a>(self, off: usize, len: usize) -> &'a [u8] {
        // SAFETY: forwarded to the caller.
        unsafe { std::slice::from_raw_parts((self.0 as *const u8).add(off), len) }
    }
    /// # Safety
    /// `[off, off + len)` lies inside the buffer, and no other view of it is alive.
    unsafe fn view_mut<'a>(self, off: usize, len: usize) -> &'a mut [u8] {
        // SAFETY: forwarded to the caller.
        unsafe { std::slice::from_raw_parts_mut((self.0 as *mut u8).add(off), len) }
    }
    /// Copies `len` bytes from `src + src_off` to `self + off` (they may overlap).
    ///
    /// # Safety
    /// Both ranges lie inside their buffers and no reference to either is alive.
    unsafe fn copy_from(self, off: usize, src: Mem, src_off: usize, len: usize) {
        // SAFETY: forwarded to the caller; `copy` allows overlap.
        unsafe { std::ptr::copy((src.0 as *const u8).add(src_off), (self.0 as *mut u8).add(off), len) }
    }
}

/// One operation (or one group of them) running on one rank.
pub(crate) struct Exec<'a> {
    pub rank: usize,
    pub nranks: usize,
    pub links: &'a mut [Option<Link>],
    pub w: &'a Waiter<'a>,
}

/// Bytes of a temporary chunk buffer for `op`: a chunk, or the whole (per-rank) data if smaller,
/// so small operations do not clear a bulk slot's worth of memory.
fn tmp_bytes(op: &Op) -> usize {
    chunk_bytes(op).min(op.bytes())
}

fn chunk_bytes(op: &Op) -> usize {
    let max = match op.protocol {
        Protocol::LowLatency => LL_MAX_BYTES,
        Protocol::Simple => SLOT_BYTES,
    };
    max / op.dtype.size() * op.dtype.size()
}

impl Exec<'_> {
    fn link(&mut self, peer: usize) -> R<&mut Link> {
        let rank = self.rank;
        self.links.get_mut(peer).and_then(Option::as_mut).ok_or_else(|| {
            ExecError::Failed(CclError::Transport {
                transport: "none",
                peer,
                reason: format!("rank {rank} has no connection to rank {peer}"),
            })
        })
    }

    fn send(&mut self, peer: usize, proto: Protocol, data: &[u8]) -> R {
        let w = self.w;
        let link = self.link(peer)?;
        let proto = link.protocol(proto);
        let kind = link.kind;
        link.sender.send(data, proto, w).map_err(|e| match e {
            SendError::Wait(e) => e.into(),
            SendError::Broken(reason) => {
                ExecError::Failed(CclError::Transport { transport: kind.name(), peer, reason })
            }
        })
    }

    fn recv<T>(&mut self, peer: usize, proto: Protocol, len: usize, f: impl FnOnce(&[u8]) -> T) -> R<T> {
        let w = self.w;
        let rank = self.rank;
        let link = self.link(peer)?;
        let proto = link.protocol(proto);
        let check = |d: &[u8]| {
            if d.len() != len {
                return Err(CclError::Mismatch {
                    operation: String::new(),
                    rank,
                    peer,
                    detail: format!("a message of {} bytes arrived where {len} were expected", d.len()),
                });
            }
            Ok(())
        };
        let r = match proto {
            Protocol::LowLatency => link.reader.recv_ll(w, peer, |d| check(d).map(|_| f(d)))?,
            Protocol::Simple => link.reader.recv(w, peer, |d| check(d).map(|_| f(d)))?,
        };
        r.map_err(ExecError::Failed)
    }

    fn send_header(&mut self, op: &Op, peer: usize) -> R {
        let h = Header::of(op, peer).encode();
        self.send(peer, Protocol::Simple, &h)
    }

    fn recv_header(&mut self, op: &Op, peer: usize) -> R {
        let mine = Header::of(op, self.rank);
        let rank = self.rank;
        let theirs = self.recv(peer, Protocol::Simple, HEADER_BYTES, Header::decode)?;
        let detail = match theirs {
            None => Some("the peer's operation header is unreadable".to_string()),
            Some(t) => mine.difference(&t),
        };
        match detail {
            None => Ok(()),
            Some(detail) => {
                Err(ExecError::Failed(CclError::Mismatch { operation: op.describe(), rank, peer, detail }))
            }
        }
    }

    /// Checks that every rank called the same collective: each rank sends its header to the next
    /// rank and compares the previous rank's with its own, so if no rank finds a difference all
    /// agree. Done before any data moves, so a rank that called something else fails (and aborts
    /// the communicator) before its partners wait for data that will not come.
    fn header_ring(&mut self, op: &Op) -> R {
        let (n, r) = (self.nranks, self.rank);
        self.send_header(op, (r + 1) % n)?;
        self.recv_header(op, (r + n - 1) % n)
    }

    /// Sends `len` bytes of `mem` at `off` (one chunk) to `peer`.
    fn send_mem(&mut self, peer: usize, proto: Protocol, mem: Mem, off: usize, len: usize) -> R {
        if len == 0 {
            return Ok(());
        }
        // SAFETY: the range is inside the operation's buffer (the algorithms index within it)
        // and nothing writes it during the send.
        let data = unsafe { mem.view(off, len) };
        self.send(peer, proto, data)
    }

    /// Receives one chunk from `peer` into `mem` at `off`.
    fn recv_copy(&mut self, peer: usize, proto: Protocol, mem: Mem, off: usize, len: usize) -> R {
        if len == 0 {
            return Ok(());
        }
        // SAFETY: the range is inside the operation's buffer and no other view of it is alive.
        let dst = unsafe { mem.view_mut(off, len) };
        self.recv(peer, proto, len, |d| dst.copy_from_slice(d))
    }

    /// Receives one chunk from `peer` and reduces it into `dst`.
    fn recv_reduce_into(&mut self, peer: usize, op: &Op, dst: &mut [u8]) -> R {
        if dst.is_empty() {
            return Ok(());
        }
        let (dt, redop) = (op.dtype, op.redop);
        self.recv(peer, op.protocol, dst.len(), |d| reduce_into(dt, redop, dst, d))
    }

    /// Runs one operation.
    pub fn run(&mut self, op: &Op) -> R {
        let (n, es) = (self.nranks, op.dtype.size());
        let (send_len, recv_len) = op.kind.buffer_lens(op.count, n).unwrap_or((0, 0));
        if op.kind.is_p2p() {
            return self.p2p(std::slice::from_ref(op));
        }
        if op.count == 0 {
            return Ok(());
        }
        if n == 1 {
            // One rank: the result is the input (avg of one value is itself).
            if !op.in_place && !op.kind.is_p2p() {
                // SAFETY: both buffers hold at least `min(send, recv)` elements.
                unsafe { Mem(op.recv).copy_from(0, Mem(op.send), 0, send_len.min(recv_len) * es) };
            }
            return Ok(());
        }
        self.header_ring(op)?;
        match (op.kind, op.algorithm) {
            (OpKind::AllReduce, Algorithm::Ring) => self.ring_all_reduce(op),
            (OpKind::AllReduce, Algorithm::Tree) => self.tree_all_reduce(op),
            (OpKind::AllReduce, Algorithm::OneShot) => self.oneshot_all_reduce(op),
            (OpKind::AllReduce, Algorithm::TwoShot) => self.twoshot_all_reduce(op),
            (OpKind::Broadcast, Algorithm::Ring) => self.chain_broadcast(op),
            (OpKind::Broadcast, Algorithm::Tree) => self.tree_broadcast(op),
            (OpKind::Broadcast, _) => self.direct_broadcast(op),
            (OpKind::Reduce, Algorithm::Ring) => self.chain_reduce(op),
            (OpKind::Reduce, Algorithm::Tree) => self.tree_reduce(op),
            (OpKind::Reduce, _) => self.direct_reduce(op),
            (OpKind::AllGather, Algorithm::Ring) => self.ring_all_gather(op),
            (OpKind::AllGather, _) => self.direct_all_gather(op),
            (OpKind::ReduceScatter, Algorithm::Ring) => self.ring_reduce_scatter(op),
            (OpKind::ReduceScatter, _) => self.direct_reduce_scatter(op),
            (OpKind::AllToAll, _) => self.all_to_all(op),
            (OpKind::Send, _) | (OpKind::Recv, _) => self.p2p(std::slice::from_ref(op)),
        }
    }

    fn copy_in_out(&self, op: &Op, dst_off: usize, len: usize) {
        if !op.in_place {
            // SAFETY: the caller passes ranges inside both buffers.
            unsafe { Mem(op.recv).copy_from(dst_off, Mem(op.send), 0, len) };
        }
    }

    // ------------------------------------------------------------------ all-reduce

    fn ring_all_reduce(&mut self, op: &Op) -> R {
        let (n, r, es) = (self.nranks, self.rank, op.dtype.size());
        let (next, prev) = ((r + 1) % n, (r + n - 1) % n);
        let c = chunk_bytes(op) / es;
        self.copy_in_out(op, 0, op.bytes());
        let buf = Mem(op.recv);
        let mut base = 0;
        while base < op.count {
            let len = (n * c).min(op.count - base);
            let parts = split(len, n);
            let chunk = |j: usize| ((base + parts[j % n].0) * es, parts[j % n].1 * es);
            for k in 0..n - 1 {
                let (s, l) = chunk(r + n - k);
                self.send_mem(next, op.protocol, buf, s, l)?;
                let (s, l) = chunk(r + 2 * n - k - 1);
                // SAFETY: chunk ranges lie inside the buffer; no other view is alive.
                let dst = unsafe { buf.view_mut(s, l) };
                self.recv_reduce_into(prev, op, dst)?;
                if k == n - 2 {
                    finalize(op.dtype, op.redop, dst, n);
                }
            }
            for k in 0..n - 1 {
                let (s, l) = chunk(r + 1 + n - k);
                self.send_mem(next, op.protocol, buf, s, l)?;
                let (s, l) = chunk(r + n - k);
                self.recv_copy(prev, op.protocol, buf, s, l)?;
            }
            base += len;
        }
        Ok(())
    }

    fn tree_all_reduce(&mut self, op: &Op) -> R {
        let (n, r) = (self.nranks, self.rank);
        let children: Vec<usize> = [2 * r + 1, 2 * r + 2].into_iter().filter(|&c| c < n).collect();
        let parent = (r > 0).then(|| (r - 1) / 2);
        self.copy_in_out(op, 0, op.bytes());
        let mut to = children.clone();
        to.extend(parent);
        let buf = Mem(op.recv);
        let cb = chunk_bytes(op);
        let total = op.bytes();
        for off in (0..total).step_by(cb) {
            let l = cb.min(total - off);
            for &c in &children {
                // SAFETY: the chunk lies inside the buffer; no other view is alive.
                let dst = unsafe { buf.view_mut(off, l) };
                self.recv_reduce_into(c, op, dst)?;
            }
            match parent {
                Some(p) => self.send_mem(p, op.protocol, buf, off, l)?,
                // SAFETY: as above.
                None => finalize(op.dtype, op.redop, unsafe { buf.view_mut(off, l) }, n),
            }
        }
        for off in (0..total).step_by(cb) {
            let l = cb.min(total - off);
            if let Some(p) = parent {
                self.recv_copy(p, op.protocol, buf, off, l)?;
            }
            for &c in &children {
                self.send_mem(c, op.protocol, buf, off, l)?;
            }
        }
        Ok(())
    }

    fn peers(&self) -> Vec<usize> {
        (0..self.nranks).filter(|&p| p != self.rank).collect()
    }

    /// Combines, in rank order, chunk contributions of every rank into `acc`: this rank's from
    /// `own`, the others' received from them.
    fn gather_reduce(&mut self, op: &Op, own: &[u8], acc: &mut [u8]) -> R {
        for j in 0..self.nranks {
            if j == self.rank {
                if j == 0 {
                    acc.copy_from_slice(own);
                } else {
                    reduce_into(op.dtype, op.redop, acc, own);
                }
            } else if j == 0 {
                let len = acc.len();
                self.recv(j, op.protocol, len, |d| acc.copy_from_slice(d))?;
            } else {
                self.recv_reduce_into(j, op, acc)?;
            }
        }
        Ok(())
    }

    fn oneshot_all_reduce(&mut self, op: &Op) -> R {
        let peers = self.peers();
        let cb = chunk_bytes(op);
        let (input, output) = (Mem(op.send), Mem(op.recv));
        let mut acc = vec![0u8; tmp_bytes(op)];
        let mut own = vec![0u8; tmp_bytes(op)];
        let total = op.bytes();
        for off in (0..total).step_by(cb) {
            let l = cb.min(total - off);
            for &p in &peers {
                self.send_mem(p, op.protocol, input, off, l)?;
            }
            // SAFETY: the chunk lies inside the input; no mutable view of it is alive.
            own[..l].copy_from_slice(unsafe { input.view(off, l) });
            self.gather_reduce(op, &own[..l], &mut acc[..l])?;
            finalize(op.dtype, op.redop, &mut acc[..l], self.nranks);
            // SAFETY: the chunk lies inside the output; `own` holds a copy of the input, so an
            // in-place output may be overwritten now.
            unsafe { output.view_mut(off, l) }.copy_from_slice(&acc[..l]);
        }
        Ok(())
    }

    fn twoshot_all_reduce(&mut self, op: &Op) -> R {
        let (n, r, es) = (self.nranks, self.rank, op.dtype.size());
        let peers = self.peers();
        let segs = split(op.count, n);
        let ce = chunk_bytes(op) / es;
        let (input, output) = (Mem(op.send), Mem(op.recv));
        let rounds = segs.iter().map(|s| s.1.div_ceil(ce)).max().unwrap_or(0);
        let piece = |seg: (usize, usize), i: usize| {
            let start = (i * ce).min(seg.1);
            ((seg.0 + start) * es, (seg.1 - start).min(ce) * es)
        };
        let mut acc = vec![0u8; (ce * es).min(op.bytes())];
        let mut own = vec![0u8; (ce * es).min(op.bytes())];
        // Reduce-scatter: each rank reduces its own segment from every rank's input.
        for i in 0..rounds {
            for &p in &peers {
                let (s, l) = piece(segs[p], i);
                self.send_mem(p, op.protocol, input, s, l)?;
            }
            let (s, l) = piece(segs[r], i);
            if l == 0 {
                continue;
            }
            // SAFETY: the piece lies inside the input; no mutable view is alive.
            own[..l].copy_from_slice(unsafe { input.view(s, l) });
            self.gather_reduce(op, &own[..l], &mut acc[..l])?;
            finalize(op.dtype, op.redop, &mut acc[..l], n);
            // SAFETY: inside the output; the input piece was copied out above.
            unsafe { output.view_mut(s, l) }.copy_from_slice(&acc[..l]);
        }
        // All-gather: each rank sends its reduced segment to every other.
        for i in 0..rounds {
            let (s, l) = piece(segs[r], i);
            for &p in &peers {
                self.send_mem(p, op.protocol, output, s, l)?;
            }
            for &p in &peers {
                let (s, l) = piece(segs[p], i);
                self.recv_copy(p, op.protocol, output, s, l)?;
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------------ broadcast and reduce

    /// Ranks numbered from the root: virtual rank `v` is real rank `(v + root) % n`.
    fn real(&self, v: usize, root: usize) -> usize {
        (v + root) % self.nranks
    }

    fn chunks(op: &Op) -> impl Iterator<Item = (usize, usize)> {
        let cb = chunk_bytes(op);
        let total = op.bytes();
        (0..total).step_by(cb.max(1)).map(move |off| (off, cb.min(total - off)))
    }

    fn chain_broadcast(&mut self, op: &Op) -> R {
        let (n, root) = (self.nranks, op.root);
        let v = (self.rank + n - root) % n;
        let next = (v + 1 < n).then(|| self.real(v + 1, root));
        let prev = (v > 0).then(|| self.real(v - 1, root));
        if v == 0 {
            self.copy_in_out(op, 0, op.bytes());
        }
        let buf = Mem(op.recv);
        for (off, l) in Self::chunks(op) {
            if let Some(p) = prev {
                self.recv_copy(p, op.protocol, buf, off, l)?;
            }
            if let Some(q) = next {
                self.send_mem(q, op.protocol, buf, off, l)?;
            }
        }
        Ok(())
    }

    /// Parent and children of this rank in the binary tree rooted at `root`.
    fn tree(&self, root: usize) -> (Option<usize>, Vec<usize>) {
        let n = self.nranks;
        let v = (self.rank + n - root) % n;
        let parent = (v > 0).then(|| self.real((v - 1) / 2, root));
        let children =
            [2 * v + 1, 2 * v + 2].into_iter().filter(|&c| c < n).map(|c| self.real(c, root)).collect();
        (parent, children)
    }

    fn tree_broadcast(&mut self, op: &Op) -> R {
        let (parent, children) = self.tree(op.root);
        if parent.is_none() {
            self.copy_in_out(op, 0, op.bytes());
        }
        let buf = Mem(op.recv);
        for (off, l) in Self::chunks(op) {
            if let Some(p) = parent {
                self.recv_copy(p, op.protocol, buf, off, l)?;
            }
            for &c in &children {
                self.send_mem(c, op.protocol, buf, off, l)?;
            }
        }
        Ok(())
    }

    fn direct_broadcast(&mut self, op: &Op) -> R {
        let root = op.root;
        let buf = Mem(op.recv);
        if self.rank == root {
            self.copy_in_out(op, 0, op.bytes());
            let peers = self.peers();
            for (off, l) in Self::chunks(op) {
                for &p in &peers {
                    self.send_mem(p, op.protocol, buf, off, l)?;
                }
            }
        } else {
            for (off, l) in Self::chunks(op) {
                self.recv_copy(root, op.protocol, buf, off, l)?;
            }
        }
        Ok(())
    }

    fn chain_reduce(&mut self, op: &Op) -> R {
        let (n, root) = (self.nranks, op.root);
        // The chain starts after the root and ends at it.
        let v = (self.rank + n - root - 1) % n;
        let at = |v: usize| (v + root + 1) % n;
        let next = (v + 1 < n).then(|| at(v + 1));
        let prev = (v > 0).then(|| at(v - 1));
        let mut acc = vec![0u8; tmp_bytes(op)];
        let (input, output) = (Mem(op.send), Mem(op.recv));
        for (off, l) in Self::chunks(op) {
            // SAFETY: the chunk lies inside the input; no mutable view is alive.
            acc[..l].copy_from_slice(unsafe { input.view(off, l) });
            if let Some(p) = prev {
                self.recv_reduce_into(p, op, &mut acc[..l])?;
            }
            match next {
                Some(q) => self.send(q, op.protocol, &acc[..l])?,
                None => {
                    finalize(op.dtype, op.redop, &mut acc[..l], n);
                    // SAFETY: the root's output holds the chunk; the input chunk was copied.
                    unsafe { output.view_mut(off, l) }.copy_from_slice(&acc[..l]);
                }
            }
        }
        Ok(())
    }

    fn tree_reduce(&mut self, op: &Op) -> R {
        let (parent, children) = self.tree(op.root);
        let mut acc = vec![0u8; tmp_bytes(op)];
        let (input, output) = (Mem(op.send), Mem(op.recv));
        for (off, l) in Self::chunks(op) {
            // SAFETY: the chunk lies inside the input; no mutable view is alive.
            acc[..l].copy_from_slice(unsafe { input.view(off, l) });
            for &c in &children {
                self.recv_reduce_into(c, op, &mut acc[..l])?;
            }
            match parent {
                Some(p) => self.send(p, op.protocol, &acc[..l])?,
                None => {
                    finalize(op.dtype, op.redop, &mut acc[..l], self.nranks);
                    // SAFETY: as in `chain_reduce`.
                    unsafe { output.view_mut(off, l) }.copy_from_slice(&acc[..l]);
                }
            }
        }
        Ok(())
    }

    fn direct_reduce(&mut self, op: &Op) -> R {
        let root = op.root;
        let input = Mem(op.send);
        if self.rank != root {
            for (off, l) in Self::chunks(op) {
                self.send_mem(root, op.protocol, input, off, l)?;
            }
            return Ok(());
        }
        let (mut acc, mut own) = (vec![0u8; tmp_bytes(op)], vec![0u8; tmp_bytes(op)]);
        for (off, l) in Self::chunks(op) {
            // SAFETY: inside the input; no mutable view is alive.
            own[..l].copy_from_slice(unsafe { input.view(off, l) });
            self.gather_reduce(op, &own[..l], &mut acc[..l])?;
            finalize(op.dtype, op.redop, &mut acc[..l], self.nranks);
            // SAFETY: inside the root's output; the input chunk was copied.
            unsafe { Mem(op.recv).view_mut(off, l) }.copy_from_slice(&acc[..l]);
        }
        Ok(())
    }

    // ------------------------------------------------------------------ gather and scatter

    /// Pieces of one rank's block: `(offset within the block, length)` in bytes.
    fn block_pieces(op: &Op) -> Vec<(usize, usize)> {
        Self::chunks(op).collect()
    }

    fn ring_all_gather(&mut self, op: &Op) -> R {
        let (n, r) = (self.nranks, self.rank);
        let (next, prev) = ((r + 1) % n, (r + n - 1) % n);
        let block = op.bytes();
        self.copy_in_out(op, r * block, block);
        let out = Mem(op.recv);
        for (off, l) in Self::block_pieces(op) {
            for k in 0..n - 1 {
                let sb = (r + n - k) % n;
                self.send_mem(next, op.protocol, out, sb * block + off, l)?;
                let rb = (r + 2 * n - k - 1) % n;
                self.recv_copy(prev, op.protocol, out, rb * block + off, l)?;
            }
        }
        Ok(())
    }

    fn direct_all_gather(&mut self, op: &Op) -> R {
        let r = self.rank;
        let block = op.bytes();
        self.copy_in_out(op, r * block, block);
        let peers = self.peers();
        let out = Mem(op.recv);
        for (off, l) in Self::block_pieces(op) {
            for &p in &peers {
                self.send_mem(p, op.protocol, out, r * block + off, l)?;
            }
            for &p in &peers {
                self.recv_copy(p, op.protocol, out, p * block + off, l)?;
            }
        }
        Ok(())
    }

    fn ring_reduce_scatter(&mut self, op: &Op) -> R {
        let (n, r) = (self.nranks, self.rank);
        let (next, prev) = ((r + 1) % n, (r + n - 1) % n);
        let block = op.bytes();
        let (input, output) = (Mem(op.send), Mem(op.recv));
        let mut acc = vec![0u8; tmp_bytes(op)];
        for (off, l) in Self::block_pieces(op) {
            // Step k sends block r-1-k and receives block r-2-k; the last receives block r.
            let first = (r + n - 1) % n;
            self.send_mem(next, op.protocol, input, first * block + off, l)?;
            for k in 0..n - 1 {
                let b = (r + 2 * n - 2 - k) % n;
                // SAFETY: inside the input; no mutable view of the input is alive.
                acc[..l].copy_from_slice(unsafe { input.view(b * block + off, l) });
                self.recv_reduce_into(prev, op, &mut acc[..l])?;
                if k < n - 2 {
                    self.send(next, op.protocol, &acc[..l])?;
                }
            }
            finalize(op.dtype, op.redop, &mut acc[..l], n);
            // SAFETY: inside the output; an in-place output (block r of the input) was read
            // into `acc` above.
            unsafe { output.view_mut(off, l) }.copy_from_slice(&acc[..l]);
        }
        Ok(())
    }

    fn direct_reduce_scatter(&mut self, op: &Op) -> R {
        let r = self.rank;
        let block = op.bytes();
        let peers = self.peers();
        let (input, output) = (Mem(op.send), Mem(op.recv));
        let (mut acc, mut own) = (vec![0u8; tmp_bytes(op)], vec![0u8; tmp_bytes(op)]);
        for (off, l) in Self::block_pieces(op) {
            for &p in &peers {
                self.send_mem(p, op.protocol, input, p * block + off, l)?;
            }
            // SAFETY: inside the input; no mutable view is alive.
            own[..l].copy_from_slice(unsafe { input.view(r * block + off, l) });
            self.gather_reduce(op, &own[..l], &mut acc[..l])?;
            finalize(op.dtype, op.redop, &mut acc[..l], self.nranks);
            // SAFETY: inside the output; the in-place input block was copied into `own`.
            unsafe { output.view_mut(off, l) }.copy_from_slice(&acc[..l]);
        }
        Ok(())
    }

    fn all_to_all(&mut self, op: &Op) -> R {
        let r = self.rank;
        let block = op.bytes();
        let peers = self.peers();
        let (input, output) = (Mem(op.send), Mem(op.recv));
        // SAFETY: distinct buffers (all-to-all is out of place); block r of each.
        unsafe { output.copy_from(r * block, input, r * block, block) };
        for (off, l) in Self::block_pieces(op) {
            for &p in &peers {
                self.send_mem(p, op.protocol, input, p * block + off, l)?;
            }
            for &p in &peers {
                self.recv_copy(p, op.protocol, output, p * block + off, l)?;
            }
        }
        Ok(())
    }

    // ------------------------------------------------------------------ point to point

    /// Sends and receives of one group, progressed together chunk by chunk so that any
    /// pattern of matching calls completes.
    pub fn p2p(&mut self, ops: &[Op]) -> R {
        let me = self.rank;
        // Sends to self are copies into the matching receives from self, in order.
        let self_sends: Vec<&Op> = ops.iter().filter(|o| o.kind == OpKind::Send && o.root == me).collect();
        let self_recvs: Vec<&Op> = ops.iter().filter(|o| o.kind == OpKind::Recv && o.root == me).collect();
        if self_sends.len() != self_recvs.len() {
            return Err(ExecError::Failed(CclError::Group {
                reason: format!(
                    "{} send(s) to this rank ({me}) but {} recv(s) from it in the same group",
                    self_sends.len(),
                    self_recvs.len()
                ),
            }));
        }
        for (s, r) in self_sends.iter().zip(&self_recvs) {
            if s.count != r.count || s.dtype != r.dtype {
                return Err(ExecError::Failed(CclError::Mismatch {
                    operation: r.describe(),
                    rank: me,
                    peer: me,
                    detail: format!(
                        "a send of {} {} to self met a recv of {} {}",
                        s.count, s.dtype, r.count, r.dtype
                    ),
                }));
            }
            // SAFETY: both buffers hold `count` elements; they are distinct or identical.
            unsafe { Mem(r.recv).copy_from(0, Mem(s.send), 0, s.bytes()) };
        }
        // Each link carries at most SUB messages per round (a round is a chunk index and a
        // sub-round), both ends derive the same rounds, so the deadlock argument of the module
        // holds for any pattern of matching calls.
        const SUB: usize = 4;
        let remote: Vec<(&Op, usize)> = {
            let mut seen: Vec<(usize, OpKind)> = Vec::new();
            ops.iter()
                .filter(|o| o.root != me && o.count > 0)
                .map(|o| {
                    let k = seen.iter().filter(|&&x| x == (o.root, o.kind)).count();
                    seen.push((o.root, o.kind));
                    (o, k / SUB)
                })
                .collect()
        };
        let chunks = remote.iter().map(|(o, _)| o.bytes().div_ceil(chunk_bytes(o))).max().unwrap_or(0);
        let subs = remote.iter().map(|r| r.1 + 1).max().unwrap_or(0);
        // Chunk index 0 is the header; data chunk j travels at index j + 1.
        for i in 0..chunks + 1 {
            for s in 0..subs {
                for &(o, _) in remote.iter().filter(|r| r.1 == s && r.0.kind == OpKind::Send) {
                    if i == 0 {
                        self.send_header(o, o.root)?;
                        continue;
                    }
                    let cb = chunk_bytes(o);
                    let off = (i - 1) * cb;
                    if off < o.bytes() {
                        self.send_mem(o.root, o.protocol, Mem(o.send), off, cb.min(o.bytes() - off))?;
                    }
                }
                for &(o, _) in remote.iter().filter(|r| r.1 == s && r.0.kind == OpKind::Recv) {
                    if i == 0 {
                        self.recv_header(o, o.root)?;
                        continue;
                    }
                    let cb = chunk_bytes(o);
                    let off = (i - 1) * cb;
                    if off < o.bytes() {
                        self.recv_copy(o.root, o.protocol, Mem(o.recv), off, cb.min(o.bytes() - off))?;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn split_is_balanced_and_covers() {
        for (len, parts) in [(0, 3), (1, 4), (10, 3), (17, 8), (1000, 7)] {
            let s = split(len, parts);
            assert_eq!(s.len(), parts);
            assert_eq!(s.iter().map(|p| p.1).sum::<usize>(), len);
            let (lo, hi) = (s.iter().map(|p| p.1).min().unwrap(), s.iter().map(|p| p.1).max().unwrap());
            assert!(hi - lo <= 1);
            for w in s.windows(2) {
                assert_eq!(w[0].0 + w[0].1, w[1].0);
            }
        }
    }
}
