//! The writers against independent computations: statistics by hand in f64, the roofline by
//! its formula, CSV read back by the `csv` crate (names with quotes and commas), JSON by
//! `serde_json`.

use std::sync::Arc;

use ferrocm_prof::record::*;
use ferrocm_prof::roofline::{self, Bound, Ceilings};
use ferrocm_prof::{stats, Session, Trace};

fn kernel(name: &str, dispatch: u64, start: u64, end: u64, work: Option<Work>) -> DeviceActivity {
    DeviceActivity {
        op: DeviceOp::Kernel(Kernel {
            name: Arc::from(name),
            grid: [3, 2, 1],
            block: [128, 2, 1],
            dynamic_shared_bytes: 1024,
            static_shared_bytes: 512,
            registers_per_thread: 40,
            local_bytes_per_thread: 16,
        }),
        agent: 1,
        stream: 1,
        thread: 77,
        correlation: dispatch,
        dispatch,
        start_ns: start,
        end_ns: end,
        work,
        timed_by: if dispatch == 3 { TimedBy::KernelTimer } else { TimedBy::Events },
    }
}

fn sample() -> Trace {
    let odd = "gemm<\"quoted\", a,b>";
    Trace {
        process_id: 42,
        agents: vec![
            Agent { id: 0, kind: AgentKind::Host, name: "host".into(), backend: String::new() },
            Agent { id: 1, kind: AgentKind::Gpu, name: "NVIDIA H100".into(), backend: "cuda".into() },
        ],
        api: vec![ApiCall { name: "Stream::launch", thread: 77, correlation: 1, start_ns: 100, end_ns: 180 }],
        device: vec![
            kernel(odd, 1, 1_000, 3_000, Some(Work::new(8_000, 1_000).on_matrix_units())),
            kernel("axpy", 2, 3_000, 3_500, None),
            kernel(odd, 3, 3_500, 9_500, Some(Work::new(16_000, 2_000).on_matrix_units())),
            DeviceActivity {
                op: DeviceOp::Copy {
                    direction: CopyDirection::DeviceToDevice,
                    bytes: 4_000,
                    src_agent: 1,
                    dst_agent: 1,
                },
                work: Some(Work::bytes(4_000)),
                ..kernel("", 4, 10_000, 12_000, None)
            },
        ],
        allocations: vec![],
        dropped: 0,
    }
}

#[test]
fn stats_match_a_hand_computation() {
    let durations = [(String::from("a"), 10u64), ("b".into(), 5), ("a".into(), 30), ("a".into(), 20)];
    let rows = stats::summarize(durations.iter().map(|(n, d)| (n.as_str(), *d)));
    assert_eq!(rows.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["a", "b"], "longest total first");
    let a = &rows[0];
    assert_eq!((a.calls, a.total_ns, a.min_ns, a.max_ns), (3, 60, 10, 30));
    assert!((a.average_ns - 20.0).abs() < 1e-12);
    // Sample standard deviation of 10, 30, 20: sqrt(((-10)^2 + 10^2 + 0) / 2) = 10.
    assert!((a.stddev_ns - 10.0).abs() < 1e-12);
    assert!((a.percentage - 60.0 / 65.0 * 100.0).abs() < 1e-9);
    assert_eq!(rows[1].stddev_ns, 0.0, "one call has no spread");
}

#[test]
fn roofline_follows_the_formula() {
    let c = Ceilings {
        device: "NVIDIA H100".into(),
        backend: "cuda".into(),
        copy_bytes_per_s: 2.0e12,
        vector_flops_per_s: 5.0e13,
        matrix_flops_per_s: 6.0e14,
        measured: "2026-11-24T00:00:00Z".into(),
    };
    let rows = roofline::rows(&sample(), std::slice::from_ref(&c));
    assert_eq!(rows.len(), 2, "axpy declared no work: {rows:?}");
    let g = rows.iter().find(|r| r.name.starts_with("gemm")).unwrap();
    // 24,000 flops and 3,000 bytes in 8,000 ns.
    assert_eq!((g.calls, g.total_ns, g.flops, g.bytes), (2, 8_000, 24_000, 3_000));
    assert!((g.achieved_flops_per_s - 3.0e9).abs() < 1e-3);
    assert!((g.intensity - 8.0).abs() < 1e-12);
    // 8 flop/B x 2 TB/s = 16 TFLOP/s < 600: memory-bound; 3 GFLOP/s of 16 TFLOP/s is 0.01875%.
    assert_eq!(g.bound, Some(Bound::Memory));
    assert!((g.attainable_per_s.unwrap() - 1.6e13).abs() < 1.0);
    assert!((g.percent_of_roof.unwrap() - 0.01875).abs() < 1e-12);
    let copy = rows.iter().find(|r| r.name == "copy device-to-device").unwrap();
    // Read plus written: 8,000 bytes in 2,000 ns = 4 GB/s, 0.2% of the 2 TB/s roof.
    assert!((copy.achieved_bytes_per_s - 4.0e9).abs() < 1e-3);
    assert!((copy.percent_of_roof.unwrap() - 0.2).abs() < 1e-12);
    // Without ceilings the achieved rates stay, the roof columns are empty.
    let bare = roofline::rows(&sample(), &[]);
    assert!(bare.iter().all(|r| r.bound.is_none() && r.peak_flops_per_s.is_none()));
}

#[test]
fn files_read_back() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Session {
        kernel_trace: true,
        memory_copy_trace: true,
        api_trace: true,
        stats: true,
        formats: ferrocm_prof::Formats { csv: true, json: true },
        ..Session::default()
    };
    let written = ferrocm_prof::write(&sample(), &s, &tmp.path().join("t")).unwrap();
    assert_eq!(written.len(), 9, "{written:?}");
    let mut r = csv::Reader::from_path(tmp.path().join("t_kernel_trace.csv")).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 3);
    assert_eq!(&rows[0][7], "gemm<\"quoted\", a,b>", "quotes and commas survive");
    assert_eq!((&rows[0][6], &rows[1][6], &rows[2][6]), ("1", "2", "1"), "Kernel_Id per distinct name");
    // LDS = dynamic + static shared; Grid_Size counts threads (3 blocks x 128, 2 x 2).
    assert_eq!((&rows[0][11], &rows[0][12], &rows[0][13]), ("1536", "16", "40"));
    assert_eq!((&rows[0][19], &rows[0][20], &rows[0][21]), ("384", "4", "1"));
    let mut r = csv::Reader::from_path(tmp.path().join("t_kernel_stats.csv")).unwrap();
    let first = r.records().next().unwrap().unwrap();
    assert_eq!((&first[0], &first[1], &first[2]), ("gemm<\"quoted\", a,b>", "2", "8000"));
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("t_results.json")).unwrap()).unwrap();
    let x: Vec<&serde_json::Value> =
        j["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "X").collect();
    assert_eq!(x.len(), 5);
    let k = x.iter().find(|e| e["args"]["dispatch_id"] == 3).unwrap();
    assert_eq!((k["ts"].as_f64().unwrap(), k["dur"].as_f64().unwrap()), (3.5, 6.0), "microseconds");
    assert_eq!(k["pid"].as_u64().unwrap(), ferrocm_prof::AGENT_PID_BASE + 1);
    // How each activity was timed.
    let timed_by: Vec<&str> = x.iter().filter_map(|e| e["args"]["timed_by"].as_str()).collect();
    assert_eq!(timed_by.len(), 4, "every device activity says how it was timed");
    assert_eq!(k["args"]["timed_by"], "kernel_timer");
    assert_eq!(timed_by.iter().filter(|t| **t == "events").count(), 3);
}
