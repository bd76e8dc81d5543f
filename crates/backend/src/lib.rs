//! The backend contract of ferrocm: the small, object-safe trait that every device backend
//! (CPU, CUDA, later HIP/HSA) implements, and the plain data types that cross it.
//!
//! Design (after `wgpu-hal`): a backend does what it is told and validates nothing that the
//! runtime already checks. Handles are opaque `u64` newtypes so the trait stays object-safe
//! (`Arc<dyn Backend>`) and cheap to call on hot paths such as kernel launch. Device memory is
//! addressed by [`DevicePtr`], a plain address in the device's address space (on the CPU backend
//! it is a host address).
//!
//! Invariants a caller (the runtime) upholds: device ordinals are below [`Backend::device_count`];
//! pointers and lengths passed to copies lie inside live allocations; handles come from the same
//! backend and are not used after being destroyed. Breaking these is a runtime bug, and a
//! backend may report it as an error, but it is not required to detect it.

use std::fmt;
use std::sync::Arc;

mod error;
mod props;
pub mod target;
pub mod tensor_map;

pub use error::{BackendError, Result};
pub use props::{BackendKind, DeviceProperties, Dim3};
pub use target::{Feature, FeatureSet, Isa, Target};

/// An address in a device's memory. On the CPU backend this is a host address.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct DevicePtr(pub u64);

impl DevicePtr {
    /// The address `bytes` past this one.
    pub fn offset(self, bytes: u64) -> DevicePtr {
        DevicePtr(self.0 + bytes)
    }
}

impl fmt::Display for DevicePtr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

macro_rules! handle {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(transparent)]
        pub struct $name(pub u64);
    };
}

handle!(
    /// A stream: an in-order queue of device work.
    StreamHandle
);
handle!(
    /// An event: a marker recorded into a stream, with an optional timestamp.
    EventHandle
);
handle!(
    /// A loaded module (a compiled artifact resident on one device).
    ModuleHandle
);
handle!(
    /// A kernel entry point inside a loaded module.
    FunctionHandle
);
handle!(
    /// Physical device memory made by [`Backend::mem_create`] or [`Backend::mem_import`]
    /// (`CUmemGenericAllocationHandle`); it has no address until it is mapped.
    MemHandle
);
handle!(
    /// A graph of device work captured from a stream (`CUgraph`).
    GraphHandle
);
handle!(
    /// An instantiated graph, ready to launch (`CUgraphExec`).
    GraphExecHandle
);
handle!(
    /// One node of a captured graph (`CUgraphNode`); valid while its graph lives.
    GraphNodeHandle
);

/// Options for physical memory made by [`Backend::mem_create`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemCreateFlags {
    /// The memory can be exported as a POSIX file descriptor ([`Backend::mem_export`]) and
    /// imported by another process.
    pub exportable: bool,
}

/// What a device offers for virtual memory management.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VmmProperties {
    /// Sizes, offsets and addresses of physical allocations, reservations and mappings are
    /// multiples of this many bytes (`cuMemGetAllocationGranularity`, minimum granularity).
    pub granularity: u64,
    /// Physical memory can be exported as a POSIX file descriptor.
    pub exportable: bool,
}

/// Options for a new stream (as `hipStreamCreateWithPriority` / `cuStreamCreateWithPriority`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamFlags {
    /// The stream does not synchronize with the legacy default stream.
    pub non_blocking: bool,
    /// Lower numbers are higher priority; 0 is the default. Backends clamp to their range.
    pub priority: i32,
}

/// Options for a new event (as `hipEventCreateWithFlags`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventFlags {
    /// The event records a timestamp, so [`Backend::event_elapsed_ms`] works on it.
    pub timing: bool,
    /// Waiting on the event blocks the thread instead of spinning.
    pub blocking_sync: bool,
}

impl Default for EventFlags {
    fn default() -> Self {
        EventFlags { timing: true, blocking_sync: false }
    }
}

/// One memory copy. Host pointers are raw because the runtime owns the host buffers and keeps
/// them alive until the copy is complete (it synchronizes or holds pinned memory).
#[derive(Clone, Copy, Debug)]
pub enum CopyOp {
    /// Host to device.
    HostToDevice { src: *const u8, dst: DevicePtr },
    /// Device to host.
    DeviceToHost { src: DevicePtr, dst: *mut u8 },
    /// Device to device, both on the stream's device.
    DeviceToDevice { src: DevicePtr, dst: DevicePtr },
    /// Device to device across two devices of this backend.
    Peer { src_device: u32, src: DevicePtr, dst_device: u32, dst: DevicePtr },
}

// SAFETY: `CopyOp` carries raw host pointers only as addresses; the runtime guarantees that the
// memory behind them stays valid until the copy has completed, whichever thread runs it.
unsafe impl Send for CopyOp {}
unsafe impl Sync for CopyOp {}

/// The shape of one kernel launch: grid, block, dynamic shared memory, thread-block cluster and
/// whether the launch is cooperative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDims {
    pub grid: Dim3,
    pub block: Dim3,
    pub shared_mem_bytes: u32,
    /// Blocks per cluster in each dimension; (1, 1, 1) is no cluster. Each grid dimension is a
    /// multiple of the cluster's, and the blocks of a cluster run at the same time.
    pub cluster: Dim3,
    /// All blocks of the grid run at the same time, so they may synchronize with each other
    /// (a grid-wide barrier).
    pub cooperative: bool,
}

impl LaunchDims {
    /// A launch of `grid` blocks of `block` threads with `shared_mem_bytes` of dynamic shared
    /// memory, no cluster, not cooperative.
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>, shared_mem_bytes: u32) -> LaunchDims {
        LaunchDims {
            grid: grid.into(),
            block: block.into(),
            shared_mem_bytes,
            cluster: Dim3::new(1, 1, 1),
            cooperative: false,
        }
    }

    /// Whether the launch groups blocks into clusters larger than one block.
    pub fn has_cluster(&self) -> bool {
        self.cluster.volume() > 1
    }
}

/// A compiled artifact a backend can load as a module.
#[derive(Clone)]
pub enum ModuleImage {
    /// PTX assembly text, compiled by the NVIDIA driver's JIT.
    Ptx(String),
    /// Code the CPU backend runs directly (the kernel language's CPU executor, or native Rust).
    Cpu(Arc<dyn CpuModule>),
}

impl fmt::Debug for ModuleImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModuleImage::Ptx(text) => write!(f, "Ptx({} bytes)", text.len()),
            ModuleImage::Cpu(_) => f.write_str("Cpu(..)"),
        }
    }
}

impl ModuleImage {
    /// The backend kind that can load this image.
    pub fn target(&self) -> BackendKind {
        match self {
            ModuleImage::Ptx(_) => BackendKind::Cuda,
            ModuleImage::Cpu(_) => BackendKind::Cpu,
        }
    }
}

/// A module the CPU backend can run: a named set of [`CpuKernel`]s.
pub trait CpuModule: Send + Sync {
    /// The kernel called `name`, if the module has one.
    fn function(&self, name: &str) -> Option<Arc<dyn CpuKernel>>;

    /// The host address and size in bytes of the module variable `name` (a `__device__` or
    /// `__constant__` variable of code read from PTX), if the module has one.
    fn global(&self, _name: &str) -> Option<(u64, u64)> {
        None
    }
}

/// Static facts about one kernel, as `cuFuncGetAttribute` reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FunctionAttributes {
    /// The largest block this kernel can be launched with on its device.
    pub max_threads_per_block: u32,
    /// Statically allocated shared memory, in bytes.
    pub static_shared_bytes: u32,
    /// Registers per thread (0 where the notion does not apply).
    pub registers_per_thread: u32,
    /// Local (spill/stack) memory per thread, in bytes.
    pub local_bytes_per_thread: u32,
}

/// A kernel the CPU backend can run.
pub trait CpuKernel: Send + Sync {
    /// Runs the whole grid to completion. `args` holds each kernel parameter's bytes, in order,
    /// exactly as they would be passed to `cuLaunchKernel`.
    ///
    /// # Safety
    /// The kernel dereferences the addresses in its argument bytes. Every address (slices,
    /// tensor maps) must point to host memory that is valid, for the length the arguments give
    /// it, for as long as the launch runs, readable, and writable where the kernel writes, and no
    /// other code may access memory the kernel writes meanwhile except through atomics. The
    /// runtime upholds this for memory it allocated and validated; a kernel only checks what it
    /// can (argument count and sizes, alignment, indices against the lengths given).
    unsafe fn launch(&self, dims: LaunchDims, args: &[&[u8]]) -> std::result::Result<(), String>;

    /// Static facts about the kernel.
    fn attributes(&self) -> FunctionAttributes {
        FunctionAttributes { max_threads_per_block: 1024, ..Default::default() }
    }
}

/// Versions and facts about a backend, for `ferrocm info`.
#[derive(Clone, Debug, Default)]
pub struct BackendInfo {
    /// Short backend name: "cpu", "cuda".
    pub name: String,
    /// Driver version in the vendor's format (CUDA: 12080 for 12.8), 0 where there is none.
    pub driver_version: u32,
    /// Where the driver library was found, if any.
    pub library: Option<String>,
}

/// A host function queued on a stream (as `hipLaunchHostFunc`).
pub type HostCallback = Box<dyn FnOnce() + Send + 'static>;

/// Which default stream of a device (see [`Backend::default_stream`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefaultStream {
    /// CUDA's legacy default stream (`CU_STREAM_LEGACY`, HIP's null stream): work on it waits
    /// for all earlier work of the device's blocking streams, and their later work waits for it.
    Legacy,
    /// The calling thread's own default stream (`CU_STREAM_PER_THREAD`,
    /// `hipStreamPerThread`): an ordinary blocking stream, one per host thread.
    PerThread,
}

/// A function attribute that can be set (`cuFuncSetAttribute`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FunctionAttribute {
    /// The largest dynamic shared memory a launch may use, in bytes.
    MaxDynamicSharedBytes,
    /// Whether the kernel may be launched with clusters larger than the portable size of 8.
    NonPortableClusterSizeAllowed,
}

/// A 32- or 64-bit word that a stream memory operation writes or compares against
/// ([`Backend::stream_write_value`], [`Backend::stream_wait_value`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamWord {
    U32(u32),
    U64(u64),
}

impl StreamWord {
    /// The word's size in bytes (4 or 8); its address must be aligned to it.
    pub fn bytes(self) -> u64 {
        match self {
            StreamWord::U32(_) => 4,
            StreamWord::U64(_) => 8,
        }
    }
}

/// When a stream waiting on a memory word may go on: the comparisons of CUDA's
/// `CUstreamWaitValue_flags` (and HIP's `hipStreamWaitValue*` flags with a full mask), between
/// the word in memory and the value given to the wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitCondition {
    /// `(int)(word - value) >= 0`: a cyclic greater-or-equal that ignores wrap-around, so a
    /// counter that wraps keeps working (`CU_STREAM_WAIT_VALUE_GEQ`).
    Geq,
    /// `word == value` (`CU_STREAM_WAIT_VALUE_EQ`).
    Eq,
    /// `(word & value) != 0` (`CU_STREAM_WAIT_VALUE_AND`).
    And,
    /// `!(word | value) != 0`: some bit is clear in both (`CU_STREAM_WAIT_VALUE_NOR`).
    Nor,
}

impl WaitCondition {
    /// Whether a 32-bit `word` meets the condition against `value`.
    pub fn is_met_u32(self, word: u32, value: u32) -> bool {
        match self {
            WaitCondition::Geq => (word.wrapping_sub(value) as i32) >= 0,
            WaitCondition::Eq => word == value,
            WaitCondition::And => word & value != 0,
            WaitCondition::Nor => !(word | value) != 0,
        }
    }

    /// Whether a 64-bit `word` meets the condition against `value`.
    pub fn is_met_u64(self, word: u64, value: u64) -> bool {
        match self {
            WaitCondition::Geq => (word.wrapping_sub(value) as i64) >= 0,
            WaitCondition::Eq => word == value,
            WaitCondition::And => word & value != 0,
            WaitCondition::Nor => !(word | value) != 0,
        }
    }
}

/// The hardware layer: what a device backend does, with no validation (wgpu-hal's rule).
/// Object-safe; the runtime holds it as `Arc<dyn Backend>` and is its only caller.
///
/// All `*_async` operations are queued on a stream and return at once. Device ordinals passed to
/// safe methods are checked (an out-of-range ordinal is [`BackendError::InvalidDevice`]).
///
/// # Safety (of the `unsafe` methods)
/// A method that takes a handle requires a live handle made by this backend (not destroyed);
/// one that takes a device address or a byte count requires the range to lie inside a live
/// allocation of this backend (or pinned host memory for host addresses) that stays allocated
/// until the queued work completes; host pointers must stay valid and unaliased by writers until
/// then. Breaking this is undefined behaviour: the CUDA backend hands these values to the driver.
pub trait Backend: Send + Sync {
    /// Name and versions.
    fn info(&self) -> BackendInfo;
    /// Which kind of backend this is.
    fn kind(&self) -> BackendKind;
    /// Number of devices this backend drives.
    fn device_count(&self) -> u32;
    /// Properties of one device.
    fn device_properties(&self, device: u32) -> Result<DeviceProperties>;
    /// Free and total device memory, in bytes.
    fn mem_info(&self, device: u32) -> Result<(u64, u64)>;
    /// Blocks until all work on the device has completed.
    fn device_synchronize(&self, device: u32) -> Result<()>;

    /// Allocates device memory. `bytes` is non-zero.
    fn alloc(&self, device: u32, bytes: u64) -> Result<DevicePtr>;
    /// Allocates memory reachable from the host and the device (managed/unified memory).
    fn alloc_managed(&self, device: u32, bytes: u64) -> Result<DevicePtr>;
    /// Frees memory from [`Backend::alloc`] or [`Backend::alloc_managed`]. Queued work that uses
    /// it must have completed (the runtime orders frees after the streams that used the memory).
    ///
    /// # Safety
    /// `ptr` is a live allocation of `device` from this backend, freed once, and no queued or
    /// running work uses it.
    unsafe fn free(&self, device: u32, ptr: DevicePtr) -> Result<()>;
    /// Allocates zero-filled page-locked host memory, usable for asynchronous copies by every
    /// device of the backend. `device` names a visible device whose context may be used to make the allocation
    /// (so a hidden GPU never gets a context).
    fn alloc_host(&self, device: u32, bytes: u64) -> Result<*mut u8>;
    /// Frees memory from [`Backend::alloc_host`].
    ///
    /// # Safety
    /// `ptr` came from `alloc_host` with the same `device`, is freed once and no queued work uses it.
    unsafe fn free_host(&self, device: u32, ptr: *mut u8) -> Result<()>;

    /// Fills `bytes` bytes at `dst` with `value`, in stream order.
    ///
    /// # Safety
    /// See the trait: live stream, `[dst, dst + bytes)` inside a live allocation.
    unsafe fn memset_async(&self, stream: StreamHandle, dst: DevicePtr, value: u8, bytes: u64) -> Result<()>;
    /// Copies `bytes` bytes, in stream order.
    ///
    /// # Safety
    /// See the trait: live stream; both ranges inside live allocations (or host memory kept valid
    /// until the copy completes).
    unsafe fn copy_async(&self, stream: StreamHandle, copy: CopyOp, bytes: u64) -> Result<()>;
    /// Whether `device` can read and write memory of `peer` directly.
    fn can_access_peer(&self, device: u32, peer: u32) -> Result<bool>;
    /// Lets `device` access `peer`'s memory. Enabling twice is not an error.
    fn enable_peer_access(&self, device: u32, peer: u32) -> Result<()>;

    /// Creates a stream on `device`.
    fn stream_create(&self, device: u32, flags: StreamFlags) -> Result<StreamHandle>;
    /// The handle of one of `device`'s default streams. It is never destroyed.
    fn default_stream(&self, device: u32, which: DefaultStream) -> Result<StreamHandle>;
    /// The vendor's own handle of a stream (a `CUstream` on NVIDIA), for interoperation with
    /// other libraries on the same context; `None` where there is none.
    fn native_stream_handle(&self, _stream: StreamHandle) -> Option<u64> {
        None
    }
    /// Releases a stream: it returns at once, and the stream's resources are freed once its
    /// queued work has completed (as `cuStreamDestroy`).
    ///
    /// # Safety
    /// A live stream from `stream_create`, destroyed once; no work is queued on it afterwards.
    unsafe fn stream_destroy(&self, stream: StreamHandle) -> Result<()>;
    /// Blocks until all work queued on the stream has completed.
    ///
    /// # Safety
    /// A live stream.
    unsafe fn stream_synchronize(&self, stream: StreamHandle) -> Result<()>;
    /// Whether all work queued on the stream has completed.
    ///
    /// # Safety
    /// A live stream.
    unsafe fn stream_query(&self, stream: StreamHandle) -> Result<bool>;
    /// Makes later work on `stream` wait until `event`'s last recorded point has been reached.
    /// The event may belong to another device of the backend.
    ///
    /// # Safety
    /// A live stream and a live event.
    unsafe fn stream_wait_event(&self, stream: StreamHandle, event: EventHandle) -> Result<()>;
    /// Queues a host function; it runs after earlier work on the stream and before later work.
    ///
    /// # Safety
    /// A live stream.
    unsafe fn stream_add_callback(&self, stream: StreamHandle, callback: HostCallback) -> Result<()>;

    /// Makes later work on `stream` wait until the word at `addr` meets `condition` against
    /// `value` (`cuStreamWaitValue32/64_v2`): the wait occupies no compute unit and needs no
    /// host thread on a GPU. The word is typically written by another stream, device or process
    /// (memory imported with [`Backend::mem_import`]). A backend that lacks the 64-bit form or
    /// [`WaitCondition::Nor`] on this device says so with an `Err` naming what is missing.
    ///
    /// On a capturing stream the wait is recorded into the graph.
    ///
    /// # Safety
    /// A live stream; `[addr, addr + value.bytes())` is aligned to its size and lies inside a
    /// live device allocation or mapping reachable from the stream's device (not managed
    /// memory) that stays mapped until the wait has completed. A wait that is never satisfied
    /// blocks the stream (and synchronizing it) forever, as on a GPU.
    unsafe fn stream_wait_value(
        &self,
        stream: StreamHandle,
        addr: DevicePtr,
        value: StreamWord,
        condition: WaitCondition,
    ) -> Result<()>;
    /// Writes `value` to the word at `addr` in stream order (`cuStreamWriteValue32/64_v2`):
    /// after every earlier operation of the stream has completed and its writes are visible,
    /// and before later ones start. On a capturing stream the write is recorded into the graph.
    ///
    /// # Safety
    /// As [`Backend::stream_wait_value`]; nothing else may write the word meanwhile except
    /// through other stream memory operations or atomics.
    unsafe fn stream_write_value(
        &self,
        stream: StreamHandle,
        addr: DevicePtr,
        value: StreamWord,
    ) -> Result<()>;

    /// Creates an event on `device`.
    fn event_create(&self, device: u32, flags: EventFlags) -> Result<EventHandle>;
    /// Destroys an event.
    ///
    /// # Safety
    /// A live event, destroyed once.
    unsafe fn event_destroy(&self, event: EventHandle) -> Result<()>;
    /// Records the event at the current end of the stream.
    ///
    /// # Safety
    /// A live event and a live stream.
    unsafe fn event_record(&self, event: EventHandle, stream: StreamHandle) -> Result<()>;
    /// Blocks until the event's recorded point has been reached.
    ///
    /// # Safety
    /// A live event.
    unsafe fn event_synchronize(&self, event: EventHandle) -> Result<()>;
    /// Whether the event's recorded point has been reached.
    ///
    /// # Safety
    /// A live event.
    unsafe fn event_query(&self, event: EventHandle) -> Result<bool>;
    /// Milliseconds between two completed, timing-enabled events.
    ///
    /// # Safety
    /// Two live events.
    unsafe fn event_elapsed_ms(&self, start: EventHandle, end: EventHandle) -> Result<f32>;

    /// Loads a compiled artifact on `device`.
    fn module_load(&self, device: u32, image: &ModuleImage) -> Result<ModuleHandle>;
    /// Unloads a module; its functions must no longer be launched.
    ///
    /// # Safety
    /// A live module, unloaded once, whose functions have no queued launches.
    unsafe fn module_unload(&self, module: ModuleHandle) -> Result<()>;
    /// Looks up a kernel by name.
    ///
    /// # Safety
    /// A live module.
    unsafe fn module_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle>;
    /// The device address and size in bytes of a module variable (`cuModuleGetGlobal`); a
    /// name the module lacks is [`BackendError::FunctionNotFound`].
    ///
    /// # Safety
    /// A live module.
    unsafe fn module_global(&self, module: ModuleHandle, name: &str) -> Result<(DevicePtr, u64)>;
    /// Static facts about a kernel.
    ///
    /// # Safety
    /// A live function (its module is loaded).
    unsafe fn function_attributes(&self, function: FunctionHandle) -> Result<FunctionAttributes>;
    /// Sets an attribute of a kernel (once per function: the runtime caches what it set).
    ///
    /// # Safety
    /// A live function.
    unsafe fn function_set_attribute(
        &self,
        function: FunctionHandle,
        attribute: FunctionAttribute,
        value: i32,
    ) -> Result<()>;
    /// How many blocks of `block_threads` threads with `dynamic_shared_bytes` of dynamic shared
    /// memory can be resident on one compute unit at once (the occupancy calculator).
    ///
    /// # Safety
    /// A live function.
    unsafe fn max_active_blocks_per_cu(
        &self,
        function: FunctionHandle,
        block_threads: u32,
        dynamic_shared_bytes: u32,
    ) -> Result<u32>;
    /// Encodes a tiled tensor map for `device` (`cuTensorMapEncodeTiled` on NVIDIA; the CPU
    /// executor's own layout on the CPU). The description has been validated; encoding does not
    /// access the memory it describes.
    fn tensor_map_encode(
        &self,
        device: u32,
        desc: &tensor_map::TensorMapDesc,
    ) -> Result<[u8; tensor_map::TENSOR_MAP_BYTES]>;

    /// Queues a kernel launch. `args` holds each parameter's bytes, in order. The dimensions,
    /// cluster and shared memory were validated against the device and the function.
    ///
    /// # Safety
    /// A live function and stream of the same device; `args` match the kernel's parameters, and
    /// every address in them stays valid for the kernel's accesses until it completes.
    unsafe fn launch(
        &self,
        function: FunctionHandle,
        dims: LaunchDims,
        stream: StreamHandle,
        args: &[&[u8]],
    ) -> Result<()>;

    // ---- Virtual memory, inter-process sharing and graphs ----
    //
    // Virtual memory after CUDA's `cuMem*` calls: physical memory (`mem_create`) has no address
    // until it is mapped into a reserved address range (`mem_reserve`, `mem_map`), and a mapping
    // is inaccessible until access is set (`mem_set_access`). Physical memory lives until it is
    // released and every mapping of it is unmapped. Exportable memory travels between processes
    // as a POSIX file descriptor (`mem_export`, `mem_import`).

    /// The device's virtual memory granularity and whether it can export memory;
    /// [`BackendError::Unsupported`] where the device has no virtual memory management.
    fn vmm_properties(&self, device: u32) -> Result<VmmProperties>;
    /// Creates `bytes` of physical memory on `device` (a multiple of the granularity).
    fn mem_create(&self, device: u32, bytes: u64, flags: MemCreateFlags) -> Result<MemHandle>;
    /// Releases physical memory; it is freed once every mapping of it is unmapped too.
    ///
    /// # Safety
    /// A live handle of `device`'s from this backend, released once.
    unsafe fn mem_release(&self, device: u32, memory: MemHandle) -> Result<()>;
    /// Reserves `bytes` of address space (a multiple of the granularity), aligned to the
    /// granularity, with nothing mapped.
    fn mem_reserve(&self, device: u32, bytes: u64) -> Result<DevicePtr>;
    /// Frees a reservation made by [`Backend::mem_reserve`].
    ///
    /// # Safety
    /// `ptr` and `bytes` are exactly a live reservation of `device`'s, freed once, with nothing
    /// mapped in it.
    unsafe fn mem_unreserve(&self, device: u32, ptr: DevicePtr, bytes: u64) -> Result<()>;
    /// Maps the whole of `memory`, `bytes` long, at `ptr` (CUDA's `cuMemMap` maps whole
    /// allocations only: from offset zero, and a shorter size is `CUDA_ERROR_NOT_SUPPORTED`).
    /// The mapping is not accessible until [`Backend::mem_set_access`].
    ///
    /// # Safety
    /// `[ptr, ptr + bytes)` lies inside a live reservation of `device`'s, is aligned to the
    /// granularity and has nothing mapped; `memory` is live and holds exactly `bytes` bytes.
    unsafe fn mem_map(&self, device: u32, ptr: DevicePtr, bytes: u64, memory: MemHandle) -> Result<()>;
    /// Unmaps `[ptr, ptr + bytes)`, leaving the address range reserved.
    ///
    /// # Safety
    /// The range is exactly one mapping made by [`Backend::mem_map`], and no queued or running
    /// work uses it.
    unsafe fn mem_unmap(&self, device: u32, ptr: DevicePtr, bytes: u64) -> Result<()>;
    /// Makes `[ptr, ptr + bytes)` readable and writable from each of `devices` (ordinals of this
    /// backend).
    ///
    /// # Safety
    /// The range is exactly one live mapping made by [`Backend::mem_map`].
    unsafe fn mem_set_access(&self, device: u32, ptr: DevicePtr, bytes: u64, devices: &[u32]) -> Result<()>;
    /// Exports physical memory as a file descriptor that another process can import; the
    /// descriptor keeps the memory alive until it is closed.
    ///
    /// # Safety
    /// A live handle of `device`'s, created exportable.
    unsafe fn mem_export(&self, device: u32, memory: MemHandle) -> Result<std::os::fd::OwnedFd>;
    /// Imports `bytes` of physical memory exported by [`Backend::mem_export`] (in this process
    /// or another), for use on `device`. The descriptor stays the caller's. A descriptor that is
    /// not exported memory of this backend is an error; where the backend can tell, so is a size
    /// other than the exported one.
    fn mem_import(&self, device: u32, fd: std::os::fd::BorrowedFd<'_>, bytes: u64) -> Result<MemHandle>;

    // Graphs after CUDA's stream capture: work queued on a capturing stream is recorded, not
    // run; the graph it becomes can be instantiated once and launched many times, and a kernel
    // node's arguments and shape can be changed between launches.

    /// Starts capturing `stream`: later memsets, copies and launches on it are recorded into a
    /// graph instead of being run. Synchronizing, querying, recording or waiting on events and
    /// host callbacks on a capturing stream are errors.
    ///
    /// # Safety
    /// A live stream that is not capturing and is not the legacy default stream.
    unsafe fn stream_begin_capture(&self, stream: StreamHandle) -> Result<()>;
    /// Ends the capture of `stream` and returns what it recorded.
    ///
    /// # Safety
    /// A live stream that is capturing.
    unsafe fn stream_end_capture(&self, stream: StreamHandle) -> Result<GraphHandle>;
    /// The node of the operation captured last on `stream` (in a single-stream capture, the
    /// one node that the next operation will depend on).
    ///
    /// # Safety
    /// A live stream that is capturing and has captured at least one operation.
    unsafe fn stream_capture_last_node(&self, stream: StreamHandle) -> Result<GraphNodeHandle>;
    /// Destroys a captured graph.
    ///
    /// # Safety
    /// A live graph, destroyed once, whose instantiations are destroyed already.
    unsafe fn graph_destroy(&self, graph: GraphHandle) -> Result<()>;
    /// Instantiates a graph for launching.
    ///
    /// # Safety
    /// A live graph.
    unsafe fn graph_instantiate(&self, graph: GraphHandle) -> Result<GraphExecHandle>;
    /// Destroys an instantiated graph.
    ///
    /// # Safety
    /// A live instantiated graph, destroyed once; queued launches of it may still run.
    unsafe fn graph_exec_destroy(&self, exec: GraphExecHandle) -> Result<()>;
    /// Queues a launch of the whole graph on `stream`, in stream order.
    ///
    /// # Safety
    /// A live instantiated graph and a live stream of its device; every address its nodes use
    /// stays valid until the launch completes.
    unsafe fn graph_launch(&self, exec: GraphExecHandle, stream: StreamHandle) -> Result<()>;
    /// Replaces the shape and arguments of one kernel node of an instantiated graph for its
    /// later launches (launches already queued keep what they had).
    ///
    /// # Safety
    /// A live instantiated graph; `node` is a kernel node of the graph it was instantiated
    /// from, launching `function`; dims and arguments as for [`Backend::launch`].
    unsafe fn graph_exec_set_kernel_params(
        &self,
        exec: GraphExecHandle,
        node: GraphNodeHandle,
        function: FunctionHandle,
        dims: LaunchDims,
        args: &[&[u8]],
    ) -> Result<()>;
}
