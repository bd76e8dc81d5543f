//! Device code: the registration hooks clang's generated code calls (both the CUDA family,
//! which `ferrocm hipcc` uses, and HIP's), the module API, kernel launches in every form,
//! function attributes and occupancy.
//!
//! A fat binary registered by a program built with `ferrocm hipcc` holds ferrocm's container
//! (magic `FRCMPTX\0`, a version, the PTX length, the PTX text): one PTX module per translation
//! unit, loaded lazily on each device that launches one of its kernels (through the driver's
//! JIT on a GPU, through the PTX front end on the CPU). A kernel's parameter sizes come from its
//! PTX signature, so `void** args` is read exactly as the kernel expects it.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::Arc;

use ferrocm_runtime::{Dim3, KernelArgs, LaunchConfig, Stream};

use crate::device::hip_api;
use crate::error::{out, Failure, HipError, HipResult};
use crate::state::{
    hip, lock, new_handle, registered_kernel, registry, Code, FunctionEntry, Kernel, ModuleEntry,
};

/// The magic of ferrocm's fat-binary container.
pub const CONTAINER_MAGIC: &[u8; 8] = b"FRCMPTX\0";
/// Container header: magic, version (u32), reserved (u32), PTX length (u64).
const HEADER: usize = 24;
/// The largest PTX a container may hold.
const MAX_PTX: u64 = 1 << 30;

/// `dim3` by value, as C passes it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CDim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl From<CDim3> for Dim3 {
    fn from(d: CDim3) -> Dim3 {
        Dim3::new(d.x, d.y, d.z)
    }
}

/// The wrapper clang emits around an embedded device binary (`__cuda_fatbin_wrapper`,
/// `__hip_fatbin_wrapper`).
#[repr(C)]
struct FatbinWrapper {
    magic: i32,
    version: i32,
    data: *const u8,
    unused: *const c_void,
}

const CUDA_WRAPPER_MAGIC: i32 = 0x466243b1;
const HIP_WRAPPER_MAGIC: i32 = 0x48495046;

/// The PTX inside ferrocm's container at `data`.
///
/// # Safety
/// `data` points to at least `HEADER` readable bytes, and to the whole container if its magic
/// matches (the container was written by `ferrocm hipcc`).
unsafe fn container_ptx(data: *const u8) -> Result<Arc<str>, String> {
    // SAFETY: the header is readable (the caller's promise).
    let head = unsafe { std::slice::from_raw_parts(data, HEADER) };
    if &head[..8] != CONTAINER_MAGIC {
        return Err("the device code was not built by `ferrocm hipcc` (an NVIDIA or AMD fat binary \
                    cannot run here; rebuild the program with `ferrocm hipcc`)"
            .into());
    }
    let version = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
    if version != 1 {
        return Err(format!(
            "ferrocm device-code container version {version} (this library reads version 1)"
        ));
    }
    let mut len = [0u8; 8];
    len.copy_from_slice(&head[16..24]);
    let len = u64::from_le_bytes(len);
    if len > MAX_PTX {
        return Err(format!("a device-code container of {len} bytes"));
    }
    // SAFETY: the container holds `len` bytes of PTX after its header.
    let text = unsafe { std::slice::from_raw_parts(data.add(HEADER), len as usize) };
    std::str::from_utf8(text).map(Arc::from).map_err(|_| "the embedded PTX is not UTF-8".into())
}

fn register_binary(ptx: Result<Arc<str>, String>) -> *mut *mut c_void {
    let handle = new_handle();
    lock(registry()).binaries.insert(handle, Arc::new(Code::new(ptx)));
    handle as *mut *mut c_void
}

fn binary(handle: *mut *mut c_void) -> Option<Arc<Code>> {
    lock(registry()).binaries.get(&(handle as u64)).cloned()
}

fn c_name(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated name from the compiler's generated code.
    Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// `__cudaRegisterFatBinary`: the device code of one translation unit (called before `main`).
///
/// # Safety
/// `wrapper` is the compiler's fat-binary wrapper.
#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterFatBinary(wrapper: *const c_void) -> *mut *mut c_void {
    let ptx = std::panic::catch_unwind(|| {
        if wrapper.is_null() {
            return Err("a null fat binary".to_string());
        }
        // SAFETY: the compiler's wrapper.
        let w = unsafe { &*(wrapper as *const FatbinWrapper) };
        if w.magic != CUDA_WRAPPER_MAGIC && w.magic != HIP_WRAPPER_MAGIC || w.data.is_null() {
            return Err(format!("an unknown fat-binary wrapper (magic {:#x})", w.magic));
        }
        // SAFETY: the wrapper's data is the embedded binary.
        unsafe { container_ptx(w.data) }
    })
    .unwrap_or_else(|_| Err("internal error reading the fat binary".into()));
    register_binary(ptx)
}

/// `__hipRegisterFatBinary`: as `__cudaRegisterFatBinary`.
///
/// # Safety
/// As `__cudaRegisterFatBinary`.
#[no_mangle]
pub unsafe extern "C" fn __hipRegisterFatBinary(wrapper: *const c_void) -> *mut *mut c_void {
    // SAFETY: forwarded.
    unsafe { __cudaRegisterFatBinary(wrapper) }
}

/// `__cudaRegisterFatBinaryEnd`: nothing to do.
#[no_mangle]
pub extern "C" fn __cudaRegisterFatBinaryEnd(_handle: *mut *mut c_void) {}

/// `__cudaUnregisterFatBinary` (at exit): forgets the registrations. Loaded modules stay until
/// the process ends, as the driver tears down after `atexit` handlers run.
#[no_mangle]
pub extern "C" fn __cudaUnregisterFatBinary(handle: *mut *mut c_void) {
    let _ = std::panic::catch_unwind(|| {
        crate::state::GENERATION.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        let mut r = lock(registry());
        if let Some(code) = r.binaries.remove(&(handle as u64)) {
            r.functions.retain(|_, f| !Arc::ptr_eq(&f.0, &code));
            r.vars.retain(|_, v| !Arc::ptr_eq(&v.0, &code));
        }
    });
}

/// `__hipUnregisterFatBinary`.
#[no_mangle]
pub extern "C" fn __hipUnregisterFatBinary(handle: *mut *mut c_void) {
    __cudaUnregisterFatBinary(handle)
}

/// `__cudaRegisterFunction`: the host stub `host` launches kernel `name`.
///
/// # Safety
/// `name` is null or NUL-terminated.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __cudaRegisterFunction(
    handle: *mut *mut c_void,
    host: *const c_void,
    _device_fun: *mut c_char,
    name: *const c_char,
    _thread_limit: c_int,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _block: *mut CDim3,
    _grid: *mut CDim3,
    _wsize: *mut c_int,
) -> c_int {
    let _ = std::panic::catch_unwind(|| {
        if let (Some(code), Some(name)) = (binary(handle), c_name(name)) {
            lock(registry()).functions.insert(host as usize, (code, name));
        }
    });
    0
}

/// `__hipRegisterFunction`.
///
/// # Safety
/// As `__cudaRegisterFunction`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __hipRegisterFunction(
    handle: *mut *mut c_void,
    host: *const c_void,
    device_fun: *mut c_char,
    name: *const c_char,
    thread_limit: c_uint,
    tid: *mut c_void,
    bid: *mut c_void,
    block: *mut CDim3,
    grid: *mut CDim3,
    wsize: *mut c_int,
) {
    // SAFETY: forwarded.
    unsafe {
        __cudaRegisterFunction(
            handle,
            host,
            device_fun,
            name,
            thread_limit as c_int,
            tid,
            bid,
            block,
            grid,
            wsize,
        )
    };
}

/// `__cudaRegisterVar`: the host shadow `host` stands for module variable `name`.
///
/// # Safety
/// `name` is null or NUL-terminated.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __cudaRegisterVar(
    handle: *mut *mut c_void,
    host: *mut c_void,
    _device_address: *mut c_char,
    name: *const c_char,
    _ext: c_int,
    size: usize,
    _constant: c_int,
    _global: c_int,
) {
    let _ = std::panic::catch_unwind(|| {
        if let (Some(code), Some(name)) = (binary(handle), c_name(name)) {
            lock(registry()).vars.insert(host as usize, (code, name, size as u64));
        }
    });
}

/// `__hipRegisterVar`.
///
/// # Safety
/// As `__cudaRegisterVar`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __hipRegisterVar(
    handle: *mut *mut c_void,
    host: *mut c_void,
    device_address: *mut c_char,
    name: *const c_char,
    ext: c_int,
    size: usize,
    constant: c_int,
    global: c_int,
) {
    // SAFETY: forwarded.
    unsafe { __cudaRegisterVar(handle, host, device_address, name, ext, size, constant, global) }
}

/// `__cudaRegisterManagedVar`: `__managed__` variables are not supported; launches of the
/// translation unit's kernels then fail with `hipErrorNotSupported` naming the variable.
///
/// # Safety
/// `name` is null or NUL-terminated.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __cudaRegisterManagedVar(
    handle: *mut *mut c_void,
    _host: *mut *mut c_void,
    _device_address: *mut c_char,
    name: *const c_char,
    _ext: c_int,
    _size: usize,
    _constant: c_int,
    _global: c_int,
) {
    let _ = std::panic::catch_unwind(|| {
        if let Some(code) = binary(handle) {
            let n = c_name(name).unwrap_or_default();
            lock(&code.unsupported).push(format!(
                "the __managed__ variable `{n}` (use hipMallocManaged instead) is not supported"
            ));
        }
    });
}

/// `__hipRegisterManagedVar`: as `__cudaRegisterManagedVar`.
///
/// # Safety
/// `name` is null or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn __hipRegisterManagedVar(
    handle: *mut c_void,
    _pointer: *mut *mut c_void,
    _init: *mut c_void,
    name: *const c_char,
    _size: usize,
    _align: c_uint,
) {
    // SAFETY: forwarded.
    unsafe {
        __cudaRegisterManagedVar(
            handle as *mut *mut c_void,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            name,
            0,
            0,
            0,
            0,
        )
    }
}

/// A launch configuration pushed by `<<<...>>>` (or `hipConfigureCall`).
#[derive(Clone, Copy)]
struct CallConfig {
    grid: CDim3,
    block: CDim3,
    shared: usize,
    stream: *mut c_void,
}

thread_local! {
    static CONFIGS: RefCell<Vec<CallConfig>> = const { RefCell::new(Vec::new()) };
    static SETUP: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// `__cudaPushCallConfiguration`: `<<<grid, block, shared, stream>>>`.
#[no_mangle]
pub extern "C" fn __cudaPushCallConfiguration(
    grid: CDim3,
    block: CDim3,
    shared: usize,
    stream: *mut c_void,
) -> HipError {
    CONFIGS.with(|c| c.borrow_mut().push(CallConfig { grid, block, shared, stream }));
    HipError::hipSuccess
}

/// `__hipPushCallConfiguration`.
#[no_mangle]
pub extern "C" fn __hipPushCallConfiguration(
    grid: CDim3,
    block: CDim3,
    shared: usize,
    stream: *mut c_void,
) -> HipError {
    __cudaPushCallConfiguration(grid, block, shared, stream)
}

/// `__cudaPopCallConfiguration`: hands the last pushed configuration to the kernel stub (an
/// empty grid, which the launch refuses, when none was pushed).
///
/// # Safety
/// Each out-pointer is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn __cudaPopCallConfiguration(
    grid: *mut CDim3,
    block: *mut CDim3,
    shared: *mut usize,
    stream: *mut *mut c_void,
) -> HipError {
    let c = CONFIGS.with(|c| c.borrow_mut().pop());
    let found = c.is_some();
    let c = c.unwrap_or(CallConfig {
        grid: CDim3::default(),
        block: CDim3::default(),
        shared: 0,
        stream: std::ptr::null_mut(),
    });
    // SAFETY: the stub's locals (the caller's contract).
    unsafe {
        if !grid.is_null() {
            grid.write(c.grid);
        }
        if !block.is_null() {
            block.write(c.block);
        }
        if !shared.is_null() {
            shared.write(c.shared);
        }
        if !stream.is_null() {
            stream.write(c.stream);
        }
    }
    if found {
        HipError::hipSuccess
    } else {
        HipError::hipErrorMissingConfiguration
    }
}

/// `__hipPopCallConfiguration`.
///
/// # Safety
/// As `__cudaPopCallConfiguration`.
#[no_mangle]
pub unsafe extern "C" fn __hipPopCallConfiguration(
    grid: *mut CDim3,
    block: *mut CDim3,
    shared: *mut usize,
    stream: *mut *mut c_void,
) -> HipError {
    // SAFETY: forwarded.
    unsafe { __cudaPopCallConfiguration(grid, block, shared, stream) }
}

/// Where a launch's arguments are.
enum Args {
    /// `void** args`: one pointer per parameter.
    Pointers(*mut *mut c_void),
    /// One buffer with every parameter at its aligned offset (`HIP_LAUNCH_PARAM_BUFFER_POINTER`).
    Packed(*const u8, usize),
}

/// Launches `kernel` on `stream`, after checking the arguments against its PTX signature.
///
/// # Safety
/// `Args` points to what it says, for every parameter; addresses among the arguments are the
/// kernel's to use (GPU kernels trust them; the CPU executor checks each access).
unsafe fn launch(
    kernel: &Kernel,
    grid: CDim3,
    block: CDim3,
    shared: usize,
    stream: &Stream,
    args: Args,
    cooperative: bool,
) -> HipResult<()> {
    let mut ka = KernelArgs::new();
    match args {
        Args::Pointers(p) => {
            if p.is_null() && !kernel.params.is_empty() {
                return Err(Failure::invalid(format!(
                    "kernel `{}` takes {} parameters but the argument array is null",
                    kernel.name,
                    kernel.params.len()
                )));
            }
            for (i, param) in kernel.params.iter().enumerate() {
                // SAFETY: the array holds one pointer per parameter (the caller's contract).
                let a = unsafe { *p.add(i) };
                if a.is_null() {
                    return Err(Failure::invalid(format!(
                        "argument {i} of kernel `{}` is a null pointer",
                        kernel.name
                    )));
                }
                // SAFETY: each argument points to a value of the parameter's size.
                let bytes = unsafe { std::slice::from_raw_parts(a as *const u8, param.size as usize) };
                ka.push_bytes(bytes);
            }
        }
        Args::Packed(buf, len) => {
            let mut at = 0usize;
            for (i, param) in kernel.params.iter().enumerate() {
                at = at.next_multiple_of(param.align.max(1) as usize);
                let end = at + param.size as usize;
                if end > len || buf.is_null() {
                    return Err(Failure::invalid(format!(
                        "the argument buffer of {len} bytes ends before parameter {i} of kernel `{}` ({} bytes at offset {at})",
                        kernel.name, param.size
                    )));
                }
                // SAFETY: `end <= len` bytes of the caller's buffer.
                ka.push_bytes(unsafe { std::slice::from_raw_parts(buf.add(at), param.size as usize) });
                at = end;
            }
        }
    }
    let shared = u32::try_from(shared)
        .map_err(|_| Failure::invalid(format!("{shared} bytes of dynamic shared memory")))?;
    let mut cfg = LaunchConfig::new(Dim3::from(grid), Dim3::from(block)).with_shared_mem(shared);
    if cooperative {
        cfg = cfg.cooperative();
    }
    // SAFETY: the arguments match the kernel's PTX signature in number and size; what they
    // point to is the program's promise, as in HIP.
    unsafe { stream.launch(&kernel.function, cfg, &ka)? };
    Ok(())
}

/// Launches the kernel registered for host stub `f`.
unsafe fn launch_stub(
    f: *const c_void,
    grid: CDim3,
    block: CDim3,
    args: Args,
    shared: usize,
    stream: *mut c_void,
    cooperative: bool,
) -> HipResult<()> {
    let h = hip()?;
    let s = h.stream(stream as u64)?;
    let dev = h.index_of(s.device()).unwrap_or(h.current());
    let k = registered_kernel(f as usize, dev)?;
    // SAFETY: forwarded from the caller.
    unsafe { launch(&k, grid, block, shared, &s, args, cooperative) }
}

/// `cudaLaunchKernel`: what `kernel<<<...>>>(args)` calls.
///
/// # Safety
/// `args` holds a pointer to each of the kernel's arguments.
#[no_mangle]
pub unsafe extern "C" fn cudaLaunchKernel(
    f: *const c_void,
    grid: CDim3,
    block: CDim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> HipError {
    crate::error::guard("cudaLaunchKernel", || unsafe {
        launch_stub(f, grid, block, Args::Pointers(args), shared, stream, false)
    })
}

/// `hipLaunchKernel`.
///
/// # Safety
/// As `cudaLaunchKernel`.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchKernel(
    f: *const c_void,
    grid: CDim3,
    block: CDim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: *mut c_void,
) -> HipError {
    crate::error::guard("hipLaunchKernel", || unsafe {
        launch_stub(f, grid, block, Args::Pointers(args), shared, stream, false)
    })
}

/// `hipLaunchCooperativeKernel`: every block resident at once (grid-wide barriers allowed).
///
/// # Safety
/// As `cudaLaunchKernel`.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchCooperativeKernel(
    f: *const c_void,
    grid: CDim3,
    block: CDim3,
    args: *mut *mut c_void,
    shared: c_uint,
    stream: *mut c_void,
) -> HipError {
    crate::error::guard("hipLaunchCooperativeKernel", || unsafe {
        launch_stub(f, grid, block, Args::Pointers(args), shared as usize, stream, true)
    })
}

/// `hipConfigureCall`: the old launch API's configuration.
#[no_mangle]
pub extern "C" fn hipConfigureCall(
    grid: CDim3,
    block: CDim3,
    shared: usize,
    stream: *mut c_void,
) -> HipError {
    SETUP.with(|s| s.borrow_mut().clear());
    __cudaPushCallConfiguration(grid, block, shared, stream)
}

/// `hipSetupArgument`: `size` bytes at `offset` of the old launch API's argument buffer.
///
/// # Safety
/// `arg` is valid for reads of `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipSetupArgument(arg: *const c_void, size: usize, offset: usize) -> HipError {
    crate::error::guard("hipSetupArgument", || {
        if arg.is_null() || size == 0 {
            return Err(Failure::invalid("a null or empty argument"));
        }
        let end = offset
            .checked_add(size)
            .filter(|e| *e <= 4096)
            .ok_or_else(|| Failure::invalid("kernel arguments are limited to 4096 bytes"))?;
        SETUP.with(|s| {
            let mut s = s.borrow_mut();
            if s.len() < end {
                s.resize(end, 0);
            }
            // SAFETY: `size` readable bytes at `arg` (the caller's contract).
            s[offset..end].copy_from_slice(unsafe { std::slice::from_raw_parts(arg as *const u8, size) });
        });
        Ok(())
    })
}

/// `hipLaunchByPtr`: launches with the configuration and arguments set up before.
///
/// # Safety
/// `f` is a registered kernel stub.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchByPtr(f: *const c_void) -> HipError {
    crate::error::guard("hipLaunchByPtr", || {
        let Some(c) = CONFIGS.with(|c| c.borrow_mut().pop()) else {
            return Err(Failure::new(
                HipError::hipErrorMissingConfiguration,
                "hipConfigureCall was not called",
            ));
        };
        let buf = SETUP.with(|s| std::mem::take(&mut *s.borrow_mut()));
        // SAFETY: the buffer holds the arguments at their offsets.
        unsafe {
            launch_stub(f, c.grid, c.block, Args::Packed(buf.as_ptr(), buf.len()), c.shared, c.stream, false)
        }
    })
}

// ---- the module API ----

/// The PTX in a module image: ferrocm's container, or PTX text.
///
/// # Safety
/// `image` points to a container or a NUL-terminated string.
unsafe fn image_ptx(image: *const c_void) -> HipResult<Arc<str>> {
    if image.is_null() {
        return Err(Failure::invalid("image is a null pointer"));
    }
    // SAFETY: at least the first bytes of either form are readable; a string shorter than the
    // magic ends at its NUL, which differs from the magic's bytes before it.
    let first = unsafe { std::slice::from_raw_parts(image as *const u8, 1) };
    if first[0] == b'F' {
        // SAFETY: checked against the magic byte by byte inside.
        let head = unsafe { CStr::from_ptr(image as *const c_char) }.to_bytes();
        if head == &CONTAINER_MAGIC[..7] {
            // SAFETY: a container (its magic matched).
            return unsafe { container_ptx(image as *const u8) }
                .map_err(|m| Failure::new(HipError::hipErrorInvalidImage, m));
        }
    }
    // SAFETY: a NUL-terminated string (the caller's contract).
    let text = unsafe { CStr::from_ptr(image as *const c_char) }
        .to_str()
        .map_err(|_| Failure::new(HipError::hipErrorInvalidImage, "the image is not UTF-8 PTX"))?;
    if !text.contains(".version") && !text.contains(".entry") {
        return Err(Failure::new(
            HipError::hipErrorInvalidImage,
            "the image is neither PTX text nor a ferrocm code object (binary code objects cannot be loaded)",
        ));
    }
    Ok(Arc::from(text))
}

fn load_module(module: *mut *mut c_void, ptx: Arc<str>) -> HipResult<()> {
    if module.is_null() {
        return Err(Failure::invalid("module is a null pointer"));
    }
    let h = hip()?;
    let code = Arc::new(Code::new(Ok(ptx)));
    code.parsed()?;
    let dev = h.current();
    // Loading validates the code on the device now, as HIP does.
    for k in code.parsed()?.kernels() {
        code.kernel(dev, &k.name).map(|_| ()).or_else(|f| match f.code {
            // A kernel the CPU executor cannot run is reported when it is looked up.
            HipError::hipErrorInvalidDeviceFunction => Ok(()),
            _ => Err(f),
        })?;
    }
    let handle = new_handle();
    lock(&h.modules).insert(handle, Arc::new(ModuleEntry { code, device: dev }));
    // SAFETY: non-null out-parameter.
    unsafe { out(module, "module", handle as *mut c_void) }
}

fn module_entry(m: *mut c_void) -> HipResult<Arc<ModuleEntry>> {
    lock(&hip()?.modules).get(&(m as u64)).cloned().ok_or_else(|| {
        Failure::new(HipError::hipErrorInvalidHandle, format!("unknown module {:#x}", m as u64))
    })
}

fn function_entry(f: *mut c_void) -> HipResult<Arc<FunctionEntry>> {
    lock(&hip()?.functions).get(&(f as u64)).cloned().ok_or_else(|| {
        Failure::new(HipError::hipErrorInvalidHandle, format!("unknown function {:#x}", f as u64))
    })
}

/// `hipFuncAttributes`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct FuncAttributes {
    pub binary_version: c_int,
    pub cache_mode_ca: c_int,
    pub const_size_bytes: usize,
    pub local_size_bytes: usize,
    pub max_dynamic_shared_size_bytes: c_int,
    pub max_threads_per_block: c_int,
    pub num_regs: c_int,
    pub preferred_shmem_carveout: c_int,
    pub ptx_version: c_int,
    pub shared_size_bytes: usize,
}

fn func_attributes(k: &Kernel) -> FuncAttributes {
    let a = k.function.attributes();
    let p = k.function.device().properties();
    let cc = (p.compute_capability.0 * 10 + p.compute_capability.1) as c_int;
    let optin = p.shared_mem_per_block_optin.max(p.shared_mem_per_block);
    FuncAttributes {
        binary_version: cc,
        cache_mode_ca: 0,
        const_size_bytes: 0,
        local_size_bytes: a.local_bytes_per_thread as usize,
        max_dynamic_shared_size_bytes: optin.saturating_sub(a.static_shared_bytes as u64).min(i32::MAX as u64)
            as c_int,
        max_threads_per_block: a.max_threads_per_block as c_int,
        num_regs: a.registers_per_thread as c_int,
        preferred_shmem_carveout: -1,
        ptx_version: cc,
        shared_size_bytes: a.static_shared_bytes as usize,
    }
}

/// The registered kernel behind host stub `f` on the current device.
fn stub_kernel(f: *const c_void) -> HipResult<Kernel> {
    registered_kernel(f as usize, hip()?.current())
}

fn occupancy(k: &Kernel, block: c_int, dynamic: usize) -> HipResult<u32> {
    if block <= 0 {
        return Err(Failure::invalid(format!("block size {block}")));
    }
    let dynamic = u32::try_from(dynamic).map_err(|_| Failure::invalid("dynamic shared memory over 4 GiB"))?;
    Ok(k.function.max_active_blocks_per_cu(block as u32, dynamic)?)
}

fn potential_block_size(k: &Kernel, dynamic: usize, limit: c_int) -> HipResult<(c_int, c_int)> {
    let p = k.function.device().properties();
    let mut max = k.function.attributes().max_threads_per_block.min(p.max_threads_per_block).max(32);
    if limit > 0 {
        max = max.min(limit as u32);
    }
    let mut best = (0u64, 0u32, 0u32);
    let mut b = 32u32.min(max);
    while b <= max {
        let blocks = occupancy(k, b as c_int, dynamic)?;
        let threads = blocks as u64 * b as u64;
        if threads > best.0 || (threads == best.0 && b > best.1) {
            best = (threads, b, blocks);
        }
        b += 32;
    }
    if best.1 == 0 {
        return Err(Failure::new(
            HipError::hipErrorLaunchOutOfResources,
            "no block size fits the kernel's resources",
        ));
    }
    Ok(((best.2 * p.compute_units).min(i32::MAX as u32) as c_int, best.1 as c_int))
}

hip_api! {
    /// `hipModuleLoad`: PTX (or a ferrocm code object) from a file, on the current device.
    fn hipModuleLoad(module: *mut *mut c_void, fname: *const c_char) {
        let Some(path) = c_name(fname) else { return Err(Failure::invalid("fname is a null pointer")) };
        let bytes = std::fs::read(&path).map_err(|e| Failure::new(HipError::hipErrorFileNotFound, format!("{path}: {e}")))?;
        let mut bytes = bytes;
        bytes.push(0);
        let ptx = unsafe { image_ptx(bytes.as_ptr() as *const c_void)? };
        load_module(module, ptx)
    }

    /// `hipModuleLoadData`: PTX text or a ferrocm code object in memory.
    fn hipModuleLoadData(module: *mut *mut c_void, image: *const c_void) {
        let ptx = unsafe { image_ptx(image)? };
        load_module(module, ptx)
    }

    /// `hipModuleLoadDataEx`: as `hipModuleLoadData` (the JIT options are not needed).
    fn hipModuleLoadDataEx(module: *mut *mut c_void, image: *const c_void, n: c_uint, options: *mut c_int, values: *mut *mut c_void) {
        let _ = (n, options, values);
        let ptx = unsafe { image_ptx(image)? };
        load_module(module, ptx)
    }

    /// `hipModuleUnload`.
    fn hipModuleUnload(module: *mut c_void) {
        let h = hip()?;
        let removed = lock(&h.modules).remove(&(module as u64));
        let Some(m) = removed else {
            return Err(Failure::new(HipError::hipErrorInvalidHandle, format!("unknown module {:#x}", module as u64)));
        };
        drop(m);
        lock(&h.functions).retain(|_, f| f.module != module as u64);
        Ok(())
    }

    /// `hipModuleGetFunction`: `hipErrorNotFound` for a name the module lacks.
    fn hipModuleGetFunction(function: *mut *mut c_void, module: *mut c_void, name: *const c_char) {
        if function.is_null() {
            return Err(Failure::invalid("function is a null pointer"));
        }
        let Some(name) = c_name(name) else { return Err(Failure::invalid("kname is a null pointer")) };
        let m = module_entry(module)?;
        let kernel = m.code.kernel(m.device, &name)?;
        let handle = new_handle();
        lock(&hip()?.functions).insert(handle, Arc::new(FunctionEntry { kernel, device: m.device, module: module as u64 }));
        unsafe { out(function, "function", handle as *mut c_void) }
    }

    /// `hipModuleGetGlobal`: a module variable's device address and size (either may be null).
    fn hipModuleGetGlobal(dptr: *mut *mut c_void, bytes: *mut usize, module: *mut c_void, name: *const c_char) {
        let Some(name) = c_name(name) else { return Err(Failure::invalid("name is a null pointer")) };
        let m = module_entry(module)?;
        let (addr, size) = m.code.global(m.device, &name)?;
        if !dptr.is_null() {
            unsafe { out(dptr, "dptr", addr as *mut c_void)? };
        }
        if !bytes.is_null() {
            unsafe { out(bytes, "bytes", size as usize)? };
        }
        Ok(())
    }

    /// `hipModuleLaunchKernel`: arguments as `kernelParams` (a pointer per parameter) or as a
    /// packed buffer in `extra`.
    fn hipModuleLaunchKernel(f: *mut c_void, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: *mut c_void, params: *mut *mut c_void, extra: *mut *mut c_void) {
        let fe = function_entry(f)?;
        let s = hip()?.stream(stream as u64)?;
        let args = unsafe { launch_args(params, extra)? };
        unsafe { launch(&fe.kernel, CDim3 { x: gx, y: gy, z: gz }, CDim3 { x: bx, y: by, z: bz }, shared as usize, &s, args, false) }
    }

    /// `hipModuleLaunchCooperativeKernel`.
    fn hipModuleLaunchCooperativeKernel(f: *mut c_void, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: *mut c_void, params: *mut *mut c_void) {
        let fe = function_entry(f)?;
        let s = hip()?.stream(stream as u64)?;
        unsafe { launch(&fe.kernel, CDim3 { x: gx, y: gy, z: gz }, CDim3 { x: bx, y: by, z: bz }, shared as usize, &s, Args::Pointers(params), true) }
    }

    /// `hipFuncGetAttribute` on a module function.
    fn hipFuncGetAttribute(value: *mut c_int, attrib: c_int, f: *mut c_void) {
        let a = func_attributes(&function_entry(f)?.kernel);
        let v = match attrib {
            0 => a.max_threads_per_block,
            1 => a.shared_size_bytes as c_int,
            2 => a.const_size_bytes as c_int,
            3 => a.local_size_bytes as c_int,
            4 => a.num_regs,
            5 => a.ptx_version,
            6 => a.binary_version,
            7 => a.cache_mode_ca,
            8 => a.max_dynamic_shared_size_bytes,
            9 => a.preferred_shmem_carveout,
            _ => return Err(Failure::invalid(format!("unknown function attribute {attrib}"))),
        };
        unsafe { out(value, "value", v) }
    }

    /// `hipFuncGetAttributes` on a registered kernel.
    fn hipFuncGetAttributes(attr: *mut FuncAttributes, f: *const c_void) {
        let a = func_attributes(&stub_kernel(f)?);
        unsafe { out(attr, "attr", a) }
    }

    /// `hipFuncSetAttribute`: the dynamic shared memory limit (up to the opt-in limit) and the
    /// carveout preference are checked and accepted (launches opt in as needed).
    fn hipFuncSetAttribute(f: *const c_void, attr: c_int, value: c_int) {
        let a = func_attributes(&stub_kernel(f)?);
        match attr {
            8 if (0..=a.max_dynamic_shared_size_bytes).contains(&value) => Ok(()),
            8 => Err(Failure::invalid(format!(
                "{value} bytes of dynamic shared memory: the kernel may use at most {}",
                a.max_dynamic_shared_size_bytes
            ))),
            9 if (-1..=100).contains(&value) => Ok(()),
            9 => Err(Failure::invalid(format!("carveout {value} (a percentage, or -1)"))),
            _ => Err(Failure::invalid(format!("unknown function attribute {attr}"))),
        }
    }

    /// `hipFuncSetCacheConfig`: accepted for a registered kernel.
    fn hipFuncSetCacheConfig(f: *const c_void, config: c_int) {
        if !(0..=3).contains(&config) {
            return Err(Failure::invalid(format!("unknown cache configuration {config}")));
        }
        stub_kernel(f).map(|_| ())
    }

    /// `hipFuncSetSharedMemConfig`: accepted for a registered kernel.
    fn hipFuncSetSharedMemConfig(f: *const c_void, config: c_int) {
        if !(0..=2).contains(&config) {
            return Err(Failure::invalid(format!("unknown shared memory configuration {config}")));
        }
        stub_kernel(f).map(|_| ())
    }

    /// `hipOccupancyMaxActiveBlocksPerMultiprocessor`.
    fn hipOccupancyMaxActiveBlocksPerMultiprocessor(blocks: *mut c_int, f: *const c_void, block: c_int, dynamic: usize) {
        let n = occupancy(&stub_kernel(f)?, block, dynamic)?;
        unsafe { out(blocks, "numBlocks", n as c_int) }
    }

    /// `hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags` (the flags select nothing here).
    fn hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks: *mut c_int, f: *const c_void, block: c_int, dynamic: usize, flags: c_uint) {
        let _ = flags;
        let n = occupancy(&stub_kernel(f)?, block, dynamic)?;
        unsafe { out(blocks, "numBlocks", n as c_int) }
    }

    /// `hipOccupancyMaxPotentialBlockSize`: the block size with the most resident threads, and
    /// the grid that fills the device with it.
    fn hipOccupancyMaxPotentialBlockSize(grid: *mut c_int, block: *mut c_int, f: *const c_void, dynamic: usize, limit: c_int) {
        let (g, b) = potential_block_size(&stub_kernel(f)?, dynamic, limit)?;
        unsafe { out(grid, "gridSize", g)? };
        unsafe { out(block, "blockSize", b) }
    }

    /// `hipModuleOccupancyMaxActiveBlocksPerMultiprocessor`.
    fn hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(blocks: *mut c_int, f: *mut c_void, block: c_int, dynamic: usize) {
        let n = occupancy(&function_entry(f)?.kernel, block, dynamic)?;
        unsafe { out(blocks, "numBlocks", n as c_int) }
    }

    /// `hipModuleOccupancyMaxPotentialBlockSize`.
    fn hipModuleOccupancyMaxPotentialBlockSize(grid: *mut c_int, block: *mut c_int, f: *mut c_void, dynamic: usize, limit: c_int) {
        let (g, b) = potential_block_size(&function_entry(f)?.kernel, dynamic, limit)?;
        unsafe { out(grid, "gridSize", g)? };
        unsafe { out(block, "blockSize", b) }
    }
}

/// The arguments of `hipModuleLaunchKernel`: `kernelParams`, or `extra`'s packed buffer.
///
/// # Safety
/// `extra` is null or a `HIP_LAUNCH_PARAM_*` list ending in `HIP_LAUNCH_PARAM_END`.
unsafe fn launch_args(params: *mut *mut c_void, extra: *mut *mut c_void) -> HipResult<Args> {
    if extra.is_null() {
        return Ok(Args::Pointers(params));
    }
    if !params.is_null() {
        return Err(Failure::invalid("kernelParams and extra are both given"));
    }
    let (mut buf, mut size) = (std::ptr::null::<u8>(), None::<usize>);
    for i in (0..64).step_by(2) {
        // SAFETY: a list of (key, value) pairs ending in HIP_LAUNCH_PARAM_END (the caller's
        // contract); at most 32 pairs are read.
        let key = unsafe { *extra.add(i) } as usize;
        match key {
            3 => {
                let Some(size) = size else {
                    return Err(Failure::invalid("extra lacks HIP_LAUNCH_PARAM_BUFFER_SIZE"));
                };
                return Ok(Args::Packed(buf, size));
            }
            1 => buf = unsafe { *extra.add(i + 1) } as *const u8,
            2 => {
                let p = unsafe { *extra.add(i + 1) } as *const usize;
                if p.is_null() {
                    return Err(Failure::invalid("HIP_LAUNCH_PARAM_BUFFER_SIZE points to null"));
                }
                // SAFETY: the size's address (the caller's contract).
                size = Some(unsafe { *p });
            }
            k => return Err(Failure::invalid(format!("unknown launch parameter key {k}"))),
        }
    }
    Err(Failure::invalid("extra does not end in HIP_LAUNCH_PARAM_END"))
}
