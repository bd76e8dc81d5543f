//! Whole-file corpus: `tests/corpus/NAME.EXT` translated must equal
//! `NAME.hip` (and `NAME.launch.hip` with --hip-kernel-execution-syntax, when
//! present). A first line `// hipify-options: ...` gives the file's options
//! (`--roc`, `--miopen`, `--use-hip-data-types`, `--default-preprocessor`,
//! `-DNAME[=VALUE]`). The inputs
//! were written from the CUDA documentation and the expected files checked
//! by hand against the mapping tables (HIPIFY's where transcribed);
//! `FERROCM_BLESS=1` rewrites them when a change is intended.

use std::fs;
use std::path::Path;

use ferrocm_hipify::{translate_bytes, Options};

fn check(input: &Path, expect: &Path, options: &Options) {
    let src = fs::read(input).expect("corpus input");
    let got = translate_bytes(&src, options).expect("translates").output_bytes().to_vec();
    if std::env::var_os("FERROCM_BLESS").is_some() {
        fs::write(expect, &got).expect("bless");
        return;
    }
    let want = fs::read(expect).expect("expected output");
    assert!(
        got == want,
        "{} differs from {}:\n{}",
        input.display(),
        expect.display(),
        String::from_utf8_lossy(&got)
    );
    let again = translate_bytes(&got, options).expect("translates again").output_bytes().to_vec();
    assert!(again == got, "{} is not idempotent", input.display());
}

/// The options named on the file's first line.
fn options_of(src: &[u8]) -> Options {
    let first = src.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = String::from_utf8_lossy(first);
    let mut o = Options::new();
    if let Some(list) = first.strip_prefix("// hipify-options:") {
        for opt in list.split_whitespace() {
            o = match opt {
                "--roc" => o.roc(true),
                "--miopen" => o.miopen(true),
                "--use-hip-data-types" => o.use_hip_data_types(true),
                "--default-preprocessor" => o.default_preprocessor(true),
                d if d.starts_with("-D") => {
                    let (n, v) = d[2..].split_once('=').unwrap_or((&d[2..], "1"));
                    o.define(n, v)
                }
                other => panic!("unknown corpus option {other}"),
            };
        }
    }
    o
}

#[test]
fn corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut seen = 0;
    let mut entries: Vec<_> =
        fs::read_dir(&dir).expect("corpus dir").filter_map(|e| e.ok()).map(|e| e.path()).collect();
    entries.sort();
    for input in entries {
        if input.extension().and_then(|e| e.to_str()) == Some("hip") {
            continue;
        }
        let options = options_of(&fs::read(&input).expect("corpus input"));
        check(&input, &input.with_extension("hip"), &options);
        let launch = input.with_extension("launch.hip");
        if launch.exists() {
            check(&input, &launch, &options.hip_kernel_execution_syntax(true));
        }
        seen += 1;
    }
    assert!(seen >= 10, "corpus has only {seen} inputs");
}
