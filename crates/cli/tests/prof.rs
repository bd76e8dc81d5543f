//! `ferrocm prof` end to end: the real CLI runs a real program built on ferrocm (this test
//! binary itself, re-run with `FERROCM_PROF_TEST_WORKLOAD` set, which does a known sequence of
//! runtime calls on the default device), and every file it writes is parsed back (CSV with the
//! `csv` crate, JSON with `serde_json`) and checked against what the program did: every launch,
//! copy, allocation and API call, in order, with non-overlapping events on each track.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ferrocm::{builtin, Device, KernelArgs, LaunchConfig};

const WORKLOAD: &str = "FERROCM_PROF_TEST_WORKLOAD";
const N: usize = 1000;
/// Typed launches of the "typed" workload: more than a batch of timed kernels (256).
const TYPED: usize = 300;

/// The kernel-language kernel of the "typed" workload.
#[ferrocm_kernel::kernel]
fn add_one(x: &mut [f32]) {
    let i = ferrocm_kernel::prelude::global_index();
    if i < x.len() {
        x[i] = x[i] + 1.0f32;
    }
}
const LAUNCHES: usize = 5;

/// The program under the profiler (runs only when re-run with `WORKLOAD` set).
#[test]
fn workload() {
    let Ok(mode) = std::env::var(WORKLOAD) else { return };
    let dev = Device::default_device().unwrap();
    let s = dev.create_stream().unwrap();
    let axpy = builtin::load(&dev).unwrap().function("axpy_f32").unwrap();
    let x: Vec<f32> = (0..N).map(|i| i as f32 * 0.5).collect();
    if mode == "typed" {
        let mut z = s.clone_htod(&x).unwrap();
        for _ in 0..TYPED {
            add_one::launch(&s, LaunchConfig::for_num_elems(N as u32), &mut z).unwrap();
        }
        let z = s.clone_dtoh(&z).unwrap();
        assert!(z.iter().zip(&x).all(|(z, x)| *z == x + TYPED as f32));
        return;
    }
    let dx = s.clone_htod(&x).unwrap();
    let dy = s.alloc_zeroed::<f32>(N).unwrap();
    for _ in 0..LAUNCHES {
        let mut args = KernelArgs::new();
        args.push_buffer(&dx).push_buffer(&dy).push(N as u64).push(1.0f32);
        // SAFETY: axpy_f32(x, y, n, a) with two live N-element buffers.
        unsafe { s.launch(&axpy, LaunchConfig::for_num_elems(N as u32), &args).unwrap() };
    }
    let y = s.clone_dtoh(&dy).unwrap();
    assert!(y.iter().zip(&x).all(|(y, x)| *y == LAUNCHES as f32 * x));
    match mode.as_str() {
        "exit3" => std::process::exit(3),
        "panic" => panic!("the workload panics on purpose"),
        _ => {}
    }
}

fn ferrocm() -> PathBuf {
    let built = PathBuf::from(env!("CARGO_BIN_EXE_ferrocm"));
    // On the GPU machine the binaries are staged elsewhere, on PATH.
    if built.exists() {
        built
    } else {
        PathBuf::from("ferrocm")
    }
}

fn profile(dir: &Path, mode: &str, flags: &[&str]) -> Output {
    let me = std::env::current_exe().unwrap();
    Command::new(ferrocm())
        .arg("prof")
        .args(flags)
        .arg("-d")
        .arg(dir)
        .args(["-o", "w", "--ceilings"])
        .arg(dir.join("no-ceilings.json"))
        .arg("--")
        .arg(me)
        .args(["workload", "--exact", "--nocapture", "--test-threads", "1"])
        .env(WORKLOAD, mode)
        .output()
        .unwrap()
}

type Rows = Vec<HashMap<String, String>>;

/// Parses a CSV file, checking its header; rows as column -> value.
fn read(dir: &Path, file: &str, columns: &[&str]) -> Rows {
    let path = dir.join(format!("w_{file}"));
    let mut r = csv::Reader::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header, columns, "{file} header");
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            header.iter().cloned().zip(rec.iter().map(String::from)).collect()
        })
        .collect()
}

fn num(row: &HashMap<String, String>, col: &str) -> u64 {
    row[col].parse().unwrap_or_else(|_| panic!("{col} = {:?} is not a number", row[col]))
}

/// Complete events of one track either follow each other or nest, never partly overlap. Times
/// are whole nanoseconds written as microseconds; f64 sums at ~1e10 us round by picoseconds, so a
/// real overlap is one of at least 1 ns (half of that is the tolerance).
fn check_nesting(events: &[(f64, f64)], what: &str) {
    const TOL: f64 = 5e-4;
    let mut ev = events.to_vec();
    ev.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    let mut open: Vec<f64> = Vec::new();
    for (ts, dur) in ev {
        while open.last().is_some_and(|&end| end <= ts + TOL) {
            open.pop();
        }
        if let Some(&end) = open.last() {
            assert!(
                ts + dur <= end + TOL,
                "{what}: an event at {ts} us partly overlaps one ending at {end} us"
            );
        }
        open.push(ts + dur);
    }
}

#[test]
fn traces_every_call_of_a_real_program() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let out = profile(dir, "ok", &["--runtime-trace", "--stats", "--output-format", "csv,json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");

    let kernels = read(dir, "kernel_trace.csv", ferrocm_prof::KERNEL_TRACE_COLUMNS);
    let copies = read(dir, "memory_copy_trace.csv", ferrocm_prof::MEMORY_COPY_TRACE_COLUMNS);
    let allocs = read(dir, "memory_allocation_trace.csv", ferrocm_prof::MEMORY_ALLOCATION_TRACE_COLUMNS);
    let api = read(dir, "hip_api_trace.csv", ferrocm_prof::API_TRACE_COLUMNS);

    // API calls, in order, one thread, never overlapping.
    let names: Vec<&str> = api.iter().map(|r| r["Function"].as_str()).collect();
    let mut want = vec![
        "Device::default_device",
        "Device::create_stream",
        "Device::load_module",
        "Module::function",
        "Stream::clone_htod",
        "Stream::alloc_zeroed",
    ];
    want.extend(["Stream::launch"; LAUNCHES]);
    want.extend(["Stream::clone_dtoh", "DeviceBuffer::drop", "DeviceBuffer::drop"]);
    assert_eq!(names, want);
    for w in api.windows(2) {
        assert!(num(&w[0], "End_Timestamp") <= num(&w[1], "Start_Timestamp"), "{w:?}");
        assert!(num(&w[0], "Correlation_Id") < num(&w[1], "Correlation_Id"));
    }
    let api_of: HashMap<u64, &str> =
        api.iter().map(|r| (num(r, "Correlation_Id"), r["Function"].as_str())).collect();

    // Kernels: the memset of alloc_zeroed, then the launches, in dispatch order.
    let kn: Vec<&str> = kernels.iter().map(|r| r["Kernel_Name"].as_str()).collect();
    let mut want = vec!["__ferrocm_memset"];
    want.extend(["axpy_f32"; LAUNCHES]);
    assert_eq!(kn, want);
    let blocks = N.div_ceil(256) as u64;
    for (i, r) in kernels.iter().enumerate() {
        assert_eq!(r["Kind"], "KERNEL_DISPATCH");
        assert!(num(r, "Start_Timestamp") <= num(r, "End_Timestamp"));
        if i > 0 {
            assert_eq!(api_of[&num(r, "Correlation_Id")], "Stream::launch");
            assert_eq!((num(r, "Grid_Size_X"), num(r, "Workgroup_Size_X")), (blocks * 256, 256));
            assert_eq!(num(r, "Kernel_Id"), 2, "axpy is the second distinct kernel");
            let prev = &kernels[i - 1];
            assert!(num(r, "Dispatch_Id") > num(prev, "Dispatch_Id"));
            assert!(num(r, "Start_Timestamp") >= num(prev, "End_Timestamp"), "overlap on one stream");
        } else {
            assert_eq!(api_of[&num(r, "Correlation_Id")], "Stream::alloc_zeroed");
        }
    }
    // Copies: the upload before the memset and launches, the download after them.
    let dirs: Vec<&str> = copies.iter().map(|r| r["Direction"].as_str()).collect();
    assert_eq!(dirs, ["MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST"]);
    assert!(copies.iter().all(|r| num(r, "Bytes") == (N * 4) as u64));
    assert!(num(&copies[0], "End_Timestamp") <= num(&kernels[0], "Start_Timestamp"));
    assert!(num(&copies[1], "Start_Timestamp") >= num(&kernels[LAUNCHES], "End_Timestamp"));
    assert_eq!(api_of[&num(&copies[1], "Correlation_Id")], "Stream::clone_dtoh");
    // Allocations: two pooled buffers, both freed.
    let ops: Vec<(&str, &str)> =
        allocs.iter().map(|r| (r["Operation"].as_str(), r["Memory_Kind"].as_str())).collect();
    assert_eq!(
        ops,
        [
            ("MEMORY_ALLOCATION_ALLOCATE", "POOLED"),
            ("MEMORY_ALLOCATION_ALLOCATE", "POOLED"),
            ("MEMORY_ALLOCATION_FREE", "POOLED"),
            ("MEMORY_ALLOCATION_FREE", "POOLED")
        ]
    );

    // Stats against the trace rows, computed here independently.
    let stats = read(dir, "kernel_stats.csv", ferrocm_prof::STATS_COLUMNS);
    let axpy = stats.iter().find(|r| r["Name"] == "axpy_f32").expect("axpy row");
    let durs: Vec<u64> =
        kernels[1..].iter().map(|r| num(r, "End_Timestamp") - num(r, "Start_Timestamp")).collect();
    assert_eq!(num(axpy, "Calls"), LAUNCHES as u64);
    assert_eq!(num(axpy, "TotalDurationNs"), durs.iter().sum::<u64>());
    assert_eq!(
        (num(axpy, "MinNs"), num(axpy, "MaxNs")),
        (*durs.iter().min().unwrap(), *durs.iter().max().unwrap())
    );
    let pct: f64 = stats.iter().map(|r| r["Percentage"].parse::<f64>().unwrap()).sum();
    assert!((pct - 100.0).abs() < 1e-3, "percentages add up to {pct}");
    let api_stats = read(dir, "hip_api_stats.csv", ferrocm_prof::STATS_COLUMNS);
    assert_eq!(api_stats.iter().find(|r| r["Name"] == "Stream::launch").map(|r| num(r, "Calls")), Some(5));
    read(dir, "roofline.csv", ferrocm_prof::ROOFLINE_COLUMNS);
    assert!(stdout.contains("Kernels (by total time)") && stdout.contains("axpy_f32"), "{stdout}");

    // The trace-event JSON: one track per host thread and per stream, properly nested.
    let text = std::fs::read_to_string(dir.join("w_results.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = json["traceEvents"].as_array().unwrap();
    let mut tracks: HashMap<(u64, u64), Vec<(f64, f64)>> = HashMap::new();
    let mut complete = 0;
    for e in events {
        if e["ph"] == "X" {
            complete += 1;
            let key = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
            tracks.entry(key).or_default().push((e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap()));
        }
    }
    assert_eq!(complete, api.len() + kernels.len() + copies.len());
    assert_eq!(tracks.len(), 2, "one host thread and one stream: {:?}", tracks.keys());
    for (k, ev) in &tracks {
        check_nesting(ev, &format!("track {k:?}"));
    }
    let names: Vec<&str> =
        events.iter().filter(|e| e["ph"] == "M").filter_map(|e| e["args"]["name"].as_str()).collect();
    assert!(
        names.iter().any(|n| n.starts_with("stream ")) && names.iter().any(|n| n.starts_with("host thread "))
    );
}

#[test]
fn error_exits_still_write_the_trace() {
    for (mode, code) in [("exit3", 3), ("panic", 101)] {
        let tmp = tempfile::tempdir().unwrap();
        let out = profile(tmp.path(), mode, &["--kernel-trace"]);
        assert_eq!(out.status.code(), Some(code), "{mode}: {out:?}");
        let kernels = read(tmp.path(), "kernel_trace.csv", ferrocm_prof::KERNEL_TRACE_COLUMNS);
        assert_eq!(kernels.len(), LAUNCHES + 1, "{mode}");
        assert!(!tmp.path().join("w_hip_api_trace.csv").exists(), "only what was asked for is written");
    }
}

/// Kernel-language kernels time themselves under `--kernel-trace` (their timed variant, no
/// events): every launch is in the trace, in order, inside the program's API calls, without
/// overlap, including the last batch, which only the tracer's exit handler ends.
#[test]
fn typed_kernels_are_traced_from_their_own_timers() {
    let tmp = tempfile::tempdir().unwrap();
    let out = profile(tmp.path(), "typed", &["--kernel-trace", "--api-trace"]);
    assert!(out.status.success(), "{out:?}");
    let kernels = read(tmp.path(), "kernel_trace.csv", ferrocm_prof::KERNEL_TRACE_COLUMNS);
    let api = read(tmp.path(), "hip_api_trace.csv", ferrocm_prof::API_TRACE_COLUMNS);
    let launches: Vec<_> = api.iter().filter(|r| r["Function"] == "Stream::launch").collect();
    assert_eq!(kernels.len(), TYPED, "one record per launch");
    assert_eq!(launches.len(), TYPED);
    let blocks = N.div_ceil(256) as u64;
    for (i, (k, a)) in kernels.iter().zip(&launches).enumerate() {
        assert_eq!(k["Kernel_Name"], "add_one");
        assert_eq!((num(k, "Grid_Size_X"), num(k, "Workgroup_Size_X")), (blocks * 256, 256));
        assert_eq!(num(k, "Correlation_Id"), num(a, "Correlation_Id"), "launch {i}");
        assert!(num(k, "Start_Timestamp") <= num(k, "End_Timestamp"));
        if i > 0 {
            let prev = &kernels[i - 1];
            assert!(num(k, "Dispatch_Id") > num(prev, "Dispatch_Id"));
            assert!(num(k, "Start_Timestamp") >= num(prev, "End_Timestamp"), "overlap on one stream");
        }
    }
    // A kernel runs after its launch was called (the anchor places device times to within
    // half a launch round trip; a millisecond covers a loaded CPU machine).
    let first = num(launches[0], "Start_Timestamp");
    assert!(num(&kernels[0], "Start_Timestamp") + 1_000_000 >= first);
}

/// Misuse of the CLI: each case names what was wrong, and nothing is run or written.
#[test]
fn misuse_is_refused_with_a_reason() {
    let cases: &[(&[&str], &str)] = &[
        (&["--", "true"], "nothing to trace"),
        (&["--kernel-trace"], "no program to run"),
        (&["--kernel-trace", "--output-format", "pftrace", "--", "true"], "unknown output format `pftrace`"),
        (&["--kernel-trace", "--output-format", "", "--", "true"], "unknown output format"),
        (&["--kernel-trace", "--", "/nonexistent/program"], "could not start /nonexistent/program"),
        (&["--calibrate", "--", "true"], "runs no program"),
    ];
    for (args, want) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let out = Command::new(ferrocm()).arg("prof").arg("-d").arg(tmp.path()).args(*args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "{args:?} wrote files");
    }
}
