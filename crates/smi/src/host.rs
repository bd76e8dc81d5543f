//! The CPU device's side of `ferrocm smi`: load per core, memory, clocks, temperature and package
//! power, read from `/proc` and `/sys` (Linux). Parsing is separate from reading, so every
//! parser is tested on fixed text; [`HostReader`] takes the roots it reads under, so the whole
//! reader is tested on a fixture tree.
//!
//! Load and power are rates: they need two samples. A reader keeps its last sample; its first
//! read takes two samples [`FIRST_WINDOW`] apart. Values the machine does not expose (no thermal
//! zone in a container, RAPL readable only by root) are `None`, never an error.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::SmiError;

/// How far apart the two samples of a reader's first read are.
pub const FIRST_WINDOW: Duration = Duration::from_millis(100);

/// Busy and total time of one CPU (or all of them) since boot, in clock ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuTimes {
    /// Everything but idle and iowait.
    pub busy: u64,
    /// user + nice + system + idle + iowait + irq + softirq + steal (guest time is already
    /// inside user and nice).
    pub total: u64,
}

impl CpuTimes {
    /// Percent busy between `earlier` and `self`; `None` when no time passed (or the counters
    /// went backwards, as after CPU hot-plug).
    pub fn load_since(&self, earlier: &CpuTimes) -> Option<f64> {
        let total = self.total.checked_sub(earlier.total)?;
        let busy = self.busy.checked_sub(earlier.busy)?;
        (total > 0).then(|| 100.0 * busy.min(total) as f64 / total as f64)
    }
}

/// The CPU lines of `/proc/stat`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ProcStat {
    /// The aggregate `cpu` line.
    pub all: CpuTimes,
    /// `cpuN` lines as (N, times), in file order.
    pub cores: Vec<(u32, CpuTimes)>,
}

fn parse_error(path: &str, line: usize, reason: impl Into<String>) -> SmiError {
    SmiError::HostParse { path: path.to_string(), line, reason: reason.into() }
}

/// Parses `/proc/stat`'s `cpu` and `cpuN` lines.
pub fn parse_proc_stat(text: &str) -> Result<ProcStat, SmiError> {
    const PATH: &str = "/proc/stat";
    let mut stat = ProcStat::default();
    let mut seen_all = false;
    for (i, line) in text.lines().enumerate() {
        let mut words = line.split_ascii_whitespace();
        let Some(name) = words.next() else { continue };
        let Some(id) = name.strip_prefix("cpu") else { continue };
        let fields: Vec<u64> = words.map(|w| w.parse::<u64>()).collect::<Result<_, _>>().map_err(|e| {
            parse_error(PATH, i + 1, format!("`{name}` has a field that is not a counter ({e})"))
        })?;
        if fields.len() < 4 {
            return Err(parse_error(
                PATH,
                i + 1,
                format!("`{name}` has {} fields, at least 4 expected", fields.len()),
            ));
        }
        let field = |k: usize| fields.get(k).copied().unwrap_or(0);
        // user nice system idle iowait irq softirq steal [guest guest_nice]
        let idle = field(3) + field(4);
        let total: u64 = (0..8).map(field).sum();
        let times = CpuTimes { busy: total - idle, total };
        if id.is_empty() {
            stat.all = times;
            seen_all = true;
        } else {
            let n = id
                .parse::<u32>()
                .map_err(|_| parse_error(PATH, i + 1, format!("`{name}` is not a CPU name")))?;
            stat.cores.push((n, times));
        }
    }
    if !seen_all {
        return Err(parse_error(PATH, 0, "no aggregate `cpu` line"));
    }
    Ok(stat)
}

/// Memory from `/proc/meminfo`, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemInfo {
    pub total: u64,
    /// What new allocations could get without swapping (`MemAvailable`; on kernels before 3.14,
    /// free + buffers + page cache).
    pub available: u64,
    pub swap_total: u64,
    pub swap_free: u64,
}

impl MemInfo {
    /// Bytes in use: total less available.
    pub fn used(&self) -> u64 {
        self.total.saturating_sub(self.available)
    }
}

/// Parses `/proc/meminfo` (values in kB).
pub fn parse_meminfo(text: &str) -> Result<MemInfo, SmiError> {
    const PATH: &str = "/proc/meminfo";
    let get = |key: &str| -> Result<Option<u64>, SmiError> {
        for (i, line) in text.lines().enumerate() {
            let Some(rest) = line.strip_prefix(key).and_then(|r| r.strip_prefix(':')) else { continue };
            let mut words = rest.split_ascii_whitespace();
            let value = words
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| parse_error(PATH, i + 1, format!("`{key}` has no number")))?;
            let scale = match words.next() {
                None => 1,
                Some("kB") => 1024,
                Some(unit) => {
                    return Err(parse_error(PATH, i + 1, format!("`{key}` is in unknown unit `{unit}`")))
                }
            };
            return value
                .checked_mul(scale)
                .map(Some)
                .ok_or_else(|| parse_error(PATH, i + 1, format!("`{key}` overflows 64 bits")));
        }
        Ok(None)
    };
    let total = get("MemTotal")?.ok_or_else(|| parse_error(PATH, 0, "no `MemTotal` line"))?;
    let available = match get("MemAvailable")? {
        Some(a) => a,
        None => {
            let free = get("MemFree")?
                .ok_or_else(|| parse_error(PATH, 0, "neither `MemAvailable` nor `MemFree`"))?;
            free + get("Buffers")?.unwrap_or(0) + get("Cached")?.unwrap_or(0)
        }
    };
    Ok(MemInfo {
        total,
        available: available.min(total),
        swap_total: get("SwapTotal")?.unwrap_or(0),
        swap_free: get("SwapFree")?.unwrap_or(0),
    })
}

/// One temperature sensor: a `/sys/class/thermal` zone or a `/sys/class/hwmon` input.
#[derive(Debug, Clone, PartialEq)]
pub struct Sensor {
    /// `thermal_zone` or `hwmon`.
    pub class: &'static str,
    /// The zone's `type` or the hwmon chip's `name` (`coretemp`, `k10temp`, `acpitz`, ...).
    pub chip: String,
    /// The input's label (`Package id 0`, `Tctl`), where hwmon gives one.
    pub label: Option<String>,
    pub celsius: f64,
}

/// A temperature and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Temperature {
    pub celsius: f64,
    /// e.g. "hwmon coretemp Package id 0" or "thermal_zone x86_pkg_temp".
    pub source: String,
}

/// Parses a `temp` or `tempN_input` file: millidegrees Celsius.
pub fn parse_millidegrees(text: &str) -> Option<f64> {
    let v: i64 = text.trim().parse().ok()?;
    // Sensors that are absent read as large negative or absurd values on some boards.
    let c = v as f64 / 1000.0;
    (-60.0..=250.0).contains(&c).then_some(c)
}

/// Picks the CPU's temperature from the sensors the machine exposes: a CPU hwmon driver's
/// package sensor first (`coretemp` "Package id N", `k10temp` "Tctl"/"Tdie"), then its hottest
/// input, then a CPU thermal zone (`x86_pkg_temp`, `cpu*-thermal`), then ACPI's `acpitz` as the
/// last resort. On several packages the hottest is shown.
pub fn cpu_temperature(sensors: &[Sensor]) -> Option<Temperature> {
    const CPU_CHIPS: &[&str] = &["coretemp", "k10temp", "zenpower", "cpu_thermal", "cpu-thermal"];
    let hottest = |pick: &dyn Fn(&Sensor) -> bool| {
        sensors.iter().filter(|s| pick(s)).max_by(|a, b| a.celsius.total_cmp(&b.celsius)).map(|s| {
            Temperature {
                celsius: s.celsius,
                source: match &s.label {
                    Some(l) => format!("{} {} {l}", s.class, s.chip),
                    None => format!("{} {}", s.class, s.chip),
                },
            }
        })
    };
    let cpu_hwmon = |s: &Sensor| s.class == "hwmon" && CPU_CHIPS.contains(&s.chip.as_str());
    let package = |s: &Sensor| {
        cpu_hwmon(s)
            && s.label.as_deref().is_some_and(|l| l.starts_with("Package id") || l == "Tctl" || l == "Tdie")
    };
    let cpu_zone = |s: &Sensor| {
        s.class == "thermal_zone" && {
            let t = s.chip.to_ascii_lowercase();
            t == "x86_pkg_temp"
                || t.starts_with("cpu")
                || t.contains("cpu-thermal")
                || t.contains("cpu_thermal")
        }
    };
    let acpi = |s: &Sensor| s.chip == "acpitz";
    hottest(&package)
        .or_else(|| hottest(&cpu_hwmon))
        .or_else(|| hottest(&cpu_zone))
        .or_else(|| hottest(&acpi))
}

/// What one read of the host gives.
#[derive(Debug, Clone, PartialEq)]
pub struct HostMetrics {
    /// Percent busy over all CPUs since the previous sample.
    pub load_percent: Option<f64>,
    /// Percent busy per logical CPU, by CPU number.
    pub core_load_percent: Vec<(u32, f64)>,
    pub memory: Option<MemInfo>,
    pub temperature: Option<Temperature>,
    /// Mean current clock over the logical CPUs, MHz.
    pub clock_mhz: Option<f64>,
    /// Package power from RAPL, watts (readable by root only on most kernels).
    pub power_w: Option<f64>,
    /// Sum of the packages' RAPL long-term power limits, watts.
    pub power_cap_w: Option<f64>,
    /// cpufreq governor of CPU 0 (`performance`, `powersave`, `schedutil`, ...).
    pub governor: Option<String>,
    /// 1, 5 and 15 minute load averages.
    pub load_average: Option<[f64; 3]>,
}

/// What does not change while the machine runs.
#[derive(Debug, Clone, PartialEq)]
pub struct HostStatic {
    /// `model name` of `/proc/cpuinfo` (or the architecture where it has none).
    pub model: Option<String>,
    pub logical_cpus: usize,
    /// Distinct `physical id`s in `/proc/cpuinfo`.
    pub sockets: Option<usize>,
    pub memory_total: Option<u64>,
    /// Highest `cpuinfo_max_freq` over the CPUs, MHz.
    pub max_clock_mhz: Option<u32>,
    /// Kernel release (`/proc/sys/kernel/osrelease`).
    pub kernel: Option<String>,
}

/// Microjoules between two readings of a RAPL counter that wraps to 0 after `range`.
pub fn energy_delta(before: u64, after: u64, range: u64) -> u64 {
    if after >= before {
        after - before
    } else {
        range.saturating_sub(before).saturating_add(after)
    }
}

/// One RAPL package's energy counter.
#[derive(Debug, Clone, Copy)]
struct Energy {
    microjoules: u64,
    range: u64,
}

#[derive(Debug, Clone)]
struct Sample {
    at: Instant,
    stat: Option<ProcStat>,
    energy: Option<Vec<Energy>>,
}

/// Reads the host's metrics, keeping the previous sample so loads are over the time between
/// reads.
#[derive(Debug)]
pub struct HostReader {
    proc_root: PathBuf,
    sys_root: PathBuf,
    last: Option<Sample>,
}

impl Default for HostReader {
    fn default() -> Self {
        HostReader::new()
    }
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn read_u64(path: &Path) -> Option<u64> {
    read(path)?.trim().parse().ok()
}

/// `cpuN` directories under `devices/system/cpu` (not `cpufreq`, `cpuidle`), sorted by N.
fn cpu_dirs(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<(u32, PathBuf)> = entries(root, "cpu")
        .into_iter()
        .filter_map(|p| {
            let n = p.file_name()?.to_string_lossy().strip_prefix("cpu")?.parse().ok()?;
            Some((n, p))
        })
        .collect();
    v.sort();
    v.into_iter().map(|(_, p)| p).collect()
}

/// Entries of `dir` whose names start with `prefix`, sorted by name.
fn entries(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

impl HostReader {
    /// Reads `/proc` and `/sys`.
    pub fn new() -> HostReader {
        HostReader::with_roots("/proc", "/sys")
    }

    /// Reads the trees under `proc_root` and `sys_root` instead (for tests).
    pub fn with_roots(proc_root: impl Into<PathBuf>, sys_root: impl Into<PathBuf>) -> HostReader {
        HostReader { proc_root: proc_root.into(), sys_root: sys_root.into(), last: None }
    }

    fn proc(&self, rel: &str) -> PathBuf {
        self.proc_root.join(rel)
    }

    fn sys(&self, rel: &str) -> PathBuf {
        self.sys_root.join(rel)
    }

    /// `/proc/stat`, parsed.
    pub fn proc_stat(&self) -> Result<ProcStat, SmiError> {
        let path = self.proc("stat");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| SmiError::HostRead { path: path.display().to_string(), message: e.to_string() })?;
        parse_proc_stat(&text)
    }

    /// `/proc/meminfo`, parsed.
    pub fn meminfo(&self) -> Result<MemInfo, SmiError> {
        let path = self.proc("meminfo");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| SmiError::HostRead { path: path.display().to_string(), message: e.to_string() })?;
        parse_meminfo(&text)
    }

    /// Every temperature sensor under `class/thermal` and `class/hwmon`.
    pub fn sensors(&self) -> Vec<Sensor> {
        let mut out = Vec::new();
        for zone in entries(&self.sys("class/thermal"), "thermal_zone") {
            let (Some(kind), Some(c)) =
                (read(&zone.join("type")), read(&zone.join("temp")).and_then(|t| parse_millidegrees(&t)))
            else {
                continue;
            };
            out.push(Sensor {
                class: "thermal_zone",
                chip: kind.trim().to_string(),
                label: None,
                celsius: c,
            });
        }
        for hwmon in entries(&self.sys("class/hwmon"), "hwmon") {
            let Some(chip) = read(&hwmon.join("name")) else { continue };
            for input in entries(&hwmon, "temp") {
                let file = input.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
                let Some(stem) = file.strip_suffix("_input") else { continue };
                let Some(c) = read(&input).and_then(|t| parse_millidegrees(&t)) else { continue };
                let label = read(&hwmon.join(format!("{stem}_label"))).map(|l| l.trim().to_string());
                out.push(Sensor { class: "hwmon", chip: chip.trim().to_string(), label, celsius: c });
            }
        }
        out
    }

    /// Mean `scaling_cur_freq` over the CPUs, else mean `cpu MHz` of `/proc/cpuinfo`.
    fn clock_mhz(&self) -> Option<f64> {
        let freqs: Vec<u64> = cpu_dirs(&self.sys("devices/system/cpu"))
            .iter()
            .filter_map(|cpu| read_u64(&cpu.join("cpufreq/scaling_cur_freq")))
            .collect();
        if !freqs.is_empty() {
            return Some(freqs.iter().sum::<u64>() as f64 / freqs.len() as f64 / 1000.0);
        }
        let info = read(&self.proc("cpuinfo"))?;
        let mhz: Vec<f64> = info
            .lines()
            .filter(|l| l.starts_with("cpu MHz"))
            .filter_map(|l| l.split(':').nth(1)?.trim().parse().ok())
            .collect();
        (!mhz.is_empty()).then(|| mhz.iter().sum::<f64>() / mhz.len() as f64)
    }

    /// Top-level RAPL package zones (`intel-rapl:N`, not their `intel-rapl:N:M` sub-zones).
    fn rapl_packages(&self) -> Vec<PathBuf> {
        entries(&self.sys("class/powercap"), "intel-rapl:")
            .into_iter()
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().matches(':').count() == 1))
            .collect()
    }

    fn energy(&self) -> Option<Vec<Energy>> {
        let packages = self.rapl_packages();
        if packages.is_empty() {
            return None;
        }
        packages
            .iter()
            .map(|p| {
                Some(Energy {
                    microjoules: read_u64(&p.join("energy_uj"))?,
                    range: read_u64(&p.join("max_energy_range_uj")).unwrap_or(u64::MAX),
                })
            })
            .collect()
    }

    fn power_cap_w(&self) -> Option<f64> {
        let packages = self.rapl_packages();
        let caps: Option<Vec<u64>> =
            packages.iter().map(|p| read_u64(&p.join("constraint_0_power_limit_uw"))).collect();
        caps.filter(|c| !c.is_empty()).map(|c| c.iter().sum::<u64>() as f64 / 1e6)
    }

    fn sample(&self) -> Sample {
        Sample { at: Instant::now(), stat: self.proc_stat().ok(), energy: self.energy() }
    }

    /// Reads the host. Load and power are over the time since the previous read (the first read
    /// waits [`FIRST_WINDOW`] between two samples).
    pub fn read(&mut self) -> HostMetrics {
        let previous = match self.last.take() {
            Some(s) => s,
            None => {
                let s = self.sample();
                std::thread::sleep(FIRST_WINDOW);
                s
            }
        };
        let now = self.sample();
        let (load_percent, core_load_percent) = match (&previous.stat, &now.stat) {
            (Some(a), Some(b)) => (
                b.all.load_since(&a.all),
                b.cores
                    .iter()
                    .filter_map(|(n, t)| {
                        let (_, before) = a.cores.iter().find(|(m, _)| m == n)?;
                        Some((*n, t.load_since(before)?))
                    })
                    .collect(),
            ),
            _ => (None, Vec::new()),
        };
        let seconds = now.at.duration_since(previous.at).as_secs_f64();
        let power_w = match (&previous.energy, &now.energy) {
            (Some(a), Some(b)) if a.len() == b.len() && seconds > 0.0 => {
                let microjoules: u64 =
                    a.iter().zip(b).map(|(x, y)| energy_delta(x.microjoules, y.microjoules, y.range)).sum();
                Some(microjoules as f64 / 1e6 / seconds)
            }
            _ => None,
        };
        let load_average = read(&self.proc("loadavg")).and_then(|t| {
            let v: Vec<f64> = t.split_ascii_whitespace().take(3).filter_map(|w| w.parse().ok()).collect();
            (v.len() == 3).then(|| [v[0], v[1], v[2]])
        });
        let metrics = HostMetrics {
            load_percent,
            core_load_percent,
            memory: self.meminfo().ok(),
            temperature: cpu_temperature(&self.sensors()),
            clock_mhz: self.clock_mhz(),
            power_w,
            power_cap_w: self.power_cap_w(),
            governor: read(&self.sys("devices/system/cpu/cpu0/cpufreq/scaling_governor"))
                .map(|g| g.trim().to_string()),
            load_average,
        };
        self.last = Some(now);
        metrics
    }

    /// Identity and limits of the host.
    pub fn static_info(&self) -> HostStatic {
        let cpuinfo = read(&self.proc("cpuinfo")).unwrap_or_default();
        let value = |line: &str| line.split_once(':').map(|(_, v)| v.trim().to_string());
        let model = cpuinfo.lines().find(|l| l.starts_with("model name")).and_then(value);
        let mut sockets: Vec<String> =
            cpuinfo.lines().filter(|l| l.starts_with("physical id")).filter_map(value).collect();
        sockets.sort();
        sockets.dedup();
        let cpus = self.proc_stat().map(|s| s.cores.len()).unwrap_or(0);
        let max_khz = cpu_dirs(&self.sys("devices/system/cpu"))
            .iter()
            .filter_map(|cpu| read_u64(&cpu.join("cpufreq/cpuinfo_max_freq")))
            .max();
        HostStatic {
            model,
            logical_cpus: if cpus > 0 {
                cpus
            } else {
                std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
            },
            sockets: (!sockets.is_empty()).then_some(sockets.len()),
            memory_total: self.meminfo().ok().map(|m| m.total),
            max_clock_mhz: max_khz.map(|k| (k / 1000) as u32),
            kernel: read(&self.proc("sys/kernel/osrelease")).map(|k| k.trim().to_string()),
        }
    }
}
