//! Sharing device memory between processes (and between devices of one process): exportable
//! physical memory travels as a POSIX file descriptor over a Unix-domain socket (`SCM_RIGHTS`),
//! and the receiver maps it into its own address space.
//!
//! On NVIDIA GPUs the descriptor comes from `cuMemExportToShareableHandle` and is imported with
//! `cuMemImportFromShareableHandle`; on the CPU device it is a sealed `memfd` that both processes
//! `mmap`, so two processes on a CPU-only machine really share pages. A descriptor keeps the
//! memory alive by itself: the exporter may drop its buffer once the handle is sent.
//!
//! [`SharedBuffer`] is the whole round trip for the common case (what a communicator needs):
//! allocate an exportable buffer on a device, [`SharedBuffer::export`] it,
//! [`ShareableHandle::send`] it over a connected [`UnixStream`], [`ShareableHandle::recv`] it in
//! the other process and [`SharedBuffer::import`] it there as a buffer that copies and kernels
//! take. The pieces ([`PhysicalMemory::export`], [`PhysicalMemory::import`], `vmm`) are public
//! for layouts of one's own.
//!
//! On the wire a handle is one 32-byte header (the magic `FRCMIPC1`, the backend, the physical
//! size and the shared length in bytes, little-endian) with the descriptor attached.

use std::io::{IoSlice, Read, Write};
use std::ops::RangeBounds;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::sync::Arc;

use ferrocm_backend::{BackendError, BackendKind, DevicePtr};

use crate::device::Device;
use crate::memory::{
    sealed, AsDeviceSlice, AsDeviceSliceMut, DeviceRepr, DeviceSlice, DeviceSliceMut, UseTracker,
};
use crate::vmm::{check_granular, AddressRange, Mapping, PhysicalMemory};
use crate::{Error, Result};

const MAGIC: &[u8; 8] = b"FRCMIPC1";
const HEADER: usize = 32;

/// Exported physical memory: a POSIX file descriptor and what the importer needs to know about
/// it. Send it to another process with [`ShareableHandle::send`]; it keeps the memory alive
/// until it is dropped (the descriptor closed).
#[derive(Debug)]
pub struct ShareableHandle {
    fd: OwnedFd,
    backend: BackendKind,
    size: u64,
    shared_bytes: u64,
}

impl AsFd for ShareableHandle {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl From<ShareableHandle> for OwnedFd {
    /// The descriptor, for passing on by other means (it still keeps the memory alive).
    fn from(handle: ShareableHandle) -> OwnedFd {
        handle.fd
    }
}

fn backend_code(kind: BackendKind) -> u32 {
    match kind {
        BackendKind::Cpu => 1,
        BackendKind::Cuda => 2,
    }
}

fn invalid(reason: impl Into<String>) -> Error {
    Error::InvalidShareableHandle { reason: reason.into() }
}

impl ShareableHandle {
    /// A handle for a descriptor obtained some other way (for example from another library's
    /// bootstrap): `size` bytes of physical memory exported by a `backend` device, of which
    /// `shared_bytes` are in use. Importing checks what the backend can check.
    pub fn from_fd(fd: OwnedFd, backend: BackendKind, size: u64, shared_bytes: u64) -> ShareableHandle {
        ShareableHandle { fd, backend, size, shared_bytes }
    }

    /// The backend whose device exported the memory.
    pub fn backend(&self) -> BackendKind {
        self.backend
    }

    /// The size of the physical memory, in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The bytes of it in use (what [`SharedBuffer::import`] maps as the buffer's length).
    pub fn shared_bytes(&self) -> u64 {
        self.shared_bytes
    }

    /// Sends the handle (the header and, attached, the descriptor) over a connected Unix-domain
    /// stream socket.
    pub fn send(&self, socket: &UnixStream) -> Result<()> {
        let mut header = [0u8; HEADER];
        header[..8].copy_from_slice(MAGIC);
        header[8..12].copy_from_slice(&backend_code(self.backend).to_le_bytes());
        header[16..24].copy_from_slice(&self.size.to_le_bytes());
        header[24..32].copy_from_slice(&self.shared_bytes.to_le_bytes());
        let sent = send_with_fd(socket, &header, self.fd.as_fd())
            .map_err(|e| Error::Ipc { operation: "sending a shareable handle", reason: e.to_string() })?;
        // A stream socket may take the header in parts; the descriptor went with the first.
        (&*socket)
            .write_all(&header[sent..])
            .map_err(|e| Error::Ipc { operation: "sending a shareable handle", reason: e.to_string() })
    }

    /// Receives a handle sent by [`ShareableHandle::send`] from a connected Unix-domain stream
    /// socket. A peer that closes the connection first, a message that is not a handle, or one
    /// without its descriptor is an error.
    pub fn recv(socket: &UnixStream) -> Result<ShareableHandle> {
        const OP: &str = "receiving a shareable handle";
        let mut header = [0u8; HEADER];
        let (n, fd) =
            recv_with_fd(socket, &mut header).map_err(|e| Error::Ipc { operation: OP, reason: e })?;
        if n == 0 {
            return Err(Error::Ipc {
                operation: OP,
                reason: "the peer closed the connection before sending a handle".into(),
            });
        }
        (&*socket).read_exact(&mut header[n..]).map_err(|e| Error::Ipc {
            operation: OP,
            reason: format!("the connection ended inside a handle's header ({e})"),
        })?;
        if &header[..8] != MAGIC {
            return Err(invalid("the message is not a ferrocm shareable handle (bad magic)"));
        }
        let word = |i: usize| u64::from_le_bytes(header[i..i + 8].try_into().expect("8 bytes"));
        let backend = match u32::from_le_bytes(header[8..12].try_into().expect("4 bytes")) {
            1 => BackendKind::Cpu,
            2 => BackendKind::Cuda,
            other => return Err(invalid(format!("unknown backend code {other}"))),
        };
        let fd = fd.ok_or_else(|| invalid("the message carries no file descriptor"))?;
        let (size, shared_bytes) = (word(16), word(24));
        if shared_bytes > size {
            return Err(invalid(format!("{shared_bytes} shared bytes exceed the {size} bytes of memory")));
        }
        Ok(ShareableHandle { fd, backend, size, shared_bytes })
    }
}

/// `sendmsg` of `bytes` with `fd` attached (`SCM_RIGHTS`); returns the bytes sent.
fn send_with_fd(socket: &UnixStream, bytes: &[u8], fd: BorrowedFd<'_>) -> std::io::Result<usize> {
    let iov = [IoSlice::new(bytes)];
    // Control buffer for one descriptor, aligned for `cmsghdr`.
    let mut control = [0u64; 8];
    // SAFETY: CMSG_SPACE is a pure size computation.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<libc::c_int>() as u32) } as usize;
    debug_assert!(space <= std::mem::size_of_val(&control));
    // SAFETY: `msghdr` is plain data; every pointer set below outlives the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = iov.as_ptr() as *mut libc::iovec;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
    msg.msg_controllen = space as _;
    // SAFETY: the control buffer holds `space` bytes, room for one header and one int.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<libc::c_int>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg) as *mut libc::c_int, fd.as_raw_fd());
    }
    loop {
        // SAFETY: a connected socket and a fully initialised message; MSG_NOSIGNAL turns a
        // closed peer into EPIPE instead of a signal.
        let n = unsafe { libc::sendmsg(socket.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// `recvmsg` into `buf`, taking a descriptor if one is attached; returns the bytes received.
fn recv_with_fd(
    socket: &UnixStream,
    buf: &mut [u8],
) -> std::result::Result<(usize, Option<OwnedFd>), String> {
    let mut iov = libc::iovec { iov_base: buf.as_mut_ptr() as *mut libc::c_void, iov_len: buf.len() };
    // Room for a few descriptors, so a peer sending more than one is detected, not truncated.
    let mut control = [0u64; 16];
    // SAFETY: `msghdr` is plain data; every pointer set below outlives the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
    msg.msg_controllen = std::mem::size_of_val(&control) as _;
    let n = loop {
        // SAFETY: a connected socket and a message whose buffers are live; received descriptors
        // are close-on-exec.
        let n = unsafe { libc::recvmsg(socket.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n >= 0 {
            break n as usize;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e.to_string());
        }
    };
    let mut fds = Vec::new();
    // SAFETY: walking the control messages the kernel wrote into `control`.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(cmsg) as *const libc::c_int;
                let count = ((*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize)
                    / std::mem::size_of::<libc::c_int>();
                for i in 0..count {
                    // Each received descriptor is new and ours to own.
                    fds.push(OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(i))));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    if msg.msg_flags & libc::MSG_CTRUNC != 0 {
        return Err("the message carried more descriptors than one handle has".into());
    }
    match fds.len() {
        0 => Ok((n, None)),
        1 => Ok((n, fds.pop())),
        k => Err(format!("the message carried {k} descriptors; a handle has one")),
    }
}

impl PhysicalMemory {
    /// Exports the memory as a shareable handle (`hipMemExportToShareableHandle`); it must have
    /// been created with [`PhysicalMemory::new_exportable`].
    pub fn export(&self) -> Result<ShareableHandle> {
        self.export_shared(self.size())
    }

    fn export_shared(&self, shared_bytes: u64) -> Result<ShareableHandle> {
        crate::callback::forbid("exporting memory")?;
        let device = self.device();
        if !self.is_exportable() {
            return Err(invalid(
                "the physical memory was not created exportable (use PhysicalMemory::new_exportable)",
            ));
        }
        // SAFETY: a live handle of this device, created exportable.
        let fd = unsafe { device.inner.backend.mem_export(device.ordinal(), self.inner.handle) }
            .map_err(|e| device.error(e))?;
        Ok(ShareableHandle { fd, backend: device.kind(), size: self.size(), shared_bytes })
    }

    /// Imports exported memory (from this process or another) for use on `device`
    /// (`hipMemImportFromShareableHandle`). The handle stays the caller's.
    pub fn import(device: &Device, handle: &ShareableHandle) -> Result<PhysicalMemory> {
        crate::callback::forbid("importing memory")?;
        if handle.backend != device.kind() {
            return Err(invalid(format!(
                "memory exported by a {} device cannot be imported on device {} ({})",
                handle.backend,
                device.index(),
                device.kind()
            )));
        }
        if let Err(e) = check_granular(device, "shareable handle size", handle.size, true) {
            return Err(invalid(e.to_string()));
        }
        let imported = device.inner.backend.mem_import(device.ordinal(), handle.fd.as_fd(), handle.size);
        let memory = imported.map_err(|e| match e {
            BackendError::InvalidValue { message, .. } => invalid(message),
            e @ BackendError::Driver { .. } => invalid(format!("the driver refused to import it: {e}")),
            e => device.error(e),
        })?;
        Ok(PhysicalMemory::from_handle(device, memory, handle.size, true))
    }
}

/// A buffer of `T` that other processes (or other devices of this process) can map: exportable
/// physical memory, rounded up to the granularity, mapped into an address range of its own.
/// Copies and kernels take it like a [`DeviceBuffer`](crate::DeviceBuffer); dropping it waits
/// for the streams that used it. The memory lives on while a handle to it or a mapping of it in
/// any process does.
pub struct SharedBuffer<T: DeviceRepr> {
    mapping: Mapping<T>,
    range: AddressRange,
}

impl<T: DeviceRepr> std::fmt::Debug for SharedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedBuffer({:?})", self.mapping)
    }
}

impl<T: DeviceRepr> SharedBuffer<T> {
    /// `len` elements of exportable memory on `device`. Its contents are unspecified.
    pub fn new(device: &Device, len: usize) -> Result<SharedBuffer<T>> {
        let bytes = device.checked_bytes::<T>(len)?;
        let granularity = device.allocation_granularity()?;
        let size = bytes.div_ceil(granularity) * granularity;
        let memory = PhysicalMemory::new_exportable(device, size)?;
        SharedBuffer::map(device, &memory, len)
    }

    fn map(device: &Device, memory: &PhysicalMemory, len: usize) -> Result<SharedBuffer<T>> {
        let range = AddressRange::reserve(device, memory.size())?;
        let mapping = range.map_len(0, memory, len)?;
        Ok(SharedBuffer { mapping, range })
    }

    /// Imports a buffer exported by [`SharedBuffer::export`] (in another process, or from
    /// another device of this one) and maps it for `device`. The shared length must be a whole
    /// number of `T`.
    pub fn import(device: &Device, handle: &ShareableHandle) -> Result<SharedBuffer<T>> {
        let size = std::mem::size_of::<T>() as u64;
        if !handle.shared_bytes.is_multiple_of(size) || handle.shared_bytes == 0 {
            return Err(invalid(format!(
                "the handle shares {} bytes, not a whole, non-zero number of {}-byte elements",
                handle.shared_bytes, size
            )));
        }
        let memory = PhysicalMemory::import(device, handle)?;
        // The driver may keep no size with imported memory; a handle that claims more than was
        // exported is refused when it is mapped.
        SharedBuffer::map(device, &memory, (handle.shared_bytes / size) as usize).map_err(|e| match e {
            Error::Backend { source, .. } => invalid(format!("mapping the imported memory failed: {source}")),
            e => e,
        })
    }

    /// A handle to send to another process (or to import on another device).
    pub fn export(&self) -> Result<ShareableHandle> {
        self.mapping.memory().export_shared(self.byte_len())
    }

    /// The physical memory behind the buffer.
    pub fn memory(&self) -> &PhysicalMemory {
        self.mapping.memory()
    }

    /// The address range the buffer is mapped in.
    pub fn address_range(&self) -> &AddressRange {
        &self.range
    }

    /// Lets each of `devices` (of the same backend) read and write the buffer too; see
    /// [`Mapping::set_access`].
    pub fn set_access(&self, devices: &[&Device]) -> Result<()> {
        self.mapping.set_access(devices)
    }

    /// A read-only view of `range`.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
        self.mapping.slice(range)
    }

    /// A writable view of `range`.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        self.mapping.slice_mut(range)
    }
}

impl<T: DeviceRepr> sealed::Sealed for SharedBuffer<T> {}
impl<T: DeviceRepr> AsDeviceSlice<T> for SharedBuffer<T> {
    fn device(&self) -> &Device {
        self.mapping.device()
    }
    fn device_ptr(&self) -> DevicePtr {
        self.mapping.device_ptr()
    }
    fn len(&self) -> usize {
        self.mapping.len()
    }
    fn uses(&self) -> &Arc<UseTracker> {
        self.mapping.uses()
    }
}
impl<T: DeviceRepr> AsDeviceSliceMut<T> for SharedBuffer<T> {}
