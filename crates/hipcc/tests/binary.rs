//! The `hipcc` binary as build systems call it (`make HIPCXX=.../hipcc`): exit status and
//! messages without touching clang. (Its presence here also makes `cargo test` build
//! `target/<profile>/hipcc`, which the HIP corpus's Makefile sample runs.)

use std::process::Command;

fn hipcc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hipcc")).args(args).output().expect("hipcc runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn version_and_help_succeed() {
    let (code, out, _) = hipcc(&["--version"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("ferrocm hipcc ") && out.contains("clang 19"), "{out}");
    let (code, out, _) = hipcc(&["--help"]);
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
        let (code, out, err) = hipcc(args);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(err.starts_with("hipcc: error: ") && err.contains(want), "{args:?}: {err}");
    }
}
