//! `ferrocm smi`: rocm-smi / amd-smi for ferrocm's devices. The data and its three renderings
//! live in `ferrocm-smi`; this file is the command line: options, the monitor loop and where
//! each output goes (data to stdout, notices to stderr for CSV and JSON lines).

use std::io::{self, Write};
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Subcommand;
use ferrocm_smi::{check_monitor, Report, Smi};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    view: Option<View>,
    /// Print JSON (an object per view; one object per line for `monitor`).
    #[arg(long, global = true, conflicts_with = "csv")]
    json: bool,
    /// Print CSV: a header of keys, then one line per device (or process, or pair); the default
    /// view's CSV is its device table (`smi process --csv` gives the processes).
    #[arg(long, global = true)]
    csv: bool,
    /// Devices to show, by index (as `ferrocm info` numbers them), PCI bus id or UUID, or `all`;
    /// repeat the option or separate with commas. Default: every device.
    #[arg(short = 'd', long = "device", value_name = "DEVICE", global = true)]
    devices: Vec<String>,
}

#[derive(Subcommand)]
enum View {
    /// Identity, PCI bus id, UUID, memory, power limits, clocks limits, driver.
    Static,
    /// Utilisation, memory, power, energy, clocks, temperatures, PCIe throughput, ECC counts.
    Metric,
    /// The processes using each GPU: pid, name, memory.
    Process,
    /// Link type (NVLink, PCIe level) and peer access between each pair of devices.
    Topology,
    /// A table of power, temperature, utilisation, clocks and memory, sampled repeatedly.
    Monitor {
        /// Seconds between samples (0.1 to 86400).
        #[arg(
            short = 'w',
            long = "interval",
            visible_alias = "watch",
            value_name = "SECONDS",
            default_value_t = 1.0
        )]
        interval: f64,
        /// Number of samples to take (default: until interrupted).
        #[arg(short = 'c', long = "count", value_name = "COUNT")]
        count: Option<u64>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    Csv,
}

/// Writes to stdout; a closed pipe (`ferrocm smi monitor | head`) ends the output quietly.
fn emit(text: &str) -> Result<bool> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(e.into()),
    }
}

fn notices_to_stderr(report: &Report) {
    if let ferrocm_smi::NvmlStatus::Unavailable { .. } = report.nvml {
        eprintln!("note: {}", report.nvml.line());
    }
    for n in &report.notices {
        eprintln!("note: {n}");
    }
}

fn print(report: &Report, format: Format) -> Result<()> {
    match format {
        Format::Text => emit(&report.to_text())?,
        Format::Json => emit(&(serde_json::to_string_pretty(&report.to_json())? + "\n"))?,
        Format::Csv => {
            notices_to_stderr(report);
            emit(&report.to_csv())?
        }
    };
    Ok(())
}

fn monitor(
    smi: &mut Smi,
    selection: &[usize],
    interval: f64,
    count: Option<u64>,
    format: Format,
) -> Result<()> {
    let start = Instant::now();
    let mut widths: Vec<usize> = Vec::new();
    let mut sample: u64 = 0;
    loop {
        let report = smi.monitor_view(selection, start.elapsed().as_secs_f64());
        let table = &report.tables[0];
        let mut text = String::new();
        if sample == 0 {
            match format {
                Format::Text => {
                    eprint!("{}", report.nvml.line() + "\n");
                    for n in &report.notices {
                        eprintln!("note: {n}");
                    }
                    // Room for values wider than the first sample's.
                    widths = table.widths().iter().map(|w| w + 1).collect();
                    text.push_str(&table.text_header(&widths));
                    text.push('\n');
                }
                Format::Csv => {
                    notices_to_stderr(&report);
                    text.push_str(&table.csv_header());
                    text.push('\n');
                }
                Format::Json => notices_to_stderr(&report),
            }
        }
        for i in 0..table.rows.len() {
            match format {
                Format::Text => text.push_str(&table.text_row(i, &widths)),
                Format::Csv => text.push_str(&table.csv_row(i)),
                Format::Json => {
                    let row = &table.to_json()[i];
                    text.push_str(&serde_json::to_string(row)?);
                }
            }
            text.push('\n');
        }
        if !emit(&text)? {
            return Ok(());
        }
        sample += 1;
        if count == Some(sample) {
            return Ok(());
        }
        let next = start + Duration::from_secs_f64(interval * sample as f64);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
}

pub fn run(args: Args) -> Result<()> {
    let format = match (args.json, args.csv) {
        (true, _) => Format::Json,
        (_, true) => Format::Csv,
        _ => Format::Text,
    };
    // Options are checked before any device is touched.
    if let Some(View::Monitor { interval, count }) = &args.view {
        check_monitor(*interval, *count)?;
    }
    let mut smi = Smi::open()?;
    let selection = smi.select(&args.devices)?;
    let report = match args.view {
        None => smi.overview(&selection),
        Some(View::Static) => smi.static_view(&selection),
        Some(View::Metric) => smi.metric_view(&selection),
        Some(View::Process) => smi.process_view(&selection),
        Some(View::Topology) => smi.topology_view(&selection),
        Some(View::Monitor { interval, count }) => {
            return monitor(&mut smi, &selection, interval, count, format)
        }
    };
    print(&report, format)
}
