//! The views end to end without NVML (the library is reported missing), CPU devices read from a
//! fake machine: values against the fixtures' known answers, and the three renderings against
//! each other (CSV parsed back with the `csv` crate, JSON with `serde_json`).

mod common;

use common::{file, Tree};
use ferrocm_runtime::{BackendKind, Device};
use ferrocm_smi::nvml::NvmlError;
use ferrocm_smi::table::Table;
use ferrocm_smi::{NvmlStatus, Report, Smi};
use serde_json::Value as Json;

fn smi(tree: &Tree) -> Smi {
    let missing = NvmlError::LibraryUnavailable { reason: "libnvidia-ml.so.1: not here (test)".into() };
    Smi::with_nvml(Err(missing)).unwrap().with_host(tree.reader())
}

/// Every CSV field equals the JSON value under the same key: `N/A` for null, lists joined by
/// `;`, numbers equal as numbers.
fn csv_matches_json(report: &Report) {
    let table: &Table = &report.tables[0];
    let json = report.to_json();
    let rows = json[table.name].as_array().expect("rows").clone();
    let csv_text = report.to_csv();
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_string).collect();
    let keys: Vec<&str> = table.columns.iter().map(|c| c.key).collect();
    assert_eq!(header, keys);
    let records: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    assert_eq!(records.len(), rows.len());
    for (record, row) in records.iter().zip(&rows) {
        let object = row.as_object().unwrap();
        assert_eq!(object.keys().map(String::as_str).collect::<Vec<_>>(), keys, "JSON keys in column order");
        for (field, key) in record.iter().zip(&keys) {
            let same = |j: &Json, f: &str| match j {
                Json::Null => f == "N/A",
                Json::Number(n) => f.parse::<f64>().ok() == n.as_f64(),
                Json::String(s) => s == f,
                Json::Bool(b) => f == b.to_string(),
                _ => false,
            };
            let ok = match &row[key] {
                Json::Array(items) => {
                    let parts: Vec<&str> = field.split(';').collect();
                    parts.len() == items.len() && items.iter().zip(parts).all(|(j, f)| same(j, f))
                }
                j => same(j, field),
            };
            assert!(ok, "{key}: CSV {field:?} but JSON {}", row[key]);
        }
    }
}

fn cpu_rows(report: &Report) -> Vec<Json> {
    let cpus: Vec<usize> = Device::of_kind(BackendKind::Cpu).iter().map(Device::index).collect();
    let json = report.to_json();
    json[report.tables[0].name]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| cpus.contains(&(r["device"].as_u64().unwrap() as usize)))
        .cloned()
        .collect()
}

#[test]
fn views_without_nvml() {
    let tree = Tree::new("render", common::INTEL_SERVER);
    let mut smi = smi(&tree);
    assert!(matches!(smi.nvml_status(), NvmlStatus::Unavailable { .. }));
    let all = smi.select(&[]).unwrap();
    let runtime = Device::all().unwrap();
    // Numbered as the runtime numbers them (`ferrocm info`).
    let numbered: Vec<(usize, String)> = smi.devices().iter().map(|d| (d.index, d.uuid.clone())).collect();
    let expected: Vec<(usize, String)> =
        runtime.iter().map(|d| (d.index(), d.properties().uuid.clone())).collect();
    assert_eq!(numbered, expected);

    let overview = smi.overview(&all);
    let text = overview.to_text();
    assert!(text.starts_with("NVML not available (cannot open the NVIDIA management library: libnvidia-ml.so.1: not here (test))"), "{text}");
    csv_matches_json(&overview);
    let json = overview.to_json();
    assert_eq!(json["nvml"]["available"], false);
    assert_eq!(json["processes"], Json::Array(vec![]));
    let memory = ferrocm_smi::host::parse_meminfo(file("meminfo.txt")).unwrap();
    for row in cpu_rows(&overview) {
        assert_eq!(row["temperature_c"], 46.0);
        assert_eq!(row["sm_clock_mhz"], 2500.0);
        assert_eq!(row["power_cap_w"], 125.0);
        assert_eq!(row["performance_state"], "powersave");
        // (65799888 - 49872604) / 65799888 = 24.2 %, shown to the percent.
        assert_eq!(row["memory_used_percent"], (100.0 * memory.used() as f64 / memory.total as f64).round());
        assert_eq!(row["fan_percent"], Json::Null);
        // The first read compares two samples of the same /proc/stat.
        assert_eq!(row["utilization_percent"], Json::Null);
    }
    // GPUs without NVML: named by the runtime, every reading N/A.
    for gpu in Device::all().unwrap().iter().filter(|d| d.kind() != BackendKind::Cpu) {
        let row = &json["devices"][gpu.index()];
        assert_eq!(row["name"], gpu.properties().name.as_str());
        for key in ["temperature_c", "power_w", "sm_clock_mhz", "utilization_percent", "memory_used_percent"]
        {
            assert_eq!(row[key], Json::Null, "{key}");
        }
    }

    tree.write("proc/stat", file("proc_stat_b.txt"));
    let metric = smi.metric_view(&all);
    csv_matches_json(&metric);
    for row in cpu_rows(&metric) {
        assert_eq!(row["utilization_percent"], 55.0);
        assert_eq!(row["core_load_percent"], serde_json::json!([70.0, 0.0, 100.0, 50.0]));
        assert_eq!(row["memory_total_bytes"], memory.total);
        assert_eq!(row["memory_used_bytes"], memory.used());
        assert_eq!(row["temperature_source"], "hwmon coretemp Package id 0");
        assert_eq!(row["load_average"], serde_json::json!([0.52, 0.58, 0.59]));
        assert_eq!(row["backend"], "cpu");
    }
    let text = metric.to_text();
    assert!(text.contains("  Utilization                  55.0%\n"), "{text}");
    assert!(text.contains("  Load per core                70% 0% 100% 50%\n"), "{text}");

    let stat = smi.static_view(&all);
    csv_matches_json(&stat);
    for row in cpu_rows(&stat) {
        assert_eq!(row["driver_version"], "6.8.0-test");
        assert_eq!(row["compute_units"], 4);
        assert_eq!(row["sockets"], 1);
        assert_eq!(row["max_sm_clock_mhz"], 4100);
        assert_eq!(row["pci_bus_id"], Json::Null);
    }

    let processes = smi.process_view(&all);
    csv_matches_json(&processes);
    assert_eq!(processes.to_csv(), "device,pid,type,name,memory_used_bytes\n");

    let monitor = smi.monitor_view(&all, 2.0);
    csv_matches_json(&monitor);
    assert_eq!(monitor.to_json()["samples"][0]["time_s"], 2.0);
}

#[test]
fn selection_orders_and_filters_every_view() {
    let tree = Tree::new("select", common::CONTAINER);
    let mut smi = smi(&tree);
    let last = smi.devices().len() - 1;
    let sel = smi.select(&[last.to_string()]).unwrap();
    for report in
        [smi.overview(&sel), smi.static_view(&sel), smi.metric_view(&sel), smi.monitor_view(&sel, 0.0)]
    {
        let rows = report.to_json()[report.tables[0].name].as_array().unwrap().clone();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0]["device"], last);
    }
    // Topology of one device has no pairs.
    assert!(smi.topology_view(&sel).tables[0].rows.is_empty());
}
