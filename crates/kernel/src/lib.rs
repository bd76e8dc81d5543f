//! ferrocm's kernel language: `#[kernel]` Rust functions that build ferrocm IR, compiled once per
//! set of compile-time values and device, and run by the CPU executor or as PTX on NVIDIA GPUs.
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
//!
//! let stream = Device::default_device()?.create_stream()?;
//! let (x, mut y) = (stream.clone_htod(&xs)?, stream.clone_htod(&ys)?);
//! saxpy::launch(&stream, LaunchConfig::for_num_elems(n), 2.0, &x, &mut y)?; // any device
//! saxpy::launch_host(dims, 2.0, &xs, &mut ys)?;  // CPU executor straight on host memory
//! let ir = saxpy::kernel()?.ir().to_string();    // what the compiler made; also .ptx("sm_90a")
//! ```
//!
//! # What `#[kernel]` generates
//! A module named after the function with `build(..)` (the IR, uncached), `kernel(..)` (the
//! cached [`CompiledKernel`]), `launch(stream, cfg, ..)` (typed launch through the runtime, which
//! validates grid, block and shared memory) and `launch_host(dims, ..)` (the CPU executor over host
//! slices). Compile-time parameters come first in each: generic element types (`T: Float`), const
//! generics (`const W: usize`) and arguments marked `#[comptime]` (any `Clone + Debug` value, such
//! as a config struct). Each distinct set is built once per process (keyed by the kernel's path
//! and the values' `Debug` text) and loaded once per device.
//!
//! # The language
//! Parameters: scalars (`bool`, `i8`..`i64`, `u8`..`u64`, `isize`, `usize`, `f16`, `bf16`, `f32`,
//! `f64`, or a generic element type), `&[T]` and `&mut [T]` (with `.len()`). Bodies use `let`,
//! `let mut` (a kernel variable), arithmetic, bitwise and comparison operators, `&&`/`||`
//! (short-circuiting at run time too), `as` casts, `if`/`else` (a runtime branch on a runtime
//! condition, a plain Rust `if` on a compile-time one), `while`, `loop`, `for` over `a..b`, `a..=b`
//! and `(a..b).step_by(s)` (unrolled when both bounds are compile-time values), `break`,
//! `continue`, `return`, indexing, method-style math and calls to `#[device]` functions (inlined).
//! `break`/`continue` inside a loop unrolled at compile time are a build error (use a runtime
//! bound). Compile-time arrays and tuples (`[a, b]`, `(x, y)`, `let (hi, lo) = f(..)`),
//! `vec![..]` and struct literals build plain Rust values that hold runtime values. Labels,
//! other macros, `while let` and items but `use` and `const` are compile errors at their span;
//! type errors are rustc's.
//!
//! Compile-time code reads as Rust and runs while the kernel is built, leaving only the runtime
//! operations it reaches:
//! - `for` over anything but a range is a compile-time iteration, unrolled: `for (k, &c) in
//!   COEFFS.iter().enumerate()`, `for k in (1..8).rev()`, `for &(d, w) in &TAPS[1..]` (ranges and
//!   range-indexed slices of compile-time values are plain Rust in any position);
//! - `match` and `if let` on a compile-time value (a `#[comptime]` enum, an `Option`) are Rust's;
//!   `==`/`!=` on plain values need only `PartialEq`; an `if` on a compile-time `bool` may
//!   produce any type (a tuple, an array, a `Vec`);
//! - closures are Rust's, their bodies rewritten (so `|v: Val<f32>| if v < lo { lo } else { v }`
//!   is a runtime branch); `return` in them, and `break`/`continue` that would leave them, are
//!   compile errors;
//! - `#[comptime] let mut acc = ..;` is a Rust variable of the build, so an unrolled loop can
//!   rebind a runtime value (`acc = acc.mul_add(x, c)`) without a kernel variable (`let mut`
//!   makes one: a register written and read). Assigning it inside a runtime `if` or loop opened
//!   since its `let` is a build error (its value cannot depend on a runtime condition).
//!
//! `#[device]` marks free functions, methods, whole `impl` blocks and traits (their provided
//! methods), so a tile, a pipeline stage or a generator state is a type with methods. A device function's `&[T]`/`&mut [T]` parameters take any
//! kernel memory (a slice, a shared or local array) and index as in a kernel (`dst[i] += src[j]`). A field that changes at run time holds a
//! [`dsl::Var`] (`Var::new(init)`): assigning to it (`self.state = x`, `self.n += 1u32`) writes
//! the variable, and it reads itself in arithmetic and comparisons (`.get()` reads it as a
//! value, as `Cell::get` does).
//!
//! Built-ins ([`prelude`]): thread/block indices and dimensions, grid dimensions, `lane_id`,
//! `warp_size` (a device value, not a constant), `global_index`, `grid_stride`, `global_timer`
//! (the device's nanosecond clock); `sync_threads`,
//! `sync_warp`/`sync_warp_mask` (`__syncwarp`) and memory fences; `shared_array`, `dyn_shared`, `local_array`; atomics on global and shared memory
//! (`atomic_add/sub/min/max/and/or/xor/exch/cas` on i32/u32/i64/u64, `atomic_add` on f32/f64);
//! `shfl_idx/up/down/xor`, `vote_any/all`, `ballot`; 2- and 4-wide vectors with `load2/load4`,
//! `store2/store4` (16-byte accesses); tensor cores: `mma_m16n8k16` (f16/bf16 -> f32, sm_80+),
//! `mma_m8n8k4_f64` (FP64, sm_80+), `mma_m16n8k16_f64` and `mma_m16n8k8_f64` (FP64, sm_90+), `ldmatrix_x2/x4[_trans]`, `cp_async` with
//! `cp_async_commit`/`cp_async_wait`.
//!
//! Hopper (sm_90/sm_90a; [`dsl`]'s `hopper` section): register [`dsl::Fragment`]s; `wgmma` and
//! `wgmma_rs` ([`dsl::Wgmma`]: f16, bf16, tf32, e4m3, e5m2; N 8 to 256) with
//! [`dsl::matrix_descriptor`] and `wgmma_fence/commit/wait`; [`dsl::Barriers`] (`mbarrier`: init,
//! arrive, arrive_expect_tx, try_wait, wait, arrive_remote); [`dsl::TensorMap`] kernel parameters
//! with TMA `load`, `load_multicast` and `store`, `bulk_commit/wait`; `fence_proxy_async`,
//! `fence_mbarrier_init`; clusters (`cluster_dims`, `cluster_rank`, `cluster_sync`, `dsmem_load`, `dsmem_load2`,
//! `dsmem_store`, `dsmem_store2`); `elect_one`; `named_barrier_sync/arrive`; `setmaxnreg_inc/dec` with
//! `launch_bounds`; `stmatrix_x1/x2/x4`; `grid_sync` for cooperative launches. Using an
//! instruction the device's target lacks is a [`KernelError::MissingFeature`] naming both.
//!
//! Integer and bit intrinsics, named and defined as in Rust's std (methods on runtime values):
//! `a.mul_hi(b)` (the high half of the full product; `u32`, `i32`, `u64`, `i64`, PTX `mul.hi`),
//! `a.mul_wide(b)` (`u32 x u32 -> u64`, `i32 x i32 -> i64`, PTX `mul.wide`), and on the same four
//! types `leading_zeros`, `trailing_zeros`, `count_ones` (each a `u32`; the width for 0) and
//! `reverse_bits` (PTX `clz`, `brev` then `clz`, `popc`, `brev`). Float bit casts (register moves):
//! `x.to_bits()` (f32 -> u32, f64 -> u64, f16/bf16 -> u16) and `f32::from_bits(u)` (also f64,
//! f16, bf16), which the macro turns into a runtime cast for a runtime `u` and leaves a plain
//! float for a plain one; `Val::<f32>::from_bits(u)` and `f32_from_bits(u)` say the same where a
//! macro does not see the call (plain Rust helpers written against the DSL).
//!
//! # Accuracy of the math functions
//! The CPU executor computes with the host's libm (f16/bf16 through f32). On NVIDIA:
//! `sqrt`, `rsqrt` (as `1/sqrt`), `floor`, `ceil`, `abs`, `min`, `max`, `mul_add` and `+ - * /`
//! are correctly rounded; `exp2`, `log2` use `ex2.approx`/`lg2.approx` (about 2 ulp), `exp` and
//! `ln` add one multiply (relative error about 1e-6 for |x| < 10), `sin`/`cos` use `sin.approx`
//! (absolute error about 1e-6 for |x| < 100), `tanh` uses `tanh.approx` (relative error about
//! 5e-4), `powf(x, y)` is `exp2(y * log2(x))` for x > 0; `erf` is Abramowitz & Stegun 7.1.26 on
//! every back end (absolute error 1.5e-7 plus that of `exp`). f64 `exp`, `ln`, `sin` and `cos`
//! are f64 range reductions and polynomials built from correctly rounded f64 ops
//! ([`ir::expand_f64_math`]): relative error below 1e-15 for `exp` and `ln` over the whole f64
//! range, and for `sin`/`cos` with |x| < 1e5 (larger arguments lose about a bit per doubling);
//! the other f64 transcendentals (`exp2`, `log2`, `tanh`, `powf`) are evaluated in f32 on NVIDIA
//! (about 1e-7 relative); f64 `sqrt` and arithmetic are exact IEEE.
//!
//! | function | f32 on NVIDIA | f64 on NVIDIA |
//! |---|---|---|
//! | `+ - * /`, `sqrt`, `mul_add`, `floor`, `ceil`, `abs`, `min`, `max` | correctly rounded | correctly rounded |
//! | `exp`, `ln` | about 1e-6 relative (|x| < 10) | below 1e-15 relative |
//! | `sin`, `cos` | about 1e-6 absolute (|x| < 100) | below 1e-15 relative (|x| < 1e5) |
//! | `exp2`, `log2` | about 2 ulp | about 1e-7 relative (via f32) |
//! | `sqrt_approx` | about 2^-22 relative (`sqrt.approx.ftz`; below 2^-126 counts as 0) | correctly rounded |
//! | `tanh` | about 5e-4 relative | about 5e-4 relative (via f32) |
//! | `powf` | `exp2(y log2 x)`, x > 0 | same, via f32 |
//!
//! # Launch ABI (shared with the runtime and the backends)
//! A scalar parameter is passed as its bytes (`bool` as one byte); a slice parameter as two
//! parameters, its device address (`u64`) then its length in elements (`u64`); a tensor map as
//! its 128 encoded bytes (a [`runtime::TensorMap`] on a device, a [`HostTensorMap`] on the
//! executor).
//!
//! # Targets and code generators
//! A kernel is compiled for the [`Target`] its device reports: the code generator registered for
//! the target's instruction set ([`code_generator`]; PTX and the CPU executor are built in) makes
//! the module image. A backend for another instruction set adds a target and registers a
//! generator; nothing here dispatches on backend kinds.
//!
//! # Layering
//! `ferrocm-ir`, `ferrocm-ptx` and `ferrocm-cpu-exec` produce `ModuleImage`s and sit below the
//! runtime; this crate adds the typed launch and the per-device module cache, so it depends on
//! `ferrocm-runtime` (libraries use it from above the runtime).
//!
//! `FERROCM_DUMP=ir,ptx` writes every newly generated IR and PTX to stderr, or to files in
//! `FERROCM_DUMP_DIR`.

pub mod cache;
pub mod dsl;

use std::sync::Arc;

pub use cache::{
    code_generator, register_code_generator, Artifact, CodeGenerator, CompiledKernel, KernelError,
};
pub use ferrocm_backend::{tensor_map, CpuKernel, Dim3, LaunchDims, Target};
pub use ferrocm_ir as ir;
pub use ferrocm_kernel_macros::{device, kernel};
pub use ferrocm_runtime as runtime;
pub use half::{bf16, f16};

/// What a kernel body needs in scope: the attributes, DSL types, built-ins and math.
pub mod prelude {
    pub use crate::dsl::{
        ballot, bf16_from_bits, block_dim_x, block_dim_y, block_dim_z, block_idx_x, block_idx_y, block_idx_z,
        cp_async, cp_async_commit, cp_async_wait, dyn_shared, dyn_shared_aligned, f16_from_bits,
        f32_from_bits, f64_from_bits, fence_block, fence_device, fence_system, global_index, global_timer,
        grid_dim_x, grid_dim_y, grid_dim_z, grid_stride, lane_id, ldmatrix_x2, ldmatrix_x2_trans,
        ldmatrix_x4, ldmatrix_x4_trans, local_array, mma_m16n8k16, mma_m16n8k16_f64, mma_m16n8k8_f64,
        mma_m8n8k4_f64, pack_half2, select, shared_array, shared_array_aligned, shfl_down, shfl_idx, shfl_up,
        shfl_xor, sync_threads, sync_warp, sync_warp_mask, thread_idx_x, thread_idx_y, thread_idx_z,
        var_array, vec2, vec4, vote_all, vote_any, warp_size, Atomics, Elem, Float, FloatBits, Int, IntoVal,
        Local, Memory, MemoryMut, Num, Shared, Signed, Slice, SliceMut, Val, VarArray, Vec2, Vec4, Widen,
        Word,
    };
    pub use crate::dsl::{
        bulk_commit, bulk_wait, bulk_wait_read, cluster_arrive, cluster_block_idx_x, cluster_block_idx_y,
        cluster_block_idx_z, cluster_dim_x, cluster_dim_y, cluster_dim_z, cluster_dims, cluster_idx_x,
        cluster_idx_y, cluster_idx_z, cluster_rank, cluster_size, cluster_sync, cluster_wait, dsmem_load,
        dsmem_load2, dsmem_store, dsmem_store2, elect_one, fence_mbarrier_init, fence_proxy_async, fragment,
        grid_sync, launch_bounds, matrix_descriptor, named_barrier_arrive, named_barrier_sync,
        setmaxnreg_dec, setmaxnreg_inc, shared_addr, stmatrix_x1, stmatrix_x2, stmatrix_x4,
        stmatrix_x4_trans, wgmma, wgmma_commit, wgmma_fence, wgmma_rs, wgmma_wait, Barriers, Coords,
        Fragment, MmaType, Swizzle, TensorMap, Wgmma,
    };
    pub use crate::dsl::{Place, Var};
    pub use crate::{device, kernel, Dim3, HostTensorMap, LaunchDims};
    pub use ferrocm_runtime::{AsDeviceSlice, AsDeviceSliceMut, Device, DeviceBuffer, LaunchConfig, Stream};
    pub use half::{bf16, f16};
}

/// What a host argument is, checked against the kernel's parameter before a host launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostKind {
    Scalar(ir::ScalarType),
    Slice { elem: ir::ScalarType, mutable: bool },
    TensorMap,
}

/// Host-side launch arguments for the CPU executor: each kernel parameter's bytes, in order,
/// made only from live host values ([`HostArg`]) and borrowing the slices they point into.
#[derive(Default, Debug)]
pub struct HostArgs<'a> {
    bytes: Vec<Vec<u8>>,
    kinds: Vec<HostKind>,
    _borrow: std::marker::PhantomData<&'a mut ()>,
}

impl HostArgs<'_> {
    pub fn as_slices(&self) -> Vec<&[u8]> {
        self.bytes.iter().map(|b| b.as_slice()).collect()
    }
}

/// A value passed to a kernel launched on host memory ([`CompiledKernel::launch_host`]).
pub trait HostArg<'a> {
    fn push(self, args: &mut HostArgs<'a>);
}
impl<T: dsl::Elem> HostArg<'_> for T {
    fn push(self, args: &mut HostArgs<'_>) {
        let size = T::TY.size() as usize;
        args.bytes.push(self.to_bits().to_le_bytes()[..size].to_vec());
        args.kinds.push(HostKind::Scalar(T::TY));
    }
}
impl<'a, T: dsl::Elem> HostArg<'a> for &'a [T] {
    fn push(self, args: &mut HostArgs<'a>) {
        args.bytes.push((self.as_ptr() as u64).to_le_bytes().to_vec());
        args.bytes.push((self.len() as u64).to_le_bytes().to_vec());
        args.kinds.push(HostKind::Slice { elem: T::TY, mutable: false });
    }
}
impl<'a, T: dsl::Elem> HostArg<'a> for &'a mut [T] {
    fn push(self, args: &mut HostArgs<'a>) {
        args.bytes.push((self.as_mut_ptr() as u64).to_le_bytes().to_vec());
        args.bytes.push((self.len() as u64).to_le_bytes().to_vec());
        args.kinds.push(HostKind::Slice { elem: T::TY, mutable: true });
    }
}
impl<'a> HostArg<'a> for &'a HostTensorMap<'a> {
    fn push(self, args: &mut HostArgs<'a>) {
        args.bytes.push(self.bytes.to_vec());
        args.kinds.push(HostKind::TensorMap);
    }
}

impl<'a> HostArgs<'a> {
    /// Appends one argument.
    pub fn push(&mut self, arg: impl HostArg<'a>) -> &mut Self {
        arg.push(self);
        self
    }
}

/// A tiled tensor map over a host slice, for kernels run on the CPU executor over host memory
/// ([`CompiledKernel::launch_host`]); device launches take a [`runtime::TensorMap`]. The map
/// borrows the slice mutably (TMA stores write through it), and the slice must hold the whole
/// tensor the layout describes.
pub struct HostTensorMap<'a> {
    bytes: [u8; ferrocm_backend::tensor_map::TENSOR_MAP_BYTES],
    _data: std::marker::PhantomData<&'a mut ()>,
}

impl<'a> HostTensorMap<'a> {
    /// A map of `data` laid out as `layout` says (strides default to dense rows), checked with
    /// the driver's rules and against the slice's length.
    pub fn new<T: runtime::TensorMapElement>(
        data: &'a mut [T],
        layout: &runtime::TiledLayout,
    ) -> Result<HostTensorMap<'a>, String> {
        use ferrocm_backend::tensor_map::{TensorMapDataType, TensorMapDesc, MAX_RANK};
        let rank = layout.dims.len();
        if rank == 0 || rank > MAX_RANK || layout.box_dims.len() != rank {
            return Err(format!("a rank-{rank} layout with {} box dimensions", layout.box_dims.len()));
        }
        let esize = std::mem::size_of::<T>() as u64;
        let mut strides = [0u64; MAX_RANK - 1];
        if layout.strides_bytes.is_empty() {
            let mut s = esize;
            for (stride, &dim) in strides.iter_mut().zip(&layout.dims[..rank - 1]) {
                s = s.checked_mul(dim).ok_or("the tensor's size overflows")?;
                *stride = s;
            }
        } else if layout.strides_bytes.len() == rank - 1 {
            strides[..rank - 1].copy_from_slice(&layout.strides_bytes);
        } else {
            return Err(format!("{} strides for a rank-{rank} tensor", layout.strides_bytes.len()));
        }
        let mut desc = TensorMapDesc {
            data_type: if layout.tf32 && T::DATA_TYPE == TensorMapDataType::F32 {
                TensorMapDataType::TF32
            } else {
                T::DATA_TYPE
            },
            rank: rank as u32,
            global_address: ferrocm_backend::DevicePtr(data.as_mut_ptr() as u64),
            global_dims: [1; MAX_RANK],
            global_strides: strides,
            box_dims: [1; MAX_RANK],
            element_strides: [1; MAX_RANK],
            interleave: layout.interleave,
            swizzle: layout.swizzle,
            l2_promotion: layout.l2_promotion,
            oob_fill: layout.oob_fill,
        };
        desc.global_dims[..rank].copy_from_slice(&layout.dims);
        desc.box_dims[..rank].copy_from_slice(&layout.box_dims);
        if layout.element_strides.len() == rank {
            desc.element_strides[..rank].copy_from_slice(&layout.element_strides);
        }
        let bytes = desc.to_cpu_bytes().map_err(|r| r.to_string())?;
        // The whole tensor must lie inside the slice.
        let mut extent = esize;
        for d in 0..rank {
            let stride = if d == 0 { esize } else { strides[d - 1] };
            extent = (layout.dims[d] - 1)
                .checked_mul(stride)
                .and_then(|x| x.checked_add(extent))
                .ok_or("the tensor's extent overflows")?;
        }
        let held = std::mem::size_of_val(data) as u64;
        if extent > held {
            return Err(format!("the layout spans {extent} bytes but the slice holds {held}"));
        }
        Ok(HostTensorMap { bytes, _data: std::marker::PhantomData })
    }

    /// The encoded bytes a kernel receives.
    pub fn bytes(&self) -> &[u8; ferrocm_backend::tensor_map::TENSOR_MAP_BYTES] {
        &self.bytes
    }
}

/// Builds launch dimensions from anything convertible to [`Dim3`].
pub fn dims(grid: impl Into<Dim3>, block: impl Into<Dim3>, shared_mem_bytes: u32) -> LaunchDims {
    LaunchDims::new(grid, block, shared_mem_bytes)
}

/// Support for the macro's expansion; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::cache::{get_or_build, ByText, ByValue, InstanceCache, KeyWriter, Probe};
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
