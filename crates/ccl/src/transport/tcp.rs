//! Plain TCP between any two ranks (NCCL's socket transport: the fallback that always works).
//! One socket per pair of ranks carries both directions; the lower rank listens, the higher one
//! connects. Messages are a 4-byte length and the bytes. In the receiving process one proxy
//! thread per rank polls all its sockets and reads each arriving message straight into a free
//! slot of that peer's FIFO; when the FIFO is full it stops reading that socket, so TCP's own
//! flow control holds the sender back.

use std::io::{ErrorKind, IoSlice, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::{Link, SendConn, SendError, SetupCtx, Transport};
use crate::config::{Protocol, TransportKind};
use crate::fifo::{Fifo, FifoWriter, HeapFifo, SLOT_BYTES};
use crate::state::Waiter;
use crate::{CclError, Result};

#[derive(Default)]
pub(crate) struct Tcp {
    listener: Option<TcpListener>,
    stop: Arc<AtomicBool>,
    proxy: Option<JoinHandle<()>>,
}

impl Drop for Tcp {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(p) = self.proxy.take() {
            let _ = p.join();
        }
    }
}

struct TcpSender {
    stream: TcpStream,
    peer: usize,
}

impl SendConn for TcpSender {
    fn send(&mut self, data: &[u8], _proto: Protocol, w: &Waiter) -> std::result::Result<(), SendError> {
        let header = (data.len() as u32).to_le_bytes();
        let total = header.len() + data.len();
        let mut done = 0;
        while done < total {
            let r = if done < header.len() {
                self.stream.write_vectored(&[IoSlice::new(&header[done..]), IoSlice::new(data)])
            } else {
                self.stream.write(&data[done - header.len()..])
            };
            match r {
                Ok(0) => return Err(SendError::Broken("the socket accepted no bytes".into())),
                Ok(n) => done += n,
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                    ) =>
                {
                    // The receiver's FIFO is full (or the network slow): the write timed out; go
                    // on unless the deadline passed or the communicator failed.
                    w.check(Some(self.peer))?;
                }
                Err(e) => return Err(SendError::Broken(e.to_string())),
            }
        }
        Ok(())
    }
    fn supports_ll(&self) -> bool {
        false
    }
}

/// One socket's receive state in the proxy.
struct Incoming {
    stream: TcpStream,
    writer: FifoWriter,
    header: [u8; 4],
    header_got: usize,
    /// Bytes of the current message (known once the header is in) and how many have arrived.
    len: Option<usize>,
    got: usize,
    closed: bool,
}

impl Incoming {
    /// Reads what is available; returns whether it made progress.
    fn pump(&mut self) -> bool {
        let mut progress = false;
        loop {
            if self.len.is_none() {
                match self.stream.read(&mut self.header[self.header_got..]) {
                    Ok(0) => {
                        self.closed = true;
                        return progress;
                    }
                    Ok(n) => {
                        progress = true;
                        self.header_got += n;
                        if self.header_got == 4 {
                            let len = u32::from_le_bytes(self.header) as usize;
                            if len > SLOT_BYTES {
                                // Garbage on the socket: stop reading it; the waiting rank times out.
                                self.closed = true;
                                return progress;
                            }
                            self.len = Some(len);
                            self.got = 0;
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => return progress,
                    Err(_) => {
                        self.closed = true;
                        return progress;
                    }
                }
                continue;
            }
            let len = self.len.unwrap_or(0);
            let Some(slot) = self.writer.try_slot() else { return progress };
            if self.got < len {
                match self.stream.read(&mut slot[self.got..len]) {
                    Ok(0) => {
                        self.closed = true;
                        return progress;
                    }
                    Ok(n) => {
                        progress = true;
                        self.got += n;
                    }
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => return progress,
                    Err(_) => {
                        self.closed = true;
                        return progress;
                    }
                }
            }
            if self.got == len {
                self.writer.publish(len);
                self.len = None;
                self.header_got = 0;
                progress = true;
            }
        }
    }

    /// Whether the next step needs a free FIFO slot that is not there.
    fn blocked(&mut self) -> bool {
        self.len.is_some() && self.writer.try_slot().is_none()
    }
}

fn proxy_loop(mut incoming: Vec<Incoming>, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Acquire) {
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(incoming.len());
        let mut any_blocked = false;
        for c in incoming.iter_mut() {
            if c.closed {
                continue;
            }
            if c.blocked() {
                any_blocked = true;
                continue;
            }
            fds.push(libc::pollfd { fd: c.stream.as_raw_fd(), events: libc::POLLIN, revents: 0 });
        }
        // A full FIFO frees up when its reader consumes, which nothing signals: look again
        // soon. Otherwise sleep until data arrives (or a while, to notice the stop flag).
        let timeout = if any_blocked {
            libc::timespec { tv_sec: 0, tv_nsec: 50_000 }
        } else {
            libc::timespec { tv_sec: 0, tv_nsec: 20_000_000 }
        };
        // SAFETY: `fds` holds `fds.len()` initialised entries for live sockets (possibly none);
        // the timeout is a valid timespec; no signal mask is changed.
        unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, &timeout, std::ptr::null()) };
        for c in incoming.iter_mut() {
            if !c.closed {
                c.pump();
            }
        }
    }
}

fn hello(magic: u64, rank: usize) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&magic.to_le_bytes());
    b[8..].copy_from_slice(&(rank as u64).to_le_bytes());
    b
}

impl Transport for Tcp {
    fn prepare(&mut self, _ctx: &SetupCtx, _peers: &[usize]) -> Result<Vec<u8>> {
        let (l, addr) = crate::id::listen(0)?;
        l.set_nonblocking(true).map_err(|e| CclError::bootstrap("tcp transport", e))?;
        self.listener = Some(l);
        Ok(addr.to_string().into_bytes())
    }

    fn connect(
        &mut self,
        ctx: &SetupCtx,
        peers: &[usize],
        published: &[Vec<u8>],
    ) -> Result<Vec<(usize, Link)>> {
        let deadline = Instant::now() + ctx.timeout;
        let mut socks: Vec<(usize, TcpStream)> = Vec::new();
        for &p in peers.iter().filter(|&&p| p < ctx.rank) {
            let err = |reason: String| CclError::Transport { transport: "tcp", peer: p, reason };
            let text = String::from_utf8_lossy(&published[p]).to_string();
            let addr: SocketAddr =
                text.parse().map_err(|_| err(format!("bad published address {text:?}")))?;
            let mut s = loop {
                match TcpStream::connect_timeout(&addr, Duration::from_secs(5)) {
                    Ok(s) => break s,
                    Err(e) if Instant::now() > deadline => {
                        return Err(err(format!("connecting to {addr}: {e}")))
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            };
            s.write_all(&hello(ctx.magic, ctx.rank)).map_err(|e| err(e.to_string()))?;
            socks.push((p, s));
        }
        let higher: Vec<usize> = peers.iter().copied().filter(|&p| p > ctx.rank).collect();
        let listener =
            self.listener.as_ref().ok_or_else(|| CclError::bootstrap("tcp transport", "not prepared"))?;
        while socks.len() < peers.len() {
            match listener.accept() {
                Ok((mut s, from)) => {
                    let err =
                        |reason: String| CclError::Transport { transport: "tcp", peer: ctx.rank, reason };
                    s.set_nonblocking(false).map_err(|e| err(e.to_string()))?;
                    s.set_read_timeout(Some(Duration::from_secs(10))).map_err(|e| err(e.to_string()))?;
                    let mut b = [0u8; 16];
                    if s.read_exact(&mut b).is_err() {
                        continue;
                    }
                    let magic = u64::from_le_bytes(b[..8].try_into().unwrap_or_default());
                    let who = u64::from_le_bytes(b[8..].try_into().unwrap_or_default()) as usize;
                    if magic != ctx.magic || !higher.contains(&who) || socks.iter().any(|(p, _)| *p == who) {
                        // A stranger (or a stale job) on our port: ignore it.
                        let _ = from;
                        continue;
                    }
                    socks.push((who, s));
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    if Instant::now() > deadline {
                        let missing: Vec<usize> =
                            higher.iter().copied().filter(|p| !socks.iter().any(|(q, _)| q == p)).collect();
                        return Err(CclError::Timeout {
                            operation: "connecting TCP peers (init)".into(),
                            waited: ctx.timeout,
                            missing,
                            detail: format!("rank {} waited for their connections", ctx.rank),
                        });
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(e) => {
                    return Err(CclError::Transport {
                        transport: "tcp",
                        peer: ctx.rank,
                        reason: e.to_string(),
                    })
                }
            }
        }
        let mut links = Vec::new();
        let mut incoming = Vec::new();
        for (p, s) in socks {
            let err =
                |e: std::io::Error| CclError::Transport { transport: "tcp", peer: p, reason: e.to_string() };
            s.set_nodelay(true).map_err(err)?;
            let reader = s.try_clone().map_err(err)?;
            reader.set_nonblocking(true).map_err(err)?;
            s.set_read_timeout(None).map_err(err)?;
            s.set_write_timeout(Some(Duration::from_millis(50))).map_err(err)?;
            let fifo = Fifo::new(HeapFifo::new());
            incoming.push(Incoming {
                stream: reader,
                writer: fifo.writer(),
                header: [0; 4],
                header_got: 0,
                len: None,
                got: 0,
                closed: false,
            });
            links.push((
                p,
                Link {
                    kind: TransportKind::Tcp,
                    sender: Box::new(TcpSender { stream: s, peer: p }),
                    reader: fifo.reader(),
                },
            ));
        }
        let stop = self.stop.clone();
        self.proxy = Some(
            std::thread::Builder::new()
                .name(format!("ferrocm-ccl-tcp{}", ctx.rank))
                .spawn(move || proxy_loop(incoming, stop))
                .map_err(|e| CclError::bootstrap("starting the TCP proxy", e))?,
        );
        Ok(links)
    }

    fn finish(&mut self, _ctx: &SetupCtx) {
        self.listener = None;
    }
}
