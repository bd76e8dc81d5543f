//! Raw declarations of the NVML subset ferrocm reads: types, constants and the symbol table. No
//! logic lives here. Every function is named by its explicit versioned export (`nvmlInit_v2`,
//! `nvmlDeviceGetPciInfo_v3`, ...) and resolved on first use, so a library that lacks one symbol
//! still serves all the others. Layouts and values are those of NVIDIA's `nvml.h` (API version
//! 12); the structs below are the versions the named exports take.

#![allow(non_camel_case_types, clippy::upper_case_acronyms)]

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

pub type nvmlReturn_t = c_int;
pub type nvmlDevice_t = *mut c_void;
/// `nvmlEnableState_t`, `nvmlPstates_t` and the other C enums written through pointers.
pub type nvmlEnum_t = c_int;

pub const NVML_SUCCESS: nvmlReturn_t = 0;
pub const NVML_ERROR_UNINITIALIZED: nvmlReturn_t = 1;
pub const NVML_ERROR_INVALID_ARGUMENT: nvmlReturn_t = 2;
pub const NVML_ERROR_NOT_SUPPORTED: nvmlReturn_t = 3;
pub const NVML_ERROR_NO_PERMISSION: nvmlReturn_t = 4;
pub const NVML_ERROR_NOT_FOUND: nvmlReturn_t = 6;
pub const NVML_ERROR_INSUFFICIENT_SIZE: nvmlReturn_t = 7;
pub const NVML_ERROR_DRIVER_NOT_LOADED: nvmlReturn_t = 9;
pub const NVML_ERROR_FUNCTION_NOT_FOUND: nvmlReturn_t = 13;
pub const NVML_ERROR_GPU_IS_LOST: nvmlReturn_t = 15;
pub const NVML_ERROR_NO_DATA: nvmlReturn_t = 21;
pub const NVML_ERROR_ARGUMENT_VERSION_MISMATCH: nvmlReturn_t = 25;
pub const NVML_ERROR_UNKNOWN: nvmlReturn_t = 999;

/// Buffer sizes `nvml.h` guarantees large enough.
pub const NVML_DEVICE_NAME_V2_BUFFER_SIZE: usize = 96;
pub const NVML_DEVICE_UUID_V2_BUFFER_SIZE: usize = 96;
pub const NVML_DEVICE_SERIAL_BUFFER_SIZE: usize = 30;
pub const NVML_DEVICE_PART_NUMBER_BUFFER_SIZE: usize = 80;
pub const NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE: usize = 32;
pub const NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE: usize = 80;
pub const NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE: usize = 80;
pub const NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE: usize = 32;
pub const NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE: usize = 16;
/// Longest process name `nvmlSystemGetProcessName` is asked for (Linux paths may be longer; the
/// name is cut there).
pub const PROCESS_NAME_BUFFER_SIZE: usize = 256;

pub const NVML_FEATURE_DISABLED: nvmlEnum_t = 0;
pub const NVML_FEATURE_ENABLED: nvmlEnum_t = 1;

/// `nvmlTemperatureSensors_t`.
pub const NVML_TEMPERATURE_GPU: c_uint = 0;
/// `nvmlTemperatureThresholds_t`.
pub const NVML_TEMPERATURE_THRESHOLD_SHUTDOWN: c_uint = 0;
pub const NVML_TEMPERATURE_THRESHOLD_SLOWDOWN: c_uint = 1;
pub const NVML_TEMPERATURE_THRESHOLD_MEM_MAX: c_uint = 2;
pub const NVML_TEMPERATURE_THRESHOLD_GPU_MAX: c_uint = 3;

/// `nvmlClockType_t`.
pub const NVML_CLOCK_GRAPHICS: c_uint = 0;
pub const NVML_CLOCK_SM: c_uint = 1;
pub const NVML_CLOCK_MEM: c_uint = 2;
pub const NVML_CLOCK_VIDEO: c_uint = 3;

/// `nvmlPstates_t`: 0 (fastest) to 15, or unknown.
pub const NVML_PSTATE_UNKNOWN: nvmlEnum_t = 32;

/// `nvmlComputeMode_t`.
pub const NVML_COMPUTEMODE_DEFAULT: nvmlEnum_t = 0;
pub const NVML_COMPUTEMODE_EXCLUSIVE_THREAD: nvmlEnum_t = 1;
pub const NVML_COMPUTEMODE_PROHIBITED: nvmlEnum_t = 2;
pub const NVML_COMPUTEMODE_EXCLUSIVE_PROCESS: nvmlEnum_t = 3;

/// `nvmlMemoryErrorType_t`.
pub const NVML_MEMORY_ERROR_TYPE_CORRECTED: c_uint = 0;
pub const NVML_MEMORY_ERROR_TYPE_UNCORRECTED: c_uint = 1;
/// `nvmlEccCounterType_t`.
pub const NVML_VOLATILE_ECC: c_uint = 0;
pub const NVML_AGGREGATE_ECC: c_uint = 1;

/// `nvmlPcieUtilCounter_t` (KB/s, 1 KB granularity).
pub const NVML_PCIE_UTIL_TX_BYTES: c_uint = 0;
pub const NVML_PCIE_UTIL_RX_BYTES: c_uint = 1;

/// `nvmlGpuTopologyLevel_t`.
pub const NVML_TOPOLOGY_INTERNAL: nvmlEnum_t = 0;
pub const NVML_TOPOLOGY_SINGLE: nvmlEnum_t = 10;
pub const NVML_TOPOLOGY_MULTIPLE: nvmlEnum_t = 20;
pub const NVML_TOPOLOGY_HOSTBRIDGE: nvmlEnum_t = 30;
pub const NVML_TOPOLOGY_NODE: nvmlEnum_t = 40;
pub const NVML_TOPOLOGY_SYSTEM: nvmlEnum_t = 50;

/// `nvmlGpuP2PCapsIndex_t`.
pub const NVML_P2P_CAPS_INDEX_READ: c_uint = 0;
pub const NVML_P2P_CAPS_INDEX_WRITE: c_uint = 1;
pub const NVML_P2P_CAPS_INDEX_NVLINK: c_uint = 2;
pub const NVML_P2P_CAPS_INDEX_ATOMICS: c_uint = 3;
/// `nvmlGpuP2PStatus_t`: only `OK` means supported.
pub const NVML_P2P_STATUS_OK: nvmlEnum_t = 0;

/// Links `nvmlDeviceGetNvLinkState` may be asked about.
pub const NVML_NVLINK_MAX_LINKS: c_uint = 18;
/// `nvmlIntNvLinkDeviceType_t`.
pub const NVML_NVLINK_DEVICE_TYPE_GPU: nvmlEnum_t = 0x00;
pub const NVML_NVLINK_DEVICE_TYPE_IBMNPU: nvmlEnum_t = 0x01;
pub const NVML_NVLINK_DEVICE_TYPE_SWITCH: nvmlEnum_t = 0x02;

/// `nvmlDeviceGetFieldValues` field: memory (HBM) temperature in °C.
pub const NVML_FI_DEV_MEMORY_TEMP: c_uint = 82;
/// `nvmlValueType_t`.
pub const NVML_VALUE_TYPE_DOUBLE: nvmlEnum_t = 0;
pub const NVML_VALUE_TYPE_UNSIGNED_INT: nvmlEnum_t = 1;
pub const NVML_VALUE_TYPE_UNSIGNED_LONG: nvmlEnum_t = 2;
pub const NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: nvmlEnum_t = 3;
pub const NVML_VALUE_TYPE_SIGNED_LONG_LONG: nvmlEnum_t = 4;
pub const NVML_VALUE_TYPE_SIGNED_INT: nvmlEnum_t = 5;

/// `nvmlPciInfo_t`, as `nvmlDeviceGetPciInfo_v3` and `nvmlDeviceGetNvLinkRemotePciInfo_v2` fill it.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct nvmlPciInfo_t {
    pub bus_id_legacy: [c_char; NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE],
    pub domain: c_uint,
    pub bus: c_uint,
    pub device: c_uint,
    /// Device id in the high 16 bits, vendor id in the low 16.
    pub pci_device_id: c_uint,
    pub pci_sub_system_id: c_uint,
    pub bus_id: [c_char; NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE],
}

/// `nvmlMemory_t` (v1): `used` includes memory reserved by the driver.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct nvmlMemory_t {
    pub total: u64,
    pub free: u64,
    pub used: u64,
}

/// `nvmlMemory_v2_t`: `version` must be [`NVML_MEMORY_V2`] on input.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct nvmlMemory_v2_t {
    pub version: c_uint,
    pub total: u64,
    pub reserved: u64,
    pub free: u64,
    pub used: u64,
}

/// `NVML_STRUCT_VERSION(Memory, 2)`: the struct size with the version in the top byte.
pub const NVML_MEMORY_V2: c_uint = std::mem::size_of::<nvmlMemory_v2_t>() as c_uint | (2 << 24);

/// `nvmlBAR1Memory_t`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct nvmlBAR1Memory_t {
    pub bar1_total: u64,
    pub bar1_free: u64,
    pub bar1_used: u64,
}

/// `nvmlUtilization_t`: percent of the last sample period.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct nvmlUtilization_t {
    pub gpu: c_uint,
    pub memory: c_uint,
}

/// `nvmlProcessInfo_t` (`nvmlProcessInfo_v2_t`), as the `_v3` process queries fill it.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct nvmlProcessInfo_t {
    pub pid: c_uint,
    /// Bytes, or `u64::MAX` (`NVML_VALUE_NOT_AVAILABLE`) where the driver cannot tell.
    pub used_gpu_memory: u64,
    pub gpu_instance_id: c_uint,
    pub compute_instance_id: c_uint,
}

/// `nvmlFieldValue_t`; `value` is the 8-byte `nvmlValue_t` union, read by `value_type`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct nvmlFieldValue_t {
    pub field_id: c_uint,
    pub scope_id: c_uint,
    pub timestamp: i64,
    pub latency_usec: i64,
    pub value_type: nvmlEnum_t,
    pub nvml_return: nvmlReturn_t,
    pub value: u64,
}

/// The library names tried, in order.
pub const LIBRARY_NAMES: &[&str] = &["libnvidia-ml.so.1", "libnvidia-ml.so"];

/// Picks the declared return type, `nvmlReturn_t` when none is written.
macro_rules! ret {
    () => {
        nvmlReturn_t
    };
    ($ty:ty) => {
        $ty
    };
}

macro_rules! nvml_api {
    ($( $name:ident = $symbol:literal ( $($arg:ident : $ty:ty),* ) $(-> $ret:ty)? ; )*) => {
        /// The NVML library and its lazily resolved symbols.
        pub struct Library {
            pub library: libloading::Library,
            pub path: String,
            $( $name: OnceLock<Option<unsafe extern "C" fn($($ty),*) -> ret!($($ret)?)>>, )*
        }

        impl Library {
            pub fn new(library: libloading::Library, path: String) -> Library {
                Library { library, path, $( $name: OnceLock::new(), )* }
            }

            /// Opens `path`, or the first of [`LIBRARY_NAMES`] that loads; the error lists every
            /// attempt.
            pub fn open(path: Option<&str>) -> Result<Library, String> {
                let names: Vec<&str> = match path {
                    Some(p) => vec![p],
                    None => LIBRARY_NAMES.to_vec(),
                };
                let mut reasons = Vec::new();
                for name in names {
                    // SAFETY: loading NVML runs its initialisers, which have no preconditions.
                    match unsafe { libloading::Library::new(name) } {
                        Ok(lib) => return Ok(Library::new(lib, name.to_string())),
                        Err(e) => reasons.push(e.to_string()),
                    }
                }
                Err(reasons.join("; "))
            }

            $(
                /// Calls NVML's
                #[doc = concat!("`", $symbol, "`.")]
                /// Returns `Err(symbol name)` when the library does not export it.
                ///
                /// # Safety
                /// The arguments must satisfy NVML's contract for this call.
                #[allow(clippy::too_many_arguments)]
                pub unsafe fn $name(&self, $($arg: $ty),*) -> Result<ret!($($ret)?), &'static str> {
                    let f = self.$name.get_or_init(|| {
                        // SAFETY: the symbol is looked up with the exact C signature `nvml.h`
                        // declares for this versioned name.
                        unsafe {
                            self.library
                                .get::<unsafe extern "C" fn($($ty),*) -> ret!($($ret)?)>(concat!($symbol, "\0").as_bytes())
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

nvml_api! {
    init = "nvmlInit_v2"();
    shutdown = "nvmlShutdown"();
    error_string = "nvmlErrorString"(result: nvmlReturn_t) -> *const c_char;
    system_get_driver_version = "nvmlSystemGetDriverVersion"(version: *mut c_char, length: c_uint);
    system_get_nvml_version = "nvmlSystemGetNVMLVersion"(version: *mut c_char, length: c_uint);
    system_get_cuda_driver_version = "nvmlSystemGetCudaDriverVersion_v2"(version: *mut c_int);
    system_get_process_name = "nvmlSystemGetProcessName"(pid: c_uint, name: *mut c_char, length: c_uint);
    device_get_count = "nvmlDeviceGetCount_v2"(count: *mut c_uint);
    device_get_handle_by_index = "nvmlDeviceGetHandleByIndex_v2"(index: c_uint, device: *mut nvmlDevice_t);
    device_get_name = "nvmlDeviceGetName"(device: nvmlDevice_t, name: *mut c_char, length: c_uint);
    device_get_uuid = "nvmlDeviceGetUUID"(device: nvmlDevice_t, uuid: *mut c_char, length: c_uint);
    device_get_serial = "nvmlDeviceGetSerial"(device: nvmlDevice_t, serial: *mut c_char, length: c_uint);
    device_get_board_part_number = "nvmlDeviceGetBoardPartNumber"(device: nvmlDevice_t, part: *mut c_char, length: c_uint);
    device_get_vbios_version = "nvmlDeviceGetVbiosVersion"(device: nvmlDevice_t, version: *mut c_char, length: c_uint);
    device_get_minor_number = "nvmlDeviceGetMinorNumber"(device: nvmlDevice_t, minor: *mut c_uint);
    device_get_pci_info = "nvmlDeviceGetPciInfo_v3"(device: nvmlDevice_t, pci: *mut nvmlPciInfo_t);
    device_get_cuda_compute_capability = "nvmlDeviceGetCudaComputeCapability"(device: nvmlDevice_t, major: *mut c_int, minor: *mut c_int);
    device_get_memory_info = "nvmlDeviceGetMemoryInfo"(device: nvmlDevice_t, memory: *mut nvmlMemory_t);
    device_get_memory_info_v2 = "nvmlDeviceGetMemoryInfo_v2"(device: nvmlDevice_t, memory: *mut nvmlMemory_v2_t);
    device_get_bar1_memory_info = "nvmlDeviceGetBAR1MemoryInfo"(device: nvmlDevice_t, bar1: *mut nvmlBAR1Memory_t);
    device_get_temperature = "nvmlDeviceGetTemperature"(device: nvmlDevice_t, sensor: c_uint, temp: *mut c_uint);
    device_get_temperature_threshold = "nvmlDeviceGetTemperatureThreshold"(device: nvmlDevice_t, threshold: c_uint, temp: *mut c_uint);
    device_get_field_values = "nvmlDeviceGetFieldValues"(device: nvmlDevice_t, count: c_int, values: *mut nvmlFieldValue_t);
    device_get_fan_speed = "nvmlDeviceGetFanSpeed"(device: nvmlDevice_t, speed: *mut c_uint);
    device_get_performance_state = "nvmlDeviceGetPerformanceState"(device: nvmlDevice_t, state: *mut nvmlEnum_t);
    device_get_power_usage = "nvmlDeviceGetPowerUsage"(device: nvmlDevice_t, milliwatts: *mut c_uint);
    device_get_enforced_power_limit = "nvmlDeviceGetEnforcedPowerLimit"(device: nvmlDevice_t, milliwatts: *mut c_uint);
    device_get_power_management_default_limit = "nvmlDeviceGetPowerManagementDefaultLimit"(device: nvmlDevice_t, milliwatts: *mut c_uint);
    device_get_power_management_limit_constraints = "nvmlDeviceGetPowerManagementLimitConstraints"(device: nvmlDevice_t, min: *mut c_uint, max: *mut c_uint);
    device_get_total_energy_consumption = "nvmlDeviceGetTotalEnergyConsumption"(device: nvmlDevice_t, millijoules: *mut u64);
    device_get_clock_info = "nvmlDeviceGetClockInfo"(device: nvmlDevice_t, clock: c_uint, mhz: *mut c_uint);
    device_get_max_clock_info = "nvmlDeviceGetMaxClockInfo"(device: nvmlDevice_t, clock: c_uint, mhz: *mut c_uint);
    device_get_utilization_rates = "nvmlDeviceGetUtilizationRates"(device: nvmlDevice_t, utilization: *mut nvmlUtilization_t);
    device_get_pcie_throughput = "nvmlDeviceGetPcieThroughput"(device: nvmlDevice_t, counter: c_uint, kilobytes_per_s: *mut c_uint);
    device_get_curr_pcie_link_generation = "nvmlDeviceGetCurrPcieLinkGeneration"(device: nvmlDevice_t, generation: *mut c_uint);
    device_get_curr_pcie_link_width = "nvmlDeviceGetCurrPcieLinkWidth"(device: nvmlDevice_t, width: *mut c_uint);
    device_get_max_pcie_link_generation = "nvmlDeviceGetMaxPcieLinkGeneration"(device: nvmlDevice_t, generation: *mut c_uint);
    device_get_max_pcie_link_width = "nvmlDeviceGetMaxPcieLinkWidth"(device: nvmlDevice_t, width: *mut c_uint);
    device_get_ecc_mode = "nvmlDeviceGetEccMode"(device: nvmlDevice_t, current: *mut nvmlEnum_t, pending: *mut nvmlEnum_t);
    device_get_total_ecc_errors = "nvmlDeviceGetTotalEccErrors"(device: nvmlDevice_t, error_type: c_uint, counter_type: c_uint, count: *mut u64);
    device_get_persistence_mode = "nvmlDeviceGetPersistenceMode"(device: nvmlDevice_t, mode: *mut nvmlEnum_t);
    device_get_compute_mode = "nvmlDeviceGetComputeMode"(device: nvmlDevice_t, mode: *mut nvmlEnum_t);
    device_get_mig_mode = "nvmlDeviceGetMigMode"(device: nvmlDevice_t, current: *mut c_uint, pending: *mut c_uint);
    device_get_compute_running_processes = "nvmlDeviceGetComputeRunningProcesses_v3"(device: nvmlDevice_t, count: *mut c_uint, infos: *mut nvmlProcessInfo_t);
    device_get_graphics_running_processes = "nvmlDeviceGetGraphicsRunningProcesses_v3"(device: nvmlDevice_t, count: *mut c_uint, infos: *mut nvmlProcessInfo_t);
    device_get_topology_common_ancestor = "nvmlDeviceGetTopologyCommonAncestor"(device1: nvmlDevice_t, device2: nvmlDevice_t, level: *mut nvmlEnum_t);
    device_get_p2p_status = "nvmlDeviceGetP2PStatus"(device1: nvmlDevice_t, device2: nvmlDevice_t, index: c_uint, status: *mut nvmlEnum_t);
    device_get_nvlink_state = "nvmlDeviceGetNvLinkState"(device: nvmlDevice_t, link: c_uint, active: *mut nvmlEnum_t);
    device_get_nvlink_remote_pci_info = "nvmlDeviceGetNvLinkRemotePciInfo_v2"(device: nvmlDevice_t, link: c_uint, pci: *mut nvmlPciInfo_t);
    device_get_nvlink_remote_device_type = "nvmlDeviceGetNvLinkRemoteDeviceType"(device: nvmlDevice_t, link: c_uint, kind: *mut nvmlEnum_t);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layouts `nvml.h` gives (x86-64 and aarch64 Linux, LP64).
    #[test]
    fn struct_layouts_match_nvml_h() {
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<nvmlPciInfo_t>(), 16 + 5 * 4 + 32);
        assert_eq!(offset_of!(nvmlPciInfo_t, domain), 16);
        assert_eq!(offset_of!(nvmlPciInfo_t, bus_id), 36);
        assert_eq!(size_of::<nvmlMemory_t>(), 24);
        assert_eq!(size_of::<nvmlMemory_v2_t>(), 40);
        assert_eq!(offset_of!(nvmlMemory_v2_t, total), 8);
        assert_eq!(NVML_MEMORY_V2, 40 | (2 << 24));
        assert_eq!(size_of::<nvmlProcessInfo_t>(), 24);
        assert_eq!(offset_of!(nvmlProcessInfo_t, used_gpu_memory), 8);
        assert_eq!(offset_of!(nvmlProcessInfo_t, compute_instance_id), 20);
        assert_eq!(size_of::<nvmlFieldValue_t>(), 40);
        assert_eq!(offset_of!(nvmlFieldValue_t, value_type), 24);
        assert_eq!(offset_of!(nvmlFieldValue_t, value), 32);
        assert_eq!(size_of::<nvmlUtilization_t>(), 8);
    }
}
