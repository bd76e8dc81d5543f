//! `ferrocm smi` end to end: every view parses back as JSON and as CSV, devices are numbered
//! as `ferrocm info` numbers them, `monitor` streams the samples asked for, a missing NVML is
//! one line with the CPU devices still shown, and, where a GPU is present, the values agree
//! with `nvidia-smi` read in the same test and the visible-devices variables are honoured.
//! With `FERROCM_REQUIRE_GPU=1`, a missing NVML or nvidia-smi fails.

use std::process::{Command, Output};

use serde_json::Value as Json;

fn ferrocm() -> Command {
    match option_env!("CARGO_BIN_EXE_ferrocm").filter(|p| std::path::Path::new(p).exists()) {
        Some(p) => Command::new(p),
        None => Command::new("ferrocm"),
    }
}

fn require_gpu() -> bool {
    std::env::var("FERROCM_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = ferrocm();
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run ferrocm");
    assert!(
        out.status.success(),
        "ferrocm {args:?} {env:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(args: &[&str], env: &[(&str, &str)]) -> Json {
    let out = run(args, env);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

fn csv_records(args: &[&str], env: &[(&str, &str)]) -> (Vec<String>, Vec<Vec<String>>) {
    let out = run(args, env);
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    let header = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r.records().map(|x| x.unwrap().iter().map(str::to_string).collect()).collect();
    (header, rows)
}

const CPU3: &[(&str, &str)] = &[("FERROCM_CPU_DEVICES", "3")];

#[test]
fn every_view_as_json_and_csv() {
    for (view, table) in [
        ("", "devices"),
        ("static", "devices"),
        ("metric", "devices"),
        ("process", "processes"),
        ("topology", "links"),
    ] {
        let args: Vec<&str> = ["smi", view].into_iter().filter(|a| !a.is_empty()).collect();
        let j = json(&[args.as_slice(), &["--json"]].concat(), CPU3);
        assert!(j["nvml"]["available"].is_boolean(), "{view}: {j}");
        let rows = j[table].as_array().unwrap_or_else(|| panic!("{view}: no {table} in {j}"));
        let (header, records) = csv_records(&[args.as_slice(), &["--csv"]].concat(), CPU3);
        if let Some(first) = rows.first() {
            let keys: Vec<&String> = first.as_object().unwrap().keys().collect();
            assert_eq!(header.iter().collect::<Vec<_>>(), keys, "{view}: CSV header and JSON keys");
        }
        // Device rows: the same devices in the same order in both.
        if table == "devices" {
            let ids: Vec<String> = rows.iter().map(|r| r["device"].to_string()).collect();
            let csv_ids: Vec<String> = records.iter().map(|r| r[0].clone()).collect();
            assert_eq!(ids, csv_ids, "{view}");
        }
        if table == "links" {
            let n = json(&["info", "--json"], CPU3)["devices"].as_array().unwrap().len();
            assert_eq!(records.len(), n * (n - 1), "every ordered pair");
        }
    }
}

#[test]
fn numbered_as_ferrocm_info() {
    let info = json(&["info", "--json"], CPU3);
    let smi = json(&["smi", "static", "--json"], CPU3);
    let ids = |v: &Json, index: &str| -> Vec<(u64, String, String)> {
        v["devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d[index].as_u64().unwrap(),
                    d["uuid"].as_str().unwrap().to_string(),
                    d["name"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let devices = ids(&info, "index");
    assert_eq!(ids(&smi, "device"), devices);
    // Selection by UUID, by index, in the order given.
    let last = devices.last().unwrap();
    let by_uuid = json(&["smi", "metric", "--json", "-d", &last.1], CPU3);
    assert_eq!(by_uuid["devices"].as_array().unwrap().len(), 1);
    assert_eq!(by_uuid["devices"][0]["device"], last.0);
    let order = json(&["smi", "--json", "-d", &format!("{},0", last.0)], CPU3);
    let got: Vec<u64> =
        order["devices"].as_array().unwrap().iter().map(|d| d["device"].as_u64().unwrap()).collect();
    assert_eq!(got, [last.0, 0]);
}

#[test]
fn monitor_streams_the_samples_asked_for() {
    let n = json(&["info", "--json"], CPU3)["devices"].as_array().unwrap().len();
    let (header, rows) = csv_records(&["smi", "monitor", "-w", "0.1", "-c", "3", "--csv"], CPU3);
    assert_eq!(header[..2], ["time_s", "device"]);
    assert_eq!(rows.len(), 3 * n);
    let times: Vec<f64> = rows.iter().step_by(n).map(|r| r[0].parse().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[1] >= w[0] + 0.05), "{times:?}");
    let lines = run(&["smi", "monitor", "--watch", "0.1", "--count", "2", "--json", "-d", "0"], CPU3).stdout;
    let samples: Vec<Json> =
        String::from_utf8(lines).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(samples.len(), 2);
    assert!(samples.iter().all(|s| s["device"] == 0 && s["time_s"].is_number()));
    let text = String::from_utf8(run(&["smi", "monitor", "-c", "2", "-w", "0.1"], CPU3).stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("Time") && lines[0].contains("Power"), "{text}");
    assert_eq!(lines.len(), 1 + 2 * n, "{text}");
}

#[test]
fn nvml_status_line_and_cpu_devices() {
    let j = json(&["smi", "--json"], &[]);
    let available = j["nvml"]["available"].as_bool().unwrap();
    assert!(available || !require_gpu(), "FERROCM_REQUIRE_GPU=1 but NVML is not available: {}", j["nvml"]);
    let text = String::from_utf8(run(&["smi"], &[]).stdout).unwrap();
    let first = text.lines().next().unwrap();
    if available {
        let driver = j["nvml"]["driver_version"].as_str().unwrap();
        assert!(first.starts_with("NVML ") && first.contains(&format!("driver {driver}")), "{first}");
    } else {
        assert!(
            first.starts_with("NVML not available (cannot open the NVIDIA management library"),
            "{first}"
        );
        // CSV keeps stdout for data and says it on stderr.
        let out = run(&["smi", "--csv"], &[]);
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("note: NVML not available"));
    }
    // The CPU device is there either way.
    let cpu =
        j["devices"].as_array().unwrap().iter().find(|d| d["name"].as_str().unwrap().starts_with("CPU 0"));
    let cpu = cpu.unwrap_or_else(|| panic!("no CPU device in {j}"));
    let used = cpu["memory_used_percent"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&used), "{used}");
    assert!(text.contains("CPU 0"), "{text}");
}

/// `nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits`, or `None` without NVIDIA.
fn nvidia_smi(fields: &str) -> Option<Vec<Vec<String>>> {
    let out = Command::new("nvidia-smi")
        .args([&format!("--query-gpu={fields}"), "--format=csv,noheader,nounits"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    let Some(out) = out else {
        assert!(!require_gpu(), "FERROCM_REQUIRE_GPU=1 but nvidia-smi cannot be run");
        return None;
    };
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split(", ").map(|f| f.trim().to_string()).collect())
            .collect(),
    )
}

#[test]
fn gpus_against_nvidia_smi() {
    const LIVE: &str = "uuid,utilization.gpu,power.draw";
    let Some(gpus) = nvidia_smi("uuid,name,pci.bus_id,memory.total,enforced.power.limit") else { return };
    let stat = json(&["smi", "static", "--json"], &[]);
    // Live readings move while the three commands run (an H100 settling to idle drops from
    // about 120 W to 70 W within a second), so nvidia-smi is read just before and just after.
    let before = nvidia_smi(LIVE).unwrap();
    let metric = json(&["smi", "metric", "--json"], &[]);
    let after = nvidia_smi(LIVE).unwrap();
    let devices = |v: &Json| v["devices"].as_array().unwrap().clone();
    let cuda: Vec<Json> = devices(&stat).into_iter().filter(|d| d["backend"] == "cuda").collect();
    assert_eq!(cuda.len(), gpus.len(), "ferrocm smi shows every GPU nvidia-smi shows");
    for g in &gpus {
        let s =
            cuda.iter().find(|d| d["uuid"] == g[0].as_str()).unwrap_or_else(|| panic!("{} not shown", g[0]));
        assert_eq!(s["name"], g[1].as_str());
        assert_eq!(s["pci_bus_id"], g[2].as_str());
        assert_eq!(
            s["memory_total_bytes"].as_u64().map(|b| b >> 20),
            g[3].parse::<u64>().ok(),
            "memory.total"
        );
        if let Ok(limit) = g[4].parse::<f64>() {
            assert!((s["power_limit_w"].as_f64().unwrap() - limit).abs() < 0.01, "power limit {limit}: {s}");
        }
        let m = devices(&metric).into_iter().find(|d| d["device"] == s["device"]).unwrap();
        let live = |rows: &Vec<Vec<String>>, i: usize| {
            rows.iter().find(|r| r[0] == g[0]).and_then(|r| r[i].parse::<f64>().ok())
        };
        for (i, key, tolerance) in [(1, "utilization_percent", 10.0f64), (2, "power_w", 15.0)] {
            let (Some(a), Some(b)) = (live(&before, i), live(&after, i)) else { continue };
            let ours = m[key].as_f64().unwrap_or_else(|| panic!("{key}: {m}"));
            let (low, high) = (a.min(b), a.max(b));
            let slack = tolerance.max(0.15 * high);
            assert!(
                ours >= low - slack && ours <= high + slack,
                "{key}: ours {ours}, nvidia-smi {a} before and {b} after"
            );
        }
    }
    // The same identity through CSV.
    let (header, rows) = csv_records(&["smi", "static", "--csv"], &[]);
    let col = |k: &str| header.iter().position(|h| h == k).unwrap();
    for g in &gpus {
        let row = rows.iter().find(|r| r[col("uuid")] == g[0]).unwrap();
        assert_eq!(row[col("pci_bus_id")], g[2]);
    }
}

#[test]
fn visible_devices_are_honoured() {
    let Some(gpus) = nvidia_smi("uuid") else { return };
    let Some(first) = gpus.first().map(|g| g[0].clone()) else { return };
    let cuda = |v: &Json| -> Vec<String> {
        v["devices"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["backend"] == "cuda")
            .map(|d| d["uuid"].as_str().unwrap().to_string())
            .collect()
    };
    // The driver applies CUDA_VISIBLE_DEVICES; NVML does not, so smi keeps to the UUIDs the
    // runtime sees.
    let only = json(&["smi", "static", "--json"], &[("CUDA_VISIBLE_DEVICES", &first)]);
    assert_eq!(cuda(&only), std::slice::from_ref(&first));
    assert_eq!(only["devices"][0]["uuid"], first.as_str(), "GPUs first");
    let none = json(&["smi", "static", "--json"], &[("CUDA_VISIBLE_DEVICES", "-1")]);
    assert!(cuda(&none).is_empty(), "{none}");
    let notices = none["notices"].to_string();
    assert!(
        notices.contains(&format!("NVML sees {} GPU(s) that ferrocm does not number", gpus.len())),
        "{notices}"
    );
    let hip = json(&["smi", "static", "--json"], &[("FERROCM_VISIBLE_DEVICES", "0")]);
    assert_eq!(cuda(&hip).len(), 1);
    let cpu_only = json(&["smi", "--json"], &[("FERROCM_BACKEND", "cpu")]);
    assert!(cpu_only["devices"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["name"].as_str().unwrap().starts_with("CPU")));
}
