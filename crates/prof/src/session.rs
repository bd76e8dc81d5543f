//! A profiling session's settings and the environment variables that carry them from
//! `ferrocm prof` to the program it runs (the runtime reads them when it starts).
//!
//! | variable | value |
//! |---|---|
//! | `FERROCM_PROF` | what to record: a comma-separated subset of `kernel`, `copy`, `alloc`, `api`, plus `stats` for the `*_stats.csv` files |
//! | `FERROCM_PROF_OUTPUT` | the output path prefix; `%pid%` and `%hostname%` are replaced (default `%hostname%/%pid%`) |
//! | `FERROCM_PROF_FORMAT` | comma-separated `csv`, `json` (default `csv`) |
//! | `FERROCM_PROF_CEILINGS` | the ceilings cache written by `ferrocm prof --calibrate`, for the roofline (optional) |

use std::path::{Path, PathBuf};

use crate::error::{ProfError, Result};

pub const ENV_WHAT: &str = "FERROCM_PROF";
pub const ENV_OUTPUT: &str = "FERROCM_PROF_OUTPUT";
pub const ENV_FORMAT: &str = "FERROCM_PROF_FORMAT";
pub const ENV_CEILINGS: &str = "FERROCM_PROF_CEILINGS";

/// The default output prefix, as rocprofv3's.
pub const DEFAULT_OUTPUT: &str = "%hostname%/%pid%";

/// Output formats (`--output-format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Formats {
    /// rocprofv3's CSV files.
    pub csv: bool,
    /// A Chrome/Perfetto trace-event JSON (`*_results.json`).
    pub json: bool,
}

impl Formats {
    pub const ALLOWED: &'static str = "csv, json";

    /// Parses `csv,json`. `pftrace` and `otf2` (rocprofv3's other formats) are refused by name.
    pub fn parse(list: &str) -> Result<Formats> {
        let mut f = Formats::default();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item.to_ascii_lowercase().as_str() {
                "csv" => f.csv = true,
                "json" => f.json = true,
                _ => return Err(ProfError::UnknownFormat { format: item.into(), allowed: Formats::ALLOWED }),
            }
        }
        if !f.csv && !f.json {
            return Err(ProfError::UnknownFormat { format: list.into(), allowed: Formats::ALLOWED });
        }
        Ok(f)
    }

    fn to_env(self) -> String {
        let mut v = Vec::new();
        if self.csv {
            v.push("csv");
        }
        if self.json {
            v.push("json");
        }
        v.join(",")
    }
}

/// What a session records and where it writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub kernel_trace: bool,
    pub memory_copy_trace: bool,
    pub memory_allocation_trace: bool,
    pub api_trace: bool,
    pub stats: bool,
    /// Output prefix before `%pid%`/`%hostname%` substitution.
    pub output: String,
    pub formats: Formats,
    pub ceilings: Option<PathBuf>,
}

impl Default for Session {
    fn default() -> Self {
        Session {
            kernel_trace: false,
            memory_copy_trace: false,
            memory_allocation_trace: false,
            api_trace: false,
            stats: false,
            output: DEFAULT_OUTPUT.into(),
            formats: Formats { csv: true, json: false },
            ceilings: None,
        }
    }
}

const WHAT_ALLOWED: &str = "a comma-separated list of kernel, copy, alloc, api and stats";

impl Session {
    /// The session the environment describes, or `None` when `FERROCM_PROF` is unset or empty.
    pub fn from_env() -> Result<Option<Session>> {
        Session::from_vars(|var| std::env::var(var).ok())
    }

    /// [`Session::from_env`] with the variables looked up by `var`.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Session>> {
        let get = |name| var(name).filter(|v| !v.trim().is_empty());
        let Some(what) = get(ENV_WHAT) else { return Ok(None) };
        let mut s = Session::default();
        for item in what.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            match item {
                "kernel" => s.kernel_trace = true,
                "copy" => s.memory_copy_trace = true,
                "alloc" => s.memory_allocation_trace = true,
                "api" => s.api_trace = true,
                "stats" => s.stats = true,
                _ => {
                    return Err(ProfError::InvalidEnvironment {
                        var: ENV_WHAT,
                        value: what.clone(),
                        allowed: format!("`{item}` is not a record kind; expected {WHAT_ALLOWED}"),
                    })
                }
            }
        }
        if !s.records_anything() {
            return Err(ProfError::InvalidEnvironment {
                var: ENV_WHAT,
                value: what,
                allowed: format!("nothing to record; expected {WHAT_ALLOWED}"),
            });
        }
        if let Some(o) = get(ENV_OUTPUT) {
            s.output = o;
        }
        if let Some(f) = get(ENV_FORMAT) {
            s.formats = Formats::parse(&f).map_err(|e| ProfError::InvalidEnvironment {
                var: ENV_FORMAT,
                value: f.clone(),
                allowed: e.to_string(),
            })?;
        }
        s.ceilings = get(ENV_CEILINGS).map(PathBuf::from);
        Ok(Some(s))
    }

    /// Whether any kind of record is asked for.
    pub fn records_anything(&self) -> bool {
        self.kernel_trace || self.memory_copy_trace || self.memory_allocation_trace || self.api_trace
    }

    /// Whether device work needs timing events (kernels or copies are traced).
    pub fn needs_device_times(&self) -> bool {
        self.kernel_trace || self.memory_copy_trace
    }

    /// The variables that hand this session to a child process.
    pub fn env_vars(&self) -> Vec<(&'static str, String)> {
        let mut what = Vec::new();
        for (on, name) in [
            (self.kernel_trace, "kernel"),
            (self.memory_copy_trace, "copy"),
            (self.memory_allocation_trace, "alloc"),
            (self.api_trace, "api"),
            (self.stats, "stats"),
        ] {
            if on {
                what.push(name);
            }
        }
        let mut v = vec![
            (ENV_WHAT, what.join(",")),
            (ENV_OUTPUT, self.output.clone()),
            (ENV_FORMAT, self.formats.to_env()),
        ];
        if let Some(c) = &self.ceilings {
            v.push((ENV_CEILINGS, c.display().to_string()));
        }
        v
    }

    /// The output prefix of process `pid` (`%pid%` and `%hostname%` replaced).
    pub fn prefix(&self, pid: u32) -> PathBuf {
        PathBuf::from(self.output.replace("%pid%", &pid.to_string()).replace("%hostname%", &hostname()))
    }

    /// The file `{prefix}_{suffix}` of process `pid`.
    pub fn file(&self, pid: u32, suffix: &str) -> PathBuf {
        with_suffix(&self.prefix(pid), suffix)
    }
}

/// `{prefix}_{suffix}`; a prefix that names a directory (ends in `/`) gets no underscore.
pub fn with_suffix(prefix: &Path, suffix: &str) -> PathBuf {
    let s = prefix.as_os_str().to_string_lossy();
    if s.is_empty() || s.ends_with('/') {
        PathBuf::from(format!("{s}{suffix}"))
    } else {
        PathBuf::from(format!("{s}_{suffix}"))
    }
}

/// This machine's host name (`/proc/sys/kernel/hostname`, else `$HOSTNAME`, else `localhost`).
pub fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty() && !h.contains('/'))
        .unwrap_or_else(|| "localhost".into())
}
