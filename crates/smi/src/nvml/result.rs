//! Every NVML call ferrocm makes, once, returning `Result` with NVML's own error string
//! (cudarc's `result` layer). Grouped by topic: [`system`] and [`device`]. The functions that
//! take a raw `nvmlDevice_t` are `unsafe`: the handle cannot be checked here; the safe layer
//! ([`super::NvmlDevice`]) only hands out handles NVML gave it while it is initialised.

use std::ffi::{c_char, c_uint, CStr};

use super::sys::{self, nvmlReturn_t, Library};
use super::NvmlError;

pub type Result<T, E = NvmlError> = std::result::Result<T, E>;

/// NVML's description of `code` ("Not Supported", "Insufficient Permissions", ...).
pub fn error_string(lib: &Library, code: nvmlReturn_t) -> String {
    // SAFETY: nvmlErrorString takes any code and returns a static NUL-terminated string (or
    // NULL, handled below); it may be called before nvmlInit.
    match unsafe { lib.error_string(code) } {
        Ok(p) if !p.is_null() => unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned(),
        _ => format!("NVML error {code}"),
    }
}

/// Turns a raw return (or a missing symbol) into a `Result`.
pub fn check(lib: &Library, call: &'static str, r: Result<nvmlReturn_t, &'static str>) -> Result<()> {
    match r {
        Ok(sys::NVML_SUCCESS) => Ok(()),
        Ok(code) => Err(NvmlError::Call { call, code, message: error_string(lib, code) }),
        Err(symbol) => Err(NvmlError::MissingSymbol { library: lib.path.clone(), symbol }),
    }
}

/// Reads a NUL-terminated string NVML writes into a buffer of `len` bytes.
fn string(
    lib: &Library,
    call: &'static str,
    len: usize,
    fill: impl FnOnce(*mut c_char, c_uint) -> Result<nvmlReturn_t, &'static str>,
) -> Result<String> {
    let mut buf = vec![0 as c_char; len];
    check(lib, call, fill(buf.as_mut_ptr(), len as c_uint))?;
    // The last byte stays NUL whatever NVML wrote, so the read below ends inside the buffer.
    buf[len - 1] = 0;
    // SAFETY: `buf` is NUL-terminated (above).
    Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().trim().to_string())
}

/// Calls and lifetime of the library.
pub mod system {
    use super::*;

    pub fn init(lib: &Library) -> Result<()> {
        // SAFETY: nvmlInit_v2 has no arguments; NVML counts initialisations.
        check(lib, "nvmlInit_v2", unsafe { lib.init() })
    }

    /// # Safety
    /// Pairs with one successful [`init`]; no handle obtained since may be used afterwards.
    pub unsafe fn shutdown(lib: &Library) -> Result<()> {
        check(lib, "nvmlShutdown", unsafe { lib.shutdown() })
    }

    pub fn driver_version(lib: &Library) -> Result<String> {
        string(lib, "nvmlSystemGetDriverVersion", sys::NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE, |p, n| {
            // SAFETY: `p` points at `n` writable bytes.
            unsafe { lib.system_get_driver_version(p, n) }
        })
    }

    pub fn nvml_version(lib: &Library) -> Result<String> {
        string(lib, "nvmlSystemGetNVMLVersion", sys::NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE, |p, n| {
            // SAFETY: `p` points at `n` writable bytes.
            unsafe { lib.system_get_nvml_version(p, n) }
        })
    }

    /// The CUDA version the driver supports, e.g. 12040 for 12.4.
    pub fn cuda_driver_version(lib: &Library) -> Result<i32> {
        let mut v = 0;
        // SAFETY: live out-pointer.
        check(lib, "nvmlSystemGetCudaDriverVersion_v2", unsafe {
            lib.system_get_cuda_driver_version(&mut v)
        })?;
        Ok(v)
    }

    pub fn process_name(lib: &Library, pid: u32) -> Result<String> {
        string(lib, "nvmlSystemGetProcessName", sys::PROCESS_NAME_BUFFER_SIZE, |p, n| {
            // SAFETY: `p` points at `n` writable bytes.
            unsafe { lib.system_get_process_name(pid, p, n) }
        })
    }

    pub fn device_count(lib: &Library) -> Result<u32> {
        let mut n = 0;
        // SAFETY: live out-pointer.
        check(lib, "nvmlDeviceGetCount_v2", unsafe { lib.device_get_count(&mut n) })?;
        Ok(n)
    }

    pub fn device_handle(lib: &Library, index: u32) -> Result<sys::nvmlDevice_t> {
        let mut h: sys::nvmlDevice_t = std::ptr::null_mut();
        // SAFETY: live out-pointer; NVML checks the index.
        check(lib, "nvmlDeviceGetHandleByIndex_v2", unsafe {
            lib.device_get_handle_by_index(index, &mut h)
        })?;
        Ok(h)
    }
}

/// Queries of one device. Every function here is `unsafe`: `device` must be a handle NVML
/// returned from `nvmlDeviceGetHandleByIndex_v2` on `lib` after `nvmlInit_v2` and before the
/// matching `nvmlShutdown`.
pub mod device {
    use super::*;
    use sys::nvmlDevice_t;

    /// One `unsafe fn` per query that writes a single value through its last pointer.
    macro_rules! scalar {
        ($( $(#[$meta:meta])* $fn:ident -> $ty:ty = $sys:ident $call:literal $(( $($arg:ident : $aty:ty),* ))? ; )*) => {$(
            $(#[$meta])*
            /// # Safety
            /// `device` must be a live handle of `lib` (see the module docs).
            pub unsafe fn $fn(lib: &Library, device: nvmlDevice_t $($(, $arg: $aty)*)?) -> Result<$ty> {
                let mut v = <$ty>::default();
                // SAFETY: `v` is a live out-pointer of the type NVML writes; the caller vouches for
                // `device`.
                check(lib, $call, unsafe { lib.$sys(device $($(, $arg)*)?, &mut v) })?;
                Ok(v)
            }
        )*};
    }

    scalar! {
        minor_number -> c_uint = device_get_minor_number "nvmlDeviceGetMinorNumber";
        memory_info -> sys::nvmlMemory_t = device_get_memory_info "nvmlDeviceGetMemoryInfo";
        bar1_memory_info -> sys::nvmlBAR1Memory_t = device_get_bar1_memory_info "nvmlDeviceGetBAR1MemoryInfo";
        /// °C.
        temperature -> c_uint = device_get_temperature "nvmlDeviceGetTemperature"(sensor: c_uint);
        /// °C.
        temperature_threshold -> c_uint = device_get_temperature_threshold "nvmlDeviceGetTemperatureThreshold"(threshold: c_uint);
        /// Percent of the fan's maximum speed.
        fan_speed -> c_uint = device_get_fan_speed "nvmlDeviceGetFanSpeed";
        performance_state -> sys::nvmlEnum_t = device_get_performance_state "nvmlDeviceGetPerformanceState";
        /// Milliwatts.
        power_usage -> c_uint = device_get_power_usage "nvmlDeviceGetPowerUsage";
        /// Milliwatts.
        enforced_power_limit -> c_uint = device_get_enforced_power_limit "nvmlDeviceGetEnforcedPowerLimit";
        /// Milliwatts.
        power_management_default_limit -> c_uint = device_get_power_management_default_limit "nvmlDeviceGetPowerManagementDefaultLimit";
        /// Millijoules since the driver was last loaded.
        total_energy_consumption -> u64 = device_get_total_energy_consumption "nvmlDeviceGetTotalEnergyConsumption";
        /// MHz.
        clock_info -> c_uint = device_get_clock_info "nvmlDeviceGetClockInfo"(clock: c_uint);
        /// MHz.
        max_clock_info -> c_uint = device_get_max_clock_info "nvmlDeviceGetMaxClockInfo"(clock: c_uint);
        utilization_rates -> sys::nvmlUtilization_t = device_get_utilization_rates "nvmlDeviceGetUtilizationRates";
        /// KB/s over the last 20 ms (NVML samples for that long).
        pcie_throughput -> c_uint = device_get_pcie_throughput "nvmlDeviceGetPcieThroughput"(counter: c_uint);
        curr_pcie_link_generation -> c_uint = device_get_curr_pcie_link_generation "nvmlDeviceGetCurrPcieLinkGeneration";
        curr_pcie_link_width -> c_uint = device_get_curr_pcie_link_width "nvmlDeviceGetCurrPcieLinkWidth";
        max_pcie_link_generation -> c_uint = device_get_max_pcie_link_generation "nvmlDeviceGetMaxPcieLinkGeneration";
        max_pcie_link_width -> c_uint = device_get_max_pcie_link_width "nvmlDeviceGetMaxPcieLinkWidth";
        total_ecc_errors -> u64 = device_get_total_ecc_errors "nvmlDeviceGetTotalEccErrors"(error_type: c_uint, counter_type: c_uint);
        persistence_mode -> sys::nvmlEnum_t = device_get_persistence_mode "nvmlDeviceGetPersistenceMode";
        compute_mode -> sys::nvmlEnum_t = device_get_compute_mode "nvmlDeviceGetComputeMode";
        topology_common_ancestor -> sys::nvmlEnum_t = device_get_topology_common_ancestor "nvmlDeviceGetTopologyCommonAncestor"(other: nvmlDevice_t);
        p2p_status -> sys::nvmlEnum_t = device_get_p2p_status "nvmlDeviceGetP2PStatus"(other: nvmlDevice_t, index: c_uint);
        nvlink_state -> sys::nvmlEnum_t = device_get_nvlink_state "nvmlDeviceGetNvLinkState"(link: c_uint);
        nvlink_remote_device_type -> sys::nvmlEnum_t = device_get_nvlink_remote_device_type "nvmlDeviceGetNvLinkRemoteDeviceType"(link: c_uint);
    }

    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn name(lib: &Library, device: nvmlDevice_t) -> Result<String> {
        // SAFETY: the closure passes a buffer of the length it is given; the caller vouches for
        // `device`.
        string(lib, "nvmlDeviceGetName", sys::NVML_DEVICE_NAME_V2_BUFFER_SIZE, |p, n| unsafe {
            lib.device_get_name(device, p, n)
        })
    }

    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn uuid(lib: &Library, device: nvmlDevice_t) -> Result<String> {
        // SAFETY: as in `name`.
        string(lib, "nvmlDeviceGetUUID", sys::NVML_DEVICE_UUID_V2_BUFFER_SIZE, |p, n| unsafe {
            lib.device_get_uuid(device, p, n)
        })
    }

    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn serial(lib: &Library, device: nvmlDevice_t) -> Result<String> {
        // SAFETY: as in `name`.
        string(lib, "nvmlDeviceGetSerial", sys::NVML_DEVICE_SERIAL_BUFFER_SIZE, |p, n| unsafe {
            lib.device_get_serial(device, p, n)
        })
    }

    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn board_part_number(lib: &Library, device: nvmlDevice_t) -> Result<String> {
        // SAFETY: as in `name`.
        string(lib, "nvmlDeviceGetBoardPartNumber", sys::NVML_DEVICE_PART_NUMBER_BUFFER_SIZE, |p, n| unsafe {
            lib.device_get_board_part_number(device, p, n)
        })
    }

    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn vbios_version(lib: &Library, device: nvmlDevice_t) -> Result<String> {
        // SAFETY: as in `name`.
        string(lib, "nvmlDeviceGetVbiosVersion", sys::NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE, |p, n| unsafe {
            lib.device_get_vbios_version(device, p, n)
        })
    }

    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn pci_info(lib: &Library, device: nvmlDevice_t) -> Result<sys::nvmlPciInfo_t> {
        // SAFETY: all-zero bytes are a valid nvmlPciInfo_t (integers and char arrays).
        let mut pci: sys::nvmlPciInfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: live out-pointer of the struct version `_v3` fills; the caller vouches for
        // `device`.
        check(lib, "nvmlDeviceGetPciInfo_v3", unsafe { lib.device_get_pci_info(device, &mut pci) })?;
        Ok(pci)
    }

    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn nvlink_remote_pci_info(
        lib: &Library,
        device: nvmlDevice_t,
        link: c_uint,
    ) -> Result<sys::nvmlPciInfo_t> {
        // SAFETY: all-zero bytes are a valid nvmlPciInfo_t.
        let mut pci: sys::nvmlPciInfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: live out-pointer; the caller vouches for `device`; NVML checks `link`.
        check(lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2", unsafe {
            lib.device_get_nvlink_remote_pci_info(device, link, &mut pci)
        })?;
        Ok(pci)
    }

    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn memory_info_v2(lib: &Library, device: nvmlDevice_t) -> Result<sys::nvmlMemory_v2_t> {
        let mut m = sys::nvmlMemory_v2_t { version: sys::NVML_MEMORY_V2, ..Default::default() };
        // SAFETY: live out-pointer whose version field names its layout.
        check(lib, "nvmlDeviceGetMemoryInfo_v2", unsafe { lib.device_get_memory_info_v2(device, &mut m) })?;
        Ok(m)
    }

    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn cuda_compute_capability(lib: &Library, device: nvmlDevice_t) -> Result<(i32, i32)> {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: live out-pointers.
        check(lib, "nvmlDeviceGetCudaComputeCapability", unsafe {
            lib.device_get_cuda_compute_capability(device, &mut major, &mut minor)
        })?;
        Ok((major, minor))
    }

    /// Minimum and maximum settable power limit, milliwatts.
    ///
    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn power_management_limit_constraints(
        lib: &Library,
        device: nvmlDevice_t,
    ) -> Result<(u32, u32)> {
        let (mut min, mut max) = (0, 0);
        // SAFETY: live out-pointers.
        check(lib, "nvmlDeviceGetPowerManagementLimitConstraints", unsafe {
            lib.device_get_power_management_limit_constraints(device, &mut min, &mut max)
        })?;
        Ok((min, max))
    }

    /// Current and pending ECC mode.
    ///
    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn ecc_mode(
        lib: &Library,
        device: nvmlDevice_t,
    ) -> Result<(sys::nvmlEnum_t, sys::nvmlEnum_t)> {
        let (mut current, mut pending) = (0, 0);
        // SAFETY: live out-pointers.
        check(lib, "nvmlDeviceGetEccMode", unsafe {
            lib.device_get_ecc_mode(device, &mut current, &mut pending)
        })?;
        Ok((current, pending))
    }

    /// Current and pending MIG mode (1 = enabled).
    ///
    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn mig_mode(lib: &Library, device: nvmlDevice_t) -> Result<(u32, u32)> {
        let (mut current, mut pending) = (0, 0);
        // SAFETY: live out-pointers.
        check(lib, "nvmlDeviceGetMigMode", unsafe {
            lib.device_get_mig_mode(device, &mut current, &mut pending)
        })?;
        Ok((current, pending))
    }

    /// One field of `nvmlDeviceGetFieldValues`; the field's own return code is checked too.
    ///
    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn field_value(
        lib: &Library,
        device: nvmlDevice_t,
        field: c_uint,
    ) -> Result<sys::nvmlFieldValue_t> {
        let mut v = sys::nvmlFieldValue_t { field_id: field, ..Default::default() };
        // SAFETY: one live, initialised entry, as the count says.
        check(lib, "nvmlDeviceGetFieldValues", unsafe { lib.device_get_field_values(device, 1, &mut v) })?;
        check(lib, "nvmlDeviceGetFieldValues", Ok(v.nvml_return))?;
        Ok(v)
    }

    /// The processes a `_v3` process query reports. The list may grow between the size query
    /// and the read, so a short buffer is retried with room to spare.
    ///
    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    unsafe fn processes(
        lib: &Library,
        call: &'static str,
        query: unsafe fn(
            &Library,
            nvmlDevice_t,
            *mut c_uint,
            *mut sys::nvmlProcessInfo_t,
        ) -> Result<nvmlReturn_t, &'static str>,
        device: nvmlDevice_t,
    ) -> Result<Vec<sys::nvmlProcessInfo_t>> {
        let mut capacity: usize = 0;
        for _ in 0..8 {
            let mut infos = vec![sys::nvmlProcessInfo_t::default(); capacity];
            let mut count = capacity as c_uint;
            let ptr = if capacity == 0 { std::ptr::null_mut() } else { infos.as_mut_ptr() };
            // SAFETY: `ptr` is null with a count of 0, or points at `count` live entries.
            match unsafe { query(lib, device, &mut count, ptr) } {
                Ok(sys::NVML_SUCCESS) => {
                    infos.truncate((count as usize).min(capacity));
                    return Ok(infos);
                }
                Ok(sys::NVML_ERROR_INSUFFICIENT_SIZE) => capacity = count as usize + 8,
                other => {
                    check(lib, call, other)?;
                }
            }
        }
        // Processes kept appearing faster than we could read them: report what NVML says.
        Err(NvmlError::Call {
            call,
            code: sys::NVML_ERROR_INSUFFICIENT_SIZE,
            message: error_string(lib, sys::NVML_ERROR_INSUFFICIENT_SIZE),
        })
    }

    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn compute_running_processes(
        lib: &Library,
        device: nvmlDevice_t,
    ) -> Result<Vec<sys::nvmlProcessInfo_t>> {
        // SAFETY: forwarded contract.
        unsafe {
            processes(
                lib,
                "nvmlDeviceGetComputeRunningProcesses_v3",
                Library::device_get_compute_running_processes,
                device,
            )
        }
    }

    /// # Safety
    /// `device` must be a live handle of `lib` (see the module docs).
    pub unsafe fn graphics_running_processes(
        lib: &Library,
        device: nvmlDevice_t,
    ) -> Result<Vec<sys::nvmlProcessInfo_t>> {
        // SAFETY: forwarded contract.
        unsafe {
            processes(
                lib,
                "nvmlDeviceGetGraphicsRunningProcesses_v3",
                Library::device_get_graphics_running_processes,
                device,
            )
        }
    }
}
