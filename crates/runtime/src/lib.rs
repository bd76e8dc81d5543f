//! ferrocm's runtime: the safe API over the backends (HIP's role in ROCm).
//!
//! It owns device discovery and selection (environment variables in [`platform`]), validation
//! of every call (each misuse is an [`Error`] naming the value and the limit), the
//! stream-ordered caching allocator, and the safe types: [`Device`], [`Stream`], [`Event`],
//! [`DeviceBuffer`] with its views, pinned [`HostBuffer`], [`Module`]/[`Function`] and launch,
//! virtual memory ([`PhysicalMemory`], [`AddressRange`], [`Mapping`]), memory shared between
//! processes ([`SharedBuffer`], [`ShareableHandle`]) and graphs ([`Graph`], [`GraphExec`]).
//! Backends below it do what they are told; nothing above it talks to a backend directly.
//!
//! Thread safety: every type here is `Send + Sync` where a GPU runtime allows it (devices,
//! streams, events, modules and buffers can be shared across threads).

pub mod builtin;
mod callback;
mod device;
mod error;
mod event;
mod graph;
mod ipc;
mod memop;
mod memory;
mod module;
pub mod platform;
pub mod pointer;
mod pool;
mod raw;
mod stream;
mod tensor_map;
pub mod trace;
mod vmm;

pub use device::Device;
pub use error::{Error, Result};
pub use event::Event;
pub use graph::{Graph, GraphExec};
pub use ipc::{ShareableHandle, SharedBuffer};
pub use memop::MemoryWord;
pub use memory::{
    AsDeviceSlice, AsDeviceSliceMut, DeviceBuffer, DeviceRepr, DeviceSlice, DeviceSliceMut, ExternalBuffer,
    HostBuffer,
};
pub use module::{
    Function, KernelArgs, LaunchConfig, Module, MAX_LOCAL_BYTES_PER_THREAD, MAX_STATIC_SHARED_BYTES,
};
pub use platform::{report, PlatformReport};
pub use pointer::{pointer_attributes, MemoryKind, PointerAttributes};
pub use stream::Stream;
pub use tensor_map::{TensorMap, TensorMapBytes, TensorMapElement, TiledLayout};
pub use vmm::{AddressRange, Mapping, PhysicalMemory};

pub use ferrocm_backend as backend;
pub use ferrocm_backend::tensor_map::{
    TensorMapDataType, TensorMapDesc, TensorMapInterleave, TensorMapL2Promotion, TensorMapOobFill,
    TensorMapSwizzle,
};
pub use ferrocm_backend::{
    BackendError, BackendKind, CpuKernel, CpuModule, DeviceProperties, DevicePtr, Dim3, EventFlags, Feature,
    FeatureSet, FunctionAttributes, Isa, LaunchDims, ModuleImage, StreamFlags, StreamWord, Target,
    WaitCondition,
};
/// Timed copies of PTX kernels for kernel tracing ([`Device::load_module_with_timed`]).
pub use ferrocm_ir::timed_ptx;

pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Runtime tables are updated by whole inserts and removes, so a poisoned lock still guards
    // consistent data.
    m.lock().unwrap_or_else(|e| e.into_inner())
}
