//! One operation as the engines see it, its description for logs and errors, and the header
//! each connection carries at the start of an operation so that ranks that called different
//! things (counts, types, operators, roots, order) are caught instead of corrupting data.

use std::fmt;

use crate::config::{Algorithm, Protocol};
use crate::types::{DataType, ReduceOp};
use crate::wire::{Reader, Writer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum OpKind {
    AllReduce,
    Broadcast,
    Reduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    Send,
    Recv,
}

impl OpKind {
    pub fn name(self) -> &'static str {
        match self {
            OpKind::AllReduce => "all_reduce",
            OpKind::Broadcast => "broadcast",
            OpKind::Reduce => "reduce",
            OpKind::AllGather => "all_gather",
            OpKind::ReduceScatter => "reduce_scatter",
            OpKind::AllToAll => "all_to_all",
            OpKind::Send => "send",
            OpKind::Recv => "recv",
        }
    }

    pub fn is_p2p(self) -> bool {
        matches!(self, OpKind::Send | OpKind::Recv)
    }

    /// Whether the operation combines values (and so has a reduction operator).
    pub fn reduces(self) -> bool {
        matches!(self, OpKind::AllReduce | OpKind::Reduce | OpKind::ReduceScatter)
    }

    /// Whether the operation has a root.
    pub fn rooted(self) -> bool {
        matches!(self, OpKind::Broadcast | OpKind::Reduce)
    }

    fn code(self) -> u8 {
        self as u8
    }

    /// Elements of the send and receive buffers for `count` (NCCL's meaning of count per
    /// operation) on `nranks` ranks.
    pub fn buffer_lens(self, count: usize, nranks: usize) -> Option<(usize, usize)> {
        let n = nranks;
        Some(match self {
            OpKind::AllReduce | OpKind::Broadcast | OpKind::Reduce => (count, count),
            OpKind::AllGather => (count, count.checked_mul(n)?),
            OpKind::ReduceScatter => (count.checked_mul(n)?, count),
            OpKind::AllToAll => (count.checked_mul(n)?, count.checked_mul(n)?),
            OpKind::Send => (count, 0),
            OpKind::Recv => (0, count),
        })
    }
}

/// One operation of one rank, with its buffers' addresses.
#[derive(Clone, Debug)]
pub(crate) struct Op {
    pub kind: OpKind,
    pub dtype: DataType,
    pub redop: ReduceOp,
    /// NCCL's count: elements per rank for all-gather and reduce-scatter, per peer for
    /// all-to-all.
    pub count: usize,
    /// The root (broadcast, reduce) or the peer (send, recv).
    pub root: usize,
    /// The collective's sequence number, or the sequence number of the pair (send, recv).
    pub seq: u64,
    pub algorithm: Algorithm,
    pub protocol: Protocol,
    pub in_place: bool,
    /// Address of the send buffer (equal to `recv` in place; unused for `recv`).
    pub send: u64,
    /// Address of the receive buffer (unused for `send`).
    pub recv: u64,
}

impl Op {
    pub fn bytes(&self) -> usize {
        self.count * self.dtype.size()
    }

    /// A description for logs and errors: `all_reduce #5 (sum, f32, 1024 elements)`.
    pub fn describe(&self) -> String {
        let mut s = format!("{} #{}", self.kind.name(), self.seq);
        match self.kind {
            OpKind::Send => s = format!("send #{} to rank {}", self.seq, self.root),
            OpKind::Recv => s = format!("recv #{} from rank {}", self.seq, self.root),
            _ => {}
        }
        let mut parts = Vec::new();
        if self.kind.reduces() {
            parts.push(self.redop.to_string());
        }
        parts.push(self.dtype.to_string());
        parts.push(format!("{} elements", self.count));
        if self.kind.rooted() {
            parts.push(format!("root {}", self.root));
        }
        format!("{s} ({})", parts.join(", "))
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// What both ends of a connection must agree on for one operation.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Header {
    pub seq: u64,
    pub kind: OpKind,
    pub dtype: DataType,
    pub redop: ReduceOp,
    pub algorithm: Algorithm,
    pub protocol: Protocol,
    pub root: u64,
    pub count: u64,
}

pub(crate) const HEADER_BYTES: usize = 8 + 6 + 8 + 8;

impl Header {
    /// The header of `op` on a connection into rank `receiver`. For send/recv the root field
    /// names the receiver, so a send and a recv compare equal when they match.
    pub fn of(op: &Op, receiver: usize) -> Header {
        let (kind, root) = match op.kind {
            OpKind::Send | OpKind::Recv => (OpKind::Send, receiver as u64),
            k => (k, op.root as u64),
        };
        Header {
            seq: op.seq,
            kind,
            dtype: op.dtype,
            redop: if op.kind.reduces() { op.redop } else { ReduceOp::Sum },
            algorithm: op.algorithm,
            protocol: op.protocol,
            root,
            count: op.count as u64,
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u64(self.seq)
            .u8(self.kind.code())
            .u8(self.dtype.code())
            .u8(self.redop.code())
            .u8(self.algorithm.code())
            .u8(matches!(self.protocol, Protocol::Simple) as u8)
            .u8(0)
            .u64(self.root)
            .u64(self.count);
        w.finish()
    }

    pub fn decode(b: &[u8]) -> Option<Header> {
        let mut r = Reader::new(b);
        let seq = r.u64().ok()?;
        let kind = [
            OpKind::AllReduce,
            OpKind::Broadcast,
            OpKind::Reduce,
            OpKind::AllGather,
            OpKind::ReduceScatter,
            OpKind::AllToAll,
            OpKind::Send,
            OpKind::Recv,
        ]
        .get(r.u8().ok()? as usize)
        .copied()?;
        let dtype = DataType::from_code(r.u8().ok()?)?;
        let redop = ReduceOp::from_code(r.u8().ok()?)?;
        let algorithm = Algorithm::from_code(r.u8().ok()?)?;
        let protocol = if r.u8().ok()? == 1 { Protocol::Simple } else { Protocol::LowLatency };
        r.u8().ok()?;
        Some(Header {
            seq,
            kind,
            dtype,
            redop,
            algorithm,
            protocol,
            root: r.u64().ok()?,
            count: r.u64().ok()?,
        })
    }

    /// What differs between the header this rank expects and the one a peer sent, in words.
    pub fn difference(&self, theirs: &Header) -> Option<String> {
        let mut d = Vec::new();
        if self.seq != theirs.seq || self.kind != theirs.kind {
            d.push(format!(
                "this rank called {} #{} but the peer called {} #{} (the ranks did not make the same sequence of calls)",
                self.kind.name(),
                self.seq,
                theirs.kind.name(),
                theirs.seq
            ));
        }
        if self.count != theirs.count {
            d.push(format!("count {} here, {} on the peer", self.count, theirs.count));
        }
        if self.dtype != theirs.dtype {
            d.push(format!("type {} here, {} on the peer", self.dtype, theirs.dtype));
        }
        if self.redop != theirs.redop {
            d.push(format!("operator {} here, {} on the peer", self.redop, theirs.redop));
        }
        if self.root != theirs.root {
            d.push(format!("root {} here, {} on the peer", self.root, theirs.root));
        }
        if self.algorithm != theirs.algorithm || self.protocol != theirs.protocol {
            d.push(format!(
                "algorithm {}/{} here, {}/{} on the peer (FERROCM_CCL_ALGO/PROTO differ between the ranks?)",
                self.algorithm, self.protocol, theirs.algorithm, theirs.protocol
            ));
        }
        (!d.is_empty()).then(|| d.join("; "))
    }
}
