use crate::BackendKind;

/// The result of a backend call.
pub type Result<T, E = BackendError> = std::result::Result<T, E>;

/// What can go wrong inside a backend.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// The vendor driver returned an error code.
    #[error("{call} failed: {name} ({code}): {message}")]
    Driver { call: &'static str, code: i32, name: String, message: String },
    /// A device ordinal past the backend's devices.
    #[error("invalid device ordinal {device}: the backend has {count} device(s)")]
    InvalidDevice { device: u32, count: u32 },
    /// The operation is not allowed in the current state (e.g. from inside a host callback).
    #[error("{what} is not permitted: {reason}")]
    NotPermitted { what: &'static str, reason: &'static str },
    /// The driver library or one of its symbols could not be loaded.
    #[error("{backend} driver not available: {reason}")]
    Unavailable { backend: BackendKind, reason: String },
    /// The device has too little free memory for the request.
    #[error("out of memory on device {device}: requested {requested} bytes, {free} bytes free")]
    OutOfMemory { device: u32, requested: u64, free: u64 },
    /// The backend does not implement the operation.
    #[error("{backend} backend does not support {what}")]
    Unsupported { backend: BackendKind, what: &'static str },
    /// A handle or pointer the backend does not know (a runtime bug, or use after destroy).
    #[error("invalid {what} handle {handle:#x}")]
    InvalidHandle { what: &'static str, handle: u64 },
    /// A module image the backend cannot load, with the compiler's log.
    #[error("module load failed: {log}")]
    ModuleLoad { log: String },
    /// A module has no function of this name.
    #[error("module has no kernel named `{name}`")]
    FunctionNotFound { name: String },
    /// A kernel failed while running (CPU executor errors: out-of-range access, divergent barrier).
    #[error("kernel `{kernel}` failed: {message}")]
    KernelFailed { kernel: String, message: String },
    /// The operating system refused a resource the backend needs (a thread, a mapping).
    #[error("could not create {what}: {message}")]
    Os { what: &'static str, message: String },
    /// A value the backend cannot accept (a runtime bug: the runtime validates first).
    #[error("{call}: invalid value: {message}")]
    InvalidValue { call: &'static str, message: String },
    /// An event was queried for elapsed time before it completed or without timing.
    #[error("event not ready: {reason}")]
    EventNotReady { reason: &'static str },
}
