//! Shared by the runtime's test binaries: runs one case on every backend present, and fails a
//! CUDA case that finds no GPU when `FERROCM_REQUIRE_GPU=1` (so a GPU run cannot pass by
//! skipping).
#![allow(dead_code)]

use ferrocm_runtime::{BackendKind, Device};

pub type TestResult = Result<(), Box<dyn std::error::Error>>;

pub fn require_gpu() -> bool {
    std::env::var("FERROCM_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// Runs `case` on the first device of `kind`; skips a missing GPU unless it is required.
pub fn on_backend(kind: BackendKind, case: fn(&Device) -> TestResult) {
    let devices = Device::of_kind(kind);
    let Some(device) = devices.first() else {
        let report =
            ferrocm_runtime::report().map(|r| format!("{:?}", r.cuda)).unwrap_or_else(|e| e.to_string());
        assert!(
            !(kind == BackendKind::Cuda && require_gpu()),
            "FERROCM_REQUIRE_GPU=1 but no CUDA device: {report}"
        );
        return;
    };
    if let Err(e) = case(device) {
        panic!("{kind} device {}: {e}", device.properties().name);
    }
}

/// One `#[test]` per backend for each case: `name::cpu`, `name::cuda`.
#[macro_export]
macro_rules! conformance {
    ($($name:ident($dev:ident) $body:block)*) => {$(
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            fn case($dev: &ferrocm_runtime::Device) -> $crate::common::TestResult $body
            #[test]
            fn cpu() { $crate::common::on_backend(ferrocm_runtime::BackendKind::Cpu, case) }
            #[test]
            fn cuda() { $crate::common::on_backend(ferrocm_runtime::BackendKind::Cuda, case) }
        }
    )*};
}

/// A small deterministic generator for test data (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    /// Uniform in [-1, 1).
    pub fn f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
    pub fn vec_f32(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.f32()).collect()
    }
}
