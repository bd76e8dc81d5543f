//! The HIP program corpus: self-checking programs written from the HIP programming guide, built
//! with `ferrocm hipcc` (clang 19) against `libferrocm_hip`, and run on every device present:
//! the CPU device always, the GPU where one is (`FERROCM_REQUIRE_GPU=1` makes a missing GPU a
//! failure). Each program checks its results against a host computation and prints
//! "Validation passed"; the harness checks the exit status, that line and, where a program
//! prints from the device, the lines themselves.
//!
//! Without clang 19 and libclc the programs cannot be built: the tests then pass with a note,
//! unless `FERROCM_REQUIRE_CLANG=1` (set by CI), which makes that a failure.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use ferrocm_runtime::{BackendKind, Device};

/// The sources, embedded so the test reads nothing from the source tree.
const SOURCES: &[(&str, &str)] = &[
    ("common.h", include_str!("corpus/common.h")),
    ("vector_add.hip", include_str!("corpus/vector_add.hip")),
    ("saxpy.hip", include_str!("corpus/saxpy.hip")),
    ("matmul_shared.hip", include_str!("corpus/matmul_shared.hip")),
    ("reduction_shuffle.hip", include_str!("corpus/reduction_shuffle.hip")),
    ("histogram_atomics.hip", include_str!("corpus/histogram_atomics.hip")),
    ("streams_events.hip", include_str!("corpus/streams_events.hip")),
    ("device_query.hip", include_str!("corpus/device_query.hip")),
    ("constant_memory.hip", include_str!("corpus/constant_memory.hip")),
    ("dynamic_shared.hip", include_str!("corpus/dynamic_shared.hip")),
    ("templates.hip", include_str!("corpus/templates.hip")),
    ("printf.hip", include_str!("corpus/printf.hip")),
    ("math_functions.hip", include_str!("corpus/math_functions.hip")),
    ("module_kernels.hip", include_str!("corpus/module_kernels.hip")),
    ("module_api.hip", include_str!("corpus/module_api.hip")),
    ("cooperative_groups.hip", include_str!("corpus/cooperative_groups.hip")),
    ("half_vector_complex.hip", include_str!("corpus/half_vector_complex.hip")),
    ("vector_types.hip", include_str!("corpus/vector_types.hip")),
    ("error_paths.hip", include_str!("corpus/error_paths.hip")),
    ("device_assert.hip", include_str!("corpus/device_assert.hip")),
    ("peer_access.hip", include_str!("corpus/peer_access.hip")),
    ("cuda_saxpy.cu", include_str!("corpus/cuda_saxpy.cu")),
];

/// The matrix multiplication sample, built by its own Makefile (`make HIPCXX=.../hipcc`).
const SAMPLE: &[(&str, &str)] = &[
    ("Common/example_utils.hpp", include_str!("../samples/Common/example_utils.hpp")),
    ("matrix_multiplication/Makefile", include_str!("../samples/matrix_multiplication/Makefile")),
    ("matrix_multiplication/main.hip", include_str!("../samples/matrix_multiplication/main.hip")),
];

fn required(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == "1")
}

/// The built corpus: program name -> executable (or the reason the toolchain is missing).
struct Built {
    dir: PathBuf,
    programs: HashMap<String, PathBuf>,
    errors: HashMap<String, String>,
}

fn hipcc(args: &[&str]) -> Result<(), String> {
    let code = ferrocm_hipcc::cli_main(args.iter().map(Into::into).collect());
    if code == 0 {
        Ok(())
    } else {
        Err(format!("hipcc {} failed with status {code}", args.join(" ")))
    }
}

fn build() -> Result<&'static Built, String> {
    static BUILT: OnceLock<Result<Built, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            ferrocm_hipcc::find_clang().map_err(|e| e.to_string())?;
            ferrocm_hipcc::find_libclc().map_err(|e| e.to_string())?;
            let dir = std::env::temp_dir().join(format!("ferrocm-hip-corpus-{}", std::process::id()));
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            for (name, text) in SOURCES {
                std::fs::write(dir.join(name), text).map_err(|e| e.to_string())?;
            }
            // The CUDA program goes through hipify first, unmodified.
            let cuda = SOURCES.iter().find(|s| s.0 == "cuda_saxpy.cu").map(|s| s.1).unwrap_or("");
            let hip = ferrocm_hipify::translate(cuda, &ferrocm_hipify::Options::default())
                .map_err(|e| format!("hipify: {e}"))?;
            std::fs::write(dir.join("cuda_saxpy.hip.cu"), hip.text).map_err(|e| e.to_string())?;
            let jobs: Vec<(String, Vec<String>)> = SOURCES
                .iter()
                .filter_map(|(n, _)| {
                    let stem = n.strip_suffix(".hip")?;
                    let src = dir.join(n).display().to_string();
                    let out = dir.join(stem).display().to_string();
                    Some(if stem == "module_kernels" {
                        (
                            stem.to_string(),
                            vec!["--device-only".into(), src, "-o".into(), format!("{out}.ptx")],
                        )
                    } else {
                        (stem.to_string(), vec!["-O2".into(), src, "-o".into(), out])
                    })
                })
                .chain(std::iter::once((
                    "cuda_saxpy".to_string(),
                    vec![
                        dir.join("cuda_saxpy.hip.cu").display().to_string(),
                        "-o".into(),
                        dir.join("cuda_saxpy").display().to_string(),
                    ],
                )))
                .collect();
            // Two builds at a time (each runs clang twice).
            let results: Vec<(String, Result<(), String>)> = std::thread::scope(|s| {
                let handles: Vec<_> = jobs
                    .chunks(jobs.len().div_ceil(2))
                    .map(|chunk| {
                        s.spawn(move || {
                            chunk
                                .iter()
                                .map(|(name, args)| {
                                    let a: Vec<&str> = args.iter().map(String::as_str).collect();
                                    (name.clone(), hipcc(&a))
                                })
                                .collect::<Vec<_>>()
                        })
                    })
                    .collect();
                handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
            });
            let mut programs = HashMap::new();
            let mut errors = HashMap::new();
            for (name, r) in results {
                match r {
                    Ok(()) => {
                        programs.insert(name.clone(), dir.join(&name));
                    }
                    Err(e) => {
                        errors.insert(name, e);
                    }
                }
            }
            Ok(Built { dir, programs, errors })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The built corpus, or `None` (with a note) where the toolchain is missing and not required.
fn corpus() -> Option<&'static Built> {
    match build() {
        Ok(b) => Some(b),
        Err(e) => {
            assert!(
                !required("FERROCM_REQUIRE_CLANG"),
                "FERROCM_REQUIRE_CLANG=1 but the corpus cannot be built: {e}"
            );
            eprintln!("skipping the HIP corpus: {e}");
            None
        }
    }
}

/// Runs program `name` on the devices of `kind`; returns its standard output.
fn run(name: &str, kind: BackendKind, env: &[(&str, &str)], args: &[String]) -> Option<String> {
    let built = corpus()?;
    if kind == BackendKind::Cuda && Device::of_kind(BackendKind::Cuda).is_empty() {
        assert!(!required("FERROCM_REQUIRE_GPU"), "FERROCM_REQUIRE_GPU=1 but there is no GPU");
        return None;
    }
    if let Some(e) = built.errors.get(name) {
        panic!("{name} did not build: {e}");
    }
    let exe = &built.programs[name];
    let mut cmd = Command::new(exe);
    cmd.args(args).env("FERROCM_BACKEND", kind.name()).env_remove("FERROCM_CPU_DEVICES");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("{name}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.lines().any(|l| l.starts_with("Validation passed")),
        "{name} on {kind}: status {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    Some(stdout)
}

fn dir() -> Option<&'static Path> {
    corpus().map(|b| b.dir.as_path())
}

/// The two tests of a module's `case(kind)`: on the CPU device and on the GPU.
macro_rules! on_cpu_and_cuda {
    () => {
        #[test]
        fn cpu() {
            case(BackendKind::Cpu)
        }
        #[test]
        fn cuda() {
            case(BackendKind::Cuda)
        }
    };
}

macro_rules! corpus_test {
    ($($name:ident $(($($env:literal = $val:literal),*))? $(, check = $check:expr)? ;)*) => {$(
        mod $name {
            use super::*;
            fn case(kind: BackendKind) {
                let env: &[(&str, &str)] = &[$($(($env, $val)),*)?];
                let out = run(stringify!($name), kind, env, &[]);
                $(if let Some(out) = out { ($check)(&out) })?
                let _ = out;
            }
            on_cpu_and_cuda!();
        }
    )*};
}

corpus_test! {
    vector_add;
    saxpy;
    matmul_shared;
    reduction_shuffle;
    histogram_atomics;
    streams_events;
    device_query;
    constant_memory;
    dynamic_shared;
    templates;
    math_functions;
    cooperative_groups;
    half_vector_complex;
    vector_types;
    error_paths;
    device_assert;
    cuda_saxpy;
    peer_access("FERROCM_CPU_DEVICES" = "2");
    printf, check = |out: &str| {
        let mut lines: Vec<&str> = out.lines().filter(|l| l.starts_with("block")).collect();
        lines.sort();
        let mut want = Vec::new();
        for b in 0..2 {
            for t in 0..4 {
                want.push(format!(
                    "block {b} thread {t}: hip 42 {:.2} {} {:x}",
                    0.25 * t as f64,
                    (b'a' + t as u8) as char,
                    255 + b
                ));
            }
        }
        assert_eq!(lines, want);
    };
}

mod module_api {
    use super::*;
    fn case(kind: BackendKind) {
        let Some(d) = dir() else { return };
        run("module_api", kind, &[], &[d.join("module_kernels.ptx").display().to_string()]);
    }
    on_cpu_and_cuda!();
}

/// Programs traced end to end with kernel tracing on (`FERROCM_PROF=kernel`, what `ferrocm prof
/// --kernel-trace` sets): each still validates its results (its kernels' timed copies share
/// the module's `__constant__` and `__device__` variables and compute the same), and every
/// kernel launch in its trace was timed by the kernel's own timer, not by events.
mod traced {
    use super::*;

    fn case(kind: BackendKind) {
        let Some(d) = dir() else { return };
        let module = d.join("module_kernels.ptx").display().to_string();
        for (program, args) in [
            ("vector_add", vec![]),
            ("constant_memory", vec![]),
            ("streams_events", vec![]),
            ("module_api", vec![module]),
        ] {
            let out = d.join(format!("traced-{program}-{}", kind.name()));
            let _ = std::fs::remove_dir_all(&out);
            let prefix = out.join("t").display().to_string();
            let env = [
                ("FERROCM_PROF", "kernel"),
                ("FERROCM_PROF_OUTPUT", &prefix),
                ("FERROCM_PROF_FORMAT", "json"),
            ];
            if run(program, kind, &env, &args).is_none() {
                return;
            }
            let text = std::fs::read_to_string(out.join("t_results.json"))
                .unwrap_or_else(|e| panic!("{program} on {kind}: no trace ({e})"));
            let trace: serde_json::Value = serde_json::from_str(&text).unwrap();
            let kernels: Vec<&serde_json::Value> =
                trace["traceEvents"].as_array().unwrap().iter().filter(|e| e["cat"] == "kernel").collect();
            assert!(!kernels.is_empty(), "{program} on {kind}: no kernel in the trace");
            for k in &kernels {
                assert_eq!(k["args"]["timed_by"], "kernel_timer", "{program} on {kind}: {k}");
                let name = k["name"].as_str().unwrap();
                assert!(!name.contains("ferrocm_timing"), "{program}: the record names the copy: {name}");
            }
        }
    }
    on_cpu_and_cuda!();
}

/// The matrix multiplication sample, in the style of HIP example collections: built by its
/// own Makefile with `HIPCXX` pointing at ferrocm's hipcc, run on each device.
mod makefile_sample {
    use super::*;

    fn built() -> Option<PathBuf> {
        static EXE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
        corpus()?;
        let r = EXE.get_or_init(|| {
            let root = std::env::temp_dir().join(format!("ferrocm-hip-sample-{}", std::process::id()));
            for (name, text) in SAMPLE {
                let p = root.join(name);
                std::fs::create_dir_all(p.parent().unwrap_or(&root)).map_err(|e| e.to_string())?;
                std::fs::write(&p, text).map_err(|e| e.to_string())?;
            }
            // The test binary is not `hipcc`: the driver is found next to it.
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            let target = exe.parent().and_then(Path::parent).ok_or("no target directory")?;
            let hipcc = target.join("hipcc");
            if !hipcc.is_file() {
                return Err(format!("{} is missing (cargo builds it with the workspace)", hipcc.display()));
            }
            // The library as this test found it (cargo leaves a dependency's cdylib in deps/).
            let lib = ferrocm_hipcc::lib_dir().map_err(|e| e.to_string())?;
            let out = Command::new("make")
                .env("FERROCM_HIP_LIB", lib)
                .arg("-C")
                .arg(root.join("matrix_multiplication"))
                .arg(format!("HIPCXX={}", hipcc.display()))
                .output()
                .map_err(|e| format!("make: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "make failed:\n{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            Ok(root.join("matrix_multiplication/hip_matrix_multiplication"))
        });
        match r {
            Ok(p) => Some(p.clone()),
            Err(e) if e.contains("is missing") && !required("FERROCM_REQUIRE_CLANG") => {
                eprintln!("skipping the Makefile sample: {e}");
                None
            }
            Err(e) => panic!("{e}"),
        }
    }

    fn case(kind: BackendKind) {
        let Some(exe) = built() else { return };
        if kind == BackendKind::Cuda && Device::of_kind(BackendKind::Cuda).is_empty() {
            assert!(!required("FERROCM_REQUIRE_GPU"), "FERROCM_REQUIRE_GPU=1 but there is no GPU");
            return;
        }
        let out = Command::new(&exe).env("FERROCM_BACKEND", kind.name()).output().expect("the sample runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("Validation passed"),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    on_cpu_and_cuda!();
}
