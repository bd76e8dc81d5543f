//! `ferrocm bench runtime`: the runtime's overheads against the raw CUDA driver, in one
//! process: empty-kernel launch rate and round trip, pinned H2D/D2H and D2D copy bandwidth,
//! and allocate+free through the stream-ordered pool against cuMemAlloc/cuMemFree.

use std::time::Instant;

use anyhow::{ensure, Result};
use ferrocm::{builtin, BackendKind, Device, HostBuffer, KernelArgs, LaunchConfig};

use super::raw;
use super::{median, print, Row};

#[derive(clap::Args)]
pub struct Args {
    /// Device index (see `ferrocm info`); default: the default device.
    #[arg(long)]
    device: Option<usize>,
    /// Kernel launches per timed batch.
    #[arg(long, default_value_t = 20_000)]
    launches: usize,
    /// Pinned host<->device copy size in MiB.
    #[arg(long, default_value_t = 256)]
    copy_mib: usize,
    /// Device-to-device copy size in MiB.
    #[arg(long, default_value_t = 1024)]
    d2d_mib: usize,
    /// Allocate+free pairs per timed batch.
    #[arg(long, default_value_t = 2_000)]
    allocs: usize,
    /// Timed repetitions; the median is reported.
    #[arg(long, default_value_t = 7)]
    reps: usize,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
}

fn time(reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?; // warm-up
    let mut v = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        f()?;
        v.push(t.elapsed().as_secs_f64());
    }
    Ok(median(v))
}

fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

pub fn run(a: Args) -> Result<()> {
    let dev = match a.device {
        Some(i) => Device::get(i)?,
        None => Device::default_device()?,
    };
    let raw =
        if dev.kind() == BackendKind::Cuda { Some(raw::require(dev.ordinal(), builtin::PTX)?) } else { None };
    eprintln!("device {}: {} [{}]", dev.index(), dev.properties().name, dev.kind());
    let mut rows = Vec::new();
    let s = dev.create_stream()?;
    let empty = builtin::load(&dev)?.function("empty")?;
    let no_args = KernelArgs::new();
    let one = LaunchConfig::new(1, 1);

    // Launch: enqueue rate of a batch, and launch + synchronize round trip.
    let n = a.launches;
    let ferro = time(a.reps, || {
        for _ in 0..n {
            // SAFETY: `empty` takes no parameters.
            unsafe { s.launch(&empty, one, &no_args)? };
        }
        Ok(s.synchronize()?)
    })? / n as f64
        * 1e6;
    let base = raw
        .as_ref()
        .map(|r| {
            time(a.reps, || {
                for _ in 0..n {
                    r.launch_empty()?;
                }
                r.sync()
            })
        })
        .transpose()?
        .map(|t| t / n as f64 * 1e6);
    rows.push(latency_row("empty kernel launch (batched)", ferro, base));
    let m = (n / 10).max(1);
    let ferro = time(a.reps, || {
        for _ in 0..m {
            // SAFETY: as above.
            unsafe { s.launch(&empty, one, &no_args)? };
            s.synchronize()?;
        }
        Ok(())
    })? / m as f64
        * 1e6;
    let base = raw
        .as_ref()
        .map(|r| {
            time(a.reps, || {
                for _ in 0..m {
                    r.launch_empty()?;
                    r.sync()?;
                }
                Ok(())
            })
        })
        .transpose()?
        .map(|t| t / m as f64 * 1e6);
    rows.push(latency_row("empty kernel launch + sync", ferro, base));

    // Pinned copies, checked on fresh random data before timing.
    let bytes = a.copy_mib << 20;
    let data = random_bytes(bytes, 0x5eed);
    let host = HostBuffer::from_slice(&dev, &data)?;
    let mut back = HostBuffer::<u8>::new(&dev, bytes)?;
    let mut d = s.alloc::<u8>(bytes)?;
    s.copy_htod_async(&host, &mut d)?;
    s.copy_dtoh_async(&d, &mut back)?;
    ensure!(back[..] == data[..], "pinned round trip returned different bytes");
    let gbs = |t: f64, b: usize| b as f64 / t / 1e9;
    let h2d = time(a.reps, || {
        s.copy_htod_async(&host, &mut d)?;
        Ok(s.synchronize()?)
    })?;
    let d2h = time(a.reps, || {
        s.copy_dtoh_async(&d, &mut back)?;
        Ok(s.synchronize()?)
    })?;
    let (mut rh2d, mut rd2h) = (None, None);
    if let Some(r) = &raw {
        let (hp, dp) = (r.host_alloc(bytes)?, r.alloc(bytes)?);
        // SAFETY: `hp` holds `bytes` bytes.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), hp, bytes) };
        rh2d = Some(time(a.reps, || {
            r.htod(dp, hp, bytes)?;
            r.sync()
        })?);
        rd2h = Some(time(a.reps, || {
            r.dtoh(hp, dp, bytes)?;
            r.sync()
        })?);
        r.free(dp)?;
        r.host_free(hp)?;
    }
    rows.push(bandwidth_row(
        format!("pinned H2D {} MiB", a.copy_mib),
        gbs(h2d, bytes),
        rh2d.map(|t| gbs(t, bytes)),
    ));
    rows.push(bandwidth_row(
        format!("pinned D2H {} MiB", a.copy_mib),
        gbs(d2h, bytes),
        rd2h.map(|t| gbs(t, bytes)),
    ));
    drop((host, back, d));

    // Device-to-device: bytes read plus bytes written.
    let bytes = a.d2d_mib << 20;
    let src = s.clone_htod(&random_bytes(bytes, 0xd2d))?;
    let mut dst = s.alloc::<u8>(bytes)?;
    s.copy_dtod(&src, &mut dst)?;
    ensure!(s.clone_dtoh(&dst)? == s.clone_dtoh(&src)?, "device-to-device copy returned different bytes");
    let t = time(a.reps, || {
        s.copy_dtod(&src, &mut dst)?;
        Ok(s.synchronize()?)
    })?;
    let base = raw
        .as_ref()
        .map(|r| -> Result<f64> {
            let (x, y) = (r.alloc(bytes)?, r.alloc(bytes)?);
            let t = time(a.reps, || {
                r.dtod(y, x, bytes)?;
                r.sync()
            });
            r.free(x)?;
            r.free(y)?;
            t
        })
        .transpose()?;
    rows.push(bandwidth_row(
        format!("D2D {} MiB (read+write)", a.d2d_mib),
        gbs(t, 2 * bytes),
        base.map(|t| gbs(t, 2 * bytes)),
    ));
    drop((src, dst));

    // Allocation: pooled allocate+free against the driver's.
    for size in [4usize << 10, 1 << 20, 64 << 20] {
        let k = a.allocs;
        let ferro = time(a.reps, || {
            for _ in 0..k {
                drop(s.alloc::<u8>(size)?);
            }
            Ok(())
        })? / k as f64
            * 1e6;
        let base = raw
            .as_ref()
            .map(|r| {
                time(a.reps, || {
                    for _ in 0..k {
                        let p = r.alloc(size)?;
                        r.free(p)?;
                    }
                    Ok(())
                })
            })
            .transpose()?
            .map(|t| t / k as f64 * 1e6);
        rows.push(Row {
            bench: "runtime",
            metric: format!("alloc+free {} KiB", size >> 10),
            ferrocm: ferro,
            baseline: base,
            baseline_name: "cuMemAlloc+cuMemFree",
            unit: "us/pair",
            ratio: base.map(|b| b / ferro),
            ratio_meaning: "speed-up over the driver",
            target: ">= 10",
        });
    }
    print(&rows, a.json)
}

fn latency_row(metric: &str, ferrocm: f64, baseline: Option<f64>) -> Row {
    Row {
        bench: "runtime",
        metric: metric.into(),
        ferrocm,
        baseline,
        baseline_name: "cuLaunchKernel loop",
        unit: "us/launch",
        ratio: baseline.map(|b| ferrocm / b),
        ratio_meaning: "time relative to the driver",
        target: "<= 1.1",
    }
}

fn bandwidth_row(metric: String, ferrocm: f64, baseline: Option<f64>) -> Row {
    Row {
        bench: "runtime",
        metric,
        ferrocm,
        baseline,
        baseline_name: "cuMemcpy*Async",
        unit: "GB/s",
        ratio: baseline.map(|b| ferrocm / b),
        ratio_meaning: "share of driver bandwidth",
        target: ">= 0.95",
    }
}
