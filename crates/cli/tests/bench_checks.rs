//! Every `ferrocm bench rand` request and the pointer-array `bench blas` layouts check their
//! output against a host reference on fresh inputs before timing anything, and fail when it
//! differs: run each once, small, on the default device (the CPU device here, the GPU on the
//! GPU machine), so a reference that drifts from the library is caught before a GPU session
//! finds it (the MTGP32 normals' reference had stayed Box-Muller after the generator moved to
//! cuRAND's inverse CDF).

use std::process::Command;

mod common;
use common::ferrocm;

/// Runs `ferrocm bench ARGS` and fails with its error output unless it succeeds.
fn passes(args: &[&str]) {
    let out = Command::new(ferrocm()).arg("bench").args(args).output().expect("the ferrocm binary runs");
    assert!(
        out.status.success(),
        "ferrocm bench {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn every_rand_request_passes_its_check() {
    let generators = [
        "philox",
        "xorwow",
        "mrg32k3a",
        "sobol32",
        "mtgp32",
        "mt19937",
        "lfsr113",
        "threefry2x32",
        "threefry4x32",
        "threefry2x64",
        "threefry4x64",
    ];
    for g in generators {
        for d in ["uniform", "normal", "bits", "poisson"] {
            passes(&["rand", "--generator", g, "--distribution", d, "--count", "8192", "--reps", "1"]);
        }
    }
    // The legacy ordering's Poisson prefix is checked too (the other distributions' legacy
    // layouts are the test suite's, against cuRAND's vectors).
    for g in ["philox", "xorwow", "mrg32k3a"] {
        passes(&[
            "rand",
            "--generator",
            g,
            "--distribution",
            "poisson",
            "--ordering",
            "legacy",
            "--count",
            "8192",
            "--reps",
            "1",
        ]);
    }
}

#[test]
fn pointer_array_gemm_layouts_pass_their_check() {
    for entries in ["in-order", "reversed", "scattered"] {
        for t in ["N", "T"] {
            passes(&[
                "blas",
                "-f",
                "gemm_batched",
                "--entries",
                entries,
                "--transposeA",
                t,
                "-m",
                "9",
                "-n",
                "7",
                "-k",
                "5",
                "--batch_count",
                "6",
                "--engine",
                "kernels",
                "--reps",
                "1",
            ]);
        }
    }
}
