//! Kernel tracing of kernel-language launches, on every backend: with kernels traced, a typed
//! launch runs the kernel's timed variant, which records its own device start and end in a
//! timing slot (no timing events). Each case checks the records of its own thread against
//! the host clock read around the launches, the kernel's own timer readings, the API records
//! and a host reference of what the kernel computes.

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use ferrocm_kernel::prelude::*;
use ferrocm_kernel::runtime::trace::{self, DeviceActivity, DeviceOp, Record, TraceConfig, Tracer};
use ferrocm_kernel::runtime::BackendKind;
use ferrocm_kernel::{dims, HostArgs};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Runs `case` on the first device of `kind`; a missing GPU fails under `FERROCM_REQUIRE_GPU=1`.
fn on_backend(kind: BackendKind, case: fn(&Device) -> TestResult) {
    let devices = Device::of_kind(kind);
    let Some(device) = devices.first() else {
        assert!(
            !(kind == BackendKind::Cuda && std::env::var("FERROCM_REQUIRE_GPU").is_ok_and(|v| v == "1")),
            "FERROCM_REQUIRE_GPU=1 but no CUDA device"
        );
        return;
    };
    if let Err(e) = case(device) {
        panic!("{kind} device {}: {e}", device.properties().name);
    }
}

macro_rules! on_every_backend {
    ($($name:ident($dev:ident) $body:block)*) => {$(
        mod $name {
            use super::*;
            fn case($dev: &Device) -> TestResult $body
            #[test]
            fn cpu() { on_backend(BackendKind::Cpu, case) }
            #[test]
            fn cuda() { on_backend(BackendKind::Cuda, case) }
        }
    )*};
}

struct Collect(Mutex<Vec<Record>>);

fn records() -> &'static Collect {
    static C: OnceLock<&'static Collect> = OnceLock::new();
    C.get_or_init(|| {
        let c: &'static Collect = Box::leak(Box::new(Collect(Mutex::default())));
        struct Fwd(&'static Collect);
        impl Tracer for Fwd {
            fn record(&self, r: Record) {
                self.0 .0.lock().unwrap().push(r)
            }
        }
        trace::install(Box::new(Fwd(c)), TraceConfig::all()).expect("the only tracer of this binary");
        c
    })
}

/// This thread's `Stream::launch` API records (correlation, start, end) and kernel activities,
/// each in order.
fn mine() -> (Vec<(u64, u64, u64)>, Vec<DeviceActivity>) {
    trace::flush(Duration::from_secs(30));
    let me = trace::thread_id();
    let all = records().0.lock().unwrap();
    let mut api = Vec::new();
    let mut dev = Vec::new();
    for r in all.iter() {
        match r {
            Record::Api(a) if a.thread == me && a.name == "Stream::launch" => {
                api.push((a.correlation, a.start_ns, a.end_ns))
            }
            Record::Device(d) if d.thread == me && matches!(d.op, DeviceOp::Kernel(_)) => dev.push(d.clone()),
            _ => {}
        }
    }
    api.sort_by_key(|a| a.0);
    dev.sort_by_key(|d| d.dispatch);
    (api, dev)
}

/// Thread 0 of each block waits until the device timer has advanced `ns` nanoseconds, and
/// writes what it measured to `out[block]`.
#[kernel]
fn spin_for(ns: u64, out: &mut [u64]) {
    if thread_idx_x() == 0u32 {
        let t0 = global_timer();
        let mut now = global_timer();
        while now - t0 < ns {
            now = global_timer();
        }
        out[block_idx_x() as usize] = now - t0;
    }
}

/// Several ways out: past the end, early for multiples of 3, inside a loop for long Collatz
/// walks, and at the end of the body.
#[kernel]
fn many_exits(x: &[u32], y: &mut [u32]) {
    let i = global_index();
    if i >= y.len() {
        return;
    }
    let v = x[i];
    if v % 3u32 == 0u32 {
        y[i] = v * 2u32;
        return;
    }
    let mut k = v;
    let mut n = 0u32;
    while k > 1u32 {
        if k % 2u32 == 0u32 {
            k = k / 2u32;
        } else {
            k = 3u32 * k + 1u32;
        }
        n += 1u32;
        if n > 40u32 {
            y[i] = 1000u32 + n;
            return;
        }
    }
    y[i] = n;
}

fn many_exits_reference(x: &[u32]) -> Vec<u32> {
    x.iter()
        .map(|&v| {
            if v % 3 == 0 {
                return v.wrapping_mul(2);
            }
            let (mut k, mut n) = (v as u64, 0u32);
            while k > 1 {
                k = if k % 2 == 0 { k / 2 } else { 3 * k + 1 };
                n += 1;
                if n > 40 {
                    return 1000 + n;
                }
            }
            n
        })
        .collect()
}

/// How far a device time may lie outside the host window around it: the anchor that maps the
/// device timer onto the host clock is read to within half its round trip (a launch and a
/// synchronize on an idle stream; on this shared CPU machine, up to about a millisecond).
const PLACEMENT_NS: u64 = 2_000_000;

on_every_backend! {
    a_traced_launch_times_itself(dev) {
        records();
        let s = dev.create_stream()?;
        let mut out = s.alloc::<u64>(3)?;
        let spin = 300_000u64;
        // Warm up: compile, load, first anchor.
        spin_for::launch(&s, LaunchConfig::new(3, 64), 1_000u64, &mut out)?;
        s.synchronize()?;
        let before = trace::now_ns();
        spin_for::launch(&s, LaunchConfig::new(3, 64), spin, &mut out)?;
        s.synchronize()?;
        let after = trace::now_ns();
        let measured = s.clone_dtoh(&out)?;
        let (api, dev_records) = mine();
        let k = dev_records.last().ok_or("no kernel record")?;
        let DeviceOp::Kernel(kernel) = &k.op else { unreachable!() };
        assert_eq!(&*kernel.name, "spin_for");
        assert_eq!(kernel.grid, [3, 1, 1]);
        assert!(measured.iter().all(|&m| m >= spin), "the kernel spun {measured:?}");
        assert!(k.end_ns - k.start_ns >= spin, "duration {} ns < the {spin} ns spin", k.end_ns - k.start_ns);
        assert!(
            k.start_ns + PLACEMENT_NS >= before && k.end_ns <= after + PLACEMENT_NS,
            "kernel {}..{} outside the host window {before}..{after}",
            k.start_ns,
            k.end_ns
        );
        let launch = api.iter().find(|a| a.0 == k.correlation).ok_or("no API record with the kernel's correlation id")?;
        assert!(launch.1 >= before && launch.2 <= after);
        let c = trace::counts();
        assert!(c.slot_timed >= 2, "no launch was timed by its slot: {c:?}");
        Ok(())
    }

    many_launches_each_get_their_record(dev) {
        records();
        let s = dev.create_stream()?;
        let mut out = s.alloc::<u64>(2)?;
        let spin = 20_000u64;
        spin_for::launch(&s, LaunchConfig::new(2, 32), spin, &mut out)?;
        s.synchronize()?;
        let (_, earlier) = mine();
        let before_counts = trace::counts();
        // More than a batch (256 launches), so batches close on their own as well as at flush.
        let n = 300;
        let before = trace::now_ns();
        for _ in 0..n {
            spin_for::launch(&s, LaunchConfig::new(2, 32), spin, &mut out)?;
        }
        s.synchronize()?;
        let after = trace::now_ns();
        let (api, all) = mine();
        let dev_records: Vec<_> = all.into_iter().filter(|d| d.dispatch > earlier.last().map_or(0, |e| e.dispatch)).collect();
        assert_eq!(dev_records.len(), n, "one record per launch, none lost");
        let after_counts = trace::counts();
        assert!(after_counts.slot_timed - before_counts.slot_timed >= n as u64, "{before_counts:?} -> {after_counts:?}");
        let mut last_end = 0;
        for d in &dev_records {
            assert!(d.end_ns - d.start_ns >= spin, "{d:?} is shorter than the spin");
            assert!(d.start_ns >= last_end, "{d:?} starts before the previous launch ended ({last_end})");
            assert!(d.start_ns + PLACEMENT_NS >= before && d.end_ns <= after + PLACEMENT_NS, "{d:?} outside {before}..{after}");
            last_end = d.end_ns;
            let launch = api.iter().find(|a| a.0 == d.correlation).ok_or("a kernel without its API record")?;
            assert!(launch.1 >= before && launch.2 <= after, "{launch:?}");
        }
        // Records come in launch order, one correlation id each.
        let ids: Vec<u64> = dev_records.iter().map(|d| d.correlation).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "correlation ids out of order: {ids:?}");
        Ok(())
    }

    threads_on_their_own_streams_each_get_every_record(dev) {
        records();
        let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..3)
                .map(|t| {
                    scope.spawn(move || -> Result<(), String> {
                        let s = dev.create_stream().map_err(|e| e.to_string())?;
                        let mut out = s.alloc::<u64>(1).map_err(|e| e.to_string())?;
                        let n = 120 + 40 * t;
                        for _ in 0..n {
                            spin_for::launch(&s, LaunchConfig::new(1, 32), 5_000u64, &mut out).map_err(|e| e.to_string())?;
                        }
                        s.synchronize().map_err(|e| e.to_string())?;
                        let (api, recs) = mine();
                        if recs.len() != n || api.len() != n {
                            return Err(format!("thread {t}: {} records and {} launches for {n} ({:?})", recs.len(), api.len(), trace::counts()));
                        }
                        for (r, a) in recs.iter().zip(&api) {
                            if r.correlation != a.0 || r.end_ns - r.start_ns < 5_000 {
                                return Err(format!("thread {t}: {r:?} against launch {a:?}"));
                            }
                        }
                        if recs.windows(2).any(|w| w[1].start_ns < w[0].end_ns || w[1].stream != w[0].stream) {
                            return Err(format!("thread {t}: records overlap or change stream"));
                        }
                        Ok(())
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        for r in results {
            r?;
        }
        Ok(())
    }

    timed_launches_compute_what_the_kernel_computes(dev) {
        records();
        let s = dev.create_stream()?;
        let n = 1000usize;
        let x: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) % 100_000).collect();
        let dx = s.clone_htod(&x)?;
        let mut dy = s.alloc::<u32>(n)?;
        // Counted before the launch: the collector may deliver its record as soon as the copy
        // back has waited for it, before this thread reads the counts again.
        let c = trace::counts();
        many_exits::launch(&s, LaunchConfig::new(8, 128), &dx, &mut dy)?;
        assert_eq!(s.clone_dtoh(&dy)?, many_exits_reference(&x));
        let (_, recs) = mine();
        assert!(recs.iter().any(|d| matches!(&d.op, DeviceOp::Kernel(k) if &*k.name == "many_exits")));
        assert!(trace::counts().slot_timed > c.slot_timed, "the launch was not timed by its slot");
        Ok(())
    }
}

/// On the executor over host memory: the timed variant computes what the kernel computes
/// (every exit path taken), and fills its slot with a start no later than its end.
#[test]
fn timed_variant_matches_on_the_executor() {
    let n = 777usize;
    let x: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(40_503) % 10_000).collect();
    let want = many_exits_reference(&x);
    let k = many_exits::kernel().unwrap();
    let t = k.timed().unwrap();
    assert_eq!(t.ir().params.len(), k.ir().params.len() + 1);
    let launch = dims(7, 128, 0);
    let mut y = vec![0u32; n];
    many_exits::launch_host(launch, &x, &mut y).unwrap();
    assert_eq!(y, want, "plain");
    let mut y2 = vec![0u32; n];
    let mut slot = vec![0u64; ferrocm_kernel::ir::timed::TIMING_SLOT_WORDS];
    let before = trace::now_ns();
    let mut args = HostArgs::default();
    args.push(&x[..]).push(&mut y2[..]).push(&mut slot[..]);
    t.launch_host(launch, &args).unwrap();
    drop(args);
    let after = trace::now_ns();
    assert_eq!(y2, want, "timed");
    let (start, end) = ferrocm_kernel::ir::timed::read_timing_slot(&slot).expect("the slot was written");
    assert!(before <= start && start <= end && end <= after, "{before} <= {start} <= {end} <= {after}");
}

/// The timed variant's PTX reads the timer and folds it with 64-bit atomic maxima (the first
/// thread of each block only); the kernel's own PTX has none of it.
#[test]
fn timed_ptx_reads_the_global_timer() {
    let k = many_exits::kernel().unwrap();
    let plain = k.ptx("sm_90a").unwrap();
    let timed = k.timed().unwrap().ptx("sm_90a").unwrap();
    assert!(!plain.contains("globaltimer") && !plain.contains("%smid"));
    assert!(timed.contains("%globaltimer") && timed.contains("%smid"));
    // One entry fold and one per exit (three returns and the end of the body).
    assert_eq!(timed.matches("atom.global.max.u64").count(), 5, "{timed}");
}
