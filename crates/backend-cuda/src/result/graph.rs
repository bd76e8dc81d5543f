//! Stream capture and graphs: capture, instantiate, launch, and kernel-node updates.

use std::ffi::c_void;

use ferrocm_backend::{BackendError, LaunchDims, Result};

use super::check;
use crate::sys::*;

/// `cuStreamBeginCapture_v2` in relaxed mode: the capture does not forbid other threads' (or
/// this thread's) unrelated driver calls; the runtime refuses what must not reach a capturing
/// stream.
///
/// # Safety
/// A live stream that is not capturing.
pub unsafe fn begin_capture(d: &Driver, s: CUstream) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuStreamBeginCapture_v2", unsafe { d.stream_begin_capture(s, CU_STREAM_CAPTURE_MODE_RELAXED) })
}

/// `cuStreamEndCapture`.
///
/// # Safety
/// A live stream that is capturing.
pub unsafe fn end_capture(d: &Driver, s: CUstream) -> Result<CUgraph> {
    let mut g: CUgraph = std::ptr::null_mut();
    // SAFETY: live out-pointer; the stream is the caller's promise.
    check(d, "cuStreamEndCapture", unsafe { d.stream_end_capture(s, &mut g) })?;
    Ok(g)
}

/// The nodes the next operation captured on `s` would depend on (`cuStreamGetCaptureInfo_v2`,
/// or `_v3` where the driver has only that).
///
/// # Safety
/// A live stream that is capturing.
pub unsafe fn capture_dependencies(d: &Driver, s: CUstream) -> Result<Vec<CUgraphNode>> {
    let mut status = 0;
    let mut deps: *const CUgraphNode = std::ptr::null();
    let mut n = 0usize;
    let (no_id, no_graph) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: live out-pointers; id, graph and edge data are not asked for.
    let r = unsafe { d.stream_get_capture_info(s, &mut status, no_id, no_graph, &mut deps, &mut n) };
    let (call, r) = match r {
        Err(_) => (
            "cuStreamGetCaptureInfo_v3",
            // SAFETY: as above.
            unsafe {
                d.stream_get_capture_info_v3(
                    s,
                    &mut status,
                    no_id,
                    no_graph,
                    &mut deps,
                    std::ptr::null_mut(),
                    &mut n,
                )
            },
        ),
        r => ("cuStreamGetCaptureInfo_v2", r),
    };
    check(d, call, r)?;
    if status != CU_STREAM_CAPTURE_STATUS_ACTIVE {
        return Err(BackendError::InvalidValue {
            call,
            message: format!("the stream is not capturing (status {status})"),
        });
    }
    if n == 0 || deps.is_null() {
        return Ok(Vec::new());
    }
    // SAFETY: the driver returned `n` nodes at `deps`, valid until the next call on the stream.
    Ok(unsafe { std::slice::from_raw_parts(deps, n) }.to_vec())
}

/// `cuGraphDestroy`.
///
/// # Safety
/// A live graph, destroyed once.
pub unsafe fn destroy(d: &Driver, g: CUgraph) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuGraphDestroy", unsafe { d.graph_destroy(g) })
}

/// `cuGraphInstantiateWithFlags` with no flags.
///
/// # Safety
/// A live graph.
pub unsafe fn instantiate(d: &Driver, g: CUgraph) -> Result<CUgraphExec> {
    let mut e: CUgraphExec = std::ptr::null_mut();
    // SAFETY: live out-pointer; the graph is the caller's promise.
    check(d, "cuGraphInstantiateWithFlags", unsafe { d.graph_instantiate(&mut e, g, 0) })?;
    Ok(e)
}

/// `cuGraphExecDestroy`.
///
/// # Safety
/// A live instantiated graph, destroyed once.
pub unsafe fn exec_destroy(d: &Driver, e: CUgraphExec) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuGraphExecDestroy", unsafe { d.graph_exec_destroy(e) })
}

/// `cuGraphLaunch`.
///
/// # Safety
/// A live instantiated graph and stream; every address the graph uses stays valid until the
/// launch completes.
pub unsafe fn launch(d: &Driver, e: CUgraphExec, s: CUstream) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check(d, "cuGraphLaunch", unsafe { d.graph_launch(e, s) })
}

/// `cuGraphExecKernelNodeSetParams_v2` (or the v1 call, which reads the same leading fields).
///
/// # Safety
/// A live instantiated graph; `node` a kernel node of its graph launching `f`; `params` points
/// at one pointer per kernel parameter (copied before the call returns).
pub unsafe fn exec_kernel_node_set_params(
    d: &Driver,
    e: CUgraphExec,
    node: CUgraphNode,
    f: CUfunction,
    dims: &LaunchDims,
    params: *mut *mut c_void,
) -> Result<()> {
    let p = CUDA_KERNEL_NODE_PARAMS {
        func: f,
        grid_dim_x: dims.grid.x,
        grid_dim_y: dims.grid.y,
        grid_dim_z: dims.grid.z,
        block_dim_x: dims.block.x,
        block_dim_y: dims.block.y,
        block_dim_z: dims.block.z,
        shared_mem_bytes: dims.shared_mem_bytes,
        kernel_params: params,
        extra: std::ptr::null_mut(),
        kern: std::ptr::null_mut(),
        ctx: std::ptr::null_mut(),
    };
    // SAFETY: `p` outlives the call; the rest is forwarded from the caller.
    match unsafe { d.graph_exec_kernel_node_set_params(e, node, &p) } {
        Err(_) => check(d, "cuGraphExecKernelNodeSetParams", unsafe {
            // SAFETY: as above; v1 reads the leading 56 bytes, which are its own layout.
            d.graph_exec_kernel_node_set_params_v1(e, node, &p)
        }),
        r => check(d, "cuGraphExecKernelNodeSetParams_v2", r),
    }
}
