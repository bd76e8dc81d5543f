//! Kernel functions: attributes and occupancy.

use std::ffi::c_int;

use ferrocm_backend::Result;

use super::check;
use crate::sys::*;

/// `cuFuncGetAttribute`.
///
/// # Safety
/// A live function.
pub unsafe fn get_attribute(d: &Driver, f: CUfunction, attribute: c_int) -> Result<i32> {
    let mut v = 0;
    // SAFETY: live out-pointer; function forwarded from the caller.
    check(d, "cuFuncGetAttribute", unsafe { d.func_get_attribute(&mut v, attribute, f) })?;
    Ok(v)
}

/// `cuFuncSetAttribute`.
///
/// # Safety
/// A live function.
pub unsafe fn set_attribute(d: &Driver, f: CUfunction, attribute: c_int, value: i32) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuFuncSetAttribute", unsafe { d.func_set_attribute(f, attribute, value) })
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
///
/// # Safety
/// A live function.
pub unsafe fn max_active_blocks_per_sm(
    d: &Driver,
    f: CUfunction,
    block_size: i32,
    dynamic_shared: usize,
) -> Result<i32> {
    let mut n = 0;
    // SAFETY: live out-pointer; function forwarded from the caller.
    check(d, "cuOccupancyMaxActiveBlocksPerMultiprocessor", unsafe {
        d.occupancy_max_active_blocks(&mut n, f, block_size, dynamic_shared)
    })?;
    Ok(n)
}
