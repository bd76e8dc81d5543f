//! Primary contexts.

use ferrocm_backend::Result;

use super::check;
use crate::sys::*;

/// `cuDevicePrimaryCtxRetain`.
pub fn primary_retain(d: &Driver, dev: CUdevice) -> Result<CUcontext> {
    let mut c: CUcontext = std::ptr::null_mut();
    // SAFETY: live out-pointer.
    check(d, "cuDevicePrimaryCtxRetain", unsafe { d.primary_ctx_retain(&mut c, dev) })?;
    Ok(c)
}

/// `cuDevicePrimaryCtxRelease_v2`.
///
/// # Safety
/// The caller holds a reference from [`primary_retain`] that it gives up.
pub unsafe fn primary_release(d: &Driver, dev: CUdevice) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuDevicePrimaryCtxRelease_v2", unsafe { d.primary_ctx_release(dev) })
}

/// `cuCtxSetCurrent`.
///
/// # Safety
/// `ctx` is a live (retained) context.
pub unsafe fn set_current(d: &Driver, ctx: CUcontext) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuCtxSetCurrent", unsafe { d.ctx_set_current(ctx) })
}

/// `cuCtxSynchronize` on the current context.
pub fn synchronize(d: &Driver) -> Result<()> {
    // SAFETY: acts on the calling thread's current context (an error if there is none).
    check(d, "cuCtxSynchronize", unsafe { d.ctx_synchronize() })
}

/// `cuCtxEnablePeerAccess` from the current context to `peer`; enabling twice is not an error.
///
/// # Safety
/// `peer` is a live context.
pub unsafe fn enable_peer_access(d: &Driver, peer: CUcontext) -> Result<()> {
    // SAFETY: forwarded from the caller.
    match unsafe { d.ctx_enable_peer_access(peer, 0) } {
        Ok(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) => Ok(()),
        r => check(d, "cuCtxEnablePeerAccess", r),
    }
}
