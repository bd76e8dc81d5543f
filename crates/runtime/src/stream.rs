use std::sync::Arc;

use ferrocm_backend::{CopyOp, StreamHandle};

use crate::device::Device;
use crate::event::Event;
use crate::graph::{Capture, InCapture};
use crate::memory::{AsDeviceSlice, AsDeviceSliceMut, DeviceBuffer, DeviceRepr, HostBuffer};
use crate::{Error, Result};

struct StreamInner {
    device: Device,
    handle: StreamHandle,
    /// Streams the runtime created are destroyed with their last clone; the device's special
    /// default streams (legacy, per-thread) never are.
    owned: bool,
    trace: crate::trace::StreamTrace,
    /// Graph capture (see `graph`).
    pub(crate) capture: Capture,
}

impl Drop for StreamInner {
    fn drop(&mut self) {
        self.capture.abandon(&self.device, self.handle);
        // Ends the stream's batch of timed kernels (an event record: made off any callback).
        let close = self.trace.closer();
        let (device, handle, owned) = (self.device.clone(), self.handle, self.owned);
        if close.is_none() && !owned {
            return;
        }
        // Destroying returns at once and frees the stream once its work is done, so dropping
        // the last clone inside the stream's own callback is fine; the call itself is made off
        // any callback.
        crate::callback::now_or_later(move || {
            if let Some(close) = close {
                close();
            }
            if owned {
                // SAFETY: the handle came from `stream_create`, and this is the last clone:
                // nothing can queue work on it any more.
                let _ = unsafe { device.inner.backend.stream_destroy(handle) };
            }
        });
    }
}

/// An in-order queue of device work (copies, kernels, host callbacks). Cheap to clone; clones
/// name the same stream, which is destroyed when the last clone is dropped.
///
/// Every call that touches the device is refused with [`Error::NotPermitted`] inside a host
/// callback ([`Stream::add_callback`]), as CUDA refuses API calls in its host functions.
#[derive(Clone)]
pub struct Stream {
    inner: Arc<StreamInner>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stream({:#x} on device {})", self.inner.handle.0, self.inner.device.index())
    }
}

impl PartialEq for Stream {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for Stream {}

impl Stream {
    pub(crate) fn from_handle(device: Device, handle: StreamHandle) -> Stream {
        Stream {
            inner: Arc::new(StreamInner {
                device,
                handle,
                owned: true,
                capture: Capture::default(),
                trace: Default::default(),
            }),
        }
    }

    pub(crate) fn from_default(device: Device, handle: StreamHandle) -> Stream {
        Stream {
            inner: Arc::new(StreamInner {
                device,
                handle,
                owned: false,
                capture: Capture::default(),
                trace: Default::default(),
            }),
        }
    }

    /// A number unique among live streams (for use tracking).
    pub(crate) fn id(&self) -> u64 {
        Arc::as_ptr(&self.inner) as u64
    }

    pub(crate) fn trace_state(&self) -> &crate::trace::StreamTrace {
        &self.inner.trace
    }

    /// The stream's graph capture state.
    pub(crate) fn capture_state(&self) -> &Capture {
        &self.inner.capture
    }

    /// The device the stream belongs to.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// The backend's handle (for backend-level interop).
    pub fn handle(&self) -> StreamHandle {
        self.inner.handle
    }

    /// The vendor's handle of this stream (a `CUstream` on NVIDIA, in the primary context that
    /// CUDA libraries share), for handing to other libraries (DLPack's `stream` argument,
    /// `__cuda_array_interface__`); `None` on the CPU.
    pub fn native_handle(&self) -> Option<u64> {
        self.device().inner.backend.native_stream_handle(self.inner.handle)
    }

    fn backend_err(&self, e: ferrocm_backend::BackendError) -> Error {
        self.inner.device.error(e)
    }

    /// Blocks until all queued work has completed; reports a failure of any of it.
    pub fn synchronize(&self) -> Result<()> {
        let _t = crate::trace::api("Stream::synchronize");
        let _op = self.op("synchronizing a stream", InCapture::Refused)?;
        // SAFETY: the stream is live while `self` is.
        unsafe { self.device().inner.backend.stream_synchronize(self.inner.handle) }
            .map_err(|e| self.backend_err(e))?;
        self.device().inner.pool.release_over_threshold(self.device(), Some(self));
        Ok(())
    }

    /// Whether all queued work has completed.
    pub fn query(&self) -> Result<bool> {
        let _t = crate::trace::api("Stream::query");
        let _op = self.op("querying a stream", InCapture::Refused)?;
        // SAFETY: the stream is live while `self` is.
        unsafe { self.device().inner.backend.stream_query(self.inner.handle) }
            .map_err(|e| self.backend_err(e))
    }

    /// Makes later work on this stream wait for `event`'s last record. The event may have been
    /// recorded on another device of the same backend (as CUDA allows; ring collectives need it).
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        let _t = crate::trace::api("Stream::wait_event");
        let _op = self.op("making a stream wait on an event", InCapture::Refused)?;
        crate::trace::break_chain(self);
        if event.device().kind() != self.device().kind() {
            return Err(Error::DeviceMismatch {
                what: "event (of another backend)",
                expected: self.device().index(),
                actual: event.device().index(),
            });
        }
        // SAFETY: stream and event are live while `self` and `event` are.
        unsafe { self.device().inner.backend.stream_wait_event(self.inner.handle, event.handle()) }
            .map_err(|e| self.backend_err(e))
    }

    /// Queues a host function to run after earlier work and before later work. Inside it,
    /// runtime calls that touch a device return [`Error::NotPermitted`]; dropping buffers and
    /// streams is allowed (their release happens once the callback has returned).
    pub fn add_callback(&self, f: impl FnOnce() + Send + 'static) -> Result<()> {
        let _t = crate::trace::api("Stream::add_callback");
        let _op = self.op("adding a host callback", InCapture::Refused)?;
        crate::trace::break_chain(self);
        // SAFETY: the stream is live while `self` is.
        unsafe {
            self.device()
                .inner
                .backend
                .stream_add_callback(self.inner.handle, Box::new(move || crate::callback::run(f)))
        }
        .map_err(|e| self.backend_err(e))
    }

    pub(crate) fn same_device(&self, what: &'static str, other: &Device) -> Result<()> {
        if other != self.device() {
            return Err(Error::DeviceMismatch {
                what,
                expected: self.device().index(),
                actual: other.index(),
            });
        }
        Ok(())
    }

    /// Records that work queued on this stream reaches `buffer` by its address (a collective's
    /// peers read and write it through peer pointers), so freeing or reusing the buffer waits
    /// for this stream, as it does for the runtime's own copies and launches.
    pub fn record_use<T: DeviceRepr>(&self, buffer: &impl AsDeviceSlice<T>) {
        buffer.uses().record(self);
    }

    /// Allocates `len` elements from the device's stream-ordered pool. The memory may be
    /// reused once dropped, in this stream's order (after every other stream that used it);
    /// its contents are unspecified.
    pub fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let _t = crate::trace::api("Stream::alloc");
        let _op = self.op("allocating memory from the pool", InCapture::Refused)?;
        let bytes = self.device().checked_bytes::<T>(len)?;
        let block = self.device().inner.pool.alloc(self, bytes)?;
        Ok(DeviceBuffer::from_pool(self.device().clone(), block, len, self.clone()))
    }

    /// Like [`Stream::alloc`], with every byte set to zero (in stream order).
    pub fn alloc_zeroed<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let _t = crate::trace::api("Stream::alloc_zeroed");
        let mut b = self.alloc::<T>(len)?;
        self.memset_zero(&mut b)?;
        Ok(b)
    }

    /// Sets every byte of `dst` to zero, in stream order.
    pub fn memset_zero<T: DeviceRepr>(&self, dst: &mut impl AsDeviceSliceMut<T>) -> Result<()> {
        self.memset_bytes(dst, 0)
    }

    /// Sets every byte of `dst` to `value`, in stream order.
    pub fn memset_bytes<T: DeviceRepr>(&self, dst: &mut impl AsDeviceSliceMut<T>, value: u8) -> Result<()> {
        let _t = crate::trace::api("Stream::memset");
        let _op = self.op("setting memory", InCapture::Recorded)?;
        self.same_device("destination buffer", dst.device())?;
        if dst.is_empty() {
            return Ok(());
        }
        dst.uses().record(self);
        // SAFETY: the view names a live allocation of this device; its use by this stream is
        // recorded, so the memory is not freed or reused before the memset completes.
        let (ptr, bytes) = (dst.device_ptr(), dst.byte_len());
        crate::trace::device_work(
            self,
            crate::trace::Kind::Kernel,
            || (crate::trace::DeviceOp::Memset { bytes }, Some(crate::trace::Work::bytes(bytes))),
            || {
                unsafe { self.device().inner.backend.memset_async(self.inner.handle, ptr, value, bytes) }
                    .map_err(|e| self.backend_err(e))
            },
        )
    }

    /// Queues a copy after the checks; records the stream's use of the device memory involved.
    ///
    /// # Safety
    /// Host memory in `op` stays valid until the copy completes.
    unsafe fn queue_copy(&self, op: CopyOp, bytes: u64) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: device ranges come from sealed views of live allocations whose use is
        // recorded by the callers; host memory is the caller's promise.
        crate::trace::device_work(
            self,
            crate::trace::Kind::Copy,
            || crate::trace::copy(self.device(), &op, bytes),
            || {
                unsafe { self.device().inner.backend.copy_async(self.inner.handle, op, bytes) }
                    .map_err(|e| self.backend_err(e))
            },
        )
    }

    fn check_len(operation: &'static str, destination: usize, source_len: usize) -> Result<()> {
        if destination != source_len {
            return Err(Error::LengthMismatch { operation, destination, source_len });
        }
        Ok(())
    }

    /// Copies host memory to the device and waits for the copy (and earlier work) to finish.
    pub fn copy_htod<T: DeviceRepr>(&self, src: &[T], dst: &mut impl AsDeviceSliceMut<T>) -> Result<()> {
        let _t = crate::trace::api("Stream::copy_htod");
        let _op = self.op("copying memory", InCapture::Refused)?;
        self.same_device("destination buffer", dst.device())?;
        Self::check_len("host-to-device copy", dst.len(), src.len())?;
        dst.uses().record(self);
        // SAFETY: `src` outlives the call, and the call waits for the copy below.
        unsafe {
            self.queue_copy(
                CopyOp::HostToDevice { src: src.as_ptr() as *const u8, dst: dst.device_ptr() },
                dst.byte_len(),
            )?
        };
        // `src` is borrowed only for this call, so the copy must be complete before returning.
        self.synchronize()
    }

    /// Copies device memory to the host and waits for it.
    pub fn copy_dtoh<T: DeviceRepr>(&self, src: &impl AsDeviceSlice<T>, dst: &mut [T]) -> Result<()> {
        let _t = crate::trace::api("Stream::copy_dtoh");
        let _op = self.op("copying memory", InCapture::Refused)?;
        self.same_device("source buffer", src.device())?;
        Self::check_len("device-to-host copy", dst.len(), src.len())?;
        src.uses().record(self);
        // SAFETY: `dst` outlives the call, and the call waits for the copy below.
        unsafe {
            self.queue_copy(
                CopyOp::DeviceToHost { src: src.device_ptr(), dst: dst.as_mut_ptr() as *mut u8 },
                src.byte_len(),
            )?
        };
        self.synchronize()
    }

    /// A new pooled device buffer holding a copy of `src`.
    pub fn clone_htod<T: DeviceRepr>(&self, src: &[T]) -> Result<DeviceBuffer<T>> {
        let _t = crate::trace::api("Stream::clone_htod");
        let mut b = self.alloc::<T>(src.len())?;
        self.copy_htod(src, &mut b)?;
        Ok(b)
    }

    /// The contents of `src`, copied to a new `Vec` (waits for the copy).
    pub fn clone_dtoh<T: DeviceRepr>(&self, src: &impl AsDeviceSlice<T>) -> Result<Vec<T>> {
        let _t = crate::trace::api("Stream::clone_dtoh");
        let _op = self.op("copying memory", InCapture::Refused)?;
        self.same_device("source buffer", src.device())?;
        let mut v = Vec::new();
        v.try_reserve_exact(src.len()).map_err(|_| Error::HostOutOfMemory { requested: src.byte_len() })?;
        src.uses().record(self);
        // SAFETY: the vector's spare capacity holds `len` elements and outlives the copy, which
        // the call waits for below.
        unsafe {
            self.queue_copy(
                CopyOp::DeviceToHost {
                    src: src.device_ptr(),
                    dst: v.spare_capacity_mut().as_mut_ptr() as *mut u8,
                },
                src.byte_len(),
            )?
        };
        self.synchronize()?;
        // SAFETY: the copy above wrote all `len` elements and has completed.
        unsafe { v.set_len(src.len()) };
        Ok(v)
    }

    /// Queues a copy from pinned host memory; returns at once. The host buffer waits for the
    /// copy before it can be touched again.
    pub fn copy_htod_async<T: DeviceRepr>(
        &self,
        src: &HostBuffer<T>,
        dst: &mut impl AsDeviceSliceMut<T>,
    ) -> Result<()> {
        let _t = crate::trace::api("Stream::copy_htod_async");
        let _op = self.op("copying memory", InCapture::Refused)?;
        self.same_device("destination buffer", dst.device())?;
        Self::check_len("host-to-device copy", dst.len(), src.len_raw())?;
        dst.uses().record(self);
        // SAFETY: pinned memory lives until the buffer is dropped, which waits for the copy's
        // event recorded below.
        unsafe {
            self.queue_copy(
                CopyOp::HostToDevice { src: src.raw() as *const u8, dst: dst.device_ptr() },
                dst.byte_len(),
            )?
        };
        src.add_pending(self.record_marker()?);
        Ok(())
    }

    /// Queues a copy into pinned host memory; returns at once. Reading the host buffer waits
    /// for the copy.
    pub fn copy_dtoh_async<T: DeviceRepr>(
        &self,
        src: &impl AsDeviceSlice<T>,
        dst: &mut HostBuffer<T>,
    ) -> Result<()> {
        let _t = crate::trace::api("Stream::copy_dtoh_async");
        let _op = self.op("copying memory", InCapture::Refused)?;
        self.same_device("source buffer", src.device())?;
        Self::check_len("device-to-host copy", dst.len_raw(), src.len())?;
        src.uses().record(self);
        // SAFETY: as for `copy_htod_async`.
        unsafe {
            self.queue_copy(
                CopyOp::DeviceToHost { src: src.device_ptr(), dst: dst.raw() as *mut u8 },
                src.byte_len(),
            )?
        };
        dst.add_pending(self.record_marker()?);
        Ok(())
    }

    fn record_marker(&self) -> Result<Event> {
        let e = Event::with_flags(
            self.device(),
            ferrocm_backend::EventFlags { timing: false, blocking_sync: false },
        )?;
        e.record(self)?;
        Ok(e)
    }

    /// Queues a device-to-device copy. `src` may live on another device of the same backend
    /// if this stream's device has peer access to it.
    pub fn copy_dtod<T: DeviceRepr>(
        &self,
        src: &impl AsDeviceSlice<T>,
        dst: &mut impl AsDeviceSliceMut<T>,
    ) -> Result<()> {
        let _t = crate::trace::api("Stream::copy_dtod");
        let _op = self.op("copying memory", InCapture::Recorded)?;
        Self::check_len("device-to-device copy", dst.len(), src.len())?;
        let here = self.device();
        let (s, d) = (src.device(), dst.device());
        let op = if s == here && d == here {
            CopyOp::DeviceToDevice { src: src.device_ptr(), dst: dst.device_ptr() }
        } else {
            for other in [s, d] {
                if other.kind() != here.kind() || !here.has_peer_access(other) {
                    return Err(Error::NoPeerAccess { device: here.index(), peer: other.index() });
                }
            }
            CopyOp::Peer {
                src_device: s.ordinal(),
                src: src.device_ptr(),
                dst_device: d.ordinal(),
                dst: dst.device_ptr(),
            }
        };
        src.uses().record(self);
        dst.uses().record(self);
        // SAFETY: both ranges are sealed views of live allocations with their use recorded.
        unsafe { self.queue_copy(op, src.byte_len()) }
    }
}
