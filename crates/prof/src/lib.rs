//! ferrocm's profiler output: the records a trace is made of ([`record`]), the session settings
//! that `ferrocm prof` hands to the program it runs ([`session`]), and the writers of
//! rocprofv3's files (CSV traces, `*_stats.csv`, a Chrome/Perfetto trace-event JSON) plus a
//! roofline view ([`roofline`]).
//!
//! This crate is plain data and files: it knows nothing of devices. The runtime
//! (`ferrocm_runtime::trace`) produces the records and, when `FERROCM_PROF` is set, calls
//! [`write`] as the process exits; the CLI reads the files back.
//!
//! Files, each `{prefix}_{name}` (the prefix is `-d DIR` joined with `-o NAME`, default
//! `%hostname%/%pid%`, as rocprofv3's):
//!
//! | file | written when | columns |
//! |---|---|---|
//! | `kernel_trace.csv` | kernels traced | rocprofv3's (see [`KERNEL_TRACE_COLUMNS`]) |
//! | `memory_copy_trace.csv` | copies traced | rocprofv3's, plus `Bytes` |
//! | `memory_allocation_trace.csv` | allocations traced | rocprofv3's, plus `Memory_Kind` |
//! | `hip_api_trace.csv` | API traced | rocprofv3's |
//! | `agent_info.csv` | CSV output | `Node_Id`, `Logical_Node_Id`, `Agent_Type`, `Name`, `Backend` |
//! | `kernel_stats.csv`, `memory_copy_stats.csv`, `hip_api_stats.csv` | `stats` with the matching trace | `Name`, `Calls`, `TotalDurationNs`, `AverageNs`, `Percentage`, `MinNs`, `MaxNs`, `StdDev` |
//! | `roofline.csv` | `stats` with kernels or copies traced | see [`roofline`] |
//! | `results.json` | JSON output | Chrome trace events: a process per agent with a track per stream, a track per host thread |
//!
//! Columns that mean nothing on NVIDIA or CPU devices hold 0: `Accum_VGPR_Count` and
//! `SGPR_Count` always; `VGPR_Count` (registers per thread), `LDS_Block_Size` (shared memory)
//! and `Scratch_Size` (local memory per thread) on CPU devices, whose kernels report none.

mod csv;
mod error;
mod json;
pub mod record;
pub mod roofline;
pub mod session;
pub mod stats;

use std::path::{Path, PathBuf};

pub use error::{ProfError, Result};
pub use json::AGENT_PID_BASE;
pub use record::{MathUnit, Trace, Work};
pub use session::{Formats, Session};

/// The columns of `kernel_trace.csv`, in order.
pub const KERNEL_TRACE_COLUMNS: &[&str] = csv::KERNEL_COLUMNS;
/// The columns of `memory_copy_trace.csv`.
pub const MEMORY_COPY_TRACE_COLUMNS: &[&str] = csv::COPY_COLUMNS;
/// The columns of `memory_allocation_trace.csv`.
pub const MEMORY_ALLOCATION_TRACE_COLUMNS: &[&str] = csv::ALLOCATION_COLUMNS;
/// The columns of `hip_api_trace.csv`.
pub const API_TRACE_COLUMNS: &[&str] = csv::API_COLUMNS;
/// The columns of every `*_stats.csv`.
pub const STATS_COLUMNS: &[&str] = csv::STATS_COLUMNS;
/// The columns of `roofline.csv`.
pub const ROOFLINE_COLUMNS: &[&str] = roofline::COLUMNS;

/// Writes the session's files for `trace` under `prefix`; returns the paths written. Each file
/// is written whole to a temporary name and then renamed, so a failure leaves no partial file.
pub fn write(trace: &Trace, session: &Session, prefix: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<(&str, String)> = Vec::new();
    if session.formats.csv {
        files.push(("agent_info.csv", csv::agent_info(trace)));
        if session.kernel_trace {
            files.push(("kernel_trace.csv", csv::kernel_trace(trace)));
        }
        if session.memory_copy_trace {
            files.push(("memory_copy_trace.csv", csv::memory_copy_trace(trace)));
        }
        if session.memory_allocation_trace {
            files.push(("memory_allocation_trace.csv", csv::memory_allocation_trace(trace)));
        }
        if session.api_trace {
            files.push(("hip_api_trace.csv", csv::api_trace(trace)));
        }
    }
    if session.stats {
        if session.kernel_trace {
            files.push(("kernel_stats.csv", csv::stats(&stats::kernels(trace))));
        }
        if session.memory_copy_trace {
            files.push(("memory_copy_stats.csv", csv::stats(&stats::copies(trace))));
        }
        if session.api_trace {
            files.push(("hip_api_stats.csv", csv::stats(&stats::api(trace))));
        }
        if session.needs_device_times() {
            let cache = match &session.ceilings {
                Some(p) => roofline::load_ceilings(p)?,
                None => Vec::new(),
            };
            files.push(("roofline.csv", roofline::csv(&roofline::rows(trace, &cache))));
        }
    }
    if session.formats.json {
        files.push(("results.json", json::trace_events(trace)));
    }
    let mut written = Vec::new();
    for (name, text) in files {
        let path = session::with_suffix(prefix, name);
        write_whole(&path, &text)?;
        written.push(path);
    }
    Ok(written)
}

fn write_whole(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| ProfError::Io {
            action: "creating",
            path: dir.into(),
            source,
        })?;
    }
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, text).map_err(|source| ProfError::Io {
        action: "writing",
        path: tmp.clone(),
        source,
    })?;
    std::fs::rename(&tmp, path).map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        ProfError::Io { action: "renaming into", path: path.into(), source }
    })
}
