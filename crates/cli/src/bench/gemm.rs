//! `ferrocm bench gemm`: tensor-core GEMM throughput (TFLOP/s) of `ferrocm-gemm`, the same
//! request as `scripts/vendor_baselines.py gemm` (`C = A B`, square, all row-major as
//! `torch.matmul(a, b, out=c)`; `--layout tn` reads B column-major instead). Fresh random
//! inputs; C is poisoned with NaN, and after one call every element must be written and a
//! spread of elements must match an f64 host product before anything is timed. Then one warm-up
//! call and CUDA-event timing of each repetition, median reported, for each kernel variant.
//!
//! `--dtype e4m3` (or `e5m2`) times `torch._scaled_mm`'s request instead: random finite 8-bit
//! codes, A row-major and B column-major (`--layout tn`, the only layouts 8-bit inputs have),
//! per-tensor scales, C bf16. `--dump DIR` writes the inputs and ferrocm's C there
//! (`{dtype}_{n}_{a,b,c}.bin`, raw little-endian) so `crates/gemm/gpu/fp8_vendor.py` can check
//! cuBLASLt on the same data against ours and time it.

use anyhow::{bail, ensure, Context, Result};
use ferrocm::{Device, Event};
use ferrocm_gemm::{ElemType, Gemm, GemmDesc, GemmElement, GemmOutput, Layout, Tuning, E4M3, E5M2};
use ferrocm_kernel::{bf16, f16};

use super::{median, print, Row};

#[derive(clap::Args)]
pub struct Args {
    /// bf16 or f16 (inputs and output), tf32 (f32 inputs read as tf32, f32 output, --layout tn),
    /// or e4m3 or e5m2 (inputs; C bf16, --layout tn).
    #[arg(long, default_value = "bf16")]
    dtype: String,
    /// Square sizes (m = n = k).
    #[arg(long, num_args = 1.., default_values_t = [4096usize, 8192])]
    n: Vec<usize>,
    /// nn (A and B row-major, as torch.matmul(a, b)) or tn (B column-major).
    #[arg(long, default_value = "nn")]
    layout: String,
    /// Kernel variants to time, `BNxSTAGES[-gGROUP][-cCLUSTER][-pBLOCKS][-eEPILOGUE]` (e.g. 256x4
    /// 128x6 256x4-g16-c1 256x4-c2-p120 256x4-e0; `e1` the stmatrix + TMA-store epilogue, `e0`
    /// the register one); `auto` is the planner's choice.
    #[arg(long, num_args = 1.., default_values_t = ["auto".to_string()])]
    variants: Vec<String>,
    /// Timed repetitions; the median is reported.
    #[arg(long, default_value_t = 20)]
    reps: usize,
    /// Device index (see `ferrocm info`); default: the default device.
    #[arg(long)]
    device: Option<usize>,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
    /// Per-tensor scales of A and B (8-bit inputs).
    #[arg(long, num_args = 2, default_values_t = [0.3f32, 0.7])]
    scales: Vec<f32>,
    /// Write the 8-bit inputs and ferrocm's C (of the last variant) to this directory.
    #[arg(long)]
    dump: Option<std::path::PathBuf>,
}

fn parse_variant(v: &str) -> Result<Tuning> {
    let mut t = Tuning::default();
    if v == "auto" {
        return Ok(t);
    }
    let mut parts = v.split('-');
    let shape = parts.next().unwrap_or_default();
    let (bn, stages) = shape
        .split_once('x')
        .context(format!("variant {v}: write BNxSTAGES[-gGROUP][-cCLUSTER][-pBLOCKS][-eEPILOGUE]"))?;
    t.bn = Some(bn.parse().context(format!("variant {v}"))?);
    t.stages = Some(stages.parse().context(format!("variant {v}"))?);
    for p in parts {
        let (key, val) = p.split_at(1.min(p.len()));
        let val: u32 = val.parse().context(format!("variant {v}: {p}"))?;
        match key {
            "g" => t.group_m = Some(val),
            "c" => t.cluster_m = Some(val),
            "p" => t.grid = Some(val),
            "e" => t.tma_store = Some(val != 0),
            _ => bail!("variant {v}: unknown part {p} (gGROUP, cCLUSTER, pBLOCKS or eEPILOGUE)"),
        }
    }
    Ok(t)
}

/// Splitmix64 (the seed is fresh per run and printed).
struct Mix(u64);
impl Mix {
    fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn next(&mut self) -> f64 {
        (self.bits() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

trait Half: GemmOutput {
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
}
impl Half for bf16 {
    fn from_f64(x: f64) -> Self {
        bf16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
}
/// The storage of `--dtype tf32`: f32 buffers whose inputs the kernel reads as tf32.
impl Half for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}
impl Half for f16 {
    fn from_f64(x: f64) -> Self {
        f16::from_f64(x)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
}

pub fn run(a: Args) -> Result<()> {
    let dev = match a.device {
        Some(i) => Device::get(i)?,
        None => Device::default_device()?,
    };
    match a.dtype.as_str() {
        "bf16" => bench::<bf16>(&a, &dev, ElemType::BF16),
        "f16" | "fp16" => bench::<f16>(&a, &dev, ElemType::F16),
        "tf32" => {
            ensure!(
                a.layout == "tn",
                "--dtype tf32: tf32 inputs are read TN only (B column-major): pass --layout tn"
            );
            bench::<f32>(&a, &dev, ElemType::TF32)
        }
        "e4m3" => bench_fp8::<E4M3>(&a, &dev),
        "e5m2" => bench_fp8::<E5M2>(&a, &dev),
        d => bail!("unknown --dtype {d}: use bf16, f16, tf32, e4m3 or e5m2"),
    }
}

/// Inputs of type `ty` stored as `T` (f32 for tf32), C of type `T`.
fn bench<T: Half>(a: &Args, dev: &Device, ty: ElemType) -> Result<()> {
    let lb = match a.layout.as_str() {
        "nn" => Layout::RowMajor,
        "tn" => Layout::ColMajor,
        l => bail!("unknown --layout {l}: use nn or tn"),
    };
    let tunings: Vec<(String, Tuning)> =
        a.variants.iter().map(|v| Ok((v.clone(), parse_variant(v)?))).collect::<Result<_>>()?;
    let stream = dev.create_stream()?;
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_nanos() as u64;
    eprintln!("bench gemm: seed {seed}");
    let mut rng = Mix(seed);
    let mut rows = Vec::new();
    for &n in &a.n {
        let ha: Vec<T> = (0..n * n).map(|_| T::from_f64(rng.next())).collect();
        let hb: Vec<T> = (0..n * n).map(|_| T::from_f64(rng.next())).collect();
        let da = stream.clone_htod(&ha)?;
        let db = stream.clone_htod(&hb)?;
        let mut dc = stream.clone_htod(&vec![T::from_f64(f64::NAN); n * n])?;
        let b_at = |p: usize, j: usize| if lb == Layout::RowMajor { p * n + j } else { j * n + p };
        for (name, tuning) in &tunings {
            let desc = GemmDesc::new(n, n, n, ty).with_c_type(T::TYPE).with_layouts(
                Layout::RowMajor,
                lb,
                Layout::RowMajor,
            );
            let plan = Gemm::plan_tuned(dev, &desc, *tuning)?;
            stream.memset_bytes(&mut dc, 0xff)?; // NaN in every element
            let t0 = std::time::Instant::now();
            plan.run(&stream, &da, &db, &mut dc)?;
            stream.synchronize()?;
            let first = t0.elapsed();
            let hc: Vec<T> = stream.clone_dtoh(&dc)?;
            ensure!(
                hc.iter().all(|x| !x.to_f64().is_nan()),
                "{name} n={n}: some elements of C were not written"
            );
            let mut worst = 0.0f64;
            for s in 0..256usize {
                let (i, j) = ((s * 7919 + 13) % n, (s * 104_729 + 5) % n);
                let (i, j) = if s == 0 { (n - 1, n - 1) } else { (i, j) };
                let (mut dot, mut mag) = (0.0f64, 0.0f64);
                for p in 0..n {
                    let x = ha[i * n + p].to_f64() * hb[b_at(p, j)].to_f64();
                    dot += x;
                    mag += x.abs();
                }
                let err = (hc[i * n + j].to_f64() - dot).abs();
                // 16-bit C's rounding; tf32 inputs are cut to 10 mantissa bits.
                let bound = dot.abs() / 128.0 + mag * if ty == ElemType::TF32 { 1.0 / 512.0 } else { 1e-5 };
                ensure!(err <= bound, "{name} n={n}: C[{i}][{j}] = {}, want {dot}", hc[i * n + j].to_f64());
                worst = worst.max(err / bound);
            }
            eprintln!(
                "bench gemm: {} n={n} checked (worst {worst:.3} of bound); first call {first:?}",
                plan.kernel_name()
            );
            let t = timed_median(dev, &stream, a.reps, || Ok(plan.run(&stream, &da, &db, &mut dc)?))?;
            let tflops = 2.0 * (n as f64).powi(3) / t / 1e9;
            rows.push(Row {
                bench: "gemm",
                metric: format!("{} {n}^3 {} {name}", a.dtype, a.layout),
                ferrocm: tflops,
                baseline: None,
                baseline_name: "cuBLAS (scripts/vendor_baselines.py gemm)",
                unit: "TFLOP/s",
                ratio: None,
                ratio_meaning: "ferrocm / cuBLAS",
                target: "bf16, f16 >= 1.0x at 4096 and 8192",
            });
        }
    }
    print(&rows, a.json)
}

/// One warm-up call, then `reps` calls each between two events on `stream`: the median in ms.
fn timed_median(
    dev: &Device,
    stream: &ferrocm::Stream,
    reps: usize,
    mut call: impl FnMut() -> Result<()>,
) -> Result<f64> {
    call()?;
    let mut ms = Vec::with_capacity(reps);
    for _ in 0..reps {
        let (s, e) = (Event::new(dev)?, Event::new(dev)?);
        s.record(stream)?;
        call()?;
        e.record(stream)?;
        e.synchronize()?;
        ms.push(s.elapsed_ms(&e)? as f64);
    }
    Ok(median(ms))
}

trait Fp8: GemmElement {
    fn from_bits(bits: u8) -> Self;
    fn to_bits(self) -> u8;
    fn to_f64(self) -> f64;
}
macro_rules! fp8 {
    ($t:ty) => {
        impl Fp8 for $t {
            fn from_bits(bits: u8) -> Self {
                <$t>::from_bits(bits)
            }
            fn to_bits(self) -> u8 {
                <$t>::to_bits(self)
            }
            fn to_f64(self) -> f64 {
                <$t>::to_f64(self)
            }
        }
    };
}
fp8!(E4M3);
fp8!(E5M2);

fn bench_fp8<T: Fp8>(a: &Args, dev: &Device) -> Result<()> {
    ensure!(
        a.layout == "tn",
        "--dtype {}: 8-bit inputs are read TN only (A row-major, B column-major): pass --layout tn",
        a.dtype
    );
    let (sa, sb) = (a.scales[0], a.scales[1]);
    let tunings: Vec<(String, Tuning)> =
        a.variants.iter().map(|v| Ok((v.clone(), parse_variant(v)?))).collect::<Result<_>>()?;
    let stream = dev.create_stream()?;
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_nanos() as u64;
    eprintln!("bench gemm: seed {seed}");
    let mut rng = Mix(seed);
    // Random finite codes: every magnitude the type has.
    let mut random = || loop {
        let x = T::from_bits((rng.bits() >> 56) as u8);
        if x.to_f64().is_finite() {
            return x;
        }
    };
    let mut rows = Vec::new();
    for &n in &a.n {
        // A is n x n row-major; B column-major, so B^T row-major: (p, j) at j n + p.
        let ha: Vec<T> = (0..n * n).map(|_| random()).collect();
        let hb: Vec<T> = (0..n * n).map(|_| random()).collect();
        let da = stream.clone_htod(&ha)?;
        let db = stream.clone_htod(&hb)?;
        let mut dc = stream.clone_htod(&vec![bf16::from_f64(f64::NAN); n * n])?;
        for (name, tuning) in &tunings {
            let desc = GemmDesc::new_scaled(n, n, n, T::TYPE).with_scales(sa, sb);
            let plan = Gemm::plan_tuned(dev, &desc, *tuning)?;
            stream.memset_bytes(&mut dc, 0xff)?;
            let t0 = std::time::Instant::now();
            plan.run(&stream, &da, &db, &mut dc)?;
            stream.synchronize()?;
            let first = t0.elapsed();
            let hc: Vec<bf16> = stream.clone_dtoh(&dc)?;
            ensure!(hc.iter().all(|x| !x.is_nan()), "{name} n={n}: some elements of C were not written");
            let scale = sa as f64 * sb as f64;
            let mut worst = 0.0f64;
            for s in 0..256usize {
                let (i, j) = ((s * 7919 + 13) % n, (s * 104_729 + 5) % n);
                let (i, j) = if s == 0 { (n - 1, n - 1) } else { (i, j) };
                let (mut dot, mut mag) = (0.0f64, 0.0f64);
                for p in 0..n {
                    let x = ha[i * n + p].to_f64() * hb[j * n + p].to_f64();
                    dot += x;
                    mag += x.abs();
                }
                let want = scale * dot;
                let got = hc[i * n + j].to_f64();
                // bf16 rounding, and the tensor cores' ~14-bit sums within each 128-K block.
                let bound = want.abs() / 128.0 + scale.abs() * mag / 4096.0;
                ensure!((got - want).abs() <= bound, "{name} n={n}: C[{i}][{j}] = {got}, want {want}");
                worst = worst.max((got - want).abs() / bound);
            }
            eprintln!(
                "bench gemm: {} n={n} checked (worst {worst:.3} of bound); first call {first:?}",
                plan.kernel_name()
            );
            let t = timed_median(dev, &stream, a.reps, || Ok(plan.run(&stream, &da, &db, &mut dc)?))?;
            rows.push(Row {
                bench: "gemm",
                metric: format!("{} {n}^3 tn {name}", a.dtype),
                ferrocm: 2.0 * (n as f64).powi(3) / t / 1e9,
                baseline: None,
                baseline_name: "cuBLASLt (torch._scaled_mm, crates/gemm/gpu/fp8_vendor.py)",
                unit: "TFLOP/s",
                ratio: None,
                ratio_meaning: "ferrocm / cuBLASLt",
                target: "e4m3 >= 0.95x at 8192",
            });
        }
        if let Some(dir) = &a.dump {
            std::fs::create_dir_all(dir)?;
            let hc: Vec<bf16> = stream.clone_dtoh(&dc)?;
            let file = |part: &str| dir.join(format!("{}_{n}_{part}.bin", a.dtype));
            std::fs::write(file("a"), ha.iter().map(|x| x.to_bits()).collect::<Vec<u8>>())?;
            std::fs::write(file("b"), hb.iter().map(|x| x.to_bits()).collect::<Vec<u8>>())?;
            std::fs::write(
                file("c"),
                hc.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect::<Vec<u8>>(),
            )?;
        }
    }
    print(&rows, a.json)
}
