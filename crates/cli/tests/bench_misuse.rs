//! `ferrocm bench` on bad arguments: each case exits with an error that names the flag and the
//! allowed range, never a panic or an abort.

use std::process::Command;

mod common;
use common::ferrocm;

struct Case {
    args: &'static [&'static str],
    /// Text the error must contain.
    says: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case { args: &["runtime", "--reps", "0"], says: &["--reps", "1..=10000"] },
    Case { args: &["runtime", "--copy-mib", "0"], says: &["--copy-mib", "1..=1048576"] },
    Case { args: &["runtime", "--copy-mib", "18446744073709551615"], says: &["--copy-mib", "too large"] },
    // The largest size the flag takes (1 TiB) is more than any machine these tests run on has:
    // the CPU device's memory is the host's (100000 MiB fit on a 128 GiB GPU host, and ran).
    Case { args: &["runtime", "--copy-mib", "1048576"], says: &["--copy-mib 1048576", "more than device"] },
    Case { args: &["runtime", "--d2d-mib", "1048576"], says: &["--d2d-mib 1048576", "more than device"] },
    Case { args: &["runtime", "--d2d-mib", "-3"], says: &["-3"] },
    Case { args: &["runtime", "--launches", "5"], says: &["--launches", "10..=100000000"] },
    Case { args: &["runtime", "--allocs", "0"], says: &["--allocs"] },
    Case { args: &["runtime", "--device", "99"], says: &["invalid device index 99"] },
    Case { args: &["runtime", "--reps", "many"], says: &["--reps", "many"] },
    Case { args: &["ccl", "allfoo"], says: &["unknown collective", "all_reduce"] },
    Case { args: &["ccl", "-b", "0"], says: &["-b", "at least 1 byte"] },
    Case { args: &["ccl", "-b", "8X"], says: &["-b", "K, M or G"] },
    Case { args: &["ccl", "-b", "64M", "-e", "1M"], says: &["-b 67108864", "larger than -e 1048576"] },
    Case { args: &["ccl", "-e", "99999999999G"], says: &["-e", "too large"] },
    Case { args: &["ccl", "-f", "1"], says: &["-f", "2..=1024"] },
    Case { args: &["ccl", "-g", "0"], says: &["-g", "1..=64"] },
    Case { args: &["ccl", "-n", "0"], says: &["-n", "1..=100000"] },
    Case { args: &["ccl", "-c", "2"], says: &["-c", "0 or 1"] },
    Case { args: &["ccl", "-o", "mean"], says: &["-o", "sum, prod, min, max or avg"] },
    Case { args: &["ccl", "-d", "float128"], says: &["-d", "bfloat16"] },
    Case { args: &["ccl", "broadcast", "-g", "2", "-r", "2", "-b", "8", "-e", "8"], says: &["-r 2", "0..2"] },
];

fn check(case: &Case) {
    let out = Command::new(ferrocm())
        .arg("bench")
        .args(case.args)
        .env("FERROCM_BACKEND", "cpu")
        .output()
        .expect("the ferrocm binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{:?} succeeded", case.args);
    // A panic exits with 101 and an abort by a signal; an error exits with 1 or 2.
    assert!(
        matches!(out.status.code(), Some(1 | 2)),
        "{:?} exited with {:?}: {stderr}",
        case.args,
        out.status
    );
    assert!(!stderr.contains("panicked"), "{:?} panicked: {stderr}", case.args);
    for s in case.says {
        assert!(stderr.contains(s), "{:?}: the error does not say {s:?}: {stderr}", case.args);
    }
    assert!(
        out.stdout.is_empty(),
        "{:?} printed results: {}",
        case.args,
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn bad_bench_arguments_are_errors() {
    for case in CASES {
        check(case);
    }
}
