//! Virtual memory management (`hipMemCreate`, `hipMemAddressReserve`, `hipMemMap`,
//! `hipMemSetAccess`; CUDA's `cuMem*`): physical memory and the addresses it is seen at are
//! separate objects.
//!
//! - [`PhysicalMemory`] is memory without an address (`cuMemCreate`), optionally exportable to
//!   other processes (see `ipc`).
//! - [`AddressRange`] is reserved address space with nothing behind it (`cuMemAddressReserve`).
//! - [`Mapping`] puts (part of) physical memory at (part of) a range (`cuMemMap`) and makes it
//!   readable and writable from the range's device (`cuMemSetAccess`); it is a typed view that
//!   copies and kernels take like any buffer.
//!
//! Sizes, offsets and addresses are multiples of the device's allocation granularity
//! ([`Device::allocation_granularity`]); the CPU device uses the granularity GPUs report, so code
//! that runs there runs on a GPU. A mapping covers a whole physical allocation (CUDA maps nothing
//! else); mappings inside one range may not overlap, and one physical allocation may be mapped in
//! several places.
//!
//! Lifetimes, so that safe code cannot use freed memory: a mapping holds its physical memory and
//! its range, so physical memory lives while it is mapped and a range is freed only once nothing
//! is mapped in it; dropping a mapping waits for the work of every stream that used it before
//! unmapping (as dropping a buffer does), and a graph that uses it defers that until the graph is
//! dropped.

use std::collections::{BTreeMap, HashMap};
use std::marker::PhantomData;
use std::ops::RangeBounds;
use std::sync::{Arc, Mutex, OnceLock};

use ferrocm_backend::{DevicePtr, MemCreateFlags, MemHandle, VmmProperties};

use crate::device::Device;
use crate::memory::{
    bounds, sealed, AsDeviceSlice, AsDeviceSliceMut, DeviceRepr, DeviceSlice, DeviceSliceMut, UseTracker,
};
use crate::pointer::MemoryKind;
use crate::{lock, Error, Result};

/// The virtual memory properties of `device`, asked once.
pub(crate) fn properties(device: &Device) -> Result<VmmProperties> {
    static CACHE: OnceLock<Mutex<HashMap<usize, VmmProperties>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(p) = lock(cache).get(&device.index()) {
        return Ok(*p);
    }
    let p = device.inner.backend.vmm_properties(device.ordinal()).map_err(|e| device.error(e))?;
    lock(cache).insert(device.index(), p);
    Ok(p)
}

impl Device {
    /// The granularity of virtual memory on this device, in bytes
    /// (`hipMemGetAllocationGranularity`): physical memory, address ranges and mappings are
    /// multiples of it. An error where the device has no virtual memory management.
    pub fn allocation_granularity(&self) -> Result<u64> {
        Ok(properties(self)?.granularity)
    }

    /// Whether physical memory of this device can be exported to other processes.
    pub fn supports_memory_export(&self) -> bool {
        properties(self).is_ok_and(|p| p.exportable)
    }
}

/// Checks that `value` is a non-zero (where `nonzero`) multiple of `device`'s granularity.
pub(crate) fn check_granular(device: &Device, what: &'static str, value: u64, nonzero: bool) -> Result<u64> {
    let granularity = properties(device)?.granularity;
    if nonzero && value == 0 {
        return Err(Error::ZeroSizedAllocation);
    }
    if !value.is_multiple_of(granularity) {
        return Err(Error::NotGranular { device: device.index(), what, value, granularity });
    }
    Ok(granularity)
}

pub(crate) struct PhysicalInner {
    pub(crate) device: Device,
    pub(crate) handle: MemHandle,
    pub(crate) size: u64,
    pub(crate) exportable: bool,
}

impl Drop for PhysicalInner {
    fn drop(&mut self) {
        let (device, handle) = (self.device.clone(), self.handle);
        crate::callback::now_or_later(move || {
            let d = device.clone();
            let _ = crate::graph::release_outside_captures(&device, move || {
                // SAFETY: the last owner of the handle; mappings hold owners, so none remains,
                // and the memory itself is freed only once it is unmapped everywhere.
                unsafe { d.inner.backend.mem_release(d.ordinal(), handle) }.map_err(|e| d.error(e))
            });
        });
    }
}

/// Physical device memory with no address of its own (`hipMemCreate`); map it into an
/// [`AddressRange`] to use it. Cheap to clone; released when the last clone and the last
/// mapping of it are gone.
#[derive(Clone)]
pub struct PhysicalMemory {
    pub(crate) inner: Arc<PhysicalInner>,
}

impl std::fmt::Debug for PhysicalMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PhysicalMemory({} bytes on device {})", self.inner.size, self.inner.device.index())
    }
}

impl PhysicalMemory {
    /// `bytes` (a non-zero multiple of the granularity) of physical memory on `device`. Its
    /// contents are unspecified.
    pub fn new(device: &Device, bytes: u64) -> Result<PhysicalMemory> {
        PhysicalMemory::create(device, bytes, false)
    }

    /// Like [`PhysicalMemory::new`], exportable to other processes as a POSIX file descriptor
    /// ([`PhysicalMemory::export`]).
    pub fn new_exportable(device: &Device, bytes: u64) -> Result<PhysicalMemory> {
        if !device.supports_memory_export() {
            properties(device)?;
            return Err(Error::Unsupported {
                device: device.index(),
                what: "exporting memory as a POSIX file descriptor".into(),
            });
        }
        PhysicalMemory::create(device, bytes, true)
    }

    fn create(device: &Device, bytes: u64, exportable: bool) -> Result<PhysicalMemory> {
        crate::callback::forbid("creating physical memory")?;
        check_granular(device, "physical memory size", bytes, true)?;
        let total = device.properties().total_memory;
        if bytes > total {
            return Err(Error::AllocationTooLarge {
                device: device.index(),
                requested: bytes as u128,
                total,
            });
        }
        let handle = device
            .inner
            .backend
            .mem_create(device.ordinal(), bytes, MemCreateFlags { exportable })
            .map_err(|e| device.error(e))?;
        Ok(PhysicalMemory::from_handle(device, handle, bytes, exportable))
    }

    pub(crate) fn from_handle(
        device: &Device,
        handle: MemHandle,
        size: u64,
        exportable: bool,
    ) -> PhysicalMemory {
        PhysicalMemory { inner: Arc::new(PhysicalInner { device: device.clone(), handle, size, exportable }) }
    }

    /// The device the memory was created (or imported) for.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.inner.size
    }

    /// Whether it can be exported to other processes.
    pub fn is_exportable(&self) -> bool {
        self.inner.exportable
    }
}

struct RangeInner {
    device: Device,
    base: DevicePtr,
    size: u64,
    /// Mapped parts: offset -> length in bytes.
    mapped: Mutex<BTreeMap<u64, u64>>,
}

impl Drop for RangeInner {
    fn drop(&mut self) {
        let (device, base, size) = (self.device.clone(), self.base, self.size);
        crate::callback::now_or_later(move || {
            let d = device.clone();
            let _ = crate::graph::release_outside_captures(&device, move || {
                // SAFETY: the last owner of the reservation; mappings hold owners, so nothing is
                // mapped in it any more.
                unsafe { d.inner.backend.mem_unreserve(d.ordinal(), base, size) }.map_err(|e| d.error(e))
            });
        });
    }
}

/// Reserved address space on a device with nothing behind it (`hipMemAddressReserve`). Cheap to
/// clone; freed when the last clone and the last mapping in it are gone.
#[derive(Clone)]
pub struct AddressRange {
    inner: Arc<RangeInner>,
}

impl std::fmt::Debug for AddressRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "AddressRange({} + {} bytes on device {})",
            self.inner.base,
            self.inner.size,
            self.inner.device.index()
        )
    }
}

impl AddressRange {
    /// Reserves `bytes` (a non-zero multiple of the granularity) of address space on `device`,
    /// aligned to the granularity.
    pub fn reserve(device: &Device, bytes: u64) -> Result<AddressRange> {
        crate::callback::forbid("reserving address space")?;
        check_granular(device, "address range size", bytes, true)?;
        let base = device.inner.backend.mem_reserve(device.ordinal(), bytes).map_err(|e| device.error(e))?;
        Ok(AddressRange {
            inner: Arc::new(RangeInner {
                device: device.clone(),
                base,
                size: bytes,
                mapped: Mutex::default(),
            }),
        })
    }

    /// The device whose address space this is.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// The first address.
    pub fn base(&self) -> DevicePtr {
        self.inner.base
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.inner.size
    }

    /// Maps the whole of `memory` at `offset` into this range, readable and writable from the
    /// range's device, as a view of `T` elements (`memory.size() / size_of::<T>()` of them).
    /// `offset` is a multiple of the granularity; the mapping must fit in the range and must not
    /// overlap another mapping in it. Physical memory is always mapped whole, as CUDA's
    /// `cuMemMap` requires; to map pieces, create the pieces as separate physical memory. On
    /// error nothing is mapped.
    pub fn map<T: DeviceRepr>(&self, offset: u64, memory: &PhysicalMemory) -> Result<Mapping<T>> {
        let len =
            usize::try_from(memory.size() / std::mem::size_of::<T>().max(1) as u64).unwrap_or(usize::MAX);
        self.map_len(offset, memory, len)
    }

    pub(crate) fn map_len<T: DeviceRepr>(
        &self,
        offset: u64,
        memory: &PhysicalMemory,
        len: usize,
    ) -> Result<Mapping<T>> {
        crate::callback::forbid("mapping memory")?;
        let device = &self.inner.device;
        if memory.device().kind() != device.kind() {
            return Err(Error::DeviceMismatch {
                what: "physical memory (of another backend)",
                expected: device.index(),
                actual: memory.device().index(),
            });
        }
        let bytes = memory.size();
        check_granular(device, "mapping offset", offset, false)?;
        let end = offset.saturating_add(bytes);
        if end > self.inner.size {
            return Err(Error::MappingOutOfRange {
                what: "mapping into the address range",
                offset,
                end,
                size: self.inner.size,
            });
        }
        let mut mapped = lock(&self.inner.mapped);
        if let Some((&o, &l)) = mapped.range(..end).next_back().filter(|(&o, &l)| o + l > offset) {
            return Err(Error::MappingOverlap { offset, end, existing_offset: o, existing_end: o + l });
        }
        let ptr = self.inner.base.offset(offset);
        let (backend, ordinal) = (&device.inner.backend, device.ordinal());
        // SAFETY: the range is live and the mapped part lies inside it, granular and unmapped
        // (checked above, under the lock); the memory is live and `bytes` is its size.
        unsafe { backend.mem_map(ordinal, ptr, bytes, memory.inner.handle) }.map_err(|e| device.error(e))?;
        // SAFETY: exactly the mapping just made.
        if let Err(e) = unsafe { backend.mem_set_access(ordinal, ptr, bytes, &[ordinal]) } {
            // SAFETY: the mapping just made, which nothing has used.
            let _ = unsafe { backend.mem_unmap(ordinal, ptr, bytes) };
            return Err(device.error(e));
        }
        mapped.insert(offset, bytes);
        crate::pointer::register(ptr.0, bytes, device.index(), MemoryKind::Device);
        Ok(Mapping {
            device: device.clone(),
            ptr,
            bytes,
            len: len.min((bytes / std::mem::size_of::<T>().max(1) as u64) as usize),
            range: Some(Arc::clone(&self.inner)),
            memory: Some(memory.clone()),
            uses: Arc::default(),
            _t: PhantomData,
        })
    }
}

/// Physical memory mapped into an address range and accessible from the range's device: a typed
/// view of device memory that copies and kernels take like a buffer. Dropping it waits for the
/// work of every stream that used it, then unmaps it.
pub struct Mapping<T: DeviceRepr> {
    device: Device,
    ptr: DevicePtr,
    /// Mapped bytes.
    bytes: u64,
    /// Elements of the view (at most `bytes / size_of::<T>()`).
    len: usize,
    range: Option<Arc<RangeInner>>,
    memory: Option<PhysicalMemory>,
    uses: Arc<UseTracker>,
    _t: PhantomData<T>,
}

impl<T: DeviceRepr> std::fmt::Debug for Mapping<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Mapping<{}>({} at {}, {} bytes mapped, on device {})",
            std::any::type_name::<T>(),
            self.len,
            self.ptr,
            self.bytes,
            self.device.index()
        )
    }
}

impl<T: DeviceRepr> Drop for Mapping<T> {
    fn drop(&mut self) {
        let (device, ptr, bytes) = (self.device.clone(), self.ptr, self.bytes);
        let (range, memory) = (self.range.take(), self.memory.take());
        self.uses.release(move |used_on| {
            for s in &used_on {
                // A failed wait means the device reported an error, which the stream's next
                // synchronize returns; the work that used the mapping is over either way.
                if let Ok(e) = s.completion_event() {
                    let _ = e.synchronize();
                }
            }
            let d = device.clone();
            let _ = crate::graph::release_outside_captures(&device, move || {
                crate::pointer::unregister(ptr.0);
                // SAFETY: exactly the mapping made in `map`, unmapped once, after every stream
                // that used it has finished that work.
                let r = unsafe { d.inner.backend.mem_unmap(d.ordinal(), ptr, bytes) };
                if let Some(range) = range {
                    lock(&range.mapped).remove(&(ptr.0 - range.base.0));
                }
                // The range and the memory are released (if this was their last owner) only now.
                drop(memory);
                r.map_err(|e| d.error(e))
            });
        });
    }
}

impl<T: DeviceRepr> Mapping<T> {
    /// The physical memory behind the mapping.
    pub fn memory(&self) -> &PhysicalMemory {
        self.memory.as_ref().expect("present until drop")
    }

    /// Mapped bytes (a multiple of the granularity; the view may hold fewer).
    pub fn mapped_bytes(&self) -> u64 {
        self.bytes
    }

    /// Makes the mapping readable and writable from each of `devices` as well as its own device
    /// (`hipMemSetAccess`). The devices must belong to the same backend; using the mapping from
    /// another device also needs [`Device::enable_peer_access`], as any memory of another
    /// device does.
    pub fn set_access(&self, devices: &[&Device]) -> Result<()> {
        crate::callback::forbid("setting memory access")?;
        let mut ordinals = vec![self.device.ordinal()];
        for d in devices {
            if d.kind() != self.device.kind() {
                return Err(Error::PeerAccessUnsupported {
                    device: d.index(),
                    peer: self.device.index(),
                    reason: "the devices belong to different backends",
                });
            }
            if !ordinals.contains(&d.ordinal()) {
                ordinals.push(d.ordinal());
            }
        }
        // SAFETY: exactly the live mapping made in `map`.
        unsafe {
            self.device.inner.backend.mem_set_access(self.device.ordinal(), self.ptr, self.bytes, &ordinals)
        }
        .map_err(|e| self.device.error(e))
    }

    /// A read-only view of `range`.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
        let (start, end) = bounds(range, self.len)?;
        Ok(DeviceSlice::from_parts(&self.device, self.element(start), end - start, &self.uses))
    }

    /// A writable view of `range`.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        let (start, end) = bounds(range, self.len)?;
        Ok(DeviceSliceMut::from_parts(&self.device, self.element(start), end - start, &self.uses))
    }

    fn element(&self, i: usize) -> DevicePtr {
        self.ptr.offset((i * std::mem::size_of::<T>()) as u64)
    }
}

impl<T: DeviceRepr> sealed::Sealed for Mapping<T> {}
impl<T: DeviceRepr> AsDeviceSlice<T> for Mapping<T> {
    fn device(&self) -> &Device {
        &self.device
    }
    fn device_ptr(&self) -> DevicePtr {
        self.ptr
    }
    fn len(&self) -> usize {
        self.len
    }
    fn uses(&self) -> &Arc<UseTracker> {
        &self.uses
    }
}
impl<T: DeviceRepr> AsDeviceSliceMut<T> for Mapping<T> {}
