//! ferrocm's NVIDIA backend, through the CUDA driver API alone.
//!
//! `libcuda.so.1` is opened at run time with `libloading`; nothing links against CUDA at build
//! time, so the workspace builds and tests on machines without a GPU. The code is in three
//! layers (after cudarc): [`sys`] declares the raw API and resolves each versioned symbol on
//! first use; the private `check` turns every return code into a `Result` whose error carries the
//! driver's error name and string; [`CudaBackend`] implements the backend trait on top.
//!
//! Each device is driven through its primary context (as the CUDA runtime and HIP do), retained
//! on first use. Handles carry the device ordinal in their top 16 bits and the driver's pointer
//! in the low 48 (user-space addresses on the supported 64-bit hosts fit), so hot paths such as
//! launch need no table look-up.

pub mod sys;

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::OnceLock;

use ferrocm_backend::{
    Backend, BackendError, BackendInfo, BackendKind, CopyOp, DeviceProperties, DevicePtr, EventFlags,
    EventHandle, FunctionAttributes, FunctionHandle, HostCallback, LaunchDims, ModuleHandle, ModuleImage,
    Result, StreamFlags, StreamHandle,
};
use sys::*;

const PTR_BITS: u32 = 48;
const PTR_MASK: u64 = (1 << PTR_BITS) - 1;
/// Dynamic shared memory a kernel may use without opting in.
const DEFAULT_DYNAMIC_SHARED: u32 = 48 * 1024;

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
}

// SAFETY: the driver API is thread-safe; the backend holds only the library handle, immutable
// device ordinals and primary contexts that are set once.
unsafe impl Send for CudaBackend {}
unsafe impl Sync for CudaBackend {}

impl CudaBackend {
    /// Opens the driver library, initialises it and counts the devices. A missing library, a
    /// missing symbol or a driver without devices is an `Err` that says which.
    pub fn load() -> Result<CudaBackend> {
        let driver = Driver::open()
            .map_err(|reason| BackendError::Unavailable { backend: BackendKind::Cuda, reason })?;
        let mut backend = CudaBackend { driver, version: 0, devices: vec![], contexts: vec![] };
        // SAFETY: cuInit takes flags 0; the out-pointers below point at live locals.
        unsafe {
            backend.check("cuInit", backend.driver.init(0))?;
            let mut version = 0;
            backend.check("cuDriverGetVersion", backend.driver.driver_get_version(&mut version))?;
            backend.version = version;
            let mut count = 0;
            backend.check("cuDeviceGetCount", backend.driver.device_get_count(&mut count))?;
            for ordinal in 0..count {
                let mut dev = 0;
                backend.check("cuDeviceGet", backend.driver.device_get(&mut dev, ordinal))?;
                backend.devices.push(dev);
                backend.contexts.push(OnceLock::new());
            }
        }
        Ok(backend)
    }

    fn check(&self, call: &'static str, r: std::result::Result<CUresult, &'static str>) -> Result<()> {
        match r {
            Ok(CUDA_SUCCESS) => Ok(()),
            Ok(code) => Err(self.driver_error(call, code)),
            Err(symbol) => Err(BackendError::Unavailable {
                backend: BackendKind::Cuda,
                reason: format!("{} does not export {symbol}", self.driver.path),
            }),
        }
    }

    fn driver_error(&self, call: &'static str, code: CUresult) -> BackendError {
        let text = |f: unsafe fn(
            &Driver,
            CUresult,
            *mut *const c_char,
        ) -> std::result::Result<CUresult, &'static str>| {
            let mut p: *const c_char = std::ptr::null();
            // SAFETY: the driver writes a pointer to a static NUL-terminated string or leaves it.
            match unsafe { f(&self.driver, code, &mut p) } {
                Ok(CUDA_SUCCESS) if !p.is_null() => {
                    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
                }
                _ => "unknown error".to_string(),
            }
        };
        BackendError::Driver {
            call,
            code,
            name: text(Driver::get_error_name),
            message: text(Driver::get_error_string),
        }
    }

    /// Makes `device`'s primary context current on this thread.
    fn bind(&self, device: u32) -> Result<CUcontext> {
        let slot = &self.contexts[device as usize];
        let ctx = match slot.get() {
            Some(&c) => c,
            None => {
                let mut c: CUcontext = std::ptr::null_mut();
                // SAFETY: `c` is a live out-pointer and the device ordinal is valid.
                self.check("cuDevicePrimaryCtxRetain", unsafe {
                    self.driver.primary_ctx_retain(&mut c, self.devices[device as usize])
                })?;
                if slot.set(c as usize).is_err() {
                    // Another thread retained it first: give back our extra reference.
                    // SAFETY: we hold one reference from the retain above.
                    let _ = unsafe { self.driver.primary_ctx_release(self.devices[device as usize]) };
                }
                *slot.get().expect("set above")
            }
        };
        if CURRENT.get() != ctx {
            // SAFETY: `ctx` is a retained primary context.
            self.check("cuCtxSetCurrent", unsafe { self.driver.ctx_set_current(ctx as CUcontext) })?;
            CURRENT.set(ctx);
        }
        Ok(ctx as CUcontext)
    }

    fn attribute(&self, device: u32, attribute: c_int) -> Result<i32> {
        let mut v = 0;
        // SAFETY: `v` is a live out-pointer; the attribute is a documented enum value.
        self.check("cuDeviceGetAttribute", unsafe {
            self.driver.device_get_attribute(&mut v, attribute, self.devices[device as usize])
        })?;
        Ok(v)
    }

    fn stream_ptr(&self, stream: StreamHandle) -> Result<(u32, CUstream)> {
        let (device, ptr) = unpack(stream.0);
        self.bind(device)?;
        Ok((device, ptr))
    }
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        for (i, ctx) in self.contexts.iter().enumerate() {
            if ctx.get().is_some() {
                // SAFETY: we hold exactly one reference to each retained primary context.
                let _ = unsafe { self.driver.primary_ctx_release(self.devices[i]) };
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
        let dev = self.devices[device as usize];
        let a = |attr| self.attribute(device, attr).map(|v| v.max(0) as u32);
        let mut name = [0 as c_char; 256];
        let mut total = 0usize;
        let mut uuid = [0u8; 16];
        let mut bus = [0 as c_char; 32];
        // SAFETY: each buffer is live and its length is passed where the call takes one.
        unsafe {
            self.check("cuDeviceGetName", self.driver.device_get_name(name.as_mut_ptr(), 256, dev))?;
            self.check("cuDeviceTotalMem_v2", self.driver.device_total_mem(&mut total, dev))?;
            self.check("cuDeviceGetUuid_v2", self.driver.device_get_uuid(&mut uuid, dev))?;
            self.check("cuDeviceGetPCIBusId", self.driver.device_get_pci_bus_id(bus.as_mut_ptr(), 32, dev))?;
        }
        // SAFETY: the driver NUL-terminates both strings within the buffers.
        let cstr = |b: &[c_char]| unsafe { CStr::from_ptr(b.as_ptr()) }.to_string_lossy().into_owned();
        let u: String = uuid.iter().map(|b| format!("{b:02x}")).collect();
        let (major, minor) = (a(attr::COMPUTE_CAPABILITY_MAJOR)?, a(attr::COMPUTE_CAPABILITY_MINOR)?);
        Ok(DeviceProperties {
            name: cstr(&name),
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
            total_memory: total as u64,
            pci_bus_id: cstr(&bus).to_lowercase(),
            uuid: format!("GPU-{}-{}-{}-{}-{}", &u[0..8], &u[8..12], &u[12..16], &u[16..20], &u[20..32]),
            managed_memory: a(attr::MANAGED_MEMORY)? != 0,
            concurrent_kernels: a(attr::CONCURRENT_KERNELS)? != 0,
            async_engines: a(attr::ASYNC_ENGINE_COUNT)?,
            target: ferrocm_backend::Target::nvidia((major, minor), self.version as u32),
        })
    }

    fn mem_info(&self, device: u32) -> Result<(u64, u64)> {
        self.bind(device)?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: live out-pointers; the device's context is current.
        self.check("cuMemGetInfo_v2", unsafe { self.driver.mem_get_info(&mut free, &mut total) })?;
        Ok((free as u64, total as u64))
    }

    fn device_synchronize(&self, device: u32) -> Result<()> {
        self.bind(device)?;
        // SAFETY: the device's context is current.
        self.check("cuCtxSynchronize", unsafe { self.driver.ctx_synchronize() })
    }

    fn alloc(&self, device: u32, bytes: u64) -> Result<DevicePtr> {
        self.bind(device)?;
        let mut p = 0;
        // SAFETY: live out-pointer; the device's context is current.
        match unsafe { self.driver.mem_alloc(&mut p, as_usize(bytes)) } {
            Ok(CUDA_ERROR_OUT_OF_MEMORY) => {
                let free = self.mem_info(device).map(|(f, _)| f).unwrap_or(0);
                Err(BackendError::OutOfMemory { device, requested: bytes, free })
            }
            r => self.check("cuMemAlloc_v2", r).map(|_| DevicePtr(p)),
        }
    }

    fn alloc_managed(&self, device: u32, bytes: u64) -> Result<DevicePtr> {
        self.bind(device)?;
        let mut p = 0;
        // SAFETY: live out-pointer; the device's context is current.
        match unsafe { self.driver.mem_alloc_managed(&mut p, as_usize(bytes), CU_MEM_ATTACH_GLOBAL) } {
            Ok(CUDA_ERROR_OUT_OF_MEMORY) => {
                let free = self.mem_info(device).map(|(f, _)| f).unwrap_or(0);
                Err(BackendError::OutOfMemory { device, requested: bytes, free })
            }
            r => self.check("cuMemAllocManaged", r).map(|_| DevicePtr(p)),
        }
    }

    fn free(&self, device: u32, ptr: DevicePtr) -> Result<()> {
        self.bind(device)?;
        // SAFETY: the runtime frees each allocation it made exactly once.
        self.check("cuMemFree_v2", unsafe { self.driver.mem_free(ptr.0) })
    }

    fn alloc_host(&self, bytes: u64) -> Result<*mut u8> {
        self.bind(0)?;
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: live out-pointer; portable pinned memory is usable from every context.
        match unsafe { self.driver.mem_host_alloc(&mut p, as_usize(bytes), CU_MEMHOSTALLOC_PORTABLE) } {
            Ok(CUDA_ERROR_OUT_OF_MEMORY) => {
                Err(BackendError::OutOfMemory { device: 0, requested: bytes, free: 0 })
            }
            r => self.check("cuMemHostAlloc", r).map(|_| p as *mut u8),
        }
    }

    fn free_host(&self, ptr: *mut u8) -> Result<()> {
        self.bind(0)?;
        // SAFETY: the pointer came from cuMemHostAlloc and is freed once.
        self.check("cuMemFreeHost", unsafe { self.driver.mem_free_host(ptr as *mut c_void) })
    }

    fn memset_async(&self, stream: StreamHandle, dst: DevicePtr, value: u8, bytes: u64) -> Result<()> {
        let (_, s) = self.stream_ptr(stream)?;
        // SAFETY: the runtime checked the range against a live allocation.
        self.check("cuMemsetD8Async", unsafe {
            self.driver.memset_d8_async(dst.0, value, as_usize(bytes), s)
        })
    }

    fn copy_async(&self, stream: StreamHandle, copy: CopyOp, bytes: u64) -> Result<()> {
        let (_, s) = self.stream_ptr(stream)?;
        let n = as_usize(bytes);
        // SAFETY: the runtime checked both ranges and keeps host memory alive until completion.
        unsafe {
            match copy {
                CopyOp::HostToDevice { src, dst } => {
                    self.check("cuMemcpyHtoDAsync_v2", self.driver.memcpy_htod_async(dst.0, src as _, n, s))
                }
                CopyOp::DeviceToHost { src, dst } => {
                    self.check("cuMemcpyDtoHAsync_v2", self.driver.memcpy_dtoh_async(dst as _, src.0, n, s))
                }
                CopyOp::DeviceToDevice { src, dst } => {
                    self.check("cuMemcpyDtoDAsync_v2", self.driver.memcpy_dtod_async(dst.0, src.0, n, s))
                }
                CopyOp::Peer { src_device, src, dst_device, dst } => {
                    let src_ctx = self.bind(src_device)?;
                    let dst_ctx = self.bind(dst_device)?;
                    self.stream_ptr(stream)?;
                    self.check(
                        "cuMemcpyPeerAsync",
                        self.driver.memcpy_peer_async(dst.0, dst_ctx, src.0, src_ctx, n, s),
                    )
                }
            }
        }
    }

    fn can_access_peer(&self, device: u32, peer: u32) -> Result<bool> {
        let mut can = 0;
        // SAFETY: live out-pointer, valid ordinals.
        self.check("cuDeviceCanAccessPeer", unsafe {
            self.driver.device_can_access_peer(
                &mut can,
                self.devices[device as usize],
                self.devices[peer as usize],
            )
        })?;
        Ok(can != 0)
    }

    fn enable_peer_access(&self, device: u32, peer: u32) -> Result<()> {
        let peer_ctx = self.bind(peer)?;
        self.bind(device)?;
        // SAFETY: both contexts are retained primary contexts; `device`'s is current.
        match unsafe { self.driver.ctx_enable_peer_access(peer_ctx, 0) } {
            Ok(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) => Ok(()),
            r => self.check("cuCtxEnablePeerAccess", r),
        }
    }

    fn stream_create(&self, device: u32, flags: StreamFlags) -> Result<StreamHandle> {
        self.bind(device)?;
        let mut s: CUstream = std::ptr::null_mut();
        let f = if flags.non_blocking { CU_STREAM_NON_BLOCKING } else { 0 };
        // SAFETY: live out-pointer; the device's context is current.
        self.check("cuStreamCreateWithPriority", unsafe {
            self.driver.stream_create(&mut s, f, flags.priority)
        })?;
        Ok(StreamHandle(pack(device, s)))
    }

    fn stream_destroy(&self, stream: StreamHandle) -> Result<()> {
        let (_, s) = self.stream_ptr(stream)?;
        // SAFETY: the stream is live and destroyed once.
        self.check("cuStreamDestroy_v2", unsafe { self.driver.stream_destroy(s) })
    }

    fn stream_synchronize(&self, stream: StreamHandle) -> Result<()> {
        let (_, s) = self.stream_ptr(stream)?;
        // SAFETY: the stream is live.
        self.check("cuStreamSynchronize", unsafe { self.driver.stream_synchronize(s) })
    }

    fn stream_query(&self, stream: StreamHandle) -> Result<bool> {
        let (_, s) = self.stream_ptr(stream)?;
        // SAFETY: the stream is live.
        match unsafe { self.driver.stream_query(s) } {
            Ok(CUDA_ERROR_NOT_READY) => Ok(false),
            r => self.check("cuStreamQuery", r).map(|_| true),
        }
    }

    fn stream_wait_event(&self, stream: StreamHandle, event: EventHandle) -> Result<()> {
        let (_, s) = self.stream_ptr(stream)?;
        let (_, e) = unpack(event.0);
        // SAFETY: both are live.
        self.check("cuStreamWaitEvent", unsafe { self.driver.stream_wait_event(s, e, 0) })
    }

    fn stream_add_callback(&self, stream: StreamHandle, callback: HostCallback) -> Result<()> {
        let (_, s) = self.stream_ptr(stream)?;
        let data = Box::into_raw(Box::new(callback)) as *mut c_void;
        // SAFETY: the trampoline takes ownership of `data` when the driver runs it.
        let r = self.check("cuLaunchHostFunc", unsafe {
            self.driver.launch_host_func(s, host_callback_trampoline, data)
        });
        if r.is_err() {
            // SAFETY: the driver did not take the callback, so we still own it.
            drop(unsafe { Box::from_raw(data as *mut HostCallback) });
        }
        r
    }

    fn event_create(&self, device: u32, flags: EventFlags) -> Result<EventHandle> {
        self.bind(device)?;
        let mut e: CUevent = std::ptr::null_mut();
        let mut f = 0;
        if !flags.timing {
            f |= CU_EVENT_DISABLE_TIMING;
        }
        if flags.blocking_sync {
            f |= CU_EVENT_BLOCKING_SYNC;
        }
        // SAFETY: live out-pointer; the device's context is current.
        self.check("cuEventCreate", unsafe { self.driver.event_create(&mut e, f) })?;
        Ok(EventHandle(pack(device, e)))
    }

    fn event_destroy(&self, event: EventHandle) -> Result<()> {
        let (device, e) = unpack(event.0);
        self.bind(device)?;
        // SAFETY: the event is live and destroyed once.
        self.check("cuEventDestroy_v2", unsafe { self.driver.event_destroy(e) })
    }

    fn event_record(&self, event: EventHandle, stream: StreamHandle) -> Result<()> {
        let (_, s) = self.stream_ptr(stream)?;
        let (_, e) = unpack(event.0);
        // SAFETY: both are live.
        self.check("cuEventRecord", unsafe { self.driver.event_record(e, s) })
    }

    fn event_synchronize(&self, event: EventHandle) -> Result<()> {
        let (device, e) = unpack(event.0);
        self.bind(device)?;
        // SAFETY: the event is live.
        self.check("cuEventSynchronize", unsafe { self.driver.event_synchronize(e) })
    }

    fn event_query(&self, event: EventHandle) -> Result<bool> {
        let (device, e) = unpack(event.0);
        self.bind(device)?;
        // SAFETY: the event is live.
        match unsafe { self.driver.event_query(e) } {
            Ok(CUDA_ERROR_NOT_READY) => Ok(false),
            r => self.check("cuEventQuery", r).map(|_| true),
        }
    }

    fn event_elapsed_ms(&self, start: EventHandle, end: EventHandle) -> Result<f32> {
        let (device, a) = unpack(start.0);
        let (_, b) = unpack(end.0);
        self.bind(device)?;
        let mut ms = 0f32;
        // SAFETY: live out-pointer; both events are live.
        self.check("cuEventElapsedTime", unsafe { self.driver.event_elapsed_time(&mut ms, a, b) })?;
        Ok(ms)
    }

    fn module_load(&self, device: u32, image: &ModuleImage) -> Result<ModuleHandle> {
        let ModuleImage::Ptx(text) = image else {
            return Err(BackendError::Unsupported { backend: BackendKind::Cuda, what: "CPU modules" });
        };
        let source = CString::new(text.as_str())
            .map_err(|_| BackendError::ModuleLoad { log: "PTX text contains a NUL byte".into() })?;
        self.bind(device)?;
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
        // sizes are passed by value as the JIT options require.
        let r = unsafe {
            self.driver.module_load_data_ex(
                &mut module,
                source.as_ptr() as *const c_void,
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        match self.check("cuModuleLoadDataEx", r) {
            Ok(()) => Ok(ModuleHandle(pack(device, module))),
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

    fn module_unload(&self, module: ModuleHandle) -> Result<()> {
        let (device, m) = unpack(module.0);
        self.bind(device)?;
        // SAFETY: the module is live and unloaded once.
        self.check("cuModuleUnload", unsafe { self.driver.module_unload(m) })
    }

    fn module_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle> {
        let (device, m) = unpack(module.0);
        self.bind(device)?;
        let cname = CString::new(name).map_err(|_| BackendError::FunctionNotFound { name: name.into() })?;
        let mut f: CUfunction = std::ptr::null_mut();
        // SAFETY: live out-pointer, NUL-terminated name, live module.
        match unsafe { self.driver.module_get_function(&mut f, m, cname.as_ptr()) } {
            Ok(CUDA_SUCCESS) => Ok(FunctionHandle(pack(device, f))),
            Ok(500) => Err(BackendError::FunctionNotFound { name: name.into() }),
            r => self.check("cuModuleGetFunction", r).map(|_| FunctionHandle(pack(device, f))),
        }
    }

    fn function_attributes(&self, function: FunctionHandle) -> Result<FunctionAttributes> {
        let (device, f) = unpack(function.0);
        self.bind(device)?;
        let get = |attribute| {
            let mut v = 0;
            // SAFETY: live out-pointer and function.
            self.check("cuFuncGetAttribute", unsafe { self.driver.func_get_attribute(&mut v, attribute, f) })
                .map(|_| v.max(0) as u32)
        };
        Ok(FunctionAttributes {
            max_threads_per_block: get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            static_shared_bytes: get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            registers_per_thread: get(CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            local_bytes_per_thread: get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
        })
    }

    fn tensor_map_encode(
        &self,
        device: u32,
        desc: &ferrocm_backend::tensor_map::TensorMapDesc,
    ) -> Result<[u8; ferrocm_backend::tensor_map::TENSOR_MAP_BYTES]> {
        self.bind(device)?;
        #[repr(C, align(64))]
        struct Aligned([u8; 128]);
        let mut map = Aligned([0; 128]);
        // SAFETY: the out-pointer is 64-byte aligned and 128 bytes long as CUtensorMap is; the
        // arrays hold at least `rank` (and `rank - 1` strides) entries; the driver only records
        // the global address, it does not dereference it here.
        self.check("cuTensorMapEncodeTiled", unsafe {
            self.driver.tensor_map_encode_tiled(
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

    fn launch(
        &self,
        function: FunctionHandle,
        dims: LaunchDims,
        stream: StreamHandle,
        args: &[&[u8]],
    ) -> Result<()> {
        let (_, f) = unpack(function.0);
        let (_, s) = self.stream_ptr(stream)?;
        if dims.shared_mem_bytes > DEFAULT_DYNAMIC_SHARED {
            // SAFETY: live function; the runtime checked the size against the opt-in limit.
            self.check("cuFuncSetAttribute", unsafe {
                self.driver.func_set_attribute(
                    f,
                    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    dims.shared_mem_bytes as i32,
                )
            })?;
        }
        // cuLaunchKernel takes an array of pointers to each parameter's bytes.
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
        let (g, b) = (dims.grid, dims.block);
        // SAFETY: the parameter pointers borrow `args`, which outlive the call (the driver copies
        // parameter values before returning); dimensions were validated by the runtime.
        self.check("cuLaunchKernel", unsafe {
            self.driver.launch_kernel(
                f,
                g.x,
                g.y,
                g.z,
                b.x,
                b.y,
                b.z,
                dims.shared_mem_bytes,
                s,
                params.as_mut_ptr(),
                std::ptr::null_mut(),
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
