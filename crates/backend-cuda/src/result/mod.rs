//! The `result` layer (cudarc's rule): one function per driver call, grouped by topic, each
//! returning `Result` with the driver's error name and string. Functions whose arguments the
//! driver trusts (handles, device addresses, host pointers) are `unsafe fn`; those that take
//! only plain values are safe. Nothing here keeps state: the backend and the CLI's raw-driver
//! baselines both build on these functions.

use std::ffi::{c_char, CStr};

use ferrocm_backend::{BackendError, BackendKind, Result};

use crate::sys::*;

pub mod context;
pub mod device;
pub mod event;
pub mod function;
pub mod graph;
pub mod launch;
pub mod memory;
pub mod module;
pub mod stream;
pub mod tensor_map;
pub mod vmm;

/// Turns a driver return code into a `Result`: success, the driver's error (with its name and
/// string), or a symbol the driver library does not export.
pub fn check(d: &Driver, call: &'static str, r: std::result::Result<CUresult, &'static str>) -> Result<()> {
    match r {
        Ok(CUDA_SUCCESS) => Ok(()),
        Ok(code) => Err(driver_error(d, call, code)),
        Err(symbol) => Err(missing(d, symbol)),
    }
}

/// The error for a symbol the driver library lacks.
pub fn missing(d: &Driver, symbol: &'static str) -> BackendError {
    BackendError::Unavailable {
        backend: BackendKind::Cuda,
        reason: format!("{} does not export {symbol}", d.path),
    }
}

/// The driver's name and description of `code`, as a [`BackendError::Driver`].
pub fn driver_error(d: &Driver, call: &'static str, code: CUresult) -> BackendError {
    BackendError::Driver { call, code, name: error_name(d, code), message: error_string(d, code) }
}

/// `cuGetErrorName`: e.g. "CUDA_ERROR_OUT_OF_MEMORY".
pub fn error_name(d: &Driver, code: CUresult) -> String {
    text(d, code, Driver::get_error_name)
}

/// `cuGetErrorString`: e.g. "out of memory".
pub fn error_string(d: &Driver, code: CUresult) -> String {
    text(d, code, Driver::get_error_string)
}

type TextFn = unsafe fn(&Driver, CUresult, *mut *const c_char) -> std::result::Result<CUresult, &'static str>;

fn text(d: &Driver, code: CUresult, f: TextFn) -> String {
    let mut p: *const c_char = std::ptr::null();
    // SAFETY: the driver writes a pointer to a static NUL-terminated string or leaves it null.
    match unsafe { f(d, code, &mut p) } {
        // SAFETY: a non-null result points at the driver's static string.
        Ok(CUDA_SUCCESS) if !p.is_null() => unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned(),
        _ => "unknown error".to_string(),
    }
}

/// `cuInit(0)`.
pub fn init(d: &Driver) -> Result<()> {
    // SAFETY: cuInit takes only flags, which must be 0.
    check(d, "cuInit", unsafe { d.init(0) })
}

/// `cuDriverGetVersion`: e.g. 13000 for CUDA 13.0.
pub fn driver_version(d: &Driver) -> Result<i32> {
    let mut v = 0;
    // SAFETY: live out-pointer.
    check(d, "cuDriverGetVersion", unsafe { d.driver_get_version(&mut v) })?;
    Ok(v)
}
