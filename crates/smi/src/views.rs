//! The records each view is made of, and each view's columns as data ([`Field`] lists). A view
//! is a list of fields over a record type; text, CSV and JSON all come from it
//! ([`crate::table`]). The default view, `metric` and `monitor` read the same record
//! ([`DeviceMetrics`]) through different field lists.

use crate::table::{Field, IntoValue, Unit, Value};
use ferrocm_runtime::BackendKind;

/// Everything that changes while a device runs. A value the device does not offer is `None`.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceMetrics {
    /// Index in ferrocm's numbering.
    pub device: usize,
    pub backend: BackendKind,
    pub name: String,
    /// GPU: percent of time a kernel ran; CPU: percent busy over all logical CPUs.
    pub utilization_percent: Option<f64>,
    /// GPU: percent of time device memory was read or written.
    pub memory_utilization_percent: Option<f64>,
    pub memory_used: Option<u64>,
    pub memory_free: Option<u64>,
    pub memory_total: Option<u64>,
    pub power_w: Option<f64>,
    pub power_cap_w: Option<f64>,
    /// Energy since the driver was loaded.
    pub energy_j: Option<f64>,
    /// GPU: SM clock; CPU: mean core clock.
    pub sm_clock_mhz: Option<f64>,
    pub graphics_clock_mhz: Option<u32>,
    pub memory_clock_mhz: Option<u32>,
    pub video_clock_mhz: Option<u32>,
    pub temperature_c: Option<f64>,
    pub memory_temperature_c: Option<f64>,
    /// Which sensor `temperature_c` is (CPU devices).
    pub temperature_source: Option<String>,
    pub fan_percent: Option<u32>,
    /// GPU: P0..P15; CPU: the cpufreq governor.
    pub performance_state: Option<String>,
    pub pcie_tx_bytes_per_s: Option<u64>,
    pub pcie_rx_bytes_per_s: Option<u64>,
    pub pcie_link_generation: Option<u32>,
    pub pcie_link_width: Option<u32>,
    pub ecc_corrected_volatile: Option<u64>,
    pub ecc_uncorrected_volatile: Option<u64>,
    pub ecc_corrected_aggregate: Option<u64>,
    pub ecc_uncorrected_aggregate: Option<u64>,
    /// CPU: 1, 5 and 15 minute load averages.
    pub load_average: Option<[f64; 3]>,
    /// CPU: percent busy per logical CPU.
    pub core_load_percent: Vec<f64>,
}

impl DeviceMetrics {
    /// A record with nothing measured yet.
    pub fn empty(device: usize, backend: BackendKind, name: String) -> DeviceMetrics {
        DeviceMetrics {
            device,
            backend,
            name,
            utilization_percent: None,
            memory_utilization_percent: None,
            memory_used: None,
            memory_free: None,
            memory_total: None,
            power_w: None,
            power_cap_w: None,
            energy_j: None,
            sm_clock_mhz: None,
            graphics_clock_mhz: None,
            memory_clock_mhz: None,
            video_clock_mhz: None,
            temperature_c: None,
            memory_temperature_c: None,
            temperature_source: None,
            fan_percent: None,
            performance_state: None,
            pcie_tx_bytes_per_s: None,
            pcie_rx_bytes_per_s: None,
            pcie_link_generation: None,
            pcie_link_width: None,
            ecc_corrected_volatile: None,
            ecc_uncorrected_volatile: None,
            ecc_corrected_aggregate: None,
            ecc_uncorrected_aggregate: None,
            load_average: None,
            core_load_percent: Vec::new(),
        }
    }

    /// Percent of memory in use.
    pub fn memory_used_percent(&self) -> Option<f64> {
        match (self.memory_used, self.memory_total) {
            (Some(u), Some(t)) if t > 0 => Some(100.0 * u as f64 / t as f64),
            _ => None,
        }
    }
}

/// What does not change while a device runs.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceStatic {
    pub device: usize,
    pub backend: BackendKind,
    pub name: String,
    pub uuid: String,
    pub pci_bus_id: Option<String>,
    /// "vendor:device" in hex, e.g. "10de:2330".
    pub pci_id: Option<String>,
    pub serial: Option<String>,
    pub board_part_number: Option<String>,
    pub vbios_version: Option<String>,
    /// GPU: the NVIDIA driver; CPU: the kernel release.
    pub driver_version: Option<String>,
    pub compute_capability: Option<String>,
    /// GPU: streaming multiprocessors; CPU: logical CPUs.
    pub compute_units: Option<u32>,
    /// CPU: sockets.
    pub sockets: Option<usize>,
    pub memory_total: Option<u64>,
    pub bar1_total: Option<u64>,
    pub power_limit_w: Option<f64>,
    pub power_limit_default_w: Option<f64>,
    pub power_limit_min_w: Option<f64>,
    pub power_limit_max_w: Option<f64>,
    pub max_sm_clock_mhz: Option<u32>,
    pub max_memory_clock_mhz: Option<u32>,
    pub pcie_max_generation: Option<u32>,
    pub pcie_max_width: Option<u32>,
    pub ecc_enabled: Option<bool>,
    pub persistence_mode: Option<bool>,
    pub compute_mode: Option<String>,
    pub mig_enabled: Option<bool>,
    pub temperature_slowdown_c: Option<u32>,
    pub temperature_shutdown_c: Option<u32>,
    pub memory_temperature_max_c: Option<u32>,
}

impl DeviceStatic {
    /// A record with only the identity filled in.
    pub fn identity(device: usize, backend: BackendKind, name: String, uuid: String) -> DeviceStatic {
        DeviceStatic {
            device,
            backend,
            name,
            uuid,
            pci_bus_id: None,
            pci_id: None,
            serial: None,
            board_part_number: None,
            vbios_version: None,
            driver_version: None,
            compute_capability: None,
            compute_units: None,
            sockets: None,
            memory_total: None,
            bar1_total: None,
            power_limit_w: None,
            power_limit_default_w: None,
            power_limit_min_w: None,
            power_limit_max_w: None,
            max_sm_clock_mhz: None,
            max_memory_clock_mhz: None,
            pcie_max_generation: None,
            pcie_max_width: None,
            ecc_enabled: None,
            persistence_mode: None,
            compute_mode: None,
            mig_enabled: None,
            temperature_slowdown_c: None,
            temperature_shutdown_c: None,
            memory_temperature_max_c: None,
        }
    }
}

/// A process with a context on a GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessRow {
    pub device: usize,
    pub pid: u32,
    pub name: Option<String>,
    /// "C" (compute), "G" (graphics) or "C+G".
    pub kind: &'static str,
    pub memory_used: Option<u64>,
}

/// How one device reaches another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkRow {
    pub from: usize,
    pub to: usize,
    /// `NV<n>` (n NVLinks), nvidia-smi's PCIe levels `PIX`, `PXB`, `PHB`, `NODE`, `SYS`; `SHM`
    /// between CPU devices (one address space); `HOST` between a GPU and a CPU device.
    pub link_type: String,
    /// Whether ferrocm can enable peer access from `from` to `to` (`Device::can_access_peer`).
    pub peer_access: Option<bool>,
    /// Active NVLinks between the two.
    pub nvlinks: Option<u32>,
}

/// One `monitor` sample of one device.
#[derive(Debug, Clone, PartialEq)]
pub struct MonitorRow {
    /// Seconds since the monitor started.
    pub time_s: f64,
    pub metrics: DeviceMetrics,
}

fn f(v: Option<f64>, decimals: u8) -> Value {
    v.map(|x| Value::float(x, decimals)).into()
}

fn bytes(v: Option<u64>) -> Value {
    v.value()
}

/// The default view (rocm-smi's concise table).
pub const OVERVIEW: &[Field<DeviceMetrics>] = &[
    Field::new("device", "Device", Unit::None, |m| m.device.value()),
    Field::new("name", "Name", Unit::None, |m| m.name.value()),
    Field::new("temperature_c", "Temp", Unit::Celsius, |m| f(m.temperature_c, 0)),
    Field::new("power_w", "Power", Unit::Watts, |m| f(m.power_w, 1)),
    Field::new("power_cap_w", "PwrCap", Unit::Watts, |m| f(m.power_cap_w, 0)),
    Field::new("sm_clock_mhz", "SM clock", Unit::MHz, |m| f(m.sm_clock_mhz, 0)),
    Field::new("memory_clock_mhz", "Mem clock", Unit::MHz, |m| m.memory_clock_mhz.value()),
    Field::new("fan_percent", "Fan", Unit::Percent, |m| m.fan_percent.value()),
    Field::new("performance_state", "Perf", Unit::None, |m| m.performance_state.value()),
    Field::new("memory_used_percent", "Mem%", Unit::Percent, |m| f(m.memory_used_percent(), 0)),
    Field::new("utilization_percent", "Util%", Unit::Percent, |m| f(m.utilization_percent, 0)),
];

/// `smi metric`.
pub const METRIC: &[Field<DeviceMetrics>] = &[
    Field::new("device", "Device", Unit::None, |m| m.device.value()),
    Field::new("name", "Name", Unit::None, |m| m.name.value()),
    Field::new("backend", "Backend", Unit::None, |m| m.backend.name().value()),
    Field::new("utilization_percent", "Utilization", Unit::Percent, |m| f(m.utilization_percent, 1)),
    Field::new("memory_utilization_percent", "Memory activity", Unit::Percent, |m| {
        f(m.memory_utilization_percent, 1)
    }),
    Field::new("memory_used_bytes", "Memory used", Unit::Bytes, |m| bytes(m.memory_used)),
    Field::new("memory_free_bytes", "Memory free", Unit::Bytes, |m| bytes(m.memory_free)),
    Field::new("memory_total_bytes", "Memory total", Unit::Bytes, |m| bytes(m.memory_total)),
    Field::new("memory_used_percent", "Memory used %", Unit::Percent, |m| f(m.memory_used_percent(), 1)),
    Field::new("power_w", "Power", Unit::Watts, |m| f(m.power_w, 1)),
    Field::new("power_cap_w", "Power cap", Unit::Watts, |m| f(m.power_cap_w, 1)),
    Field::new("energy_j", "Energy", Unit::Joules, |m| f(m.energy_j, 0)),
    Field::new("sm_clock_mhz", "SM clock", Unit::MHz, |m| f(m.sm_clock_mhz, 0)),
    Field::new("graphics_clock_mhz", "Graphics clock", Unit::MHz, |m| m.graphics_clock_mhz.value()),
    Field::new("memory_clock_mhz", "Memory clock", Unit::MHz, |m| m.memory_clock_mhz.value()),
    Field::new("video_clock_mhz", "Video clock", Unit::MHz, |m| m.video_clock_mhz.value()),
    Field::new("temperature_c", "Temperature", Unit::Celsius, |m| f(m.temperature_c, 1)),
    Field::new("memory_temperature_c", "Memory temperature", Unit::Celsius, |m| f(m.memory_temperature_c, 1)),
    Field::new("temperature_source", "Temperature sensor", Unit::None, |m| m.temperature_source.value()),
    Field::new("fan_percent", "Fan", Unit::Percent, |m| m.fan_percent.value()),
    Field::new("performance_state", "Performance state", Unit::None, |m| m.performance_state.value()),
    Field::new("pcie_tx_bytes_per_s", "PCIe TX", Unit::BytesPerSecond, |m| m.pcie_tx_bytes_per_s.value()),
    Field::new("pcie_rx_bytes_per_s", "PCIe RX", Unit::BytesPerSecond, |m| m.pcie_rx_bytes_per_s.value()),
    Field::new("pcie_link_generation", "PCIe generation", Unit::None, |m| m.pcie_link_generation.value()),
    Field::new("pcie_link_width", "PCIe width", Unit::None, |m| m.pcie_link_width.value()),
    Field::new("ecc_corrected_volatile", "ECC corrected (volatile)", Unit::None, |m| {
        m.ecc_corrected_volatile.value()
    }),
    Field::new("ecc_uncorrected_volatile", "ECC uncorrected (volatile)", Unit::None, |m| {
        m.ecc_uncorrected_volatile.value()
    }),
    Field::new("ecc_corrected_aggregate", "ECC corrected (aggregate)", Unit::None, |m| {
        m.ecc_corrected_aggregate.value()
    }),
    Field::new("ecc_uncorrected_aggregate", "ECC uncorrected (aggregate)", Unit::None, |m| {
        m.ecc_uncorrected_aggregate.value()
    }),
    Field::new("load_average", "Load average", Unit::None, |m| {
        m.load_average.map(|l| Value::List(l.iter().map(|x| Value::float(*x, 2)).collect())).into()
    }),
    Field::new("core_load_percent", "Load per core", Unit::Percent, |m| {
        if m.core_load_percent.is_empty() {
            Value::Na
        } else {
            Value::List(m.core_load_percent.iter().map(|x| Value::float(*x, 0)).collect())
        }
    }),
];

/// `smi monitor`.
pub const MONITOR: &[Field<MonitorRow>] = &[
    Field::new("time_s", "Time", Unit::None, |r| Value::float(r.time_s, 1)),
    Field::new("device", "Device", Unit::None, |r| r.metrics.device.value()),
    Field::new("power_w", "Power", Unit::Watts, |r| f(r.metrics.power_w, 1)),
    Field::new("temperature_c", "Temp", Unit::Celsius, |r| f(r.metrics.temperature_c, 0)),
    Field::new("memory_temperature_c", "MemTemp", Unit::Celsius, |r| f(r.metrics.memory_temperature_c, 0)),
    Field::new("utilization_percent", "Util%", Unit::Percent, |r| f(r.metrics.utilization_percent, 0)),
    Field::new("memory_utilization_percent", "MemAct%", Unit::Percent, |r| {
        f(r.metrics.memory_utilization_percent, 0)
    }),
    Field::new("sm_clock_mhz", "SM clock", Unit::MHz, |r| f(r.metrics.sm_clock_mhz, 0)),
    Field::new("memory_clock_mhz", "Mem clock", Unit::MHz, |r| r.metrics.memory_clock_mhz.value()),
    Field::new("memory_used_percent", "Mem%", Unit::Percent, |r| f(r.metrics.memory_used_percent(), 0)),
];

/// `smi static`.
pub const STATIC: &[Field<DeviceStatic>] = &[
    Field::new("device", "Device", Unit::None, |s| s.device.value()),
    Field::new("name", "Name", Unit::None, |s| s.name.value()),
    Field::new("backend", "Backend", Unit::None, |s| s.backend.name().value()),
    Field::new("uuid", "UUID", Unit::None, |s| s.uuid.value()),
    Field::new("pci_bus_id", "PCI bus id", Unit::None, |s| s.pci_bus_id.value()),
    Field::new("pci_id", "PCI id", Unit::None, |s| s.pci_id.value()),
    Field::new("serial", "Serial", Unit::None, |s| s.serial.value()),
    Field::new("board_part_number", "Board part number", Unit::None, |s| s.board_part_number.value()),
    Field::new("vbios_version", "VBIOS", Unit::None, |s| s.vbios_version.value()),
    Field::new("driver_version", "Driver", Unit::None, |s| s.driver_version.value()),
    Field::new("compute_capability", "Compute capability", Unit::None, |s| s.compute_capability.value()),
    Field::new("compute_units", "Compute units", Unit::None, |s| s.compute_units.value()),
    Field::new("sockets", "Sockets", Unit::None, |s| s.sockets.value()),
    Field::new("memory_total_bytes", "Memory", Unit::Bytes, |s| s.memory_total.value()),
    Field::new("bar1_total_bytes", "BAR1", Unit::Bytes, |s| s.bar1_total.value()),
    Field::new("power_limit_w", "Power limit", Unit::Watts, |s| f(s.power_limit_w, 1)),
    Field::new("power_limit_default_w", "Power limit (default)", Unit::Watts, |s| {
        f(s.power_limit_default_w, 1)
    }),
    Field::new("power_limit_min_w", "Power limit (min)", Unit::Watts, |s| f(s.power_limit_min_w, 1)),
    Field::new("power_limit_max_w", "Power limit (max)", Unit::Watts, |s| f(s.power_limit_max_w, 1)),
    Field::new("max_sm_clock_mhz", "Max SM clock", Unit::MHz, |s| s.max_sm_clock_mhz.value()),
    Field::new("max_memory_clock_mhz", "Max memory clock", Unit::MHz, |s| s.max_memory_clock_mhz.value()),
    Field::new("pcie_max_generation", "PCIe max generation", Unit::None, |s| s.pcie_max_generation.value()),
    Field::new("pcie_max_width", "PCIe max width", Unit::None, |s| s.pcie_max_width.value()),
    Field::new("ecc_enabled", "ECC", Unit::None, |s| s.ecc_enabled.value()),
    Field::new("persistence_mode", "Persistence mode", Unit::None, |s| s.persistence_mode.value()),
    Field::new("compute_mode", "Compute mode", Unit::None, |s| s.compute_mode.value()),
    Field::new("mig_enabled", "MIG", Unit::None, |s| s.mig_enabled.value()),
    Field::new("temperature_slowdown_c", "Slowdown temperature", Unit::Celsius, |s| {
        s.temperature_slowdown_c.value()
    }),
    Field::new("temperature_shutdown_c", "Shutdown temperature", Unit::Celsius, |s| {
        s.temperature_shutdown_c.value()
    }),
    Field::new("memory_temperature_max_c", "Memory temperature limit", Unit::Celsius, |s| {
        s.memory_temperature_max_c.value()
    }),
];

/// `smi process` and the process table of the default view.
pub const PROCESS: &[Field<ProcessRow>] = &[
    Field::new("device", "Device", Unit::None, |p| p.device.value()),
    Field::new("pid", "PID", Unit::None, |p| p.pid.value()),
    Field::new("type", "Type", Unit::None, |p| p.kind.value()),
    Field::new("name", "Name", Unit::None, |p| p.name.value()),
    Field::new("memory_used_bytes", "Memory", Unit::Bytes, |p| p.memory_used.value()),
];

/// `smi topology`.
pub const TOPOLOGY: &[Field<LinkRow>] = &[
    Field::new("from", "From", Unit::None, |l| l.from.value()),
    Field::new("to", "To", Unit::None, |l| l.to.value()),
    Field::new("link_type", "Link type", Unit::None, |l| l.link_type.as_str().value()),
    Field::new("peer_access", "Peer access", Unit::None, |l| l.peer_access.value()),
    Field::new("nvlinks", "NVLinks", Unit::None, |l| l.nvlinks.value()),
];
