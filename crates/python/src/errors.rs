//! ferrocm's errors as Python exceptions: bad arguments are `ValueError`, exhausted memory is
//! `MemoryError`, and device, driver or kernel failures are `ferrocm.DeviceError` (a subclass of
//! `ferrocm.Error`). The message is ferrocm's own.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyMemoryError, PyValueError};
use pyo3::PyErr;

create_exception!(ferrocm, Error, PyException, "Base class of ferrocm's own exceptions.");
create_exception!(ferrocm, DeviceError, Error, "A device, its driver or a kernel failed.");

/// Converts a runtime error.
pub fn runtime(e: ferrocm::Error) -> PyErr {
    use ferrocm::Error as E;
    let msg = e.to_string();
    match e {
        E::OutOfMemory { .. } | E::AllocationTooLarge { .. } | E::HostOutOfMemory { .. } => {
            PyMemoryError::new_err(msg)
        }
        E::InvalidDevice { .. }
        | E::InvalidEnvironment { .. }
        | E::ZeroSizedAllocation
        | E::LengthMismatch { .. }
        | E::OutOfRange { .. }
        | E::DeviceMismatch { .. }
        | E::NoPeerAccess { .. }
        | E::PeerAccessUnsupported { .. }
        | E::LaunchTooLarge { .. }
        | E::EmptyLaunch { .. }
        | E::ModuleTarget { .. }
        | E::EventNotReady { .. }
        | E::InvalidTensorMap { .. }
        | E::InvalidLaunch { .. }
        | E::InvalidCast { .. }
        | E::KernelTooLarge { .. } => PyValueError::new_err(msg),
        _ => DeviceError::new_err(msg),
    }
}

/// Converts a RAND error: a bad parameter is a `ValueError`, the rest come from the device.
pub fn rand(e: ferrocm_rand::RandError) -> PyErr {
    use ferrocm_rand::RandError as R;
    match e {
        R::Runtime(inner) => runtime(inner),
        e => {
            let msg = e.to_string();
            if matches!(e, R::Kernel { .. }) {
                DeviceError::new_err(msg)
            } else {
                PyValueError::new_err(msg)
            }
        }
    }
}

/// A `ValueError` with `msg`.
pub fn value(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// Converts an FFT error: argument errors are `ValueError`s, runtime errors as [`runtime`],
/// kernel build failures are device errors.
pub fn fft(e: ferrocm::fft::FftError) -> PyErr {
    use ferrocm::fft::FftError as F;
    match e {
        F::Runtime(inner) => runtime(inner),
        F::Kernel { .. } => DeviceError::new_err(e.to_string()),
        e => PyValueError::new_err(e.to_string()),
    }
}

/// Converts a BLAS error, as [`fft`].
pub fn blas(e: ferrocm::blas::BlasError) -> PyErr {
    use ferrocm::blas::BlasError as B;
    match e {
        B::Runtime(inner) => runtime(inner),
        B::Kernel { .. } => DeviceError::new_err(e.to_string()),
        e => PyValueError::new_err(e.to_string()),
    }
}

create_exception!(
    ferrocm,
    CommError,
    Error,
    "A collective failed: a rank died or timed out, ranks disagreed, or a transport broke. The \
     communicator is unusable afterwards: destroy it."
);

/// Converts a CCL error: bad arguments are `ValueError`s, failures of the group (timeouts,
/// dead ranks, mismatched calls, transports, bootstrap) are `ferrocm.CommError`.
pub fn ccl(e: ferrocm::ccl::CclError) -> PyErr {
    use ferrocm::ccl::CclError as C;
    match e {
        C::Runtime(inner) => runtime(inner),
        C::InvalidArgument { .. }
        | C::BufferTooSmall { .. }
        | C::DeviceMismatch { .. }
        | C::InvalidEnvironment { .. }
        | C::InvalidUniqueId { .. }
        | C::Unsupported { .. }
        | C::Group { .. } => PyValueError::new_err(e.to_string()),
        C::Kernel { .. } => DeviceError::new_err(e.to_string()),
        e => CommError::new_err(e.to_string()),
    }
}
