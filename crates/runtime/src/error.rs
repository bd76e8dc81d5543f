use ferrocm_backend::{BackendError, BackendKind};

/// The result of a runtime call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, with the value that was asked for and the limit it broke.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A device index past the end of the device list.
    #[error("invalid device index {index}: {count} device(s) are visible (valid indices 0..{count})")]
    InvalidDevice { index: usize, count: usize },
    /// No device of the requested kind is visible.
    #[error("no {backend} device is visible{}", reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default())]
    NoDevice { backend: BackendKind, reason: Option<String> },
    /// An environment variable holds a value ferrocm cannot use.
    #[error("environment variable {var}={value:?} is invalid: {allowed}")]
    InvalidEnvironment { var: &'static str, value: String, allowed: String },
    /// An allocation of zero elements or bytes.
    #[error("cannot allocate zero bytes: allocations must hold at least one element")]
    ZeroSizedAllocation,
    /// An allocation larger than the device's whole memory (or than the address space).
    #[error("allocation of {requested} bytes exceeds the memory of device {device} ({total} bytes)")]
    AllocationTooLarge { device: usize, requested: u128, total: u64 },
    /// The device has too little free memory left.
    #[error("out of memory on device {device}: requested {requested} bytes, {free} bytes free")]
    OutOfMemory { device: usize, requested: u64, free: u64 },
    /// Two lengths that must be equal are not.
    #[error("length mismatch in {operation}: destination holds {destination} elements, source {source_len}")]
    LengthMismatch { operation: &'static str, destination: usize, source_len: usize },
    /// A range outside a buffer.
    #[error("range {start}..{end} is out of bounds for a buffer of {len} elements")]
    OutOfRange { start: usize, end: usize, len: usize },
    /// An object of one device used with another device.
    #[error("{what} belongs to device {actual} but the operation runs on device {expected}")]
    DeviceMismatch { what: &'static str, expected: usize, actual: usize },
    /// A device used memory of another device without peer access enabled.
    #[error("device {device} cannot access memory of device {peer}: enable peer access first (Device::enable_peer_access)")]
    NoPeerAccess { device: usize, peer: usize },
    /// The hardware does not allow peer access between the two devices.
    #[error("device {device} cannot be given access to device {peer}: {reason}")]
    PeerAccessUnsupported { device: usize, peer: usize, reason: &'static str },
    /// A launch dimension over the device or kernel limit.
    #[error("launch {what} = {requested} exceeds the limit {max}")]
    LaunchTooLarge { what: &'static str, requested: u64, max: u64 },
    /// A kernel that declares more of a resource than a GPU allows.
    #[error("kernel `{kernel}` declares {requested} {what}, over the limit of {max}")]
    KernelTooLarge { kernel: String, what: &'static str, requested: u64, max: u64 },
    /// A launch dimension of zero.
    #[error("launch {what} is zero: every grid and block dimension must be at least 1")]
    EmptyLaunch { what: &'static str },
    /// A module built for another kind of device.
    #[error("module image targets the {image} backend but device {device} is a {backend} device")]
    ModuleTarget { device: usize, image: BackendKind, backend: BackendKind },
    /// An event used for timing before it was recorded and completed.
    #[error("event not ready: {reason}")]
    EventNotReady { reason: &'static str },
    /// A tensor map that breaks one of the driver's rules (named in `rule`).
    #[error("invalid tensor map: {rule}")]
    InvalidTensorMap { rule: String },
    /// The device cannot do what was asked.
    #[error("device {device} does not support this: {what}")]
    Unsupported { device: usize, what: String },
    /// A call that is not allowed where it was made (inside a host callback).
    #[error("{what} is not permitted {reason}")]
    NotPermitted { what: &'static str, reason: &'static str },
    /// The host could not allocate memory for a result.
    #[error("out of host memory: {requested} bytes requested")]
    HostOutOfMemory { requested: u64 },
    /// A launch shape that breaks a rule (cluster divisibility, cooperative residency).
    #[error("invalid launch: {rule}")]
    InvalidLaunch { rule: String },
    /// A view reinterpreted as a type its address or length does not fit.
    #[error("cannot view {bytes} bytes at {address:#x} as {to} (from {from}): the address must be aligned and the length a multiple of the element size")]
    InvalidCast { from: &'static str, to: &'static str, bytes: usize, address: u64 },
    /// A size, offset or address that must be a multiple of the device's virtual memory
    /// granularity.
    #[error("{what} = {value} is not a multiple of the allocation granularity of device {device} ({granularity} bytes)")]
    NotGranular { device: usize, what: &'static str, value: u64, granularity: u64 },
    /// A mapping that does not fit the memory or address range it names.
    #[error("{what}: bytes {offset}..{end} are outside its {size} bytes")]
    MappingOutOfRange { what: &'static str, offset: u64, end: u64, size: u64 },
    /// A mapping over part of an address range that is already mapped.
    #[error("bytes {offset}..{end} of the address range overlap an existing mapping at {existing_offset}..{existing_end}")]
    MappingOverlap { offset: u64, end: u64, existing_offset: u64, existing_end: u64 },
    /// A shareable memory handle that cannot be exported, sent, received or imported as asked.
    #[error("invalid shareable memory handle: {reason}")]
    InvalidShareableHandle { reason: String },
    /// Sending or receiving a handle over a socket failed (including a peer that closed it).
    #[error("{operation} failed: {reason}")]
    Ipc { operation: &'static str, reason: String },
    /// A graph kernel-node update that does not fit the captured launch.
    #[error("cannot update kernel node {node} of the graph (`{kernel}`): {reason}")]
    GraphUpdate { node: usize, kernel: String, reason: String },
    /// A backend reported an error.
    #[error("device {device} ({backend}): {source}")]
    Backend { device: usize, backend: BackendKind, source: BackendError },
}
