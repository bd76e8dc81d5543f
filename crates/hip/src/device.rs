//! Errors, devices, properties, attributes, peer access and the profiler hooks.

use std::ffi::{c_char, c_int, c_uint};

use ferrocm_runtime::{BackendKind, Device};

use crate::error::{self, out, Failure, HipError, HipResult};
use crate::state::{hip, lock};

/// `hipDeviceProp_t` as `hip/hip_runtime_api.h` lays it out.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct HipDeviceProp {
    pub name: [c_char; 256],
    pub uuid: [c_char; 16],
    pub total_global_mem: usize,
    pub shared_mem_per_block: usize,
    pub regs_per_block: c_int,
    pub warp_size: c_int,
    pub mem_pitch: usize,
    pub max_threads_per_block: c_int,
    pub max_threads_dim: [c_int; 3],
    pub max_grid_size: [c_int; 3],
    pub clock_rate: c_int,
    pub total_const_mem: usize,
    pub major: c_int,
    pub minor: c_int,
    pub texture_alignment: usize,
    pub texture_pitch_alignment: usize,
    pub device_overlap: c_int,
    pub multi_processor_count: c_int,
    pub kernel_exec_timeout_enabled: c_int,
    pub integrated: c_int,
    pub can_map_host_memory: c_int,
    pub compute_mode: c_int,
    pub concurrent_kernels: c_int,
    pub ecc_enabled: c_int,
    pub pci_bus_id: c_int,
    pub pci_device_id: c_int,
    pub pci_domain_id: c_int,
    pub tcc_driver: c_int,
    pub async_engine_count: c_int,
    pub unified_addressing: c_int,
    pub memory_clock_rate: c_int,
    pub memory_bus_width: c_int,
    pub l2_cache_size: c_int,
    pub persisting_l2_cache_max_size: c_int,
    pub max_threads_per_multi_processor: c_int,
    pub stream_priorities_supported: c_int,
    pub global_l1_cache_supported: c_int,
    pub local_l1_cache_supported: c_int,
    pub shared_mem_per_multiprocessor: usize,
    pub regs_per_multiprocessor: c_int,
    pub managed_memory: c_int,
    pub is_multi_gpu_board: c_int,
    pub multi_gpu_board_group_id: c_int,
    pub host_native_atomic_supported: c_int,
    pub single_to_double_precision_perf_ratio: c_int,
    pub pageable_memory_access: c_int,
    pub concurrent_managed_access: c_int,
    pub compute_preemption_supported: c_int,
    pub can_use_host_pointer_for_registered_mem: c_int,
    pub cooperative_launch: c_int,
    pub cooperative_multi_device_launch: c_int,
    pub shared_mem_per_block_optin: usize,
    pub pageable_memory_access_uses_host_page_tables: c_int,
    pub direct_managed_mem_access_from_host: c_int,
    pub max_blocks_per_multi_processor: c_int,
    pub access_policy_max_window_size: c_int,
    pub reserved_shared_mem_per_block: usize,
    pub host_register_supported: c_int,
    pub memory_pools_supported: c_int,
    pub cluster_launch: c_int,
    pub gcn_arch_name: [c_char; 256],
    pub max_shared_memory_per_multi_processor: usize,
    pub clock_instruction_rate: c_int,
    /// `hipDeviceArch_t`: seventeen one-bit fields in one `unsigned`.
    pub arch: c_uint,
    pub is_large_bar: c_int,
    pub asic_revision: c_int,
    pub reserved: [c_int; 64],
}

fn copy_name(dst: &mut [c_char], s: &str) {
    let n = s.len().min(dst.len() - 1);
    for (d, b) in dst.iter_mut().zip(s.bytes().take(n)) {
        *d = b as c_char;
    }
    dst[n] = 0;
}

fn clamp(v: u64) -> c_int {
    v.min(i32::MAX as u64) as c_int
}

/// The PCI bus, device and domain numbers of "dddd:bb:dd.f".
fn pci_parts(id: &str) -> (c_int, c_int, c_int) {
    let mut it = id.split([':', '.']);
    let dom = it.next().and_then(|s| i32::from_str_radix(s, 16).ok()).unwrap_or(0);
    let bus = it.next().and_then(|s| i32::from_str_radix(s, 16).ok()).unwrap_or(0);
    let dev = it.next().and_then(|s| i32::from_str_radix(s, 16).ok()).unwrap_or(0);
    (bus, dev, dom)
}

pub fn properties(d: &Device) -> HipDeviceProp {
    let p = d.properties();
    // SAFETY: the struct is plain C data; all zeroes is a valid value of every field.
    let mut r: HipDeviceProp = unsafe { std::mem::zeroed() };
    copy_name(&mut r.name, &p.name);
    let hex: Vec<u8> = p.uuid.bytes().filter(u8::is_ascii_hexdigit).collect();
    for (k, b) in r.uuid.iter_mut().enumerate() {
        let pair = hex.get(2 * k..2 * k + 2).and_then(|h| std::str::from_utf8(h).ok());
        *b = pair.and_then(|h| u8::from_str_radix(h, 16).ok()).unwrap_or(0) as c_char;
    }
    r.total_global_mem = p.total_memory as usize;
    r.shared_mem_per_block = p.shared_mem_per_block as usize;
    r.regs_per_block = clamp(p.registers_per_block as u64);
    r.warp_size = p.warp_size as c_int;
    r.mem_pitch = i32::MAX as usize;
    r.max_threads_per_block = p.max_threads_per_block as c_int;
    r.max_threads_dim = p.max_block_dim.map(|v| clamp(v as u64));
    r.max_grid_size = p.max_grid_dim.map(|v| clamp(v as u64));
    r.clock_rate = clamp(p.clock_khz as u64);
    r.total_const_mem = 64 * 1024;
    r.major = p.compute_capability.0 as c_int;
    r.minor = p.compute_capability.1 as c_int;
    r.texture_alignment = 512;
    r.texture_pitch_alignment = 32;
    r.device_overlap = 1;
    r.multi_processor_count = clamp(p.compute_units as u64);
    r.integrated = (d.kind() == BackendKind::Cpu) as c_int;
    r.can_map_host_memory = 1;
    r.concurrent_kernels = p.concurrent_kernels as c_int;
    let (bus, dev, dom) = pci_parts(&p.pci_bus_id);
    r.pci_bus_id = bus;
    r.pci_device_id = dev;
    r.pci_domain_id = dom;
    r.async_engine_count = clamp(p.async_engines as u64);
    r.unified_addressing = 1;
    r.memory_clock_rate = clamp(p.memory_clock_khz as u64);
    r.memory_bus_width = clamp(p.memory_bus_width as u64);
    r.l2_cache_size = clamp(p.l2_cache_bytes);
    r.max_threads_per_multi_processor = clamp(p.max_threads_per_cu as u64);
    r.stream_priorities_supported = 1;
    r.global_l1_cache_supported = 1;
    r.local_l1_cache_supported = 1;
    r.shared_mem_per_multiprocessor = p.shared_mem_per_cu as usize;
    r.regs_per_multiprocessor = clamp(p.registers_per_cu as u64);
    r.managed_memory = p.managed_memory as c_int;
    r.host_native_atomic_supported = (d.kind() == BackendKind::Cpu) as c_int;
    r.single_to_double_precision_perf_ratio = 2;
    r.concurrent_managed_access = p.managed_memory as c_int;
    r.compute_preemption_supported = 1;
    r.cooperative_launch = 1;
    r.shared_mem_per_block_optin = p.shared_mem_per_block_optin as usize;
    r.direct_managed_mem_access_from_host = (d.kind() == BackendKind::Cpu) as c_int;
    r.max_blocks_per_multi_processor = 32;
    r.reserved_shared_mem_per_block = if d.kind() == BackendKind::Cpu { 0 } else { 1024 };
    r.host_register_supported = 0;
    r.memory_pools_supported = 1;
    r.cluster_launch = d.target().has(ferrocm_runtime::Feature::Clusters) as c_int;
    copy_name(&mut r.gcn_arch_name, &p.arch);
    r.max_shared_memory_per_multi_processor = p.shared_mem_per_cu as usize;
    r.clock_instruction_rate = clamp(p.clock_khz as u64);
    // Every capability but surfaces (bit 14) and dynamic parallelism (bit 16).
    r.arch = ((1 << 17) - 1) & !(1 << 14) & !(1 << 16);
    r
}

/// The value of one `hipDeviceAttribute_t` (`None` for an attribute this library lacks).
fn attribute(d: &Device, attr: c_int) -> Option<c_int> {
    let r = properties(d);
    let p = d.properties();
    Some(match attr {
        0 => r.ecc_enabled,
        1 => r.access_policy_max_window_size,
        2 => r.async_engine_count,
        3 => r.can_map_host_memory,
        4 => r.can_use_host_pointer_for_registered_mem,
        5 => r.clock_rate,
        6 => r.compute_mode,
        7 => r.compute_preemption_supported,
        8 => r.concurrent_kernels,
        9 => r.concurrent_managed_access,
        10 => r.cooperative_launch,
        11 => r.cooperative_multi_device_launch,
        12 => r.device_overlap,
        13 => r.direct_managed_mem_access_from_host,
        14 => r.global_l1_cache_supported,
        15 => r.host_native_atomic_supported,
        16 => r.integrated,
        17 => r.is_multi_gpu_board,
        18 => r.kernel_exec_timeout_enabled,
        19 => r.l2_cache_size,
        20 => r.local_l1_cache_supported,
        23 => r.major,
        24 => r.managed_memory,
        25 => r.max_blocks_per_multi_processor,
        26 => r.max_threads_dim[0],
        27 => r.max_threads_dim[1],
        28 => r.max_threads_dim[2],
        29 => r.max_grid_size[0],
        30 => r.max_grid_size[1],
        31 => r.max_grid_size[2],
        56 => r.max_threads_dim[0],
        57 => r.max_threads_per_block,
        58 => r.max_threads_per_multi_processor,
        59 => clamp(r.mem_pitch as u64),
        60 => r.memory_bus_width,
        61 => r.memory_clock_rate,
        62 => r.minor,
        63 => r.multi_gpu_board_group_id,
        64 => r.multi_processor_count,
        66 => r.pageable_memory_access,
        67 => r.pageable_memory_access_uses_host_page_tables,
        68 => r.pci_bus_id,
        69 => r.pci_device_id,
        70 => r.pci_domain_id,
        71 => r.persisting_l2_cache_max_size,
        72 => r.regs_per_block,
        73 => r.regs_per_multiprocessor,
        74 => clamp(r.reserved_shared_mem_per_block as u64),
        75 => clamp(p.shared_mem_per_block),
        76 => clamp(p.shared_mem_per_block_optin),
        77 => clamp(p.shared_mem_per_cu),
        78 => r.single_to_double_precision_perf_ratio,
        79 => r.stream_priorities_supported,
        80 => 512,
        81 => r.tcc_driver,
        82 => clamp(r.texture_alignment as u64),
        83 => clamp(r.texture_pitch_alignment as u64),
        84 => clamp(r.total_const_mem as u64),
        85 => clamp(p.total_memory),
        86 => r.unified_addressing,
        88 => r.warp_size,
        89 => r.memory_pools_supported,
        90 => 0,
        91 => r.host_register_supported,
        92 => 0,
        _ => return None,
    })
}

macro_rules! hip_api {
    ($(
        $(#[$m:meta])*
        fn $name:ident($($arg:ident: $t:ty),* $(,)?) $body:block
    )*) => {$(
        $(#[$m])*
        ///
        /// # Safety
        /// Pointer arguments are null or valid for what HIP reads or writes through them.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $t),*) -> HipError {
            crate::error::guard(stringify!($name), move || -> HipResult<()> { $body })
        }
    )*};
}
pub(crate) use hip_api;

/// `hipGetLastError`: the thread's last error, which is reset to `hipSuccess`.
#[no_mangle]
pub extern "C" fn hipGetLastError() -> HipError {
    error::take_last()
}

/// `hipPeekAtLastError`: the thread's last error, left as it is.
#[no_mangle]
pub extern "C" fn hipPeekAtLastError() -> HipError {
    error::peek_last()
}

/// `hipExtGetLastError`: as `hipGetLastError`.
#[no_mangle]
pub extern "C" fn hipExtGetLastError() -> HipError {
    error::take_last()
}

/// `hipGetErrorName`: the code's name as a static string.
#[no_mangle]
pub extern "C" fn hipGetErrorName(e: HipError) -> *const c_char {
    e.name().as_ptr()
}

/// `hipGetErrorString`: the code's description as a static string.
#[no_mangle]
pub extern "C" fn hipGetErrorString(e: HipError) -> *const c_char {
    e.description().as_ptr()
}

/// ferrocm's extension: the full message of the thread's last failure (the call, the code and
/// what was wrong), valid until the thread's next failure.
#[no_mangle]
pub extern "C" fn ferrocmHipGetLastErrorMessage() -> *const c_char {
    error::last_message()
}

/// ferrocm's extension: `sizeof(hipDeviceProp_t)` as this library lays it out, so programs (and
/// the tests) can check they were compiled against matching headers.
#[no_mangle]
pub extern "C" fn ferrocmHipDevicePropSize() -> usize {
    std::mem::size_of::<HipDeviceProp>()
}

pub(crate) fn check_index(index: c_int) -> HipResult<usize> {
    let h = hip()?;
    if index < 0 || index as usize >= h.devices.len() {
        return Err(Failure::new(
            HipError::hipErrorInvalidDevice,
            format!("device {index} does not exist ({} device(s))", h.devices.len()),
        ));
    }
    Ok(index as usize)
}

hip_api! {
    /// `hipInit`: flags must be 0.
    fn hipInit(flags: c_uint) {
        if flags != 0 {
            return Err(Failure::invalid(format!("hipInit flags must be 0, got {flags}")));
        }
        hip().map(|_| ())
    }

    /// `hipDriverGetVersion`: the CUDA driver's version on NVIDIA, else the HIP version.
    fn hipDriverGetVersion(v: *mut c_int) {
        let version = match ferrocm_runtime::report() {
            Ok(r) => match r.cuda {
                Ok((dv, _)) if dv > 0 => dv as c_int,
                _ => crate::HIP_VERSION,
            },
            Err(_) => crate::HIP_VERSION,
        };
        unsafe { out(v, "driverVersion", version) }
    }

    /// `hipRuntimeGetVersion`: the HIP API version this library implements.
    fn hipRuntimeGetVersion(v: *mut c_int) {
        unsafe { out(v, "runtimeVersion", crate::HIP_VERSION) }
    }

    /// `hipGetDeviceCount`: the GPUs, or the CPU device where there is no GPU.
    fn hipGetDeviceCount(count: *mut c_int) {
        let n = hip()?.devices.len() as c_int;
        unsafe { out(count, "count", n) }
    }

    /// `hipGetDevice`: the calling thread's current device.
    fn hipGetDevice(device: *mut c_int) {
        let d = hip()?.current() as c_int;
        unsafe { out(device, "deviceId", d) }
    }

    /// `hipSetDevice`: makes `device` the calling thread's current device.
    fn hipSetDevice(device: c_int) {
        let i = check_index(device)?;
        hip()?.set_current(i)
    }

    /// `hipDeviceGet`: the device handle of an ordinal (the ordinal itself).
    fn hipDeviceGet(device: *mut c_int, ordinal: c_int) {
        let i = check_index(ordinal)?;
        unsafe { out(device, "device", i as c_int) }
    }

    /// `hipDeviceGetName`.
    fn hipDeviceGetName(name: *mut c_char, len: c_int, device: c_int) {
        let i = check_index(device)?;
        if name.is_null() || len <= 0 {
            return Err(Failure::invalid("name is null or len is not positive"));
        }
        let d = hip()?.device(i)?;
        // SAFETY: the caller provides `len` writable bytes at `name`.
        let buf = unsafe { std::slice::from_raw_parts_mut(name, len as usize) };
        copy_name(buf, &d.properties().name);
        Ok(())
    }

    /// `hipDeviceTotalMem`.
    fn hipDeviceTotalMem(bytes: *mut usize, device: c_int) {
        let i = check_index(device)?;
        let t = hip()?.device(i)?.properties().total_memory as usize;
        unsafe { out(bytes, "bytes", t) }
    }

    /// `hipDeviceComputeCapability`: (0, 0) on the CPU.
    fn hipDeviceComputeCapability(major: *mut c_int, minor: *mut c_int, device: c_int) {
        let i = check_index(device)?;
        let (a, b) = hip()?.device(i)?.properties().compute_capability;
        unsafe { out(major, "major", a as c_int)? };
        unsafe { out(minor, "minor", b as c_int) }
    }

    /// `hipDeviceGetPCIBusId`: "dddd:bb:dd.f" (empty on the CPU).
    fn hipDeviceGetPCIBusId(id: *mut c_char, len: c_int, device: c_int) {
        let i = check_index(device)?;
        if id.is_null() || len <= 0 {
            return Err(Failure::invalid("pciBusId is null or len is not positive"));
        }
        let d = hip()?.device(i)?;
        // SAFETY: the caller provides `len` writable bytes at `id`.
        let buf = unsafe { std::slice::from_raw_parts_mut(id, len as usize) };
        copy_name(buf, &d.properties().pci_bus_id);
        Ok(())
    }

    /// `hipGetDeviceProperties`.
    fn hipGetDeviceProperties(prop: *mut HipDeviceProp, device: c_int) {
        let i = check_index(device)?;
        let p = properties(&hip()?.device(i)?);
        unsafe { out(prop, "prop", p) }
    }

    /// `hipGetDevicePropertiesR0600`: HIP 6's name for `hipGetDeviceProperties`.
    fn hipGetDevicePropertiesR0600(prop: *mut HipDeviceProp, device: c_int) {
        let i = check_index(device)?;
        let p = properties(&hip()?.device(i)?);
        unsafe { out(prop, "prop", p) }
    }

    /// `hipDeviceGetAttribute`.
    fn hipDeviceGetAttribute(value: *mut c_int, attr: c_int, device: c_int) {
        let i = check_index(device)?;
        let v = attribute(&hip()?.device(i)?, attr)
            .ok_or_else(|| Failure::invalid(format!("unknown or unsupported device attribute {attr}")))?;
        unsafe { out(value, "pi", v) }
    }

    /// `hipChooseDevice`: the device whose compute capability is closest to the request.
    fn hipChooseDevice(device: *mut c_int, prop: *const HipDeviceProp) {
        if prop.is_null() {
            return Err(Failure::invalid("prop is a null pointer"));
        }
        // SAFETY: non-null, valid by the caller's contract.
        let want = unsafe { &*prop };
        let h = hip()?;
        let best = (0..h.devices.len())
            .min_by_key(|&i| {
                let p = properties(&h.devices[i]);
                ((p.major - want.major).abs() * 10 + (p.minor - want.minor).abs(), i)
            })
            .unwrap_or(0);
        unsafe { out(device, "device", best as c_int) }
    }

    /// `hipDeviceSynchronize`: waits for all work on the current device.
    fn hipDeviceSynchronize() {
        Ok(hip()?.current_device()?.synchronize()?)
    }

    /// `hipDeviceReset`: waits for the current device, then frees everything the API made on
    /// it (memory, streams, events, modules).
    fn hipDeviceReset() {
        let h = hip()?;
        let dev = h.current();
        h.current_device()?.synchronize()?;
        let freed: Vec<_> = {
            let mut a = lock(&h.allocs);
            let keys: Vec<u64> = a.iter().filter(|(_, v)| v.device() == dev).map(|(k, _)| *k).collect();
            keys.into_iter().filter_map(|k| a.remove(&k)).collect()
        };
        drop(freed);
        lock(&h.streams).retain(|_, s| s.device != dev);
        lock(&h.events).retain(|_, e| e.device != dev);
        lock(&h.functions).retain(|_, f| f.device != dev);
        lock(&h.modules).retain(|_, m| m.device != dev);
        for code in lock(crate::state::registry()).binaries.values() {
            code.unload(dev);
        }
        lock(&h.peers).retain(|p| p.0 != dev && p.1 != dev);
        Ok(())
    }

    /// `hipSetDeviceFlags`: the scheduling flags are accepted and recorded.
    fn hipSetDeviceFlags(flags: c_uint) {
        if flags & !0x1f != 0 {
            return Err(Failure::invalid(format!("unknown device flags {flags:#x}")));
        }
        let h = hip()?;
        lock(&h.device_flags).insert(h.current(), flags);
        Ok(())
    }

    /// `hipGetDeviceFlags`.
    fn hipGetDeviceFlags(flags: *mut c_uint) {
        let h = hip()?;
        let f = lock(&h.device_flags).get(&h.current()).copied().unwrap_or(0);
        unsafe { out(flags, "flags", f) }
    }

    /// `hipDeviceSetCacheConfig`: accepted; ferrocm leaves the split to the driver.
    fn hipDeviceSetCacheConfig(config: c_int) {
        if !(0..=3).contains(&config) {
            return Err(Failure::invalid(format!("unknown cache configuration {config}")));
        }
        hip().map(|_| ())
    }

    /// `hipDeviceGetCacheConfig`: `hipFuncCachePreferNone`.
    fn hipDeviceGetCacheConfig(config: *mut c_int) {
        unsafe { out(config, "cacheConfig", 0) }
    }

    /// `hipDeviceSetSharedMemConfig`: accepted (banks are 4 bytes).
    fn hipDeviceSetSharedMemConfig(config: c_int) {
        if !(0..=2).contains(&config) {
            return Err(Failure::invalid(format!("unknown shared memory configuration {config}")));
        }
        Ok(())
    }

    /// `hipDeviceGetSharedMemConfig`: four-byte banks.
    fn hipDeviceGetSharedMemConfig(config: *mut c_int) {
        unsafe { out(config, "config", 1) }
    }

    /// `hipDeviceGetLimit`: the stack size, printf FIFO and malloc heap sizes ferrocm uses.
    fn hipDeviceGetLimit(value: *mut usize, limit: c_int) {
        let v = match limit {
            0 => 1024,
            1 => 1 << 20,
            2 => 8 << 20,
            _ => return Err(Failure::new(HipError::hipErrorUnsupportedLimit, format!("unsupported limit {limit}"))),
        };
        unsafe { out(value, "pValue", v) }
    }

    /// `hipDeviceSetLimit`: accepted for the known limits.
    fn hipDeviceSetLimit(limit: c_int, value: usize) {
        let _ = value;
        if !(0..=2).contains(&limit) {
            return Err(Failure::new(HipError::hipErrorUnsupportedLimit, format!("unsupported limit {limit}")));
        }
        Ok(())
    }

    /// `hipDeviceGetStreamPriorityRange`: (least, greatest) = (0, -5), as CUDA reports.
    fn hipDeviceGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) {
        if !least.is_null() {
            unsafe { out(least, "leastPriority", 0)? };
        }
        if !greatest.is_null() {
            unsafe { out(greatest, "greatestPriority", -5)? };
        }
        Ok(())
    }

    /// `hipMemGetInfo`: free and total memory of the current device.
    fn hipMemGetInfo(free: *mut usize, total: *mut usize) {
        let (f, t) = hip()?.current_device()?.memory_info()?;
        unsafe { out(free, "free", f as usize)? };
        unsafe { out(total, "total", t as usize) }
    }

    /// `hipDeviceCanAccessPeer`.
    fn hipDeviceCanAccessPeer(can: *mut c_int, device: c_int, peer: c_int) {
        let (a, b) = (check_index(device)?, check_index(peer)?);
        let h = hip()?;
        let v = if a == b { false } else { h.device(a)?.can_access_peer(&h.device(b)?)? };
        unsafe { out(can, "canAccessPeer", v as c_int) }
    }

    /// `hipDeviceEnablePeerAccess`: the current device may access `peer`'s memory.
    fn hipDeviceEnablePeerAccess(peer: c_int, flags: c_uint) {
        if flags != 0 {
            return Err(Failure::invalid("peer access flags must be 0"));
        }
        let b = check_index(peer)?;
        let h = hip()?;
        let a = h.current();
        if lock(&h.peers).contains(&(a, b)) {
            return Err(Failure::new(HipError::hipErrorPeerAccessAlreadyEnabled, format!("device {a} already accesses device {b}")));
        }
        h.device(a)?.enable_peer_access(&h.device(b)?)?;
        lock(&h.peers).insert((a, b));
        Ok(())
    }

    /// `hipDeviceDisablePeerAccess`.
    fn hipDeviceDisablePeerAccess(peer: c_int) {
        let b = check_index(peer)?;
        let h = hip()?;
        let a = h.current();
        if !lock(&h.peers).remove(&(a, b)) {
            return Err(Failure::new(HipError::hipErrorPeerAccessNotEnabled, format!("device {a} has no access to device {b}")));
        }
        Ok(())
    }

    /// `hipProfilerStart`: accepted (use `ferrocm prof`).
    fn hipProfilerStart() {
        Ok(())
    }

    /// `hipProfilerStop`: accepted.
    fn hipProfilerStop() {
        Ok(())
    }
}
