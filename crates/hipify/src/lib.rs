//! `ferrocm-hipify`: a CUDA to HIP source translator, the ferrocm counterpart
//! of AMD's hipify-perl and hipify-clang.
//!
//! Design: a byte-preserving lexer ([`lexer`]) feeds one translation pass
//! ([`translate()`]) that looks identifiers up in data tables ([`tables`],
//! embedded from `data/*.tsv`) and records edits; the output is the input with
//! those edits applied. A few call-site rules (`HIP_SYMBOL()`, added or removed
//! arguments, overloads by argument count) live in a table of their own, and
//! kernel launches are rewritten only on request.
//!
//! What is translated, and where the choices follow hipify-clang:
//! - every identifier token found in a table, wherever it stands (also after
//!   `.`, `->` or `::`); never text inside comments or string and character
//!   literals; `cub` only where it names the namespace (`cub::`, `using
//!   namespace cub`);
//! - nothing inside `#if 0` blocks (the ranges hipify-clang's preprocessor
//!   skips), unless [`Options::amap`] asks for identifiers there;
//! - `#include` targets from `data/headers.tsv`, keeping `<>` or `""`; a second
//!   CUDA include that maps to an already produced HIP header is dropped (the
//!   line stays, empty), as is a header HIP does not need
//!   (`device_launch_parameters.h`);
//! - a `.cu`/`.cuh` file that uses CUDA (or any file with device code) but
//!   includes no runtime header gets `#include "hip/hip_runtime.h"` where
//!   hipify-clang puts its runtime include: right after `#pragma once` or the include guard's macro name,
//!   else before the first `#include`, else at the top of the file;
//! - `k<<<g, b, s, q>>>(args)` stays (valid HIP) unless
//!   [`Options::hip_kernel_execution_syntax`] turns it into
//!   `hipLaunchKernelGGL(k, dim3(g), dim3(b), s, q, args)`, with
//!   `HIP_KERNEL_NAME(...)` around template kernels.
//!
//! Invariants: text that needs no translation comes back byte for byte; bad
//! input (binary, invalid UTF-8, unterminated comment or literal) is an error,
//! never a partial output; the translator never panics on user input;
//! translating its own output again changes nothing.

mod calls;
pub mod cli;
pub mod error;
mod launch;
pub mod lexer;
mod pp;
pub mod stats;
mod structure;
pub mod tables;
mod translate;

pub use cli::{cli_main, cli_run, CliOutcome};
pub use error::HipifyError;
pub use stats::Stats;
pub use tables::{table_counts, Api};
pub use translate::{
    translate, translate_bytes, HeaderStyle, Macro, Options, RuntimeInclude, Translation, Warning,
};
