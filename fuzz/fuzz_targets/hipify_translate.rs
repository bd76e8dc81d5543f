//! Fuzzes the CUDA -> HIP translator with the properties it promises, not
//! just "no panic", under three option sets (defaults; HIP launch syntax with
//! `--default-preprocessor`, `--amap` and a `-D`; the ROC libraries with MIOpen, HIP data types and
//! ROCm 7 header paths):
//! - an input it accepts gives an output it accepts (the output lexes);
//! - translating the output again changes nothing (idempotence);
//! - when nothing was translated, the output is the input, byte for byte.
#![no_main]

use ferrocm_hipify::{translate_bytes, HeaderStyle, Options, RuntimeInclude};
use libfuzzer_sys::fuzz_target;

fn option_sets() -> [Options; 3] {
    [
        Options::new(),
        Options::new()
            .hip_kernel_execution_syntax(true)
            .default_preprocessor(true)
            .amap(true)
            .define("USE_CUDA", "1"),
        Options::new()
            .roc(true)
            .miopen(true)
            .use_hip_data_types(true)
            .header_style(HeaderStyle::Subdirectories)
            .runtime_include(RuntimeInclude::ForDeviceCode),
    ]
}

fuzz_target!(|data: &[u8]| {
    for options in option_sets() {
        let Ok(t) = translate_bytes(data, &options) else { continue };
        let out = t.output_bytes();
        if t.stats.lines_changed == 0 {
            assert_eq!(out, data, "nothing was translated, yet the output differs");
        }
        let again = match translate_bytes(out, &options) {
            Ok(again) => again,
            Err(e) => panic!("the output is refused: {e}\n--- output ---\n{}", String::from_utf8_lossy(out)),
        };
        assert!(
            again.output_bytes() == out,
            "not idempotent\n--- output ---\n{}\n--- again ---\n{}",
            String::from_utf8_lossy(out),
            String::from_utf8_lossy(again.output_bytes())
        );
    }
});
