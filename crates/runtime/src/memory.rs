use std::marker::PhantomData;
use std::ops::{Bound, Deref, DerefMut, RangeBounds};
use std::sync::Mutex;

use ferrocm_backend::DevicePtr;

use crate::device::Device;
use crate::event::Event;
use crate::stream::Stream;
use crate::{lock, Error, Result};

/// A type whose values can be copied to and from a device byte for byte.
///
/// # Safety
/// Implementors must be plain data: `Copy`, no padding, no pointers, and every bit pattern must
/// be a valid value (device memory may hold anything).
pub unsafe trait DeviceRepr: Copy + Send + Sync + 'static {}

macro_rules! device_repr {
    ($($t:ty),*) => { $(
        // SAFETY: a primitive number type: no padding, every bit pattern valid.
        unsafe impl DeviceRepr for $t {}
    )* };
}
device_repr!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, half::f16, half::bf16);

// SAFETY: an array of plain data is plain data.
unsafe impl<T: DeviceRepr, const N: usize> DeviceRepr for [T; N] {}

// SAFETY: `Complex<T>` is `#[repr(C)]` with two fields of the same float type, so it has no
// padding and every bit pattern is valid: the layout of `cufftComplex`/`hipfftDoubleComplex`.
unsafe impl<T: DeviceRepr> DeviceRepr for num_complex::Complex<T> {}

/// How a buffer's memory was obtained, and so how it is given back.
pub(crate) enum Origin {
    /// From the driver; freed to the driver.
    Direct,
    /// From the stream-ordered pool; returned to it in the order of this stream.
    Pooled { stream: Stream, block_bytes: u64 },
}

/// A typed region of device memory, owned. Freed (or returned to the pool) when dropped.
pub struct DeviceBuffer<T: DeviceRepr> {
    device: Device,
    ptr: DevicePtr,
    len: usize,
    origin: Origin,
    _t: PhantomData<T>,
}

impl<T: DeviceRepr> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceBuffer<{}>({} at {} on device {})",
            std::any::type_name::<T>(),
            self.len,
            self.ptr,
            self.device.index()
        )
    }
}

impl<T: DeviceRepr> DeviceBuffer<T> {
    pub(crate) fn from_raw(device: Device, ptr: DevicePtr, len: usize, origin: Origin) -> Self {
        DeviceBuffer { device, ptr, len, origin, _t: PhantomData }
    }

    /// A read-only view of `range`.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
        let (start, end) = bounds(range, self.len)?;
        Ok(DeviceSlice { device: &self.device, ptr: self.offset(start), len: end - start, _t: PhantomData })
    }

    /// A writable view of `range`.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        let (start, end) = bounds(range, self.len)?;
        Ok(DeviceSliceMut {
            device: &self.device,
            ptr: self.offset(start),
            len: end - start,
            _t: PhantomData,
        })
    }

    fn offset(&self, elements: usize) -> DevicePtr {
        self.ptr.offset((elements * std::mem::size_of::<T>()) as u64)
    }
}

impl<T: DeviceRepr> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        match std::mem::replace(&mut self.origin, Origin::Direct) {
            Origin::Direct => {
                // Freeing waits for outstanding work on the device (as cudaFree does); an error
                // here cannot be returned from `drop` and leaves nothing to clean up.
                let _ = self.device.inner.backend.free(self.device.inner.ordinal, self.ptr);
            }
            Origin::Pooled { stream, block_bytes } => {
                self.device.inner.pool.release(self.ptr, block_bytes, stream);
            }
        }
    }
}

fn bounds(range: impl RangeBounds<usize>, len: usize) -> Result<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.saturating_add(1),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        return Err(Error::OutOfRange { start, end, len });
    }
    Ok((start, end))
}

/// A borrowed, read-only view of device memory.
#[derive(Clone, Copy)]
pub struct DeviceSlice<'a, T> {
    device: &'a Device,
    ptr: DevicePtr,
    len: usize,
    _t: PhantomData<&'a T>,
}

/// A borrowed, writable view of device memory.
pub struct DeviceSliceMut<'a, T> {
    device: &'a Device,
    ptr: DevicePtr,
    len: usize,
    _t: PhantomData<&'a mut T>,
}

/// Anything that names a typed range of device memory: buffers and their views.
pub trait AsDeviceSlice<T: DeviceRepr> {
    /// The device that owns the memory.
    fn device(&self) -> &Device;
    /// Address of the first element.
    fn device_ptr(&self) -> DevicePtr;
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether the range is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Size in bytes.
    fn byte_len(&self) -> u64 {
        (self.len() * std::mem::size_of::<T>()) as u64
    }
}

/// A typed range of device memory the holder may write.
pub trait AsDeviceSliceMut<T: DeviceRepr>: AsDeviceSlice<T> {}

macro_rules! as_slice {
    ($($ty:ty),*) => { $(
        impl<T: DeviceRepr> AsDeviceSlice<T> for $ty {
            fn device(&self) -> &Device { &self.device }
            fn device_ptr(&self) -> DevicePtr { self.ptr }
            fn len(&self) -> usize { self.len }
        }
    )* };
}
as_slice!(DeviceBuffer<T>, DeviceSlice<'_, T>, DeviceSliceMut<'_, T>);
impl<T: DeviceRepr> AsDeviceSliceMut<T> for DeviceBuffer<T> {}
impl<T: DeviceRepr> AsDeviceSliceMut<T> for DeviceSliceMut<'_, T> {}

impl<'a, T: DeviceRepr> DeviceSliceMut<'a, T> {
    /// A read-only view of the same memory.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice { device: self.device, ptr: self.ptr, len: self.len, _t: PhantomData }
    }
}

/// Page-locked (pinned) host memory, the fast path for asynchronous copies.
///
/// Asynchronous copies into or out of the buffer record an event; reading, writing or
/// dropping the buffer first waits for them, so the host never races the copy engine.
pub struct HostBuffer<T: DeviceRepr> {
    device: Device,
    ptr: *mut T,
    len: usize,
    pending: Mutex<Vec<Event>>,
}

// SAFETY: the buffer owns its memory; concurrent access goes through `&`/`&mut` as for a Vec,
// and in-flight copies are waited for before any access.
unsafe impl<T: DeviceRepr> Send for HostBuffer<T> {}
unsafe impl<T: DeviceRepr> Sync for HostBuffer<T> {}

impl<T: DeviceRepr> HostBuffer<T> {
    /// Allocates `len` zeroed elements of pinned memory through `device`'s backend.
    pub fn new(device: &Device, len: usize) -> Result<HostBuffer<T>> {
        let bytes = device.checked_bytes::<T>(len)?;
        let ptr = device.inner.backend.alloc_host(bytes).map_err(|e| device.error(e))? as *mut T;
        // SAFETY: fresh allocation of `bytes` bytes; zeroing makes every element a valid value
        // (DeviceRepr types accept any bit pattern, zero included).
        unsafe { std::ptr::write_bytes(ptr as *mut u8, 0, bytes as usize) };
        Ok(HostBuffer { device: device.clone(), ptr, len, pending: Mutex::default() })
    }

    /// Pinned memory holding a copy of `data`.
    pub fn from_slice(device: &Device, data: &[T]) -> Result<HostBuffer<T>> {
        let mut b = HostBuffer::new(device, data.len())?;
        b.copy_from_slice(data);
        Ok(b)
    }

    pub(crate) fn raw(&self) -> *mut T {
        self.ptr
    }

    pub(crate) fn len_raw(&self) -> usize {
        self.len
    }

    pub(crate) fn add_pending(&self, event: Event) {
        lock(&self.pending).push(event);
    }

    fn wait_pending(&self) {
        for e in lock(&self.pending).drain(..) {
            // A failed wait means the device reported an error, which the stream's next
            // synchronize returns; the host memory itself is then no longer in use.
            let _ = e.synchronize();
        }
    }
}

impl<T: DeviceRepr> Deref for HostBuffer<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.wait_pending();
        // SAFETY: `ptr` holds `len` initialised elements and no copy is in flight.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T: DeviceRepr> DerefMut for HostBuffer<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.wait_pending();
        // SAFETY: as for `deref`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl<T: DeviceRepr> Drop for HostBuffer<T> {
    fn drop(&mut self) {
        self.wait_pending();
        let _ = self.device.inner.backend.free_host(self.ptr as *mut u8);
    }
}
