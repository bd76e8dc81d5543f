//! NVIDIA's management library (NVML), in cudarc's three layers: [`sys`] (raw declarations,
//! symbols resolved lazily by explicit versioned name from `libnvidia-ml.so.1` opened at run
//! time), [`result`] (each call returns `Result` carrying NVML's error string) and the safe types
//! here: [`Nvml`] owns one initialisation of the library and shuts it down on drop;
//! [`NvmlDevice`] borrows it, so no device handle outlives the library.
//!
//! Everything here only reads: no clock, power limit or mode is ever set.

pub mod result;
pub mod sys;

use std::ffi::{c_char, CStr};

use result::{device as dev, system};
use sys::{nvmlDevice_t, Library};

/// What went wrong in NVML.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NvmlError {
    /// The library could not be opened (no NVIDIA driver, or not on the loader's path).
    #[error("cannot open the NVIDIA management library: {reason}")]
    LibraryUnavailable { reason: String },
    /// The library is older than the call: it does not export the versioned symbol.
    #[error("{library} does not export {symbol}")]
    MissingSymbol { library: String, symbol: &'static str },
    /// NVML returned an error code.
    #[error("{call} failed: {message} (NVML error {code})")]
    Call { call: &'static str, code: i32, message: String },
}

impl NvmlError {
    /// The device or driver does not offer this value (a fan on a passively cooled board, ECC
    /// counters where ECC is off, a call newer than the driver): shown as "N/A", not an error.
    pub fn is_unsupported(&self) -> bool {
        match self {
            NvmlError::MissingSymbol { .. } => true,
            NvmlError::Call { code, .. } => matches!(
                *code,
                sys::NVML_ERROR_NOT_SUPPORTED | sys::NVML_ERROR_FUNCTION_NOT_FOUND | sys::NVML_ERROR_NO_DATA
            ),
            NvmlError::LibraryUnavailable { .. } => false,
        }
    }
}

pub type Result<T, E = NvmlError> = std::result::Result<T, E>;

/// One initialisation of NVML. NVML is thread-safe, so this may be shared across threads.
pub struct Nvml {
    lib: Library,
}

// SAFETY: NVML documents every entry point as thread-safe; `Library` holds only the library
// handle and symbols resolved once.
unsafe impl Send for Nvml {}
unsafe impl Sync for Nvml {}

impl std::fmt::Debug for Nvml {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Nvml({})", self.lib.path)
    }
}

impl Nvml {
    /// Opens `libnvidia-ml.so.1` (or `libnvidia-ml.so`) and initialises it.
    pub fn init() -> Result<Nvml> {
        Nvml::init_library(None)
    }

    /// Opens the library at `path` and initialises it.
    pub fn init_from(path: &str) -> Result<Nvml> {
        Nvml::init_library(Some(path))
    }

    fn init_library(path: Option<&str>) -> Result<Nvml> {
        let lib = Library::open(path).map_err(|reason| NvmlError::LibraryUnavailable { reason })?;
        system::init(&lib)?;
        Ok(Nvml { lib })
    }

    /// The file the library was opened from.
    pub fn library_path(&self) -> &str {
        &self.lib.path
    }

    /// The kernel driver's version, e.g. "550.54.15".
    pub fn driver_version(&self) -> Result<String> {
        system::driver_version(&self.lib)
    }

    /// NVML's own version, e.g. "12.550.54.15".
    pub fn nvml_version(&self) -> Result<String> {
        system::nvml_version(&self.lib)
    }

    /// The CUDA version the driver supports, as (major, minor).
    pub fn cuda_driver_version(&self) -> Result<(u32, u32)> {
        let v = system::cuda_driver_version(&self.lib)?.max(0) as u32;
        Ok((v / 1000, (v % 1000) / 10))
    }

    /// The name of process `pid` as NVML reports it (the executable's path).
    pub fn process_name(&self, pid: u32) -> Result<String> {
        system::process_name(&self.lib, pid)
    }

    /// Every NVIDIA device the driver exposes to NVML. NVML does not apply
    /// `CUDA_VISIBLE_DEVICES`; callers that follow the CUDA numbering match devices by UUID.
    pub fn device_count(&self) -> Result<u32> {
        system::device_count(&self.lib)
    }

    /// Device `index` in NVML's numbering (PCI order, not CUDA's).
    pub fn device(&self, index: u32) -> Result<NvmlDevice<'_>> {
        Ok(NvmlDevice { nvml: self, handle: system::device_handle(&self.lib, index)?, index })
    }

    /// Every device, in NVML's numbering.
    pub fn devices(&self) -> Result<Vec<NvmlDevice<'_>>> {
        (0..self.device_count()?).map(|i| self.device(i)).collect()
    }
}

impl Drop for Nvml {
    fn drop(&mut self) {
        // SAFETY: pairs with the successful nvmlInit_v2 in `init_library`; every handle borrowed
        // `self`, so none outlives this call. An error here has nobody to report to.
        let _ = unsafe { system::shutdown(&self.lib) };
    }
}

/// A device's PCI identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PciInfo {
    /// "dddddddd:bb:dd.f", as nvidia-smi prints it.
    pub bus_id: String,
    pub domain: u32,
    pub bus: u32,
    pub device: u32,
    pub vendor_id: u16,
    pub device_id: u16,
    pub subsystem_id: u32,
}

impl PciInfo {
    fn from_sys(p: &sys::nvmlPciInfo_t) -> PciInfo {
        let mut bytes = p.bus_id;
        // The last byte is forced to NUL so the read stays inside the array.
        bytes[bytes.len() - 1] = 0;
        // SAFETY: NUL-terminated within the array (above).
        let bus_id =
            unsafe { CStr::from_ptr(bytes.as_ptr() as *const c_char) }.to_string_lossy().into_owned();
        PciInfo {
            bus_id,
            domain: p.domain,
            bus: p.bus,
            device: p.device,
            vendor_id: (p.pci_device_id & 0xffff) as u16,
            device_id: (p.pci_device_id >> 16) as u16,
            subsystem_id: p.pci_sub_system_id,
        }
    }
}

/// Device memory in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryInfo {
    pub total: u64,
    pub free: u64,
    /// Memory allocated by processes (without the driver's reservation where NVML reports it
    /// separately, as nvidia-smi counts it).
    pub used: u64,
    /// Memory the driver and firmware reserve; `None` on drivers without `_v2`.
    pub reserved: Option<u64>,
}

/// Percent of the last sample period (1/6 s to 1 s, by product).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Utilization {
    /// Time one or more kernels ran.
    pub gpu: u32,
    /// Time device memory was read or written.
    pub memory: u32,
}

/// Clock domains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    Graphics,
    Sm,
    Memory,
    Video,
}

impl Clock {
    fn raw(self) -> u32 {
        match self {
            Clock::Graphics => sys::NVML_CLOCK_GRAPHICS,
            Clock::Sm => sys::NVML_CLOCK_SM,
            Clock::Memory => sys::NVML_CLOCK_MEM,
            Clock::Video => sys::NVML_CLOCK_VIDEO,
        }
    }
}

/// Temperature thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemperatureThreshold {
    /// The GPU shuts down for protection.
    Shutdown,
    /// Hardware slowdown begins.
    Slowdown,
    /// Memory temperature at which software slowdown begins.
    MemoryMax,
    /// GPU temperature above which clocks may drop below base.
    GpuMax,
}

impl TemperatureThreshold {
    fn raw(self) -> u32 {
        match self {
            TemperatureThreshold::Shutdown => sys::NVML_TEMPERATURE_THRESHOLD_SHUTDOWN,
            TemperatureThreshold::Slowdown => sys::NVML_TEMPERATURE_THRESHOLD_SLOWDOWN,
            TemperatureThreshold::MemoryMax => sys::NVML_TEMPERATURE_THRESHOLD_MEM_MAX,
            TemperatureThreshold::GpuMax => sys::NVML_TEMPERATURE_THRESHOLD_GPU_MAX,
        }
    }
}

/// ECC error kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EccError {
    /// Single-bit errors, corrected.
    Corrected,
    /// Double-bit errors, not corrected.
    Uncorrected,
}

/// ECC counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EccCounter {
    /// Since the driver was last loaded.
    Volatile,
    /// Over the device's lifetime.
    Aggregate,
}

/// PCIe throughput direction, seen from the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PcieCounter {
    Tx,
    Rx,
}

/// The closest common PCIe ancestor of two devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopologyLevel {
    /// Two GPUs on one board.
    Internal,
    /// Through one PCIe switch.
    Single,
    /// Through several PCIe switches, no host bridge.
    Multiple,
    /// Through one host bridge.
    HostBridge,
    /// Through host bridges of one NUMA node.
    Node,
    /// Across NUMA nodes (SMP interconnect).
    System,
    /// A level this code does not know.
    Other(i32),
}

impl TopologyLevel {
    fn from_raw(v: i32) -> TopologyLevel {
        match v {
            sys::NVML_TOPOLOGY_INTERNAL => TopologyLevel::Internal,
            sys::NVML_TOPOLOGY_SINGLE => TopologyLevel::Single,
            sys::NVML_TOPOLOGY_MULTIPLE => TopologyLevel::Multiple,
            sys::NVML_TOPOLOGY_HOSTBRIDGE => TopologyLevel::HostBridge,
            sys::NVML_TOPOLOGY_NODE => TopologyLevel::Node,
            sys::NVML_TOPOLOGY_SYSTEM => TopologyLevel::System,
            other => TopologyLevel::Other(other),
        }
    }

    /// nvidia-smi's `topo -m` label: PIX, PXB, PHB, NODE, SYS (and INT for one board).
    pub fn label(self) -> String {
        match self {
            TopologyLevel::Internal => "INT".into(),
            TopologyLevel::Single => "PIX".into(),
            TopologyLevel::Multiple => "PXB".into(),
            TopologyLevel::HostBridge => "PHB".into(),
            TopologyLevel::Node => "NODE".into(),
            TopologyLevel::System => "SYS".into(),
            TopologyLevel::Other(v) => format!("LEVEL{v}"),
        }
    }
}

/// Peer-to-peer capabilities NVML reports per pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum P2pCapability {
    Read,
    Write,
    NvLink,
    Atomics,
}

impl P2pCapability {
    fn raw(self) -> u32 {
        match self {
            P2pCapability::Read => sys::NVML_P2P_CAPS_INDEX_READ,
            P2pCapability::Write => sys::NVML_P2P_CAPS_INDEX_WRITE,
            P2pCapability::NvLink => sys::NVML_P2P_CAPS_INDEX_NVLINK,
            P2pCapability::Atomics => sys::NVML_P2P_CAPS_INDEX_ATOMICS,
        }
    }
}

/// What the far end of an NVLink is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NvLinkRemote {
    Gpu,
    Npu,
    Switch,
    Unknown,
}

/// How many contexts a device accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComputeMode {
    Default,
    ExclusiveThread,
    Prohibited,
    ExclusiveProcess,
    Other(i32),
}

impl ComputeMode {
    /// nvidia-smi's spelling.
    pub fn label(self) -> String {
        match self {
            ComputeMode::Default => "Default".into(),
            ComputeMode::ExclusiveThread => "Exclusive_Thread".into(),
            ComputeMode::Prohibited => "Prohibited".into(),
            ComputeMode::ExclusiveProcess => "Exclusive_Process".into(),
            ComputeMode::Other(v) => format!("Mode{v}"),
        }
    }
}

/// Which process queries reported a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessKind {
    Compute,
    Graphics,
    /// Both compute and graphics contexts.
    ComputeAndGraphics,
}

impl ProcessKind {
    /// nvidia-smi's letters: C, G or C+G.
    pub fn label(self) -> &'static str {
        match self {
            ProcessKind::Compute => "C",
            ProcessKind::Graphics => "G",
            ProcessKind::ComputeAndGraphics => "C+G",
        }
    }
}

/// A process with a context on a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessInfo {
    pub pid: u32,
    /// Device memory it uses, in bytes; `None` where the driver cannot tell.
    pub used_memory: Option<u64>,
    pub kind: ProcessKind,
}

/// One device, valid while the [`Nvml`] it came from lives.
#[derive(Clone, Copy)]
pub struct NvmlDevice<'a> {
    nvml: &'a Nvml,
    handle: nvmlDevice_t,
    index: u32,
}

// SAFETY: NVML is thread-safe and the handle is an opaque token it owns.
unsafe impl Send for NvmlDevice<'_> {}
unsafe impl Sync for NvmlDevice<'_> {}

impl std::fmt::Debug for NvmlDevice<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NvmlDevice({})", self.index)
    }
}

/// Calls a `result::device` function on this device's handle.
macro_rules! query {
    ($self:ident, $f:ident $(, $arg:expr)*) => {
        // SAFETY: `handle` came from nvmlDeviceGetHandleByIndex_v2 on `nvml`, which is still
        // initialised because `self` borrows it.
        unsafe { dev::$f(&$self.nvml.lib, $self.handle $(, $arg)*) }
    };
}

impl<'a> NvmlDevice<'a> {
    /// The index in NVML's numbering.
    pub fn index(&self) -> u32 {
        self.index
    }

    pub fn name(&self) -> Result<String> {
        query!(self, name)
    }

    /// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", the form CUDA's UUID takes in ferrocm.
    pub fn uuid(&self) -> Result<String> {
        query!(self, uuid)
    }

    pub fn serial(&self) -> Result<String> {
        query!(self, serial)
    }

    pub fn board_part_number(&self) -> Result<String> {
        query!(self, board_part_number)
    }

    pub fn vbios_version(&self) -> Result<String> {
        query!(self, vbios_version)
    }

    /// The N of `/dev/nvidiaN`.
    pub fn minor_number(&self) -> Result<u32> {
        query!(self, minor_number)
    }

    pub fn pci_info(&self) -> Result<PciInfo> {
        query!(self, pci_info).map(|p| PciInfo::from_sys(&p))
    }

    pub fn cuda_compute_capability(&self) -> Result<(u32, u32)> {
        query!(self, cuda_compute_capability).map(|(a, b)| (a.max(0) as u32, b.max(0) as u32))
    }

    /// Memory from `nvmlDeviceGetMemoryInfo_v2` (used without the driver's reservation, as
    /// nvidia-smi shows it), or from the first version where the driver has no `_v2`.
    pub fn memory_info(&self) -> Result<MemoryInfo> {
        match query!(self, memory_info_v2) {
            Ok(m) => {
                Ok(MemoryInfo { total: m.total, free: m.free, used: m.used, reserved: Some(m.reserved) })
            }
            Err(e)
                if e.is_unsupported()
                    || matches!(
                        e,
                        NvmlError::Call { code: sys::NVML_ERROR_ARGUMENT_VERSION_MISMATCH, .. }
                    ) =>
            {
                let m = query!(self, memory_info)?;
                Ok(MemoryInfo { total: m.total, free: m.free, used: m.used, reserved: None })
            }
            Err(e) => Err(e),
        }
    }

    /// BAR1 (host-visible) aperture size in bytes.
    pub fn bar1_total(&self) -> Result<u64> {
        query!(self, bar1_memory_info).map(|b| b.bar1_total)
    }

    /// GPU die temperature, °C.
    pub fn temperature(&self) -> Result<u32> {
        query!(self, temperature, sys::NVML_TEMPERATURE_GPU)
    }

    /// Memory (HBM) temperature, °C, where the board has a sensor.
    pub fn memory_temperature(&self) -> Result<u32> {
        let v = query!(self, field_value, sys::NVML_FI_DEV_MEMORY_TEMP)?;
        let value = match v.value_type {
            sys::NVML_VALUE_TYPE_DOUBLE => f64::from_bits(v.value) as i64,
            sys::NVML_VALUE_TYPE_UNSIGNED_INT => (v.value as u32) as i64,
            sys::NVML_VALUE_TYPE_SIGNED_INT => (v.value as u32 as i32) as i64,
            _ => v.value as i64,
        };
        Ok(value.clamp(0, u32::MAX as i64) as u32)
    }

    pub fn temperature_threshold(&self, threshold: TemperatureThreshold) -> Result<u32> {
        query!(self, temperature_threshold, threshold.raw())
    }

    /// Percent of the fan's maximum speed.
    pub fn fan_speed(&self) -> Result<u32> {
        query!(self, fan_speed)
    }

    /// P0 (fastest) to P15, `None` where the driver reports it unknown.
    pub fn performance_state(&self) -> Result<Option<u32>> {
        query!(self, performance_state).map(|p| (0..=15).contains(&p).then_some(p as u32))
    }

    /// Board power draw in milliwatts.
    pub fn power_usage(&self) -> Result<u32> {
        query!(self, power_usage)
    }

    /// The power limit in force, milliwatts.
    pub fn enforced_power_limit(&self) -> Result<u32> {
        query!(self, enforced_power_limit)
    }

    /// The power limit the board ships with, milliwatts.
    pub fn default_power_limit(&self) -> Result<u32> {
        query!(self, power_management_default_limit)
    }

    /// Lowest and highest power limit an administrator may set, milliwatts.
    pub fn power_limit_constraints(&self) -> Result<(u32, u32)> {
        query!(self, power_management_limit_constraints)
    }

    /// Energy in millijoules since the driver was last loaded.
    pub fn total_energy_consumption(&self) -> Result<u64> {
        query!(self, total_energy_consumption)
    }

    /// Current clock in MHz.
    pub fn clock(&self, clock: Clock) -> Result<u32> {
        query!(self, clock_info, clock.raw())
    }

    /// Highest clock in MHz.
    pub fn max_clock(&self, clock: Clock) -> Result<u32> {
        query!(self, max_clock_info, clock.raw())
    }

    pub fn utilization(&self) -> Result<Utilization> {
        query!(self, utilization_rates).map(|u| Utilization { gpu: u.gpu, memory: u.memory })
    }

    /// PCIe throughput in KB/s (NVML samples for 20 ms).
    pub fn pcie_throughput(&self, counter: PcieCounter) -> Result<u32> {
        let raw = match counter {
            PcieCounter::Tx => sys::NVML_PCIE_UTIL_TX_BYTES,
            PcieCounter::Rx => sys::NVML_PCIE_UTIL_RX_BYTES,
        };
        query!(self, pcie_throughput, raw)
    }

    /// Current PCIe link (generation, width).
    pub fn pcie_link(&self) -> Result<(u32, u32)> {
        Ok((query!(self, curr_pcie_link_generation)?, query!(self, curr_pcie_link_width)?))
    }

    /// Highest PCIe link (generation, width) the device and system support.
    pub fn max_pcie_link(&self) -> Result<(u32, u32)> {
        Ok((query!(self, max_pcie_link_generation)?, query!(self, max_pcie_link_width)?))
    }

    /// (current, pending) ECC mode.
    pub fn ecc_mode(&self) -> Result<(bool, bool)> {
        query!(self, ecc_mode).map(|(c, p)| (c == sys::NVML_FEATURE_ENABLED, p == sys::NVML_FEATURE_ENABLED))
    }

    pub fn ecc_errors(&self, error: EccError, counter: EccCounter) -> Result<u64> {
        let e = match error {
            EccError::Corrected => sys::NVML_MEMORY_ERROR_TYPE_CORRECTED,
            EccError::Uncorrected => sys::NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
        };
        let c = match counter {
            EccCounter::Volatile => sys::NVML_VOLATILE_ECC,
            EccCounter::Aggregate => sys::NVML_AGGREGATE_ECC,
        };
        query!(self, total_ecc_errors, e, c)
    }

    pub fn persistence_mode(&self) -> Result<bool> {
        query!(self, persistence_mode).map(|m| m == sys::NVML_FEATURE_ENABLED)
    }

    pub fn compute_mode(&self) -> Result<ComputeMode> {
        query!(self, compute_mode).map(|m| match m {
            sys::NVML_COMPUTEMODE_DEFAULT => ComputeMode::Default,
            sys::NVML_COMPUTEMODE_EXCLUSIVE_THREAD => ComputeMode::ExclusiveThread,
            sys::NVML_COMPUTEMODE_PROHIBITED => ComputeMode::Prohibited,
            sys::NVML_COMPUTEMODE_EXCLUSIVE_PROCESS => ComputeMode::ExclusiveProcess,
            other => ComputeMode::Other(other),
        })
    }

    /// (current, pending) MIG mode.
    pub fn mig_mode(&self) -> Result<(bool, bool)> {
        query!(self, mig_mode).map(|(c, p)| (c == 1, p == 1))
    }

    /// Processes with a compute or graphics context on the device, by pid.
    pub fn processes(&self) -> Result<Vec<ProcessInfo>> {
        let compute = query!(self, compute_running_processes)?;
        let graphics = match query!(self, graphics_running_processes) {
            Ok(g) => g,
            Err(e) if e.is_unsupported() => Vec::new(),
            Err(e) => return Err(e),
        };
        let memory = |m: u64| (m != u64::MAX).then_some(m);
        let mut out: Vec<ProcessInfo> = compute
            .iter()
            .map(|p| ProcessInfo {
                pid: p.pid,
                used_memory: memory(p.used_gpu_memory),
                kind: ProcessKind::Compute,
            })
            .collect();
        for g in graphics {
            match out.iter_mut().find(|p| p.pid == g.pid) {
                Some(p) => p.kind = ProcessKind::ComputeAndGraphics,
                None => out.push(ProcessInfo {
                    pid: g.pid,
                    used_memory: memory(g.used_gpu_memory),
                    kind: ProcessKind::Graphics,
                }),
            }
        }
        Ok(out)
    }

    /// The closest common PCIe ancestor with `other`.
    pub fn topology_common_ancestor(&self, other: &NvmlDevice<'_>) -> Result<TopologyLevel> {
        query!(self, topology_common_ancestor, other.handle).map(TopologyLevel::from_raw)
    }

    /// Whether NVML reports `capability` as supported between this device and `other`.
    pub fn p2p_supported(&self, other: &NvmlDevice<'_>, capability: P2pCapability) -> Result<bool> {
        query!(self, p2p_status, other.handle, capability.raw()).map(|s| s == sys::NVML_P2P_STATUS_OK)
    }

    /// The NVLinks that are up, each with what is at its far end and that end's PCI bus id
    /// (`None` where NVML cannot say). Links NVML reports as unsupported are skipped.
    pub fn active_nvlinks(&self) -> Result<Vec<(NvLinkRemote, Option<String>)>> {
        let mut out = Vec::new();
        for link in 0..sys::NVML_NVLINK_MAX_LINKS {
            let active = match query!(self, nvlink_state, link) {
                Ok(s) => s == sys::NVML_FEATURE_ENABLED,
                // Links past the device's count answer INVALID_ARGUMENT or NOT_SUPPORTED.
                Err(NvmlError::Call { code: sys::NVML_ERROR_INVALID_ARGUMENT, .. }) => false,
                Err(e) if e.is_unsupported() => false,
                Err(e) => return Err(e),
            };
            if !active {
                continue;
            }
            let remote = match query!(self, nvlink_remote_device_type, link) {
                Ok(sys::NVML_NVLINK_DEVICE_TYPE_GPU) => NvLinkRemote::Gpu,
                Ok(sys::NVML_NVLINK_DEVICE_TYPE_IBMNPU) => NvLinkRemote::Npu,
                Ok(sys::NVML_NVLINK_DEVICE_TYPE_SWITCH) => NvLinkRemote::Switch,
                _ => NvLinkRemote::Unknown,
            };
            let bus = query!(self, nvlink_remote_pci_info, link).ok().map(|p| PciInfo::from_sys(&p).bus_id);
            out.push((remote, bus));
        }
        Ok(out)
    }
}
