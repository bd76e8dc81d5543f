//! Shared helpers for the integration tests: the known-answer vector files.
#![allow(dead_code)]

use std::collections::BTreeMap;

/// One line of a vector file: `key=value ... : v v v`.
#[derive(Debug, Clone)]
pub struct Case {
    pub keys: BTreeMap<String, String>,
    pub values: Vec<u64>,
}

impl Case {
    pub fn get(&self, key: &str) -> &str {
        self.keys
            .get(key)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("vector line lacks {key}: {:?}", self.keys))
    }

    pub fn u64(&self, key: &str) -> u64 {
        self.get(key).parse().unwrap_or_else(|e| panic!("{key}={}: {e}", self.get(key)))
    }

    pub fn label(&self) -> String {
        self.keys.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
    }
}

pub fn parse(text: &str) -> Vec<Case> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (head, tail) = l.split_once(" : ").expect("vector line has ' : '");
            let keys = head
                .split_whitespace()
                .map(|kv| {
                    let (k, v) = kv.split_once('=').expect("key=value");
                    (k.to_string(), v.to_string())
                })
                .collect();
            let values = tail.split_whitespace().map(|v| v.parse().expect("u64 value")).collect();
            Case { keys, values }
        })
        .collect()
}

pub mod stats;

pub const DEVICE: &str = include_str!("../data/curand_device_vectors.txt");
pub const HOST: &str = include_str!("../data/curand_host_vectors.txt");
pub const HOST_QUASI: &str = include_str!("../data/curand_host_quasi_vectors.txt");
pub const HOST_RAW_DIGESTS: &str = include_str!("../data/curand_host_raw_digests.txt");
pub const HOST_POISSON: &str = include_str!("../data/curand_host_poisson.txt");
pub const POISSON_TABLES: &str = include_str!("../data/curand_poisson_tables.txt");
pub const HOST_LAYOUTS: &str = include_str!("../data/curand_host_layouts.txt");

/// splitmix64's finaliser.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The data tools' order-sensitive digest of a stream of bit patterns:
/// `sum_i mix(bits_i ^ mix(i))` modulo 2^64 (see `tools/curand_host_layout.py`).
pub fn mix_digest(values: impl IntoIterator<Item = u64>) -> u64 {
    values.into_iter().enumerate().fold(0u64, |h, (i, v)| h.wrapping_add(mix(v ^ mix(i as u64))))
}

/// FNV-1a-64 over the little-endian bytes of `width`-byte values (the data tools' digest).
pub fn fnv1a(values: impl IntoIterator<Item = u64>, width: usize) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in values {
        for &b in &v.to_le_bytes()[..width] {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

/// Every device the runtime sees (the CPU always). With `FERROCM_REQUIRE_GPU=1` a missing GPU
/// is a failure, so a GPU run cannot pass by skipping.
pub fn devices() -> Vec<ferrocm_kernel::runtime::Device> {
    use ferrocm_kernel::runtime::{BackendKind, Device};
    let all = Device::all().expect("device list");
    if std::env::var("FERROCM_REQUIRE_GPU").is_ok_and(|v| v == "1") {
        assert!(
            all.iter().any(|d| d.kind() == BackendKind::Cuda),
            "FERROCM_REQUIRE_GPU=1 but no CUDA device"
        );
    }
    all
}

/// Whether `d` is a GPU (where float normals use the approximate instructions).
pub fn is_gpu(d: &ferrocm_kernel::runtime::Device) -> bool {
    d.kind() == ferrocm_kernel::runtime::BackendKind::Cuda
}

/// Relative-to-max(1, |b|) closeness, with a label on failure.
///
/// With `FERROCM_RAND_REPORT_ERROR` set, also prints the worst relative error seen (how the
/// tolerances in these tests were measured; run the test binary with `--nocapture`).
pub fn assert_close(label: &str, ours: &[f64], theirs: &[f64], tol: f64) {
    assert_eq!(ours.len(), theirs.len(), "{label}: lengths");
    let mut worst = 0.0f64;
    for (j, (a, b)) in ours.iter().zip(theirs).enumerate() {
        let err = (a - b).abs() / b.abs().max(1.0);
        assert!(err <= tol, "{label} value {j}: ours {a} expected {b}");
        worst = worst.max(err);
    }
    if std::env::var_os("FERROCM_RAND_REPORT_ERROR").is_some() {
        eprintln!("worst relative error {worst:.3e} (tolerance {tol:.0e}): {label}");
    }
}

/// One host-API call of `n` values of a distribution as the cuRAND vector files name it
/// (`u32`, `uniform`, `normal` at (0, 1), `log_normal` at (0.5, 0.75), `uniform_double`,
/// `normal_double`, `log_normal_double`, `poisson:LAMBDA`), as the files record values: bit
/// patterns, f32 as its u32 bits, f64 as its u64 bits.
pub fn generate_bits(
    g: &mut ferrocm_rand::Generator,
    stream: &ferrocm_kernel::runtime::Stream,
    dist: &str,
    n: usize,
) -> Vec<u64> {
    let (name, param) = dist.split_once(':').unwrap_or((dist, ""));
    match name {
        "u32" | "poisson" => {
            let mut o = stream.alloc_zeroed::<u32>(n).unwrap();
            if name == "u32" {
                g.generate_u32(&mut o).unwrap();
            } else {
                g.generate_poisson(&mut o, param.parse().unwrap()).unwrap();
            }
            stream.clone_dtoh(&o).unwrap().into_iter().map(u64::from).collect()
        }
        "uniform" | "normal" | "log_normal" => {
            let mut o = stream.alloc_zeroed::<f32>(n).unwrap();
            match name {
                "uniform" => g.generate_uniform(&mut o).unwrap(),
                "normal" => g.generate_normal(&mut o, 0.0, 1.0).unwrap(),
                _ => g.generate_log_normal(&mut o, 0.5, 0.75).unwrap(),
            }
            stream.clone_dtoh(&o).unwrap().iter().map(|x| x.to_bits() as u64).collect()
        }
        "uniform_double" | "normal_double" | "log_normal_double" => {
            let mut o = stream.alloc_zeroed::<f64>(n).unwrap();
            match name {
                "uniform_double" => g.generate_uniform_double(&mut o).unwrap(),
                "normal_double" => g.generate_normal_double(&mut o, 0.0, 1.0).unwrap(),
                _ => g.generate_log_normal_double(&mut o, 0.5, 0.75).unwrap(),
            }
            stream.clone_dtoh(&o).unwrap().iter().map(|x| x.to_bits()).collect()
        }
        _ => panic!("unknown distribution {dist}"),
    }
}
