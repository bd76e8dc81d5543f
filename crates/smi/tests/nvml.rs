//! NVML against nvidia-smi, read in the same test: identity exactly (name, PCI bus id, memory
//! total, limits, VBIOS, modes), live readings within a tolerance. Runs where NVML loads; with
//! `FERROCM_REQUIRE_GPU=1` a missing NVML or nvidia-smi is a failure, so a GPU run cannot pass
//! by skipping.

mod common;

use std::collections::HashMap;

use common::require_gpu;
use ferrocm_runtime::{BackendKind, Device};
use ferrocm_smi::nvml::{Clock, Nvml, NvmlDevice, NvmlError, TemperatureThreshold};
use ferrocm_smi::select::parse_bus_id;
use ferrocm_smi::Smi;

fn nvml() -> Option<Nvml> {
    match Nvml::init() {
        Ok(n) => Some(n),
        Err(e) => {
            assert!(!require_gpu(), "FERROCM_REQUIRE_GPU=1 but NVML is not available: {e}");
            None
        }
    }
}

/// `nvidia-smi <query> --format=csv,noheader,nounits`, one row of fields per line; `None`
/// fields are nvidia-smi's `[N/A]` / `[Not Supported]`. `None` altogether where this
/// nvidia-smi does not know a field's name.
fn nvidia_smi(query: &str) -> Option<Vec<Vec<Option<String>>>> {
    let out = std::process::Command::new("nvidia-smi")
        .args([query, "--format=csv,noheader,nounits"])
        .output()
        .unwrap_or_else(|e| panic!("NVML is present but nvidia-smi cannot be run: {e}"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        assert!(text.contains("not a valid field"), "nvidia-smi {query}: {text}");
        eprintln!("this nvidia-smi cannot be asked {query}: {}", text.trim());
        return None;
    }
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                l.split(", ")
                    .map(|f| {
                        let f = f.trim();
                        (!f.starts_with('[') && !f.is_empty() && f != "N/A").then(|| f.to_string())
                    })
                    .collect()
            })
            .collect(),
    )
}

/// The fields [`check_device`] compares.
const FIELDS: &[&str] = &[
    "name",
    "pci.bus_id",
    "memory.total",
    "enforced.power.limit",
    "power.default_limit",
    "power.min_limit",
    "power.max_limit",
    "clocks.max.sm",
    "clocks.max.mem",
    "pcie.link.gen.max",
    "pcie.link.width.max",
    "vbios_version",
    "serial",
    "ecc.mode.current",
    "persistence_mode",
    "compute_mode",
    "fan.speed",
    "temperature.gpu",
    "temperature.memory",
    "power.draw",
    "utilization.gpu",
    "clocks.mem",
    "pstate",
    "driver_version",
];

/// nvidia-smi's values of [`FIELDS`] for the GPU with `uuid`, in one call (one call per field
/// where this nvidia-smi does not know one of them; those it does not know are left out).
fn nvidia_smi_values(uuid: &str) -> HashMap<&'static str, Option<String>> {
    let row = |query: String| {
        nvidia_smi(&query).map(|rows| {
            rows.into_iter().find(|r| r[0].as_deref() == Some(uuid)).unwrap_or_else(|| panic!("{uuid}"))
        })
    };
    if let Some(r) = row(format!("--query-gpu=uuid,{}", FIELDS.join(","))) {
        return FIELDS.iter().copied().zip(r.into_iter().skip(1)).collect();
    }
    FIELDS.iter().filter_map(|f| Some((*f, row(format!("--query-gpu=uuid,{f}"))?[1].clone()))).collect()
}

fn num(f: &Option<String>) -> Option<f64> {
    f.as_deref().and_then(|s| s.parse().ok())
}

/// nvidia-smi's values for one GPU.
struct Theirs {
    uuid: String,
    values: HashMap<&'static str, Option<String>>,
}

/// Compares NVML's `ours` with nvidia-smi's `field` by `same`. A value nvidia-smi does not
/// show must be one NVML refuses as unsupported, and the other way round.
fn compare<T: std::fmt::Debug>(
    t: &Theirs,
    field: &str,
    ours: Result<T, NvmlError>,
    same: impl Fn(&T, &str) -> bool,
) {
    let uuid = &t.uuid;
    let Some(theirs) = t.values.get(field).cloned() else { return };
    match (ours, theirs) {
        (Err(e), None) => assert!(e.is_unsupported(), "{uuid} {field}: nvidia-smi shows N/A, NVML says {e}"),
        (Ok(v), None) => panic!("{uuid} {field}: nvidia-smi shows N/A, NVML {v:?}"),
        (Err(e), Some(t)) => panic!("{uuid} {field}: nvidia-smi shows {t}, NVML fails: {e}"),
        (Ok(a), Some(b)) => assert!(same(&a, &b), "{uuid} {field}: NVML {a:?}, nvidia-smi {b}"),
    }
}

fn near(tolerance: impl Fn(f64) -> f64) -> impl Fn(&f64, &str) -> bool {
    move |a, b| b.parse::<f64>().is_ok_and(|b| (a - b).abs() <= tolerance(b))
}

fn check_device(d: &NvmlDevice<'_>, nvml: &Nvml) {
    let uuid = d.uuid().unwrap();
    let u = &Theirs { values: nvidia_smi_values(&uuid), uuid };
    let watts = |mw: u32| mw as f64 / 1000.0;
    let exact = |a: &String, b: &str| a == b;
    // Identity and limits: exact.
    compare(u, "name", d.name(), exact);
    compare(u, "pci.bus_id", d.pci_info().map(|p| p.bus_id), exact);
    let memory = d.memory_info().unwrap();
    assert!(memory.used + memory.free <= memory.total, "{memory:?}");
    compare(u, "memory.total", Ok::<_, NvmlError>((memory.total >> 20) as f64), near(|_| 0.0));
    compare(u, "enforced.power.limit", d.enforced_power_limit().map(watts), near(|_| 0.01));
    compare(u, "power.default_limit", d.default_power_limit().map(watts), near(|_| 0.01));
    compare(u, "power.min_limit", d.power_limit_constraints().map(|c| watts(c.0)), near(|_| 0.01));
    compare(u, "power.max_limit", d.power_limit_constraints().map(|c| watts(c.1)), near(|_| 0.01));
    compare(u, "clocks.max.sm", d.max_clock(Clock::Sm).map(|c| c as f64), near(|_| 0.0));
    compare(u, "clocks.max.mem", d.max_clock(Clock::Memory).map(|c| c as f64), near(|_| 0.0));
    compare(u, "pcie.link.gen.max", d.max_pcie_link().map(|l| l.0 as f64), near(|_| 0.0));
    compare(u, "pcie.link.width.max", d.max_pcie_link().map(|l| l.1 as f64), near(|_| 0.0));
    compare(u, "vbios_version", d.vbios_version(), exact);
    compare(u, "serial", d.serial(), exact);
    let on_off = |b: bool| if b { "Enabled".to_string() } else { "Disabled".to_string() };
    compare(u, "ecc.mode.current", d.ecc_mode().map(|m| on_off(m.0)), exact);
    compare(u, "persistence_mode", d.persistence_mode().map(on_off), exact);
    compare(u, "compute_mode", d.compute_mode().map(|m| m.label()), exact);
    // Live readings, taken milliseconds apart: within a tolerance.
    compare(u, "fan.speed", d.fan_speed().map(|f| f as f64), near(|_| 5.0));
    compare(u, "temperature.gpu", d.temperature().map(|t| t as f64), near(|_| 3.0));
    compare(u, "temperature.memory", d.memory_temperature().map(|t| t as f64), near(|_| 3.0));
    compare(u, "power.draw", d.power_usage().map(watts), near(|b| (0.15 * b).max(15.0)));
    compare(u, "utilization.gpu", d.utilization().map(|x| x.gpu as f64), near(|_| 10.0));
    compare(u, "clocks.mem", d.clock(Clock::Memory).map(|c| c as f64), near(|b| 0.05 * b));
    // The state may step between the two reads; both must name one.
    let pstate = d.performance_state().map(|p| p.map(|p| format!("P{p}")).unwrap_or_default());
    compare(u, "pstate", pstate, |a, b| a.starts_with('P') && b.starts_with('P'));
    compare(u, "driver_version", nvml.driver_version(), exact);
    // Thresholds are ordered as the hardware's protection requires.
    if let (Ok(slow), Ok(shut)) = (
        d.temperature_threshold(TemperatureThreshold::Slowdown),
        d.temperature_threshold(TemperatureThreshold::Shutdown),
    ) {
        assert!(slow < shut, "slowdown {slow} °C, shutdown {shut} °C");
    }
}

#[test]
fn devices_match_nvidia_smi() {
    let Some(nvml) = nvml() else { return };
    let rows = nvidia_smi("--query-gpu=uuid").expect("uuid is a field");
    let devices = nvml.devices().unwrap();
    assert_eq!(devices.len(), rows.len(), "device count");
    assert!(!devices.is_empty() || !require_gpu(), "FERROCM_REQUIRE_GPU=1 but NVML sees no device");
    for d in &devices {
        check_device(d, &nvml);
    }
}

/// The runtime's GPUs are NVML's, matched by UUID, at the same PCI address; the processes NVML
/// lists are nvidia-smi's, with this test's own context among them where the PID namespace
/// lets the driver see it.
#[test]
fn runtime_devices_and_processes() {
    let Some(nvml) = nvml() else { return };
    let gpus = Device::of_kind(BackendKind::Cuda);
    assert!(!gpus.is_empty() || !require_gpu(), "FERROCM_REQUIRE_GPU=1 but the runtime has no GPU");
    let mut smi = Smi::with_nvml(Ok(nvml)).unwrap();
    for gpu in &gpus {
        let d = &smi.devices()[gpu.index()];
        assert!(d.nvml_index.is_some(), "device {} ({}) not matched to NVML", d.index, d.uuid);
        assert_eq!(
            d.pci_bus_id.as_deref().and_then(parse_bus_id),
            parse_bus_id(&gpu.properties().pci_bus_id),
            "NVML's and CUDA's bus id of device {}",
            d.index
        );
    }
    let Some(gpu) = gpus.first() else { return };
    // A context with 64 MiB on the first GPU.
    let stream = gpu.create_stream().unwrap();
    let buffer = stream.alloc::<u8>(64 << 20).unwrap();
    stream.synchronize().unwrap();
    let ours = smi.process_list(&[gpu.index()]);
    let theirs = nvidia_smi("--query-compute-apps=gpu_uuid,pid,used_memory").expect("compute-apps fields");
    let uuid = &gpu.properties().uuid;
    let mut theirs: Vec<(u32, Option<f64>)> = theirs
        .iter()
        .filter(|r| r[0].as_deref() == Some(uuid.as_str()))
        .map(|r| (r[1].as_deref().unwrap().parse().unwrap(), num(&r[2])))
        .collect();
    let mut mine: Vec<(u32, Option<f64>)> =
        ours.iter().map(|p| (p.pid, p.memory_used.map(|b| (b >> 20) as f64))).collect();
    mine.sort_by_key(|p| p.0);
    theirs.sort_by_key(|p| p.0);
    assert_eq!(mine, theirs, "processes on {uuid}");
    match ours.iter().find(|p| p.pid == std::process::id()) {
        Some(me) => {
            assert!(me.memory_used.unwrap_or(0) >= 64 << 20, "{me:?}");
            assert_eq!(me.kind, "C");
        }
        None => eprintln!("this process is not among the driver's (another PID namespace): {ours:?}"),
    }
    drop(buffer);
}
