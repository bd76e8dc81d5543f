//! The roofline view: each kernel whose library declared its work, with its achieved FLOP/s
//! and bytes/s next to the device's measured ceilings (`ferrocm prof --calibrate`), its
//! arithmetic intensity and the roof that binds it.
//!
//! The attainable rate of a kernel of intensity `I` (flops per byte) is
//! `min(peak_flops, I * bandwidth)`: the memory roof binds when `I * bandwidth < peak_flops`.
//! A kernel that declares only bytes (copies, generators) is held against the bandwidth alone.
//! Device-to-device copies count bytes read plus bytes written, as the bandwidth ceiling does.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{ProfError, Result};
use crate::record::{Agent, CopyDirection, DeviceOp, MathUnit, Trace, Work};

/// One device's measured ceilings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ceilings {
    /// The device's name and backend, as `ferrocm info` shows them (the cache key).
    pub device: String,
    pub backend: String,
    /// Device-to-device copy bandwidth, bytes read plus written per second.
    pub copy_bytes_per_s: f64,
    /// Fused multiply-add rate of the vector lanes (f32), flops per second.
    pub vector_flops_per_s: f64,
    /// Matrix-unit rate (bf16 inputs, f32 accumulation), flops per second.
    pub matrix_flops_per_s: f64,
    /// When they were measured (RFC 3339 date-time, UTC).
    pub measured: String,
}

impl Ceilings {
    fn peak(&self, unit: MathUnit) -> f64 {
        match unit {
            MathUnit::Vector => self.vector_flops_per_s,
            MathUnit::Matrix => self.matrix_flops_per_s,
        }
    }
}

#[derive(Serialize, Deserialize, Default)]
struct CacheFile {
    version: u32,
    devices: Vec<Ceilings>,
}

/// Reads the ceilings cache; a missing file is an empty cache.
pub fn load_ceilings(path: &Path) -> Result<Vec<Ceilings>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(ProfError::Io { action: "reading", path: path.into(), source }),
    };
    let file: CacheFile = serde_json::from_str(&text)
        .map_err(|e| ProfError::BadCeilings { path: path.into(), reason: e.to_string() })?;
    if file.version != 1 {
        return Err(ProfError::BadCeilings {
            path: path.into(),
            reason: format!("version {} is not 1; run `ferrocm prof --calibrate` again", file.version),
        });
    }
    Ok(file.devices)
}

/// Stores `c` in the cache at `path`, replacing the entry of the same device.
pub fn store_ceilings(path: &Path, c: Ceilings) -> Result<()> {
    let mut devices = load_ceilings(path).unwrap_or_default();
    devices.retain(|d| !(d.device == c.device && d.backend == c.backend));
    devices.push(c);
    let text =
        serde_json::to_string_pretty(&CacheFile { version: 1, devices }).expect("plain data serializes");
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| ProfError::Io {
            action: "creating",
            path: dir.into(),
            source,
        })?;
    }
    std::fs::write(path, text).map_err(|source| ProfError::Io {
        action: "writing",
        path: path.into(),
        source,
    })
}

/// The ceilings of `agent`, if the cache has them.
pub fn find<'a>(cache: &'a [Ceilings], agent: &Agent) -> Option<&'a Ceilings> {
    cache.iter().find(|c| c.device == agent.name && c.backend == agent.backend)
}

/// Which roof limits a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Bound {
    Memory,
    Compute,
}

/// One row of the roofline: a name on one agent, over all its dispatches with declared work.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub name: String,
    pub agent: u32,
    pub calls: u64,
    pub total_ns: u64,
    pub flops: u64,
    pub bytes: u64,
    pub unit: MathUnit,
    pub achieved_flops_per_s: f64,
    pub achieved_bytes_per_s: f64,
    /// Flops per byte (0 for work that declares no flops).
    pub intensity: f64,
    /// The device's ceilings, where measured.
    pub peak_flops_per_s: Option<f64>,
    pub peak_bytes_per_s: Option<f64>,
    /// `min(peak flops, intensity x bandwidth)` (the bandwidth alone for byte-only work).
    pub attainable_per_s: Option<f64>,
    pub bound: Option<Bound>,
    /// Achieved over attainable, in percent.
    pub percent_of_roof: Option<f64>,
}

/// The roofline rows of a trace, longest total time first.
pub fn rows(trace: &Trace, cache: &[Ceilings]) -> Vec<Row> {
    /// Calls, nanoseconds, flops and bytes of one name on one agent.
    type Sums = (u64, u64, u64, u64, MathUnit);
    let mut groups: HashMap<(u32, String), Sums> = HashMap::new();
    for r in &trace.device {
        let (name, work) = match (&r.op, r.work) {
            (DeviceOp::Kernel(k), Some(w)) => (k.name.to_string(), w),
            (DeviceOp::Copy { direction: CopyDirection::DeviceToDevice, bytes, .. }, _) => {
                ("copy device-to-device".to_string(), Work::bytes(2 * bytes))
            }
            (DeviceOp::Memset { bytes }, _) => {
                (crate::record::MEMSET_KERNEL_NAME.to_string(), Work::bytes(*bytes))
            }
            _ => continue,
        };
        let g = groups.entry((r.agent, name)).or_insert((0, 0, 0, 0, work.unit));
        g.0 += 1;
        g.1 += r.end_ns.saturating_sub(r.start_ns);
        g.2 += work.flops;
        g.3 += work.bytes;
    }
    let mut out: Vec<Row> = groups
        .into_iter()
        .map(|((agent, name), (calls, total_ns, flops, bytes, unit))| {
            let secs = total_ns.max(1) as f64 * 1e-9;
            let (af, ab) = (flops as f64 / secs, bytes as f64 / secs);
            let intensity = if bytes > 0 { flops as f64 / bytes as f64 } else { 0.0 };
            let ceil = trace.agents.iter().find(|a| a.id == agent).and_then(|a| find(cache, a));
            let (peak_f, peak_b) = (ceil.map(|c| c.peak(unit)), ceil.map(|c| c.copy_bytes_per_s));
            let (attainable, bound, percent) = match ceil {
                Some(c) if flops > 0 => {
                    let (pf, mem) = (c.peak(unit), intensity * c.copy_bytes_per_s);
                    let (att, b) = if mem < pf { (mem, Bound::Memory) } else { (pf, Bound::Compute) };
                    (Some(att), Some(b), Some(af / att * 100.0))
                }
                Some(c) => {
                    (Some(c.copy_bytes_per_s), Some(Bound::Memory), Some(ab / c.copy_bytes_per_s * 100.0))
                }
                None => (None, None, None),
            };
            Row {
                name,
                agent,
                calls,
                total_ns,
                flops,
                bytes,
                unit,
                achieved_flops_per_s: af,
                achieved_bytes_per_s: ab,
                intensity,
                peak_flops_per_s: peak_f,
                peak_bytes_per_s: peak_b,
                attainable_per_s: attainable,
                bound,
                percent_of_roof: percent,
            }
        })
        .collect();
    out.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
    out
}

pub(crate) const COLUMNS: &[&str] = &[
    "Name",
    "Agent_Id",
    "Calls",
    "TotalDurationNs",
    "Flops",
    "Bytes",
    "Unit",
    "Achieved_GFLOPs",
    "Achieved_GBs",
    "Arithmetic_Intensity",
    "Peak_GFLOPs",
    "Peak_GBs",
    "Attainable",
    "Bound",
    "Percent_Of_Roof",
];

/// `roofline.csv`. Rates are in 10^9 per second; `Attainable` is in GFLOP/s for work with
/// flops and GB/s for byte-only work; ceiling columns are empty where no calibration exists.
pub(crate) fn csv(rows: &[Row]) -> String {
    use std::fmt::Write as _;
    let opt = |v: Option<f64>| v.map(|v| format!("{v:.3}")).unwrap_or_default();
    let mut out = COLUMNS.iter().map(|c| crate::csv::quoted(c)).collect::<Vec<_>>().join(",") + "\n";
    for r in rows {
        let scale = |v: Option<f64>| opt(v.map(|v| v / 1e9));
        let _ = writeln!(
            out,
            "{},\"Agent {}\",{},{},{},{},\"{:?}\",{:.3},{:.3},{:.4},{},{},{},{},{}",
            crate::csv::quoted(&r.name),
            r.agent,
            r.calls,
            r.total_ns,
            r.flops,
            r.bytes,
            r.unit,
            r.achieved_flops_per_s / 1e9,
            r.achieved_bytes_per_s / 1e9,
            r.intensity,
            scale(r.peak_flops_per_s),
            scale(r.peak_bytes_per_s),
            scale(r.attainable_per_s),
            r.bound.map(|b| crate::csv::quoted(&format!("{b:?}"))).unwrap_or_default(),
            opt(r.percent_of_roof),
        );
    }
    out
}
