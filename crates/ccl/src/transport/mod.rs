//! Transports: how bytes get from one rank to another. Every connection ends in a receive
//! [`Fifo`] in the receiver's memory; what differs is who writes it. `p2p` (ranks of one
//! process) and `shm` (ranks of one host) let the sender write the receiver's FIFO directly,
//! through a pointer or a shared mapping, so they carry both protocols; `tcp` and `ucx` have a
//! proxy thread in the receiving process that moves arriving messages into it.
//!
//! A transport is set up in two steps around a bootstrap all-gather: [`Transport::prepare`]
//! starts what peers need to reach this rank and returns what to publish to them, and
//! [`Transport::connect`] makes the links to the given peers from what they published.

pub(crate) mod p2p;
pub(crate) mod shm;
pub(crate) mod tcp;
pub(crate) mod ucx;

use std::sync::Arc;
use std::time::Duration;

use ferrocm_runtime::Device;

use crate::config::{Protocol, TransportKind};
use crate::fifo::{FifoReader, FifoWriter};
use crate::state::{Health, WaitError, Waiter};

/// Why a send did not complete.
#[derive(Debug)]
pub(crate) enum SendError {
    Wait(WaitError),
    /// The connection broke; the text says how.
    Broken(String),
}

impl From<WaitError> for SendError {
    fn from(e: WaitError) -> SendError {
        SendError::Wait(e)
    }
}

/// The sending end of a connection.
pub(crate) trait SendConn: Send {
    /// Sends one message: at most [`crate::fifo::LL_MAX_BYTES`] with the low-latency
    /// protocol, [`crate::fifo::SLOT_BYTES`] with the bulk one.
    fn send(&mut self, data: &[u8], proto: Protocol, w: &Waiter) -> Result<(), SendError>;
    /// Whether the receiver's FIFO is written directly, so the low-latency ring can be used.
    fn supports_ll(&self) -> bool;
}

/// A sender that writes the receiver's FIFO directly (p2p and shm).
pub(crate) struct DirectSender {
    pub writer: FifoWriter,
    pub peer: usize,
    /// Keeps a mapping or allocation alive while the writer uses it.
    pub _keep: Option<Arc<dyn Send + Sync>>,
}

impl SendConn for DirectSender {
    fn send(&mut self, data: &[u8], proto: Protocol, w: &Waiter) -> Result<(), SendError> {
        match proto {
            Protocol::LowLatency => self.writer.send_ll(data, w, self.peer)?,
            Protocol::Simple => self.writer.send(data, w, self.peer)?,
        }
        Ok(())
    }
    fn supports_ll(&self) -> bool {
        true
    }
}

/// Both directions between this rank and one peer.
pub(crate) struct Link {
    pub kind: TransportKind,
    pub sender: Box<dyn SendConn>,
    pub reader: FifoReader,
}

impl Link {
    /// The protocol a message of an operation that asked for `proto` really uses on this link.
    pub fn protocol(&self, proto: Protocol) -> Protocol {
        if self.sender.supports_ll() {
            proto
        } else {
            Protocol::Simple
        }
    }
}

/// What a transport knows while it sets up.
pub(crate) struct SetupCtx<'a> {
    pub rank: usize,
    /// Unique per communicator: names shared resources (sockets, registry entries).
    pub magic: u64,
    pub device: &'a Device,
    pub timeout: Duration,
    /// Where a proxy reports a broken connection (the communicator fails with it).
    pub health: &'a Arc<Health>,
}

/// One way of connecting ranks (p2p, shm, UCX, TCP).
pub(crate) trait Transport: Send + Sync {
    /// Starts what `peers` need to reach this rank; returns the bytes to publish to them.
    fn prepare(&mut self, ctx: &SetupCtx, peers: &[usize]) -> crate::Result<Vec<u8>>;
    /// Connects to `peers` in both directions, given what every rank published (indexed by
    /// rank).
    fn connect(
        &mut self,
        ctx: &SetupCtx,
        peers: &[usize],
        published: &[Vec<u8>],
    ) -> crate::Result<Vec<(usize, Link)>>;
    /// Called once every rank has connected (for example, to forget registry entries).
    fn finish(&mut self, _ctx: &SetupCtx) {}
}

/// The transport objects of one kind.
pub(crate) fn create(kind: TransportKind) -> crate::Result<Box<dyn Transport>> {
    Ok(match kind {
        TransportKind::P2p => Box::new(p2p::P2p::default()),
        TransportKind::Shm => Box::new(shm::Shm::default()),
        TransportKind::Tcp => Box::new(tcp::Tcp::default()),
        TransportKind::Ucx => Box::new(ucx::Ucx::new()?),
    })
}
