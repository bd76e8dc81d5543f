//! `ferrocm-smi`: the data behind `ferrocm smi` (rocm-smi / amd-smi).
//!
//! What it owns:
//! - [`nvml`]: NVIDIA's management library in cudarc's three layers, `libnvidia-ml.so.1`
//!   opened at run time and each versioned symbol resolved on first use (as the CUDA backend
//!   opens `libcuda.so.1`), so nothing links against NVIDIA at build time;
//! - [`host`]: the CPU device's readings from `/proc` and `/sys`;
//! - [`Smi`]: the devices of ferrocm's runtime, numbered as `ferrocm info` numbers them (GPUs
//!   first, in the runtime's visible order, then CPU devices), each GPU matched to its NVML
//!   device by UUID. NVML ignores `CUDA_VISIBLE_DEVICES`; matching by the UUIDs the runtime sees
//!   applies it, and `FERROCM_VISIBLE_DEVICES`/`HIP_VISIBLE_DEVICES` with it;
//! - the views as data ([`views`], [`table`]): each view is a [`Report`] of [`table::Table`]s
//!   that renders to text, CSV or JSON.
//!
//! Invariants: read-only (no clock, power limit or mode is ever set, and no GPU context is
//! created, so `smi` never shows up among the processes it lists); a value a device does not
//! offer is "N/A" in text and `null` in JSON, never an error for the whole view; a missing
//! NVML library leaves the GPUs' identity (from the runtime) and the CPU devices.

mod error;
pub mod host;
pub mod nvml;
pub mod select;
pub mod table;
pub mod views;

use std::collections::HashMap;

use ferrocm_runtime::{BackendKind, Device};
use serde_json::{json, Map, Value as Json};

pub use error::SmiError;
use host::{HostMetrics, HostReader};
use nvml::{
    Clock, EccCounter, EccError, NvLinkRemote, Nvml, NvmlDevice, NvmlError, PcieCounter, TemperatureThreshold,
};
use select::{parse_bus_id, DeviceId};
use table::{Layout, Table};
use views::{DeviceMetrics, DeviceStatic, LinkRow, MonitorRow, ProcessRow};

/// The shortest and longest `monitor` interval, seconds.
pub const MONITOR_INTERVAL_RANGE: (f64, f64) = (0.1, 86_400.0);

/// Checks `monitor`'s interval (seconds) and sample count.
pub fn check_monitor(interval_s: f64, count: Option<u64>) -> Result<(), SmiError> {
    let (min, max) = MONITOR_INTERVAL_RANGE;
    if !(interval_s.is_finite() && (min..=max).contains(&interval_s)) {
        return Err(SmiError::InvalidInterval { seconds: interval_s, min, max });
    }
    if count == Some(0) {
        return Err(SmiError::InvalidCount { count: 0 });
    }
    Ok(())
}

/// One device of the runtime, as `smi` sees it.
#[derive(Debug, Clone)]
pub struct SmiDevice {
    /// Index in ferrocm's numbering (`ferrocm info`).
    pub index: usize,
    pub backend: BackendKind,
    pub name: String,
    pub uuid: String,
    /// PCI bus id (NVML's spelling where NVML knows the device, else the runtime's).
    pub pci_bus_id: Option<String>,
    /// The matching device in NVML's numbering.
    pub nvml_index: Option<u32>,
    runtime: Device,
}

/// Whether NVML was found, and what it reports about itself.
#[derive(Debug, Clone, PartialEq)]
pub enum NvmlStatus {
    Available {
        library: String,
        nvml_version: Option<String>,
        driver_version: Option<String>,
        /// "major.minor" of the CUDA version the driver supports.
        cuda_version: Option<String>,
        /// Devices NVML sees, including those hidden from the runtime.
        device_count: u32,
    },
    Unavailable {
        reason: String,
    },
}

impl NvmlStatus {
    pub fn to_json(&self) -> Json {
        match self {
            NvmlStatus::Available { library, nvml_version, driver_version, cuda_version, device_count } => {
                json!({
                    "available": true,
                    "library": library,
                    "version": nvml_version,
                    "driver_version": driver_version,
                    "cuda_version": cuda_version,
                    "device_count": device_count,
                })
            }
            NvmlStatus::Unavailable { reason } => json!({ "available": false, "reason": reason }),
        }
    }

    /// The line text output starts with.
    pub fn line(&self) -> String {
        match self {
            NvmlStatus::Available { nvml_version, driver_version, cuda_version, .. } => {
                let na = |v: &Option<String>| v.clone().unwrap_or_else(|| "N/A".into());
                format!("NVML {}  driver {}  CUDA {}", na(nvml_version), na(driver_version), na(cuda_version))
            }
            NvmlStatus::Unavailable { reason } => {
                format!("NVML not available ({reason}): GPU readings are N/A; CPU devices are read from /proc and /sys")
            }
        }
    }
}

/// One view: tables, with the NVML status and the notices gathered while reading.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub nvml: NvmlStatus,
    pub tables: Vec<Table>,
    /// Things the reader should know (values NVML refused for a reason other than "not
    /// supported", GPUs hidden from the runtime).
    pub notices: Vec<String>,
}

impl Report {
    /// `{"nvml": {...}, "<table>": [rows...], ..., "notices": [...]}`.
    pub fn to_json(&self) -> Json {
        let mut m = Map::new();
        m.insert("nvml".into(), self.nvml.to_json());
        for t in &self.tables {
            m.insert(t.name.into(), t.to_json());
        }
        m.insert("notices".into(), json!(self.notices));
        Json::Object(m)
    }

    /// The first table as CSV (the default view's processes are `smi process --csv`).
    pub fn to_csv(&self) -> String {
        self.tables.first().map(Table::to_csv).unwrap_or_default()
    }

    /// The status line, every table in its layout, then the notices.
    pub fn to_text(&self) -> String {
        let mut out = self.nvml.line();
        out.push('\n');
        for t in &self.tables {
            out.push('\n');
            if t.rows.is_empty() {
                if !t.title.is_empty() {
                    out.push_str(t.title);
                    out.push('\n');
                }
                out.push_str("(none)\n");
            } else {
                out.push_str(&t.to_text());
            }
        }
        if !self.notices.is_empty() {
            out.push('\n');
            for n in &self.notices {
                out.push_str(&format!("note: {n}\n"));
            }
        }
        out
    }
}

/// What a metrics read includes beyond the default view's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Detail {
    /// The default view and `monitor`.
    Basic,
    /// `metric`: also energy, every clock, PCIe throughput and link, ECC counters, per-core load.
    Full,
}

/// Notices gathered while reading one device.
struct Notes<'a> {
    notices: &'a mut Vec<String>,
    device: usize,
}

impl Notes<'_> {
    fn note(&mut self, text: String) {
        let n = format!("device {}: {text}", self.device);
        if !self.notices.contains(&n) {
            self.notices.push(n);
        }
    }

    /// Keeps a value; a refusal other than "not supported" becomes a notice.
    fn keep<T>(&mut self, r: Result<T, NvmlError>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                if !e.is_unsupported() {
                    self.note(e.to_string());
                }
                None
            }
        }
    }
}

/// The system `ferrocm smi` reports on.
pub struct Smi {
    nvml: Option<Nvml>,
    status: NvmlStatus,
    devices: Vec<SmiDevice>,
    host: HostReader,
    notices: Vec<String>,
    /// Said once per process rather than once per view.
    standing_notices: Vec<String>,
}

impl std::fmt::Debug for Smi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Smi").field("status", &self.status).field("devices", &self.devices).finish()
    }
}

fn watts(milliwatts: u32) -> f64 {
    milliwatts as f64 / 1000.0
}

impl Smi {
    /// The runtime's devices with NVML opened from the usual library names.
    pub fn open() -> Result<Smi, SmiError> {
        Smi::with_nvml(Nvml::init())
    }

    /// The runtime's devices with `nvml` (an `Err` reads as "NVML not available").
    pub fn with_nvml(nvml: Result<Nvml, NvmlError>) -> Result<Smi, SmiError> {
        let runtime = Device::all()?;
        let (nvml, status) = match nvml {
            Ok(n) => {
                let status = NvmlStatus::Available {
                    library: n.library_path().to_string(),
                    nvml_version: n.nvml_version().ok(),
                    driver_version: n.driver_version().ok(),
                    cuda_version: n.cuda_driver_version().ok().map(|(a, b)| format!("{a}.{b}")),
                    device_count: n.device_count().unwrap_or(0),
                };
                (Some(n), status)
            }
            Err(e) => (None, NvmlStatus::Unavailable { reason: e.to_string() }),
        };
        let mut standing_notices = Vec::new();
        // NVML's devices by UUID: (index, PCI bus id).
        let mut by_uuid: HashMap<String, (u32, Option<String>)> = HashMap::new();
        if let Some(n) = &nvml {
            match n.devices() {
                Ok(list) => {
                    for d in list {
                        if let Ok(uuid) = d.uuid() {
                            by_uuid.insert(
                                uuid.to_ascii_lowercase(),
                                (d.index(), d.pci_info().ok().map(|p| p.bus_id)),
                            );
                        }
                    }
                }
                Err(e) => standing_notices.push(format!("NVML cannot list its devices: {e}")),
            }
        }
        let mut devices = Vec::new();
        let mut matched = 0usize;
        for d in runtime {
            let p = d.properties();
            let runtime_bus = (!p.pci_bus_id.is_empty()).then(|| p.pci_bus_id.clone());
            let (nvml_index, nvml_bus) = match by_uuid.get(&p.uuid.to_ascii_lowercase()) {
                Some((i, bus)) => (Some(*i), bus.clone()),
                None => (None, None),
            };
            if d.kind() != BackendKind::Cpu && nvml.is_some() && nvml_index.is_none() {
                standing_notices.push(format!(
                    "device {} ({}, {}) is not among NVML's devices: its readings are N/A",
                    d.index(),
                    p.name,
                    p.uuid
                ));
            }
            matched += nvml_index.is_some() as usize;
            devices.push(SmiDevice {
                index: d.index(),
                backend: d.kind(),
                name: p.name.clone(),
                uuid: p.uuid.clone(),
                pci_bus_id: nvml_bus.or(runtime_bus),
                nvml_index,
                runtime: d,
            });
        }
        let hidden = by_uuid.len().saturating_sub(matched);
        if hidden > 0 {
            let why = match ferrocm_runtime::report().map(|r| r.cuda) {
                Ok(Err(reason)) => format!("the runtime has no CUDA devices: {reason}"),
                _ => "hidden by CUDA_VISIBLE_DEVICES, FERROCM_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES".into(),
            };
            standing_notices.push(format!(
                "NVML sees {hidden} GPU(s) that ferrocm does not number ({why}); they are not shown"
            ));
        }
        Ok(Smi { nvml, status, devices, host: HostReader::new(), notices: Vec::new(), standing_notices })
    }

    /// Reads CPU devices through `host` instead of `/proc` and `/sys` (for tests).
    pub fn with_host(mut self, host: HostReader) -> Smi {
        self.host = host;
        self
    }

    pub fn devices(&self) -> &[SmiDevice] {
        &self.devices
    }

    pub fn nvml_status(&self) -> &NvmlStatus {
        &self.status
    }

    /// The devices `-d` values name (see [`select`]), as positions in [`Smi::devices`].
    pub fn select(&self, specs: &[String]) -> Result<Vec<usize>, SmiError> {
        let ids: Vec<DeviceId> = self
            .devices
            .iter()
            .map(|d| DeviceId {
                index: d.index,
                name: d.name.clone(),
                uuid: d.uuid.clone(),
                pci_bus_id: d.pci_bus_id.clone(),
            })
            .collect();
        select::resolve(specs, &ids)
    }

    fn nvml_device(&self, d: &SmiDevice) -> Option<NvmlDevice<'_>> {
        let n = self.nvml.as_ref()?;
        n.device(d.nvml_index?).ok()
    }

    fn report(&mut self, tables: Vec<Table>) -> Report {
        let mut notices = self.standing_notices.clone();
        notices.append(&mut self.notices);
        Report { nvml: self.status.clone(), tables, notices }
    }

    fn host_metrics(&mut self, selection: &[usize]) -> Option<HostMetrics> {
        selection.iter().any(|&p| self.devices[p].backend == BackendKind::Cpu).then(|| self.host.read())
    }

    fn gpu_metrics(&self, d: &SmiDevice, detail: Detail, notices: &mut Vec<String>) -> DeviceMetrics {
        let mut m = DeviceMetrics::empty(d.index, d.backend, d.name.clone());
        let Some(g) = self.nvml_device(d) else {
            m.memory_total = Some(d.runtime.properties().total_memory);
            return m;
        };
        let mut n = Notes { notices, device: d.index };
        if let Some(u) = n.keep(g.utilization()) {
            m.utilization_percent = Some(u.gpu as f64);
            m.memory_utilization_percent = Some(u.memory as f64);
        }
        if let Some(mem) = n.keep(g.memory_info()) {
            m.memory_used = Some(mem.used);
            m.memory_free = Some(mem.free);
            m.memory_total = Some(mem.total);
        }
        m.power_w = n.keep(g.power_usage().map(watts));
        m.power_cap_w = n.keep(g.enforced_power_limit().map(watts));
        m.sm_clock_mhz = n.keep(g.clock(Clock::Sm)).map(|c| c as f64);
        m.memory_clock_mhz = n.keep(g.clock(Clock::Memory));
        m.temperature_c = n.keep(g.temperature()).map(|t| t as f64);
        m.memory_temperature_c = n.keep(g.memory_temperature()).map(|t| t as f64);
        m.fan_percent = n.keep(g.fan_speed());
        m.performance_state = n.keep(g.performance_state()).flatten().map(|p| format!("P{p}"));
        if detail == Detail::Full {
            m.energy_j = n.keep(g.total_energy_consumption()).map(|mj| mj as f64 / 1000.0);
            m.graphics_clock_mhz = n.keep(g.clock(Clock::Graphics));
            m.video_clock_mhz = n.keep(g.clock(Clock::Video));
            m.pcie_tx_bytes_per_s = n.keep(g.pcie_throughput(PcieCounter::Tx)).map(|k| k as u64 * 1024);
            m.pcie_rx_bytes_per_s = n.keep(g.pcie_throughput(PcieCounter::Rx)).map(|k| k as u64 * 1024);
            if let Some((generation, width)) = n.keep(g.pcie_link()) {
                m.pcie_link_generation = Some(generation);
                m.pcie_link_width = Some(width);
            }
            // ECC counters mean nothing while ECC is off: N/A, as nvidia-smi shows them.
            if n.keep(g.ecc_mode()).is_some_and(|(current, _)| current) {
                m.ecc_corrected_volatile = n.keep(g.ecc_errors(EccError::Corrected, EccCounter::Volatile));
                m.ecc_uncorrected_volatile =
                    n.keep(g.ecc_errors(EccError::Uncorrected, EccCounter::Volatile));
                m.ecc_corrected_aggregate = n.keep(g.ecc_errors(EccError::Corrected, EccCounter::Aggregate));
                m.ecc_uncorrected_aggregate =
                    n.keep(g.ecc_errors(EccError::Uncorrected, EccCounter::Aggregate));
            }
        }
        m
    }

    fn cpu_metrics(d: &SmiDevice, host: &HostMetrics, detail: Detail) -> DeviceMetrics {
        let mut m = DeviceMetrics::empty(d.index, d.backend, d.name.clone());
        m.utilization_percent = host.load_percent;
        if let Some(mem) = host.memory {
            m.memory_used = Some(mem.used());
            m.memory_free = Some(mem.available);
            m.memory_total = Some(mem.total);
        }
        m.power_w = host.power_w;
        m.power_cap_w = host.power_cap_w;
        m.sm_clock_mhz = host.clock_mhz;
        m.temperature_c = host.temperature.as_ref().map(|t| t.celsius);
        m.temperature_source = host.temperature.as_ref().map(|t| t.source.clone());
        m.performance_state = host.governor.clone();
        if detail == Detail::Full {
            m.load_average = host.load_average;
            m.core_load_percent = host.core_load_percent.iter().map(|(_, l)| *l).collect();
        }
        m
    }

    fn metrics_of(&mut self, selection: &[usize], detail: Detail) -> Vec<DeviceMetrics> {
        let host = self.host_metrics(selection);
        let mut notices = std::mem::take(&mut self.notices);
        let out = selection
            .iter()
            .map(|&p| {
                let d = &self.devices[p];
                match (&host, d.backend) {
                    (Some(h), BackendKind::Cpu) => Smi::cpu_metrics(d, h, detail),
                    _ => self.gpu_metrics(d, detail, &mut notices),
                }
            })
            .collect();
        self.notices = notices;
        out
    }

    /// The metrics of the selected devices (positions from [`Smi::select`]), with every value
    /// `metric` shows.
    pub fn device_metrics(&mut self, selection: &[usize]) -> Vec<DeviceMetrics> {
        self.metrics_of(selection, Detail::Full)
    }

    /// Identity and limits of the selected devices.
    pub fn device_static(&mut self, selection: &[usize]) -> Vec<DeviceStatic> {
        let host = selection
            .iter()
            .any(|&p| self.devices[p].backend == BackendKind::Cpu)
            .then(|| self.host.static_info());
        let mut notices = std::mem::take(&mut self.notices);
        let driver = match &self.status {
            NvmlStatus::Available { driver_version, .. } => driver_version.clone(),
            NvmlStatus::Unavailable { .. } => None,
        };
        let out = selection
            .iter()
            .map(|&p| {
                let d = &self.devices[p];
                let props = d.runtime.properties();
                let mut s = DeviceStatic::identity(d.index, d.backend, d.name.clone(), d.uuid.clone());
                s.pci_bus_id = d.pci_bus_id.clone();
                s.compute_units = Some(props.compute_units);
                if d.backend == BackendKind::Cpu {
                    if let Some(h) = &host {
                        s.driver_version = h.kernel.clone();
                        s.sockets = h.sockets;
                        s.compute_units = Some(h.logical_cpus as u32);
                        s.memory_total = h.memory_total;
                        s.max_sm_clock_mhz = h.max_clock_mhz;
                    }
                    return s;
                }
                s.compute_capability =
                    Some(format!("{}.{}", props.compute_capability.0, props.compute_capability.1));
                s.memory_total = Some(props.total_memory);
                let Some(g) = self.nvml_device(d) else { return s };
                let mut n = Notes { notices: &mut notices, device: d.index };
                s.driver_version = driver.clone();
                if let Some(pci) = n.keep(g.pci_info()) {
                    s.pci_id = Some(format!("{:04x}:{:04x}", pci.vendor_id, pci.device_id));
                }
                s.serial = n.keep(g.serial());
                s.board_part_number = n.keep(g.board_part_number());
                s.vbios_version = n.keep(g.vbios_version());
                s.memory_total = n.keep(g.memory_info().map(|m| m.total)).or(s.memory_total);
                s.bar1_total = n.keep(g.bar1_total());
                s.power_limit_w = n.keep(g.enforced_power_limit().map(watts));
                s.power_limit_default_w = n.keep(g.default_power_limit().map(watts));
                if let Some((min, max)) = n.keep(g.power_limit_constraints()) {
                    s.power_limit_min_w = Some(watts(min));
                    s.power_limit_max_w = Some(watts(max));
                }
                s.max_sm_clock_mhz = n.keep(g.max_clock(Clock::Sm));
                s.max_memory_clock_mhz = n.keep(g.max_clock(Clock::Memory));
                if let Some((generation, width)) = n.keep(g.max_pcie_link()) {
                    s.pcie_max_generation = Some(generation);
                    s.pcie_max_width = Some(width);
                }
                s.ecc_enabled = n.keep(g.ecc_mode()).map(|(current, _)| current);
                s.persistence_mode = n.keep(g.persistence_mode());
                s.compute_mode = n.keep(g.compute_mode()).map(|m| m.label());
                s.mig_enabled = n.keep(g.mig_mode()).map(|(current, _)| current);
                s.temperature_slowdown_c = n.keep(g.temperature_threshold(TemperatureThreshold::Slowdown));
                s.temperature_shutdown_c = n.keep(g.temperature_threshold(TemperatureThreshold::Shutdown));
                s.memory_temperature_max_c = n.keep(g.temperature_threshold(TemperatureThreshold::MemoryMax));
                s
            })
            .collect();
        self.notices = notices;
        out
    }

    /// The processes with a context on the selected GPUs.
    pub fn process_list(&mut self, selection: &[usize]) -> Vec<ProcessRow> {
        let mut notices = std::mem::take(&mut self.notices);
        let mut out = Vec::new();
        for &p in selection {
            let d = &self.devices[p];
            let Some(g) = self.nvml_device(d) else { continue };
            let Some(list) = (Notes { notices: &mut notices, device: d.index }).keep(g.processes()) else {
                continue;
            };
            for proc in list {
                let name = self
                    .nvml
                    .as_ref()
                    .and_then(|n| n.process_name(proc.pid).ok())
                    .filter(|n| !n.is_empty())
                    .or_else(|| {
                        std::fs::read_to_string(format!("/proc/{}/comm", proc.pid))
                            .ok()
                            .map(|s| s.trim().to_string())
                    });
                out.push(ProcessRow {
                    device: d.index,
                    pid: proc.pid,
                    name,
                    kind: proc.kind.label(),
                    memory_used: proc.used_memory,
                });
            }
        }
        self.notices = notices;
        out
    }

    /// How each selected device reaches each other one.
    pub fn links(&mut self, selection: &[usize]) -> Vec<LinkRow> {
        let mut notices = std::mem::take(&mut self.notices);
        // Each GPU's active NVLinks, read once.
        let nvlinks: HashMap<usize, Vec<(NvLinkRemote, Option<String>)>> = selection
            .iter()
            .filter_map(|&p| {
                let d = &self.devices[p];
                let g = self.nvml_device(d)?;
                Some((p, (Notes { notices: &mut notices, device: d.index }).keep(g.active_nvlinks())?))
            })
            .collect();
        let mut out = Vec::new();
        for &a in selection {
            for &b in selection {
                if a == b {
                    continue;
                }
                let (da, db) = (&self.devices[a], &self.devices[b]);
                let mut n = Notes { notices: &mut notices, device: da.index };
                let peer_access = match da.runtime.can_access_peer(&db.runtime) {
                    Ok(p) => Some(p),
                    Err(e) => {
                        n.note(format!("peer access to device {}: {e}", db.index));
                        None
                    }
                };
                let (link_type, count) = match (da.backend, db.backend) {
                    (BackendKind::Cpu, BackendKind::Cpu) => ("SHM".to_string(), None),
                    (BackendKind::Cpu, _) | (_, BackendKind::Cpu) => ("HOST".to_string(), None),
                    _ => match (self.nvml_device(da), self.nvml_device(db)) {
                        (Some(ga), Some(gb)) => {
                            let links = nvlinks.get(&a).map(Vec::as_slice).unwrap_or(&[]);
                            let peer_bus = db.pci_bus_id.as_deref().and_then(parse_bus_id);
                            let direct = links
                                .iter()
                                .filter(|(_, bus)| {
                                    peer_bus.is_some() && bus.as_deref().and_then(parse_bus_id) == peer_bus
                                })
                                .count();
                            let switched = |l: &[(NvLinkRemote, Option<String>)]| {
                                l.iter().filter(|(r, _)| *r == NvLinkRemote::Switch).count()
                            };
                            // Through NVSwitches every GPU reaches every other over all its
                            // switch links (nvidia-smi's NV18 on an HGX H100).
                            let via_switch =
                                if switched(links) > 0 && nvlinks.get(&b).is_some_and(|l| switched(l) > 0) {
                                    switched(links)
                                } else {
                                    0
                                };
                            let count = (direct + via_switch) as u32;
                            if count > 0 {
                                (format!("NV{count}"), Some(count))
                            } else {
                                let level = n.keep(ga.topology_common_ancestor(&gb));
                                (
                                    level.map(|l| l.label()).unwrap_or_else(|| "N/A".into()),
                                    nvlinks.get(&a).map(|_| 0),
                                )
                            }
                        }
                        _ => ("N/A".to_string(), None),
                    },
                };
                out.push(LinkRow { from: da.index, to: db.index, link_type, peer_access, nvlinks: count });
            }
        }
        self.notices = notices;
        out
    }

    /// The default view: the concise table, then the GPUs' processes.
    pub fn overview(&mut self, selection: &[usize]) -> Report {
        let metrics = self.metrics_of(selection, Detail::Basic);
        let processes = self.process_list(selection);
        let tables = vec![
            Table::build("devices", "", Layout::Wide, views::OVERVIEW, &metrics),
            Table::build("processes", "Processes", Layout::Wide, views::PROCESS, &processes),
        ];
        self.report(tables)
    }

    /// `static`: identity, PCI bus id, UUID, memory, limits, driver.
    pub fn static_view(&mut self, selection: &[usize]) -> Report {
        let rows = self.device_static(selection);
        let t = Table::build("devices", "", Layout::Sections { heading: 2 }, views::STATIC, &rows);
        self.report(vec![t])
    }

    /// `metric`: utilisation, memory, power, energy, clocks, temperatures, PCIe, ECC.
    pub fn metric_view(&mut self, selection: &[usize]) -> Report {
        let rows = self.device_metrics(selection);
        let t = Table::build("devices", "", Layout::Sections { heading: 2 }, views::METRIC, &rows);
        self.report(vec![t])
    }

    /// `process`: pid, name, memory per GPU.
    pub fn process_view(&mut self, selection: &[usize]) -> Report {
        let rows = self.process_list(selection);
        let t = Table::build("processes", "", Layout::Wide, views::PROCESS, &rows);
        self.report(vec![t])
    }

    /// `topology`: link type and peer access between each pair.
    pub fn topology_view(&mut self, selection: &[usize]) -> Report {
        let rows = self.links(selection);
        let t = Table::build("links", "", Layout::Matrix, views::TOPOLOGY, &rows);
        self.report(vec![t])
    }

    /// One `monitor` sample, `time_s` seconds after the monitor started.
    pub fn monitor_view(&mut self, selection: &[usize], time_s: f64) -> Report {
        let rows: Vec<MonitorRow> = self
            .metrics_of(selection, Detail::Basic)
            .into_iter()
            .map(|metrics| MonitorRow { time_s, metrics })
            .collect();
        let t = Table::build("samples", "", Layout::Wide, views::MONITOR, &rows);
        self.report(vec![t])
    }
}
