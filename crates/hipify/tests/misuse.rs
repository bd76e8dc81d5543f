//! Misuse of `ferrocm hipify`: one table of bad command lines and bad inputs,
//! one `check(case)`. Each case asserts the exit code, the kind of error, that
//! the message names what was wrong, and that nothing on disk changed.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use ferrocm_hipify::{cli_run, HipifyError};

struct Case {
    name: &'static str,
    /// Files created first: path relative to the scratch directory, contents,
    /// read-only or not. A path ending in `/` is a directory.
    files: &'static [(&'static str, &'static [u8], bool)],
    /// Arguments; `{d}` stands for the scratch directory.
    args: &'static [&'static str],
    code: i32,
    kind: fn(&HipifyError) -> bool,
    /// Text the error message must contain.
    says: &'static str,
}

const CUDA: &[u8] = b"#include <cuda_runtime.h>\ncudaFree(p);\n";

const CASES: &[Case] = &[
    Case {
        name: "unknown option",
        files: &[],
        args: &["--no-such-option"],
        code: 2,
        kind: |e| matches!(e, HipifyError::UnknownOption { .. }),
        says: "--no-such-option",
    },
    Case {
        name: "-o without a value",
        files: &[],
        args: &["-o"],
        code: 2,
        kind: |e| matches!(e, HipifyError::MissingValue { .. }),
        says: "needs a value",
    },
    Case {
        name: "--o-dir= with an empty value",
        files: &[("a.cu", CUDA, false)],
        args: &["--o-dir=", "{d}/a.cu"],
        code: 2,
        kind: |e| matches!(e, HipifyError::MissingValue { .. }),
        says: "--o-dir=",
    },
    Case {
        name: "-D without a value",
        files: &[],
        args: &["-D"],
        code: 2,
        kind: |e| matches!(e, HipifyError::MissingValue { .. }),
        says: "-D",
    },
    Case {
        name: "a flag given a value",
        files: &[("a.cu", CUDA, false)],
        args: &["--roc=yes", "{d}/a.cu"],
        code: 2,
        kind: |e| matches!(e, HipifyError::BadValue { .. }),
        says: "flag",
    },
    Case {
        name: "unknown documentation format",
        files: &[],
        args: &["--md", "--doc-format=pretty"],
        code: 2,
        kind: |e| matches!(e, HipifyError::BadValue { .. }),
        says: "full, strict or compact",
    },
    Case {
        name: "unknown --doc-roc value",
        files: &[],
        args: &["--md", "--doc-roc=maybe"],
        code: 2,
        kind: |e| matches!(e, HipifyError::BadValue { .. }),
        says: "skip, separate or joint",
    },
    Case {
        name: "--inplace with -o",
        files: &[("a.cu", CUDA, false)],
        args: &["--inplace", "-o", "{d}/x.hip", "{d}/a.cu"],
        code: 2,
        kind: |e| matches!(e, HipifyError::ConflictingOptions { .. }),
        says: "cannot be combined",
    },
    Case {
        name: "--inplace with --o-dir",
        files: &[("a.cu", CUDA, false)],
        args: &["--inplace", "--o-dir={d}/out", "{d}/a.cu"],
        code: 2,
        kind: |e| matches!(e, HipifyError::ConflictingOptions { .. }),
        says: "--o-dir",
    },
    Case {
        name: "-o with --o-dir",
        files: &[("a.cu", CUDA, false)],
        args: &["-o", "{d}/x.hip", "--o-dir={d}/out", "{d}/a.cu"],
        code: 2,
        kind: |e| matches!(e, HipifyError::ConflictingOptions { .. }),
        says: "cannot be combined",
    },
    Case {
        name: "--no-backup without --inplace",
        files: &[("a.cu", CUDA, false)],
        args: &["--no-backup", "-o", "{d}/x.hip", "{d}/a.cu"],
        code: 2,
        kind: |e| matches!(e, HipifyError::Usage { .. }),
        says: "--inplace only",
    },
    Case {
        name: "--inplace without inputs",
        files: &[],
        args: &["--inplace"],
        code: 2,
        kind: |e| matches!(e, HipifyError::Usage { .. }),
        says: "needs input files",
    },
    Case {
        name: "-o with two inputs",
        files: &[("a.cu", CUDA, false), ("b.cu", CUDA, false)],
        args: &["-o", "{d}/x.hip", "{d}/a.cu", "{d}/b.cu"],
        code: 2,
        kind: |e| matches!(e, HipifyError::Usage { .. }),
        says: "single input",
    },
    Case {
        name: "a directory with nowhere to write",
        files: &[("src/", b"", false), ("src/a.cu", CUDA, false)],
        args: &["{d}/src"],
        code: 2,
        kind: |e| matches!(e, HipifyError::Usage { .. }),
        says: "is a directory",
    },
    Case {
        name: "a missing input",
        files: &[],
        args: &["{d}/nope.cu"],
        code: 1,
        kind: |e| matches!(e, HipifyError::Io { .. }),
        says: "nope.cu",
    },
    Case {
        name: "-o onto a read-only file",
        files: &[("a.cu", CUDA, false), ("x.hip", b"old\n", true)],
        args: &["-o", "{d}/x.hip", "{d}/a.cu"],
        code: 1,
        kind: |e| matches!(e, HipifyError::ReadOnlyOutput { .. }),
        says: "read-only",
    },
    Case {
        name: "--inplace on a read-only file (no backup either)",
        files: &[("a.cu", CUDA, true)],
        args: &["--inplace", "{d}/a.cu"],
        code: 1,
        kind: |e| matches!(e, HipifyError::ReadOnlyOutput { .. }),
        says: "read-only",
    },
    Case {
        name: "two inputs of one name into one --o-dir",
        files: &[("a/", b"", false), ("b/", b"", false), ("a/k.cu", CUDA, false), ("b/k.cu", CUDA, false)],
        args: &["--o-dir={d}/out", "{d}/a/k.cu", "{d}/b/k.cu"],
        code: 2,
        kind: |e| matches!(e, HipifyError::OutputCollision { .. }),
        says: "would both be written",
    },
    Case {
        name: "-o naming the input",
        files: &[("a.cu", CUDA, false)],
        args: &["-o", "{d}/a.cu", "{d}/a.cu"],
        code: 2,
        kind: |e| matches!(e, HipifyError::OverwritesInput { .. }),
        says: "--inplace",
    },
    Case {
        name: "--o-dir onto the input's own directory",
        files: &[("a.cu", CUDA, false)],
        args: &["--o-dir={d}", "{d}/a.cu"],
        code: 2,
        kind: |e| matches!(e, HipifyError::OverwritesInput { .. }),
        says: "replace an input",
    },
    Case {
        name: "-o onto a directory",
        files: &[("a.cu", CUDA, false), ("out/", b"", false)],
        args: &["-o", "{d}/out", "{d}/a.cu"],
        code: 1,
        kind: |e| matches!(e, HipifyError::Usage { .. }),
        says: "not a regular file",
    },
    Case {
        name: "a binary input in place",
        files: &[("bin.cu", b"cudaFree\0\x01\x02", false)],
        args: &["--inplace", "{d}/bin.cu"],
        code: 1,
        kind: |e| matches!(e, HipifyError::Binary { .. }),
        says: "NUL byte",
    },
    Case {
        name: "an unterminated comment in place",
        files: &[("c.cu", b"cudaFree(p);\n/* open", false)],
        args: &["--inplace", "{d}/c.cu"],
        code: 1,
        kind: |e| matches!(e, HipifyError::Unterminated { .. }),
        says: "block comment starting at 2:1",
    },
    Case {
        name: "a raw string delimiter over 16 characters",
        files: &[("r.cu", b"auto s = R\"0123456789abcdefg(x)0123456789abcdefg\";\n", false)],
        args: &["-o", "{d}/r.hip", "{d}/r.cu"],
        code: 1,
        kind: |e| matches!(e, HipifyError::RawStringDelimiter { .. }),
        says: "longer than 16 characters",
    },
    Case {
        name: "statistics onto a read-only file",
        files: &[("a.cu", CUDA, false), ("s.csv", b"old\n", true)],
        args: &["--examine", "--print-stats-csv", "--o-stats={d}/s.csv", "{d}/a.cu"],
        code: 1,
        kind: |e| matches!(e, HipifyError::ReadOnlyOutput { .. }),
        says: "s.csv",
    },
    Case {
        name: "--o-dir with stdin",
        files: &[],
        args: &["--o-dir={d}/out", "-"],
        code: 2,
        kind: |e| matches!(e, HipifyError::Usage { .. }),
        says: "stdin",
    },
];

/// Every file under `dir`: contents and whether it is read-only.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, bool)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).expect("read dir") {
            let p = e.expect("entry").path();
            let meta = fs::metadata(&p).expect("metadata");
            if meta.is_dir() {
                out.insert(p.clone(), (Vec::new(), false));
                stack.push(p);
            } else {
                out.insert(p.clone(), (fs::read(&p).expect("read"), meta.permissions().readonly()));
            }
        }
    }
    out
}

fn check(case: &Case) {
    let dir = std::env::temp_dir().join(format!(
        "ferrocm-hipify-misuse-{}-{}",
        std::process::id(),
        case.name.replace(|c: char| !c.is_ascii_alphanumeric(), "-")
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch dir");
    for (path, bytes, readonly) in case.files {
        let p = dir.join(path);
        if path.ends_with('/') {
            fs::create_dir_all(&p).expect("mkdir");
            continue;
        }
        fs::write(&p, bytes).expect("write");
        if *readonly {
            let mut perm = fs::metadata(&p).expect("metadata").permissions();
            perm.set_readonly(true);
            fs::set_permissions(&p, perm).expect("chmod");
        }
    }
    let before = snapshot(&dir);
    let d = dir.display().to_string();
    let args: Vec<OsString> = case.args.iter().map(|a| OsString::from(a.replace("{d}", &d))).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = cli_run(args, &mut out, &mut err);
    let err = String::from_utf8_lossy(&err);
    assert_eq!(outcome.code, case.code, "{}: exit code ({err})", case.name);
    assert_eq!(outcome.errors.len(), 1, "{}: errors {:?}", case.name, outcome.errors);
    assert!((case.kind)(&outcome.errors[0]), "{}: wrong kind {:?}", case.name, outcome.errors[0]);
    assert!(err.contains(case.says), "{}: message {err:?} does not say {:?}", case.name, case.says);
    assert!(out.is_empty(), "{}: wrote to stdout", case.name);
    assert_eq!(snapshot(&dir), before, "{}: something on disk changed", case.name);
    // Read-only files must be made writable again to be removed on every platform.
    for (path, _, readonly) in case.files {
        if *readonly {
            let p = dir.join(path);
            let mut perm = fs::metadata(&p).expect("metadata").permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perm.set_readonly(false);
            let _ = fs::set_permissions(&p, perm);
        }
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn misuse_cases() {
    assert!(CASES.len() >= 20, "the suite needs at least 20 cases");
    for case in CASES {
        check(case);
    }
}
