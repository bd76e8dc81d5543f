//! Devices: count, handles, identity and attributes.

use std::ffi::{c_char, c_int, CStr};

use ferrocm_backend::Result;

use super::check;
use crate::sys::*;

/// `cuDeviceGetCount`.
pub fn count(d: &Driver) -> Result<i32> {
    let mut n = 0;
    // SAFETY: live out-pointer.
    check(d, "cuDeviceGetCount", unsafe { d.device_get_count(&mut n) })?;
    Ok(n)
}

/// `cuDeviceGet`.
pub fn get(d: &Driver, ordinal: i32) -> Result<CUdevice> {
    let mut dev = 0;
    // SAFETY: live out-pointer; an invalid ordinal is an error code.
    check(d, "cuDeviceGet", unsafe { d.device_get(&mut dev, ordinal) })?;
    Ok(dev)
}

fn string(buf: &[c_char]) -> String {
    // SAFETY: the driver NUL-terminates what it writes within the buffer; the buffer starts zeroed.
    unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()
}

/// `cuDeviceGetName`.
pub fn name(d: &Driver, dev: CUdevice) -> Result<String> {
    let mut buf = [0 as c_char; 256];
    // SAFETY: the buffer's length is passed.
    check(d, "cuDeviceGetName", unsafe { d.device_get_name(buf.as_mut_ptr(), buf.len() as c_int, dev) })?;
    Ok(string(&buf))
}

/// `cuDeviceTotalMem_v2`, in bytes.
pub fn total_mem(d: &Driver, dev: CUdevice) -> Result<u64> {
    let mut total = 0usize;
    // SAFETY: live out-pointer.
    check(d, "cuDeviceTotalMem_v2", unsafe { d.device_total_mem(&mut total, dev) })?;
    Ok(total as u64)
}

/// `cuDeviceGetUuid_v2`: the 16 raw bytes.
pub fn uuid(d: &Driver, dev: CUdevice) -> Result<[u8; 16]> {
    let mut uuid = [0u8; 16];
    // SAFETY: live out-pointer to 16 bytes.
    check(d, "cuDeviceGetUuid_v2", unsafe { d.device_get_uuid(&mut uuid, dev) })?;
    Ok(uuid)
}

/// `cuDeviceGetPCIBusId`: "dddd:bb:dd.f".
pub fn pci_bus_id(d: &Driver, dev: CUdevice) -> Result<String> {
    let mut buf = [0 as c_char; 32];
    // SAFETY: the buffer's length is passed.
    check(d, "cuDeviceGetPCIBusId", unsafe {
        d.device_get_pci_bus_id(buf.as_mut_ptr(), buf.len() as c_int, dev)
    })?;
    Ok(string(&buf))
}

/// `cuDeviceGetAttribute`.
pub fn attribute(d: &Driver, dev: CUdevice, attribute: c_int) -> Result<i32> {
    let mut v = 0;
    // SAFETY: live out-pointer; an unknown attribute is an error code.
    check(d, "cuDeviceGetAttribute", unsafe { d.device_get_attribute(&mut v, attribute, dev) })?;
    Ok(v)
}

/// `cuDeviceCanAccessPeer`.
pub fn can_access_peer(d: &Driver, dev: CUdevice, peer: CUdevice) -> Result<bool> {
    let mut can = 0;
    // SAFETY: live out-pointer.
    check(d, "cuDeviceCanAccessPeer", unsafe { d.device_can_access_peer(&mut can, dev, peer) })?;
    Ok(can != 0)
}
