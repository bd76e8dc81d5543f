//! `ferrocm prof --calibrate`: the device's ceilings for the roofline, measured once and
//! cached: device-to-device copy bandwidth (bytes read plus written), the f32 FMA rate of the
//! vector lanes, and the matrix-unit rate (`mma.sync` m16n8k16, bf16 inputs, f32 accumulation;
//! the peak reachable without Hopper's `wgmma`). Each is the median of several event-timed
//! runs after a warm-up, on a launch that fills the device; each result is checked first.

use std::path::Path;

use anyhow::{ensure, Context, Result};
use ferrocm::{BackendKind, Device, Event};
use ferrocm_kernel::prelude::*;
use ferrocm_prof::roofline::{store_ceilings, Ceilings};

const CHAINS: usize = 16;
const MMA_CHAINS: usize = 4;

/// Each thread runs `CHAINS` independent chains of `iters` FMAs.
#[kernel]
fn fma_peak(iters: u32, a: f32, c: f32, out: &mut [f32]) {
    let acc = var_array(CHAINS, a);
    for _ in 0u32..iters {
        for k in 0..CHAINS {
            acc.set(k, acc.get(k).mul_add(a, c));
        }
    }
    let mut sum = acc.get(0);
    for k in 1..CHAINS {
        sum = sum + acc.get(k);
    }
    let i = global_index();
    if i < out.len() {
        out[i] = sum;
    }
}

/// Each warp runs `MMA_CHAINS` independent chains of `iters` m16n8k16 products.
#[kernel]
fn mma_peak(iters: u32, bits: u32, out: &mut [f32]) {
    let a = vec4(bits, bits ^ 1u32, bits ^ 2u32, bits ^ 3u32);
    let b = vec2(bits ^ 4u32, bits ^ 5u32);
    let acc = var_array(MMA_CHAINS, vec4(0.0f32, 0.0f32, 0.0f32, 0.0f32));
    for _ in 0u32..iters {
        for k in 0..MMA_CHAINS {
            acc.set(k, mma_m16n8k16::<bf16>(a, b, acc.get(k)));
        }
    }
    let mut sum = acc.get(0).get(0);
    for k in 0..MMA_CHAINS {
        let v = acc.get(k);
        sum = sum + v.get(1) + v.get(2) + v.get(3);
        if k > 0 {
            sum = sum + v.get(0);
        }
    }
    let i = global_index();
    if i < out.len() {
        out[i] = sum;
    }
}

/// Median milliseconds of `reps` event-timed runs of `f` after one warm-up.
fn time_ms(stream: &Stream, reps: usize, f: &mut dyn FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    stream.synchronize()?;
    let mut t = Vec::new();
    for _ in 0..reps {
        let (a, b) = (Event::new(stream.device())?, Event::new(stream.device())?);
        a.record(stream)?;
        f()?;
        b.record(stream)?;
        b.synchronize()?;
        t.push(a.elapsed_ms(&b)? as f64);
    }
    Ok(crate::bench::median(t))
}

pub fn run(device: Option<usize>, cache: &Path) -> Result<()> {
    let dev = match device {
        Some(i) => Device::get(i)?,
        None => Device::default_device()?,
    };
    let gpu = dev.kind() != BackendKind::Cpu;
    let s = dev.create_stream()?;
    eprintln!("calibrating device {}: {} [{}]", dev.index(), dev.properties().name, dev.kind());

    // Copy bandwidth.
    let bytes: usize = if gpu { 1 << 30 } else { 64 << 20 };
    let pattern: Vec<u32> = (0..bytes / 4).map(|i| (i as u32).wrapping_mul(2654435761)).collect();
    let src = s.clone_htod(&pattern)?;
    let mut dst = s.alloc::<u32>(pattern.len())?;
    s.copy_dtod(&src, &mut dst)?;
    ensure!(s.clone_dtoh(&dst)? == pattern, "device-to-device copy returned different data");
    let copy_ms = time_ms(&s, 5, &mut || Ok(s.copy_dtod(&src, &mut dst)?))?;
    let copy = 2.0 * bytes as f64 / (copy_ms * 1e-3);
    drop((src, dst, pattern));

    // Vector FMA rate.
    let blocks = 4 * dev.properties().compute_units.max(1);
    let threads = blocks as usize * 256;
    let cfg = LaunchConfig::new(blocks, 256);
    let mut out = s.alloc_zeroed::<f32>(threads)?;
    let (a, c) = (0.999_f32, 0.001_f32);
    let iters: u32 = if gpu { 4096 } else { 16 };
    fma_peak::launch(&s, cfg, 2, a, c, &mut out)?;
    let mut want = a;
    for _ in 0..2 {
        want = want.mul_add(a, c);
    }
    let got = s.clone_dtoh(&out)?;
    ensure!(
        got.iter().all(|&v| (v - CHAINS as f32 * want).abs() < 1e-4),
        "the FMA kernel computed {} instead of {}",
        got[0],
        CHAINS as f32 * want
    );
    let fma_ms = time_ms(&s, 5, &mut || Ok(fma_peak::launch(&s, cfg, iters, a, c, &mut out)?))?;
    let vector = threads as f64 * CHAINS as f64 * 2.0 * iters as f64 / (fma_ms * 1e-3);

    // Matrix-unit rate (bf16 1.0 in every element: each product adds 16 to each accumulator).
    let one = 0x3f80_3f80u32;
    let warps = threads / 32;
    let iters: u32 = if gpu { 2048 } else { 4 };
    mma_peak::launch(&s, cfg, 1, one, &mut out)?;
    let got = s.clone_dtoh(&out)?;
    ensure!(got.iter().all(|v| v.is_finite() && *v > 0.0), "the mma kernel computed {}", got[0]);
    let mma_ms = time_ms(&s, 5, &mut || Ok(mma_peak::launch(&s, cfg, iters, one, &mut out)?))?;
    let matrix = warps as f64 * MMA_CHAINS as f64 * 4096.0 * iters as f64 / (mma_ms * 1e-3);

    let c = Ceilings {
        device: dev.properties().name.clone(),
        backend: dev.kind().to_string(),
        copy_bytes_per_s: copy,
        vector_flops_per_s: vector,
        matrix_flops_per_s: matrix,
        measured: utc_now(),
    };
    println!("device-to-device copy    {:>10.1} GB/s (read + write, {} MiB)", copy / 1e9, bytes >> 20);
    println!("f32 FMA (vector lanes)   {:>10.1} GFLOP/s", vector / 1e9);
    println!("bf16 mma.sync (matrix)   {:>10.1} GFLOP/s", matrix / 1e9);
    store_ceilings(cache, c).with_context(|| format!("caching the ceilings in {}", cache.display()))?;
    println!("cached in {}", cache.display());
    Ok(())
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc_now() -> String {
    let secs =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem / 60 % 60, rem % 60)
}
