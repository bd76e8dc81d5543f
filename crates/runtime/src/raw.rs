//! Address-level copies and fills, for bindings whose callers hold raw addresses (the HIP C
//! ABI). Every address is looked up in the pointer table: one the runtime allocated (device,
//! managed or pinned memory, or a module variable) must hold the whole range; any other address
//! is host memory, which the caller vouches for. Pageable host memory is only borrowed for the
//! call, so a copy that touches it waits for its completion (as `cudaMemcpyAsync` does for
//! pageable memory); copies between device or pinned memory return at once.
//!
//! These operations are not recorded in the buffers' use tracking (they know no buffer): free
//! memory they touched only after synchronizing the streams that did, as HIP's `hipFree` does.

use ferrocm_backend::{CopyOp, DevicePtr};

use crate::callback::forbid;
use crate::device::Device;
use crate::pointer::{pointer_attributes, MemoryKind};
use crate::stream::Stream;
use crate::{Error, Result};

/// Where one side of a copy lies.
enum Side {
    /// Device or managed memory (or a module variable) of a device.
    Device(Device),
    /// Pinned host memory: the copy may run in the background.
    Pinned,
    /// Any other host memory: the copy completes before the call returns.
    Pageable,
}

fn side(addr: u64, bytes: u64) -> Result<Side> {
    if addr == 0 {
        return Err(Error::InvalidAddress { address: addr, bytes, reason: "a null pointer".into() });
    }
    let Some(a) = pointer_attributes(addr)? else { return Ok(Side::Pageable) };
    let end = a.base.0 + a.size;
    if addr.checked_add(bytes).is_none_or(|e| e > end) {
        return Err(Error::InvalidAddress {
            address: addr,
            bytes,
            reason: format!(
                "the range runs past the end of its allocation ({:#x}, {} bytes, on device {})",
                a.base.0,
                a.size,
                a.device.index()
            ),
        });
    }
    Ok(match a.kind {
        MemoryKind::PinnedHost => Side::Pinned,
        _ => Side::Device(a.device),
    })
}

impl Stream {
    /// Copies `bytes` bytes from address `src` to address `dst`, in stream order. Device memory
    /// on either side must belong to this stream's device, except that a device-to-device copy
    /// may involve any devices of the stream's backend (a peer copy). The call waits for the
    /// copy when either side is pageable host memory.
    ///
    /// # Safety
    /// An address the runtime did not allocate is host memory that must be valid for reads
    /// (`src`) or writes (`dst`) of `bytes` bytes until the copy completes, and not be written
    /// by anyone else meanwhile.
    pub unsafe fn copy_raw(&self, dst: u64, src: u64, bytes: u64) -> Result<()> {
        forbid("copying memory")?;
        if bytes == 0 {
            return Ok(());
        }
        let (d, s) = (side(dst, bytes)?, side(src, bytes)?);
        let here = self.device();
        let own = |dev: &Device, what: &'static str| -> Result<()> {
            if dev != here {
                return Err(Error::DeviceMismatch { what, expected: here.index(), actual: dev.index() });
            }
            Ok(())
        };
        let wait = matches!(d, Side::Pageable) || matches!(s, Side::Pageable);
        let op = match (&d, &s) {
            (Side::Device(dd), Side::Device(sd)) => {
                if dd == here && sd == here {
                    CopyOp::DeviceToDevice { src: DevicePtr(src), dst: DevicePtr(dst) }
                } else if dd.kind() == here.kind() && sd.kind() == here.kind() {
                    CopyOp::Peer {
                        src_device: sd.ordinal(),
                        src: DevicePtr(src),
                        dst_device: dd.ordinal(),
                        dst: DevicePtr(dst),
                    }
                } else {
                    return Err(Error::DeviceMismatch {
                        what: "copy between devices of different backends",
                        expected: dd.index(),
                        actual: sd.index(),
                    });
                }
            }
            (Side::Device(dd), _) => {
                own(dd, "destination memory")?;
                CopyOp::HostToDevice { src: src as *const u8, dst: DevicePtr(dst) }
            }
            (_, Side::Device(sd)) => {
                own(sd, "source memory")?;
                CopyOp::DeviceToHost { src: DevicePtr(src), dst: dst as *mut u8 }
            }
            _ => {
                // Host to host: after the stream's earlier work, on the calling thread.
                self.synchronize()?;
                // SAFETY: both ranges are host memory valid for `bytes` bytes (the caller's
                // promise for unknown addresses, the pointer table's for pinned memory).
                unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes as usize) };
                return Ok(());
            }
        };
        // SAFETY: device ranges lie inside live allocations (checked against the pointer
        // table above); host ranges are the caller's promise, kept until the copy completes by
        // waiting below when they are pageable.
        unsafe { self.device().inner.backend.copy_async(self.handle(), op, bytes) }
            .map_err(|e| self.device().error(e))?;
        if wait {
            self.synchronize()?;
        }
        Ok(())
    }

    /// Sets `bytes` bytes at address `dst` to `value`, in stream order. `dst` must be device or
    /// managed memory of this stream's device (a module variable included), the whole range
    /// inside one allocation.
    pub fn memset_raw(&self, dst: u64, value: u8, bytes: u64) -> Result<()> {
        forbid("setting memory")?;
        if bytes == 0 {
            return Ok(());
        }
        match side(dst, bytes)? {
            Side::Device(d) if &d == self.device() => {}
            Side::Device(d) => {
                return Err(Error::DeviceMismatch {
                    what: "destination memory",
                    expected: self.device().index(),
                    actual: d.index(),
                })
            }
            _ => {
                return Err(Error::InvalidAddress {
                    address: dst,
                    bytes,
                    reason: "not device memory (memset fills device or managed memory)".into(),
                })
            }
        }
        // SAFETY: the range lies inside a live allocation of this device (checked above).
        unsafe { self.device().inner.backend.memset_async(self.handle(), DevicePtr(dst), value, bytes) }
            .map_err(|e| self.device().error(e))
    }
}
