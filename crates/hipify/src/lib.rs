//! `ferrocm-hipify`: a CUDA to HIP source translator, the ferrocm counterpart
//! of AMD's hipify-perl and hipify-clang. By default it writes what
//! hipify-clang writes, without clang or CUDA.
//!
//! Design: a byte-preserving lexer ([`lexer`]) that also decides which
//! preprocessor groups are kept feeds one translation pass ([`translate()`])
//! that looks identifiers up in data tables ([`tables`], embedded from
//! `data/*.tsv`) and records edits; the output is the input with those edits
//! applied. Call-site rewrites (`HIP_SYMBOL()`, added, replaced, moved or
//! removed arguments, casts, overloads by argument count) are rows of
//! `data/calls.tsv`; kernel launches are rewritten only on request. One pass
//! over the brackets (`structure.rs`) serves every argument list, so the time
//! is linear in the input on every input.
//!
//! What is translated, and where the choices follow hipify-clang:
//! - every identifier token found in a table, wherever it stands (also after
//!   `.`, `->` or `::`), never in comments; in a plain string literal, a whole
//!   CUDA name running from a `cu` to the next space or the end (hipify-clang's
//!   rule); the namespace `cub` only where hipify-clang's AST matchers rename
//!   it (`typedef cub::X<...> Y;`, a function template's `cub::`-typed non-type
//!   parameter, `using namespace cub;`, a template kernel's name in HIP launch
//!   syntax): `cub::DeviceReduce::Sum(...)` stays, as it does there;
//! - every `#if`/`#ifdef`/`#elif`/`#else` group, whatever its condition, as
//!   hipify-clang does by default (it sets clang's
//!   `RetainExcludedConditionalBlocks` unless given `--default-preprocessor`,
//!   `src/LLVMCompat.cpp`): names, includes and launches of `#if 0` code too.
//!   With [`Options::default_preprocessor`], only what the preprocessor keeps:
//!   conditions are evaluated with [`Options::macros`] (`-D`/`-U`), the file's
//!   own `#define`s and clang's CUDA host predefinitions; a condition on a
//!   value only CUDA's headers know keeps its group; [`Options::amap`] then
//!   translates identifiers in excluded groups too;
//! - `#include` targets from HIPIFY's include map (`data/headers.tsv`), keeping
//!   `<>` or `""`; only the first include of an API's main header is kept (later
//!   ones are dropped, the line stays), as is a header HIP does not need
//!   (`device_launch_parameters.h`); [`HeaderStyle::Subdirectories`] spells
//!   library headers as ROCm 7 installs them;
//! - a file that uses CUDA but includes neither `cuda.h` nor `cuda_runtime.h`
//!   gets `"\n#include <hip/hip_runtime.h>\n"` where hipify-clang puts it: after
//!   `#pragma once` or the include guard's `#ifndef` name (whichever comes
//!   first), else at the `#` of the first `#include`, else at the top of the
//!   file (after a byte order mark);
//! - a legacy cuBLAS level 1/2/3 routine (`cublasSaxpy`, `cublasSgemm`: those
//!   `cublas_v2.h` redefines as `_v2`) is translated only in a file that
//!   includes `cublas_v2.h`; elsewhere it stays with hipify-clang's warning
//!   (`HIP_SUPPORTED_V2_ONLY`); the `_v2` spellings always translate;
//! - `--roc` ([`Options::roc`]) turns cuBLAS, cuSPARSE, cuSOLVER and cuDNN into
//!   rocBLAS, rocSPARSE, rocSOLVER and MIOpen, and only those, as hipify-clang does;
//! - `k<<<g, b, s, q>>>(args)` stays (valid HIP) unless
//!   [`Options::hip_kernel_execution_syntax`] turns it into
//!   `hipLaunchKernelGGL(k, dim3(g), dim3(b), s, q, args)`, with
//!   `HIP_KERNEL_NAME(...)` around template kernels; comments and preprocessor
//!   lines inside a launch are kept. A launch configured by a user macro whose
//!   body is only `<<<...>>>` (`k KERNEL_ARGS2(g, b)(args)`) is written with the
//!   configuration the macro expands to; the definition stays;
//! - `--roc` leaves cuSOLVER names that HIPIFY lists as unsupported in ROC (all
//!   but handles, streams, statuses, eigen-mode enums and `potrf`) unchanged,
//!   with a warning, as it does for cuBLAS and cuSPARSE;
//! - a member `x` or `y` of a `half2` object becomes `reinterpret_cast<half&>(h.x)`
//!   with a warning (hipify-clang's `half2Member`; HIP declares the members
//!   `unsigned short`), unless [`Options::undocumented_features`] is off; the
//!   objects come from the file's declarations (`src/half2.rs`).
//!
//! Invariants: text that needs no translation comes back byte for byte (a file
//! that uses no CUDA gets no runtime include); bytes outside UTF-8 pass through
//! ([`translate_bytes`]); bad input (a NUL byte, an unterminated comment or
//! literal) is an error, never a partial output; the translator never panics
//! on user input; translating its own output again changes nothing.

mod calls;
pub mod cli;
pub mod error;
mod half2;
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
