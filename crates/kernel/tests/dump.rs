//! `FERROCM_DUMP=ir,ptx` with `FERROCM_DUMP_DIR` writes what the compiler generated. Its own
//! test binary: the variables are set before any kernel is built in this process.

use ferrocm_kernel::prelude::*;

#[kernel]
fn dumped(x: &mut [f32]) {
    let i = global_index();
    if i < x.len() {
        x[i] = x[i] * 2.0f32;
    }
}

#[test]
fn dump_writes_ir_and_ptx_files() {
    let dir = std::env::temp_dir().join(format!("ferrocm-dump-{}", std::process::id()));
    std::env::set_var("FERROCM_DUMP", "ir,ptx");
    std::env::set_var("FERROCM_DUMP_DIR", &dir);
    let k = dumped::kernel().expect("builds");
    k.ptx("sm_80").expect("generates");
    let ir = std::fs::read_to_string(dir.join("dumped.ir")).expect("IR file");
    let ptx = std::fs::read_to_string(dir.join("dumped.sm_80.ptx")).expect("PTX file");
    assert_eq!(ir, k.ir().to_string());
    assert!(ptx.contains(".visible .entry dumped("), "{ptx}");
    let _ = std::fs::remove_dir_all(&dir);
}
