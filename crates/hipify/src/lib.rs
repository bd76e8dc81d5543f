//! `ferrocm-hipify`: a CUDA to HIP source translator, the ferrocm counterpart
//! of AMD's hipify-perl and hipify-clang.
//!
//! Design: a byte-preserving lexer ([`lexer`]) feeds one translation pass
//! ([`translate()`]) that looks identifiers up in data tables ([`tables`],
//! embedded from `data/*.tsv`) and records edits; the output is the input with
//! those edits applied. Names are replaced only as whole tokens, never inside
//! comments, string literals or `#if 0` regions.
//!
//! Invariants: text that needs no translation comes back byte for byte; bad
//! input (binary, invalid UTF-8, unterminated comment or literal) is an error,
//! never a partial output; the translator never panics on user input.

mod calls;
pub mod cli;
pub mod error;
mod launch;
pub mod lexer;
pub mod stats;
pub mod tables;
mod translate;

pub use cli::cli_main;
pub use error::HipifyError;
pub use stats::Stats;
pub use tables::{table_counts, Api};
pub use translate::{translate, translate_bytes, Options, Translation, Warning};
