//! The `ferrocm-hipify` binary; everything lives in the library's `cli_main`.

fn main() {
    let code = ferrocm_hipify::cli_main(std::env::args_os().skip(1).collect());
    std::process::exit(code);
}
