//! Tensor maps.

use std::ffi::c_void;

use ferrocm_backend::tensor_map::{TensorMapDesc, TENSOR_MAP_BYTES};
use ferrocm_backend::Result;

use super::check;
use crate::sys::*;

/// `cuTensorMapEncodeTiled`: the 128-byte `CUtensorMap` for a validated description. The driver
/// records the global address; it does not access the memory.
pub fn encode_tiled(d: &Driver, desc: &TensorMapDesc) -> Result<[u8; TENSOR_MAP_BYTES]> {
    #[repr(C, align(64))]
    struct Aligned([u8; TENSOR_MAP_BYTES]);
    let mut map = Aligned([0; TENSOR_MAP_BYTES]);
    // SAFETY: the out-pointer is 64-byte aligned and 128 bytes long as CUtensorMap is; the
    // arrays hold 5 (dims, boxes, element strides) and 4 (strides) entries, at least the rank's.
    check(d, "cuTensorMapEncodeTiled", unsafe {
        d.tensor_map_encode_tiled(
            &mut map.0,
            desc.data_type as u32,
            desc.rank,
            desc.global_address.0 as *mut c_void,
            desc.global_dims.as_ptr(),
            desc.global_strides.as_ptr(),
            desc.box_dims.as_ptr(),
            desc.element_strides.as_ptr(),
            desc.interleave as u32,
            desc.swizzle as u32,
            desc.l2_promotion as u32,
            desc.oob_fill as u32,
        )
    })?;
    Ok(map.0)
}
