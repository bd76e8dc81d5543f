//! `ferrocm prof`: runs a program built on ferrocm under the runtime's tracer (rocprofv3's
//! role). The program is not modified: the tool hands it a session through environment
//! variables (`FERROCM_PROF*`, see `ferrocm_prof::session`), the runtime installs its tracer
//! when it starts and writes rocprofv3's files as the program exits. With `--stats` the tool
//! then reads the statistics back and prints them, with the roofline where ceilings are known.
//!
//! `ferrocm prof --calibrate` measures the device's ceilings once (copy bandwidth, vector FMA
//! rate, matrix-unit rate) and caches them for the roofline.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use ferrocm_prof::session::{with_suffix, DEFAULT_OUTPUT};
use ferrocm_prof::{Formats, Session};

mod calibrate;

#[derive(clap::Args)]
#[command(after_help = "Example: ferrocm prof --kernel-trace --stats -d out -- ./my_program --size 1024")]
pub struct Args {
    /// Kernel dispatches (and memsets), with device start and end: kernel_trace.csv.
    #[arg(long)]
    kernel_trace: bool,
    /// Memory copies, with device start and end: memory_copy_trace.csv.
    #[arg(long)]
    memory_copy_trace: bool,
    /// Allocations and frees: memory_allocation_trace.csv.
    #[arg(long)]
    memory_allocation_trace: bool,
    /// Runtime API calls: hip_api_trace.csv.
    #[arg(long, visible_alias = "hip-trace")]
    api_trace: bool,
    /// All of the above (rocprofv3's --runtime-trace).
    #[arg(short = 'r', long, visible_alias = "sys-trace")]
    runtime_trace: bool,
    /// Also write *_stats.csv and roofline.csv, and print a summary (kernels by total time).
    #[arg(long)]
    stats: bool,
    /// Output directory.
    #[arg(short = 'd', long = "output-directory", default_value = ".")]
    dir: PathBuf,
    /// Output file name prefix; %pid% and %hostname% are replaced. Default: %hostname%/%pid%.
    #[arg(short = 'o', long = "output-file")]
    name: Option<String>,
    /// Output formats, comma-separated: csv (rocprofv3's files), json (a Chrome/Perfetto
    /// trace-event file that ui.perfetto.dev opens).
    #[arg(long, default_value = "csv")]
    output_format: String,
    /// The ceilings cache (default: $XDG_CACHE_HOME/ferrocm/prof-ceilings.json).
    #[arg(long)]
    ceilings: Option<PathBuf>,
    /// Measure the device's ceilings for the roofline and cache them, then exit.
    #[arg(long)]
    calibrate: bool,
    /// Device index to calibrate (see `ferrocm info`); default: the default device.
    #[arg(long, requires = "calibrate")]
    device: Option<usize>,
    /// The program and its arguments, after `--`.
    #[arg(last = true, value_name = "PROGRAM")]
    program: Vec<OsString>,
}

/// The default ceilings cache.
fn default_cache() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("ferrocm").join("prof-ceilings.json")
}

pub fn run(a: Args) -> Result<i32> {
    let cache = a.ceilings.clone().unwrap_or_else(default_cache);
    if a.calibrate {
        if !a.program.is_empty() {
            bail!("--calibrate measures the device and runs no program; remove the program after `--`");
        }
        calibrate::run(a.device, &cache)?;
        return Ok(0);
    }
    let formats = Formats::parse(&a.output_format)?;
    let all = a.runtime_trace;
    let session = Session {
        kernel_trace: a.kernel_trace || all,
        memory_copy_trace: a.memory_copy_trace || all,
        memory_allocation_trace: a.memory_allocation_trace || all,
        api_trace: a.api_trace || all,
        stats: a.stats,
        output: a.dir.join(a.name.as_deref().unwrap_or(DEFAULT_OUTPUT)).to_string_lossy().into_owned(),
        formats,
        ceilings: cache.exists().then_some(cache),
    };
    if !session.records_anything() {
        bail!(
            "nothing to trace: choose one or more of --kernel-trace, --memory-copy-trace, \
             --memory-allocation-trace, --api-trace, or --runtime-trace for all of them"
        );
    }
    let Some((program, args)) = a.program.split_first() else {
        bail!("no program to run: give it after `--`, e.g. `ferrocm prof --kernel-trace -- ./my_program`");
    };
    let mut cmd = Command::new(program);
    cmd.args(args).envs(session.env_vars());
    let mut child =
        cmd.spawn().with_context(|| format!("could not start {}", Path::new(program).display()))?;
    let pid = child.id();
    let status = child.wait().context("waiting for the program")?;
    let code = status.code().unwrap_or_else(|| {
        use std::os::unix::process::ExitStatusExt;
        128 + status.signal().unwrap_or(0)
    });
    let prefix = session.prefix(pid);
    let marker = with_suffix(&prefix, if session.formats.csv { "agent_info.csv" } else { "results.json" });
    if !marker.exists() {
        eprintln!(
            "ferrocm prof: {} wrote no trace (expected {}): it made no ferrocm runtime call, or it was \
             ended by a signal or abort before the runtime could write its records",
            Path::new(program).display(),
            marker.display()
        );
        return Ok(code);
    }
    eprintln!("ferrocm prof: trace written to {}_*", prefix.display());
    if session.stats {
        summary(&session, &prefix)?;
    }
    Ok(code)
}

fn read_rows(path: &Path) -> Result<Vec<csv::StringRecord>> {
    let mut r = csv::Reader::from_path(path).with_context(|| format!("reading {}", path.display()))?;
    r.records().map(|x| x.with_context(|| format!("reading {}", path.display()))).collect()
}

fn ms(ns: &str) -> String {
    ns.parse::<f64>().map(|v| format!("{:.3}", v / 1e6)).unwrap_or_else(|_| ns.into())
}

fn us(ns: &str) -> String {
    ns.parse::<f64>().map(|v| format!("{:.3}", v / 1e3)).unwrap_or_else(|_| ns.into())
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.into()
    } else {
        s.chars().take(n - 1).chain(std::iter::once('~')).collect()
    }
}

/// Prints the stats files (kernels by total time, copies, API calls) and the roofline.
fn summary(session: &Session, prefix: &Path) -> Result<()> {
    for (file, title, on) in [
        ("kernel_stats.csv", "Kernels", session.kernel_trace),
        ("memory_copy_stats.csv", "Memory copies", session.memory_copy_trace),
        ("hip_api_stats.csv", "API calls", session.api_trace),
    ] {
        if !on {
            continue;
        }
        let rows = read_rows(&with_suffix(prefix, file))?;
        println!("\n{title} (by total time)");
        println!(
            "{:<48} {:>8} {:>12} {:>7} {:>12} {:>12} {:>12}",
            "name", "calls", "total ms", "%", "avg us", "min us", "max us"
        );
        for r in rows.iter().take(20) {
            println!(
                "{:<48} {:>8} {:>12} {:>7} {:>12} {:>12} {:>12}",
                truncate(&r[0], 48),
                &r[1],
                ms(&r[2]),
                r[4].parse::<f64>().map(|p| format!("{p:.2}")).unwrap_or_default(),
                us(&r[3]),
                us(&r[5]),
                us(&r[6])
            );
        }
        if rows.len() > 20 {
            println!("... {} more in {}", rows.len() - 20, with_suffix(prefix, file).display());
        }
    }
    if !session.needs_device_times() {
        return Ok(());
    }
    let rows = read_rows(&with_suffix(prefix, "roofline.csv"))?;
    if rows.is_empty() {
        return Ok(());
    }
    println!("\nRoofline (work declared by libraries; rates in 10^9/s)");
    println!(
        "{:<40} {:>6} {:>10} {:>10} {:>9} {:>10} {:>10} {:>8} {:>7}",
        "name", "calls", "GFLOP/s", "GB/s", "flop/B", "peak GF/s", "peak GB/s", "bound", "% roof"
    );
    for r in &rows {
        let dash = |s: &str| if s.is_empty() { "-".to_string() } else { s.to_string() };
        println!(
            "{:<40} {:>6} {:>10} {:>10} {:>9} {:>10} {:>10} {:>8} {:>7}",
            truncate(&r[0], 40),
            &r[2],
            &r[7],
            &r[8],
            &r[9],
            dash(&r[10]),
            dash(&r[11]),
            dash(&r[13]),
            dash(&r[14])
        );
    }
    if session.ceilings.is_none() {
        println!("(no ceilings measured for this machine: run `ferrocm prof --calibrate` once)");
    }
    Ok(())
}
