use std::path::PathBuf;

/// What went wrong while configuring a profiling session or writing its output.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProfError {
    /// An environment variable of the session holds a value that cannot be used.
    #[error("environment variable {var}={value:?} is invalid: {allowed}")]
    InvalidEnvironment { var: &'static str, value: String, allowed: String },
    /// An output format that is not supported.
    #[error("unknown output format `{format}`: expected a comma-separated list of {allowed}")]
    UnknownFormat { format: String, allowed: &'static str },
    /// A file could not be written or read.
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The ceilings cache exists but cannot be read.
    #[error("ceilings cache {path} is not valid: {reason}")]
    BadCeilings { path: PathBuf, reason: String },
}

pub type Result<T, E = ProfError> = std::result::Result<T, E>;
