//! ferrocm's kernel language: `#[kernel]` Rust functions that build ferrocm IR, compiled once per
//! set of compile-time values and cached, then run by the CPU executor or as PTX on NVIDIA GPUs.
//!
//! ```ignore
//! use ferrocm_kernel::prelude::*;
//!
//! #[kernel]
//! fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
//!     let i = global_index();
//!     if i < y.len() {
//!         y[i] = a * x[i] + y[i];
//!     }
//! }
//! // saxpy::launch(&stream, cfg, 2.0, &x, &mut y)? (any device, through the runtime)
//! // saxpy::launch_host(dims, 2.0, &x, &mut y)?   (CPU executor on host memory)
//! // saxpy::ir()? / saxpy::ptx("sm_90")?            (what the compiler made)
//! ```
//!
//! Design: the macro turns the function into a module whose `build` runs the body against an IR
//! builder ([`dsl`]): runtime values are `Val<T>` handles, compile-time values (generic element
//! types, const generics, `#[comptime]` config arguments) are plain Rust, so branching on them
//! is ordinary Rust and loops over constant ranges unroll. Each distinct set of compile-time
//! values is built once and kept in a process-wide [`cache`] keyed by the kernel's path and those
//! values; PTX is generated once per architecture.
//!
//! Launch ABI (shared with the runtime): a scalar parameter is passed as its bytes; a slice
//! parameter as two parameters, its device address (`u64`) and its length in elements (`u64`).

pub mod cache;
pub mod dsl;

use std::sync::Arc;

pub use cache::{CompiledKernel, KernelError};
pub use ferrocm_backend::{CpuKernel, Dim3, LaunchDims};
pub use ferrocm_ir as ir;
pub use ferrocm_kernel_macros::{device, kernel};
pub use ferrocm_runtime as runtime;
pub use half::{bf16, f16};

/// What a kernel body needs in scope: the attributes, DSL types, built-ins and math.
pub mod prelude {
    pub use crate::dsl::{
        ballot, block_dim_x, block_dim_y, block_dim_z, block_idx_x, block_idx_y, block_idx_z, cp_async,
        cp_async_commit, cp_async_wait, dyn_shared, fence_block, fence_device, fence_system, global_index,
        grid_dim_x, grid_dim_y, grid_dim_z, grid_stride, lane_id, ldmatrix_x2, ldmatrix_x2_trans,
        ldmatrix_x4, ldmatrix_x4_trans, local_array, mma_m16n8k16, pack_half2, select, shared_array,
        shfl_down, shfl_idx, shfl_up, shfl_xor, sync_threads, thread_idx_x, thread_idx_y, thread_idx_z,
        var_array, vec2, vec4, vote_all, vote_any, warp_size, Atomics, Elem, Float, Int, IntoVal, Local,
        Memory, MemoryMut, Num, Shared, Signed, Slice, SliceMut, Val, VarArray, Vec2, Vec4,
    };
    pub use crate::{device, kernel, Dim3, LaunchDims};
    pub use ferrocm_runtime::{AsDeviceSlice, AsDeviceSliceMut, Device, DeviceBuffer, LaunchConfig, Stream};
    pub use half::{bf16, f16};
}

/// Host-side launch arguments for the CPU executor: each kernel parameter's bytes, in order.
#[derive(Default, Debug)]
pub struct HostArgs {
    bytes: Vec<Vec<u8>>,
}

impl HostArgs {
    pub fn as_slices(&self) -> Vec<&[u8]> {
        self.bytes.iter().map(|b| b.as_slice()).collect()
    }
}

/// A value passed to a kernel launched on host memory ([`CompiledKernel::launch_host`]).
pub trait HostArg {
    fn push(&self, args: &mut HostArgs);
}
impl<T: dsl::Elem> HostArg for T {
    fn push(&self, args: &mut HostArgs) {
        let size = T::TY.size() as usize;
        args.bytes.push(self.to_bits().to_le_bytes()[..size].to_vec());
    }
}
impl<T: dsl::Elem> HostArg for &[T] {
    fn push(&self, args: &mut HostArgs) {
        args.bytes.push((self.as_ptr() as u64).to_le_bytes().to_vec());
        args.bytes.push((self.len() as u64).to_le_bytes().to_vec());
    }
}
impl<T: dsl::Elem> HostArg for &mut [T] {
    fn push(&self, args: &mut HostArgs) {
        args.bytes.push((self.as_ptr() as u64).to_le_bytes().to_vec());
        args.bytes.push((self.len() as u64).to_le_bytes().to_vec());
    }
}

/// Builds launch dimensions from anything convertible to [`Dim3`].
pub fn dims(grid: impl Into<Dim3>, block: impl Into<Dim3>, shared_mem_bytes: u32) -> LaunchDims {
    LaunchDims { grid: grid.into(), block: block.into(), shared_mem_bytes }
}

/// Support for the macro's expansion; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::cache::get_or_build;
    pub use crate::dsl;
    pub use crate::{HostArg, HostArgs};
    pub use ferrocm_runtime::{AsDeviceSlice, AsDeviceSliceMut, KernelArgs, LaunchConfig, Stream};

    /// Pushes a slice argument under the ABI: the address, then the length in elements.
    pub fn push_slice<T: crate::dsl::Elem>(
        args: &mut KernelArgs,
        s: &impl AsDeviceSlice<<T as crate::dsl::Elem>::Repr>,
    ) {
        args.push_buffer(s);
        args.push(s.len() as u64);
    }

    /// Pushes a scalar argument (a `bool` as one byte).
    pub fn push_scalar<T: crate::dsl::Elem>(args: &mut KernelArgs, v: T) {
        args.push(v.to_repr());
    }
    pub use std::sync::Arc;

    /// The cache key of one instantiation: the kernel's path and its compile-time values.
    pub fn key(path: &str, comptime: &str) -> String {
        format!("{path}<{comptime}>")
    }

    /// The entry-point name: the kernel's name, plus a hash of the compile-time values if any.
    pub fn entry_name(name: &str, comptime: &str) -> String {
        if comptime.is_empty() {
            return name.to_string();
        }
        // FNV-1a: stable across runs and platforms, unlike `DefaultHasher`.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in comptime.bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        format!("{name}_{h:016x}")
    }
}

/// Convenience: the IR text of a built kernel.
pub fn ir_text(k: &Arc<CompiledKernel>) -> String {
    k.ir().to_string()
}
