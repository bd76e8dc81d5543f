//! What the CLI's test binaries share.

/// The `ferrocm` binary: where cargo built it, or on `PATH` (test binaries staged for the GPU
/// machine run from another path, with the staged binaries on `PATH`).
pub fn ferrocm() -> std::path::PathBuf {
    let built = std::path::PathBuf::from(env!("CARGO_BIN_EXE_ferrocm"));
    if built.exists() {
        return built;
    }
    std::env::var_os("PATH")
        .and_then(|p| std::env::split_paths(&p).map(|d| d.join("ferrocm")).find(|f| f.exists()))
        .expect("the ferrocm binary is neither where cargo built it nor on PATH")
}
