//! `ferrocm bench ccl` prints nccl-tests' table: its header, one row per size with the
//! out-of-place and in-place columns, zero wrong elements, the bus bandwidth of nccl-tests'
//! formulas, and the closing lines; `--json` rows agree with it.

use std::process::Command;

mod common;
use common::ferrocm;

fn run(args: &[&str]) -> (String, String) {
    let out = Command::new(ferrocm())
        .arg("bench")
        .arg("ccl")
        .args(args)
        .env("FERROCM_BACKEND", "cpu")
        .env_remove("FERROCM_CPU_DEVICES")
        .output()
        .expect("ferrocm runs");
    let (so, se) =
        (String::from_utf8_lossy(&out.stdout).to_string(), String::from_utf8_lossy(&out.stderr).to_string());
    assert!(out.status.success(), "{args:?} failed: {se}");
    (so, se)
}

/// Data rows: the whitespace-separated fields of each line that starts with a size.
fn rows(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .filter(|l| l.trim_start().chars().next().is_some_and(|c| c.is_ascii_digit()))
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect()
}

#[test]
fn table_has_nccl_tests_columns_and_formulas() {
    for (coll, n, factor, unit) in [
        ("all_reduce", 3usize, 2.0 * 2.0 / 3.0, 1usize),
        ("all_gather", 3, 2.0 / 3.0, 3),
        ("reduce_scatter", 3, 2.0 / 3.0, 3),
        ("broadcast", 3, 1.0, 1),
        ("reduce", 3, 1.0, 1),
        ("alltoall", 3, 2.0 / 3.0, 3),
        ("sendrecv", 3, 1.0, 1),
    ] {
        let g = n.to_string();
        let (json, table) =
            run(&[coll, "-b", "8", "-e", "96K", "-f", "4", "-g", &g, "-n", "3", "-w", "1", "--json"]);
        assert!(table.contains("out-of-place") && table.contains("in-place"), "{table}");
        for h in ["size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong"] {
            assert!(table.contains(h), "{coll}: no column {h}: {table}");
        }
        assert!(table.contains("# Out of bounds values : 0 OK"), "{table}");
        assert!(table.contains("# Avg bus bandwidth"), "{table}");
        let rows = rows(&table);
        assert!(!rows.is_empty(), "{table}");
        for r in &rows {
            assert_eq!(r.len(), 13, "{coll}: {r:?}");
            let (size, count): (usize, usize) = (r[0].parse().unwrap(), r[1].parse().unwrap());
            assert_eq!(r[2], "float");
            assert_eq!(size, count * 4, "{coll}: size is the count's bytes");
            assert_eq!(count % unit, 0, "{coll}: count is a whole number of ranks' blocks");
            let root: i64 = r[4].parse().unwrap();
            assert_eq!(root, if matches!(coll, "broadcast" | "reduce") { 0 } else { -1 });
            let (time, algbw, busbw): (f64, f64, f64) =
                (r[5].parse().unwrap(), r[6].parse().unwrap(), r[7].parse().unwrap());
            assert_eq!(r[8], "0", "{coll}: wrong elements");
            assert!(time > 0.0);
            // Columns are rounded to two decimals.
            assert!((algbw - size as f64 / time / 1e3).abs() <= 0.006 + algbw * 1e-3, "{coll}: {r:?}");
            assert!((busbw - algbw * factor).abs() <= 0.011 + busbw * 1e-3, "{coll}: {r:?}");
            if matches!(coll, "alltoall" | "sendrecv") {
                assert_eq!(&r[9..], ["N/A", "N/A", "N/A", "N/A"], "{coll}: no in-place form");
            } else {
                assert_eq!(r[12], "0", "{coll}: wrong elements in place");
            }
        }
        let objects: Vec<serde_json::Value> =
            json.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let places = if matches!(coll, "alltoall" | "sendrecv") { 1 } else { 2 };
        assert_eq!(objects.len(), rows.len() * places, "{coll}: {json}");
        assert_eq!(objects[0]["collective"], coll);
        assert_eq!(objects[0]["ranks"], n);
        assert_eq!(objects[0]["wrong"], 0);
    }
}

#[test]
fn every_type_and_operator_checks_clean() {
    for d in ["int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16"] {
        for o in ["sum", "prod", "min", "max", "avg"] {
            let (_, table) = run(&[
                "all_reduce",
                "-b",
                "1K",
                "-e",
                "1K",
                "-g",
                "2",
                "-n",
                "1",
                "-w",
                "0",
                "-d",
                d,
                "-o",
                o,
            ]);
            assert!(table.contains("# Out of bounds values : 0 OK"), "{d} {o}: {table}");
            let r = &rows(&table)[0];
            assert_eq!((r[2].as_str(), r[3].as_str()), (d, o));
        }
    }
}
