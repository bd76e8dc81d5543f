//! The `hipcc` binary as build systems call it (`make HIPCXX=.../hipcc`): exit status and
//! messages without touching clang. (Its presence here also makes `cargo test` build
//! `target/<profile>/hipcc`, which the HIP corpus's Makefile sample runs.)

use std::process::Command;

/// Runs the `hipcc` that cargo built with this test, or `None` where this test binary was carried
/// to another machine without it (the GPU machine runs staged test binaries; hipcc and clang are
/// tested where they are built).
fn hipcc(args: &[&str]) -> Option<(i32, String, String)> {
    let exe = env!("CARGO_BIN_EXE_hipcc");
    if !std::path::Path::new(exe).exists() {
        eprintln!("skipped: {exe} is not on this machine (a staged test binary)");
        return None;
    }
    let out = Command::new(exe).args(args).output().expect("hipcc runs");
    Some((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

#[test]
fn version_and_help_succeed() {
    let Some((code, out, _)) = hipcc(&["--version"]) else { return };
    assert_eq!(code, 0);
    assert!(out.starts_with("ferrocm hipcc ") && out.contains("clang 19"), "{out}");
    let Some((code, out, _)) = hipcc(&["--help"]) else { return };
    assert_eq!(code, 0);
    assert!(out.contains("--offload-arch"), "{out}");
}

#[test]
fn bad_command_lines_fail_with_a_message_naming_the_problem() {
    for (args, want) in [
        (&[][..], "no input files"),
        (&["-fgpu-rdc", "a.hip"][..], "-fgpu-rdc"),
        (&["--no-such-option", "a.hip"][..], "unknown option `--no-such-option`"),
    ] {
        let Some((code, out, err)) = hipcc(args) else { return };
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(err.starts_with("hipcc: error: ") && err.contains(want), "{args:?}: {err}");
    }
}
