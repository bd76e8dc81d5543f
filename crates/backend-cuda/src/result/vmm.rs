//! Virtual memory management: physical allocations, address reservations, mappings, access,
//! and export/import of physical memory as POSIX file descriptors.

use std::ffi::c_void;
use std::os::fd::{BorrowedFd, FromRawFd, OwnedFd};

use ferrocm_backend::Result;

use super::check;
use crate::sys::*;

/// The allocation properties ferrocm uses: pinned device memory on `device`, exportable as a
/// file descriptor when `exportable`.
pub fn properties(device: CUdevice, exportable: bool) -> CUmemAllocationProp {
    CUmemAllocationProp {
        type_: CU_MEM_ALLOCATION_TYPE_PINNED,
        requested_handle_types: if exportable {
            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
        } else {
            CU_MEM_HANDLE_TYPE_NONE
        },
        location: CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        win32_handle_meta_data: std::ptr::null_mut(),
        alloc_flags: [0; 8],
    }
}

/// `cuMemGetAllocationGranularity` (minimum granularity) for `prop`.
pub fn granularity(d: &Driver, prop: &CUmemAllocationProp) -> Result<u64> {
    let mut g = 0usize;
    // SAFETY: live out-pointer and a fully initialised properties structure.
    check(d, "cuMemGetAllocationGranularity", unsafe {
        d.mem_get_allocation_granularity(&mut g, prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM)
    })?;
    Ok(g as u64)
}

/// `cuMemCreate`.
pub fn create(d: &Driver, bytes: usize, prop: &CUmemAllocationProp) -> Result<CUmemGenericAllocationHandle> {
    let mut h = 0;
    // SAFETY: live out-pointer and properties; flags must be 0.
    check(d, "cuMemCreate", unsafe { d.mem_create(&mut h, bytes, prop, 0) })?;
    Ok(h)
}

/// `cuMemRelease`.
///
/// # Safety
/// A live handle, released once.
pub unsafe fn release(d: &Driver, h: CUmemGenericAllocationHandle) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuMemRelease", unsafe { d.mem_release(h) })
}

/// `cuMemAddressReserve` with no address hint.
pub fn address_reserve(d: &Driver, bytes: usize, alignment: usize) -> Result<CUdeviceptr> {
    let mut p = 0;
    // SAFETY: live out-pointer; no hint; flags must be 0.
    check(d, "cuMemAddressReserve", unsafe { d.mem_address_reserve(&mut p, bytes, alignment, 0, 0) })?;
    Ok(p)
}

/// `cuMemAddressFree`.
///
/// # Safety
/// Exactly a live reservation with nothing mapped, freed once.
pub unsafe fn address_free(d: &Driver, ptr: CUdeviceptr, bytes: usize) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuMemAddressFree", unsafe { d.mem_address_free(ptr, bytes) })
}

/// `cuMemMap` of a whole allocation of `bytes` bytes (the driver maps whole allocations only).
///
/// # Safety
/// The range lies in a live reservation with nothing mapped there; the handle is live and holds
/// exactly `bytes` bytes.
pub unsafe fn map(d: &Driver, ptr: CUdeviceptr, bytes: usize, h: CUmemGenericAllocationHandle) -> Result<()> {
    // SAFETY: forwarded from the caller; offset and flags must be 0.
    check(d, "cuMemMap", unsafe { d.mem_map(ptr, bytes, 0, h, 0) })
}

/// `cuMemUnmap`.
///
/// # Safety
/// Exactly one mapping that no pending work uses.
pub unsafe fn unmap(d: &Driver, ptr: CUdeviceptr, bytes: usize) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuMemUnmap", unsafe { d.mem_unmap(ptr, bytes) })
}

/// `cuMemSetAccess`: read and write access for each device in `devices`.
///
/// # Safety
/// The range is a live mapping.
pub unsafe fn set_access(d: &Driver, ptr: CUdeviceptr, bytes: usize, devices: &[CUdevice]) -> Result<()> {
    let desc: Vec<CUmemAccessDesc> = devices
        .iter()
        .map(|&id| CUmemAccessDesc {
            location: CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id },
            flags: CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        })
        .collect();
    // SAFETY: `desc` holds `desc.len()` descriptors and outlives the call; the range is the
    // caller's promise.
    check(d, "cuMemSetAccess", unsafe { d.mem_set_access(ptr, bytes, desc.as_ptr(), desc.len()) })
}

/// `cuMemExportToShareableHandle` as a POSIX file descriptor, owned by the caller.
///
/// # Safety
/// A live handle created with the POSIX file descriptor handle type.
pub unsafe fn export_fd(d: &Driver, h: CUmemGenericAllocationHandle) -> Result<OwnedFd> {
    let mut fd: std::ffi::c_int = -1;
    // SAFETY: for CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR the driver writes an int.
    check(d, "cuMemExportToShareableHandle", unsafe {
        d.mem_export_to_shareable_handle(
            &mut fd as *mut std::ffi::c_int as *mut c_void,
            h,
            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
            0,
        )
    })?;
    // SAFETY: on success the driver returned a new descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `cuMemImportFromShareableHandle` from a POSIX file descriptor; the descriptor stays the
/// caller's.
pub fn import_fd(d: &Driver, fd: BorrowedFd<'_>) -> Result<CUmemGenericAllocationHandle> {
    use std::os::fd::AsRawFd;
    let mut h = 0;
    // SAFETY: for the POSIX file descriptor type the driver takes the descriptor's value in
    // place of a pointer and only reads it; an unknown descriptor is an error code.
    check(d, "cuMemImportFromShareableHandle", unsafe {
        d.mem_import_from_shareable_handle(
            &mut h,
            fd.as_raw_fd() as isize as *mut c_void,
            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
        )
    })?;
    Ok(h)
}
