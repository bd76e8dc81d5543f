use crate::nvml::NvmlError;

/// What went wrong in `ferrocm smi`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SmiError {
    /// The runtime could not list the devices (e.g. a bad `FERROCM_*` variable).
    #[error(transparent)]
    Runtime(#[from] ferrocm_runtime::Error),
    /// An NVML call failed where no "N/A" can stand in for it.
    #[error(transparent)]
    Nvml(#[from] NvmlError),
    /// A `-d` value names no device.
    #[error("no device `{spec}`: {reason}; the devices are {available}")]
    UnknownDevice { spec: String, reason: String, available: String },
    /// A `-d` list names the same device twice.
    #[error("device `{spec}` is selected twice (it is device {index})")]
    DuplicateDevice { spec: String, index: usize },
    /// A `-d` list with an empty entry.
    #[error("empty device in `{list}`: expected a device index, a PCI bus id, a UUID or `all`")]
    EmptyDevice { list: String },
    /// A monitor interval outside what is allowed.
    #[error("monitor interval {seconds} s is invalid: expected {min} to {max} seconds")]
    InvalidInterval { seconds: f64, min: f64, max: f64 },
    /// A monitor sample count of zero.
    #[error("monitor count {count} is invalid: expected at least 1 sample")]
    InvalidCount { count: u64 },
    /// A file under /proc or /sys could not be read.
    #[error("cannot read {path}: {message}")]
    HostRead { path: String, message: String },
    /// A file under /proc or /sys is not in the format the kernel writes.
    #[error("{path} line {line}: {reason}")]
    HostParse { path: String, line: usize, reason: String },
}
