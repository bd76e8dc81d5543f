//! Misuse of `ferrocm smi`, one row per case: the arguments (and environment), the exit code
//! (2: the command line itself is wrong; 1: a value names nothing that exists), words the error
//! must contain. Every case also checks that nothing was written to stdout.

use std::process::Command;

/// The binary cargo built, or `ferrocm` on PATH where the tests run from a staged copy.
fn ferrocm() -> Command {
    match option_env!("CARGO_BIN_EXE_ferrocm").filter(|p| std::path::Path::new(p).exists()) {
        Some(p) => Command::new(p),
        None => Command::new("ferrocm"),
    }
}

struct Case {
    args: &'static [&'static str],
    env: &'static [(&'static str, &'static str)],
    code: i32,
    says: &'static [&'static str],
}

const CPU2: &[(&str, &str)] = &[("FERROCM_CPU_DEVICES", "2")];

const CASES: &[Case] = &[
    Case {
        args: &["-d", "7"],
        env: CPU2,
        code: 1,
        says: &["no device `7`", "index 7 is out of range", "CPU 1"],
    },
    Case {
        args: &["static", "-d", "GPU-00000000-0000-0000-0000-000000000000"],
        env: CPU2,
        code: 1,
        says: &["GPU-00000000-0000-0000-0000-000000000000", "no device has that UUID", "visible"],
    },
    Case {
        args: &["metric", "-d", "0000:ff:1f.7"],
        env: CPU2,
        code: 1,
        says: &["`0000:ff:1f.7`", "no device is at that PCI bus id"],
    },
    Case { args: &["-d", "0,0"], env: CPU2, code: 1, says: &["`0` is selected twice"] },
    Case { args: &["-d", "all,1"], env: CPU2, code: 1, says: &["`1` is selected twice"] },
    Case { args: &["process", "-d", ""], env: CPU2, code: 1, says: &["empty device in ``"] },
    Case {
        args: &["-d=-1"],
        env: CPU2,
        code: 1,
        says: &["no device `-1`", "expected a device index, a PCI bus id"],
    },
    Case { args: &["topology", "-d", "zz:00.0"], env: CPU2, code: 1, says: &["`zz:00.0`", "or `all`"] },
    Case {
        args: &["monitor", "-w", "0"],
        env: &[],
        code: 1,
        says: &["monitor interval 0 s is invalid", "0.1 to 86400"],
    },
    Case { args: &["monitor", "-w=-1", "-c", "2"], env: &[], code: 1, says: &["interval -1 s"] },
    Case { args: &["monitor", "--interval", "nan"], env: &[], code: 1, says: &["interval NaN s"] },
    Case { args: &["monitor", "-w", "90000"], env: &[], code: 1, says: &["interval 90000 s"] },
    Case {
        args: &["monitor", "-c", "0"],
        env: &[],
        code: 1,
        says: &["monitor count 0 is invalid", "at least 1"],
    },
    Case { args: &["monitor", "-w", "abc"], env: &[], code: 2, says: &["invalid value 'abc'", "--interval"] },
    Case { args: &["monitor", "-c", "-3"], env: &[], code: 2, says: &["unexpected argument '-3'"] },
    Case { args: &["--json", "--csv"], env: &[], code: 2, says: &["'--json' cannot be used with '--csv'"] },
    Case { args: &["frobnicate"], env: &[], code: 2, says: &["unrecognized subcommand 'frobnicate'"] },
    Case { args: &["static", "--bogus"], env: &[], code: 2, says: &["unexpected argument '--bogus'"] },
    Case { args: &["-w", "1"], env: &[], code: 2, says: &["unexpected argument '-w'"] },
    Case { args: &["-d"], env: &[], code: 2, says: &["a value is required for '--device <DEVICE>'"] },
    Case {
        args: &[],
        env: &[("FERROCM_CPU_DEVICES", "0")],
        code: 1,
        says: &["FERROCM_CPU_DEVICES=\"0\" is invalid", "from 1 to 64"],
    },
    Case {
        args: &["static"],
        env: &[("FERROCM_BACKEND", "rocm")],
        code: 1,
        says: &["FERROCM_BACKEND", "expected `cpu` or `cuda`"],
    },
];

fn check(case: &Case) {
    let mut cmd = ferrocm();
    cmd.arg("smi").args(case.args);
    for (k, v) in case.env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run ferrocm");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let what = format!("ferrocm smi {:?} {:?}", case.args, case.env);
    assert_eq!(out.status.code(), Some(case.code), "{what}: {stderr}");
    assert!(out.stdout.is_empty(), "{what} wrote to stdout: {}", String::from_utf8_lossy(&out.stdout));
    for s in case.says {
        assert!(stderr.contains(s), "{what}: {stderr:?} does not say {s:?}");
    }
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
}

#[test]
fn misuse() {
    for case in CASES {
        check(case);
    }
}
