//! Errors of the translator and of the command-line front end.

use std::path::PathBuf;

/// Everything that can go wrong while translating; messages are sentences
/// without a trailing period, prefixed with the file by the caller.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HipifyError {
    #[error("unterminated {what} starting at {line}:{column}")]
    Unterminated { what: &'static str, line: usize, column: usize },
    #[error(
        "raw string literal starting at {line}:{column}: its delimiter {reason} \
         (a delimiter is at most 16 characters, without spaces, parentheses, backslashes or control characters)"
    )]
    RawStringDelimiter { line: usize, column: usize, reason: &'static str },
    #[error("input looks binary (NUL byte at offset {offset}); not translated")]
    Binary { offset: usize },
    #[error("input is not valid UTF-8 (first bad byte at offset {offset}); not translated")]
    InvalidUtf8 { offset: usize },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("unknown option '{option}' (see --help)")]
    UnknownOption { option: String },
    #[error("option '{option}' needs a value")]
    MissingValue { option: String },
    #[error("option '{option}' does not take '{value}'; allowed: {allowed}")]
    BadValue { option: String, value: String, allowed: &'static str },
    #[error("'{first}' cannot be combined with '{second}'")]
    ConflictingOptions { first: &'static str, second: &'static str },
    #[error("{path} is read-only; it is not replaced (make it writable or write elsewhere)")]
    ReadOnlyOutput { path: PathBuf },
    #[error("{first} and {second} would both be written to {output}; give them separate --o-dir runs")]
    OutputCollision { output: PathBuf, first: PathBuf, second: PathBuf },
    #[error("writing to {path} would replace an input; use --inplace to translate a file in place")]
    OverwritesInput { path: PathBuf },
    #[error("{reason}")]
    Usage { reason: String },
}
