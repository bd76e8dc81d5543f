//! Errors for arguments BLAS rejects (after rocBLAS's `rocblas_status` values: invalid size,
//! invalid value, invalid pointer, not implemented), each naming the argument and the rule.

/// What was wrong with a BLAS call. Nothing is written when a routine returns an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BlasError {
    /// A leading dimension smaller than the rows stored (`rocblas_status_invalid_size`).
    #[error("{arg} is {ld}, but must be at least max(1, {rows}) (the rows of the stored matrix)")]
    LeadingDimension {
        /// The argument (`lda`, `ldb`, `ldc`).
        arg: &'static str,
        /// The value given.
        ld: usize,
        /// The rows the matrix stores.
        rows: usize,
    },
    /// A zero increment where BLAS requires a non-zero one (`rocblas_status_invalid_size`).
    #[error("{arg} must not be 0")]
    ZeroIncrement {
        /// The argument (`incx`, `incy`).
        arg: &'static str,
    },
    /// A vector view too short for `n` elements at increment `inc`.
    #[error(
        "{arg} has {len} elements, but {n} elements at increment {inc} need (n - 1) * |inc| + 1 = {required}"
    )]
    VectorTooShort {
        /// The argument (`x`, `y`, ...).
        arg: &'static str,
        /// The view's length.
        len: usize,
        /// The elements the call uses.
        n: usize,
        /// The increment.
        inc: isize,
        /// The length needed.
        required: usize,
    },
    /// A matrix view too short for its shape and leading dimension.
    #[error(
        "{arg} has {len} elements, but a {rows} x {cols} matrix with leading dimension {ld} needs ld * (cols - 1) + rows = {required}"
    )]
    MatrixTooShort {
        /// The argument (`a`, `b`, `c`).
        arg: &'static str,
        /// The view's length.
        len: usize,
        /// Stored rows.
        rows: usize,
        /// Stored columns.
        cols: usize,
        /// The leading dimension.
        ld: usize,
        /// The length needed.
        required: usize,
    },
    /// A view too short for something other than a vector or a full matrix (a packed or
    /// banded matrix, a batch, a rotation's parameters).
    #[error("{arg} has {len} elements, but {what} needs {required}")]
    TooShort {
        /// The argument.
        arg: &'static str,
        /// The view's length.
        len: usize,
        /// What it must hold.
        what: &'static str,
        /// The length needed.
        required: usize,
    },
    /// An argument outside the values a routine accepts (`rocblas_status_invalid_value`).
    #[error("{arg} is {value}, but {rule}")]
    InvalidValue {
        /// The argument.
        arg: &'static str,
        /// The value given, as text.
        value: String,
        /// What is allowed.
        rule: &'static str,
    },
    /// A size whose element count or index does not fit (in `usize`, or in the 32-bit
    /// indices the GPU kernels use).
    #[error("{arg} = {value} is too large: {rule}")]
    SizeTooLarge {
        /// The argument or product.
        arg: &'static str,
        /// The value.
        value: u128,
        /// The limit.
        rule: &'static str,
    },
    /// A view on another device than the handle's stream.
    #[error("{arg} is on device {device}, but the handle's stream is on device {handle_device}")]
    DeviceMismatch {
        /// The argument.
        arg: &'static str,
        /// The view's device.
        device: usize,
        /// The handle's device.
        handle_device: usize,
    },
    /// A type combination or feature this library does not provide
    /// (`rocblas_status_not_implemented`).
    #[error("not supported: {what}")]
    Unsupported {
        /// What was asked.
        what: String,
    },
    /// A workspace smaller than the routine needs.
    #[error("the workspace has {available} bytes, but this call needs {required}")]
    WorkspaceTooSmall {
        /// Bytes the call needs.
        required: u64,
        /// Bytes the handle's workspace has.
        available: u64,
    },
    /// The runtime refused an allocation, copy or launch.
    #[error("device runtime: {0}")]
    Runtime(#[from] ferrocm_kernel::runtime::Error),
    /// A kernel could not be built, compiled or launched.
    #[error("kernel: {message}")]
    Kernel {
        /// The kernel layer's message.
        message: String,
    },
}

impl From<ferrocm_kernel::KernelError> for BlasError {
    fn from(e: ferrocm_kernel::KernelError) -> Self {
        BlasError::Kernel { message: e.to_string() }
    }
}

/// The crate's result type.
pub type Result<T, E = BlasError> = std::result::Result<T, E>;
