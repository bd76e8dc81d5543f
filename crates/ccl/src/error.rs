use std::time::Duration;

/// The result of a CCL call.
pub type Result<T, E = CclError> = std::result::Result<T, E>;

fn list(ranks: &[usize]) -> String {
    let v: Vec<String> = ranks.iter().map(|r| r.to_string()).collect();
    v.join(", ")
}

/// What went wrong in a communicator call, with the values involved.
///
/// Failures of a running collective (timeouts, dead ranks, mismatched calls) are reported on
/// every rank of the communicator: the rank that detects one aborts the communicator with it,
/// and the others fail with the same error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CclError {
    /// An argument outside what is allowed.
    #[error("invalid {what} {value}: {allowed}")]
    InvalidArgument { what: &'static str, value: String, allowed: String },
    /// A buffer shorter than the operation needs.
    #[error("{what} holds {len} elements but the operation needs {required}")]
    BufferTooSmall { what: &'static str, len: usize, required: usize },
    /// A buffer or stream of another device than the communicator's.
    #[error("{what} belongs to device {actual} but the communicator's rank runs on device {expected}")]
    DeviceMismatch { what: &'static str, expected: usize, actual: usize },
    /// An environment variable holds a value the library cannot use.
    #[error("environment variable {var}={value:?} is invalid: {allowed}")]
    InvalidEnvironment { var: &'static str, value: String, allowed: String },
    /// A unique id that cannot be parsed or used.
    #[error("invalid unique id: {reason}")]
    InvalidUniqueId { reason: String },
    /// Setting up the communicator (the bootstrap over TCP) failed.
    #[error("bootstrap: {operation} failed: {reason}")]
    Bootstrap { operation: &'static str, reason: String },
    /// A transport between two ranks failed.
    #[error("{transport} transport to rank {peer}: {reason}")]
    Transport { transport: &'static str, peer: usize, reason: String },
    /// A library or facility the call needs is not present.
    #[error("{what} is not available: {reason}")]
    Unavailable { what: &'static str, reason: String },
    /// The call is valid but the library does not do it for this configuration.
    #[error("not supported: {what}")]
    Unsupported { what: String },
    /// `group_end` without `group_start`, or a group used wrongly.
    #[error("group call misuse: {reason}")]
    Group { reason: String },
    /// An operation did not complete within `FERROCM_CCL_TIMEOUT`.
    #[error("{operation} timed out after {:.1} s: rank(s) {} did not arrive{}", waited.as_secs_f64(), list(missing), if detail.is_empty() { String::new() } else { format!(" ({detail})") })]
    Timeout { operation: String, waited: Duration, missing: Vec<usize>, detail: String },
    /// A rank of the communicator died (its process exited or its connection was lost).
    #[error("rank(s) {} died{}: {detail}", list(ranks), operation.as_ref().map(|o| format!(" during {o}")).unwrap_or_default())]
    RankDied { ranks: Vec<usize>, operation: Option<String>, detail: String },
    /// Two ranks called the same operation with different arguments (count, type, operator,
    /// root) or in a different order.
    #[error("mismatched calls in {operation}: rank {rank} and rank {peer} disagree: {detail}")]
    Mismatch { operation: String, rank: usize, peer: usize, detail: String },
    /// The communicator was aborted (by `abort`, or after a failure on some rank).
    #[error("communicator aborted: {reason}")]
    Aborted { reason: String },
    /// The runtime refused a call.
    #[error(transparent)]
    Runtime(#[from] ferrocm_runtime::Error),
    /// A data-movement kernel could not be built, loaded or launched.
    #[error("{message}")]
    Kernel { message: String },
}

impl From<ferrocm_kernel::KernelError> for CclError {
    fn from(e: ferrocm_kernel::KernelError) -> CclError {
        CclError::Kernel { message: e.to_string() }
    }
}

impl CclError {
    pub(crate) fn invalid(what: &'static str, value: impl ToString, allowed: impl Into<String>) -> CclError {
        CclError::InvalidArgument { what, value: value.to_string(), allowed: allowed.into() }
    }

    pub(crate) fn bootstrap(operation: &'static str, reason: impl ToString) -> CclError {
        CclError::Bootstrap { operation, reason: reason.to_string() }
    }

    /// Whether this error ends the communicator (every rank fails with it).
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            CclError::Timeout { .. }
                | CclError::RankDied { .. }
                | CclError::Mismatch { .. }
                | CclError::Aborted { .. }
                | CclError::Transport { .. }
        )
    }
}
