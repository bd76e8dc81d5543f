//! ferrocm GEMM: tensor-core matrix products written in the kernel language, and the planner that
//! picks a kernel for the element types, the device's target and the shape.
//!
//! ```ignore
//! use ferrocm_gemm::{Gemm, GemmDesc, ElemType, Layout};
//!
//! // C (m x n, f32) = A (m x k, bf16, row-major) * B (k x n, bf16, row-major)
//! let desc = GemmDesc::new(m, n, k, ElemType::BF16).with_c_type(ElemType::F32);
//! let plan = Gemm::plan(stream.device(), &desc)?;
//! plan.run(&stream, &a, &b, &mut c)?;   // a, b: DeviceBuffer<bf16>, c: DeviceBuffer<f32>
//!
//! // torch._scaled_mm(a, b.t(), scale_a, scale_b, out_dtype=bfloat16): e4m3 A (m x k,
//! // row-major) and B (k x n, column-major), per-tensor scales, C bf16 (row-major).
//! let desc = GemmDesc::new_scaled(m, n, k, ElemType::E4M3).with_scales(scale_a, scale_b);
//! let plan = Gemm::plan(stream.device(), &desc)?;
//! plan.run(&stream, &a8, &b8, &mut c)?;  // a8, b8: DeviceBuffer<E4M3>, c: DeviceBuffer<bf16>
//!
//! // f32 A (m x k, row-major) and B (k x n, column-major) multiplied as TF32 (cuBLAS's
//! // CUBLAS_COMPUTE_32F_FAST_TF32), C f32.
//! let desc = GemmDesc::new(m, n, k, ElemType::TF32)
//!     .with_c_type(ElemType::F32)
//!     .with_layouts(Layout::RowMajor, Layout::ColMajor, Layout::RowMajor);
//! let plan = Gemm::plan(stream.device(), &desc)?;
//! plan.run(&stream, &a32, &b32, &mut c32)?; // all DeviceBuffer<f32>
//! ```
//!
//! # Contract
//! [`Plan::run`] computes `C = alpha * scale_a * scale_b * A * B + beta * C` where `A` is
//! `m x k`, `B` is `k x n` and `C` is `m x n`, each stored row- or column-major ([`Layout`]) with
//! a leading dimension (the distance between consecutive rows of a row-major matrix, columns of a
//! column-major one; packed by default). Products accumulate in f32; the result is rounded once
//! to C's type. `alpha * scale_a * scale_b` (computed in f64, rounded to f32) multiplies the f32
//! sum (the scales are the per-tensor scales of 8-bit inputs; 1 by default). 8-bit products are
//! summed by the tensor cores in blocks of 128 of K, each block's partial sum added into an f32
//! accumulator (Hopper keeps fewer bits than f32 within a block). With `beta == 0` C is only
//! written (it may hold anything, NaN too); elements of the buffers outside the described
//! matrices are never touched. `k` is at least 1.
//!
//! Batches ([`GemmDesc::with_batch`]): `count` products of one shape in one launch, product `z`
//! on the matrices starting `z * stride` elements into A's, B's and C's buffers. A stride of 0
//! for A or B reads one matrix for every product (broadcast). The kernel reads each operand as
//! one TMA tensor with the batch as its outermost dimension, so A's and B's strides are 0 or
//! multiples of 16 bytes no less than the matrix's leading dimension times its outer dimension
//! (the matrices may not interleave); C's matrices may not overlap. A refused stride is a
//! [`GemmError`] naming it: a caller falls back to one plan per product. The persistent blocks
//! walk every tile of every product (product by product, each in the grouped order); a cluster
//! of two blocks takes two tiles of one product. The shared-memory epilogue applies when C's
//! stride also obeys TMA's rules, else the register epilogue writes C.
//!
//! Split-K ([`Tuning::split_k`]; the planner's choice for a single product whose tiles fill under
//! half of the multiprocessors and whose K is long, as in decoding, m = 16): slices of K run as
//! the products of one launch, each writing its f32 partial sum to a workspace taken from the
//! stream's pool (`slices * m * n` f32), and a second kernel sums the slices in a fixed order
//! (the result is deterministic) and applies alpha, beta and C's type. A stream capturing a graph
//! runs the plan without the split.
//!
//! [`ElemType::TF32`] inputs are f32 buffers whose elements the tensor cores read as tf32: the
//! sign, the exponent and the top 10 of the 23 mantissa bits; the other 13 are dropped
//! (truncation toward zero, not rounding: the tensor maps copy the f32 bits unchanged and
//! `wgmma` ignores the low ones, which is also what cuBLAS's TF32 mode and PyTorch's
//! `allow_tf32` do: "only the first 10 bits of the input mantissa are read", PyTorch's
//! numerical-accuracy notes). Each element read is within 2^-10 of itself (relative), so each
//! product is within `2^-9 + 2^-20` of the f32 inputs' exact product, and the products of the
//! cut values are summed in f32. With `s = sum_p |a_ip b_pj|`, an element of C is within
//! `|alpha| s (2^-9 + 2^-20 + k u) + u_C |C|` of `alpha A B + beta C` (`u = 2^-24`, `u_C` the
//! unit roundoff of C's type). The tests hold every element to the product of the cut inputs
//! within f32 summation's bound (so the kernel reads exactly those bits), and to this bound
//! against the f32 inputs.
//!
//! Supported now (everything else is a [`GemmError`] naming what is allowed):
//! - A and B f16 or bf16 (the same type), C f32, f16 or bf16, any layouts;
//! - A and B [`E4M3`] or [`E5M2`] (the same type), C f32, f16 or bf16, A row-major and B
//!   column-major ("TN": `wgmma` reads 8-bit operands K-major only), C either layout; block
//!   tiles at most 192 wide (`Tuning::bn`);
//! - A and B [`ElemType::TF32`] (f32 buffers), C f32, f16 or bf16, A row-major and B
//!   column-major ("TN" again: `wgmma` has no transpose for tf32), C either layout;
//! - devices whose target has `wgmma`, TMA and `setmaxnreg` (NVIDIA sm_90a, and the CPU executor,
//!   which runs the same kernel as a reference);
//! - TMA's rules on the operands: each operand's leading dimension times its element size is a
//!   multiple of 16 bytes (for 8-bit inputs: packed `k` a multiple of 16; tf32: of 4), and the buffers start
//!   16-byte aligned (device allocations do).
//!
//! # Plans
//! A [`Plan`] fixes the kernel (tile shape, pipeline depth, grid); it is cheap to build, `Send`
//! and `Sync`, and may run many times on any stream of its device. The kernel is compiled once
//! per process and loaded once per device on first use. What the kernels are and how fast they
//! run is in this crate's `NOTES.md`.

mod error;
mod fp8;
mod plan;
pub mod sm90;

pub use error::{GemmError, Result};
pub use fp8::{E4M3, E5M2};
pub use plan::{ElemType, Gemm, GemmDesc, GemmElement, GemmOutput, Layout, Plan, Tuning};
