//! `ferrocm`: the command-line tools (rocminfo, rocm-smi, rocprofv3, benchmarks, hipify).

mod bench;
mod info;
mod prof;
mod smi;

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
    /// Show temperature, power, clocks, memory, utilisation and processes of every device (like
    /// rocm-smi / amd-smi; read-only).
    Smi(smi::Args),
    /// Run a benchmark and print a table (or JSON lines).
    Bench(bench::Args),
    /// Run a program under the tracer and write rocprofv3's trace files (like rocprofv3).
    Prof(prof::Args),
    /// Translate CUDA sources to HIP (hipify-perl and hipify-clang options are accepted;
    /// `ferrocm hipify --help` lists them).
    #[command(disable_help_flag = true)]
    Hipify {
        /// Options and files, passed to the translator as they are.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
}

fn main() -> std::process::ExitCode {
    // Like other Unix tools, end quietly when the reader of our output goes away
    // (`ferrocm info | head`) instead of failing a write.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(args) => info::run(args),
        Command::Smi(args) => smi::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Prof(args) => match prof::run(args) {
            // The profiled program's exit status is the tool's.
            Ok(code) => return std::process::ExitCode::from(u8::try_from(code).unwrap_or(1)),
            Err(e) => Err(e),
        },
        Command::Hipify { args } => {
            let code = ferrocm_hipify::cli_main(args);
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
