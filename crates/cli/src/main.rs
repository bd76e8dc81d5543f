//! `ferrocm`: the command-line tools (rocminfo, benchmarks, hipify, hipcc, and more as they land).

mod bench;
mod info;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "ferrocm", version, about = "ferrocm: an open GPU compute platform in Rust")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show the runtime, the drivers found and every device with its properties (like rocminfo).
    Info(info::Args),
    /// Run a benchmark and print a table (or JSON lines).
    Bench(bench::Args),
    /// Translate CUDA sources to HIP (hipify-perl and hipify-clang options are accepted;
    /// `ferrocm hipify --help` lists them).
    #[command(disable_help_flag = true)]
    Hipify {
        /// Options and files, passed to the translator as they are.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Compile HIP and CUDA-named sources for NVIDIA GPUs and the CPU device, like hipcc
    /// (clang 19 and libclc 19 needed; `ferrocm hipcc --help` lists the options).
    #[command(disable_help_flag = true)]
    Hipcc {
        /// Options and files, passed to the driver as they are.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(args) => info::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Hipify { args } => {
            let code = ferrocm_hipify::cli_main(args);
            return std::process::ExitCode::from(u8::try_from(code).unwrap_or(1));
        }
        Command::Hipcc { args } => {
            let code = ferrocm_hipcc::cli_main(args);
            return std::process::ExitCode::from(u8::try_from(code).unwrap_or(1));
        }
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
