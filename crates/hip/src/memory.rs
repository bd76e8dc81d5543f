//! Memory: allocation (device, managed, pinned, stream-ordered), copies and fills in every
//! form, pointer attributes and `__device__`/`__constant__` symbols.
//!
//! Every device-side address is checked against the runtime's pointer table before use: a copy
//! whose kind names device memory where there is none, or whose range runs past its
//! allocation, is `hipErrorInvalidValue`, never a stray write. Host addresses are trusted, as
//! HIP trusts them.

use std::ffi::{c_int, c_uint, c_void};

use ferrocm_runtime::{pointer_attributes, MemoryKind, Stream};

use crate::device::hip_api;
use crate::error::{out, Failure, HipError, HipResult};
use crate::state::{hip, lock, registered_var, Alloc};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    HostToHost,
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
    Default,
}

fn kind(k: c_int) -> HipResult<Kind> {
    Ok(match k {
        0 => Kind::HostToHost,
        1 => Kind::HostToDevice,
        2 => Kind::DeviceToHost,
        3 | 1024 => Kind::DeviceToDevice,
        4 => Kind::Default,
        _ => {
            return Err(Failure::new(
                HipError::hipErrorInvalidMemcpyDirection,
                format!("{k} is not a hipMemcpyKind (0 to 4)"),
            ))
        }
    })
}

/// The HIP device whose device or managed memory `addr` lies in (`None` for host memory).
fn device_of(addr: u64) -> HipResult<Option<usize>> {
    let Some(a) = pointer_attributes(addr)? else { return Ok(None) };
    if a.kind == MemoryKind::PinnedHost {
        return Ok(None);
    }
    Ok(hip()?.index_of(&a.device))
}

/// One copy after the checks `kind` implies; on `stream` (a handle) or, without one, on the
/// null stream of the device the memory belongs to. Waits for completion when `sync`.
///
/// # Safety
/// Host memory: `src` readable and `dst` writable for `n` bytes until the copy completes.
pub(crate) unsafe fn copy(
    dst: *mut c_void,
    src: *const c_void,
    n: usize,
    k: c_int,
    stream: Option<u64>,
    sync: bool,
) -> HipResult<()> {
    let k = kind(k)?;
    if n == 0 {
        return Ok(());
    }
    if dst.is_null() || src.is_null() {
        return Err(Failure::invalid("a copy's source or destination is a null pointer"));
    }
    let (d, s) = (dst as u64, src as u64);
    let (dd, sd) = (device_of(d)?, device_of(s)?);
    let need = |ok: bool, what: &str| -> HipResult<()> {
        if ok {
            Ok(())
        } else {
            Err(Failure::invalid(format!(
                "{k:?} copy: the {what} is not device memory allocated by HIP (or the range runs past its allocation)"
            )))
        }
    };
    match k {
        Kind::HostToDevice => need(dd.is_some(), "destination")?,
        Kind::DeviceToHost => need(sd.is_some(), "source")?,
        Kind::DeviceToDevice => {
            need(dd.is_some(), "destination")?;
            need(sd.is_some(), "source")?;
        }
        Kind::HostToHost | Kind::Default => {}
    }
    let h = hip()?;
    let stream: Stream = match stream {
        Some(handle) => h.stream(handle)?,
        None => h.null_stream(dd.or(sd).unwrap_or(h.current()))?,
    };
    // SAFETY: device ranges are checked by the runtime; host ranges are the caller's promise.
    unsafe { stream.copy_raw(d, s, n as u64)? };
    if sync {
        stream.synchronize()?;
    }
    Ok(())
}

/// Fills `count` elements of `pattern` (1, 2 or 4 bytes) at device address `dst`.
fn fill(dst: *mut c_void, pattern: &[u8], count: usize, stream: Option<u64>, sync: bool) -> HipResult<()> {
    let bytes =
        count.checked_mul(pattern.len()).ok_or_else(|| Failure::invalid("the fill size overflows"))?;
    if bytes == 0 {
        return Ok(());
    }
    if dst.is_null() {
        return Err(Failure::invalid("the destination is a null pointer"));
    }
    let d = dst as u64;
    let Some(dev) = device_of(d)? else {
        return Err(Failure::invalid(format!("{d:#x} is not device memory allocated by HIP")));
    };
    let h = hip()?;
    let stream = match stream {
        Some(handle) => h.stream(handle)?,
        None => h.null_stream(dev)?,
    };
    if pattern.iter().all(|&b| b == pattern[0]) {
        stream.memset_raw(d, pattern[0], bytes as u64)?;
    } else {
        // A wider pattern: staged from host memory (the copy completes before returning).
        let staged: Vec<u8> = pattern.iter().copied().cycle().take(bytes).collect();
        // SAFETY: `staged` holds `bytes` bytes and outlives the copy, which waits for it.
        unsafe { stream.copy_raw(d, staged.as_ptr() as u64, bytes as u64)? };
    }
    if sync {
        stream.synchronize()?;
    }
    Ok(())
}

/// Copies `height` rows of `width` bytes between pitched allocations.
#[allow(clippy::too_many_arguments)]
unsafe fn copy_2d(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    k: c_int,
    stream: Option<u64>,
    sync: bool,
) -> HipResult<()> {
    if width > dpitch || width > spitch {
        return Err(Failure::new(
            HipError::hipErrorInvalidPitchValue,
            format!("width {width} exceeds a pitch (destination {dpitch}, source {spitch})"),
        ));
    }
    if width == dpitch && width == spitch {
        let n = width.checked_mul(height).ok_or_else(|| Failure::invalid("the copy size overflows"))?;
        // SAFETY: forwarded from the caller.
        return unsafe { copy(dst, src, n, k, stream, sync) };
    }
    for row in 0..height {
        let (d, s) = (dst as usize + row * dpitch, src as usize + row * spitch);
        // SAFETY: forwarded from the caller, row by row.
        unsafe { copy(d as *mut c_void, s as *const c_void, width, k, stream, false)? };
    }
    if sync && height > 0 {
        let h = hip()?;
        match stream {
            Some(handle) => h.stream(handle)?.synchronize()?,
            None => h.current_device()?.synchronize()?,
        }
    }
    Ok(())
}

fn alloc_device(ptr: *mut *mut c_void, size: usize, managed: bool, stream: Option<u64>) -> HipResult<()> {
    if ptr.is_null() {
        return Err(Failure::invalid("ptr is a null pointer"));
    }
    if size == 0 {
        // SAFETY: non-null out-parameter.
        return unsafe { out(ptr, "ptr", std::ptr::null_mut()) };
    }
    let h = hip()?;
    let (dev, buffer) = match stream {
        Some(handle) => {
            let s = h.stream(handle)?;
            let dev = h.index_of(s.device()).unwrap_or(h.current());
            (dev, s.alloc::<u8>(size)?)
        }
        None => {
            let d = h.current_device()?;
            let b = if managed { d.alloc_managed::<u8>(size)? } else { d.alloc::<u8>(size)? };
            (h.current(), b)
        }
    };
    use ferrocm_runtime::AsDeviceSlice;
    let addr = buffer.device_ptr().0;
    lock(&h.allocs).insert(addr, Alloc::Device { _buffer: buffer, device: dev });
    // SAFETY: non-null out-parameter.
    unsafe { out(ptr, "ptr", addr as *mut c_void) }
}

fn alloc_pinned(ptr: *mut *mut c_void, size: usize, flags: c_uint) -> HipResult<()> {
    if ptr.is_null() {
        return Err(Failure::invalid("ptr is a null pointer"));
    }
    const KNOWN: c_uint = 0x1 | 0x2 | 0x4 | 0x2000_0000 | 0x4000_0000 | 0x8000_0000;
    if flags & !KNOWN != 0 {
        return Err(Failure::invalid(format!("unknown hipHostMalloc flags {flags:#x}")));
    }
    if size == 0 {
        // SAFETY: non-null out-parameter.
        return unsafe { out(ptr, "ptr", std::ptr::null_mut()) };
    }
    let h = hip()?;
    let buffer = ferrocm_runtime::HostBuffer::<u8>::new(&h.current_device()?, size)?;
    let addr = buffer.as_ptr() as u64;
    lock(&h.allocs).insert(addr, Alloc::Pinned { _buffer: buffer, device: h.current(), flags });
    // SAFETY: non-null out-parameter.
    unsafe { out(ptr, "ptr", addr as *mut c_void) }
}

/// Frees an allocation of the expected family, after the device's work is done.
fn free(ptr: *mut c_void, pinned: bool) -> HipResult<()> {
    if ptr.is_null() {
        return Ok(());
    }
    let h = hip()?;
    let addr = ptr as u64;
    let dev = {
        let a = lock(&h.allocs);
        match a.get(&addr) {
            Some(Alloc::Device { device, .. }) if !pinned => *device,
            Some(Alloc::Pinned { device, .. }) if pinned => *device,
            Some(_) => {
                return Err(Failure::invalid(format!(
                    "{addr:#x} was allocated by {}, free it with {}",
                    if pinned { "hipMalloc" } else { "hipHostMalloc" },
                    if pinned { "hipFree" } else { "hipHostFree" }
                )))
            }
            None => {
                return Err(Failure::invalid(format!(
                    "{addr:#x} is not the start of a live allocation (already freed, or not from HIP)"
                )))
            }
        }
    };
    // As hipFree, wait for the device first: kernels and copies may still use the memory.
    h.device(dev)?.synchronize()?;
    let freed = lock(&h.allocs).remove(&addr);
    drop(freed);
    Ok(())
}

/// A `Send` wrapper for the buffer a stream-ordered free hands to a host callback.
struct Deferred(Option<Alloc>);
// SAFETY: the allocation is only dropped, on the callback's thread, which the runtime allows.
unsafe impl Send for Deferred {}

hip_api! {
    /// `hipMalloc`: device memory on the current device (a null pointer for size 0).
    fn hipMalloc(ptr: *mut *mut c_void, size: usize) {
        alloc_device(ptr, size, false, None)
    }

    /// `hipExtMallocWithFlags`: as `hipMalloc` (the flags select AMD memory kinds).
    fn hipExtMallocWithFlags(ptr: *mut *mut c_void, size: usize, flags: c_uint) {
        let _ = flags;
        alloc_device(ptr, size, false, None)
    }

    /// `hipMallocManaged`: memory reachable from the host and the device.
    fn hipMallocManaged(ptr: *mut *mut c_void, size: usize, flags: c_uint) {
        if flags != 1 && flags != 2 {
            return Err(Failure::invalid(format!("hipMallocManaged flags must be hipMemAttachGlobal or hipMemAttachHost, got {flags}")));
        }
        alloc_device(ptr, size, true, None)
    }

    /// `hipMallocPitch`: rows padded to 512 bytes.
    fn hipMallocPitch(ptr: *mut *mut c_void, pitch: *mut usize, width: usize, height: usize) {
        if pitch.is_null() {
            return Err(Failure::invalid("pitch is a null pointer"));
        }
        let p = width.div_ceil(512).max(1) * 512;
        let bytes = p.checked_mul(height).ok_or_else(|| Failure::invalid("the allocation size overflows"))?;
        alloc_device(ptr, bytes, false, None)?;
        unsafe { out(pitch, "pitch", p) }
    }

    /// `hipFree`: waits for the device, then frees memory from `hipMalloc` (null is allowed).
    fn hipFree(ptr: *mut c_void) {
        free(ptr, false)
    }

    /// `hipHostMalloc`: page-locked host memory, mapped for every device.
    fn hipHostMalloc(ptr: *mut *mut c_void, size: usize, flags: c_uint) {
        alloc_pinned(ptr, size, flags)
    }

    /// `hipHostAlloc`: as `hipHostMalloc`.
    fn hipHostAlloc(ptr: *mut *mut c_void, size: usize, flags: c_uint) {
        alloc_pinned(ptr, size, flags)
    }

    /// `hipMallocHost`: as `hipHostMalloc` with default flags.
    fn hipMallocHost(ptr: *mut *mut c_void, size: usize) {
        alloc_pinned(ptr, size, 0)
    }

    /// `hipHostFree`: frees memory from `hipHostMalloc` (null is allowed).
    fn hipHostFree(ptr: *mut c_void) {
        free(ptr, true)
    }

    /// `hipFreeHost`: as `hipHostFree`.
    fn hipFreeHost(ptr: *mut c_void) {
        free(ptr, true)
    }

    /// `hipHostGetDevicePointer`: with unified addressing, the host address itself.
    fn hipHostGetDevicePointer(dev_ptr: *mut *mut c_void, host_ptr: *mut c_void, flags: c_uint) {
        if flags != 0 {
            return Err(Failure::invalid("flags must be 0"));
        }
        match pointer_attributes(host_ptr as u64)? {
            Some(a) if a.kind == MemoryKind::PinnedHost => unsafe { out(dev_ptr, "devPtr", host_ptr) },
            _ => Err(Failure::invalid(format!("{:#x} is not memory from hipHostMalloc", host_ptr as u64))),
        }
    }

    /// `hipHostGetFlags`: the flags `hipHostMalloc` was given.
    fn hipHostGetFlags(flags: *mut c_uint, host_ptr: *mut c_void) {
        let Some(a) = pointer_attributes(host_ptr as u64)? else {
            return Err(Failure::invalid("not memory from hipHostMalloc"));
        };
        let f = match lock(&hip()?.allocs).get(&a.base.0) {
            Some(Alloc::Pinned { flags, .. }) => *flags,
            _ => return Err(Failure::invalid("not memory from hipHostMalloc")),
        };
        unsafe { out(flags, "flagsPtr", f) }
    }

    /// `hipMallocAsync`: from the device's stream-ordered pool, in `stream`'s order.
    fn hipMallocAsync(ptr: *mut *mut c_void, size: usize, stream: *mut c_void) {
        alloc_device(ptr, size, false, Some(stream as u64))
    }

    /// `hipFreeAsync`: gives the memory back once `stream`'s earlier work is done.
    fn hipFreeAsync(ptr: *mut c_void, stream: *mut c_void) {
        if ptr.is_null() {
            return Ok(());
        }
        let h = hip()?;
        let s = h.stream(stream as u64)?;
        let addr = ptr as u64;
        let taken = {
            let mut a = lock(&h.allocs);
            match a.get(&addr) {
                Some(Alloc::Device { .. }) => a.remove(&addr),
                _ => return Err(Failure::invalid(format!("{addr:#x} is not the start of a live device allocation"))),
            }
        };
        let mut deferred = Deferred(taken);
        s.add_callback(move || drop(deferred.0.take()))?;
        Ok(())
    }

    /// `hipPointerGetAttributes`: unregistered host memory is `hipMemoryTypeUnregistered`.
    fn hipPointerGetAttributes(attributes: *mut PointerAttributes, ptr: *const c_void) {
        if attributes.is_null() {
            return Err(Failure::invalid("attributes is a null pointer"));
        }
        let h = hip()?;
        let a = match pointer_attributes(ptr as u64)? {
            Some(a) => {
                let device = h.index_of(&a.device).unwrap_or(0) as c_int;
                let p = ptr as *mut c_void;
                let (ty, host, dev, managed) = match a.kind {
                    MemoryKind::PinnedHost => (1, p, p, 0),
                    MemoryKind::Managed => (3, p, p, 1),
                    _ => (2, std::ptr::null_mut(), p, 0),
                };
                let flags = match lock(&h.allocs).get(&a.base.0) {
                    Some(Alloc::Pinned { flags, .. }) => *flags,
                    _ => 0,
                };
                PointerAttributes { ty, device, device_pointer: dev, host_pointer: host, is_managed: managed, allocation_flags: flags }
            }
            None => PointerAttributes {
                ty: 0,
                device: -2,
                device_pointer: std::ptr::null_mut(),
                host_pointer: ptr as *mut c_void,
                is_managed: 0,
                allocation_flags: 0,
            },
        };
        unsafe { out(attributes, "attributes", a) }
    }

    /// `hipMemPtrGetInfo`: the size of the allocation `ptr` starts.
    fn hipMemPtrGetInfo(ptr: *mut c_void, size: *mut usize) {
        match pointer_attributes(ptr as u64)? {
            Some(a) => unsafe { out(size, "size", a.size as usize) },
            None => Err(Failure::invalid("not memory allocated by HIP")),
        }
    }

    /// `hipMemcpy`: returns once the copy is complete.
    fn hipMemcpy(dst: *mut c_void, src: *const c_void, n: usize, k: c_int) {
        unsafe { copy(dst, src, n, k, None, true) }
    }

    /// `hipMemcpyWithStream`: on `stream`, returning once the copy is complete.
    fn hipMemcpyWithStream(dst: *mut c_void, src: *const c_void, n: usize, k: c_int, stream: *mut c_void) {
        unsafe { copy(dst, src, n, k, Some(stream as u64), true) }
    }

    /// `hipMemcpyAsync`: queued on `stream` (pageable host memory makes it wait).
    fn hipMemcpyAsync(dst: *mut c_void, src: *const c_void, n: usize, k: c_int, stream: *mut c_void) {
        unsafe { copy(dst, src, n, k, Some(stream as u64), false) }
    }

    /// `hipMemcpyHtoD`.
    fn hipMemcpyHtoD(dst: *mut c_void, src: *mut c_void, n: usize) {
        unsafe { copy(dst, src, n, 1, None, true) }
    }

    /// `hipMemcpyDtoH`.
    fn hipMemcpyDtoH(dst: *mut c_void, src: *mut c_void, n: usize) {
        unsafe { copy(dst, src, n, 2, None, true) }
    }

    /// `hipMemcpyDtoD`.
    fn hipMemcpyDtoD(dst: *mut c_void, src: *mut c_void, n: usize) {
        unsafe { copy(dst, src, n, 3, None, true) }
    }

    /// `hipMemcpyHtoDAsync`.
    fn hipMemcpyHtoDAsync(dst: *mut c_void, src: *mut c_void, n: usize, stream: *mut c_void) {
        unsafe { copy(dst, src, n, 1, Some(stream as u64), false) }
    }

    /// `hipMemcpyDtoHAsync`.
    fn hipMemcpyDtoHAsync(dst: *mut c_void, src: *mut c_void, n: usize, stream: *mut c_void) {
        unsafe { copy(dst, src, n, 2, Some(stream as u64), false) }
    }

    /// `hipMemcpyDtoDAsync`.
    fn hipMemcpyDtoDAsync(dst: *mut c_void, src: *mut c_void, n: usize, stream: *mut c_void) {
        unsafe { copy(dst, src, n, 3, Some(stream as u64), false) }
    }

    /// `hipMemcpy2D`: `height` rows of `width` bytes between pitched memory.
    fn hipMemcpy2D(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, k: c_int) {
        unsafe { copy_2d(dst, dpitch, src, spitch, width, height, k, None, true) }
    }

    /// `hipMemcpy2DAsync`.
    fn hipMemcpy2DAsync(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, k: c_int, stream: *mut c_void) {
        unsafe { copy_2d(dst, dpitch, src, spitch, width, height, k, Some(stream as u64), false) }
    }

    /// `hipMemcpyPeer`: between the memory of two devices.
    fn hipMemcpyPeer(dst: *mut c_void, dst_device: c_int, src: *const c_void, src_device: c_int, n: usize) {
        crate::device::check_index(dst_device)?;
        crate::device::check_index(src_device)?;
        unsafe { copy(dst, src, n, 3, None, true) }
    }

    /// `hipMemcpyPeerAsync`.
    fn hipMemcpyPeerAsync(dst: *mut c_void, dst_device: c_int, src: *const c_void, src_device: c_int, n: usize, stream: *mut c_void) {
        crate::device::check_index(dst_device)?;
        crate::device::check_index(src_device)?;
        unsafe { copy(dst, src, n, 3, Some(stream as u64), false) }
    }

    /// `hipMemset`: sets `n` bytes of device memory to the low byte of `value`.
    fn hipMemset(dst: *mut c_void, value: c_int, n: usize) {
        fill(dst, &[value as u8], n, None, true)
    }

    /// `hipMemsetAsync`.
    fn hipMemsetAsync(dst: *mut c_void, value: c_int, n: usize, stream: *mut c_void) {
        fill(dst, &[value as u8], n, Some(stream as u64), false)
    }

    /// `hipMemsetD8`.
    fn hipMemsetD8(dst: *mut c_void, value: u8, count: usize) {
        fill(dst, &[value], count, None, true)
    }

    /// `hipMemsetD16`: `count` 16-bit values.
    fn hipMemsetD16(dst: *mut c_void, value: u16, count: usize) {
        fill(dst, &value.to_le_bytes(), count, None, true)
    }

    /// `hipMemsetD32`: `count` 32-bit values.
    fn hipMemsetD32(dst: *mut c_void, value: c_int, count: usize) {
        fill(dst, &value.to_le_bytes(), count, None, true)
    }

    /// `hipMemsetD8Async`.
    fn hipMemsetD8Async(dst: *mut c_void, value: u8, count: usize, stream: *mut c_void) {
        fill(dst, &[value], count, Some(stream as u64), false)
    }

    /// `hipMemsetD16Async`.
    fn hipMemsetD16Async(dst: *mut c_void, value: u16, count: usize, stream: *mut c_void) {
        fill(dst, &value.to_le_bytes(), count, Some(stream as u64), false)
    }

    /// `hipMemsetD32Async`.
    fn hipMemsetD32Async(dst: *mut c_void, value: c_int, count: usize, stream: *mut c_void) {
        fill(dst, &value.to_le_bytes(), count, Some(stream as u64), false)
    }

    /// `hipMemset2D`: `height` rows of `width` bytes, `pitch` apart.
    fn hipMemset2D(dst: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize) {
        if width > pitch {
            return Err(Failure::new(HipError::hipErrorInvalidPitchValue, format!("width {width} exceeds pitch {pitch}")));
        }
        for row in 0..height {
            fill((dst as usize + row * pitch) as *mut c_void, &[value as u8], width, None, false)?;
        }
        hip()?.current_device()?.synchronize()?;
        Ok(())
    }

    /// `hipMemset2DAsync`.
    fn hipMemset2DAsync(dst: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize, stream: *mut c_void) {
        if width > pitch {
            return Err(Failure::new(HipError::hipErrorInvalidPitchValue, format!("width {width} exceeds pitch {pitch}")));
        }
        for row in 0..height {
            fill((dst as usize + row * pitch) as *mut c_void, &[value as u8], width, Some(stream as u64), false)?;
        }
        Ok(())
    }

    /// `hipMemPrefetchAsync`: accepted for managed memory (it is resident where it is used).
    fn hipMemPrefetchAsync(ptr: *const c_void, count: usize, device: c_int, stream: *mut c_void) {
        let _ = (count, device);
        hip()?.stream(stream as u64)?;
        match pointer_attributes(ptr as u64)? {
            Some(a) if a.kind == MemoryKind::Managed => Ok(()),
            _ => Err(Failure::invalid("hipMemPrefetchAsync needs managed memory")),
        }
    }

    /// `hipMemcpyToSymbol`: into a `__device__` or `__constant__` variable.
    fn hipMemcpyToSymbol(symbol: *const c_void, src: *const c_void, n: usize, offset: usize, k: c_int) {
        unsafe { symbol_copy(symbol, offset, n, k, src, None, true) }
    }

    /// `hipMemcpyToSymbolAsync`.
    fn hipMemcpyToSymbolAsync(symbol: *const c_void, src: *const c_void, n: usize, offset: usize, k: c_int, stream: *mut c_void) {
        unsafe { symbol_copy(symbol, offset, n, k, src, Some(stream as u64), false) }
    }

    /// `hipMemcpyFromSymbol`.
    fn hipMemcpyFromSymbol(dst: *mut c_void, symbol: *const c_void, n: usize, offset: usize, k: c_int) {
        unsafe { symbol_read(symbol, offset, n, k, dst, None, true) }
    }

    /// `hipMemcpyFromSymbolAsync`.
    fn hipMemcpyFromSymbolAsync(dst: *mut c_void, symbol: *const c_void, n: usize, offset: usize, k: c_int, stream: *mut c_void) {
        unsafe { symbol_read(symbol, offset, n, k, dst, Some(stream as u64), false) }
    }

    /// `hipGetSymbolAddress`: the variable's device address on the current device.
    fn hipGetSymbolAddress(dev_ptr: *mut *mut c_void, symbol: *const c_void) {
        let (addr, _) = registered_var(symbol as usize, hip()?.current())?;
        unsafe { out(dev_ptr, "devPtr", addr as *mut c_void) }
    }

    /// `hipGetSymbolSize`.
    fn hipGetSymbolSize(size: *mut usize, symbol: *const c_void) {
        let (_, s) = registered_var(symbol as usize, hip()?.current())?;
        unsafe { out(size, "size", s as usize) }
    }
}

/// The device range of `n` bytes at `offset` of a registered variable.
fn symbol_range(symbol: *const c_void, offset: usize, n: usize) -> HipResult<u64> {
    let (addr, size) = registered_var(symbol as usize, hip()?.current())?;
    if offset.checked_add(n).is_none_or(|e| e as u64 > size) {
        return Err(Failure::invalid(format!(
            "{n} bytes at offset {offset} do not fit the {size}-byte variable"
        )));
    }
    Ok(addr + offset as u64)
}

unsafe fn symbol_copy(
    symbol: *const c_void,
    offset: usize,
    n: usize,
    k: c_int,
    src: *const c_void,
    stream: Option<u64>,
    sync: bool,
) -> HipResult<()> {
    if !matches!(kind(k)?, Kind::HostToDevice | Kind::DeviceToDevice | Kind::Default) {
        return Err(Failure::new(
            HipError::hipErrorInvalidMemcpyDirection,
            "a copy to a symbol goes to the device",
        ));
    }
    let at = symbol_range(symbol, offset, n)?;
    // SAFETY: forwarded from the caller; the device side was checked above.
    unsafe { copy(at as *mut c_void, src, n, 4, stream, sync) }
}

unsafe fn symbol_read(
    symbol: *const c_void,
    offset: usize,
    n: usize,
    k: c_int,
    dst: *mut c_void,
    stream: Option<u64>,
    sync: bool,
) -> HipResult<()> {
    if !matches!(kind(k)?, Kind::DeviceToHost | Kind::DeviceToDevice | Kind::Default) {
        return Err(Failure::new(
            HipError::hipErrorInvalidMemcpyDirection,
            "a copy from a symbol comes from the device",
        ));
    }
    let at = symbol_range(symbol, offset, n)?;
    // SAFETY: forwarded from the caller; the device side was checked above.
    unsafe { copy(dst, at as *const c_void, n, 4, stream, sync) }
}

/// `hipPointerAttribute_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PointerAttributes {
    pub ty: c_int,
    pub device: c_int,
    pub device_pointer: *mut c_void,
    pub host_pointer: *mut c_void,
    pub is_managed: c_int,
    pub allocation_flags: c_uint,
}
