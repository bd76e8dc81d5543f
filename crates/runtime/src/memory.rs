use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Bound, Deref, DerefMut, RangeBounds};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ferrocm_backend::DevicePtr;

use crate::device::Device;
use crate::event::Event;
use crate::stream::Stream;
use crate::trace::{AllocOp, MemoryKind as TraceKind};
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

impl Origin {
    fn trace_kind(&self) -> TraceKind {
        match self {
            Origin::Direct => TraceKind::Device,
            Origin::Pooled { .. } => TraceKind::Pooled,
        }
    }
}

/// The streams that have queued work on one allocation (copies, memsets, kernel arguments), so
/// that freeing or reusing the memory can wait for exactly those streams (as CUDA's stream-ordered
/// allocator asks its users to do by hand with events).
#[derive(Default)]
#[doc(hidden)]
pub struct UseTracker {
    /// The stream recorded last (its identity), the fast path for the common one-stream case.
    last: AtomicU64,
    streams: Mutex<Vec<Stream>>,
    /// Graphs that replay addresses in the allocation pin it (see `graph`): while any does, its
    /// release is deferred to the last unpin.
    pins: Mutex<Pins>,
}

type Release = Box<dyn FnOnce(Vec<Stream>) + Send>;

#[derive(Default)]
struct Pins {
    count: usize,
    release: Option<Release>,
}

impl std::fmt::Debug for UseTracker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UseTracker").field("streams", &lock(&self.streams).len()).finish()
    }
}

impl UseTracker {
    /// Records that `stream` queued work on the allocation. Work captured into a graph runs
    /// only when the graph is launched: the graph pins the allocation instead, and its launches
    /// record their streams. (Recording the capturing stream too would also make a cycle that
    /// keeps an abandoned capture alive: stream, capture, pin, tracker, stream.)
    pub(crate) fn record(self: &Arc<Self>, stream: &Stream) {
        if stream.is_capturing() {
            crate::graph::keep_alive(stream, self);
            return;
        }
        let id = stream.id();
        if self.last.load(Ordering::Acquire) == id {
            return;
        }
        let mut v = lock(&self.streams);
        if !v.iter().any(|s| s == stream) {
            v.push(stream.clone());
        }
        self.last.store(id, Ordering::Release);
    }

    /// Empties a tracker held only by its buffer (no graph pins it, no launch holds it), for
    /// reuse with the next buffer of the same pool block; returns the streams recorded.
    fn reset(&mut self) -> Vec<Stream> {
        *self.last.get_mut() = 0;
        std::mem::take(self.streams.get_mut().unwrap_or_else(|e| e.into_inner()))
    }

    /// The streams recorded so far.
    pub(crate) fn take(&self) -> Vec<Stream> {
        if self.last.load(Ordering::Acquire) == 0 {
            // Nothing was ever recorded: the common allocate-and-drop path takes no lock.
            return Vec::new();
        }
        self.last.store(0, Ordering::Release);
        std::mem::take(&mut *lock(&self.streams))
    }

    /// Gives the allocation back: `release` is called with the streams that used it, now, or
    /// while a graph pins the allocation, when the last pin is dropped.
    pub(crate) fn release(self: &Arc<Self>, release: impl FnOnce(Vec<Stream>) + Send + 'static) {
        let mut pins = lock(&self.pins);
        if pins.count > 0 {
            pins.release = Some(Box::new(release));
            return;
        }
        drop(pins);
        release(self.take());
    }

    /// Keeps the allocation from being released until [`UseTracker::unpin`].
    pub(crate) fn pin(&self) {
        lock(&self.pins).count += 1;
    }

    /// Drops one pin; the last runs a release deferred by [`UseTracker::release`].
    pub(crate) fn unpin(self: &Arc<Self>) {
        let deferred = {
            let mut pins = lock(&self.pins);
            pins.count -= 1;
            if pins.count == 0 {
                pins.release.take()
            } else {
                None
            }
        };
        if let Some(release) = deferred {
            let me = Arc::clone(self);
            crate::callback::now_or_later(move || release(me.take()));
        }
    }
}

/// A typed region of device memory, owned. Freed (or returned to the pool) when dropped, once
/// the work queued on it by every stream that used it is done.
pub struct DeviceBuffer<T: DeviceRepr> {
    device: Device,
    ptr: DevicePtr,
    len: usize,
    origin: Origin,
    /// Taken out only in `drop`.
    uses: ManuallyDrop<Arc<UseTracker>>,
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
        crate::trace::allocation(
            AllocOp::Allocate,
            origin.trace_kind(),
            &device,
            (len * size_of::<T>()) as u64,
            ptr.0,
        );
        DeviceBuffer { device, ptr, len, origin, uses: ManuallyDrop::new(Arc::default()), _t: PhantomData }
    }

    /// A buffer of `len` elements in a block of `stream`'s pool, reusing the block's emptied use
    /// tracker when it has one.
    pub(crate) fn from_pool(device: Device, block: crate::pool::Block, len: usize, stream: Stream) -> Self {
        let origin = Origin::Pooled { stream, block_bytes: block.bytes };
        crate::trace::allocation(
            AllocOp::Allocate,
            origin.trace_kind(),
            &device,
            (len * size_of::<T>()) as u64,
            block.ptr.0,
        );
        let uses = ManuallyDrop::new(block.tracker.unwrap_or_default());
        DeviceBuffer { device, ptr: block.ptr, len, origin, uses, _t: PhantomData }
    }

    /// A read-only view of `range`.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
        let (start, end) = bounds(range, self.len)?;
        Ok(DeviceSlice {
            device: &self.device,
            ptr: self.offset(start),
            len: end - start,
            uses: &self.uses,
            _t: PhantomData,
        })
    }

    /// A writable view of `range`.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        let (start, end) = bounds(range, self.len)?;
        Ok(DeviceSliceMut {
            device: &self.device,
            ptr: self.offset(start),
            len: end - start,
            uses: &self.uses,
            _t: PhantomData,
        })
    }

    fn offset(&self, elements: usize) -> DevicePtr {
        self.ptr.offset((elements * std::mem::size_of::<T>()) as u64)
    }
}

impl<T: DeviceRepr> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        let _t = crate::trace::api("DeviceBuffer::drop");
        crate::trace::allocation(
            AllocOp::Free,
            self.origin.trace_kind(),
            &self.device,
            self.byte_len(),
            self.ptr.0,
        );
        let (device, ptr) = (self.device.clone(), self.ptr);
        let origin = std::mem::replace(&mut self.origin, Origin::Direct);
        // SAFETY: `drop` runs once and nothing reads `self.uses` after this.
        let mut uses = unsafe { ManuallyDrop::take(&mut self.uses) };
        if let Origin::Pooled { stream, block_bytes } = origin {
            if let Some(tracker) = Arc::get_mut(&mut uses) {
                // Only this buffer holds the tracker: no graph pins the memory, so it is released
                // now, and the emptied tracker goes back to the pool with the block.
                let used_on = tracker.reset();
                device.inner.pool.release(&device, ptr, block_bytes, stream, used_on, Some(uses));
                return;
            }
            return uses.release(move |used_on| {
                device.inner.pool.release(&device, ptr, block_bytes, stream, used_on, None)
            });
        }
        uses.release(move |used_on| match origin {
            Origin::Direct => crate::device::free_after(&device, ptr, used_on),
            Origin::Pooled { stream, block_bytes } => {
                device.inner.pool.release(&device, ptr, block_bytes, stream, used_on, None);
            }
        });
    }
}

pub(crate) fn bounds(range: impl RangeBounds<usize>, len: usize) -> Result<(usize, usize)> {
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
    uses: &'a Arc<UseTracker>,
    _t: PhantomData<&'a T>,
}

/// A borrowed, writable view of device memory.
pub struct DeviceSliceMut<'a, T> {
    device: &'a Device,
    ptr: DevicePtr,
    len: usize,
    uses: &'a Arc<UseTracker>,
    _t: PhantomData<&'a mut T>,
}

/// Device memory owned by someone else (another library's tensor received through DLPack, a
/// pointer from a C caller), borrowed as a typed buffer so the runtime's copies and kernels can
/// use it. Dropping it frees nothing: it waits for the work this runtime queued on the memory, so
/// the owner may free it afterwards.
pub struct ExternalBuffer<T: DeviceRepr> {
    device: Device,
    ptr: DevicePtr,
    len: usize,
    uses: Arc<UseTracker>,
    _t: PhantomData<T>,
}

impl<T: DeviceRepr> ExternalBuffer<T> {
    /// Borrows `len` elements at `ptr` on `device`.
    ///
    /// # Safety
    /// `[ptr, ptr + len * size_of::<T>())` is memory of `device` (or, for a CPU device, host
    /// memory) that stays allocated, and is not written by others while this runtime's work may
    /// use it, until the `ExternalBuffer` is dropped and every graph that captured work on it is
    /// dropped too; `ptr` is aligned for `T`.
    pub unsafe fn new(device: &Device, ptr: DevicePtr, len: usize) -> ExternalBuffer<T> {
        ExternalBuffer { device: device.clone(), ptr, len, uses: Arc::default(), _t: PhantomData }
    }

    /// A read-only view of `range`.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
        let (start, end) = bounds(range, self.len)?;
        let ptr = self.ptr.offset((start * std::mem::size_of::<T>()) as u64);
        Ok(DeviceSlice { device: &self.device, ptr, len: end - start, uses: &self.uses, _t: PhantomData })
    }

    /// A writable view of `range`.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        let (start, end) = bounds(range, self.len)?;
        let ptr = self.ptr.offset((start * std::mem::size_of::<T>()) as u64);
        Ok(DeviceSliceMut { device: &self.device, ptr, len: end - start, uses: &self.uses, _t: PhantomData })
    }
}

impl<T: DeviceRepr> Drop for ExternalBuffer<T> {
    fn drop(&mut self) {
        let streams = self.uses.take();
        if streams.is_empty() {
            return;
        }
        // The owner may free the memory as soon as this returns: wait for our work on it. Inside
        // a host callback waiting is not possible; the owner then must not free before the
        // stream is synchronized.
        if crate::callback::active() {
            return;
        }
        for s in streams {
            let _ = crate::event::Event::with_flags(
                s.device(),
                ferrocm_backend::EventFlags { timing: false, blocking_sync: false },
            )
            .and_then(|e| e.record(&s).and_then(|_| e.synchronize()));
        }
    }
}

pub(crate) mod sealed {
    /// Only the runtime's memory types name device memory: a view made up by other code could
    /// point anywhere, and every copy and launch trusts these addresses.
    pub trait Sealed {}
}

/// Anything that names a typed range of device memory: buffers and their views. Sealed: only
/// the runtime's own types implement it, so every address it yields lies in a live allocation.
pub trait AsDeviceSlice<T: DeviceRepr>: sealed::Sealed {
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
    #[doc(hidden)]
    /// The allocation's record of the streams that used it.
    fn uses(&self) -> &Arc<UseTracker>;
    /// A read-only view of the whole range (so code generic over buffers and views can
    /// reinterpret or pass on one concrete type).
    fn as_device_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice::from_parts(self.device(), self.device_ptr(), self.len(), self.uses())
    }
}

/// A typed range of device memory the holder may write.
pub trait AsDeviceSliceMut<T: DeviceRepr>: AsDeviceSlice<T> {
    /// A writable view of the whole range.
    fn as_device_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        let (ptr, len) = (self.device_ptr(), self.len());
        // Both borrows come from `self`, which stays mutably borrowed for the view's life.
        DeviceSliceMut::from_parts(self.device(), ptr, len, self.uses())
    }
}

macro_rules! as_slice {
    ($($ty:ty),*) => { $(
        impl<T: DeviceRepr> sealed::Sealed for $ty {}
        impl<T: DeviceRepr> AsDeviceSlice<T> for $ty {
            fn device(&self) -> &Device { &self.device }
            fn device_ptr(&self) -> DevicePtr { self.ptr }
            fn len(&self) -> usize { self.len }
            fn uses(&self) -> &Arc<UseTracker> { &self.uses }
        }
    )* };
}
as_slice!(DeviceBuffer<T>, ExternalBuffer<T>, DeviceSlice<'_, T>, DeviceSliceMut<'_, T>);
impl<T: DeviceRepr> AsDeviceSliceMut<T> for DeviceBuffer<T> {}
impl<T: DeviceRepr> AsDeviceSliceMut<T> for ExternalBuffer<T> {}
impl<T: DeviceRepr> AsDeviceSliceMut<T> for DeviceSliceMut<'_, T> {}

impl<'a, T: DeviceRepr> DeviceSlice<'a, T> {
    /// A view of `len` elements at `ptr`, inside an allocation of `device` whose use `uses`
    /// tracks.
    pub(crate) fn from_parts(
        device: &'a Device,
        ptr: DevicePtr,
        len: usize,
        uses: &'a Arc<UseTracker>,
    ) -> Self {
        DeviceSlice { device, ptr, len, uses, _t: PhantomData }
    }
}

/// The byte range `(start, end)` that holds every view of `views`, when they all lie in one
/// allocation (they share its use tracker) `size_of::<T>()` bytes apart; `None` otherwise, or
/// for no views.
fn hull_range<T: DeviceRepr>(views: &[impl AsDeviceSlice<T>]) -> Option<(u64, u64)> {
    let first = views.first()?;
    let (mut start, mut end) = (u64::MAX, 0);
    for v in views {
        if !Arc::ptr_eq(v.uses(), first.uses()) {
            return None;
        }
        start = start.min(v.device_ptr().0);
        end = end.max(v.device_ptr().0 + v.byte_len());
    }
    let size = size_of::<T>() as u64;
    views.iter().all(|v| (v.device_ptr().0 - start).is_multiple_of(size)).then_some((start, end))
}

impl<'a, T: DeviceRepr> DeviceSlice<'a, T> {
    /// The smallest view holding every view of `views`, when they all lie in one allocation
    /// and a whole number of elements apart (a batch of matrices in one buffer, given to a
    /// kernel as one base and per-entry offsets); `None` for no views, views of several
    /// allocations, or views at misaligned distances.
    ///
    /// # Safety
    /// The hull also names the memory between the views, which other views (writable ones
    /// too) may borrow: the caller reads only the elements of `views` through it.
    pub unsafe fn hull<V: AsDeviceSlice<T>>(views: &'a [V]) -> Option<DeviceSlice<'a, T>> {
        let (start, end) = hull_range(views)?;
        let first = &views[0];
        let len = ((end - start) / size_of::<T>() as u64) as usize;
        Some(DeviceSlice::from_parts(first.device(), DevicePtr(start), len, first.uses()))
    }
}

impl<'a, T: DeviceRepr> DeviceSliceMut<'a, T> {
    /// A writable view, as [`DeviceSlice::from_parts`].
    pub(crate) fn from_parts(
        device: &'a Device,
        ptr: DevicePtr,
        len: usize,
        uses: &'a Arc<UseTracker>,
    ) -> Self {
        DeviceSliceMut { device, ptr, len, uses, _t: PhantomData }
    }

    /// The smallest writable view holding every view of `views`, as [`DeviceSlice::hull`].
    ///
    /// # Safety
    /// The hull also names the memory between the views, which other views may borrow: the
    /// caller reads and writes only the elements of `views` through it.
    pub unsafe fn hull<V: AsDeviceSliceMut<T>>(views: &'a mut [V]) -> Option<DeviceSliceMut<'a, T>> {
        let (start, end) = hull_range(views)?;
        let first = &views[0];
        let len = ((end - start) / size_of::<T>() as u64) as usize;
        Some(DeviceSliceMut::from_parts(first.device(), DevicePtr(start), len, first.uses()))
    }

    /// A read-only view of the same memory.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice { device: self.device, ptr: self.ptr, len: self.len, uses: self.uses, _t: PhantomData }
    }

    /// The same memory as a read-only view for the rest of the borrow.
    pub fn into_slice(self) -> DeviceSlice<'a, T> {
        DeviceSlice { device: self.device, ptr: self.ptr, len: self.len, uses: self.uses, _t: PhantomData }
    }

    /// Divides the view into two disjoint writable views, elements `[0, mid)` and `[mid, len)`
    /// (as `slice::split_at_mut`); `mid > len` is [`Error::OutOfRange`].
    pub fn split_at_mut(self, mid: usize) -> Result<(DeviceSliceMut<'a, T>, DeviceSliceMut<'a, T>)> {
        if mid > self.len {
            return Err(Error::OutOfRange { start: mid, end: mid, len: self.len });
        }
        let rest = self.ptr.offset((mid * std::mem::size_of::<T>()) as u64);
        Ok((
            DeviceSliceMut { device: self.device, ptr: self.ptr, len: mid, uses: self.uses, _t: PhantomData },
            DeviceSliceMut {
                device: self.device,
                ptr: rest,
                len: self.len - mid,
                uses: self.uses,
                _t: PhantomData,
            },
        ))
    }

    /// The same bytes viewed as elements of another plain-data type (as `bytemuck::cast_slice`):
    /// the address must be aligned for `U` and the byte length a multiple of its size.
    pub fn reinterpret<U: DeviceRepr>(self) -> Result<DeviceSliceMut<'a, U>> {
        let (len, ptr) = reinterpret_len::<T, U>(self.ptr, self.len)?;
        Ok(DeviceSliceMut { device: self.device, ptr, len, uses: self.uses, _t: PhantomData })
    }
}

impl<'a, T: DeviceRepr> DeviceSlice<'a, T> {
    /// A read-only view of `range` of this view (elements), as [`DeviceBuffer::slice`].
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'a, T>> {
        let (start, end) = bounds(range, self.len)?;
        let ptr = self.ptr.offset((start * std::mem::size_of::<T>()) as u64);
        Ok(DeviceSlice { device: self.device, ptr, len: end - start, uses: self.uses, _t: PhantomData })
    }

    /// The same bytes viewed as elements of another plain-data type; see
    /// [`DeviceSliceMut::reinterpret`].
    pub fn reinterpret<U: DeviceRepr>(self) -> Result<DeviceSlice<'a, U>> {
        let (len, ptr) = reinterpret_len::<T, U>(self.ptr, self.len)?;
        Ok(DeviceSlice { device: self.device, ptr, len, uses: self.uses, _t: PhantomData })
    }
}

fn reinterpret_len<T, U>(ptr: DevicePtr, len: usize) -> Result<(usize, DevicePtr)> {
    let bytes = len * std::mem::size_of::<T>();
    let (size, align) = (std::mem::size_of::<U>(), std::mem::align_of::<U>());
    if !ptr.0.is_multiple_of(align as u64) || !bytes.is_multiple_of(size) {
        return Err(Error::InvalidCast {
            from: std::any::type_name::<T>(),
            to: std::any::type_name::<U>(),
            bytes,
            address: ptr.0,
        });
    }
    Ok((bytes / size, ptr))
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
        let _t = crate::trace::api("HostBuffer::new");
        let bytes = device.checked_bytes::<T>(len)?;
        crate::callback::forbid("allocating pinned host memory")?;
        // The backend returns zero-filled memory, so every element is initialised.
        let ptr =
            device.inner.backend.alloc_host(device.ordinal(), bytes).map_err(|e| device.error(e))? as *mut T;
        crate::pointer::register(ptr as u64, bytes, device.index(), crate::pointer::MemoryKind::PinnedHost);
        crate::trace::allocation(AllocOp::Allocate, TraceKind::PinnedHost, device, bytes, ptr as u64);
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
        let mut pending = lock(&self.pending);
        if pending.is_empty() {
            return;
        }
        for e in pending.drain(..) {
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
        let _t = crate::trace::api("HostBuffer::drop");
        crate::trace::allocation(
            AllocOp::Free,
            TraceKind::PinnedHost,
            &self.device,
            (self.len * size_of::<T>()) as u64,
            self.ptr as u64,
        );
        let pending = std::mem::take(&mut *lock(&self.pending));
        let (device, addr) = (self.device.clone(), self.ptr as usize);
        // Waiting for the copies cannot happen inside a host callback: there it is deferred.
        crate::callback::now_or_later(move || {
            for e in pending {
                let _ = e.synchronize();
            }
            let d = device.clone();
            let _ = crate::graph::release_outside_captures(&device, move || {
                crate::pointer::unregister(addr as u64);
                // SAFETY: the pointer came from `alloc_host` on this device, is freed once, and
                // every copy that used it has completed (waited for above).
                unsafe { d.inner.backend.free_host(d.ordinal(), addr as *mut u8) }.map_err(|e| d.error(e))
            });
        });
    }
}
