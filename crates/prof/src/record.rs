//! The records a trace is made of: plain data, produced by the runtime's tracing hook
//! (`ferrocm_runtime::trace`) and consumed by the writers here or by any other tracer.
//!
//! Times are nanoseconds of the host's `CLOCK_MONOTONIC` (rocprofv3's clock). Device times are
//! measured on the device by timing events and mapped onto that clock (see the runtime's
//! `trace` module for how, and how exact).

use std::sync::Arc;

use serde::Serialize;

/// Which processor the work a library declares runs on, so the roofline compares it with the
/// right compute ceiling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum MathUnit {
    /// Ordinary floating-point lanes (FFT, RAND's transforms, elementwise kernels).
    Vector,
    /// Matrix units (tensor cores): BLAS on half or bfloat16 data.
    Matrix,
}

/// The work one launch does, declared by the library that launches it (for the roofline).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Work {
    /// Floating-point operations (a fused multiply-add counts two).
    pub flops: u64,
    /// The fewest bytes the launch must move through device memory (each input read once,
    /// each output written once).
    pub bytes: u64,
    /// Where the flops run.
    pub unit: MathUnit,
}

impl Work {
    /// `flops` on the vector lanes and `bytes` through memory.
    pub fn new(flops: u64, bytes: u64) -> Work {
        Work { flops, bytes, unit: MathUnit::Vector }
    }

    /// A launch that only moves `bytes` (copies, generators, fills).
    pub fn bytes(bytes: u64) -> Work {
        Work::new(0, bytes)
    }

    /// The same work, done on the matrix units.
    pub fn on_matrix_units(self) -> Work {
        Work { unit: MathUnit::Matrix, ..self }
    }
}

/// What kind of processor an agent is (rocprofv3's agent types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentKind {
    /// The host processor that runs the program (agent 0).
    Host,
    /// A GPU.
    Gpu,
    /// A CPU device of ferrocm's embedded backend.
    CpuDevice,
}

/// A processor named by the records: agent 0 is the host, agent `i + 1` is ferrocm device `i`.
#[derive(Clone, Debug, PartialEq)]
pub struct Agent {
    pub id: u32,
    pub kind: AgentKind,
    pub name: String,
    /// The backend that drives it ("cpu", "cuda"); empty for the host.
    pub backend: String,
}

/// One call of the runtime's API, as the calling thread saw it. Calls made inside another
/// traced call are not recorded separately: the outer call owns them, and the device work they
/// queue carries the outer call's correlation id.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiCall {
    /// The runtime function, e.g. `Stream::launch`.
    pub name: &'static str,
    pub thread: u64,
    pub correlation: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// The direction of a copy (rocprofv3's names without the `MEMORY_COPY_` prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CopyDirection {
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
    /// Between two devices (peer copy).
    Peer,
}

impl CopyDirection {
    /// rocprofv3's `Direction` column value.
    pub fn rocprof_name(self) -> &'static str {
        match self {
            CopyDirection::HostToDevice => "MEMORY_COPY_HOST_TO_DEVICE",
            CopyDirection::DeviceToHost => "MEMORY_COPY_DEVICE_TO_HOST",
            CopyDirection::DeviceToDevice => "MEMORY_COPY_DEVICE_TO_DEVICE",
            CopyDirection::Peer => "MEMORY_COPY_DEVICE_TO_DEVICE_PEER",
        }
    }
}

/// A kernel launch's shape and the kernel's static resources.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: Arc<str>,
    /// Blocks in each dimension (CUDA's grid; rocprofv3's `Grid_Size` counts threads instead).
    pub grid: [u32; 3],
    /// Threads per block.
    pub block: [u32; 3],
    pub dynamic_shared_bytes: u32,
    pub static_shared_bytes: u32,
    /// Registers per thread (0 where the device has no such notion).
    pub registers_per_thread: u32,
    /// Local (spill/stack) memory per thread.
    pub local_bytes_per_thread: u32,
}

/// What a device activity did.
#[derive(Clone, Debug, PartialEq)]
pub enum DeviceOp {
    Kernel(Kernel),
    Copy {
        direction: CopyDirection,
        bytes: u64,
        src_agent: u32,
        dst_agent: u32,
    },
    /// A fill of device memory (`Stream::memset_bytes`), shown as a kernel named
    /// [`MEMSET_KERNEL_NAME`] as rocprofv3 shows HIP's fill kernels.
    Memset {
        bytes: u64,
    },
}

/// The kernel name memsets are listed under.
pub const MEMSET_KERNEL_NAME: &str = "__ferrocm_memset";

/// Work that ran on a device: its device-side start and end.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceActivity {
    pub op: DeviceOp,
    pub agent: u32,
    /// The stream, numbered from 1 in the order streams were first used while tracing.
    pub stream: u64,
    /// The host thread that queued it.
    pub thread: u64,
    /// The API call that queued it.
    pub correlation: u64,
    /// Numbered from 1 across all device activities, in the order they were queued.
    pub dispatch: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    /// The work the launching library declared (copies always declare their bytes).
    pub work: Option<Work>,
    /// How its start and end were taken.
    pub timed_by: TimedBy,
}

/// How a device activity's start and end were taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimedBy {
    /// Timing events recorded around it on its stream.
    #[default]
    Events,
    /// The kernel's own reads of the device timer (a kernel-language kernel's timed variant,
    /// or a PTX kernel's timed copy): the first thread of each block, at entry and at exit.
    KernelTimer,
}

impl TimedBy {
    /// The name written to traces.
    pub fn name(self) -> &'static str {
        match self {
            TimedBy::Events => "events",
            TimedBy::KernelTimer => "kernel_timer",
        }
    }
}

/// Whether memory was obtained or given back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocOp {
    Allocate,
    Free,
}

/// Where allocated memory lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryKind {
    Device,
    /// From the stream-ordered pool (`Stream::alloc`).
    Pooled,
    Managed,
    PinnedHost,
}

/// Memory obtained or given back by the program (host-side times).
#[derive(Clone, Debug, PartialEq)]
pub struct Allocation {
    pub op: AllocOp,
    pub kind: MemoryKind,
    pub agent: u32,
    pub bytes: u64,
    pub address: u64,
    pub thread: u64,
    pub correlation: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// One record of a trace.
#[derive(Clone, Debug, PartialEq)]
pub enum Record {
    Api(ApiCall),
    Device(DeviceActivity),
    Allocation(Allocation),
}

/// Everything one process recorded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    pub process_id: u32,
    pub agents: Vec<Agent>,
    pub api: Vec<ApiCall>,
    pub device: Vec<DeviceActivity>,
    pub allocations: Vec<Allocation>,
    /// Device activities whose times could not be read (the device failed, or work was still
    /// running when the process exited and did not finish in time); they are left out.
    pub dropped: u64,
}

impl Trace {
    /// Adds one record.
    pub fn push(&mut self, record: Record) {
        match record {
            Record::Api(r) => self.api.push(r),
            Record::Device(r) => self.device.push(r),
            Record::Allocation(r) => self.allocations.push(r),
        }
    }

    /// Sorts each kind of record by start time (records arrive in completion order).
    pub fn sort(&mut self) {
        self.api.sort_by_key(|r| (r.start_ns, r.correlation));
        self.device.sort_by_key(|r| (r.start_ns, r.dispatch));
        self.allocations.sort_by_key(|r| (r.start_ns, r.correlation));
    }
}
