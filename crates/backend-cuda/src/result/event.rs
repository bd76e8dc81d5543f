//! Events.

use std::ffi::c_uint;

use ferrocm_backend::Result;

use super::check;
use crate::sys::*;

/// `cuEventCreate` in the current context.
pub fn create(d: &Driver, flags: c_uint) -> Result<CUevent> {
    let mut e: CUevent = std::ptr::null_mut();
    // SAFETY: live out-pointer.
    check(d, "cuEventCreate", unsafe { d.event_create(&mut e, flags) })?;
    Ok(e)
}

/// `cuEventDestroy_v2`.
///
/// # Safety
/// A live event, destroyed once.
pub unsafe fn destroy(d: &Driver, e: CUevent) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuEventDestroy_v2", unsafe { d.event_destroy(e) })
}

/// `cuEventRecord`.
///
/// # Safety
/// A live event and a live stream of the event's context.
pub unsafe fn record(d: &Driver, e: CUevent, s: CUstream) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuEventRecord", unsafe { d.event_record(e, s) })
}

/// `cuEventSynchronize`.
///
/// # Safety
/// A live event.
pub unsafe fn synchronize(d: &Driver, e: CUevent) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuEventSynchronize", unsafe { d.event_synchronize(e) })
}

/// `cuEventQuery`: whether the recorded work has completed.
///
/// # Safety
/// A live event.
pub unsafe fn query(d: &Driver, e: CUevent) -> Result<bool> {
    // SAFETY: forwarded from the caller.
    match unsafe { d.event_query(e) } {
        Ok(CUDA_ERROR_NOT_READY) => Ok(false),
        r => check(d, "cuEventQuery", r).map(|_| true),
    }
}

/// `cuEventElapsedTime` in milliseconds.
///
/// # Safety
/// Two live events.
pub unsafe fn elapsed_ms(d: &Driver, start: CUevent, end: CUevent) -> Result<f32> {
    let mut ms = 0f32;
    // SAFETY: live out-pointer; events forwarded from the caller.
    check(d, "cuEventElapsedTime", unsafe { d.event_elapsed_time(&mut ms, start, end) })?;
    Ok(ms)
}
