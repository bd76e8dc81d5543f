//! `ferrocm bench fft`: execution time of the transforms and plan-creation time, with
//! cuFFT (GPU) or scipy.fft (CPU device) from `scripts/vendor_baselines.py` run in the same
//! command and joined by case. Each case draws fresh random input and checks the output
//! before timing: full rows of batched 1D transforms against `rustfft` in `f64`, and for
//! single large transforms a few output elements against direct sums in `f64`. Timing: one
//! warm-up, then device events around each execution, median reported.

use anyhow::{bail, ensure, Context, Result};
use ferrocm::fft::{Complex, Direction, FftFloat, Plan, PlanBuilder, TransformType};
use ferrocm::{Device, Event, Stream};

use super::{median, print, Row};

#[derive(clap::Args)]
pub struct Args {
    /// Cases to run (default: the GPU set on a GPU, the CPU set on the CPU); `--list` names them.
    #[arg(long = "case")]
    cases: Vec<String>,
    /// List the cases and exit.
    #[arg(long)]
    list: bool,
    /// Timed repetitions; the median is reported.
    #[arg(long, default_value_t = 20)]
    reps: usize,
    /// Device index (see `ferrocm info`); default: the default device.
    #[arg(long)]
    device: Option<usize>,
    /// Run `python3 <script> cufft|scipy` for the vendor's numbers ("none" to skip).
    #[arg(long, default_value = "scripts/vendor_baselines.py")]
    vendor: String,
    /// Print each plan's description.
    #[arg(long)]
    describe: bool,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
}

/// One benchmark case: a transform and the target.
struct Case {
    name: &'static str,
    kind: TransformType,
    f64: bool,
    n: &'static [usize],
    batch: usize,
    /// Run on the CPU device set.
    cpu: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "c2c f32 1D 2^24",
        kind: TransformType::C2C,
        f64: false,
        n: &[1 << 24],
        batch: 1,
        cpu: false,
    },
    Case {
        name: "c2c f32 1024 x 16384",
        kind: TransformType::C2C,
        f64: false,
        n: &[1024],
        batch: 16384,
        cpu: false,
    },
    Case {
        name: "c2c f32 4096 x 4096",
        kind: TransformType::C2C,
        f64: false,
        n: &[4096],
        batch: 4096,
        cpu: false,
    },
    Case {
        name: "c2c f32 1000 x 16384",
        kind: TransformType::C2C,
        f64: false,
        n: &[1000],
        batch: 16384,
        cpu: false,
    },
    Case {
        name: "c2c f32 1021 x 16384",
        kind: TransformType::C2C,
        f64: false,
        n: &[1021],
        batch: 16384,
        cpu: false,
    },
    Case {
        name: "c2c f32 2D 4096^2",
        kind: TransformType::C2C,
        f64: false,
        n: &[4096, 4096],
        batch: 1,
        cpu: false,
    },
    Case {
        name: "c2c f32 3D 512^3",
        kind: TransformType::C2C,
        f64: false,
        n: &[512, 512, 512],
        batch: 1,
        cpu: false,
    },
    Case {
        name: "r2c f32 1D 2^26",
        kind: TransformType::R2C,
        f64: false,
        n: &[1 << 26],
        batch: 1,
        cpu: false,
    },
    Case {
        name: "r2c f32 2D 8192^2",
        kind: TransformType::R2C,
        f64: false,
        n: &[8192, 8192],
        batch: 1,
        cpu: false,
    },
    Case {
        name: "z2z f64 1D 2^24",
        kind: TransformType::C2C,
        f64: true,
        n: &[1 << 24],
        batch: 1,
        cpu: false,
    },
    Case {
        name: "cpu c2c f32 1D 2^22",
        kind: TransformType::C2C,
        f64: false,
        n: &[1 << 22],
        batch: 1,
        cpu: true,
    },
    Case {
        name: "cpu c2c f32 1024 x 4096",
        kind: TransformType::C2C,
        f64: false,
        n: &[1024],
        batch: 4096,
        cpu: true,
    },
];

/// The target for each case: ferrocm at least as fast as the vendor.
const TARGET: &str = ">= 1.0x";

pub fn run(a: Args) -> Result<()> {
    if a.list {
        for c in CASES {
            println!("{}", c.name);
        }
        return Ok(());
    }
    ensure!(a.reps > 0, "--reps must be at least 1");
    let dev = match a.device {
        Some(i) => Device::get(i)?,
        None => Device::default_device()?,
    };
    let gpu = dev.kind() != ferrocm::BackendKind::Cpu;
    eprintln!("device {}: {} [{}]", dev.index(), dev.properties().name, dev.kind());
    let chosen: Vec<&Case> = if a.cases.is_empty() {
        CASES.iter().filter(|c| c.cpu != gpu).collect()
    } else {
        a.cases
            .iter()
            .map(|n| {
                CASES
                    .iter()
                    .find(|c| c.name == n)
                    .with_context(|| format!("unknown case {n:?}; --list names them"))
            })
            .collect::<Result<_>>()?
    };
    let vendor = vendor_numbers(&a.vendor, if gpu { "cufft" } else { "scipy" }, &chosen);
    let baseline_name = if gpu { "cuFFT (torch.fft)" } else { "scipy.fft (2 workers)" };
    let plan_baseline = if gpu { "cuFFT plan (CuPy)" } else { "-" };
    let stream = dev.create_stream()?;
    let mut rows = Vec::new();
    let mut failed = Vec::new();
    for c in chosen {
        let m = if c.f64 {
            measure::<f64>(c, &stream, a.reps, a.describe)
        } else {
            measure::<f32>(c, &stream, a.reps, a.describe)
        };
        let m = match m {
            Ok(m) => m,
            Err(e) => {
                eprintln!("error: {e:#}");
                failed.push(c.name);
                continue;
            }
        };
        let base = vendor.iter().find(|v| v.0 == c.name && v.1 == "exec").map(|v| v.2);
        rows.push(Row {
            bench: "fft",
            metric: c.name.to_string(),
            ferrocm: m.exec_ms,
            baseline: base,
            baseline_name,
            unit: "ms",
            ratio: base.map(|b| b / m.exec_ms),
            ratio_meaning: "baseline time / ferrocm time",
            target: TARGET,
        });
        let pbase = vendor.iter().find(|v| v.0 == c.name && v.1 == "plan").map(|v| v.2);
        rows.push(Row {
            bench: "fft",
            metric: format!("{} plan (first)", c.name),
            ferrocm: m.plan_first_ms,
            baseline: pbase,
            baseline_name: plan_baseline,
            unit: "ms",
            ratio: pbase.map(|b| b / m.plan_first_ms),
            ratio_meaning: "baseline time / ferrocm time",
            target: "-",
        });
        rows.push(Row {
            bench: "fft",
            metric: format!("{} plan (cached)", c.name),
            ferrocm: m.plan_cached_ms,
            baseline: pbase,
            baseline_name: plan_baseline,
            unit: "ms",
            ratio: pbase.map(|b| b / m.plan_cached_ms),
            ratio_meaning: "baseline time / ferrocm time",
            target: "-",
        });
        eprintln!("{}: checked (max relative error {:.2e}), {:.4} ms", c.name, m.error, m.exec_ms);
    }
    print(&rows, a.json)?;
    ensure!(failed.is_empty(), "failed: {}", failed.join(", "));
    Ok(())
}

struct Measured {
    exec_ms: f64,
    plan_first_ms: f64,
    plan_cached_ms: f64,
    error: f64,
}

fn builder(c: &Case) -> PlanBuilder {
    PlanBuilder::new(c.kind, c.n).batch(c.batch)
}

fn measure<T: FftFloat>(c: &Case, stream: &Stream, reps: usize, describe: bool) -> Result<Measured> {
    let t = std::time::Instant::now();
    let plan: Plan<T> = builder(c).build(stream)?;
    let plan_first_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut cached = Vec::new();
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let p: Plan<T> = builder(c).build(stream)?;
        cached.push(t.elapsed().as_secs_f64() * 1e3);
        drop(p);
    }
    if describe {
        eprint!("{}", plan.describe());
    }
    let total: usize = c.n.iter().product::<usize>() * c.batch;
    let last = *c.n.last().unwrap_or(&1);
    let out_len = total / last * (if c.kind == TransformType::R2C { last / 2 + 1 } else { last });
    let mut rng = Lcg(fresh_seed());
    let (exec_ms, error) = if c.kind == TransformType::R2C {
        let x: Vec<T> = (0..total).map(|_| T::lit(rng.f64())).collect();
        let dx = stream.clone_htod(&x)?;
        let mut dy = stream.alloc::<Complex<T>>(out_len)?;
        plan.exec_r2c(&dx, &mut dy)?;
        let y = stream.clone_dtoh(&dy)?;
        let xc: Vec<Complex<f64>> = x.iter().map(|v| Complex::new(v.as_f64(), 0.0)).collect();
        let err = check(c, &xc, &y, &mut rng)?;
        let ms = time(stream, reps, || Ok(plan.exec_r2c(&dx, &mut dy)?))?;
        (ms, err)
    } else {
        let x: Vec<Complex<T>> =
            (0..total).map(|_| Complex::new(T::lit(rng.f64()), T::lit(rng.f64()))).collect();
        let dx = stream.clone_htod(&x)?;
        let mut dy = stream.alloc::<Complex<T>>(out_len)?;
        plan.exec_c2c(&dx, &mut dy, Direction::Forward)?;
        let y = stream.clone_dtoh(&dy)?;
        let xc: Vec<Complex<f64>> = x.iter().map(|v| Complex::new(v.re.as_f64(), v.im.as_f64())).collect();
        let err = check(c, &xc, &y, &mut rng)?;
        let ms = time(stream, reps, || Ok(plan.exec_c2c(&dx, &mut dy, Direction::Forward)?))?;
        (ms, err)
    };
    Ok(Measured { exec_ms, plan_first_ms, plan_cached_ms: median(cached), error })
}

fn time(stream: &Stream, reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    stream.synchronize()?;
    let dev = stream.device();
    let mut ms = Vec::with_capacity(reps);
    for _ in 0..reps {
        let (s, e) = (Event::new(dev)?, Event::new(dev)?);
        s.record(stream)?;
        f()?;
        e.record(stream)?;
        e.synchronize()?;
        ms.push(s.elapsed_ms(&e)? as f64);
    }
    Ok(median(ms))
}

/// Checks the output: batched 1D transforms by three whole rows against rustfft in f64, single
/// transforms by four elements against direct sums in f64 (separable over the axes).
fn check<T: FftFloat>(c: &Case, x: &[Complex<f64>], y: &[Complex<T>], rng: &mut Lcg) -> Result<f64> {
    let last = *c.n.last().unwrap_or(&1);
    let h = if c.kind == TransformType::R2C { last / 2 + 1 } else { last };
    let eps = if c.f64 { 1e-15 } else { 3.75e-5 };
    let total: usize = c.n.iter().product();
    let tol = eps * (total as f64).ln();
    let mut worst = 0f64;
    if c.batch > 1 {
        let n = c.n[0];
        let fft = rustfft::FftPlanner::<f64>::new().plan_fft_forward(n);
        for _ in 0..3 {
            let b = rng.below(c.batch);
            let mut row = x[b * n..(b + 1) * n].to_vec();
            fft.process(&mut row);
            let scale = row.iter().map(|v| v.norm()).fold(0.0, f64::max);
            for k in 0..h {
                let g = y[b * h + k];
                let d = (Complex::new(g.re.as_f64(), g.im.as_f64()) - row[k]).norm() / scale;
                worst = worst.max(d);
            }
        }
    } else {
        let scale = (total as f64).sqrt();
        for _ in 0..4 {
            let k: Vec<usize> =
                c.n.iter()
                    .enumerate()
                    .map(|(d, &n)| rng.below(if d + 1 == c.n.len() { h } else { n }))
                    .collect();
            let want = direct(x, c.n, &k);
            let mut off = 0;
            for (d, &kd) in k.iter().enumerate() {
                off = off * if d + 1 == c.n.len() { h } else { c.n[d] } + kd;
            }
            let g = y[off];
            // Relative to the expected magnitude of an output (sqrt(n) for unit-variance input).
            let d = (Complex::new(g.re.as_f64(), g.im.as_f64()) - want).norm() / scale;
            worst = worst.max(d);
        }
    }
    if worst.is_nan() || worst > tol {
        bail!("{}: output check failed: relative error {worst:.3e} (limit {tol:.3e})", c.name);
    }
    Ok(worst)
}

/// `X[k]` of the transform of `x` (sizes `n`) by direct summation, axis by axis, each sum
/// compensated (Neumaier), so the reference stays near `f64` rounding for 2^26 terms.
fn direct(x: &[Complex<f64>], n: &[usize], k: &[usize]) -> Complex<f64> {
    let tables: Vec<Vec<Complex<f64>>> = n
        .iter()
        .zip(k)
        .map(|(&nd, &kd)| {
            (0..nd).map(|j| ferrocm::fft::twiddle::root(((j * kd) % nd) as u64, nd as u64)).collect()
        })
        .collect();
    fn rec(x: &[Complex<f64>], tables: &[Vec<Complex<f64>>]) -> Complex<f64> {
        match tables.split_first() {
            None => x[0],
            Some((t, rest)) => {
                let inner = x.len() / t.len();
                let (mut s, mut c) = (Complex::new(0.0, 0.0), Complex::new(0.0, 0.0));
                let fix = |s: f64, v: f64, u: f64| if s.abs() >= v.abs() { (s - u) + v } else { (v - u) + s };
                for (j, w) in t.iter().enumerate() {
                    let v = w * rec(&x[j * inner..(j + 1) * inner], rest);
                    let u = s + v;
                    c += Complex::new(fix(s.re, v.re, u.re), fix(s.im, v.im, u.im));
                    s = u;
                }
                s + c
            }
        }
    }
    rec(x, &tables)
}

fn fresh_seed() -> u64 {
    let t =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(1);
    (t as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1
}

/// Test data: a 64-bit LCG, uniform in [-1, 1).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0
    }
    fn f64(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    fn below(&mut self, n: usize) -> usize {
        ((self.next() >> 33) % n as u64) as usize
    }
}

/// Runs the vendor script and reads its JSON lines: (case, "exec" | "plan", ms).
fn vendor_numbers(script: &str, what: &str, cases: &[&Case]) -> Vec<(String, String, f64)> {
    if script == "none" {
        return vec![];
    }
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(script).arg(what);
    for c in cases {
        cmd.arg("--case").arg(c.name);
    }
    let out = match cmd.output() {
        Ok(o) if o.status.success() => o,
        Ok(o) => {
            eprintln!(
                "vendor baseline failed: {}",
                String::from_utf8_lossy(&o.stderr).lines().last().unwrap_or("")
            );
            return vec![];
        }
        Err(e) => {
            eprintln!("vendor baseline not run: {e}");
            return vec![];
        }
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| {
            Some((v["case"].as_str()?.to_string(), v["what"].as_str()?.to_string(), v["value"].as_f64()?))
        })
        .collect()
}
