//! DLPack in both directions: a buffer region exported as a `dltensor` capsule (the consumer owns
//! a reference to the exporting array until it calls the deleter), and a capsule from another
//! library imported as a borrowed [`Buffer`] without a copy (its deleter runs when the last view
//! of it is gone). The structs follow `dlpack.h` (version 0.8, the unversioned ABI every
//! consumer accepts).

use std::ffi::{c_void, CStr};
use std::os::raw::c_char;

use ferrocm::{BackendKind, Device, DevicePtr, ExternalBuffer};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::buffer::{Buffer, Storage};
use crate::errors::value;

pub const KDL_CPU: i32 = 1;
pub const KDL_CUDA: i32 = 2;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLDevice {
    pub device_type: i32,
    pub device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDataType {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

#[repr(C)]
pub struct DLTensor {
    pub data: *mut c_void,
    pub device: DLDevice,
    pub ndim: i32,
    pub dtype: DLDataType,
    pub shape: *mut i64,
    pub strides: *mut i64,
    pub byte_offset: u64,
}

#[repr(C)]
pub struct DLManagedTensor {
    pub dl_tensor: DLTensor,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

const NAME: &CStr = c"dltensor";
const USED: &CStr = c"used_dltensor";
const NAME_V: &CStr = c"dltensor_versioned";
const USED_V: &CStr = c"used_dltensor_versioned";

/// `DLPackVersion`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLPackVersion {
    pub major: u32,
    pub minor: u32,
}

/// `DLManagedTensorVersioned` (DLPack 1.0).
#[repr(C)]
pub struct DLManagedTensorVersioned {
    pub version: DLPackVersion,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    pub flags: u64,
    pub dl_tensor: DLTensor,
}

/// `DLPACK_FLAG_BITMASK_READ_ONLY`.
pub const FLAG_READ_ONLY: u64 = 1;

/// The DLPack device of a ferrocm device.
pub fn dl_device(d: &Device) -> DLDevice {
    match d.kind() {
        BackendKind::Cpu => DLDevice { device_type: KDL_CPU, device_id: 0 },
        _ => DLDevice { device_type: KDL_CUDA, device_id: d.ordinal() as i32 },
    }
}

/// The ferrocm device for a DLPack device.
pub fn ferrocm_device(dev: (i32, i32)) -> PyResult<Device> {
    match dev {
        (KDL_CPU, _) => Device::cpu().map_err(crate::errors::runtime),
        (KDL_CUDA, id) => Device::of_kind(BackendKind::Cuda)
            .into_iter()
            .find(|d| d.ordinal() as i32 == id)
            .ok_or_else(|| value(format!("no visible ferrocm GPU has CUDA ordinal {id}"))),
        (t, id) => Err(value(format!(
            "DLPack device type {t} (id {id}) is not a ferrocm device: CPU (1) and CUDA (2) are"
        ))),
    }
}

/// What an exported capsule owns: the managed tensor (legacy or versioned) first, so its address
/// is the capsule's pointer, then the shape and strides it points into, and a strong reference
/// to the exporting array.
#[repr(C)]
struct Export<M> {
    managed: M,
    shape: Vec<i64>,
    strides: Vec<i64>,
    owner: *mut ffi::PyObject,
}

/// Releases an export: drops the owner reference under the GIL (the consumer may call from any
/// thread). During interpreter shutdown the reference is left, as Python frees everything anyway.
unsafe fn release<M>(e: *mut Export<M>) {
    // SAFETY: `e` was leaked by `export` and is released once.
    let export = unsafe { Box::from_raw(e) };
    // SAFETY: plain interpreter-state queries and a reference drop with the GIL held.
    unsafe {
        if ffi::Py_IsInitialized() != 0 && !export.owner.is_null() {
            let gil = ffi::PyGILState_Ensure();
            ffi::Py_DecRef(export.owner);
            ffi::PyGILState_Release(gil);
        }
    }
}

unsafe extern "C" fn legacy_deleter(m: *mut DLManagedTensor) {
    if !m.is_null() {
        // SAFETY: the managed tensor is the first field of a leaked `Export`; nothing here can
        // unwind (no Rust code that panics runs).
        unsafe { release(m as *mut Export<DLManagedTensor>) };
    }
}

unsafe extern "C" fn versioned_deleter(m: *mut DLManagedTensorVersioned) {
    if !m.is_null() {
        // SAFETY: as `legacy_deleter`.
        unsafe { release(m as *mut Export<DLManagedTensorVersioned>) };
    }
}

unsafe extern "C" fn capsule_destructor(capsule: *mut ffi::PyObject) {
    // Per the DLPack protocol: a capsule never consumed still owns its tensor.
    // SAFETY: called by Python with the capsule, holding the GIL.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, NAME.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(capsule, NAME.as_ptr()) as *mut DLManagedTensor;
            if let Some(deleter) = (*m).deleter {
                deleter(m);
            }
        } else if ffi::PyCapsule_IsValid(capsule, NAME_V.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(capsule, NAME_V.as_ptr()) as *mut DLManagedTensorVersioned;
            if let Some(deleter) = (*m).deleter {
                deleter(m);
            }
        }
        ffi::PyErr_Clear();
    }
}

/// Exports `data` (the first element's address) as a DLPack capsule that keeps `owner` alive
/// until the consumer deletes it: versioned (DLPack 1.0, writable) when the consumer asked for
/// it with `max_version`, the unversioned form otherwise.
#[allow(clippy::too_many_arguments)]
pub fn export<'py>(
    py: Python<'py>,
    owner: Py<PyAny>,
    device: &Device,
    data: u64,
    shape: Vec<i64>,
    strides: Vec<i64>,
    dtype: DLDataType,
    versioned: bool,
) -> PyResult<Bound<'py, PyCapsule>> {
    if shape.len() != strides.len() || shape.len() > i32::MAX as usize {
        return Err(value("shape and strides must have the same length"));
    }
    let tensor = DLTensor {
        data: data as *mut c_void,
        device: dl_device(device),
        ndim: shape.len() as i32,
        dtype,
        shape: std::ptr::null_mut(),
        strides: std::ptr::null_mut(),
        byte_offset: 0,
    };
    let owner = owner.into_ptr();
    // Each branch leaks one `Export` whose vectors stay where the tensor points (the box does
    // not move them), and hands it to a capsule named for its layout.
    let (raw, name): (*mut c_void, &CStr) = if versioned {
        let mut e = Box::new(Export {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion { major: 1, minor: 0 },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(versioned_deleter),
                flags: 0,
                dl_tensor: tensor,
            },
            shape,
            strides,
            owner,
        });
        e.managed.dl_tensor.shape = e.shape.as_mut_ptr();
        e.managed.dl_tensor.strides = e.strides.as_mut_ptr();
        let raw = Box::into_raw(e);
        // SAFETY: a live leaked export.
        unsafe { (*raw).managed.manager_ctx = raw as *mut c_void };
        (raw as *mut c_void, NAME_V)
    } else {
        let mut e = Box::new(Export {
            managed: DLManagedTensor {
                dl_tensor: tensor,
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(legacy_deleter),
            },
            shape,
            strides,
            owner,
        });
        e.managed.dl_tensor.shape = e.shape.as_mut_ptr();
        e.managed.dl_tensor.strides = e.strides.as_mut_ptr();
        let raw = Box::into_raw(e);
        // SAFETY: a live leaked export.
        unsafe { (*raw).managed.manager_ctx = raw as *mut c_void };
        (raw as *mut c_void, NAME)
    };
    // SAFETY: `raw` is a live leaked export; the capsule's destructor deletes it unless a
    // consumer took it (renamed the capsule), which then calls the deleter itself.
    unsafe {
        let cap = ffi::PyCapsule_New(raw, name.as_ptr(), Some(capsule_destructor));
        if cap.is_null() {
            if versioned {
                versioned_deleter(raw as *mut DLManagedTensorVersioned);
            } else {
                legacy_deleter(raw as *mut DLManagedTensor);
            }
            return Err(PyErr::fetch(py));
        }
        Ok(Bound::from_owned_ptr(py, cap).cast_into_unchecked())
    }
}

/// An imported tensor: its deleter runs when the buffer that borrows its memory is dropped.
pub enum Imported {
    Legacy(*mut DLManagedTensor),
    Versioned(*mut DLManagedTensorVersioned),
}

// SAFETY: the managed tensor is owned by this value alone (the capsule was renamed "used"), and
// DLPack deleters may be called from any thread.
unsafe impl Send for Imported {}
unsafe impl Sync for Imported {}

impl Drop for Imported {
    fn drop(&mut self) {
        // SAFETY: the producer's tensor, deleted exactly once; producers' deleters take the GIL
        // themselves where they need it.
        unsafe {
            match *self {
                Imported::Legacy(m) => {
                    if let Some(d) = (*m).deleter {
                        d(m)
                    }
                }
                Imported::Versioned(m) => {
                    if let Some(d) = (*m).deleter {
                        d(m)
                    }
                }
            }
        }
    }
}

/// Takes a `dltensor` capsule (consuming it, as the protocol says) and returns a buffer borrowing
/// its memory, the tensor's shape and strides (elements), its (code, bits, lanes), and the
/// element offset of element 0 from the buffer's start.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn import_capsule(
    capsule: &Bound<'_, PyAny>,
) -> PyResult<(Buffer, Vec<i64>, Vec<i64>, (u8, u8, u16), i64)> {
    let cap = capsule.cast::<PyCapsule>().map_err(|_| value("__dlpack__ did not return a capsule"))?;
    let p = cap.as_ptr();
    // SAFETY: `p` is a live capsule; the name checks guard against consumed or foreign capsules.
    // Renaming it "used_..." tells its destructor that the tensor is ours to delete now.
    let (imported, t, readonly) = unsafe {
        if ffi::PyCapsule_IsValid(p, NAME_V.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(p, NAME_V.as_ptr()) as *mut DLManagedTensorVersioned;
            if m.is_null() || ffi::PyCapsule_SetName(p, USED_V.as_ptr() as *const c_char) != 0 {
                return Err(PyErr::take(capsule.py()).unwrap_or_else(|| value("an empty DLPack capsule")));
            }
            if (*m).version.major != 1 {
                drop(Imported::Versioned(m));
                return Err(value(format!(
                    "DLPack version {}.{} is not supported (1.x is)",
                    (*m).version.major,
                    (*m).version.minor
                )));
            }
            (Imported::Versioned(m), &(*m).dl_tensor, (*m).flags & FLAG_READ_ONLY != 0)
        } else if ffi::PyCapsule_IsValid(p, NAME.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(p, NAME.as_ptr()) as *mut DLManagedTensor;
            if m.is_null() || ffi::PyCapsule_SetName(p, USED.as_ptr() as *const c_char) != 0 {
                return Err(PyErr::take(capsule.py()).unwrap_or_else(|| value("an empty DLPack capsule")));
            }
            (Imported::Legacy(m), &(*m).dl_tensor, false)
        } else {
            ffi::PyErr_Clear();
            return Err(value("the DLPack capsule was already consumed or is not a dltensor"));
        }
    };
    if t.ndim < 0 || t.dtype.lanes != 1 || t.dtype.bits == 0 || t.dtype.bits % 8 != 0 {
        return Err(value(format!(
            "unsupported DLPack tensor: ndim {}, dtype code {} bits {} lanes {}",
            t.ndim, t.dtype.code, t.dtype.bits, t.dtype.lanes
        )));
    }
    let nd = t.ndim as usize;
    // SAFETY: DLPack: `shape` holds `ndim` entries; `strides` is null (C-contiguous) or `ndim`.
    let shape: Vec<i64> =
        if nd == 0 { vec![] } else { unsafe { std::slice::from_raw_parts(t.shape, nd) }.to_vec() };
    let strides: Vec<i64> = if t.strides.is_null() {
        let mut s = vec![0i64; nd];
        let mut acc = 1i64;
        for i in (0..nd).rev() {
            s[i] = acc;
            acc = acc.saturating_mul(shape[i].max(1));
        }
        s
    } else {
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts(t.strides, nd) }.to_vec()
    };
    if shape.iter().any(|&n| n < 0) {
        return Err(value("a DLPack tensor with a negative extent"));
    }
    let item = (t.dtype.bits / 8) as i64;
    let empty = shape.contains(&0);
    let (mut lo, mut hi) = (0i64, 0i64);
    if !empty {
        for (&n, &s) in shape.iter().zip(&strides) {
            let reach = (n - 1).checked_mul(s).ok_or_else(|| value("DLPack tensor extent overflows"))?;
            if reach < 0 {
                lo += reach;
            } else {
                hi += reach;
            }
        }
    }
    let len_bytes = if empty { 0 } else { ((hi - lo + 1) * item) as usize };
    let device = ferrocm_device((t.device.device_type, t.device.device_id))?;
    let base = (t.data as u64).wrapping_add(t.byte_offset).wrapping_add_signed(lo * item);
    // SAFETY: the producer guarantees the tensor's memory on its device for as long as the
    // managed tensor is not deleted; `imported` (kept with the buffer) deletes it only when the
    // buffer is dropped, and ExternalBuffer's drop first waits for ferrocm's work on it.
    let ext = unsafe { ExternalBuffer::<u8>::new(&device, DevicePtr(base), len_bytes) };
    let dtype = (t.dtype.code, t.dtype.bits, t.dtype.lanes);
    let mut buffer = Buffer::from_storage(device, Storage::External(ext, Some(imported)), len_bytes, base);
    buffer.set_readonly(readonly);
    Ok((buffer, shape, strides, dtype, -lo))
}
