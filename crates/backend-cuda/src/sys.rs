//! Raw declarations of the CUDA driver API subset ferrocm uses: types, constants and the symbol
//! table. No logic lives here. Every symbol is named by its explicit versioned export (`_v2`
//! where the driver has one) and resolved on first use, so a driver that lacks one symbol still
//! serves all the others.

#![allow(non_camel_case_types, clippy::upper_case_acronyms)]

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

pub type CUresult = c_int;
pub type CUdevice = c_int;
pub type CUdeviceptr = u64;
pub type CUcontext = *mut c_void;
pub type CUmodule = *mut c_void;
pub type CUfunction = *mut c_void;
pub type CUstream = *mut c_void;
pub type CUevent = *mut c_void;
pub type CUhostFn = unsafe extern "C" fn(user_data: *mut c_void);
pub type CUmemGenericAllocationHandle = u64;
pub type CUgraph = *mut c_void;
pub type CUgraphExec = *mut c_void;
pub type CUgraphNode = *mut c_void;

pub const CUDA_SUCCESS: CUresult = 0;
pub const CUDA_ERROR_OUT_OF_MEMORY: CUresult = 2;
pub const CUDA_ERROR_NOT_FOUND: CUresult = 500;
pub const CUDA_ERROR_NOT_READY: CUresult = 600;
pub const CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: CUresult = 704;

pub const CU_STREAM_NON_BLOCKING: c_uint = 0x1;
pub const CU_EVENT_BLOCKING_SYNC: c_uint = 0x1;
pub const CU_EVENT_DISABLE_TIMING: c_uint = 0x2;
pub const CU_MEM_ATTACH_GLOBAL: c_uint = 0x1;
pub const CU_MEMHOSTALLOC_PORTABLE: c_uint = 0x1;

pub const CU_JIT_INFO_LOG_BUFFER: c_int = 3;
pub const CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: c_int = 4;
pub const CU_JIT_ERROR_LOG_BUFFER: c_int = 5;
pub const CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: c_int = 6;

pub const CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: c_int = 0;
pub const CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: c_int = 1;
pub const CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: c_int = 3;
pub const CU_FUNC_ATTRIBUTE_NUM_REGS: c_int = 4;
pub const CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: c_int = 8;
pub const CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: c_int = 14;

/// Special stream handles: the legacy default stream and the per-thread default stream.
pub const CU_STREAM_LEGACY: usize = 0x1;
pub const CU_STREAM_PER_THREAD: usize = 0x2;

pub const CU_LAUNCH_ATTRIBUTE_COOPERATIVE: c_uint = 2;
pub const CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: c_uint = 4;

/// `CUlaunchAttribute`: an id, padding to 8 bytes, and a 64-byte value union (8-byte aligned).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUlaunchAttribute {
    pub id: c_uint,
    pub pad: [u8; 4],
    pub value: [u64; 8],
}

/// `CUlaunchConfig` (`cuLaunchKernelEx`).
#[repr(C)]
pub struct CUlaunchConfig {
    pub grid_dim_x: c_uint,
    pub grid_dim_y: c_uint,
    pub grid_dim_z: c_uint,
    pub block_dim_x: c_uint,
    pub block_dim_y: c_uint,
    pub block_dim_z: c_uint,
    pub shared_mem_bytes: c_uint,
    pub h_stream: CUstream,
    pub attrs: *mut CUlaunchAttribute,
    pub num_attrs: c_uint,
}

pub const CU_MEM_ALLOCATION_TYPE_PINNED: c_uint = 0x1;
pub const CU_MEM_LOCATION_TYPE_DEVICE: c_int = 0x1;
pub const CU_MEM_HANDLE_TYPE_NONE: c_uint = 0x0;
pub const CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR: c_uint = 0x1;
pub const CU_MEM_ACCESS_FLAGS_PROT_READWRITE: c_uint = 0x3;
pub const CU_MEM_ALLOC_GRANULARITY_MINIMUM: c_uint = 0x0;

/// `CUstreamWaitValue_flags`: the comparison of `cuStreamWaitValue32/64`.
pub const CU_STREAM_WAIT_VALUE_GEQ: c_uint = 0x0;
pub const CU_STREAM_WAIT_VALUE_EQ: c_uint = 0x1;
pub const CU_STREAM_WAIT_VALUE_AND: c_uint = 0x2;
pub const CU_STREAM_WAIT_VALUE_NOR: c_uint = 0x3;
/// `CU_STREAM_WRITE_VALUE_DEFAULT`: the write is ordered after the stream's earlier writes.
pub const CU_STREAM_WRITE_VALUE_DEFAULT: c_uint = 0x0;

pub const CU_STREAM_CAPTURE_MODE_RELAXED: c_uint = 2;
pub const CU_STREAM_CAPTURE_STATUS_ACTIVE: c_int = 1;

/// `CUmemLocation`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUmemLocation {
    pub type_: c_int,
    pub id: c_int,
}

/// `CUmemAllocationProp` (32 bytes): the allocation flags are four bytes of compression type,
/// RDMA capability and usage, then four reserved bytes; all zero here.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUmemAllocationProp {
    pub type_: c_uint,
    pub requested_handle_types: c_uint,
    pub location: CUmemLocation,
    pub win32_handle_meta_data: *mut c_void,
    pub alloc_flags: [u8; 8],
}

/// `CUmemAccessDesc`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUmemAccessDesc {
    pub location: CUmemLocation,
    pub flags: c_uint,
}

/// `CUDA_KERNEL_NODE_PARAMS_v2` (72 bytes); its first 56 bytes are the v1 structure.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CUDA_KERNEL_NODE_PARAMS {
    pub func: CUfunction,
    pub grid_dim_x: c_uint,
    pub grid_dim_y: c_uint,
    pub grid_dim_z: c_uint,
    pub block_dim_x: c_uint,
    pub block_dim_y: c_uint,
    pub block_dim_z: c_uint,
    pub shared_mem_bytes: c_uint,
    pub kernel_params: *mut *mut c_void,
    pub extra: *mut *mut c_void,
    pub kern: *mut c_void,
    pub ctx: CUcontext,
}

/// `CUdevice_attribute` values used for [`ferrocm_backend::DeviceProperties`].
pub mod attr {
    use std::ffi::c_int;
    pub const MAX_THREADS_PER_BLOCK: c_int = 1;
    pub const MAX_BLOCK_DIM_X: c_int = 2;
    pub const MAX_BLOCK_DIM_Y: c_int = 3;
    pub const MAX_BLOCK_DIM_Z: c_int = 4;
    pub const MAX_GRID_DIM_X: c_int = 5;
    pub const MAX_GRID_DIM_Y: c_int = 6;
    pub const MAX_GRID_DIM_Z: c_int = 7;
    pub const MAX_SHARED_MEMORY_PER_BLOCK: c_int = 8;
    pub const WARP_SIZE: c_int = 10;
    pub const MAX_REGISTERS_PER_BLOCK: c_int = 12;
    pub const CLOCK_RATE: c_int = 13;
    pub const MULTIPROCESSOR_COUNT: c_int = 16;
    pub const CONCURRENT_KERNELS: c_int = 31;
    pub const MEMORY_CLOCK_RATE: c_int = 36;
    pub const GLOBAL_MEMORY_BUS_WIDTH: c_int = 37;
    pub const L2_CACHE_SIZE: c_int = 38;
    pub const MAX_THREADS_PER_MULTIPROCESSOR: c_int = 39;
    pub const ASYNC_ENGINE_COUNT: c_int = 40;
    pub const COMPUTE_CAPABILITY_MAJOR: c_int = 75;
    pub const COMPUTE_CAPABILITY_MINOR: c_int = 76;
    pub const MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: c_int = 81;
    pub const MAX_REGISTERS_PER_MULTIPROCESSOR: c_int = 82;
    pub const MANAGED_MEMORY: c_int = 83;
    pub const COOPERATIVE_LAUNCH: c_int = 95;
    pub const MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: c_int = 97;
    pub const MAX_BLOCKS_PER_MULTIPROCESSOR: c_int = 106;
    pub const CLUSTER_LAUNCH: c_int = 120;
    pub const VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: c_int = 102;
    pub const HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: c_int = 103;
    /// `cuStreamWaitValue64_v2`/`cuStreamWriteValue64_v2` are supported (the v2 memop
    /// attribute; 93 is the deprecated v1 one).
    pub const CAN_USE_64_BIT_STREAM_MEM_OPS: c_int = 122;
    /// `CU_STREAM_WAIT_VALUE_NOR` is supported by the v2 memop calls.
    pub const CAN_USE_STREAM_WAIT_VALUE_NOR: c_int = 123;
}

/// The library names tried, in order.
pub const LIBRARY_NAMES: &[&str] = &["libcuda.so.1", "libcuda.so"];

macro_rules! driver_api {
    ($( $name:ident = $symbol:literal ( $($arg:ident : $ty:ty),* ); )*) => {
        /// The driver library and its lazily resolved symbols.
        pub struct Driver {
            pub library: libloading::Library,
            pub path: String,
            $( $name: OnceLock<Option<unsafe extern "C" fn($($ty),*) -> CUresult>>, )*
        }

        impl Driver {
            pub fn new(library: libloading::Library, path: String) -> Driver {
                Driver { library, path, $( $name: OnceLock::new(), )* }
            }

            /// Opens the first of [`LIBRARY_NAMES`] that loads; the error lists every attempt.
            pub fn open() -> Result<Driver, String> {
                let mut reasons = Vec::new();
                for name in LIBRARY_NAMES {
                    // SAFETY: loading the CUDA driver runs its initialisers, which have no
                    // preconditions.
                    match unsafe { libloading::Library::new(name) } {
                        Ok(lib) => return Ok(Driver::new(lib, name.to_string())),
                        Err(e) => reasons.push(e.to_string()),
                    }
                }
                Err(reasons.join("; "))
            }

            $(
                /// Calls the driver's
                #[doc = concat!("`", $symbol, "`.")]
                /// Returns `Err(symbol name)` when the driver does not export it.
                ///
                /// # Safety
                /// The arguments must satisfy the driver API's contract for this call.
                #[allow(clippy::too_many_arguments)]
                pub unsafe fn $name(&self, $($arg: $ty),*) -> Result<CUresult, &'static str> {
                    let f = self.$name.get_or_init(|| {
                        // SAFETY: the symbol is looked up with the exact C signature the CUDA
                        // driver API documents for this versioned name.
                        unsafe {
                            self.library
                                .get::<unsafe extern "C" fn($($ty),*) -> CUresult>(concat!($symbol, "\0").as_bytes())
                                .ok()
                                .map(|s| *s)
                        }
                    });
                    match f {
                        Some(f) => Ok(unsafe { f($($arg),*) }),
                        None => Err($symbol),
                    }
                }
            )*
        }
    };
}

driver_api! {
    init = "cuInit"(flags: c_uint);
    driver_get_version = "cuDriverGetVersion"(version: *mut c_int);
    get_error_name = "cuGetErrorName"(error: CUresult, name: *mut *const c_char);
    get_error_string = "cuGetErrorString"(error: CUresult, text: *mut *const c_char);
    device_get_count = "cuDeviceGetCount"(count: *mut c_int);
    device_get = "cuDeviceGet"(device: *mut CUdevice, ordinal: c_int);
    device_get_name = "cuDeviceGetName"(name: *mut c_char, len: c_int, device: CUdevice);
    device_get_attribute = "cuDeviceGetAttribute"(value: *mut c_int, attribute: c_int, device: CUdevice);
    device_total_mem = "cuDeviceTotalMem_v2"(bytes: *mut usize, device: CUdevice);
    device_get_uuid = "cuDeviceGetUuid_v2"(uuid: *mut [u8; 16], device: CUdevice);
    device_get_pci_bus_id = "cuDeviceGetPCIBusId"(id: *mut c_char, len: c_int, device: CUdevice);
    device_can_access_peer = "cuDeviceCanAccessPeer"(can: *mut c_int, device: CUdevice, peer: CUdevice);
    primary_ctx_retain = "cuDevicePrimaryCtxRetain"(ctx: *mut CUcontext, device: CUdevice);
    primary_ctx_release = "cuDevicePrimaryCtxRelease_v2"(device: CUdevice);
    ctx_set_current = "cuCtxSetCurrent"(ctx: CUcontext);
    ctx_synchronize = "cuCtxSynchronize"();
    ctx_enable_peer_access = "cuCtxEnablePeerAccess"(peer: CUcontext, flags: c_uint);
    mem_get_info = "cuMemGetInfo_v2"(free: *mut usize, total: *mut usize);
    mem_alloc = "cuMemAlloc_v2"(ptr: *mut CUdeviceptr, bytes: usize);
    mem_alloc_managed = "cuMemAllocManaged"(ptr: *mut CUdeviceptr, bytes: usize, flags: c_uint);
    mem_free = "cuMemFree_v2"(ptr: CUdeviceptr);
    mem_host_alloc = "cuMemHostAlloc"(ptr: *mut *mut c_void, bytes: usize, flags: c_uint);
    mem_free_host = "cuMemFreeHost"(ptr: *mut c_void);
    memset_d8_async = "cuMemsetD8Async"(dst: CUdeviceptr, value: u8, count: usize, stream: CUstream);
    memcpy_htod_async = "cuMemcpyHtoDAsync_v2"(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: CUstream);
    memcpy_dtoh_async = "cuMemcpyDtoHAsync_v2"(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: CUstream);
    memcpy_dtod_async = "cuMemcpyDtoDAsync_v2"(dst: CUdeviceptr, src: CUdeviceptr, bytes: usize, stream: CUstream);
    memcpy_peer_async = "cuMemcpyPeerAsync"(dst: CUdeviceptr, dst_ctx: CUcontext, src: CUdeviceptr, src_ctx: CUcontext, bytes: usize, stream: CUstream);
    stream_create = "cuStreamCreateWithPriority"(stream: *mut CUstream, flags: c_uint, priority: c_int);
    stream_destroy = "cuStreamDestroy_v2"(stream: CUstream);
    stream_synchronize = "cuStreamSynchronize"(stream: CUstream);
    stream_query = "cuStreamQuery"(stream: CUstream);
    stream_wait_event = "cuStreamWaitEvent"(stream: CUstream, event: CUevent, flags: c_uint);
    stream_wait_value32 = "cuStreamWaitValue32_v2"(stream: CUstream, addr: CUdeviceptr, value: u32, flags: c_uint);
    stream_wait_value64 = "cuStreamWaitValue64_v2"(stream: CUstream, addr: CUdeviceptr, value: u64, flags: c_uint);
    stream_write_value32 = "cuStreamWriteValue32_v2"(stream: CUstream, addr: CUdeviceptr, value: u32, flags: c_uint);
    stream_write_value64 = "cuStreamWriteValue64_v2"(stream: CUstream, addr: CUdeviceptr, value: u64, flags: c_uint);
    launch_host_func = "cuLaunchHostFunc"(stream: CUstream, f: CUhostFn, user_data: *mut c_void);
    event_create = "cuEventCreate"(event: *mut CUevent, flags: c_uint);
    event_destroy = "cuEventDestroy_v2"(event: CUevent);
    event_record = "cuEventRecord"(event: CUevent, stream: CUstream);
    event_synchronize = "cuEventSynchronize"(event: CUevent);
    event_query = "cuEventQuery"(event: CUevent);
    event_elapsed_time = "cuEventElapsedTime"(ms: *mut f32, start: CUevent, end: CUevent);
    module_load_data_ex = "cuModuleLoadDataEx"(module: *mut CUmodule, image: *const c_void, n: c_uint, options: *mut c_int, values: *mut *mut c_void);
    module_unload = "cuModuleUnload"(module: CUmodule);
    module_get_function = "cuModuleGetFunction"(f: *mut CUfunction, module: CUmodule, name: *const c_char);
    module_get_global = "cuModuleGetGlobal_v2"(dptr: *mut CUdeviceptr, bytes: *mut usize, module: CUmodule, name: *const c_char);
    func_get_attribute = "cuFuncGetAttribute"(value: *mut c_int, attribute: c_int, f: CUfunction);
    func_set_attribute = "cuFuncSetAttribute"(f: CUfunction, attribute: c_int, value: c_int);
    tensor_map_encode_tiled = "cuTensorMapEncodeTiled"(map: *mut [u8; 128], data_type: c_uint, rank: c_uint, address: *mut c_void, dims: *const u64, strides: *const u64, box_dims: *const u32, element_strides: *const u32, interleave: c_uint, swizzle: c_uint, l2_promotion: c_uint, oob_fill: c_uint);
    launch_kernel_ex = "cuLaunchKernelEx"(config: *const CUlaunchConfig, f: CUfunction, params: *mut *mut c_void, extra: *mut *mut c_void);
    occupancy_max_active_blocks = "cuOccupancyMaxActiveBlocksPerMultiprocessor"(blocks: *mut c_int, f: CUfunction, block_size: c_int, dynamic_shared: usize);
    mem_get_allocation_granularity = "cuMemGetAllocationGranularity"(granularity: *mut usize, prop: *const CUmemAllocationProp, option: c_uint);
    mem_create = "cuMemCreate"(handle: *mut CUmemGenericAllocationHandle, bytes: usize, prop: *const CUmemAllocationProp, flags: u64);
    mem_release = "cuMemRelease"(handle: CUmemGenericAllocationHandle);
    mem_address_reserve = "cuMemAddressReserve"(ptr: *mut CUdeviceptr, bytes: usize, alignment: usize, addr: CUdeviceptr, flags: u64);
    mem_address_free = "cuMemAddressFree"(ptr: CUdeviceptr, bytes: usize);
    mem_map = "cuMemMap"(ptr: CUdeviceptr, bytes: usize, offset: usize, handle: CUmemGenericAllocationHandle, flags: u64);
    mem_unmap = "cuMemUnmap"(ptr: CUdeviceptr, bytes: usize);
    mem_set_access = "cuMemSetAccess"(ptr: CUdeviceptr, bytes: usize, desc: *const CUmemAccessDesc, count: usize);
    mem_export_to_shareable_handle = "cuMemExportToShareableHandle"(shareable: *mut c_void, handle: CUmemGenericAllocationHandle, handle_type: c_uint, flags: u64);
    mem_import_from_shareable_handle = "cuMemImportFromShareableHandle"(handle: *mut CUmemGenericAllocationHandle, os_handle: *mut c_void, handle_type: c_uint);
    stream_begin_capture = "cuStreamBeginCapture_v2"(stream: CUstream, mode: c_uint);
    stream_end_capture = "cuStreamEndCapture"(stream: CUstream, graph: *mut CUgraph);
    stream_get_capture_info = "cuStreamGetCaptureInfo_v2"(stream: CUstream, status: *mut c_int, id: *mut u64, graph: *mut CUgraph, dependencies: *mut *const CUgraphNode, count: *mut usize);
    stream_get_capture_info_v3 = "cuStreamGetCaptureInfo_v3"(stream: CUstream, status: *mut c_int, id: *mut u64, graph: *mut CUgraph, dependencies: *mut *const CUgraphNode, edge_data: *mut *const c_void, count: *mut usize);
    graph_destroy = "cuGraphDestroy"(graph: CUgraph);
    graph_instantiate = "cuGraphInstantiateWithFlags"(exec: *mut CUgraphExec, graph: CUgraph, flags: u64);
    graph_exec_destroy = "cuGraphExecDestroy"(exec: CUgraphExec);
    graph_launch = "cuGraphLaunch"(exec: CUgraphExec, stream: CUstream);
    graph_exec_kernel_node_set_params = "cuGraphExecKernelNodeSetParams_v2"(exec: CUgraphExec, node: CUgraphNode, params: *const CUDA_KERNEL_NODE_PARAMS);
    graph_exec_kernel_node_set_params_v1 = "cuGraphExecKernelNodeSetParams"(exec: CUgraphExec, node: CUgraphNode, params: *const CUDA_KERNEL_NODE_PARAMS);
    launch_kernel = "cuLaunchKernel"(f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void);
}
