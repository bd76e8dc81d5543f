//! `ferrocm bench ...`: benchmarks with machine-readable output. Each prints a table, or with
//! `--json` one JSON object per line: {"bench", "metric", "ferrocm", "baseline", "unit",
//! "ratio", "target"}.

mod blas;
mod ccl;
mod fft;
mod gemm;
mod rand;
mod raw;
mod runtime;

use anyhow::Result;
use serde::Serialize;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    target: Target,
}

#[derive(clap::Subcommand)]
enum Target {
    /// Launch latency, copy bandwidth and pooled allocation against the raw CUDA driver.
    Runtime(runtime::Args),
    /// RAND generation throughput (GSample/s), to compare with cuRAND.
    Rand(rand::Args),
    /// Tensor-core GEMM throughput (TFLOP/s), to compare with cuBLAS.
    Gemm(gemm::Args),
    /// One BLAS call (rocblas-bench arguments), GFLOP/s or GB/s, to compare with
    /// `vendor_baselines.py cublas`.
    Blas(blas::Args),
    /// Collectives, as nccl-tests prints them (size, count, type, redop, root, then time,
    /// algbw, busbw and #wrong out of place and in place), to compare with NCCL.
    Ccl(ccl::Args),
    /// FFT execution and plan-creation time against cuFFT (GPU) or scipy.fft (CPU).
    Fft(fft::Args),
}

pub fn run(args: Args) -> Result<()> {
    match args.target {
        Target::Runtime(a) => runtime::run(a),
        Target::Rand(a) => rand::run(a),
        Target::Gemm(a) => gemm::run(a),
        Target::Blas(a) => blas::run(a),
        Target::Ccl(a) => ccl::run(a),
        Target::Fft(a) => fft::run(a),
    }
}

/// One measured row: ferrocm against a baseline, with the ratio the target is stated in.
#[derive(Serialize)]
pub struct Row {
    pub bench: &'static str,
    pub metric: String,
    pub ferrocm: f64,
    pub baseline: Option<f64>,
    pub baseline_name: &'static str,
    pub unit: &'static str,
    /// How ferrocm compares, in the sense of `target` (see `ratio_meaning`).
    pub ratio: Option<f64>,
    pub ratio_meaning: &'static str,
    pub target: &'static str,
}

pub fn print(rows: &[Row], json: bool) -> Result<()> {
    if json {
        for r in rows {
            println!("{}", serde_json::to_string(r)?);
        }
        return Ok(());
    }
    println!(
        "{:<34} {:>12} {:>12} {:>8}  {:<14} {:<28} target",
        "metric", "ferrocm", "baseline", "ratio", "unit", "ratio is"
    );
    for r in rows {
        let b = r.baseline.map(|b| format!("{b:.3}")).unwrap_or_else(|| "-".into());
        let q = r.ratio.map(|q| format!("{q:.3}")).unwrap_or_else(|| "-".into());
        println!(
            "{:<34} {:>12.3} {:>12} {:>8}  {:<14} {:<28} {}",
            r.metric, r.ferrocm, b, q, r.unit, r.ratio_meaning, r.target
        );
    }
    Ok(())
}

/// The median of a set of samples.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
