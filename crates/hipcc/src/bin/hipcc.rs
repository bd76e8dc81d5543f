//! `hipcc`: ferrocm's HIP compiler driver under the name build systems expect
//! (`make HIPCXX=.../hipcc`). Same as `ferrocm hipcc`.

fn main() {
    let code = ferrocm_hipcc::cli_main(std::env::args_os().skip(1).collect());
    std::process::exit(code);
}
