//! ferrocm's NVIDIA backend, through the CUDA driver API alone.
//!
//! `libcuda.so.1` is opened at run time with `libloading`; nothing links against CUDA at build
//! time, so the workspace builds and tests on machines without a GPU. The code is in three
//! layers (after cudarc): [`sys`] declares the raw API and resolves each versioned symbol on
//! first use; [`result`] wraps each driver call in a function returning `Result` whose error
//! carries the driver's error name and string, grouped by topic (`result::memory::alloc`,
//! `result::stream::create`, ...); [`CudaBackend`] implements the backend trait on top.
//!
//! Each device is driven through its primary context (as the CUDA runtime and HIP do), retained
//! on first use. Handles carry the device ordinal in their top 16 bits and the driver's pointer
//! in the low 48 (user-space addresses on the supported 64-bit hosts fit), so hot paths such as
//! launch need no table look-up. The legacy and per-thread default streams are the driver's
//! special handles (`CU_STREAM_LEGACY`, `CU_STREAM_PER_THREAD`) packed the same way.

pub mod result;
pub mod sys;

use std::cell::Cell;
use std::ffi::c_void;
use std::sync::OnceLock;

use ferrocm_backend::tensor_map::{TensorMapDesc, TENSOR_MAP_BYTES};
use ferrocm_backend::{
    Backend, BackendError, BackendInfo, BackendKind, CopyOp, DefaultStream, DeviceProperties, DevicePtr,
    EventFlags, EventHandle, FunctionAttribute, FunctionAttributes, FunctionHandle, GraphExecHandle,
    GraphHandle, GraphNodeHandle, HostCallback, LaunchDims, MemCreateFlags, MemHandle, ModuleHandle,
    ModuleImage, Result, StreamFlags, StreamHandle, StreamWord, VmmProperties, WaitCondition,
};
use sys::*;

const PTR_BITS: u32 = 48;
const PTR_MASK: u64 = (1 << PTR_BITS) - 1;

fn pack(device: u32, ptr: *mut c_void) -> u64 {
    debug_assert_eq!(ptr as u64 & !PTR_MASK, 0, "driver handle above 2^48");
    ((device as u64) << PTR_BITS) | (ptr as u64 & PTR_MASK)
}

fn unpack(handle: u64) -> (u32, *mut c_void) {
    ((handle >> PTR_BITS) as u32, (handle & PTR_MASK) as *mut c_void)
}

thread_local! {
    /// The context this thread last made current, so repeated calls skip `cuCtxSetCurrent`.
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

/// NVIDIA GPUs through `libcuda.so.1`.
pub struct CudaBackend {
    driver: Driver,
    version: i32,
    devices: Vec<CUdevice>,
    contexts: Vec<OnceLock<usize>>,
    /// Per device, once asked: (64-bit stream memory operations, the NOR wait) supported.
    memops: Vec<OnceLock<(bool, bool)>>,
}

// SAFETY: the driver API is thread-safe; the backend holds only the library handle, immutable
// device ordinals and primary contexts that are set once.
unsafe impl Send for CudaBackend {}
unsafe impl Sync for CudaBackend {}

impl CudaBackend {
    /// Opens the driver library, initialises it and counts the devices. A missing library, a
    /// missing symbol or a failing driver is an `Err` that says which.
    pub fn load() -> Result<CudaBackend> {
        let driver = Driver::open()
            .map_err(|reason| BackendError::Unavailable { backend: BackendKind::Cuda, reason })?;
        result::init(&driver)?;
        let version = result::driver_version(&driver)?;
        let count = result::device::count(&driver)?;
        let devices = (0..count).map(|i| result::device::get(&driver, i)).collect::<Result<Vec<_>>>()?;
        let contexts = devices.iter().map(|_| OnceLock::new()).collect();
        let memops = devices.iter().map(|_| OnceLock::new()).collect();
        Ok(CudaBackend { driver, version, devices, contexts, memops })
    }

    /// The driver library, for callers that use the [`result`] layer directly (the CLI's
    /// raw-driver baselines).
    pub fn driver(&self) -> &Driver {
        &self.driver
    }

    fn device(&self, device: u32) -> Result<CUdevice> {
        self.devices
            .get(device as usize)
            .copied()
            .ok_or(BackendError::InvalidDevice { device, count: self.devices.len() as u32 })
    }

    /// Makes `device`'s primary context current on this thread.
    fn bind(&self, device: u32) -> Result<CUcontext> {
        let dev = self.device(device)?;
        let slot = &self.contexts[device as usize];
        let ctx = match slot.get() {
            Some(&c) => c,
            None => {
                let c = result::context::primary_retain(&self.driver, dev)?;
                if slot.set(c as usize).is_err() {
                    // Another thread retained it first: give back our extra reference.
                    // SAFETY: we hold one reference from the retain above.
                    let _ = unsafe { result::context::primary_release(&self.driver, dev) };
                }
                *slot.get().expect("set above")
            }
        };
        if CURRENT.get() != ctx {
            // SAFETY: `ctx` is a retained primary context.
            unsafe { result::context::set_current(&self.driver, ctx as CUcontext)? };
            CURRENT.set(ctx);
        }
        Ok(ctx as CUcontext)
    }

    fn attribute(&self, device: u32, attribute: std::ffi::c_int) -> Result<i32> {
        result::device::attribute(&self.driver, self.device(device)?, attribute)
    }

    fn stream_ptr(&self, stream: StreamHandle) -> Result<CUstream> {
        let (device, ptr) = unpack(stream.0);
        self.bind(device)?;
        Ok(ptr)
    }

    /// The stream of a stream memory operation, after checking that its device supports the
    /// operation's width and condition (the attributes are asked once per device).
    fn memop_stream(&self, stream: StreamHandle, value: StreamWord, nor: bool) -> Result<CUstream> {
        let (device, ptr) = unpack(stream.0);
        let slot = &self.memops[device as usize];
        let (wide, has_nor) = match slot.get() {
            Some(&v) => v,
            None => {
                let wide = self.attribute(device, attr::CAN_USE_64_BIT_STREAM_MEM_OPS)? != 0;
                let has_nor = self.attribute(device, attr::CAN_USE_STREAM_WAIT_VALUE_NOR)? != 0;
                *slot.get_or_init(|| (wide, has_nor))
            }
        };
        if matches!(value, StreamWord::U64(_)) && !wide {
            return Err(BackendError::Unsupported {
                backend: BackendKind::Cuda,
                what: "64-bit stream memory operations on this device (CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS is 0); use 32-bit words",
            });
        }
        if nor && !has_nor {
            return Err(BackendError::Unsupported {
                backend: BackendKind::Cuda,
                what: "the NOR stream wait on this device (CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR is 0)",
            });
        }
        self.bind(device)?;
        Ok(ptr)
    }

    fn event_ptr(&self, event: EventHandle) -> Result<CUevent> {
        let (device, e) = unpack(event.0);
        self.bind(device)?;
        Ok(e)
    }

    /// Maps the driver's out-of-memory code to [`BackendError::OutOfMemory`] with the free bytes.
    fn oom(&self, device: u32, bytes: u64, r: Result<CUdeviceptr>) -> Result<DevicePtr> {
        match r {
            Err(BackendError::Driver { code: CUDA_ERROR_OUT_OF_MEMORY, .. }) => {
                let free = result::memory::get_info(&self.driver).map(|(f, _)| f).unwrap_or(0);
                Err(BackendError::OutOfMemory { device, requested: bytes, free })
            }
            r => r.map(DevicePtr),
        }
    }
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        for (i, ctx) in self.contexts.iter().enumerate() {
            if ctx.get().is_some() {
                // SAFETY: we hold exactly one reference to each retained primary context.
                let _ = unsafe { result::context::primary_release(&self.driver, self.devices[i]) };
            }
        }
    }
}

unsafe extern "C" fn host_callback_trampoline(data: *mut c_void) {
    // SAFETY: `data` is the `Box<HostCallback>` leaked by `stream_add_callback`, passed exactly once.
    let callback = unsafe { Box::from_raw(data as *mut HostCallback) };
    // A panic must not unwind into the driver.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(callback));
}

/// Calls `f` with the array of pointers to each parameter's bytes that `cuLaunchKernel` and
/// kernel-node updates take (the driver copies the values before returning).
fn with_params<R>(args: &[&[u8]], f: impl FnOnce(*mut *mut c_void) -> R) -> R {
    const INLINE: usize = 32;
    let mut inline = [std::ptr::null_mut::<c_void>(); INLINE];
    let mut heap = Vec::new();
    let params: &mut [*mut c_void] = if args.len() <= INLINE {
        &mut inline[..args.len()]
    } else {
        heap.resize(args.len(), std::ptr::null_mut());
        &mut heap
    };
    for (slot, arg) in params.iter_mut().zip(args) {
        *slot = arg.as_ptr() as *mut c_void;
    }
    f(params.as_mut_ptr())
}

fn as_usize(bytes: u64) -> usize {
    // Every supported host is 64-bit, so this never truncates.
    bytes as usize
}

impl Backend for CudaBackend {
    fn info(&self) -> BackendInfo {
        BackendInfo {
            name: "cuda".into(),
            driver_version: self.version as u32,
            library: Some(self.driver.path.clone()),
        }
    }

    fn kind(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn device_count(&self) -> u32 {
        self.devices.len() as u32
    }

    fn device_properties(&self, device: u32) -> Result<DeviceProperties> {
        let dev = self.device(device)?;
        let d = &self.driver;
        let a = |attr| self.attribute(device, attr).map(|v| v.max(0) as u32);
        let u: String = result::device::uuid(d, dev)?.iter().map(|b| format!("{b:02x}")).collect();
        let (major, minor) = (a(attr::COMPUTE_CAPABILITY_MAJOR)?, a(attr::COMPUTE_CAPABILITY_MINOR)?);
        Ok(DeviceProperties {
            name: result::device::name(d, dev)?,
            arch: format!("sm_{major}{minor}"),
            compute_capability: (major, minor),
            compute_units: a(attr::MULTIPROCESSOR_COUNT)?,
            warp_size: a(attr::WARP_SIZE)?,
            max_threads_per_block: a(attr::MAX_THREADS_PER_BLOCK)?,
            max_block_dim: [a(attr::MAX_BLOCK_DIM_X)?, a(attr::MAX_BLOCK_DIM_Y)?, a(attr::MAX_BLOCK_DIM_Z)?],
            max_grid_dim: [a(attr::MAX_GRID_DIM_X)?, a(attr::MAX_GRID_DIM_Y)?, a(attr::MAX_GRID_DIM_Z)?],
            shared_mem_per_block: a(attr::MAX_SHARED_MEMORY_PER_BLOCK)? as u64,
            shared_mem_per_block_optin: a(attr::MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)? as u64,
            shared_mem_per_cu: a(attr::MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)? as u64,
            registers_per_block: a(attr::MAX_REGISTERS_PER_BLOCK)?,
            registers_per_cu: a(attr::MAX_REGISTERS_PER_MULTIPROCESSOR)?,
            max_threads_per_cu: a(attr::MAX_THREADS_PER_MULTIPROCESSOR)?,
            clock_khz: a(attr::CLOCK_RATE)?,
            memory_clock_khz: a(attr::MEMORY_CLOCK_RATE)?,
            memory_bus_width: a(attr::GLOBAL_MEMORY_BUS_WIDTH)?,
            l2_cache_bytes: a(attr::L2_CACHE_SIZE)? as u64,
            total_memory: result::device::total_mem(d, dev)?,
            pci_bus_id: result::device::pci_bus_id(d, dev)?.to_lowercase(),
            uuid: format!("GPU-{}-{}-{}-{}-{}", &u[0..8], &u[8..12], &u[12..16], &u[16..20], &u[20..32]),
            managed_memory: a(attr::MANAGED_MEMORY)? != 0,
            concurrent_kernels: a(attr::CONCURRENT_KERNELS)? != 0,
            async_engines: a(attr::ASYNC_ENGINE_COUNT)?,
            target: ferrocm_backend::Target::nvidia((major, minor), self.version as u32),
        })
    }

    fn mem_info(&self, device: u32) -> Result<(u64, u64)> {
        self.bind(device)?;
        result::memory::get_info(&self.driver)
    }

    fn device_synchronize(&self, device: u32) -> Result<()> {
        self.bind(device)?;
        result::context::synchronize(&self.driver)
    }

    fn alloc(&self, device: u32, bytes: u64) -> Result<DevicePtr> {
        self.bind(device)?;
        self.oom(device, bytes, result::memory::alloc(&self.driver, as_usize(bytes)))
    }

    fn alloc_managed(&self, device: u32, bytes: u64) -> Result<DevicePtr> {
        self.bind(device)?;
        self.oom(device, bytes, result::memory::alloc_managed(&self.driver, as_usize(bytes)))
    }

    unsafe fn free(&self, device: u32, ptr: DevicePtr) -> Result<()> {
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::memory::free(&self.driver, ptr.0) }
    }

    fn alloc_host(&self, device: u32, bytes: u64) -> Result<*mut u8> {
        // The named device's context makes the allocation: it is visible to the user, so no
        // context is created on a GPU hidden by FERROCM_VISIBLE_DEVICES.
        self.bind(device)?;
        match result::memory::host_alloc(&self.driver, as_usize(bytes)) {
            Err(BackendError::Driver { code: CUDA_ERROR_OUT_OF_MEMORY, .. }) => {
                Err(BackendError::OutOfMemory { device, requested: bytes, free: 0 })
            }
            Ok(p) => {
                // SAFETY: a fresh host allocation of `bytes` bytes; the trait promises zeroed memory.
                unsafe { std::ptr::write_bytes(p, 0, as_usize(bytes)) };
                Ok(p)
            }
            r => r,
        }
    }

    unsafe fn free_host(&self, device: u32, ptr: *mut u8) -> Result<()> {
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::memory::free_host(&self.driver, ptr) }
    }

    unsafe fn memset_async(&self, stream: StreamHandle, dst: DevicePtr, value: u8, bytes: u64) -> Result<()> {
        let s = self.stream_ptr(stream)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::memory::memset_d8_async(&self.driver, dst.0, value, as_usize(bytes), s) }
    }

    unsafe fn copy_async(&self, stream: StreamHandle, copy: CopyOp, bytes: u64) -> Result<()> {
        let s = self.stream_ptr(stream)?;
        let (d, n) = (&self.driver, as_usize(bytes));
        // SAFETY: forwarded from the caller's contract.
        unsafe {
            match copy {
                CopyOp::HostToDevice { src, dst } => result::memory::copy_htod_async(d, dst.0, src, n, s),
                CopyOp::DeviceToHost { src, dst } => result::memory::copy_dtoh_async(d, dst, src.0, n, s),
                CopyOp::DeviceToDevice { src, dst } => result::memory::copy_dtod_async(d, dst.0, src.0, n, s),
                CopyOp::Peer { src_device, src, dst_device, dst } => {
                    let src_ctx = self.bind(src_device)?;
                    let dst_ctx = self.bind(dst_device)?;
                    let s = self.stream_ptr(stream)?;
                    result::memory::copy_peer_async(d, dst.0, dst_ctx, src.0, src_ctx, n, s)
                }
            }
        }
    }

    fn can_access_peer(&self, device: u32, peer: u32) -> Result<bool> {
        result::device::can_access_peer(&self.driver, self.device(device)?, self.device(peer)?)
    }

    fn enable_peer_access(&self, device: u32, peer: u32) -> Result<()> {
        let peer_ctx = self.bind(peer)?;
        self.bind(device)?;
        // SAFETY: both contexts are retained primary contexts; `device`'s is current.
        unsafe { result::context::enable_peer_access(&self.driver, peer_ctx) }
    }

    fn stream_create(&self, device: u32, flags: StreamFlags) -> Result<StreamHandle> {
        self.bind(device)?;
        let f = if flags.non_blocking { CU_STREAM_NON_BLOCKING } else { 0 };
        let s = result::stream::create(&self.driver, f, flags.priority)?;
        Ok(StreamHandle(pack(device, s)))
    }

    fn default_stream(&self, device: u32, which: DefaultStream) -> Result<StreamHandle> {
        self.device(device)?;
        let special = match which {
            DefaultStream::Legacy => CU_STREAM_LEGACY,
            DefaultStream::PerThread => CU_STREAM_PER_THREAD,
        };
        Ok(StreamHandle(pack(device, special as *mut c_void)))
    }

    fn native_stream_handle(&self, stream: StreamHandle) -> Option<u64> {
        Some(unpack(stream.0).1 as u64)
    }

    unsafe fn stream_destroy(&self, stream: StreamHandle) -> Result<()> {
        let s = self.stream_ptr(stream)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::stream::destroy(&self.driver, s) }
    }

    unsafe fn stream_synchronize(&self, stream: StreamHandle) -> Result<()> {
        let s = self.stream_ptr(stream)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::stream::synchronize(&self.driver, s) }
    }

    unsafe fn stream_query(&self, stream: StreamHandle) -> Result<bool> {
        let s = self.stream_ptr(stream)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::stream::query(&self.driver, s) }
    }

    unsafe fn stream_wait_event(&self, stream: StreamHandle, event: EventHandle) -> Result<()> {
        // The event may belong to another device: the driver accepts it from any context.
        let (_, e) = unpack(event.0);
        let s = self.stream_ptr(stream)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::stream::wait_event(&self.driver, s, e) }
    }

    unsafe fn stream_add_callback(&self, stream: StreamHandle, callback: HostCallback) -> Result<()> {
        let s = self.stream_ptr(stream)?;
        let data = Box::into_raw(Box::new(callback)) as *mut c_void;
        // SAFETY: the trampoline takes ownership of `data` when the driver runs it.
        let r = unsafe { result::stream::launch_host_func(&self.driver, s, host_callback_trampoline, data) };
        if r.is_err() {
            // SAFETY: the driver did not take the callback, so we still own it.
            drop(unsafe { Box::from_raw(data as *mut HostCallback) });
        }
        r
    }

    unsafe fn stream_wait_value(
        &self,
        stream: StreamHandle,
        addr: DevicePtr,
        value: StreamWord,
        condition: WaitCondition,
    ) -> Result<()> {
        let flags = match condition {
            WaitCondition::Geq => CU_STREAM_WAIT_VALUE_GEQ,
            WaitCondition::Eq => CU_STREAM_WAIT_VALUE_EQ,
            WaitCondition::And => CU_STREAM_WAIT_VALUE_AND,
            WaitCondition::Nor => CU_STREAM_WAIT_VALUE_NOR,
        };
        let s = self.memop_stream(stream, value, condition == WaitCondition::Nor)?;
        // SAFETY: forwarded from the caller's contract (aligned word in live device memory).
        unsafe {
            match value {
                StreamWord::U32(v) => result::stream::wait_value32(&self.driver, s, addr.0, v, flags),
                StreamWord::U64(v) => result::stream::wait_value64(&self.driver, s, addr.0, v, flags),
            }
        }
    }

    unsafe fn stream_write_value(
        &self,
        stream: StreamHandle,
        addr: DevicePtr,
        value: StreamWord,
    ) -> Result<()> {
        let s = self.memop_stream(stream, value, false)?;
        let flags = CU_STREAM_WRITE_VALUE_DEFAULT;
        // SAFETY: forwarded from the caller's contract (aligned word in live device memory).
        unsafe {
            match value {
                StreamWord::U32(v) => result::stream::write_value32(&self.driver, s, addr.0, v, flags),
                StreamWord::U64(v) => result::stream::write_value64(&self.driver, s, addr.0, v, flags),
            }
        }
    }

    fn event_create(&self, device: u32, flags: EventFlags) -> Result<EventHandle> {
        self.bind(device)?;
        let mut f = 0;
        if !flags.timing {
            f |= CU_EVENT_DISABLE_TIMING;
        }
        if flags.blocking_sync {
            f |= CU_EVENT_BLOCKING_SYNC;
        }
        let e = result::event::create(&self.driver, f)?;
        Ok(EventHandle(pack(device, e)))
    }

    unsafe fn event_destroy(&self, event: EventHandle) -> Result<()> {
        let e = self.event_ptr(event)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::event::destroy(&self.driver, e) }
    }

    unsafe fn event_record(&self, event: EventHandle, stream: StreamHandle) -> Result<()> {
        let (_, e) = unpack(event.0);
        let s = self.stream_ptr(stream)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::event::record(&self.driver, e, s) }
    }

    unsafe fn event_synchronize(&self, event: EventHandle) -> Result<()> {
        let e = self.event_ptr(event)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::event::synchronize(&self.driver, e) }
    }

    unsafe fn event_query(&self, event: EventHandle) -> Result<bool> {
        let e = self.event_ptr(event)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::event::query(&self.driver, e) }
    }

    unsafe fn event_elapsed_ms(&self, start: EventHandle, end: EventHandle) -> Result<f32> {
        let a = self.event_ptr(start)?;
        let (_, b) = unpack(end.0);
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::event::elapsed_ms(&self.driver, a, b) }
    }

    fn module_load(&self, device: u32, image: &ModuleImage) -> Result<ModuleHandle> {
        let ModuleImage::Ptx(text) = image else {
            return Err(BackendError::Unsupported { backend: BackendKind::Cuda, what: "CPU modules" });
        };
        self.bind(device)?;
        let m = result::module::load_ptx(&self.driver, text)?;
        Ok(ModuleHandle(pack(device, m)))
    }

    unsafe fn module_unload(&self, module: ModuleHandle) -> Result<()> {
        let (device, m) = unpack(module.0);
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::module::unload(&self.driver, m) }
    }

    unsafe fn module_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle> {
        let (device, m) = unpack(module.0);
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        let f = unsafe { result::module::get_function(&self.driver, m, name)? };
        Ok(FunctionHandle(pack(device, f)))
    }

    unsafe fn module_global(&self, module: ModuleHandle, name: &str) -> Result<(DevicePtr, u64)> {
        let (device, m) = unpack(module.0);
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        let (ptr, bytes) = unsafe { result::module::get_global(&self.driver, m, name)? };
        Ok((DevicePtr(ptr), bytes as u64))
    }

    unsafe fn function_attributes(&self, function: FunctionHandle) -> Result<FunctionAttributes> {
        let (device, f) = unpack(function.0);
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        let get = |a| unsafe { result::function::get_attribute(&self.driver, f, a) }.map(|v| v.max(0) as u32);
        Ok(FunctionAttributes {
            max_threads_per_block: get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            static_shared_bytes: get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            registers_per_thread: get(CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            local_bytes_per_thread: get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
        })
    }

    unsafe fn function_set_attribute(
        &self,
        function: FunctionHandle,
        attribute: FunctionAttribute,
        value: i32,
    ) -> Result<()> {
        let (device, f) = unpack(function.0);
        self.bind(device)?;
        let a = match attribute {
            FunctionAttribute::MaxDynamicSharedBytes => CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            FunctionAttribute::NonPortableClusterSizeAllowed => {
                CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
            }
            _ => {
                return Err(BackendError::Unsupported {
                    backend: BackendKind::Cuda,
                    what: "this function attribute",
                })
            }
        };
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::function::set_attribute(&self.driver, f, a, value) }
    }

    unsafe fn max_active_blocks_per_cu(
        &self,
        function: FunctionHandle,
        block_threads: u32,
        dynamic_shared_bytes: u32,
    ) -> Result<u32> {
        let (device, f) = unpack(function.0);
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        let n = unsafe {
            result::function::max_active_blocks_per_sm(
                &self.driver,
                f,
                block_threads as i32,
                dynamic_shared_bytes as usize,
            )?
        };
        Ok(n.max(0) as u32)
    }

    fn tensor_map_encode(&self, device: u32, desc: &TensorMapDesc) -> Result<[u8; TENSOR_MAP_BYTES]> {
        self.bind(device)?;
        result::tensor_map::encode_tiled(&self.driver, desc)
    }

    unsafe fn launch(
        &self,
        function: FunctionHandle,
        dims: LaunchDims,
        stream: StreamHandle,
        args: &[&[u8]],
    ) -> Result<()> {
        let (_, f) = unpack(function.0);
        let s = self.stream_ptr(stream)?;
        // SAFETY: the parameter pointers borrow `args`, which outlive the call (the driver copies
        // parameter values before returning); the rest is forwarded from the caller's contract.
        with_params(args, |params| unsafe {
            if dims.has_cluster() || dims.cooperative {
                result::launch::kernel_ex(&self.driver, f, &dims, s, params)
            } else {
                result::launch::kernel(&self.driver, f, &dims, s, params)
            }
        })
    }

    fn vmm_properties(&self, device: u32) -> Result<VmmProperties> {
        let dev = self.device(device)?;
        if self.attribute(device, attr::VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED)? == 0 {
            return Err(BackendError::Unsupported {
                backend: BackendKind::Cuda,
                what: "virtual memory management",
            });
        }
        let exportable = self.attribute(device, attr::HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED)? != 0;
        let granularity = result::vmm::granularity(&self.driver, &result::vmm::properties(dev, exportable))?;
        Ok(VmmProperties { granularity, exportable })
    }

    fn mem_create(&self, device: u32, bytes: u64, flags: MemCreateFlags) -> Result<MemHandle> {
        let dev = self.device(device)?;
        self.bind(device)?;
        let prop = result::vmm::properties(dev, flags.exportable);
        match result::vmm::create(&self.driver, as_usize(bytes), &prop) {
            Err(BackendError::Driver { code: CUDA_ERROR_OUT_OF_MEMORY, .. }) => {
                let free = result::memory::get_info(&self.driver).map(|(f, _)| f).unwrap_or(0);
                Err(BackendError::OutOfMemory { device, requested: bytes, free })
            }
            r => r.map(MemHandle),
        }
    }

    unsafe fn mem_release(&self, device: u32, memory: MemHandle) -> Result<()> {
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::vmm::release(&self.driver, memory.0) }
    }

    fn mem_reserve(&self, device: u32, bytes: u64) -> Result<DevicePtr> {
        let granularity = self.vmm_properties(device)?.granularity;
        self.bind(device)?;
        result::vmm::address_reserve(&self.driver, as_usize(bytes), as_usize(granularity)).map(DevicePtr)
    }

    unsafe fn mem_unreserve(&self, device: u32, ptr: DevicePtr, bytes: u64) -> Result<()> {
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::vmm::address_free(&self.driver, ptr.0, as_usize(bytes)) }
    }

    unsafe fn mem_map(&self, device: u32, ptr: DevicePtr, bytes: u64, memory: MemHandle) -> Result<()> {
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::vmm::map(&self.driver, ptr.0, as_usize(bytes), memory.0) }
    }

    unsafe fn mem_unmap(&self, device: u32, ptr: DevicePtr, bytes: u64) -> Result<()> {
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::vmm::unmap(&self.driver, ptr.0, as_usize(bytes)) }
    }

    unsafe fn mem_set_access(&self, device: u32, ptr: DevicePtr, bytes: u64, devices: &[u32]) -> Result<()> {
        let devs = devices.iter().map(|&o| self.device(o)).collect::<Result<Vec<_>>>()?;
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::vmm::set_access(&self.driver, ptr.0, as_usize(bytes), &devs) }
    }

    unsafe fn mem_export(&self, device: u32, memory: MemHandle) -> Result<std::os::fd::OwnedFd> {
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::vmm::export_fd(&self.driver, memory.0) }
    }

    fn mem_import(&self, device: u32, fd: std::os::fd::BorrowedFd<'_>, _bytes: u64) -> Result<MemHandle> {
        // The driver keeps no size with an imported handle: a size larger than the exported
        // memory is refused by cuMemMap instead.
        self.bind(device)?;
        result::vmm::import_fd(&self.driver, fd).map(MemHandle)
    }

    unsafe fn stream_begin_capture(&self, stream: StreamHandle) -> Result<()> {
        let s = self.stream_ptr(stream)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::graph::begin_capture(&self.driver, s) }
    }

    unsafe fn stream_end_capture(&self, stream: StreamHandle) -> Result<GraphHandle> {
        let (device, _) = unpack(stream.0);
        let s = self.stream_ptr(stream)?;
        // SAFETY: forwarded from the caller's contract.
        let g = unsafe { result::graph::end_capture(&self.driver, s)? };
        Ok(GraphHandle(pack(device, g)))
    }

    unsafe fn stream_capture_last_node(&self, stream: StreamHandle) -> Result<GraphNodeHandle> {
        let s = self.stream_ptr(stream)?;
        // SAFETY: forwarded from the caller's contract.
        let deps = unsafe { result::graph::capture_dependencies(&self.driver, s)? };
        match deps[..] {
            [node] => Ok(GraphNodeHandle(node as u64)),
            _ => Err(BackendError::InvalidValue {
                call: "cuStreamGetCaptureInfo",
                message: format!(
                    "expected the last captured operation as the one dependency, found {}",
                    deps.len()
                ),
            }),
        }
    }

    unsafe fn graph_destroy(&self, graph: GraphHandle) -> Result<()> {
        let (device, g) = unpack(graph.0);
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::graph::destroy(&self.driver, g) }
    }

    unsafe fn graph_instantiate(&self, graph: GraphHandle) -> Result<GraphExecHandle> {
        let (device, g) = unpack(graph.0);
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        let e = unsafe { result::graph::instantiate(&self.driver, g)? };
        Ok(GraphExecHandle(pack(device, e)))
    }

    unsafe fn graph_exec_destroy(&self, exec: GraphExecHandle) -> Result<()> {
        let (device, e) = unpack(exec.0);
        self.bind(device)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::graph::exec_destroy(&self.driver, e) }
    }

    unsafe fn graph_launch(&self, exec: GraphExecHandle, stream: StreamHandle) -> Result<()> {
        let (_, e) = unpack(exec.0);
        let s = self.stream_ptr(stream)?;
        // SAFETY: forwarded from the caller's contract.
        unsafe { result::graph::launch(&self.driver, e, s) }
    }

    unsafe fn graph_exec_set_kernel_params(
        &self,
        exec: GraphExecHandle,
        node: GraphNodeHandle,
        function: FunctionHandle,
        dims: LaunchDims,
        args: &[&[u8]],
    ) -> Result<()> {
        let (device, e) = unpack(exec.0);
        let (_, f) = unpack(function.0);
        self.bind(device)?;
        // SAFETY: the parameter pointers borrow `args` for the call; the rest is forwarded from
        // the caller's contract.
        with_params(args, |params| unsafe {
            result::graph::exec_kernel_node_set_params(
                &self.driver,
                e,
                node.0 as CUgraphNode,
                f,
                &dims,
                params,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library without the driver's symbols stands in for an old or broken driver: every
    /// call is an `Err` naming the missing symbol, never a panic.
    #[test]
    fn a_missing_symbol_is_an_error_naming_it() {
        // SAFETY: loading the C library has no preconditions.
        let Ok(libc) = (unsafe { libloading::Library::new("libc.so.6") }) else { return };
        let driver = Driver::new(libc, "libc.so.6".into());
        // SAFETY: the call never reaches a function: the symbol is not there.
        assert_eq!(unsafe { driver.init(0) }, Err("cuInit"));
        let mut p = 0;
        assert_eq!(unsafe { driver.mem_alloc(&mut p, 16) }, Err("cuMemAlloc_v2"));
    }

    /// The structures handed to the driver have the C layouts of `cuda.h`.
    #[test]
    fn driver_structures_have_the_c_layout() {
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<CUmemAllocationProp>(), 32);
        assert_eq!(offset_of!(CUmemAllocationProp, location), 8);
        assert_eq!(offset_of!(CUmemAllocationProp, win32_handle_meta_data), 16);
        assert_eq!(size_of::<CUmemAccessDesc>(), 12);
        assert_eq!(size_of::<CUDA_KERNEL_NODE_PARAMS>(), 72);
        assert_eq!(offset_of!(CUDA_KERNEL_NODE_PARAMS, shared_mem_bytes), 32);
        assert_eq!(offset_of!(CUDA_KERNEL_NODE_PARAMS, kernel_params), 40);
        assert_eq!(offset_of!(CUDA_KERNEL_NODE_PARAMS, ctx), 64);
    }

    #[test]
    fn handles_round_trip_device_and_pointer() {
        let ptr = 0x7f12_3456_7890usize as *mut c_void;
        assert_eq!(unpack(pack(3, ptr)), (3, ptr));
        assert_eq!(unpack(pack(0, std::ptr::null_mut())), (0, std::ptr::null_mut()));
    }

    #[test]
    fn load_reports_why_cuda_is_unavailable() {
        // Where a GPU driver exists this loads; elsewhere the error says what was tried.
        match CudaBackend::load() {
            Ok(b) => assert_eq!(b.kind(), BackendKind::Cuda),
            Err(e) => assert!(e.to_string().contains("libcuda") || e.to_string().contains("cuInit"), "{e}"),
        }
    }
}
