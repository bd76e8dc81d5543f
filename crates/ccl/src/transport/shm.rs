//! Ranks of one host in different processes: each receiver creates its FIFOs as `memfd`s, maps
//! them, and passes each descriptor to its sender over a Unix-domain socket (`SCM_RIGHTS`); the
//! sender maps the same pages and writes them directly. The sockets live in the abstract
//! namespace (named by the communicator and rank), so nothing is left in the file system.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{DirectSender, Link, SetupCtx, Transport};
use crate::config::TransportKind;
use crate::fifo::{Fifo, FifoMemory, FIFO_BYTES};
use crate::{CclError, Result};

/// A shared mapping of a memfd holding one FIFO.
pub(crate) struct SharedFifo {
    base: *mut u8,
    len: usize,
    fd: OwnedFd,
}

// SAFETY: the mapping is owned by this value and unmapped once, on drop; concurrent access goes
// through the FIFO protocol.
unsafe impl Send for SharedFifo {}
unsafe impl Sync for SharedFifo {}

impl FifoMemory for SharedFifo {
    fn base(&self) -> *mut u8 {
        self.base
    }
}

impl Drop for SharedFifo {
    fn drop(&mut self) {
        // SAFETY: `base` and `len` are the mapping made in `map`, unmapped only here.
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.len) };
    }
}

fn os_err(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

impl SharedFifo {
    /// A new zero-filled FIFO in a memfd.
    fn create(name: &str) -> std::result::Result<SharedFifo, String> {
        let cname = std::ffi::CString::new(name).map_err(|_| "bad memfd name".to_string())?;
        // SAFETY: a valid C string; the flags are plain values.
        let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(os_err("memfd_create"));
        }
        // SAFETY: `fd` was just created and is owned here.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: a valid descriptor; a new memfd reads as zeros once sized.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), FIFO_BYTES as libc::off_t) } != 0 {
            return Err(os_err("ftruncate of the memfd"));
        }
        SharedFifo::map(fd)
    }

    /// Maps a FIFO's memfd (one created here, or received from a peer).
    fn map(fd: OwnedFd) -> std::result::Result<SharedFifo, String> {
        // SAFETY: `st` is plain data filled by fstat.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: a valid descriptor and a valid out pointer.
        if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
            return Err(os_err("fstat of the shared FIFO"));
        }
        if (st.st_size as u64) < FIFO_BYTES as u64 {
            return Err(format!(
                "the shared FIFO holds {} bytes, fewer than the {FIFO_BYTES} needed",
                st.st_size
            ));
        }
        // SAFETY: mapping `FIFO_BYTES` bytes of a descriptor at least that large, shared and
        // writable; the result is checked.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                FIFO_BYTES,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(os_err("mmap of the shared FIFO"));
        }
        Ok(SharedFifo { base: base as *mut u8, len: FIFO_BYTES, fd })
    }
}

/// Sends `bytes` with the descriptor `fd` attached.
pub(crate) fn send_fd(sock: &UnixStream, bytes: &[u8], fd: RawFd) -> std::io::Result<()> {
    let iov = libc::iovec { iov_base: bytes.as_ptr() as *mut libc::c_void, iov_len: bytes.len() };
    let mut control = [0u64; 4];
    // SAFETY: `msghdr` is plain data; every pointer set below outlives the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &iov as *const _ as *mut libc::iovec;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
    // SAFETY: CMSG_SPACE is a size computation.
    msg.msg_controllen = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as _;
    // SAFETY: the control buffer (32 bytes) holds one header and one descriptor.
    unsafe {
        let c = libc::CMSG_FIRSTHDR(&msg);
        (*c).cmsg_level = libc::SOL_SOCKET;
        (*c).cmsg_type = libc::SCM_RIGHTS;
        (*c).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(c) as *mut RawFd, fd);
    }
    loop {
        // SAFETY: a connected socket and a fully initialised message.
        let n = unsafe { libc::sendmsg(sock.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
        if n == bytes.len() as isize {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if n >= 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::WriteZero,
                "short send of a descriptor message",
            ));
        }
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Receives exactly `buf.len()` bytes carrying one descriptor.
pub(crate) fn recv_fd(sock: &UnixStream, buf: &mut [u8]) -> std::io::Result<OwnedFd> {
    let mut iov = libc::iovec { iov_base: buf.as_mut_ptr() as *mut libc::c_void, iov_len: buf.len() };
    let mut control = [0u64; 8];
    // SAFETY: `msghdr` is plain data; every pointer set below outlives the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    let n = loop {
        // SAFETY: a connected socket and a message whose buffers are live.
        let n =
            unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC | libc::MSG_WAITALL) };
        if n >= 0 {
            break n as usize;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    };
    let mut fd = None;
    // SAFETY: walking the control messages the kernel wrote.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS {
                let raw = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const RawFd);
                // Each received descriptor is new and ours.
                let owned = OwnedFd::from_raw_fd(raw);
                if fd.is_none() {
                    fd = Some(owned);
                }
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    if n != buf.len() {
        return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the peer closed the socket"));
    }
    fd.ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidData, "the message carried no descriptor")
    })
}

fn socket_name(magic: u64, rank: usize) -> String {
    format!("ferrocm-ccl-{magic:016x}-{rank}")
}

#[derive(Default)]
pub(crate) struct Shm {
    listener: Option<UnixListener>,
    /// This rank's receive FIFOs, by sender.
    mine: Vec<(usize, Arc<SharedFifo>)>,
}

impl Shm {
    fn exchange(sock: &UnixStream, me: usize, fifo: &SharedFifo) -> std::io::Result<(usize, OwnedFd)> {
        send_fd(sock, &(me as u64).to_le_bytes(), fifo.fd.as_raw_fd())?;
        let mut b = [0u8; 8];
        let fd = recv_fd(sock, &mut b)?;
        Ok((u64::from_le_bytes(b) as usize, fd))
    }
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
        for &p in peers {
            let f = SharedFifo::create(&format!("ferrocm-ccl-fifo-{}-from-{p}", ctx.rank)).map_err(err)?;
            self.mine.push((p, Arc::new(f)));
        }
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
        let mut got: Vec<(usize, OwnedFd)> = Vec::new();
        // Connect to lower ranks (they are listening: every listener exists before the
        // all-gather that precedes this), then accept higher ones.
        for &p in peers.iter().filter(|&&p| p < ctx.rank) {
            let err = |reason: String| CclError::Transport { transport: "shm", peer: p, reason };
            let addr = SocketAddr::from_abstract_name(socket_name(ctx.magic, p).as_bytes())
                .map_err(|e| err(e.to_string()))?;
            let sock = UnixStream::connect_addr(&addr).map_err(|e| err(format!("connecting: {e}")))?;
            sock.set_read_timeout(Some(ctx.timeout)).map_err(|e| err(e.to_string()))?;
            let fifo = mine(p).ok_or_else(|| err("no FIFO prepared".into()))?;
            let (who, fd) =
                Shm::exchange(&sock, ctx.rank, &fifo).map_err(|e| err(format!("exchanging FIFOs: {e}")))?;
            if who != p {
                return Err(err(format!("rank {who} answered on rank {p}'s socket")));
            }
            got.push((p, fd));
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
                    let mut b = [0u8; 8];
                    let fd = recv_fd(&sock, &mut b).map_err(|e| err(format!("receiving a FIFO: {e}")))?;
                    let who = u64::from_le_bytes(b) as usize;
                    let fifo =
                        mine(who).ok_or_else(|| err(format!("rank {who} is not a shared-memory peer")))?;
                    send_fd(&sock, &(ctx.rank as u64).to_le_bytes(), fifo.fd.as_raw_fd())
                        .map_err(|e| err(format!("sending a FIFO: {e}")))?;
                    got.push((who, fd));
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
        for (p, fd) in got {
            let err = |reason: String| CclError::Transport { transport: "shm", peer: p, reason };
            let theirs = Arc::new(SharedFifo::map(fd).map_err(err)?);
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
