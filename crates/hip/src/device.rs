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

/// `hipDeviceAttribute_t` values, as the header numbers them (a test checks every one; the
/// texture and surface limits are listed for that check and answered as unsupported).
#[allow(dead_code)]
mod attr {
    use std::ffi::c_int;
    pub const ECC_ENABLED: c_int = 0;
    pub const ACCESS_POLICY_MAX_WINDOW_SIZE: c_int = 1;
    pub const ASYNC_ENGINE_COUNT: c_int = 2;
    pub const CAN_MAP_HOST_MEMORY: c_int = 3;
    pub const CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: c_int = 4;
    pub const CLOCK_RATE: c_int = 5;
    pub const COMPUTE_MODE: c_int = 6;
    pub const COMPUTE_PREEMPTION_SUPPORTED: c_int = 7;
    pub const CONCURRENT_KERNELS: c_int = 8;
    pub const CONCURRENT_MANAGED_ACCESS: c_int = 9;
    pub const COOPERATIVE_LAUNCH: c_int = 10;
    pub const COOPERATIVE_MULTI_DEVICE_LAUNCH: c_int = 11;
    pub const DEVICE_OVERLAP: c_int = 12;
    pub const DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: c_int = 13;
    pub const GLOBAL_L1_CACHE_SUPPORTED: c_int = 14;
    pub const HOST_NATIVE_ATOMIC_SUPPORTED: c_int = 15;
    pub const INTEGRATED: c_int = 16;
    pub const IS_MULTI_GPU_BOARD: c_int = 17;
    pub const KERNEL_EXEC_TIMEOUT: c_int = 18;
    pub const L2_CACHE_SIZE: c_int = 19;
    pub const LOCAL_L1_CACHE_SUPPORTED: c_int = 20;
    pub const LUID: c_int = 21;
    pub const LUID_DEVICE_NODE_MASK: c_int = 22;
    pub const COMPUTE_CAPABILITY_MAJOR: c_int = 23;
    pub const MANAGED_MEMORY: c_int = 24;
    pub const MAX_BLOCKS_PER_MULTI_PROCESSOR: c_int = 25;
    pub const MAX_BLOCK_DIM_X: c_int = 26;
    pub const MAX_BLOCK_DIM_Y: c_int = 27;
    pub const MAX_BLOCK_DIM_Z: c_int = 28;
    pub const MAX_GRID_DIM_X: c_int = 29;
    pub const MAX_GRID_DIM_Y: c_int = 30;
    pub const MAX_GRID_DIM_Z: c_int = 31;
    pub const MAX_SURFACE1_D: c_int = 32;
    pub const MAX_SURFACE1_D_LAYERED: c_int = 33;
    pub const MAX_SURFACE2_D: c_int = 34;
    pub const MAX_SURFACE2_D_LAYERED: c_int = 35;
    pub const MAX_SURFACE3_D: c_int = 36;
    pub const MAX_SURFACE_CUBEMAP: c_int = 37;
    pub const MAX_SURFACE_CUBEMAP_LAYERED: c_int = 38;
    pub const MAX_TEXTURE1_D_WIDTH: c_int = 39;
    pub const MAX_TEXTURE1_D_LAYERED: c_int = 40;
    pub const MAX_TEXTURE1_D_LINEAR: c_int = 41;
    pub const MAX_TEXTURE1_D_MIPMAP: c_int = 42;
    pub const MAX_TEXTURE2_D_WIDTH: c_int = 43;
    pub const MAX_TEXTURE2_D_HEIGHT: c_int = 44;
    pub const MAX_TEXTURE2_D_GATHER: c_int = 45;
    pub const MAX_TEXTURE2_D_LAYERED: c_int = 46;
    pub const MAX_TEXTURE2_D_LINEAR: c_int = 47;
    pub const MAX_TEXTURE2_D_MIPMAP: c_int = 48;
    pub const MAX_TEXTURE3_D_WIDTH: c_int = 49;
    pub const MAX_TEXTURE3_D_HEIGHT: c_int = 50;
    pub const MAX_TEXTURE3_D_DEPTH: c_int = 51;
    pub const MAX_TEXTURE3_D_ALT: c_int = 52;
    pub const MAX_TEXTURE_CUBEMAP: c_int = 53;
    pub const MAX_TEXTURE_CUBEMAP_LAYERED: c_int = 54;
    pub const MAX_THREADS_DIM: c_int = 55;
    pub const MAX_THREADS_PER_BLOCK: c_int = 56;
    pub const MAX_THREADS_PER_MULTI_PROCESSOR: c_int = 57;
    pub const MAX_PITCH: c_int = 58;
    pub const MEMORY_BUS_WIDTH: c_int = 59;
    pub const MEMORY_CLOCK_RATE: c_int = 60;
    pub const COMPUTE_CAPABILITY_MINOR: c_int = 61;
    pub const MULTI_GPU_BOARD_GROUP_I_D: c_int = 62;
    pub const MULTIPROCESSOR_COUNT: c_int = 63;
    pub const UNUSED1: c_int = 64;
    pub const PAGEABLE_MEMORY_ACCESS: c_int = 65;
    pub const PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: c_int = 66;
    pub const PCI_BUS_ID: c_int = 67;
    pub const PCI_DEVICE_ID: c_int = 68;
    pub const PCI_DOMAIN_I_D: c_int = 69;
    pub const PERSISTING_L2_CACHE_MAX_SIZE: c_int = 70;
    pub const MAX_REGISTERS_PER_BLOCK: c_int = 71;
    pub const MAX_REGISTERS_PER_MULTIPROCESSOR: c_int = 72;
    pub const RESERVED_SHARED_MEM_PER_BLOCK: c_int = 73;
    pub const MAX_SHARED_MEMORY_PER_BLOCK: c_int = 74;
    pub const SHARED_MEM_PER_BLOCK_OPTIN: c_int = 75;
    pub const SHARED_MEM_PER_MULTIPROCESSOR: c_int = 76;
    pub const SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: c_int = 77;
    pub const STREAM_PRIORITIES_SUPPORTED: c_int = 78;
    pub const SURFACE_ALIGNMENT: c_int = 79;
    pub const TCC_DRIVER: c_int = 80;
    pub const TEXTURE_ALIGNMENT: c_int = 81;
    pub const TEXTURE_PITCH_ALIGNMENT: c_int = 82;
    pub const TOTAL_CONSTANT_MEMORY: c_int = 83;
    pub const TOTAL_GLOBAL_MEM: c_int = 84;
    pub const UNIFIED_ADDRESSING: c_int = 85;
    pub const UNUSED2: c_int = 86;
    pub const WARP_SIZE: c_int = 87;
    pub const MEMORY_POOLS_SUPPORTED: c_int = 88;
    pub const VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: c_int = 89;
    pub const HOST_REGISTER_SUPPORTED: c_int = 90;
    pub const MEMORY_POOL_SUPPORTED_HANDLE_TYPES: c_int = 91;
    // HIP's AMD-specific attributes: those with a meaning on these devices.
    pub const MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: c_int = 10002;
    pub const CAN_USE_STREAM_WAIT_VALUE: c_int = 10013;
    pub const PHYSICAL_MULTI_PROCESSOR_COUNT: c_int = 10015;
}

/// Every attribute's name in the header and its value here, for the test.
#[cfg(test)]
const ATTRIBUTE_NAMES: &[(&str, c_int)] = &[
    ("hipDeviceAttributeEccEnabled", attr::ECC_ENABLED),
    ("hipDeviceAttributeAccessPolicyMaxWindowSize", attr::ACCESS_POLICY_MAX_WINDOW_SIZE),
    ("hipDeviceAttributeAsyncEngineCount", attr::ASYNC_ENGINE_COUNT),
    ("hipDeviceAttributeCanMapHostMemory", attr::CAN_MAP_HOST_MEMORY),
    ("hipDeviceAttributeCanUseHostPointerForRegisteredMem", attr::CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM),
    ("hipDeviceAttributeClockRate", attr::CLOCK_RATE),
    ("hipDeviceAttributeComputeMode", attr::COMPUTE_MODE),
    ("hipDeviceAttributeComputePreemptionSupported", attr::COMPUTE_PREEMPTION_SUPPORTED),
    ("hipDeviceAttributeConcurrentKernels", attr::CONCURRENT_KERNELS),
    ("hipDeviceAttributeConcurrentManagedAccess", attr::CONCURRENT_MANAGED_ACCESS),
    ("hipDeviceAttributeCooperativeLaunch", attr::COOPERATIVE_LAUNCH),
    ("hipDeviceAttributeCooperativeMultiDeviceLaunch", attr::COOPERATIVE_MULTI_DEVICE_LAUNCH),
    ("hipDeviceAttributeDeviceOverlap", attr::DEVICE_OVERLAP),
    ("hipDeviceAttributeDirectManagedMemAccessFromHost", attr::DIRECT_MANAGED_MEM_ACCESS_FROM_HOST),
    ("hipDeviceAttributeGlobalL1CacheSupported", attr::GLOBAL_L1_CACHE_SUPPORTED),
    ("hipDeviceAttributeHostNativeAtomicSupported", attr::HOST_NATIVE_ATOMIC_SUPPORTED),
    ("hipDeviceAttributeIntegrated", attr::INTEGRATED),
    ("hipDeviceAttributeIsMultiGpuBoard", attr::IS_MULTI_GPU_BOARD),
    ("hipDeviceAttributeKernelExecTimeout", attr::KERNEL_EXEC_TIMEOUT),
    ("hipDeviceAttributeL2CacheSize", attr::L2_CACHE_SIZE),
    ("hipDeviceAttributeLocalL1CacheSupported", attr::LOCAL_L1_CACHE_SUPPORTED),
    ("hipDeviceAttributeLuid", attr::LUID),
    ("hipDeviceAttributeLuidDeviceNodeMask", attr::LUID_DEVICE_NODE_MASK),
    ("hipDeviceAttributeComputeCapabilityMajor", attr::COMPUTE_CAPABILITY_MAJOR),
    ("hipDeviceAttributeManagedMemory", attr::MANAGED_MEMORY),
    ("hipDeviceAttributeMaxBlocksPerMultiProcessor", attr::MAX_BLOCKS_PER_MULTI_PROCESSOR),
    ("hipDeviceAttributeMaxBlockDimX", attr::MAX_BLOCK_DIM_X),
    ("hipDeviceAttributeMaxBlockDimY", attr::MAX_BLOCK_DIM_Y),
    ("hipDeviceAttributeMaxBlockDimZ", attr::MAX_BLOCK_DIM_Z),
    ("hipDeviceAttributeMaxGridDimX", attr::MAX_GRID_DIM_X),
    ("hipDeviceAttributeMaxGridDimY", attr::MAX_GRID_DIM_Y),
    ("hipDeviceAttributeMaxGridDimZ", attr::MAX_GRID_DIM_Z),
    ("hipDeviceAttributeMaxSurface1D", attr::MAX_SURFACE1_D),
    ("hipDeviceAttributeMaxSurface1DLayered", attr::MAX_SURFACE1_D_LAYERED),
    ("hipDeviceAttributeMaxSurface2D", attr::MAX_SURFACE2_D),
    ("hipDeviceAttributeMaxSurface2DLayered", attr::MAX_SURFACE2_D_LAYERED),
    ("hipDeviceAttributeMaxSurface3D", attr::MAX_SURFACE3_D),
    ("hipDeviceAttributeMaxSurfaceCubemap", attr::MAX_SURFACE_CUBEMAP),
    ("hipDeviceAttributeMaxSurfaceCubemapLayered", attr::MAX_SURFACE_CUBEMAP_LAYERED),
    ("hipDeviceAttributeMaxTexture1DWidth", attr::MAX_TEXTURE1_D_WIDTH),
    ("hipDeviceAttributeMaxTexture1DLayered", attr::MAX_TEXTURE1_D_LAYERED),
    ("hipDeviceAttributeMaxTexture1DLinear", attr::MAX_TEXTURE1_D_LINEAR),
    ("hipDeviceAttributeMaxTexture1DMipmap", attr::MAX_TEXTURE1_D_MIPMAP),
    ("hipDeviceAttributeMaxTexture2DWidth", attr::MAX_TEXTURE2_D_WIDTH),
    ("hipDeviceAttributeMaxTexture2DHeight", attr::MAX_TEXTURE2_D_HEIGHT),
    ("hipDeviceAttributeMaxTexture2DGather", attr::MAX_TEXTURE2_D_GATHER),
    ("hipDeviceAttributeMaxTexture2DLayered", attr::MAX_TEXTURE2_D_LAYERED),
    ("hipDeviceAttributeMaxTexture2DLinear", attr::MAX_TEXTURE2_D_LINEAR),
    ("hipDeviceAttributeMaxTexture2DMipmap", attr::MAX_TEXTURE2_D_MIPMAP),
    ("hipDeviceAttributeMaxTexture3DWidth", attr::MAX_TEXTURE3_D_WIDTH),
    ("hipDeviceAttributeMaxTexture3DHeight", attr::MAX_TEXTURE3_D_HEIGHT),
    ("hipDeviceAttributeMaxTexture3DDepth", attr::MAX_TEXTURE3_D_DEPTH),
    ("hipDeviceAttributeMaxTexture3DAlt", attr::MAX_TEXTURE3_D_ALT),
    ("hipDeviceAttributeMaxTextureCubemap", attr::MAX_TEXTURE_CUBEMAP),
    ("hipDeviceAttributeMaxTextureCubemapLayered", attr::MAX_TEXTURE_CUBEMAP_LAYERED),
    ("hipDeviceAttributeMaxThreadsDim", attr::MAX_THREADS_DIM),
    ("hipDeviceAttributeMaxThreadsPerBlock", attr::MAX_THREADS_PER_BLOCK),
    ("hipDeviceAttributeMaxThreadsPerMultiProcessor", attr::MAX_THREADS_PER_MULTI_PROCESSOR),
    ("hipDeviceAttributeMaxPitch", attr::MAX_PITCH),
    ("hipDeviceAttributeMemoryBusWidth", attr::MEMORY_BUS_WIDTH),
    ("hipDeviceAttributeMemoryClockRate", attr::MEMORY_CLOCK_RATE),
    ("hipDeviceAttributeComputeCapabilityMinor", attr::COMPUTE_CAPABILITY_MINOR),
    ("hipDeviceAttributeMultiGpuBoardGroupID", attr::MULTI_GPU_BOARD_GROUP_I_D),
    ("hipDeviceAttributeMultiprocessorCount", attr::MULTIPROCESSOR_COUNT),
    ("hipDeviceAttributeUnused1", attr::UNUSED1),
    ("hipDeviceAttributePageableMemoryAccess", attr::PAGEABLE_MEMORY_ACCESS),
    (
        "hipDeviceAttributePageableMemoryAccessUsesHostPageTables",
        attr::PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES,
    ),
    ("hipDeviceAttributePciBusId", attr::PCI_BUS_ID),
    ("hipDeviceAttributePciDeviceId", attr::PCI_DEVICE_ID),
    ("hipDeviceAttributePciDomainID", attr::PCI_DOMAIN_I_D),
    ("hipDeviceAttributePersistingL2CacheMaxSize", attr::PERSISTING_L2_CACHE_MAX_SIZE),
    ("hipDeviceAttributeMaxRegistersPerBlock", attr::MAX_REGISTERS_PER_BLOCK),
    ("hipDeviceAttributeMaxRegistersPerMultiprocessor", attr::MAX_REGISTERS_PER_MULTIPROCESSOR),
    ("hipDeviceAttributeReservedSharedMemPerBlock", attr::RESERVED_SHARED_MEM_PER_BLOCK),
    ("hipDeviceAttributeMaxSharedMemoryPerBlock", attr::MAX_SHARED_MEMORY_PER_BLOCK),
    ("hipDeviceAttributeSharedMemPerBlockOptin", attr::SHARED_MEM_PER_BLOCK_OPTIN),
    ("hipDeviceAttributeSharedMemPerMultiprocessor", attr::SHARED_MEM_PER_MULTIPROCESSOR),
    ("hipDeviceAttributeSingleToDoublePrecisionPerfRatio", attr::SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO),
    ("hipDeviceAttributeStreamPrioritiesSupported", attr::STREAM_PRIORITIES_SUPPORTED),
    ("hipDeviceAttributeSurfaceAlignment", attr::SURFACE_ALIGNMENT),
    ("hipDeviceAttributeTccDriver", attr::TCC_DRIVER),
    ("hipDeviceAttributeTextureAlignment", attr::TEXTURE_ALIGNMENT),
    ("hipDeviceAttributeTexturePitchAlignment", attr::TEXTURE_PITCH_ALIGNMENT),
    ("hipDeviceAttributeTotalConstantMemory", attr::TOTAL_CONSTANT_MEMORY),
    ("hipDeviceAttributeTotalGlobalMem", attr::TOTAL_GLOBAL_MEM),
    ("hipDeviceAttributeUnifiedAddressing", attr::UNIFIED_ADDRESSING),
    ("hipDeviceAttributeUnused2", attr::UNUSED2),
    ("hipDeviceAttributeWarpSize", attr::WARP_SIZE),
    ("hipDeviceAttributeMemoryPoolsSupported", attr::MEMORY_POOLS_SUPPORTED),
    ("hipDeviceAttributeVirtualMemoryManagementSupported", attr::VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED),
    ("hipDeviceAttributeHostRegisterSupported", attr::HOST_REGISTER_SUPPORTED),
    ("hipDeviceAttributeMemoryPoolSupportedHandleTypes", attr::MEMORY_POOL_SUPPORTED_HANDLE_TYPES),
    ("hipDeviceAttributeMaxSharedMemoryPerMultiprocessor", attr::MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
    ("hipDeviceAttributeCanUseStreamWaitValue", attr::CAN_USE_STREAM_WAIT_VALUE),
    ("hipDeviceAttributePhysicalMultiProcessorCount", attr::PHYSICAL_MULTI_PROCESSOR_COUNT),
];

/// The value of one `hipDeviceAttribute_t` (`None` for an attribute this library lacks).
fn attribute(d: &Device, a: c_int) -> Option<c_int> {
    let r = properties(d);
    let p = d.properties();
    Some(match a {
        attr::ECC_ENABLED => r.ecc_enabled,
        attr::ACCESS_POLICY_MAX_WINDOW_SIZE => r.access_policy_max_window_size,
        attr::ASYNC_ENGINE_COUNT => r.async_engine_count,
        attr::CAN_MAP_HOST_MEMORY => r.can_map_host_memory,
        attr::CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM => r.can_use_host_pointer_for_registered_mem,
        attr::CLOCK_RATE => r.clock_rate,
        attr::COMPUTE_MODE => r.compute_mode,
        attr::COMPUTE_PREEMPTION_SUPPORTED => r.compute_preemption_supported,
        attr::CONCURRENT_KERNELS => r.concurrent_kernels,
        attr::CONCURRENT_MANAGED_ACCESS => r.concurrent_managed_access,
        attr::COOPERATIVE_LAUNCH => r.cooperative_launch,
        attr::COOPERATIVE_MULTI_DEVICE_LAUNCH => r.cooperative_multi_device_launch,
        attr::DEVICE_OVERLAP => r.device_overlap,
        attr::DIRECT_MANAGED_MEM_ACCESS_FROM_HOST => r.direct_managed_mem_access_from_host,
        attr::GLOBAL_L1_CACHE_SUPPORTED => r.global_l1_cache_supported,
        attr::HOST_NATIVE_ATOMIC_SUPPORTED => r.host_native_atomic_supported,
        attr::INTEGRATED => r.integrated,
        attr::IS_MULTI_GPU_BOARD => r.is_multi_gpu_board,
        attr::KERNEL_EXEC_TIMEOUT => r.kernel_exec_timeout_enabled,
        attr::L2_CACHE_SIZE => r.l2_cache_size,
        attr::LOCAL_L1_CACHE_SUPPORTED => r.local_l1_cache_supported,
        attr::COMPUTE_CAPABILITY_MAJOR => r.major,
        attr::MANAGED_MEMORY => r.managed_memory,
        attr::MAX_BLOCKS_PER_MULTI_PROCESSOR => r.max_blocks_per_multi_processor,
        attr::MAX_BLOCK_DIM_X => r.max_threads_dim[0],
        attr::MAX_BLOCK_DIM_Y => r.max_threads_dim[1],
        attr::MAX_BLOCK_DIM_Z => r.max_threads_dim[2],
        attr::MAX_GRID_DIM_X => r.max_grid_size[0],
        attr::MAX_GRID_DIM_Y => r.max_grid_size[1],
        attr::MAX_GRID_DIM_Z => r.max_grid_size[2],
        attr::MAX_THREADS_PER_BLOCK => r.max_threads_per_block,
        attr::MAX_THREADS_PER_MULTI_PROCESSOR => r.max_threads_per_multi_processor,
        attr::MAX_PITCH => clamp(r.mem_pitch as u64),
        attr::MEMORY_BUS_WIDTH => r.memory_bus_width,
        attr::MEMORY_CLOCK_RATE => r.memory_clock_rate,
        attr::COMPUTE_CAPABILITY_MINOR => r.minor,
        attr::MULTI_GPU_BOARD_GROUP_I_D => r.multi_gpu_board_group_id,
        attr::MULTIPROCESSOR_COUNT => r.multi_processor_count,
        attr::PAGEABLE_MEMORY_ACCESS => r.pageable_memory_access,
        attr::PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES => r.pageable_memory_access_uses_host_page_tables,
        attr::PCI_BUS_ID => r.pci_bus_id,
        attr::PCI_DEVICE_ID => r.pci_device_id,
        attr::PCI_DOMAIN_I_D => r.pci_domain_id,
        attr::PERSISTING_L2_CACHE_MAX_SIZE => r.persisting_l2_cache_max_size,
        attr::MAX_REGISTERS_PER_BLOCK => r.regs_per_block,
        attr::MAX_REGISTERS_PER_MULTIPROCESSOR => r.regs_per_multiprocessor,
        attr::RESERVED_SHARED_MEM_PER_BLOCK => clamp(r.reserved_shared_mem_per_block as u64),
        attr::MAX_SHARED_MEMORY_PER_BLOCK => clamp(p.shared_mem_per_block),
        attr::SHARED_MEM_PER_BLOCK_OPTIN => clamp(p.shared_mem_per_block_optin),
        attr::SHARED_MEM_PER_MULTIPROCESSOR => clamp(p.shared_mem_per_cu),
        attr::SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO => r.single_to_double_precision_perf_ratio,
        attr::STREAM_PRIORITIES_SUPPORTED => r.stream_priorities_supported,
        attr::SURFACE_ALIGNMENT => 512,
        attr::TCC_DRIVER => r.tcc_driver,
        attr::TEXTURE_ALIGNMENT => clamp(r.texture_alignment as u64),
        attr::TEXTURE_PITCH_ALIGNMENT => clamp(r.texture_pitch_alignment as u64),
        attr::TOTAL_CONSTANT_MEMORY => clamp(r.total_const_mem as u64),
        attr::TOTAL_GLOBAL_MEM => clamp(p.total_memory),
        attr::UNIFIED_ADDRESSING => r.unified_addressing,
        attr::WARP_SIZE => r.warp_size,
        attr::MEMORY_POOLS_SUPPORTED => r.memory_pools_supported,
        attr::VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED => 0,
        attr::HOST_REGISTER_SUPPORTED => r.host_register_supported,
        attr::MEMORY_POOL_SUPPORTED_HANDLE_TYPES => 0,
        attr::MAX_SHARED_MEMORY_PER_MULTIPROCESSOR => clamp(p.shared_mem_per_cu),
        // hipStreamWaitValue32/64 and hipStreamWriteValue32/64 run on every device here (the
        // CUDA backend refuses a 64-bit word with an error naming the missing capability).
        attr::CAN_USE_STREAM_WAIT_VALUE => 1,
        attr::PHYSICAL_MULTI_PROCESSOR_COUNT => r.multi_processor_count,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_values_match_the_header() {
        let header = include_str!("../include/hip/hip_runtime_api.h");
        let body = &header[header.find("typedef enum hipDeviceAttribute_t").unwrap()..];
        let body = &body[..body.find("} hipDeviceAttribute_t;").unwrap()];
        let mut value = -1;
        let mut seen = 0;
        let mut defined = std::collections::HashMap::new();
        for line in body.lines().skip(1) {
            let line = line.trim().trim_end_matches(',');
            let Some(name) = line.split_whitespace().next().filter(|n| n.starts_with("hipDeviceAttribute"))
            else {
                continue;
            };
            value = match line.split_once('=') {
                // A number, or the name of an enumerator defined before.
                Some((_, v)) => v.trim().parse().unwrap_or_else(|_| defined[v.trim()]),
                None => value + 1,
            };
            defined.insert(name, value);
            if let Some((_, v)) = ATTRIBUTE_NAMES.iter().find(|(n, _)| *n == name) {
                assert_eq!(*v, value, "{name}");
                seen += 1;
            }
        }
        assert_eq!(seen, ATTRIBUTE_NAMES.len());
    }

    #[test]
    fn the_device_properties_struct_has_the_header_s_size() {
        // hipDeviceProp_t: 256 + 16 name/uuid bytes, then the fields in header order; the C
        // corpus compares sizeof with ferrocmHipDevicePropSize() as compiled by clang.
        assert_eq!(std::mem::size_of::<HipDeviceProp>() % 8, 0);
        assert_eq!(std::mem::offset_of!(HipDeviceProp, total_global_mem), 272);
    }
}
