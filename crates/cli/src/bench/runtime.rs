//! `ferrocm bench runtime`: the runtime's overheads against the raw CUDA driver, in one
//! process: empty-kernel launch rate and round trip, a typed `#[kernel]` launch, a graph of empty
//! kernels replayed (against the driver's own graph of the same launches, and against the same
//! launches on a stream), a round trip between two streams ordered by stream memory operations
//! (against cuStreamWriteValue32/cuStreamWaitValue32), pinned H2D/D2H and D2D copy bandwidth,
//! and allocate+free through the stream-ordered pool against cuMemAlloc/cuMemFree.

use std::time::Instant;

use anyhow::{bail, ensure, Context, Result};
use ferrocm::{
    builtin, BackendKind, Device, DeviceBuffer, Function, HostBuffer, KernelArgs, LaunchConfig, Stream,
};
use ferrocm_kernel::prelude::*;

use super::raw;
use super::{median, print, Row};

#[derive(clap::Args)]
pub struct Args {
    /// Device index (see `ferrocm info`); default: the default device.
    #[arg(long)]
    device: Option<usize>,
    /// Kernel launches per timed batch (at least 10).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(10..=100_000_000))]
    launches: u32,
    /// Empty kernels in the replayed graph (at least 1).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    graph_kernels: u32,
    /// Pinned host<->device copy size in MiB (1 to 1048576).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=1 << 20))]
    copy_mib: u32,
    /// Device-to-device copy size in MiB (1 to 1048576).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..=1 << 20))]
    d2d_mib: u32,
    /// Allocate+free pairs per timed batch (at least 1).
    #[arg(long, default_value_t = 2_000, value_parser = clap::value_parser!(u32).range(1..=100_000_000))]
    allocs: u32,
    /// Timed repetitions; the median is reported (at least 1).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    reps: u32,
    /// One JSON object per line.
    #[arg(long)]
    json: bool,
}

type Work<'a> = &'a mut dyn FnMut() -> Result<()>;

fn timed(f: &mut dyn FnMut() -> Result<()>) -> Result<f64> {
    let t = Instant::now();
    f()?;
    Ok(t.elapsed().as_secs_f64())
}

/// Times `ferrocm` and, where present, `baseline`, alternating them within each repetition
/// so clock and thermal drift fall on both alike; returns each one's median in seconds.
fn compare(reps: u32, ferrocm: Work, mut baseline: Option<Work>) -> Result<(f64, Option<f64>)> {
    ferrocm()?; // warm-up
    if let Some(b) = baseline.as_mut() {
        b()?;
    }
    let (mut tf, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        tf.push(timed(ferrocm)?);
        if let Some(b) = baseline.as_mut() {
            tb.push(timed(*b)?);
        }
    }
    Ok((median(tf), (!tb.is_empty()).then(|| median(tb))))
}

fn random_bytes(n: usize, seed: u64, flag: &str) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| anyhow::anyhow!("{flag}: the host cannot allocate {n} bytes for the test data"))?;
    let mut x = seed | 1;
    v.extend((0..n).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 24) as u8
    }));
    Ok(v)
}

/// Refuses a copy size whose buffers (`count` of them) cannot fit in the device's memory.
fn check_fits(dev: &Device, flag: &str, mib: u32, count: u64) -> Result<usize> {
    let bytes = (mib as u64) << 20;
    let total = dev.properties().total_memory;
    if bytes * count > total {
        bail!(
            "{flag} {mib} needs {count} buffer(s) of {mib} MiB ({} MiB), more than device {}'s {} MiB",
            (bytes * count) >> 20,
            dev.index(),
            total >> 20
        );
    }
    Ok(bytes as usize)
}

/// The kernel of the typed-launch row: a scalar and a slice, as most library kernels take.
#[kernel]
fn bench_scale(a: f32, x: &mut [f32]) {
    let i = global_index();
    if i < x.len() {
        x[i] = a * x[i];
    }
}

/// Turns an optional closure into the optional trait object `compare` takes.
fn dynamic<F: FnMut() -> Result<()>>(f: &mut Option<F>) -> Option<Work<'_>> {
    f.as_mut().map(|f| f as Work)
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
    let per = |t: f64, k: u32| t / k as f64 * 1e6;
    let copy_bytes = check_fits(&dev, "--copy-mib", a.copy_mib, 1)?;
    let d2d_bytes = check_fits(&dev, "--d2d-mib", a.d2d_mib, 2)?;

    // Launch: enqueue rate of a batch (then one synchronize), and launch + synchronize.
    for (metric, batch, sync_each) in [
        ("empty kernel launch (batched)", a.launches, false),
        ("empty kernel launch + sync", a.launches / 10, true),
    ] {
        let batch = batch.max(1);
        let mut ours = || -> Result<()> {
            for _ in 0..batch {
                // SAFETY: `empty` takes no parameters.
                unsafe { s.launch(&empty, one, &no_args)? };
                if sync_each {
                    s.synchronize()?;
                }
            }
            Ok(s.synchronize()?)
        };
        let mut theirs = raw.as_ref().map(|r| {
            move || -> Result<()> {
                for _ in 0..batch {
                    r.launch_empty()?;
                    if sync_each {
                        r.sync()?;
                    }
                }
                r.sync()
            }
        });
        let (f, b) = compare(a.reps, &mut ours, dynamic(&mut theirs))?;
        rows.push(latency_row(metric, per(f, batch), b.map(|b| per(b, batch))));
    }

    // Typed launch: a `#[kernel]` launched through its generated `launch` against the same PTX
    // launched with raw `cuLaunchKernel`.
    {
        let batch = a.launches;
        let mut x = s.clone_htod(&[1.5f32; 32])?;
        bench_scale::launch(&s, LaunchConfig::new(1, 32), 2.0, &mut x)?;
        ensure!(s.clone_dtoh(&x)? == vec![3.0f32; 32], "the typed launch computed a wrong result");
        let raw_fn = match &raw {
            Some(r) => {
                let k = bench_scale::kernel()?;
                let ptx = k.ptx(&dev.properties().arch)?;
                Some((r, r.function(&ptx, k.name())?, r.alloc(32 * 4)?))
            }
            None => None,
        };
        let mut ours = || -> Result<()> {
            for _ in 0..batch {
                bench_scale::launch(&s, LaunchConfig::new(1, 32), 1.0, &mut x)?;
            }
            Ok(s.synchronize()?)
        };
        let mut theirs = raw_fn.map(|(r, f, p)| {
            move || -> Result<()> {
                let (mut a, mut ptr, mut len) = (1.0f32, p, 32u64);
                for _ in 0..batch {
                    let mut params = [
                        &mut a as *mut f32 as *mut std::ffi::c_void,
                        &mut ptr as *mut u64 as *mut std::ffi::c_void,
                        &mut len as *mut u64 as *mut std::ffi::c_void,
                    ];
                    // SAFETY: the parameters are the kernel's (f32, then the slice's address
                    // and length), over a live 32-element allocation.
                    unsafe { r.launch(f, &mut params)? };
                }
                r.sync()
            }
        });
        let (f, b) = compare(a.reps, &mut ours, dynamic(&mut theirs))?;
        rows.push(latency_row("typed #[kernel] launch (batched)", per(f, batch), b.map(|b| per(b, batch))));
        if let Some((r, _, p)) = raw_fn {
            r.free(p)?;
        }
    }

    // Timing events, the profiler's unit of cost: recording one, and querying one that is
    // still pending (behind a 20 ms spin).
    let k = a.launches.max(1);
    let e = ferrocm::Event::new(&dev)?;
    let mut record = || -> Result<()> {
        for _ in 0..k {
            e.record(&s)?;
        }
        Ok(s.synchronize()?)
    };
    let (f, _) = compare(a.reps, &mut record, None)?;
    rows.push(event_row("timing event record (batched)", per(f, k)));
    let spin = builtin::load(&dev)?.function("spin")?;
    let mut spin_args = KernelArgs::new();
    spin_args.push(20_000_000u64);
    let mut q = Vec::new();
    for _ in 0..a.reps.max(1) {
        // SAFETY: `spin` takes one u64.
        unsafe { s.launch(&spin, one, &spin_args)? };
        e.record(&s)?;
        let t = Instant::now();
        let mut n = 0;
        while n < k && !e.query()? {
            n += 1;
        }
        q.push(t.elapsed().as_secs_f64() / n.max(1) as f64 * 1e6);
        s.synchronize()?;
    }
    rows.push(event_row("event query (pending)", median(q)));

    // Stream memory operations: a round trip between two streams ordered only by words in
    // device memory (A writes its word, B waits for it and writes its own, A waits for that),
    // the building block of collectives between processes; the driver's cuStreamWriteValue32 /
    // cuStreamWaitValue32 on two raw streams is the baseline.
    {
        let rounds = (a.launches / 10).max(1);
        let (sa, sb) = (dev.create_stream()?, dev.create_stream()?);
        let mut fa = dev.alloc::<u32>(1)?;
        let mut fb = dev.alloc::<u32>(1)?;
        sa.copy_htod(&[0], &mut fa)?;
        sa.copy_htod(&[0], &mut fb)?;
        let mut generation = 0u32;
        // Checked once before timing, and again after: the words hold the last generation.
        let check = |fa: &DeviceBuffer<u32>, fb: &DeviceBuffer<u32>, want: u32| -> Result<()> {
            let (a, b) = (sa.clone_dtoh(fa)?, sa.clone_dtoh(fb)?);
            ensure!(
                a == vec![want] && b == vec![want],
                "the ping-pong left the words at {a:?} / {b:?}, not {want}"
            );
            Ok(())
        };
        memop_ping_pong(&sa, &sb, &mut fa, &mut fb, &mut generation, rounds)?;
        check(&fa, &fb, generation)?;
        let mut ours = || memop_ping_pong(&sa, &sb, &mut fa, &mut fb, &mut generation, rounds);
        let raw_pair = match &raw {
            Some(r) => Some((r, r.memop_pair()?)),
            None => None,
        };
        let mut raw_generation = 0u32;
        let mut theirs = raw_pair.as_ref().map(|(r, pair)| {
            move || -> Result<()> {
                for _ in 0..rounds {
                    raw_generation = raw_generation.wrapping_add(1);
                    r.ping_pong(pair, raw_generation)?;
                }
                r.sync()
            }
        });
        let (f, b) = compare(a.reps, &mut ours, dynamic(&mut theirs))?;
        check(&fa, &fb, generation)?;
        rows.push(Row {
            bench: "runtime",
            metric: "stream word round trip".into(),
            ferrocm: per(f, rounds),
            baseline: b.map(|b| per(b, rounds)),
            baseline_name: "cuStreamWriteValue32/WaitValue32 on two streams",
            unit: "us/round trip",
            ratio: b.map(|b| f / b),
            ratio_meaning: "time relative to the driver",
            target: "<= 1.05",
        });
        if let Some((r, pair)) = raw_pair {
            r.free_memop_pair(pair)?;
        }
    }

    // Graphs: the same empty launches captured once and replayed, against the driver's graph
    // of them and against the launches issued one by one on a stream.
    check_graph_replay(&s)?;
    let k = a.graph_kernels;
    let exec = s
        .capture(|s| {
            for _ in 0..k {
                // SAFETY: `empty` takes no parameters.
                unsafe { s.launch(&empty, one, &no_args)? };
            }
            Ok(())
        })?
        .instantiate()?;
    ensure!(
        exec.kernel_node_count() == k as usize,
        "the graph holds {} kernels, not {k}",
        exec.kernel_node_count()
    );
    let raw_graph = raw.as_ref().map(|r| r.empty_graph(k as usize)).transpose()?;
    let mut ours = || -> Result<()> {
        exec.launch(&s)?;
        Ok(s.synchronize()?)
    };
    let mut theirs = raw_graph.as_ref().map(|g| {
        move || -> Result<()> {
            g.launch()?;
            g.sync()
        }
    });
    let (graph_time, raw_time) = compare(a.reps, &mut ours, dynamic(&mut theirs))?;
    rows.push(Row {
        bench: "runtime",
        metric: format!("graph replay, {k} empty kernels"),
        ferrocm: per(graph_time, k),
        baseline: raw_time.map(|b| per(b, k)),
        baseline_name: "cuGraphLaunch of the same graph",
        unit: "us/kernel",
        ratio: raw_time.map(|b| graph_time / b),
        ratio_meaning: "time relative to the driver",
        target: "<= 1.05",
    });
    let mut stream_launches = || -> Result<()> {
        for _ in 0..k {
            // SAFETY: `empty` takes no parameters.
            unsafe { s.launch(&empty, one, &no_args)? };
        }
        Ok(s.synchronize()?)
    };
    let (graph_time, stream_time) = compare(a.reps, &mut ours, Some(&mut stream_launches))?;
    let stream_time = stream_time.expect("a baseline was given");
    rows.push(Row {
        bench: "runtime",
        metric: format!("graph vs stream, {k} kernels"),
        ferrocm: per(graph_time, k),
        baseline: Some(per(stream_time, k)),
        baseline_name: "ferrocm launches on a stream",
        unit: "us/kernel",
        ratio: Some(stream_time / graph_time),
        ratio_meaning: "speed-up of the graph",
        target: "> 1",
    });
    drop((raw_graph, exec));

    // Pinned copies, checked on fresh random data before timing.
    let bytes = copy_bytes;
    let data = random_bytes(bytes, 0x5eed, "--copy-mib")?;
    let host = HostBuffer::from_slice(&dev, &data).context("--copy-mib")?;
    let mut back = HostBuffer::<u8>::new(&dev, bytes)?;
    let mut d = s.alloc::<u8>(bytes)?;
    s.copy_htod_async(&host, &mut d)?;
    s.copy_dtoh_async(&d, &mut back)?;
    ensure!(back[..] == data[..], "pinned round trip returned different bytes");
    let gbs = |t: f64, b: usize| b as f64 / t / 1e9;
    let raw_bufs = match &raw {
        Some(r) => {
            let (hp, dp) = (r.host_alloc(bytes)?, r.alloc(bytes)?);
            // SAFETY: `hp` holds `bytes` bytes.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), hp, bytes) };
            Some((r, hp, dp))
        }
        None => None,
    };
    let mut ours = || -> Result<()> {
        s.copy_htod_async(&host, &mut d)?;
        Ok(s.synchronize()?)
    };
    let mut theirs = raw_bufs.map(|(r, hp, dp)| {
        move || -> Result<()> {
            r.htod(dp, hp, bytes)?;
            r.sync()
        }
    });
    let (f, b) = compare(a.reps, &mut ours, dynamic(&mut theirs))?;
    rows.push(bandwidth_row(
        format!("pinned H2D {} MiB", a.copy_mib),
        gbs(f, bytes),
        b.map(|t| gbs(t, bytes)),
    ));
    let mut ours = || -> Result<()> {
        s.copy_dtoh_async(&d, &mut back)?;
        Ok(s.synchronize()?)
    };
    let mut theirs = raw_bufs.map(|(r, hp, dp)| {
        move || -> Result<()> {
            r.dtoh(hp, dp, bytes)?;
            r.sync()
        }
    });
    let (f, b) = compare(a.reps, &mut ours, dynamic(&mut theirs))?;
    rows.push(bandwidth_row(
        format!("pinned D2H {} MiB", a.copy_mib),
        gbs(f, bytes),
        b.map(|t| gbs(t, bytes)),
    ));
    if let Some((r, hp, dp)) = raw_bufs {
        r.free(dp)?;
        r.host_free(hp)?;
    }
    drop((host, back, d));

    // Device-to-device: bytes read plus bytes written.
    let bytes = d2d_bytes;
    let src = s.clone_htod(&random_bytes(bytes, 0xd2d, "--d2d-mib")?).context("--d2d-mib")?;
    let mut dst = s.alloc::<u8>(bytes)?;
    s.copy_dtod(&src, &mut dst)?;
    ensure!(s.clone_dtoh(&dst)? == s.clone_dtoh(&src)?, "device-to-device copy returned different bytes");
    let raw_bufs = match &raw {
        Some(r) => Some((r, r.alloc(bytes)?, r.alloc(bytes)?)),
        None => None,
    };
    let mut ours = || -> Result<()> {
        s.copy_dtod(&src, &mut dst)?;
        Ok(s.synchronize()?)
    };
    let mut theirs = raw_bufs.map(|(r, x, y)| {
        move || -> Result<()> {
            r.dtod(y, x, bytes)?;
            r.sync()
        }
    });
    let (f, b) = compare(a.reps, &mut ours, dynamic(&mut theirs))?;
    rows.push(bandwidth_row(
        format!("D2D {} MiB (read+write)", a.d2d_mib),
        gbs(f, 2 * bytes),
        b.map(|t| gbs(t, 2 * bytes)),
    ));
    if let Some((r, x, y)) = raw_bufs {
        r.free(x)?;
        r.free(y)?;
    }
    drop((src, dst));

    // Allocation: pooled allocate+free against the driver's.
    for size in [4usize << 10, 1 << 20, 64 << 20] {
        let k = a.allocs;
        let mut ours = || -> Result<()> {
            for _ in 0..k {
                drop(s.alloc::<u8>(size)?);
            }
            Ok(())
        };
        let mut theirs = raw.as_ref().map(|r| {
            move || -> Result<()> {
                for _ in 0..k {
                    let p = r.alloc(size)?;
                    r.free(p)?;
                }
                Ok(())
            }
        });
        let (f, b) = compare(a.reps, &mut ours, dynamic(&mut theirs))?;
        let (f, b) = (per(f, k), b.map(|b| per(b, k)));
        rows.push(Row {
            bench: "runtime",
            metric: format!("alloc+free {} KiB", size >> 10),
            ferrocm: f,
            baseline: b,
            baseline_name: "cuMemAlloc+cuMemFree",
            unit: "us/pair",
            ratio: b.map(|b| b / f),
            ratio_meaning: "speed-up over the driver",
            target: ">= 10",
        });
    }
    print(&rows, a.json)
}

/// A captured graph computes what its launches compute: an axpy graph replayed three times on
/// fresh random data, against an f64 host reference.
fn check_graph_replay(s: &Stream) -> Result<()> {
    let dev = s.device();
    let axpy: Function = builtin::load(dev)?.function("axpy_f32")?;
    let n = 100_003;
    let as_f32 = |b: Vec<u8>| -> Vec<f32> {
        b.chunks(4).map(|c| (c[0] as f32 - 127.5) / 64.0 + c[1] as f32 / 4096.0).collect()
    };
    let (x, y) = (
        as_f32(random_bytes(4 * n, 0x9a, "graph check")?),
        as_f32(random_bytes(4 * n, 0x9b, "graph check")?),
    );
    let (dx, dy) = (s.clone_htod(&x)?, s.clone_htod(&y)?);
    let mut args = KernelArgs::new();
    args.push_buffer(&dx).push_buffer(&dy).push(n as u64).push(0.5f32);
    // SAFETY: axpy_f32(x, y, n, a) over two live n-element buffers, kept alive by the graph.
    let exec = s
        .capture(|s| unsafe { s.launch(&axpy, LaunchConfig::for_num_elems(n as u32), &args) })?
        .instantiate()?;
    for _ in 0..3 {
        exec.launch(s)?;
    }
    let got = s.clone_dtoh(&dy)?;
    for (i, ((&g, &x), &y)) in got.iter().zip(&x).zip(&y).enumerate() {
        let want = y as f64 + 1.5 * x as f64;
        ensure!(
            (g as f64 - want).abs() <= 1e-5 * (1.0 + want.abs()),
            "graph replay: element {i} is {g}, want {want}"
        );
    }
    Ok(())
}

/// `rounds` round trips between `sa` and `sb` ordered only by the words `fa` and `fb`.
fn memop_ping_pong(
    sa: &Stream,
    sb: &Stream,
    fa: &mut DeviceBuffer<u32>,
    fb: &mut DeviceBuffer<u32>,
    generation: &mut u32,
    rounds: u32,
) -> Result<()> {
    for _ in 0..rounds {
        *generation = generation.wrapping_add(1);
        sa.write_value(fa, *generation)?;
        sb.wait_value(fa, *generation, ferrocm::WaitCondition::Geq)?;
        sb.write_value(fb, *generation)?;
        sa.wait_value(fb, *generation, ferrocm::WaitCondition::Geq)?;
    }
    Ok(sa.synchronize()?)
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

fn event_row(metric: &str, ferrocm: f64) -> Row {
    Row {
        bench: "runtime",
        metric: metric.into(),
        ferrocm,
        baseline: None,
        baseline_name: "",
        unit: "us/call",
        ratio: None,
        ratio_meaning: "",
        target: "",
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
