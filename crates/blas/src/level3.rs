//! Level 3: matrix-matrix operations (`s`, `d`, `c`, `z`), and the GEMM planner.
//!
//! # The GEMM planner
//! Every GEMM goes through [`Handle::gemm_family`], which picks a kernel family from the
//! element type, the device's [`Target`](ferrocm_kernel::runtime::Target) and the shape:
//! - [`GemmFamily::Native`]: the CPU device with [`Engine::Auto`](crate::Engine::Auto): the
//!   `gemm` crate (packed, cache-blocked SIMD microkernels, threads through rayon).
//! - [`GemmFamily::Dmma16W32`]: real f64 on targets with `Feature::MmaF64M16` (sm_90+, and the
//!   CPU executor, which emulates it): Hopper's FP64 tensor-core shape `m16n8k16`
//!   (`kernels::gemm::gemm_dmma16`) with 32 x 32 warp tiles, two 8-warp blocks per
//!   multiprocessor. [`GemmFamily::Dmma16`] (the same kernel with 64 x 32 warp tiles, one 8-warp
//!   block per multiprocessor) and [`GemmFamily::Dmma16K8`] (64 x 32 warp tiles, two 4-warp
//!   blocks per multiprocessor, 8-deep `m16n8k8` steps with double-buffered fragments) run when
//!   forced.
//! - [`GemmFamily::Dmma`]: real f64 on the other targets with `Feature::MmaSync` (sm_80,
//!   sm_86, sm_89): the FP64 tensor-core kernel on `m8n8k4` (`kernels::gemm::gemm_dmma`).
//! - [`GemmFamily::WarpTiled`]: real f32 on targets with `Feature::CpAsync` (sm_80+, and the
//!   CPU executor) when `A` and `B` start 16-byte aligned with leading dimensions and batch
//!   strides multiples of 4 elements: the warp-tiled SIMT kernel (`kernels::gemm::gemm_wt`,
//!   two blocks per multiprocessor, `cp.async`-fed double-buffered slabs).
//! - [`GemmFamily::Wgmma`]: f16/bf16 inputs of `gemm_ex`, `gemm_half` and `matmul`, and f32
//!   GEMMs where tf32 products are allowed (`gemm_ex` with [`ComputeType::F32FastTf32`](crate::ComputeType), or any
//!   f32 GEMM on a handle in [`MathMode::Tf32Allowed`](crate::MathMode); operands other than
//!   `op(A) = T`, `op(B) = N` are copied K-major into the workspace first), on
//!   targets with `wgmma`, TMA and `setmaxnreg` (sm_90a, and the CPU executor): `ferrocm-gemm`'s
//!   kernel (see [`crate::gemm_ex`] for its conditions).
//! - [`GemmFamily::Simt`]: every other device and type, and f32 operands the warp-tiled
//!   kernel cannot read 16 bytes at a time: the kernel-language SIMT kernel
//!   (`kernels::gemm::gemm_simt`).
//!
//! [`Handle::set_gemm_family`] forces one family where it can run (to compare kernels on one
//! device, or to test a family on a device that would pick another: the CPU executor runs
//! every family).
//!
//! The Hopper kernel serves f16/bf16 inputs and tf32 f32 GEMMs ([`GemmFamily::Wgmma`]);
//! `mma.sync` (`Feature::MmaSync`, sm_80+) for f16/bf16/tf32 is not wired yet: on sm_80..89
//! those inputs take the SIMT conversion kernel, and f32 GEMMs with tf32 allowed compute in full
//! f32 there.

use ferrocm_kernel::runtime::{
    AsDeviceSlice, AsDeviceSliceMut, DeviceRepr, Feature, KernelArgs, LaunchConfig,
};

use crate::check::{matrix_span, size32};
use crate::error::{BlasError, Result};
use crate::handle::Handle;
use crate::kernels::{self, gemm::BLOCK_EDGE};
use crate::level2::bools;
use crate::native::{self, push_buf, push_scalar};
use crate::types::{DataType, MathMode, Operation, RealScalar, Scalar, ScalarArg};

/// The kernel family a GEMM runs on (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GemmFamily {
    /// The native CPU BLAS (the `gemm` crate) on the CPU device.
    Native,
    /// The kernel-language SIMT kernel: 16 x 16 threads with register tiles (8 x 8 per thread
    /// for real types, 4 x 4 for complex), K slabs through shared memory.
    Simt,
    /// Real f64 on the FP64 tensor core (`mma.sync.m8n8k4.f64`, sm_80+), 32 x 32 of C per
    /// warp, K through a 3-stage `cp.async` ring: 128 x 128 tiles per 16-warp block with
    /// 16-deep slabs when that grid fills the device, else 128 x 64 per 8-warp block with
    /// 8-deep slabs.
    Dmma,
    /// Real f64 on Hopper's FP64 tensor-core shape (`mma.sync.m16n8k16.f64`, SASS
    /// `DMMA.16x8x16`, sm_90+), 64 x 32 of C per warp, K in 16-deep slabs (one MMA step)
    /// through a 4-stage `cp.async` ring laid out for 16-byte fragment loads: 128 x 128 tiles
    /// per 8-warp block when that grid fills the device, else 128 x 64 per 4-warp block.
    Dmma16,
    /// [`GemmFamily::Dmma16`]'s kernel with 32 x 32 of C per warp: 128 x 64 tiles per 8-warp
    /// block, at most 128 registers a thread, so two blocks (16 warps) share a multiprocessor
    /// and one block's barrier leaves the other's warps running.
    Dmma16W32,
    /// [`GemmFamily::Dmma16`]'s 128 x 64 tiles of 4 warps (64 x 32 each, two blocks per
    /// multiprocessor) multiplied in 8-deep steps (`mma.sync.m16n8k8.f64`) with double-buffered
    /// fragments: each step's operands are loaded while the previous step's MMAs run, across the
    /// slab barrier too.
    Dmma16K8,
    /// Real f32 on `cp.async` targets (sm_80+) with 16-byte aligned operands: 128 x 128 tiles
    /// of C per 8-warp block, 64 x 32 per warp, 8 x 8 per thread, K in 8-deep slabs through
    /// two shared buffers, at most 128 registers so two blocks share a multiprocessor.
    WarpTiled,
    /// f16/bf16 inputs on sm_90a (and the CPU executor): the `ferrocm-gemm` crate's
    /// warp-specialized TMA + `wgmma` kernel (`gemm_ex`, `gemm_half`, `matmul`).
    Wgmma,
}

/// The most batches one kernel launch covers (the grid's `z` limit).
const MAX_BATCH: usize = kernels::MAX_GRID_YZ as usize;

impl Handle {
    /// The kernel family a GEMM of element type `ty` and shape `m x n x k` runs on with this
    /// handle (its device, engine and math mode), for operands that start 16-byte aligned with
    /// leading dimensions and batch strides multiples of 4 elements (other f32 operands take
    /// [`GemmFamily::Simt`] where this says [`GemmFamily::WarpTiled`]). A family forced with
    /// [`Handle::set_gemm_family`] is returned as it is.
    pub fn gemm_family(&self, ty: DataType, m: usize, n: usize, k: usize) -> GemmFamily {
        self.gemm_plan(ty, m, n, k, true)
    }

    /// [`Handle::gemm_family`] for operands that are (`aligned16`) or are not readable 16 bytes
    /// at a time.
    pub(crate) fn gemm_plan(
        &self,
        ty: DataType,
        m: usize,
        n: usize,
        k: usize,
        aligned16: bool,
    ) -> GemmFamily {
        let _ = (m, n, k);
        let target = self.stream().device().target();
        if let Some(family) = self.gemm_family_forced() {
            family
        } else if !self.use_kernels() {
            GemmFamily::Native
        } else if ty == DataType::F64 && target.has(Feature::MmaF64M16) {
            GemmFamily::Dmma16W32
        } else if ty == DataType::F64 && target.has(Feature::MmaSync) {
            GemmFamily::Dmma
        } else if ty == DataType::F32 && aligned16 && target.has(Feature::CpAsync) {
            GemmFamily::WarpTiled
        } else {
            GemmFamily::Simt
        }
    }

    /// Why `family` cannot run a GEMM of `ty` with this handle, if it cannot.
    pub(crate) fn gemm_family_rule(
        &self,
        family: GemmFamily,
        ty: DataType,
        aligned16: bool,
    ) -> Option<&'static str> {
        let target = self.stream().device().target();
        let kernels = self.use_kernels();
        match family {
            GemmFamily::Native if kernels => Some("the native family runs on the CPU device with Engine::Auto"),
            GemmFamily::Native => None,
            _ if !kernels => Some("the kernel families run on GPUs, or on the CPU device with Engine::Kernels"),
            GemmFamily::Simt => None,
            GemmFamily::Dmma if ty != DataType::F64 || !target.has(Feature::MmaSync) => {
                Some("Dmma runs real f64 on targets with mma.sync (sm_80 or newer)")
            }
            GemmFamily::Dmma16 | GemmFamily::Dmma16W32 | GemmFamily::Dmma16K8
                if ty != DataType::F64 || !target.has(Feature::MmaF64M16) =>
            {
                Some(
                    "Dmma16, Dmma16W32 and Dmma16K8 run real f64 on targets with mma.sync f64 m16n8k16 and \
                     m16n8k8 (sm_90 or newer)",
                )
            }
            GemmFamily::WarpTiled if ty != DataType::F32 || !aligned16 || !target.has(Feature::CpAsync) => Some(
                "WarpTiled runs real f32 on targets with cp.async (sm_80 or newer), A and B 16-byte aligned \
                 with leading dimensions and strides multiples of 4",
            ),
            GemmFamily::Wgmma => Some(
                "Wgmma runs f16/bf16 inputs (gemm_ex, gemm_half, matmul), and f32 ones where tf32 is allowed \
                 (compute tf32_r or MathMode::Tf32Allowed) with host alpha != 0 and beta, and (for T/N) \
                 leading dimensions and batch strides multiples of 4",
            ),
            _ => None,
        }
    }

    /// `C = alpha op(A) op(B) + beta C` (`?gemm`), `op(A)` `m x k`, `op(B)` `k x n`, `C`
    /// `m x n`, all column-major. `A` is stored `m x k` for `N` (`lda >= max(1, m)`) and
    /// `k x m` for `T`/`C` (`lda >= max(1, k)`), `B` likewise. `beta = 0` sets `C` without
    /// reading it; `alpha = 0` or `k = 0` reads neither `A` nor `B` (`C = beta C`).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm<'a, T: Scalar>(
        &'a self,
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        b: &impl AsDeviceSlice<T>,
        ldb: usize,
        beta: impl Into<ScalarArg<'a, T>>,
        c: &mut impl AsDeviceSliceMut<T>,
        ldc: usize,
    ) -> Result<()> {
        self.gemm_strided_batched(transa, transb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1)
    }

    /// `batch_count` GEMMs on matrices `stride_*` elements apart (`?gemm_strided_batched`):
    /// batch `i` uses `A + i stride_a`, `B + i stride_b`, `C + i stride_c`. `A` and `B` may
    /// share or repeat matrices (`stride 0`); the matrices of `C` must not overlap
    /// (`stride_c >= ldc * n` when there is more than one batch).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_strided_batched<'a, T: Scalar>(
        &'a self,
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        stride_a: usize,
        b: &impl AsDeviceSlice<T>,
        ldb: usize,
        stride_b: usize,
        beta: impl Into<ScalarArg<'a, T>>,
        c: &mut impl AsDeviceSliceMut<T>,
        ldc: usize,
        stride_c: usize,
        batch_count: usize,
    ) -> Result<()> {
        let (alpha, beta) = (alpha.into(), beta.into());
        if T::TYPE == DataType::F32 && self.math_mode() == MathMode::Tf32Allowed {
            // An f32 GEMM that may take tf32 products is `gemm_ex` with tf32 compute: it runs the
            // Hopper kernel where that applies (directly or on K-major copies of the operands)
            // and comes back to `gemm_strided_batched_full` for everything else.
            let f32_of = |s: &ScalarArg<'a, T>| -> Result<ScalarArg<'a, f32>> {
                Ok(match s {
                    ScalarArg::Host(v) => ScalarArg::Host(v.parts().0.to_f64() as f32),
                    ScalarArg::Device(d) => ScalarArg::Device(d.reinterpret::<f32>()?),
                })
            };
            let (al, be) = (f32_of(&alpha)?, f32_of(&beta)?);
            let (af, bf) =
                (a.as_device_slice().reinterpret::<f32>()?, b.as_device_slice().reinterpret::<f32>()?);
            let mut cf = c.as_device_slice_mut().reinterpret::<f32>()?;
            return self.gemm_ex_on(
                self.gemm_family_forced(),
                transa,
                transb,
                m,
                n,
                k,
                al,
                &af,
                lda,
                stride_a,
                &bf,
                ldb,
                stride_b,
                be,
                &mut cf,
                ldc,
                stride_c,
                batch_count,
                crate::types::ComputeType::F32FastTf32,
            );
        }
        self.gemm_strided_batched_full(
            transa,
            transb,
            m,
            n,
            k,
            alpha,
            a,
            lda,
            stride_a,
            b,
            ldb,
            stride_b,
            beta,
            c,
            ldc,
            stride_c,
            batch_count,
        )
    }

    /// [`Handle::gemm_strided_batched`] in the type's own precision (no tf32 products, whatever
    /// the math mode): what `gemm_ex` runs for classic types and for tf32 requests the Hopper
    /// kernel does not take.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gemm_strided_batched_full<'a, T: Scalar>(
        &'a self,
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        alpha: ScalarArg<'a, T>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        stride_a: usize,
        b: &impl AsDeviceSlice<T>,
        ldb: usize,
        stride_b: usize,
        beta: ScalarArg<'a, T>,
        c: &mut impl AsDeviceSliceMut<T>,
        ldc: usize,
        stride_c: usize,
        batch_count: usize,
    ) -> Result<()> {
        let spans = self.check_gemm_batch(
            transa,
            transb,
            m,
            n,
            k,
            &alpha,
            a,
            lda,
            stride_a,
            b,
            ldb,
            stride_b,
            &beta,
            &*c,
            ldc,
            stride_c,
            batch_count,
        )?;
        if m == 0 || n == 0 || batch_count == 0 {
            return Ok(());
        }
        let skip_ab = k == 0 || alpha.host().is_some_and(|v| v.is_zero());
        if skip_ab && beta.host().is_some_and(|v| v.is_one()) {
            return Ok(());
        }
        let s = self.stream();
        // The warp-tiled f32 kernel reads A and B 16 bytes at a time.
        let quad = |x: usize| x % 4 == 0;
        let aligned16 = a.as_device_slice().device_ptr().0 % 16 == 0
            && b.as_device_slice().device_ptr().0 % 16 == 0
            && quad(lda)
            && quad(ldb)
            && (batch_count == 1 || (quad(stride_a) && quad(stride_b)));
        let family = self.gemm_plan(T::TYPE, m, n, k, aligned16);
        if let Some(rule) = self.gemm_family_rule(family, T::TYPE, aligned16) {
            return Err(BlasError::Unsupported {
                what: format!("a {} GEMM on GemmFamily::{family:?} with this handle: {rule}", T::TYPE.name()),
            });
        }
        match family {
            GemmFamily::Native => {
                let mut args = KernelArgs::new();
                args.push(transa.code()).push(transb.code());
                args.push(m as u64).push(n as u64).push(k as u64);
                push_scalar(&mut args, &alpha);
                push_buf(&mut args, a);
                args.push(lda as u64).push(stride_a as u64);
                push_buf(&mut args, b);
                args.push(ldb as u64).push(stride_b as u64);
                push_scalar(&mut args, &beta);
                push_buf(&mut args, c);
                args.push(ldc as u64).push(stride_c as u64).push(batch_count as u64);
                native::launch(s, "gemm", T::TYPE, &args)
            }
            GemmFamily::Simt
            | GemmFamily::Dmma
            | GemmFamily::Dmma16
            | GemmFamily::Dmma16W32
            | GemmFamily::Dmma16K8
            | GemmFamily::WarpTiled
            | GemmFamily::Wgmma => {
                check_gemm_kernel_limits(spans, if T::COMPLEX { 2 } else { 1 }, batch_count)?;
                let k = if skip_ab { 0 } else { k };
                let (m32, n32, k32) = (size32("m", m)?, size32("n", n)?, size32("k", k)?);
                let (ka, kb) = (self.kscalar(&alpha)?, self.kscalar(&beta)?);
                let ar = a.as_device_slice().reinterpret::<T::Real>()?;
                let br = b.as_device_slice().reinterpret::<T::Real>()?;
                let mut cr = c.as_device_slice_mut().reinterpret::<T::Real>()?;
                let (lda, ldb, ldc) = (lda as u32, ldb as u32, ldc as u32);
                let (sa, sb, sc) = (stride_a as u32, stride_b as u32, stride_c as u32);
                let mnk = (m * n * k * batch_count) as u64;
                kernels::annotate(
                    2 * mnk * if T::COMPLEX { 4 } else { 1 },
                    ((m * k + k * n + 2 * m * n) * batch_count * size_of::<T>()) as u64,
                );
                if family == GemmFamily::WarpTiled {
                    use kernels::gemm::{gemm_wt, WT_THREADS, WT_TILE};
                    let grid = (n32.div_ceil(WT_TILE), m32.div_ceil(WT_TILE), batch_count as u32);
                    let cfg = LaunchConfig::new(grid, WT_THREADS);
                    // A real matrix's C is its T.
                    let (ta, tb) = (transa != Operation::N, transb != Operation::N);
                    let (ar, br) = (ar.reinterpret::<f32>()?, br.reinterpret::<f32>()?);
                    let mut cr = cr.reinterpret::<f32>()?;
                    let (av, bv) = (ka.view.reinterpret::<f32>()?, kb.view.reinterpret::<f32>()?);
                    let (are, bre) = (ka.re.to_f64() as f32, kb.re.to_f64() as f32);
                    macro_rules! go {
                        ($ta:literal, $tb:literal) => {
                            bools!(ka.device => DSA, bools!(kb.device => DSB, {
                                gemm_wt::launch::<$ta, $tb, DSA, DSB>(
                                    s, cfg, m32, n32, k32, are, &av, &ar, lda, sa, &br, ldb, sb, bre, &bv,
                                    &mut cr, ldc, sc,
                                )?
                            }))
                        };
                    }
                    match (ta, tb) {
                        (false, false) => go!(0, 0),
                        (false, true) => go!(0, 1),
                        (true, false) => go!(1, 0),
                        (true, true) => go!(1, 1),
                    }
                    return Ok(());
                }
                if matches!(
                    family,
                    GemmFamily::Dmma | GemmFamily::Dmma16 | GemmFamily::Dmma16W32 | GemmFamily::Dmma16K8
                ) {
                    use kernels::gemm::{
                        dmma16_bn, dmma16_shared_bytes, dmma16_threads, dmma_bn, dmma_shared_bytes,
                        dmma_threads, gemm_dmma, gemm_dmma16, DMMA16_K8, DMMA16_NARROW, DMMA16_W32,
                        DMMA16_WIDE, DMMA_BM,
                    };
                    // Dmma and Dmma16: 128 x 128 tiles (16 warps a block with m8n8k4, 8 with
                    // m16n8k16) when they alone fill every multiprocessor; 128 x 64 (half the
                    // warps, two blocks each) for smaller grids. Dmma16W32: 128 x 64 tiles of 8
                    // warps, two blocks each, at every size.
                    let tiles =
                        |bn: u32| n32.div_ceil(bn) as u64 * m32.div_ceil(DMMA_BM) as u64 * batch_count as u64;
                    let wide = tiles(dmma_bn(true)) >= s.device().properties().compute_units as u64;
                    let geo = match family {
                        GemmFamily::Dmma16W32 => Some(DMMA16_W32),
                        GemmFamily::Dmma16K8 => Some(DMMA16_K8),
                        GemmFamily::Dmma16 if wide => Some(DMMA16_WIDE),
                        GemmFamily::Dmma16 => Some(DMMA16_NARROW),
                        _ => None,
                    };
                    let (bn, threads, shared) = match geo {
                        Some(g) => (dmma16_bn(g), dmma16_threads(g), dmma16_shared_bytes(g)),
                        None => (dmma_bn(wide), dmma_threads(wide), dmma_shared_bytes(wide)),
                    };
                    let grid = (n32.div_ceil(bn), m32.div_ceil(DMMA_BM), batch_count as u32);
                    let cfg = LaunchConfig::new(grid, threads).with_shared_mem(shared);
                    // A real matrix's C is its T.
                    let (ta, tb) = (transa != Operation::N, transb != Operation::N);
                    let (ar, br) = (ar.reinterpret::<f64>()?, br.reinterpret::<f64>()?);
                    let mut cr = cr.reinterpret::<f64>()?;
                    let (av, bv) = (ka.view.reinterpret::<f64>()?, kb.view.reinterpret::<f64>()?);
                    let (are, bre) = (ka.re.to_f64(), kb.re.to_f64());
                    macro_rules! go16 {
                        ($ta:literal, $tb:literal, $geo:expr) => {
                            bools!(ka.device => DSA, bools!(kb.device => DSB, {
                                gemm_dmma16::launch::<$ta, $tb, DSA, DSB, { $geo }>(
                                    s, cfg, m32, n32, k32, are, &av, &ar, lda, sa, &br, ldb, sb, bre, &bv,
                                    &mut cr, ldc, sc,
                                )?
                            }))
                        };
                    }
                    macro_rules! go {
                        ($ta:literal, $tb:literal) => {
                            match geo {
                                Some(DMMA16_W32) => go16!($ta, $tb, DMMA16_W32),
                                Some(DMMA16_K8) => go16!($ta, $tb, DMMA16_K8),
                                Some(DMMA16_WIDE) => go16!($ta, $tb, DMMA16_WIDE),
                                Some(_) => go16!($ta, $tb, DMMA16_NARROW),
                                None => bools!(ka.device => DSA, bools!(kb.device => DSB, bools!(wide => WIDE, {
                                    gemm_dmma::launch::<$ta, $tb, DSA, DSB, WIDE>(
                                        s, cfg, m32, n32, k32, are, &av, &ar, lda, sa, &br, ldb, sb, bre, &bv,
                                        &mut cr, ldc, sc,
                                    )?
                                }))),
                            }
                        };
                    }
                    match (ta, tb) {
                        (false, false) => go!(0, 0),
                        (false, true) => go!(0, 1),
                        (true, false) => go!(1, 0),
                        (true, true) => go!(1, 1),
                    }
                    return Ok(());
                }
                let tile = BLOCK_EDGE * kernels::gemm::register_tile(T::COMPLEX) as u32;
                let grid = (n32.div_ceil(tile), m32.div_ceil(tile), batch_count as u32);
                let cfg = LaunchConfig::new(grid, (BLOCK_EDGE, BLOCK_EDGE));
                macro_rules! go {
                    ($ta:literal, $tb:literal) => {
                        bools!(T::COMPLEX => CX, bools!(ka.device => DSA, bools!(kb.device => DSB, {
                            const W: usize = kernels::gemm::register_tile(CX);
                            kernels::gemm::gemm_simt::launch::<T::Real, CX, $ta, $tb, DSA, DSB, W>(
                                s, cfg, m32, n32, k32, ka.re, ka.im, &ka.view, &ar, lda, sa, &br, ldb,
                                sb, kb.re, kb.im, &kb.view, &mut cr, ldc, sc,
                            )?
                        })))
                    };
                }
                match (transa.code(), transb.code()) {
                    (0, 0) => go!(0, 0),
                    (0, 1) => go!(0, 1),
                    (0, _) => go!(0, 2),
                    (1, 0) => go!(1, 0),
                    (1, 1) => go!(1, 1),
                    (1, _) => go!(1, 2),
                    (_, 0) => go!(2, 0),
                    (_, 1) => go!(2, 1),
                    (_, _) => go!(2, 2),
                }
                Ok(())
            }
        }
    }

    /// Checks a strided-batched GEMM's arguments by [`Handle::gemm_strided_batched`]'s rules,
    /// whatever the element types (`gemm_ex` shares them): the scalars, each operand's batch
    /// of matrices, and batches of C that do not overlap. Returns the spans of A, B and C.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_gemm_batch<TA: DeviceRepr, TB: DeviceRepr, TC: DeviceRepr, S: DeviceRepr>(
        &self,
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        alpha: &ScalarArg<'_, S>,
        a: &impl AsDeviceSlice<TA>,
        lda: usize,
        stride_a: usize,
        b: &impl AsDeviceSlice<TB>,
        ldb: usize,
        stride_b: usize,
        beta: &ScalarArg<'_, S>,
        c: &impl AsDeviceSlice<TC>,
        ldc: usize,
        stride_c: usize,
        batch_count: usize,
    ) -> Result<[usize; 3]> {
        self.check_scalar("alpha", alpha)?;
        self.check_scalar("beta", beta)?;
        let (ra, ca) = if transa == Operation::N { (m, k) } else { (k, m) };
        let (rb, cb) = if transb == Operation::N { (k, n) } else { (n, k) };
        let span_a = self.check_batch("a", "lda", a, ra, ca, lda, stride_a, batch_count)?;
        let span_b = self.check_batch("b", "ldb", b, rb, cb, ldb, stride_b, batch_count)?;
        let span_c = self.check_batch("c", "ldc", c, m, n, ldc, stride_c, batch_count)?;
        if batch_count > 1 && m > 0 && n > 0 && stride_c < ldc.saturating_mul(n) {
            return Err(BlasError::InvalidValue {
                arg: "stride_c",
                value: stride_c.to_string(),
                rule: "the batches of C must not overlap: stride_c >= ldc * n when batch_count > 1",
            });
        }
        Ok([span_a, span_b, span_c])
    }

    /// Checks a batch of `rows x cols` matrices `stride` apart in `v`; returns the span.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_batch<T: DeviceRepr>(
        &self,
        arg: &'static str,
        ld_arg: &'static str,
        v: &impl AsDeviceSlice<T>,
        rows: usize,
        cols: usize,
        ld: usize,
        stride: usize,
        batch_count: usize,
    ) -> Result<usize> {
        if batch_count == 0 {
            // Nothing is read, but the leading dimension must still obey its rule.
            self.check_device(arg, v)?;
            if ld < rows.max(1) {
                return Err(BlasError::LeadingDimension { arg: ld_arg, ld, rows });
            }
            return Ok(0);
        }
        self.check_matrix(arg, ld_arg, v, rows, cols, ld)?;
        let one = matrix_span(rows, cols, ld).unwrap_or(usize::MAX);
        let required = if one == 0 {
            0
        } else {
            (batch_count - 1).checked_mul(stride).and_then(|x| x.checked_add(one)).ok_or(
                BlasError::SizeTooLarge {
                    arg,
                    value: batch_count as u128 * stride as u128,
                    rule: "(batch_count - 1) * stride + the matrix's span must fit in usize",
                },
            )?
        };
        self.check_len(arg, v, "the batch ((batch_count - 1) * stride + ld * (cols - 1) + rows)", required)?;
        Ok(required)
    }
}

/// The limits every GPU GEMM kernel shares: each operand's span (A, B, C), in reals (`reals`
/// per element), indexed with 32 bits, and at most [`MAX_BATCH`] batches a launch.
pub(crate) fn check_gemm_kernel_limits(spans: [usize; 3], reals: usize, batch_count: usize) -> Result<()> {
    for (arg, span) in ["a", "b", "c"].into_iter().zip(spans) {
        size32(arg, span.saturating_mul(reals))?;
    }
    if batch_count > MAX_BATCH {
        return Err(BlasError::SizeTooLarge {
            arg: "batch_count",
            value: batch_count as u128,
            rule: "GPU GEMMs take at most 65535 batches per call",
        });
    }
    Ok(())
}
