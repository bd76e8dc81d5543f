//! Per-name statistics (rocprofv3's `*_stats.csv`).

use std::collections::HashMap;

use crate::record::{DeviceOp, Trace, MEMSET_KERNEL_NAME};

/// Durations of one name.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    pub name: String,
    pub calls: u64,
    pub total_ns: u64,
    pub average_ns: f64,
    /// Share of the total of all rows, in percent.
    pub percentage: f64,
    pub min_ns: u64,
    pub max_ns: u64,
    /// Sample standard deviation (0 for one call).
    pub stddev_ns: f64,
}

/// Groups `(name, duration)` pairs; rows by total duration, longest first (then by name).
pub fn summarize<'a>(items: impl IntoIterator<Item = (&'a str, u64)>) -> Vec<Stats> {
    let mut groups: HashMap<&str, Vec<u64>> = HashMap::new();
    let mut order = Vec::new();
    for (name, d) in items {
        groups
            .entry(name)
            .or_insert_with(|| {
                order.push(name);
                Vec::new()
            })
            .push(d);
    }
    let grand: u128 = groups.values().flatten().map(|&d| d as u128).sum();
    let mut rows: Vec<Stats> = order
        .into_iter()
        .map(|name| {
            let v = &groups[name];
            let n = v.len() as f64;
            let total: u128 = v.iter().map(|&d| d as u128).sum();
            let mean = total as f64 / n;
            let var = if v.len() > 1 {
                v.iter().map(|&d| (d as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0)
            } else {
                0.0
            };
            Stats {
                name: name.to_string(),
                calls: v.len() as u64,
                total_ns: total as u64,
                average_ns: mean,
                percentage: if grand > 0 { total as f64 / grand as f64 * 100.0 } else { 0.0 },
                min_ns: *v.iter().min().unwrap_or(&0),
                max_ns: *v.iter().max().unwrap_or(&0),
                stddev_ns: var.sqrt(),
            }
        })
        .collect();
    rows.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then_with(|| a.name.cmp(&b.name)));
    rows
}

/// Kernels (and memsets) by name.
pub fn kernels(trace: &Trace) -> Vec<Stats> {
    summarize(trace.device.iter().filter_map(|r| {
        let name = match &r.op {
            DeviceOp::Kernel(k) => &*k.name,
            DeviceOp::Memset { .. } => MEMSET_KERNEL_NAME,
            DeviceOp::Copy { .. } => return None,
        };
        Some((name, r.end_ns.saturating_sub(r.start_ns)))
    }))
}

/// Copies by direction.
pub fn copies(trace: &Trace) -> Vec<Stats> {
    summarize(trace.device.iter().filter_map(|r| match r.op {
        DeviceOp::Copy { direction, .. } => {
            Some((direction.rocprof_name(), r.end_ns.saturating_sub(r.start_ns)))
        }
        _ => None,
    }))
}

/// API calls by function.
pub fn api(trace: &Trace) -> Vec<Stats> {
    summarize(trace.api.iter().map(|r| (r.name, r.end_ns.saturating_sub(r.start_ns))))
}
