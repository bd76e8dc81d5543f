//! Streams.

use std::ffi::{c_int, c_uint, c_void};

use ferrocm_backend::Result;

use super::check;
use crate::sys::*;

/// `cuStreamCreateWithPriority` in the current context.
pub fn create(d: &Driver, flags: c_uint, priority: c_int) -> Result<CUstream> {
    let mut s: CUstream = std::ptr::null_mut();
    // SAFETY: live out-pointer.
    check(d, "cuStreamCreateWithPriority", unsafe { d.stream_create(&mut s, flags, priority) })?;
    Ok(s)
}

/// `cuStreamDestroy_v2`: returns at once; resources are freed once queued work completes.
///
/// # Safety
/// A live stream, destroyed once.
pub unsafe fn destroy(d: &Driver, s: CUstream) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuStreamDestroy_v2", unsafe { d.stream_destroy(s) })
}

/// `cuStreamSynchronize`.
///
/// # Safety
/// A live stream (or a special handle valid in the current context).
pub unsafe fn synchronize(d: &Driver, s: CUstream) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuStreamSynchronize", unsafe { d.stream_synchronize(s) })
}

/// `cuStreamQuery`: whether all queued work has completed.
///
/// # Safety
/// As [`synchronize`].
pub unsafe fn query(d: &Driver, s: CUstream) -> Result<bool> {
    // SAFETY: forwarded from the caller.
    match unsafe { d.stream_query(s) } {
        Ok(CUDA_ERROR_NOT_READY) => Ok(false),
        r => check(d, "cuStreamQuery", r).map(|_| true),
    }
}

/// `cuStreamWaitEvent`.
///
/// # Safety
/// A live stream and a live event (of any context).
pub unsafe fn wait_event(d: &Driver, s: CUstream, e: CUevent) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuStreamWaitEvent", unsafe { d.stream_wait_event(s, e, 0) })
}

/// `cuLaunchHostFunc`.
///
/// # Safety
/// A live stream; `f` may be called with `data` once, on a driver thread.
pub unsafe fn launch_host_func(d: &Driver, s: CUstream, f: CUhostFn, data: *mut c_void) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuLaunchHostFunc", unsafe { d.launch_host_func(s, f, data) })
}

/// `cuStreamWaitValue32_v2`.
///
/// # Safety
/// A live stream; `addr` is a 4-byte aligned device address (not managed memory) that stays
/// mapped until the wait completes.
pub unsafe fn wait_value32(
    d: &Driver,
    s: CUstream,
    addr: CUdeviceptr,
    value: u32,
    flags: c_uint,
) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuStreamWaitValue32_v2", unsafe { d.stream_wait_value32(s, addr, value, flags) })
}

/// `cuStreamWaitValue64_v2`.
///
/// # Safety
/// As [`wait_value32`], 8-byte aligned.
pub unsafe fn wait_value64(
    d: &Driver,
    s: CUstream,
    addr: CUdeviceptr,
    value: u64,
    flags: c_uint,
) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuStreamWaitValue64_v2", unsafe { d.stream_wait_value64(s, addr, value, flags) })
}

/// `cuStreamWriteValue32_v2`.
///
/// # Safety
/// As [`wait_value32`].
pub unsafe fn write_value32(
    d: &Driver,
    s: CUstream,
    addr: CUdeviceptr,
    value: u32,
    flags: c_uint,
) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuStreamWriteValue32_v2", unsafe { d.stream_write_value32(s, addr, value, flags) })
}

/// `cuStreamWriteValue64_v2`.
///
/// # Safety
/// As [`wait_value64`].
pub unsafe fn write_value64(
    d: &Driver,
    s: CUstream,
    addr: CUdeviceptr,
    value: u64,
    flags: c_uint,
) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuStreamWriteValue64_v2", unsafe { d.stream_write_value64(s, addr, value, flags) })
}
