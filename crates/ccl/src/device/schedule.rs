//! Each operation as a schedule of actions per rank (see the module above for the rules that
//! make them safe). `in_j`/`out_j` are rank `j`'s send and receive buffers, `scr_j` its scratch.
//!
//! | operation | algorithm | per rank |
//! |---|---|---|
//! | all-reduce | one-shot | wait for every input; reduce all inputs in rank order into `out_me` (in place: through the scratch buffers, in pieces) |
//! | all-reduce | two-shot | reduce segment `me` of every input into `out_me`, copy it into every `out_j` |
//! | all-reduce | ring | reduce-scatter then all-gather around the ring, one event per step, waiting for the next rank before overwriting what it reads |
//! | all-reduce | tree | reduce up a binary tree into each node's output, copy down |
//! | broadcast | one-shot / ring | copy from the root / from the previous rank of a chain |
//! | reduce, reduce-scatter, all-gather, all-to-all | direct | read the needed blocks of every peer's buffer |
//! | send/recv | direct | the receiver copies from the sender's buffer |

use std::collections::HashMap;

use super::{Deposit, Key, Region};
use crate::config::Algorithm;
use crate::host::algo::split;
use crate::op::{Op, OpKind};
use crate::types::{DataType, ReduceOp};
use crate::Result;

#[derive(Clone, Copy, Debug)]
pub(crate) enum Action {
    /// Record this rank's event `slot` for generation `gen` of operation `key`.
    Record {
        key: Key,
        slot: u16,
        gen: u32,
    },
    /// Make this rank's stream wait for `rank`'s record of `slot`/`gen`; `consume` forgets the
    /// record afterwards (a point-to-point record has exactly one waiter).
    Wait {
        key: Key,
        rank: usize,
        slot: u16,
        gen: u32,
        consume: bool,
    },
    Reduce {
        dtype: DataType,
        op: ReduceOp,
        finalize: bool,
        nranks: u32,
        a: Region,
        b: Region,
        out: Region,
        n: u64,
    },
    Copy {
        src: u64,
        dst: u64,
        bytes: u64,
    },
}

const ARRIVE: u16 = 0;
const DONE: u16 = 1;
const UP: u16 = 2;
const DOWN: u16 = 3;
fn rs(k: usize) -> u16 {
    4 + k as u16
}
fn ag(n: usize, k: usize) -> u16 {
    (4 + n + k) as u16
}
fn ready(n: usize, peer: usize) -> u16 {
    (4 + 2 * n + 2 * peer) as u16
}
fn received(n: usize, peer: usize) -> u16 {
    (5 + 2 * n + 2 * peer) as u16
}

struct Sched {
    key: Key,
    me: usize,
    n: usize,
    dtype: DataType,
    redop: ReduceOp,
    es: u64,
    acts: Vec<Action>,
}

impl Sched {
    fn record(&mut self, slot: u16, gen: u32) {
        self.acts.push(Action::Record { key: self.key, slot, gen });
    }
    fn wait(&mut self, rank: usize, slot: u16, gen: u32) {
        self.acts.push(Action::Wait { key: self.key, rank, slot, gen, consume: false });
    }
    fn wait_all(&mut self, slot: u16, gen: u32) {
        let me = self.me;
        for j in (0..self.n).filter(|&j| j != me) {
            self.wait(j, slot, gen);
        }
    }
    fn copy(&mut self, src: u64, dst: u64, elems: u64) {
        if src != dst {
            self.acts.push(Action::Copy { src, dst, bytes: elems * self.es });
        }
    }
    fn reduce(&mut self, a: u64, b: u64, out: u64, elems: u64, finalize: bool) {
        let r = |addr| Region { addr, len: elems };
        self.acts.push(Action::Reduce {
            dtype: self.dtype,
            op: self.redop,
            finalize,
            nranks: self.n as u32,
            a: r(a),
            b: r(b),
            out: r(out),
            n: elems,
        });
    }
    /// `out = inputs[0] op inputs[1] op ...`, the last step finalizing (an average's division).
    fn chain(&mut self, inputs: &[u64], out: u64, elems: u64) {
        match inputs {
            [] => {}
            [only] => self.copy(*only, out, elems),
            [first, rest @ ..] => {
                let mut acc = *first;
                for (i, &x) in rest.iter().enumerate() {
                    self.reduce(acc, x, out, elems, i + 1 == rest.len());
                    acc = out;
                }
            }
        }
    }
    fn at(&self, base: u64, elems: usize) -> u64 {
        base + elems as u64 * self.es
    }
    /// Ranks in order starting at `first`.
    fn rotated(&self, first: usize) -> Vec<usize> {
        (0..self.n).map(|k| (first + k) % self.n).collect()
    }
}

/// The schedule of one collective for rank `me`, given every rank's deposit.
pub(crate) fn collective(me: usize, n: usize, d: &[Deposit]) -> Vec<Action> {
    let op = &d[me].op;
    let mut s = Sched {
        key: Key::Coll(op.seq),
        me,
        n,
        dtype: op.dtype,
        redop: op.redop,
        es: op.dtype.size() as u64,
        acts: Vec::new(),
    };
    let count = op.count as u64;
    if count == 0 {
        return s.acts;
    }
    let input = |j: usize| d[j].op.send;
    let output = |j: usize| d[j].op.recv;
    if n == 1 {
        let elems = op.kind.buffer_lens(op.count, 1).map_or(0, |l| l.0.min(l.1)) as u64;
        if !op.in_place {
            s.copy(input(me), output(me), elems);
        }
        return s.acts;
    }
    match (op.kind, op.algorithm) {
        (OpKind::AllReduce, Algorithm::TwoShot) => {
            let seg = split(op.count, n)[me];
            s.record(ARRIVE, 0);
            s.wait_all(ARRIVE, 0);
            let ins: Vec<u64> = s.rotated(me).iter().map(|&j| s.at(input(j), seg.0)).collect();
            let mine = s.at(output(me), seg.0);
            s.chain(&ins, mine, seg.1 as u64);
            for j in (0..n).filter(|&j| j != me) {
                let dst = s.at(output(j), seg.0);
                s.copy(mine, dst, seg.1 as u64);
            }
            s.record(DONE, 0);
            s.wait_all(DONE, 0);
        }
        (OpKind::AllReduce, Algorithm::Ring) => ring_all_reduce(&mut s, op, &input, &output),
        (OpKind::AllReduce, Algorithm::Tree) => tree_all_reduce(&mut s, op, &input, &output),
        (OpKind::AllReduce, _) => {
            if op.in_place {
                // Peers would read an input that its owner overwrites: stage through scratch.
                let piece = (d.iter().map(|x| x.scratch.1).min().unwrap_or(0) as u64 / s.es).max(1);
                let mut gen = 0u32;
                let mut off = 0u64;
                while off < count {
                    let l = piece.min(count - off);
                    s.copy(s.at(input(me), off as usize), d[me].scratch.0, l);
                    s.record(ARRIVE, gen);
                    s.wait_all(ARRIVE, gen);
                    let ins: Vec<u64> = (0..n).map(|j| d[j].scratch.0).collect();
                    let out = s.at(output(me), off as usize);
                    s.chain(&ins, out, l);
                    s.record(DONE, gen);
                    s.wait_all(DONE, gen);
                    off += l;
                    gen += 1;
                }
            } else {
                s.record(ARRIVE, 0);
                s.wait_all(ARRIVE, 0);
                let ins: Vec<u64> = (0..n).map(input).collect();
                s.chain(&ins, output(me), count);
                s.record(DONE, 0);
                s.wait_all(DONE, 0);
            }
        }
        (OpKind::Broadcast, Algorithm::Ring | Algorithm::Tree) => {
            let v = (me + n - op.root) % n;
            let real = |v: usize| (v + op.root) % n;
            if v == 0 {
                s.copy(input(me), output(me), count);
            } else {
                s.wait(real(v - 1), DOWN, 0);
                s.copy(output(real(v - 1)), output(me), count);
            }
            s.record(DOWN, 0);
            if v + 1 < n {
                s.wait(real(v + 1), DOWN, 0);
            }
        }
        (OpKind::Broadcast, _) => {
            if me == op.root {
                s.copy(input(me), output(me), count);
                s.record(ARRIVE, 0);
                s.wait_all(DONE, 0);
            } else {
                s.wait(op.root, ARRIVE, 0);
                s.copy(output(op.root), output(me), count);
                s.record(DONE, 0);
            }
        }
        (OpKind::Reduce, _) => {
            if me == op.root {
                s.wait_all(ARRIVE, 0);
                let ins: Vec<u64> = s.rotated(me).into_iter().map(input).collect();
                s.chain(&ins, output(me), count);
                s.record(DONE, 0);
            } else {
                s.record(ARRIVE, 0);
                s.wait(op.root, DONE, 0);
            }
        }
        (OpKind::AllGather, _) => {
            s.copy(input(me), s.at(output(me), me * op.count), count);
            s.record(ARRIVE, 0);
            s.wait_all(ARRIVE, 0);
            for j in (0..n).filter(|&j| j != me) {
                s.copy(input(j), s.at(output(me), j * op.count), count);
            }
            s.record(DONE, 0);
            s.wait_all(DONE, 0);
        }
        (OpKind::ReduceScatter, _) => {
            s.record(ARRIVE, 0);
            s.wait_all(ARRIVE, 0);
            let ins: Vec<u64> = s.rotated(me).iter().map(|&j| s.at(input(j), me * op.count)).collect();
            s.chain(&ins, output(me), count);
            s.record(DONE, 0);
            s.wait_all(DONE, 0);
        }
        (OpKind::AllToAll, _) => {
            s.record(ARRIVE, 0);
            s.wait_all(ARRIVE, 0);
            for j in 0..n {
                s.copy(s.at(input(j), me * op.count), s.at(output(me), j * op.count), count);
            }
            s.record(DONE, 0);
            s.wait_all(DONE, 0);
        }
        (OpKind::Send | OpKind::Recv, _) => {}
    }
    s.acts
}

fn ring_all_reduce(s: &mut Sched, op: &Op, input: &dyn Fn(usize) -> u64, output: &dyn Fn(usize) -> u64) {
    let (n, me) = (s.n, s.me);
    let (prev, next) = ((me + n - 1) % n, (me + 1) % n);
    let chunks = split(op.count, n);
    let chunk = |j: usize| chunks[j % n];
    s.copy(input(me), output(me), op.count as u64);
    s.record(rs(0), 0);
    for k in 1..n {
        s.wait(prev, rs(k - 1), 0);
        let (c0, cl) = chunk(me + n - k);
        let mine = s.at(output(me), c0);
        s.reduce(s.at(output(prev), c0), mine, mine, cl as u64, k == n - 1);
        s.record(rs(k), 0);
    }
    // The next rank reads this rank's output during its reduce-scatter: let it finish first.
    s.wait(next, rs(n - 1), 0);
    for j in 0..n - 1 {
        if j == 0 {
            s.wait(prev, rs(n - 1), 0);
        } else {
            s.wait(prev, ag(n, j - 1), 0);
        }
        let (c0, cl) = chunk(me + n - j);
        s.copy(s.at(output(prev), c0), s.at(output(me), c0), cl as u64);
        s.record(ag(n, j), 0);
    }
    s.wait(next, ag(n, n - 2), 0);
}

fn tree_all_reduce(s: &mut Sched, op: &Op, input: &dyn Fn(usize) -> u64, output: &dyn Fn(usize) -> u64) {
    let (n, me) = (s.n, s.me);
    let count = op.count as u64;
    let children: Vec<usize> = [2 * me + 1, 2 * me + 2].into_iter().filter(|&c| c < n).collect();
    match children.as_slice() {
        [] => s.copy(input(me), output(me), count),
        cs => {
            let mut acc = input(me);
            for (i, &c) in cs.iter().enumerate() {
                s.wait(c, UP, 0);
                s.reduce(acc, output(c), output(me), count, me == 0 && i + 1 == cs.len());
                acc = output(me);
            }
        }
    }
    s.record(UP, 0);
    if me > 0 {
        let parent = (me - 1) / 2;
        s.wait(parent, DOWN, 0);
        s.copy(output(parent), output(me), count);
    }
    s.record(DOWN, 0);
    for &c in &children {
        s.wait(c, DOWN, 0);
    }
}

/// The schedule of a launch's sends and receives: every send's readiness first, then every
/// receive (wait for the sender, copy from its buffer, record completion), then every send waits
/// for its receiver. `peers` holds each remote sender's deposit, by key.
pub(crate) fn p2p(me: usize, n: usize, ops: &[Op], peers: &HashMap<Key, Deposit>) -> Result<Vec<Action>> {
    let mut acts = Vec::new();
    for o in ops.iter().filter(|o| o.kind == OpKind::Send && o.root != me) {
        acts.push(Action::Record { key: p2p_key(), slot: ready(n, o.root), gen: o.seq as u32 });
    }
    // Sends to self copy into the matching receives from self, in order.
    let sends: Vec<&Op> = ops.iter().filter(|o| o.kind == OpKind::Send && o.root == me).collect();
    let recvs: Vec<&Op> = ops.iter().filter(|o| o.kind == OpKind::Recv && o.root == me).collect();
    if sends.len() != recvs.len() {
        return Err(crate::CclError::Group {
            reason: format!(
                "{} send(s) to this rank ({me}) but {} recv(s) from it in the same group",
                sends.len(),
                recvs.len()
            ),
        });
    }
    for (snd, rcv) in sends.iter().zip(&recvs) {
        if snd.count != rcv.count || snd.dtype != rcv.dtype {
            return Err(crate::CclError::Mismatch {
                operation: rcv.describe(),
                rank: me,
                peer: me,
                detail: format!(
                    "a send of {} {} to self met a recv of {} {}",
                    snd.count, snd.dtype, rcv.count, rcv.dtype
                ),
            });
        }
        acts.push(Action::Copy { src: snd.send, dst: rcv.recv, bytes: snd.bytes() as u64 });
    }
    for o in ops.iter().filter(|o| o.kind == OpKind::Recv && o.root != me) {
        let key = Key::P2p { src: o.root, dst: me, seq: o.seq };
        let d = &peers[&key];
        acts.push(Action::Wait {
            key: p2p_key(),
            rank: o.root,
            slot: ready(n, me),
            gen: o.seq as u32,
            consume: true,
        });
        acts.push(Action::Copy { src: d.op.send, dst: o.recv, bytes: o.bytes() as u64 });
        acts.push(Action::Record { key: p2p_key(), slot: received(n, o.root), gen: o.seq as u32 });
    }
    for o in ops.iter().filter(|o| o.kind == OpKind::Send && o.root != me) {
        acts.push(Action::Wait {
            key: p2p_key(),
            rank: o.root,
            slot: received(n, me),
            gen: o.seq as u32,
            consume: true,
        });
    }
    Ok(acts)
}

/// Point-to-point records share one key; their slot names the peer and their generation the
/// pair's sequence number.
pub(crate) fn p2p_key() -> Key {
    Key::P2p { src: usize::MAX, dst: usize::MAX, seq: 0 }
}
