//! Modules: PTX loaded through the driver's JIT, unloaded, searched for functions.

use std::ffi::{c_void, CString};

use ferrocm_backend::{BackendError, Result};

use super::check;
use crate::sys::*;

/// `cuModuleLoadDataEx` on PTX text in the current context. A JIT failure is a
/// [`BackendError::ModuleLoad`] carrying the driver's error and the JIT's error log.
pub fn load_ptx(d: &Driver, ptx: &str) -> Result<CUmodule> {
    let source = CString::new(ptx)
        .map_err(|_| BackendError::ModuleLoad { log: "PTX text contains a NUL byte".into() })?;
    const LOG: usize = 16 * 1024;
    let mut error_log = vec![0u8; LOG];
    let mut info_log = vec![0u8; LOG];
    let mut options = [
        CU_JIT_ERROR_LOG_BUFFER,
        CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_INFO_LOG_BUFFER,
        CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut values = [
        error_log.as_mut_ptr() as *mut c_void,
        LOG as *mut c_void,
        info_log.as_mut_ptr() as *mut c_void,
        LOG as *mut c_void,
    ];
    let mut module: CUmodule = std::ptr::null_mut();
    // SAFETY: the option arrays have equal length, the log buffers outlive the call and their
    // sizes are passed by value as the JIT options require; the source is NUL-terminated.
    let r = unsafe {
        d.module_load_data_ex(
            &mut module,
            source.as_ptr() as *const c_void,
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    match check(d, "cuModuleLoadDataEx", r) {
        Ok(()) => Ok(module),
        Err(e) => {
            let log = String::from_utf8_lossy(error_log.split(|&b| b == 0).next().unwrap_or(&[]))
                .trim()
                .to_string();
            Err(BackendError::ModuleLoad {
                log: if log.is_empty() { e.to_string() } else { format!("{e}\n{log}") },
            })
        }
    }
}

/// `cuModuleUnload`.
///
/// # Safety
/// A live module, unloaded once, with no pending launches of its functions.
pub unsafe fn unload(d: &Driver, m: CUmodule) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuModuleUnload", unsafe { d.module_unload(m) })
}

/// `cuModuleGetFunction`; a name the module lacks is [`BackendError::FunctionNotFound`].
///
/// # Safety
/// A live module.
pub unsafe fn get_function(d: &Driver, m: CUmodule, name: &str) -> Result<CUfunction> {
    let cname = CString::new(name).map_err(|_| BackendError::FunctionNotFound { name: name.into() })?;
    let mut f: CUfunction = std::ptr::null_mut();
    // SAFETY: live out-pointer and NUL-terminated name; module forwarded from the caller.
    match unsafe { d.module_get_function(&mut f, m, cname.as_ptr()) } {
        Ok(CUDA_SUCCESS) => Ok(f),
        Ok(CUDA_ERROR_NOT_FOUND) => Err(BackendError::FunctionNotFound { name: name.into() }),
        r => check(d, "cuModuleGetFunction", r).map(|_| f),
    }
}

/// `cuModuleGetGlobal_v2`: the address and size of a module variable; a name the module lacks
/// is [`BackendError::FunctionNotFound`] (the driver reports both as "not found").
///
/// # Safety
/// A live module.
pub unsafe fn get_global(d: &Driver, m: CUmodule, name: &str) -> Result<(CUdeviceptr, usize)> {
    let cname = CString::new(name).map_err(|_| BackendError::FunctionNotFound { name: name.into() })?;
    let (mut ptr, mut bytes): (CUdeviceptr, usize) = (0, 0);
    // SAFETY: live out-pointers and a NUL-terminated name; module forwarded from the caller.
    match unsafe { d.module_get_global(&mut ptr, &mut bytes, m, cname.as_ptr()) } {
        Ok(CUDA_SUCCESS) => Ok((ptr, bytes)),
        Ok(CUDA_ERROR_NOT_FOUND) => Err(BackendError::FunctionNotFound { name: name.into() }),
        r => check(d, "cuModuleGetGlobal_v2", r).map(|_| (ptr, bytes)),
    }
}
