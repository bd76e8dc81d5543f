//! Device, managed and pinned host memory; memset and copies.

use std::ffi::c_void;

use ferrocm_backend::Result;

use super::check;
use crate::sys::*;

/// `cuMemGetInfo_v2` on the current context: (free, total) bytes.
pub fn get_info(d: &Driver) -> Result<(u64, u64)> {
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: live out-pointers.
    check(d, "cuMemGetInfo_v2", unsafe { d.mem_get_info(&mut free, &mut total) })?;
    Ok((free as u64, total as u64))
}

/// `cuMemAlloc_v2` in the current context. Out of memory is a driver error with code
/// [`CUDA_ERROR_OUT_OF_MEMORY`].
pub fn alloc(d: &Driver, bytes: usize) -> Result<CUdeviceptr> {
    let mut p = 0;
    // SAFETY: live out-pointer.
    check(d, "cuMemAlloc_v2", unsafe { d.mem_alloc(&mut p, bytes) })?;
    Ok(p)
}

/// `cuMemAllocManaged` with global attachment.
pub fn alloc_managed(d: &Driver, bytes: usize) -> Result<CUdeviceptr> {
    let mut p = 0;
    // SAFETY: live out-pointer.
    check(d, "cuMemAllocManaged", unsafe { d.mem_alloc_managed(&mut p, bytes, CU_MEM_ATTACH_GLOBAL) })?;
    Ok(p)
}

/// `cuMemFree_v2`.
///
/// # Safety
/// `ptr` is a live allocation, freed once, that no pending work uses.
pub unsafe fn free(d: &Driver, ptr: CUdeviceptr) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuMemFree_v2", unsafe { d.mem_free(ptr) })
}

/// `cuMemHostAlloc` (portable: usable from every context).
pub fn host_alloc(d: &Driver, bytes: usize) -> Result<*mut u8> {
    let mut p: *mut c_void = std::ptr::null_mut();
    // SAFETY: live out-pointer.
    check(d, "cuMemHostAlloc", unsafe { d.mem_host_alloc(&mut p, bytes, CU_MEMHOSTALLOC_PORTABLE) })?;
    Ok(p as *mut u8)
}

/// `cuMemFreeHost`.
///
/// # Safety
/// `p` came from [`host_alloc`], is freed once, and no pending copy uses it.
pub unsafe fn free_host(d: &Driver, p: *mut u8) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuMemFreeHost", unsafe { d.mem_free_host(p as *mut c_void) })
}

/// `cuMemsetD8Async`.
///
/// # Safety
/// `[dst, dst + count)` lies in a live allocation; `stream` is live.
pub unsafe fn memset_d8_async(
    d: &Driver,
    dst: CUdeviceptr,
    value: u8,
    count: usize,
    stream: CUstream,
) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuMemsetD8Async", unsafe { d.memset_d8_async(dst, value, count, stream) })
}

/// `cuMemcpyHtoDAsync_v2`.
///
/// # Safety
/// Both ranges hold `bytes` bytes and stay valid until the copy completes; `stream` is live.
pub unsafe fn copy_htod_async(
    d: &Driver,
    dst: CUdeviceptr,
    src: *const u8,
    bytes: usize,
    stream: CUstream,
) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuMemcpyHtoDAsync_v2", unsafe { d.memcpy_htod_async(dst, src as *const c_void, bytes, stream) })
}

/// `cuMemcpyDtoHAsync_v2`.
///
/// # Safety
/// As [`copy_htod_async`].
pub unsafe fn copy_dtoh_async(
    d: &Driver,
    dst: *mut u8,
    src: CUdeviceptr,
    bytes: usize,
    stream: CUstream,
) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuMemcpyDtoHAsync_v2", unsafe { d.memcpy_dtoh_async(dst as *mut c_void, src, bytes, stream) })
}

/// `cuMemcpyDtoDAsync_v2`.
///
/// # Safety
/// As [`copy_htod_async`].
pub unsafe fn copy_dtod_async(
    d: &Driver,
    dst: CUdeviceptr,
    src: CUdeviceptr,
    bytes: usize,
    stream: CUstream,
) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuMemcpyDtoDAsync_v2", unsafe { d.memcpy_dtod_async(dst, src, bytes, stream) })
}

/// `cuMemcpyPeerAsync`.
///
/// # Safety
/// As [`copy_htod_async`]; both contexts are live.
pub unsafe fn copy_peer_async(
    d: &Driver,
    dst: CUdeviceptr,
    dst_ctx: CUcontext,
    src: CUdeviceptr,
    src_ctx: CUcontext,
    bytes: usize,
    stream: CUstream,
) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuMemcpyPeerAsync", unsafe { d.memcpy_peer_async(dst, dst_ctx, src, src_ctx, bytes, stream) })
}
