//! Virtual memory on the CPU device, with the GPU's rules and real sharing between processes.
//!
//! Physical memory is a `memfd` sized once and sealed against shrinking and growing, so a
//! mapping of it can never point past its end (which would fault on access) whoever holds the
//! descriptor. An address reservation is an inaccessible anonymous mapping; mapping physical
//! memory replaces part of it with a shared mapping of the `memfd` (inaccessible until access is
//! set, as on a GPU), and unmapping puts the inaccessible placeholder back. Exporting hands out
//! a duplicate of the descriptor: another process that maps it shares the same pages. Sizes,
//! offsets and addresses follow the granularity GPUs report (2 MiB), so what the CPU accepts a
//! GPU accepts too.

use std::collections::{BTreeMap, HashMap};
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use ferrocm_backend::{BackendError, DevicePtr, MemCreateFlags, MemHandle, Result, VmmProperties};

use crate::{lock, memory, CpuBackend};

/// The granularity of physical memory, reservations and mappings.
pub(crate) const GRANULARITY: u64 = 2 << 20;

/// Seals every exported memfd carries: its size is fixed for good.
const SIZE_SEALS: libc::c_int = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW;

struct Physical {
    device: u32,
    fd: OwnedFd,
    bytes: u64,
    exportable: bool,
    /// Created here (so counted in the device's used memory), not imported.
    created: bool,
}

struct Reservation {
    device: u32,
    bytes: u64,
    /// Mappings inside the reservation: address -> length.
    mapped: BTreeMap<u64, u64>,
}

/// The CPU device's physical allocations and reservations.
#[derive(Default)]
pub(crate) struct Vmm {
    memories: Mutex<HashMap<u64, Physical>>,
    reservations: Mutex<BTreeMap<u64, Reservation>>,
}

impl Drop for Vmm {
    fn drop(&mut self) {
        for (addr, r) in lock(&self.reservations).iter() {
            // SAFETY: each entry is a live reservation (with its mappings) made by this table.
            unsafe { libc::munmap(*addr as *mut libc::c_void, r.bytes as usize) };
        }
    }
}

fn os_error(what: &'static str) -> BackendError {
    BackendError::Os { what, message: std::io::Error::last_os_error().to_string() }
}

fn invalid(call: &'static str, message: String) -> BackendError {
    BackendError::InvalidValue { call, message }
}

fn granular(call: &'static str, what: &str, value: u64) -> Result<()> {
    if !value.is_multiple_of(GRANULARITY) {
        return Err(invalid(
            call,
            format!("{what} {value} is not a multiple of the granularity {GRANULARITY}"),
        ));
    }
    Ok(())
}

/// Replaces `[addr, addr + len)` with an inaccessible anonymous placeholder.
///
/// # Safety
/// The range lies inside a reservation of this table and nothing may use it.
unsafe fn placeholder(addr: u64, len: u64) -> Result<()> {
    // SAFETY: MAP_FIXED over a range the caller owns.
    let p = unsafe {
        libc::mmap(
            addr as *mut libc::c_void,
            len as usize,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(os_error("an address reservation"));
    }
    Ok(())
}

impl CpuBackend {
    pub(crate) fn vmm_properties_impl(&self, device: u32) -> Result<VmmProperties> {
        self.check_device(device)?;
        Ok(VmmProperties { granularity: GRANULARITY, exportable: true })
    }

    pub(crate) fn vmm_create(&self, device: u32, bytes: u64, flags: MemCreateFlags) -> Result<MemHandle> {
        let state = self.check_device(device)?;
        granular("mem_create", "size", bytes)?;
        let host = memory::host_memory();
        if bytes == 0 || bytes > host.available {
            return Err(BackendError::OutOfMemory { device, requested: bytes, free: host.available });
        }
        // SAFETY: a NUL-terminated name and valid flags; the result is a new descriptor or -1.
        let raw = unsafe {
            libc::memfd_create(c"ferrocm-vmm".as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING)
        };
        if raw < 0 {
            return Err(os_error("physical memory (memfd)"));
        }
        // SAFETY: `raw` is a new descriptor nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: plain calls on a descriptor we own.
        unsafe {
            if libc::ftruncate(fd.as_raw_fd(), bytes as libc::off_t) != 0 {
                return Err(os_error("physical memory (memfd size)"));
            }
            if libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, SIZE_SEALS | libc::F_SEAL_SEAL) != 0 {
                return Err(os_error("physical memory (memfd seals)"));
            }
        }
        let handle = self.handle();
        state.used.fetch_add(bytes, Ordering::Relaxed);
        lock(&self.vmm.memories)
            .insert(handle, Physical { device, fd, bytes, exportable: flags.exportable, created: true });
        Ok(MemHandle(handle))
    }

    pub(crate) fn vmm_release(&self, device: u32, memory: MemHandle) -> Result<()> {
        let mut memories = lock(&self.vmm.memories);
        match memories.get(&memory.0) {
            Some(p) if p.device == device => {
                let p = memories.remove(&memory.0).expect("present above");
                if p.created {
                    self.devices[device as usize].used.fetch_sub(p.bytes, Ordering::Relaxed);
                }
                // Closing the descriptor frees nothing that is still mapped: the mappings hold
                // the pages.
                Ok(())
            }
            _ => Err(BackendError::InvalidHandle { what: "physical memory", handle: memory.0 }),
        }
    }

    pub(crate) fn vmm_reserve(&self, device: u32, bytes: u64) -> Result<DevicePtr> {
        self.check_device(device)?;
        granular("mem_reserve", "size", bytes)?;
        if bytes == 0 {
            return Err(invalid("mem_reserve", "size 0".into()));
        }
        let len =
            bytes.checked_add(GRANULARITY).ok_or_else(|| invalid("mem_reserve", format!("size {bytes}")))?;
        // SAFETY: an anonymous inaccessible mapping with no address hint.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len as usize,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(os_error("an address reservation"));
        }
        let p = p as u64;
        let start = p.next_multiple_of(GRANULARITY);
        // SAFETY: the head and tail lie in the mapping just made and are not used.
        unsafe {
            if start > p {
                libc::munmap(p as *mut libc::c_void, (start - p) as usize);
            }
            let end = start + bytes;
            if p + len > end {
                libc::munmap(end as *mut libc::c_void, (p + len - end) as usize);
            }
        }
        lock(&self.vmm.reservations).insert(start, Reservation { device, bytes, mapped: BTreeMap::new() });
        Ok(DevicePtr(start))
    }

    pub(crate) fn vmm_unreserve(&self, device: u32, ptr: DevicePtr, bytes: u64) -> Result<()> {
        let mut reservations = lock(&self.vmm.reservations);
        match reservations.get(&ptr.0) {
            Some(r) if r.device == device && r.bytes == bytes && r.mapped.is_empty() => {
                reservations.remove(&ptr.0);
                // SAFETY: exactly a live reservation with nothing mapped, removed from the table.
                unsafe { libc::munmap(ptr.0 as *mut libc::c_void, bytes as usize) };
                Ok(())
            }
            Some(r) if !r.mapped.is_empty() => Err(invalid(
                "mem_unreserve",
                format!("the reservation at {ptr} still has {} mapping(s)", r.mapped.len()),
            )),
            _ => Err(BackendError::InvalidHandle { what: "address reservation", handle: ptr.0 }),
        }
    }

    pub(crate) fn vmm_map(&self, device: u32, ptr: DevicePtr, bytes: u64, memory: MemHandle) -> Result<()> {
        granular("mem_map", "address", ptr.0)?;
        granular("mem_map", "size", bytes)?;
        let memories = lock(&self.vmm.memories);
        let physical = memories
            .get(&memory.0)
            .ok_or(BackendError::InvalidHandle { what: "physical memory", handle: memory.0 })?;
        if bytes != physical.bytes {
            // The GPU's rule: a mapping covers the whole allocation.
            return Err(invalid(
                "mem_map",
                format!(
                    "a mapping of {bytes} bytes does not cover the {} bytes of the physical memory",
                    physical.bytes
                ),
            ));
        }
        let mut reservations = lock(&self.vmm.reservations);
        let r = reservations
            .range_mut(..=ptr.0)
            .next_back()
            .filter(|(&base, r)| r.device == device && ptr.0.saturating_add(bytes) <= base + r.bytes)
            .map(|(_, r)| r)
            .ok_or_else(|| {
                invalid(
                    "mem_map",
                    format!("{ptr} + {bytes} bytes is not inside a reservation of device {device}"),
                )
            })?;
        let overlaps = r.mapped.range(..ptr.0 + bytes).next_back().is_some_and(|(&a, &l)| a + l > ptr.0);
        if overlaps {
            return Err(invalid("mem_map", format!("{ptr} + {bytes} bytes overlaps an existing mapping")));
        }
        // SAFETY: the range lies in a reservation this table owns and has nothing mapped; the
        // memfd holds exactly `bytes` bytes and is sealed against resizing.
        let p = unsafe {
            libc::mmap(
                ptr.0 as *mut libc::c_void,
                bytes as usize,
                libc::PROT_NONE,
                libc::MAP_SHARED | libc::MAP_FIXED,
                physical.fd.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(os_error("a mapping of physical memory"));
        }
        r.mapped.insert(ptr.0, bytes);
        Ok(())
    }

    /// The reservation entry holding exactly the mapping `[ptr, ptr + bytes)`.
    fn with_mapping<R>(
        &self,
        call: &'static str,
        device: u32,
        ptr: DevicePtr,
        bytes: u64,
        f: impl FnOnce(&mut Reservation) -> Result<R>,
    ) -> Result<R> {
        let mut reservations = lock(&self.vmm.reservations);
        let r = reservations
            .range_mut(..=ptr.0)
            .next_back()
            .map(|(_, r)| r)
            .filter(|r| r.device == device && r.mapped.get(&ptr.0) == Some(&bytes))
            .ok_or_else(|| {
                invalid(call, format!("{ptr} + {bytes} bytes is not a mapping of device {device}"))
            })?;
        f(r)
    }

    pub(crate) fn vmm_unmap(&self, device: u32, ptr: DevicePtr, bytes: u64) -> Result<()> {
        self.with_mapping("mem_unmap", device, ptr, bytes, |r| {
            // SAFETY: exactly one mapping inside a reservation this table owns; nothing uses it.
            unsafe { placeholder(ptr.0, bytes)? };
            r.mapped.remove(&ptr.0);
            Ok(())
        })
    }

    pub(crate) fn vmm_set_access(
        &self,
        device: u32,
        ptr: DevicePtr,
        bytes: u64,
        devices: &[u32],
    ) -> Result<()> {
        for &d in devices {
            self.check_device(d)?;
        }
        // CPU devices share one address space: access from one is access from all.
        let prot = if devices.is_empty() { libc::PROT_NONE } else { libc::PROT_READ | libc::PROT_WRITE };
        self.with_mapping("mem_set_access", device, ptr, bytes, |_| {
            // SAFETY: exactly one live mapping of this table.
            if unsafe { libc::mprotect(ptr.0 as *mut libc::c_void, bytes as usize, prot) } != 0 {
                return Err(os_error("memory access"));
            }
            Ok(())
        })
    }

    pub(crate) fn vmm_export(&self, device: u32, memory: MemHandle) -> Result<OwnedFd> {
        let memories = lock(&self.vmm.memories);
        match memories.get(&memory.0) {
            Some(p) if p.device == device && p.exportable => {
                p.fd.try_clone()
                    .map_err(|e| BackendError::Os { what: "an exported descriptor", message: e.to_string() })
            }
            Some(p) if p.device == device => {
                Err(invalid("mem_export", "the physical memory was not created exportable".into()))
            }
            _ => Err(BackendError::InvalidHandle { what: "physical memory", handle: memory.0 }),
        }
    }

    pub(crate) fn vmm_import(&self, device: u32, fd: BorrowedFd<'_>, bytes: u64) -> Result<MemHandle> {
        self.check_device(device)?;
        // SAFETY: F_GET_SEALS reads the seals of an open descriptor (-1 for one that is not a
        // memfd).
        let seals = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GET_SEALS) };
        if seals < 0 || seals & SIZE_SEALS != SIZE_SEALS {
            return Err(invalid(
                "mem_import",
                "the descriptor is not memory exported by the CPU backend (a memfd sealed against resizing)"
                    .into(),
            ));
        }
        // SAFETY: `stat` is plain data written by fstat on an open descriptor.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
            return Err(os_error("an imported descriptor"));
        }
        if st.st_size as u64 != bytes {
            return Err(invalid(
                "mem_import",
                format!("the descriptor holds {} bytes of memory, not the {bytes} bytes claimed", st.st_size),
            ));
        }
        let fd = fd
            .try_clone_to_owned()
            .map_err(|e| BackendError::Os { what: "an imported descriptor", message: e.to_string() })?;
        let handle = self.handle();
        lock(&self.vmm.memories)
            .insert(handle, Physical { device, fd, bytes, exportable: true, created: false });
        Ok(MemHandle(handle))
    }
}
