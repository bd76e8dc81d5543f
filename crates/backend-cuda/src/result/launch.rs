//! Kernel launches.

use std::ffi::c_void;

use ferrocm_backend::{LaunchDims, Result};

use super::check;
use crate::sys::*;

/// `cuLaunchKernel`.
///
/// # Safety
/// A live function and stream; `params` points at one pointer per kernel parameter, each to
/// that parameter's bytes (the driver copies them before returning); every address the kernel
/// uses stays valid until it completes.
pub unsafe fn kernel(
    d: &Driver,
    f: CUfunction,
    dims: &LaunchDims,
    s: CUstream,
    params: *mut *mut c_void,
) -> Result<()> {
    let (g, b) = (dims.grid, dims.block);
    // SAFETY: forwarded from the caller.
    check(d, "cuLaunchKernel", unsafe {
        d.launch_kernel(
            f,
            g.x,
            g.y,
            g.z,
            b.x,
            b.y,
            b.z,
            dims.shared_mem_bytes,
            s,
            params,
            std::ptr::null_mut(),
        )
    })
}

/// `cuLaunchKernelEx` with the cluster dimension and cooperative attributes `dims` asks for.
///
/// # Safety
/// As [`kernel`].
pub unsafe fn kernel_ex(
    d: &Driver,
    f: CUfunction,
    dims: &LaunchDims,
    s: CUstream,
    params: *mut *mut c_void,
) -> Result<()> {
    let mut attrs = [CUlaunchAttribute { id: 0, pad: [0; 4], value: [0; 8] }; 2];
    let mut n = 0;
    if dims.has_cluster() {
        let c = dims.cluster;
        // clusterDim is three unsigned ints at the start of the value union.
        attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attrs[n].value[0] = c.x as u64 | ((c.y as u64) << 32);
        attrs[n].value[1] = c.z as u64;
        n += 1;
    }
    if dims.cooperative {
        attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        attrs[n].value[0] = 1;
        n += 1;
    }
    let (g, b) = (dims.grid, dims.block);
    let config = CUlaunchConfig {
        grid_dim_x: g.x,
        grid_dim_y: g.y,
        grid_dim_z: g.z,
        block_dim_x: b.x,
        block_dim_y: b.y,
        block_dim_z: b.z,
        shared_mem_bytes: dims.shared_mem_bytes,
        h_stream: s,
        attrs: attrs.as_mut_ptr(),
        num_attrs: n as u32,
    };
    // SAFETY: `config` and `attrs` outlive the call; the rest is forwarded from the caller.
    check(d, "cuLaunchKernelEx", unsafe { d.launch_kernel_ex(&config, f, params, std::ptr::null_mut()) })
}
