//! Whole-file corpus: `tests/corpus/NAME.EXT` translated must equal
//! `NAME.hip` (and `NAME.launch.hip` with --hip-kernel-execution-syntax, when
//! present). The expected files were written by hand from the CUDA and HIP
//! documentation; `FERROCM_BLESS=1` rewrites them when a change is intended.

use std::fs;
use std::path::Path;

use ferrocm_hipify::{translate, Options, RuntimeInclude};

fn check(input: &Path, expect: &Path, options: &Options) {
    let src = fs::read_to_string(input).expect("corpus input");
    let got = translate(&src, options).expect("translates").text;
    if std::env::var_os("FERROCM_BLESS").is_some() {
        fs::write(expect, &got).expect("bless");
        return;
    }
    let want = fs::read_to_string(expect).expect("expected output");
    assert_eq!(got, want, "{} differs from {}", input.display(), expect.display());
    let again = translate(&got, options).expect("translates again").text;
    assert_eq!(again, got, "{} is not idempotent", input.display());
}

#[test]
fn corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut seen = 0;
    let mut entries: Vec<_> =
        fs::read_dir(&dir).expect("corpus dir").filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for input in entries {
        let ext = input.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext == "hip" {
            continue;
        }
        let _ = ext;
        let options = Options::new().runtime_include(RuntimeInclude::ForCuda);
        check(&input, &input.with_extension("hip"), &options);
        let launch = input.with_extension("launch.hip");
        if launch.exists() {
            check(&input, &launch, &options.hip_kernel_execution_syntax(true));
        }
        seen += 1;
    }
    assert!(seen >= 5, "corpus has only {seen} inputs");
}
