//! Ranks of one host in different processes, over the runtime's memory sharing (Runtime II's
//! IPC): each receiver allocates its FIFOs as exportable memory of a CPU device (a sealed
//! `memfd`: host memory, so the host engine reads and writes it whether the rank's device is a
//! CPU device or a GPU whose operations are staged through host memory) and passes each to its
//! sender as a [`ShareableHandle`] over a Unix-domain socket (`SCM_RIGHTS`); the sender imports
//! and maps the same pages and writes them directly. The sockets live in the abstract namespace
//! (named by the communicator and rank), so nothing is left in the file system.

use std::io::{Read, Write};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ferrocm_runtime::{AsDeviceSlice, BackendKind, Device, ShareableHandle, SharedBuffer};

use super::{DirectSender, Link, SetupCtx, Transport};
use crate::config::TransportKind;
use crate::fifo::{Fifo, FifoMemory, FIFO_BYTES};
use crate::{CclError, Result};

/// One FIFO in shared memory: this rank's own (created here) or a peer's (imported).
pub(crate) struct SharedFifo(SharedBuffer<u64>);

impl FifoMemory for SharedFifo {
    fn base(&self) -> *mut u8 {
        // A CPU device's addresses are host addresses; the mapping is granular (2 MiB aligned).
        self.0.device_ptr().0 as *mut u8
    }
}

/// The CPU device whose memory holds shared FIFOs: the rank's own where it is one.
fn host_device(device: &Device) -> Result<Device> {
    if device.kind() == BackendKind::Cpu {
        Ok(device.clone())
    } else {
        Ok(Device::cpu()?)
    }
}

impl SharedFifo {
    /// A new zero-filled FIFO.
    fn create(device: &Device) -> Result<SharedFifo> {
        let buffer = SharedBuffer::<u64>::new(device, FIFO_BYTES / 8)?;
        let f = SharedFifo(buffer);
        // SAFETY: the mapping is `FIFO_BYTES` bytes of host memory owned by `f`, not yet shared
        // with anyone (its contents are unspecified until written).
        unsafe { std::ptr::write_bytes(f.base(), 0, FIFO_BYTES) };
        Ok(f)
    }

    /// Maps a peer's FIFO from its handle.
    fn import(device: &Device, handle: &ShareableHandle) -> std::result::Result<SharedFifo, String> {
        if handle.shared_bytes() < FIFO_BYTES as u64 {
            return Err(format!(
                "the shared FIFO holds {} bytes, fewer than the {FIFO_BYTES} needed",
                handle.shared_bytes()
            ));
        }
        let buffer = SharedBuffer::<u64>::import(device, handle).map_err(|e| e.to_string())?;
        Ok(SharedFifo(buffer))
    }
}

fn socket_name(magic: u64, rank: usize) -> String {
    format!("ferrocm-ccl-{magic:016x}-{rank}")
}

#[derive(Default)]
pub(crate) struct Shm {
    listener: Option<UnixListener>,
    device: Option<Device>,
    /// This rank's receive FIFOs, by sender.
    mine: Vec<(usize, Arc<SharedFifo>)>,
}

/// Sends this rank's number and the handle of the FIFO it receives on from the peer.
fn send_fifo(sock: &UnixStream, me: usize, fifo: &SharedFifo) -> std::result::Result<(), String> {
    (&*sock).write_all(&(me as u64).to_le_bytes()).map_err(|e| e.to_string())?;
    let handle = fifo.0.export().map_err(|e| e.to_string())?;
    handle.send(sock).map_err(|e| e.to_string())
}

/// Receives a peer's rank and the handle of the FIFO this rank sends to it on.
fn recv_fifo(sock: &UnixStream) -> std::result::Result<(usize, ShareableHandle), String> {
    let mut b = [0u8; 8];
    (&*sock).read_exact(&mut b).map_err(|e| e.to_string())?;
    let handle = ShareableHandle::recv(sock).map_err(|e| e.to_string())?;
    Ok((u64::from_le_bytes(b) as usize, handle))
}

impl Transport for Shm {
    fn prepare(&mut self, ctx: &SetupCtx, peers: &[usize]) -> Result<Vec<u8>> {
        let err = |reason: String| CclError::Transport { transport: "shm", peer: ctx.rank, reason };
        let addr = SocketAddr::from_abstract_name(socket_name(ctx.magic, ctx.rank).as_bytes())
            .map_err(|e| err(format!("socket name: {e}")))?;
        let l =
            UnixListener::bind_addr(&addr).map_err(|e| err(format!("listening on a Unix socket: {e}")))?;
        l.set_nonblocking(true).map_err(|e| err(e.to_string()))?;
        self.listener = Some(l);
        let device = host_device(ctx.device)?;
        for &p in peers {
            self.mine.push((p, Arc::new(SharedFifo::create(&device)?)));
        }
        self.device = Some(device);
        Ok(Vec::new())
    }

    fn connect(
        &mut self,
        ctx: &SetupCtx,
        peers: &[usize],
        _published: &[Vec<u8>],
    ) -> Result<Vec<(usize, Link)>> {
        let deadline = Instant::now() + ctx.timeout;
        let mine = |p: usize| self.mine.iter().find(|(q, _)| *q == p).map(|(_, f)| f.clone());
        let mut got: Vec<(usize, ShareableHandle)> = Vec::new();
        // Connect to lower ranks (they are listening: every listener exists before the
        // all-gather that precedes this), then accept higher ones.
        for &p in peers.iter().filter(|&&p| p < ctx.rank) {
            let err = |reason: String| CclError::Transport { transport: "shm", peer: p, reason };
            let addr = SocketAddr::from_abstract_name(socket_name(ctx.magic, p).as_bytes())
                .map_err(|e| err(e.to_string()))?;
            let sock = UnixStream::connect_addr(&addr).map_err(|e| err(format!("connecting: {e}")))?;
            sock.set_read_timeout(Some(ctx.timeout)).map_err(|e| err(e.to_string()))?;
            let fifo = mine(p).ok_or_else(|| err("no FIFO prepared".into()))?;
            send_fifo(&sock, ctx.rank, &fifo).map_err(|e| err(format!("sending a FIFO: {e}")))?;
            let (who, handle) = recv_fifo(&sock).map_err(|e| err(format!("receiving a FIFO: {e}")))?;
            if who != p {
                return Err(err(format!("rank {who} answered on rank {p}'s socket")));
            }
            got.push((p, handle));
        }
        let higher = peers.iter().filter(|&&p| p > ctx.rank).count();
        let listener = self.listener.as_ref().ok_or_else(|| CclError::bootstrap("shm", "not prepared"))?;
        while got.len() < peers.len() {
            match listener.accept() {
                Ok((sock, _)) => {
                    let err =
                        |reason: String| CclError::Transport { transport: "shm", peer: ctx.rank, reason };
                    sock.set_nonblocking(false).map_err(|e| err(e.to_string()))?;
                    sock.set_read_timeout(Some(ctx.timeout)).map_err(|e| err(e.to_string()))?;
                    let (who, handle) =
                        recv_fifo(&sock).map_err(|e| err(format!("receiving a FIFO: {e}")))?;
                    let fifo =
                        mine(who).ok_or_else(|| err(format!("rank {who} is not a shared-memory peer")))?;
                    send_fifo(&sock, ctx.rank, &fifo).map_err(|e| err(format!("sending a FIFO: {e}")))?;
                    got.push((who, handle));
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() > deadline {
                        let have: Vec<usize> = got.iter().map(|g| g.0).collect();
                        let missing: Vec<usize> =
                            peers.iter().copied().filter(|p| *p > ctx.rank && !have.contains(p)).collect();
                        return Err(CclError::Timeout {
                            operation: "connecting shared-memory peers (init)".into(),
                            waited: ctx.timeout,
                            missing,
                            detail: format!("rank {} expected {higher} connection(s)", ctx.rank),
                        });
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(e) => {
                    return Err(CclError::Transport {
                        transport: "shm",
                        peer: ctx.rank,
                        reason: e.to_string(),
                    })
                }
            }
        }
        let mut links = Vec::new();
        let device = self.device.as_ref().ok_or_else(|| CclError::bootstrap("shm", "not prepared"))?;
        for (p, handle) in got {
            let err = |reason: String| CclError::Transport { transport: "shm", peer: p, reason };
            let theirs = Arc::new(SharedFifo::import(device, &handle).map_err(err)?);
            let mine = mine(p).ok_or_else(|| err("no FIFO prepared".into()))?;
            let sender = DirectSender { writer: Fifo::new(theirs).writer(), peer: p, _keep: None };
            links.push((
                p,
                Link { kind: TransportKind::Shm, sender: Box::new(sender), reader: Fifo::new(mine).reader() },
            ));
        }
        Ok(links)
    }

    fn finish(&mut self, _ctx: &SetupCtx) {
        self.listener = None;
    }
}
