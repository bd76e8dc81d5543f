//! The command-line front end: options, files, directories, in-place rewriting.

use std::ffi::OsString;
use std::fs;
use std::path::PathBuf;

use ferrocm_hipify::cli_main;

/// A fresh scratch directory per test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrocm-hipify-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn run(args: &[&str]) -> i32 {
    cli_main(args.iter().map(OsString::from).collect())
}

/// Runs the CLI with `args` and checks its exit code and the file at `path`.
fn check(args: &[&str], code: i32, path: &PathBuf, expect: &str) {
    assert_eq!(run(args), code, "exit code of {args:?}");
    assert_eq!(fs::read_to_string(path).expect("output file"), expect);
}

#[test]
fn output_file_with_perl_and_clang_spellings() {
    let d = scratch("o");
    let input = d.join("a.cu");
    fs::write(&input, "#include <cuda_runtime.h>\ncudaFree(p);\n").expect("write");
    let out = d.join("a.hip");
    let out_eq = format!("-o={}", out.display());
    check(&[input.to_str().unwrap(), &out_eq], 0, &out, "#include <hip/hip_runtime.h>\nhipFree(p);\n");
    fs::remove_file(&out).expect("rm");
    check(
        &["-o", out.to_str().unwrap(), "-quiet-warnings", input.to_str().unwrap()],
        0,
        &out,
        "#include <hip/hip_runtime.h>\nhipFree(p);\n",
    );
}

#[test]
fn inplace_keeps_a_backup_and_reruns_from_it() {
    let d = scratch("inplace");
    let f = d.join("k.cu");
    let original = "#include <cuda_runtime.h>\nk<<<1, 2>>>(cudaMemcpyHostToDevice);\n";
    fs::write(&f, original).expect("write");
    let fs_ = f.to_str().unwrap();
    check(&["-inplace", fs_], 0, &f, "#include <hip/hip_runtime.h>\nk<<<1, 2>>>(hipMemcpyHostToDevice);\n");
    assert_eq!(fs::read_to_string(d.join("k.cu.prehip")).expect("backup"), original);
    // A second run translates the current file (HIP text translates to itself),
    // so options still apply and the backup stays the pristine source.
    check(
        &["--inplace", "--hip-kernel-execution-syntax", fs_],
        0,
        &f,
        "#include <hip/hip_runtime.h>\nhipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, hipMemcpyHostToDevice);\n",
    );
    assert_eq!(fs::read_to_string(d.join("k.cu.prehip")).expect("backup"), original);
    let leftovers: Vec<_> = fs::read_dir(&d)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind");
}

#[test]
fn bad_input_is_never_overwritten() {
    let d = scratch("bad");
    let f = d.join("bad.cu");
    let text = "cudaFree(p);\n/* unterminated";
    fs::write(&f, text).expect("write");
    check(&["--inplace", f.to_str().unwrap()], 1, &f, text);
    assert!(!d.join("bad.cu.prehip").exists());
    let bin = d.join("bin.cu");
    fs::write(&bin, b"cudaFree\0\x01\x02").expect("write");
    assert_eq!(run(&["--inplace", bin.to_str().unwrap()]), 1);
    assert_eq!(fs::read(&bin).unwrap(), b"cudaFree\0\x01\x02");
}

#[test]
fn directory_trees_by_extension() {
    let d = scratch("tree");
    let src = d.join("src");
    fs::create_dir_all(src.join("sub")).expect("mkdir");
    fs::write(src.join("a.cu"), "__global__ void k() {}\n").expect("write");
    fs::write(src.join("sub/b.cuh"), "cudaStream_t s;\n").expect("write");
    fs::write(src.join("sub/c.txt"), "cudaStream_t s;\n").expect("write");
    fs::write(src.join("sub/d.h"), "cudaStream_t s;\n").expect("write");
    fs::write(src.join("sub/e.hpp"), "__device__ int f();\n").expect("write");
    let out = d.join("out");
    let out_dir = format!("--o-dir={}", out.display());
    assert_eq!(run(&[src.to_str().unwrap(), &out_dir]), 0);
    // Every file that uses CUDA gets the runtime include hipify-clang adds
    // (it compiles every input as CUDA); the others stay byte for byte.
    let inc = "\n#include <hip/hip_runtime.h>\n";
    assert_eq!(fs::read_to_string(out.join("a.cu")).unwrap(), format!("{inc}__global__ void k() {{}}\n"));
    assert_eq!(fs::read_to_string(out.join("sub/b.cuh")).unwrap(), format!("{inc}hipStream_t s;\n"));
    assert_eq!(fs::read_to_string(out.join("sub/d.h")).unwrap(), format!("{inc}hipStream_t s;\n"));
    assert_eq!(fs::read_to_string(out.join("sub/e.hpp")).unwrap(), format!("{inc}__device__ int f();\n"));
    assert!(!out.join("sub/c.txt").exists());
    // A directory without a place to write is a usage error.
    assert_eq!(run(&[src.to_str().unwrap()]), 2);
}

#[test]
fn stats_csv_and_examine() {
    let d = scratch("stats");
    let f = d.join("s.cu");
    fs::write(&f, "cudaMalloc(&p, n);\ncudaFree(p);\n").expect("write");
    let csv = d.join("stats.csv");
    let o_stats = format!("--o-stats={}", csv.display());
    assert_eq!(run(&["-examine", "--print-stats-csv", &o_stats, f.to_str().unwrap()]), 0);
    let text = fs::read_to_string(&csv).expect("csv");
    assert!(text.starts_with("section,key,value\n"), "{text}");
    assert!(text.contains("converted,cudaMalloc,1\n"), "{text}");
    assert!(text.contains("summary,lines_total,2\n"), "{text}");
    // --examine writes nothing.
    assert_eq!(fs::read_to_string(&f).unwrap(), "cudaMalloc(&p, n);\ncudaFree(p);\n");
}

#[test]
fn options_errors() {
    assert_eq!(run(&["--no-such-option"]), 2);
    assert_eq!(run(&["-o"]), 2);
    assert_eq!(run(&["--help"]), 0);
    assert_eq!(run(&["-version"]), 0);
    let d = scratch("dash");
    let f = d.join("x.cu");
    fs::write(&f, "cudaFree(p);\n").expect("write");
    let out = d.join("x.hip");
    let o = format!("-o={}", out.display());
    // hipify-clang's front-end options are accepted and have no effect.
    check(
        &[f.to_str().unwrap(), &o, "--cuda-path=/usr/local/cuda", "-I/opt/inc", "-DX=1"],
        0,
        &out,
        "\n#include <hip/hip_runtime.h>\nhipFree(p);\n",
    );
    // hipify-clang style: compiler options after `--` are ignored.
    check(
        &[f.to_str().unwrap(), &o, "--", "-I/usr/include", "-DX"],
        0,
        &out,
        "\n#include <hip/hip_runtime.h>\nhipFree(p);\n",
    );
}

// Regression tests for issue 9 ("Reliability I"), named after what broke.

#[test]
fn second_inplace_run_keeps_hand_edits() {
    let d = scratch("inplace-edits");
    let f = d.join("k.cu");
    let original = "#include <cuda_runtime.h>\ncudaFree(p);\n";
    fs::write(&f, original).expect("write");
    let fs_ = f.to_str().unwrap();
    check(&["--inplace", fs_], 0, &f, "#include <hip/hip_runtime.h>\nhipFree(p);\n");
    // A hand edit after the first run, with one more CUDA call in it.
    fs::write(&f, "#include <hip/hip_runtime.h>\nhipFree(p); // checked by hand\ncudaDeviceReset();\n")
        .expect("edit");
    check(
        &["--inplace", fs_],
        0,
        &f,
        "#include <hip/hip_runtime.h>\nhipFree(p); // checked by hand\nhipDeviceReset();\n",
    );
    assert_eq!(fs::read_to_string(d.join("k.cu.prehip")).expect("backup"), original);
}

#[cfg(unix)]
#[test]
fn inplace_on_a_symlink_translates_its_target() {
    let d = scratch("inplace-link");
    fs::create_dir_all(d.join("real")).expect("mkdir");
    let target = d.join("real/k.cu");
    fs::write(&target, "cudaFree(p);\n").expect("write");
    let link = d.join("k.cu");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    assert_eq!(run(&["--inplace", link.to_str().unwrap()]), 0);
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
    assert_eq!(fs::read_to_string(&target).unwrap(), "\n#include <hip/hip_runtime.h>\nhipFree(p);\n");
    assert_eq!(fs::read_to_string(d.join("real/k.cu.prehip")).unwrap(), "cudaFree(p);\n");
}

#[cfg(unix)]
#[test]
fn output_onto_a_read_only_file_is_refused_and_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch("readonly");
    let input = d.join("a.cu");
    fs::write(&input, "cudaFree(p);\n").expect("write");
    let out = d.join("a.hip");
    fs::write(&out, "old\n").expect("write");
    fs::set_permissions(&out, fs::Permissions::from_mode(0o444)).expect("chmod");
    check(&["-o", out.to_str().unwrap(), input.to_str().unwrap()], 1, &out, "old\n");
    assert_eq!(fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o444);
    // A writable destination keeps its own mode, not the input's.
    fs::set_permissions(&out, fs::Permissions::from_mode(0o640)).expect("chmod");
    fs::set_permissions(&input, fs::Permissions::from_mode(0o755)).expect("chmod");
    check(
        &["-o", out.to_str().unwrap(), input.to_str().unwrap()],
        0,
        &out,
        "\n#include <hip/hip_runtime.h>\nhipFree(p);\n",
    );
    assert_eq!(fs::metadata(&out).unwrap().permissions().mode() & 0o777, 0o640);
}

#[test]
fn o_dir_refuses_two_inputs_with_one_name() {
    let d = scratch("collide");
    for sub in ["a", "b"] {
        fs::create_dir_all(d.join(sub)).expect("mkdir");
        fs::write(d.join(sub).join("k.cu"), format!("// {sub}\ncudaFree(p);\n")).expect("write");
    }
    let out = d.join("out");
    let o_dir = format!("--o-dir={}", out.display());
    let (a, b) = (d.join("a/k.cu"), d.join("b/k.cu"));
    assert_eq!(run(&[&o_dir, a.to_str().unwrap(), b.to_str().unwrap()]), 2);
    assert!(!out.exists(), "nothing is written when two inputs collide");
}

#[test]
fn parallel_runs_onto_one_output_never_trip_over_temporary_files() {
    let d = scratch("parallel");
    let input = d.join("a.cu");
    fs::write(&input, "cudaFree(p);\n").expect("write");
    let out = d.join("a.hip");
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (input, out) = (input.clone(), out.clone());
            std::thread::spawn(move || {
                (0..25).all(|_| run(&["-o", out.to_str().unwrap(), input.to_str().unwrap()]) == 0)
            })
        })
        .collect();
    for t in threads {
        assert!(t.join().expect("thread"), "a run failed");
    }
    assert_eq!(fs::read_to_string(&out).unwrap(), "\n#include <hip/hip_runtime.h>\nhipFree(p);\n");
    let names: Vec<String> =
        fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names.len(), 2, "temporary files left behind: {names:?}");
}

#[test]
fn a_missing_input_is_named_once() {
    let d = scratch("missing");
    let nope = d.join("nope.cu");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let outcome = ferrocm_hipify::cli_run(vec![OsString::from(&nope)], &mut out, &mut err);
    assert_eq!(outcome.code, 1);
    let err = String::from_utf8(err).unwrap();
    assert_eq!(err.matches("nope.cu").count(), 1, "{err}");
    assert!(err.starts_with("hipify: error: ") && err.contains("No such file"), "{err}");
}

/// Runs `cli_run` and returns (exit code, stdout, stderr).
fn run_captured(args: &[&str]) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let o = ferrocm_hipify::cli_run(args.iter().map(OsString::from).collect(), &mut out, &mut err);
    (o.code, String::from_utf8_lossy(&out).into_owned(), String::from_utf8_lossy(&err).into_owned())
}

#[test]
fn every_hipify_clang_and_hipify_perl_option_is_accepted() {
    let d = scratch("all-options");
    let f = d.join("a.cu");
    fs::write(&f, "cudaFree(p);\n").expect("write");
    let f = f.to_str().unwrap();
    let plain = "\n#include <hip/hip_runtime.h>\nhipFree(p);\n";
    // Options that leave this translation as it is (some only report that they
    // have no effect here); each alone, in its hipify-clang or hipify-perl spelling.
    let neutral: &[&[&str]] = &[
        &["--cuda-kernel-execution-syntax"],
        &["--hip-kernel-execution-syntax"],
        &["--skip-excluded-preprocessor-conditional-blocks"],
        &["--default-preprocessor"],
        &["--amap"],
        &["--experimental"],
        &["--use-hip-data-types"],
        &["--no-undocumented-features"],
        &["--no-warnings-on-undocumented-features"],
        &["--save-temps"],
        &["-v"],
        &["--quiet-warnings"],
        &["-quiet-warnings"],
        &["--whitelist=cudaMalloc"],
        &["--exclude-dirs=x"],
        &["--exclude-files=y"],
        &["-DUSE_X=1"],
        &["-D", "USE_X"],
        &["-UUSE_Y"],
        &["-I/opt/include"],
        &["-I", "/opt/include"],
        &["--cuda-path=/usr/local/cuda"],
        &["--cuda-gpu-arch=sm_90"],
        &["--clang-resource-directory=/usr/lib/clang"],
        &["--temp-dir=/tmp"],
        &["--extra-arg=-DZ"],
        &["--extra-arg-before=-std=c++17"],
        &["-p", "/build"],
        &["--perl"],
        &["--python"],
        &["--o-hipify-perl-dir=/tmp"],
        &["--o-python-map-dir=/tmp"],
        &["--"],
    ];
    for opts in neutral {
        let mut args: Vec<&str> = vec![f];
        args.extend_from_slice(opts);
        let (code, out, err) = run_captured(&args);
        assert_eq!((code, out.as_str()), (0, plain), "{opts:?}: {err}");
    }
    // Clang front-end options say they have no effect.
    let (_, _, err) = run_captured(&[f, "--cuda-path=/usr/local/cuda"]);
    assert!(err.contains("'--cuda-path' has no effect"), "{err}");
    // Options with an effect.
    assert_eq!(run_captured(&[f, "--roc"]).1, plain);
    assert_eq!(run_captured(&[f, "--miopen"]).1, plain);
    // A file whose only CUDA name is whitelisted has nothing to translate.
    assert_eq!(run_captured(&["--whitelist=cudaFree", f]).1, "cudaFree(p);\n");
    let (code, out, _) = run_captured(&[f, "--no-output", "--print-stats"]);
    assert_eq!((code, out.as_str()), (0, ""));
    assert_eq!(run_captured(&["--version"]).0, 0);
    assert_eq!(run_captured(&["--versions"]).0, 0);
    assert_eq!(run_captured(&["--help-hidden"]).0, 0);
}

#[test]
fn every_if_group_unless_default_preprocessor() {
    let d = scratch("groups");
    let f = d.join("a.cu");
    fs::write(&f, "#include <cuda_runtime.h>\n#ifdef USE_X\ncudaFree(p);\n#endif\n").expect("write");
    let f = f.to_str().unwrap();
    let all = "#include <hip/hip_runtime.h>\n#ifdef USE_X\nhipFree(p);\n#endif\n";
    let kept = "#include <hip/hip_runtime.h>\n#ifdef USE_X\ncudaFree(p);\n#endif\n";
    // hipify-clang's default: every group, so -D changes nothing (and says so).
    assert_eq!(run_captured(&[f]).1, all);
    let (_, out, err) = run_captured(&[f, "-UUSE_X"]);
    assert_eq!(out, all);
    assert!(err.contains("'-D/-U' has no effect"), "{err}");
    for opt in ["--default-preprocessor", "--skip-excluded-preprocessor-conditional-blocks"] {
        assert_eq!(run_captured(&[f, opt]).1, kept, "{opt}");
        assert_eq!(run_captured(&[f, opt, "-DUSE_X"]).1, all, "{opt}");
        assert_eq!(run_captured(&[f, opt, "--amap"]).1, all, "{opt}");
    }
}

#[test]
fn documentation_tables_in_markdown_and_csv() {
    let d = scratch("docs");
    let o_dir = format!("--o-dir={}", d.display());
    let (code, _, err) = run_captured(&["--md", "--csv", "--doc-format=full", "--doc-roc=joint", &o_dir]);
    assert_eq!(code, 0, "{err}");
    let md = fs::read_to_string(d.join("SPARSE_API_supported_by_HIP.md")).expect("markdown");
    assert!(md.contains("|`cusparseScsrmv`|`hipsparseScsrmv`|`rocsparse_scsrmv`|"), "{}", &md[..200]);
    let csv = fs::read_to_string(d.join("RUNTIME_API_supported_by_HIP.csv")).expect("csv");
    assert!(csv.starts_with("CUDA,HIP,ROC\n") && csv.contains("\ncudaMalloc,hipMalloc,"), "{}", &csv[..100]);
}

#[test]
fn half2_members_unless_no_undocumented_features() {
    let d = scratch("half2");
    let f = d.join("h.cu");
    fs::write(&f, "__global__ void k(half2 h, float *o) { o[0] = h.x; }\n").expect("write");
    let (f, out) = (f.to_str().unwrap(), d.join("h.hip"));
    let o = out.to_str().unwrap();
    let head = "\n#include <hip/hip_runtime.h>\n__global__ void k(half2 h, float *o) { o[0] = ";
    check(&[f, "-o", o], 0, &out, &format!("{head}reinterpret_cast<half&>(h.x); }}\n"));
    check(
        &[f, "-o", o, "--no-warnings-on-undocumented-features"],
        0,
        &out,
        &format!("{head}reinterpret_cast<half&>(h.x); }}\n"),
    );
    check(&[f, "-o", o, "--no-undocumented-features"], 0, &out, &format!("{head}h.x; }}\n"));
}
