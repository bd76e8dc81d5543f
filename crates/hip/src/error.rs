//! HIP's error codes, their names and descriptions, the per-thread last error, and the guard
//! every exported function runs its body in (no panic crosses the C boundary).

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, CStr};

use ferrocm_runtime::{BackendError, Error};

/// `hipError_t`: HIP's error code (an `int` in C).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct HipError(pub i32);

macro_rules! codes {
    ($($name:ident = $v:expr, $desc:literal;)*) => {
        #[allow(non_upper_case_globals)]
        impl HipError {
            $(pub const $name: HipError = HipError($v);)*
        }
        /// (code, name, description) for every code this library returns.
        const TABLE: &[(i32, &CStr, &CStr)] = &[
            $(($v, c_str(concat!(stringify!($name), "\0")), c_str(concat!($desc, "\0"))),)*
        ];
    };
}

const fn c_str(s: &'static str) -> &'static CStr {
    match CStr::from_bytes_with_nul(s.as_bytes()) {
        Ok(c) => c,
        Err(_) => panic!("error table strings end in one NUL"),
    }
}

codes! {
    hipSuccess = 0, "no error";
    hipErrorInvalidValue = 1, "invalid argument";
    hipErrorOutOfMemory = 2, "out of memory";
    hipErrorNotInitialized = 3, "initialization error";
    hipErrorInvalidConfiguration = 9, "invalid configuration argument";
    hipErrorInvalidPitchValue = 12, "invalid pitch argument";
    hipErrorInvalidSymbol = 13, "invalid device symbol";
    hipErrorInvalidDevicePointer = 17, "invalid device pointer";
    hipErrorInvalidMemcpyDirection = 21, "invalid copy direction for memcpy";
    hipErrorInsufficientDriver = 35, "driver version is insufficient for runtime version";
    hipErrorMissingConfiguration = 52, "__global__ function call is not configured";
    hipErrorInvalidDeviceFunction = 98, "invalid device function";
    hipErrorNoDevice = 100, "no device found";
    hipErrorInvalidDevice = 101, "invalid device ordinal";
    hipErrorInvalidImage = 200, "device kernel image is invalid";
    hipErrorNoBinaryForGpu = 209, "no kernel image is available for execution on the device";
    hipErrorPeerAccessUnsupported = 217, "peer access is not supported between these two devices";
    hipErrorInvalidKernelFile = 218, "a PTX JIT compilation failed";
    hipErrorFileNotFound = 301, "file not found";
    hipErrorOperatingSystem = 304, "OS call failed or operation not supported on this OS";
    hipErrorInvalidHandle = 400, "invalid resource handle";
    hipErrorIllegalState = 401, "the operation cannot be performed in the present state";
    hipErrorUnsupportedLimit = 215, "unsupported limit";
    hipErrorNotFound = 500, "named symbol not found";
    hipErrorNotReady = 600, "device not ready";
    hipErrorIllegalAddress = 700, "an illegal memory access was encountered";
    hipErrorLaunchOutOfResources = 701, "too many resources requested for launch";
    hipErrorPeerAccessAlreadyEnabled = 704, "peer access is already enabled";
    hipErrorPeerAccessNotEnabled = 705, "peer access has not been enabled";
    hipErrorAssert = 710, "device-side assert triggered";
    hipErrorMisalignedAddress = 716, "misaligned address";
    hipErrorLaunchFailure = 719, "unspecified launch failure";
    hipErrorCooperativeLaunchTooLarge = 720, "too many blocks in cooperative launch";
    hipErrorNotSupported = 801, "operation not supported";
    hipErrorUnknown = 999, "unknown error";
}

impl HipError {
    fn entry(self) -> Option<&'static (i32, &'static CStr, &'static CStr)> {
        TABLE.iter().find(|e| e.0 == self.0)
    }

    /// The code's name (`hipErrorInvalidValue`), or `hipErrorUnknown` for a code HIP lacks.
    pub fn name(self) -> &'static CStr {
        self.entry().map(|e| e.1).unwrap_or(c"hipErrorUnknown")
    }

    /// The code's description.
    pub fn description(self) -> &'static CStr {
        self.entry().map(|e| e.2).unwrap_or(c"unknown error")
    }
}

/// An error with the runtime's message, so the log and the last message can say what was
/// wrong, not only its code.
#[derive(Debug)]
pub struct Failure {
    pub code: HipError,
    pub message: String,
}

impl Failure {
    pub fn new(code: HipError, message: impl Into<String>) -> Failure {
        Failure { code, message: message.into() }
    }

    pub fn invalid(message: impl Into<String>) -> Failure {
        Failure::new(HipError::hipErrorInvalidValue, message)
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure { code: code_of(&e), message: e.to_string() }
    }
}

pub type HipResult<T> = Result<T, Failure>;

/// HIP's code for a runtime error.
pub fn code_of(e: &Error) -> HipError {
    use HipError as H;
    match e {
        Error::InvalidDevice { .. } => H::hipErrorInvalidDevice,
        Error::NoDevice { .. } => H::hipErrorNoDevice,
        Error::InvalidEnvironment { .. } => H::hipErrorNotInitialized,
        Error::AllocationTooLarge { .. } | Error::OutOfMemory { .. } | Error::HostOutOfMemory { .. } => {
            H::hipErrorOutOfMemory
        }
        Error::NoPeerAccess { .. } => H::hipErrorPeerAccessNotEnabled,
        Error::PeerAccessUnsupported { .. } => H::hipErrorPeerAccessUnsupported,
        Error::LaunchTooLarge { .. } | Error::EmptyLaunch { .. } => H::hipErrorInvalidConfiguration,
        Error::KernelTooLarge { .. } => H::hipErrorLaunchOutOfResources,
        Error::ModuleTarget { .. } => H::hipErrorNoBinaryForGpu,
        Error::EventNotReady { .. } => H::hipErrorNotReady,
        Error::Unsupported { .. } => H::hipErrorNotSupported,
        Error::NotPermitted { .. } => H::hipErrorIllegalState,
        Error::InvalidLaunch { rule } if rule.contains("cooperative grid") => {
            H::hipErrorCooperativeLaunchTooLarge
        }
        Error::InvalidLaunch { .. } => H::hipErrorInvalidConfiguration,
        Error::Backend { source, .. } => backend_code(source),
        _ => H::hipErrorInvalidValue,
    }
}

fn backend_code(e: &BackendError) -> HipError {
    use HipError as H;
    match e {
        // The CUDA driver's codes are the runtime's for every error HIP names.
        BackendError::Driver { code, .. } => {
            let h = HipError(*code);
            if h.entry().is_some() {
                h
            } else {
                H::hipErrorUnknown
            }
        }
        BackendError::KernelFailed { message, .. } => {
            if message.contains("device-side assertion") {
                H::hipErrorAssert
            } else if message.contains("misaligned address") {
                H::hipErrorMisalignedAddress
            } else if message.contains("illegal address") || message.contains("out of bounds") {
                H::hipErrorIllegalAddress
            } else {
                H::hipErrorLaunchFailure
            }
        }
        BackendError::InvalidDevice { .. } => H::hipErrorInvalidDevice,
        BackendError::NotPermitted { .. } => H::hipErrorIllegalState,
        BackendError::Unavailable { .. } => H::hipErrorInsufficientDriver,
        BackendError::OutOfMemory { .. } => H::hipErrorOutOfMemory,
        BackendError::Unsupported { .. } => H::hipErrorNotSupported,
        BackendError::InvalidHandle { .. } => H::hipErrorInvalidHandle,
        BackendError::ModuleLoad { .. } => H::hipErrorInvalidKernelFile,
        BackendError::FunctionNotFound { .. } => H::hipErrorNotFound,
        BackendError::Os { .. } => H::hipErrorOperatingSystem,
        BackendError::EventNotReady { .. } => H::hipErrorNotReady,
        _ => H::hipErrorUnknown,
    }
}

thread_local! {
    static LAST: Cell<HipError> = const { Cell::new(HipError::hipSuccess) };
    static MESSAGE: RefCell<std::ffi::CString> = RefCell::new(std::ffi::CString::default());
}

/// Returns the thread's last error and resets it (`hipGetLastError`).
pub fn take_last() -> HipError {
    LAST.replace(HipError::hipSuccess)
}

/// The thread's last error (`hipPeekAtLastError`).
pub fn peek_last() -> HipError {
    LAST.get()
}

/// The message of the thread's last failure, valid until the thread's next failure.
pub fn last_message() -> *const c_char {
    MESSAGE.with(|m| m.borrow().as_ptr())
}

fn log_enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("FERROCM_HIP_LOG").is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// Records `f` as the thread's last failure (and logs it with `FERROCM_HIP_LOG=1`).
pub fn record(api: &str, f: &Failure) {
    LAST.set(f.code);
    let text = format!("{api}: {} ({}): {}", f.code.name().to_string_lossy(), f.code.0, f.message);
    MESSAGE.with(|m| *m.borrow_mut() = std::ffi::CString::new(text.replace('\0', " ")).unwrap_or_default());
    if log_enabled() {
        eprintln!("ferrocm hip: {text}");
    }
}

/// Runs an exported function's body: a failure becomes its code and the thread's last error;
/// a panic (a bug in this library) becomes `hipErrorUnknown`, never unwinding into C.
pub fn guard(api: &'static str, body: impl FnOnce() -> HipResult<()>) -> HipError {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)).unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(Failure::new(HipError::hipErrorUnknown, format!("internal error (panic): {what}")))
    });
    match r {
        Ok(()) => HipError::hipSuccess,
        Err(f) => {
            record(api, &f);
            f.code
        }
    }
}

/// Like [`guard`], for the few exports that return something other than an error code.
pub fn guard_value<T>(api: &'static str, fallback: T, body: impl FnOnce() -> HipResult<T>) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(Ok(v)) => v,
        Ok(Err(f)) => {
            record(api, &f);
            fallback
        }
        Err(_) => {
            record(api, &Failure::new(HipError::hipErrorUnknown, "internal error (panic)"));
            fallback
        }
    }
}

/// Writes `v` through an out-parameter, refusing a null pointer.
///
/// # Safety
/// A non-null `p` must be valid for writes of a `T` (the C caller's promise).
pub unsafe fn out<T>(p: *mut T, what: &str, v: T) -> HipResult<()> {
    if p.is_null() {
        return Err(Failure::invalid(format!("{what} is a null pointer")));
    }
    // SAFETY: non-null, and valid by the caller's contract.
    unsafe { p.write(v) };
    Ok(())
}
