//! `gemm_ex` (rocBLAS's `rocblas_gemm_ex`, cuBLAS's `cublasGemmEx`): GEMM with separate input,
//! output and compute types, its strided-batched form, and the half-precision convenience
//! [`Handle::gemm_half`].
//!
//! # Supported types
//! | A and B | C | compute | alpha, beta |
//! |---|---|---|---|
//! | f16 or bf16 | f16, bf16 or f32 | [`ComputeType::F32`] | f32 |
//! | f32 | f32 | [`ComputeType::F32`] or [`ComputeType::F32FastTf32`] (TF32 below) | f32 |
//! | f64 | f64 | [`ComputeType::F64`] | f64 |
//! | [`C32`] | `C32` | [`ComputeType::F32`] | `C32` |
//! | [`C64`] | `C64` | [`ComputeType::F64`] | `C64` |
//! | i8 | i32 | [`ComputeType::I32`] | i32 |
//!
//! Any other combination is [`BlasError::Unsupported`] naming the types given and listing
//! this table; nothing is written.
//!
//! # Numerics
//! Products accumulate in the compute type (f16/bf16 inputs are exact in f32); `alpha * sum +
//! beta * C` is formed in the compute type and rounded once to C's type. The tests bound the
//! error of a float result by `(k + 4) u_c (|alpha| sum |a| |b| + |beta| |c|)`, `u_c` the compute
//! type's unit roundoff, plus half an ulp of C's type; i8 products are exact (i32 arithmetic
//! wraps on overflow, as integer GEMMs on GPUs do). `beta = 0` never reads C (NaN vanishes);
//! `alpha = 0` or `k = 0` reads neither A nor B.
//!
//! TF32: [`ComputeType::F32FastTf32`] (cuBLAS's `CUBLAS_COMPUTE_32F_FAST_TF32`), or
//! [`ComputeType::F32`] on a handle in [`MathMode::Tf32Allowed`] (cuBLAS's
//! `CUBLAS_TF32_TENSOR_OP_MATH`), lets f32 products use tf32: on the Hopper kernel each f32 input
//! is cut to 10 mantissa bits (truncated, as the tensor cores read it) and the products are
//! summed in f32, so an element is within `|alpha| s (2^-9 + 2^-20)` more than the f32 bound
//! above, `s = sum |a| |b|` (`ferrocm-gemm`'s contract). `wgmma` reads tf32 K-major only
//! (`transa = T`, `transb = N` in column-major BLAS): an operand in the other layout is first
//! transposed into the handle's workspace (`ceil4(k) * m` or `ceil4(k) * n` f32 per batch entry,
//! one memory pass, `kernels::gemm_ex::transpose_f32`). Where the Hopper kernel does not apply
//! the call computes in full f32 (a result inside the same bound): device scalars, `alpha = 0`,
//! a `T`/`N` call whose leading dimensions or batch strides are not multiples of 4 (or whose
//! operands do not start 16-byte aligned), a workspace limit below the copies, other targets.
//! [`MathMode::Pedantic`] computes in full f32 even where the call asks for tf32.

//! # Kernels
//! f32, f64 and complex calls are [`Handle::gemm_strided_batched`] (its planner and kernels).
//! f32 with tf32 allowed: the Hopper kernel on the conditions below (leading dimensions
//! multiples of 4), other transposes through K-major copies, else the f32 path.
//! f16/bf16 inputs: on the CPU device with [`Engine::Auto`](crate::Engine) the `gemm` crate on
//! f32 copies of the inputs ([`GemmFamily::Native`]); on targets with `wgmma`, TMA and
//! `setmaxnreg` (sm_90a, and the CPU executor) the `ferrocm-gemm` Hopper kernel
//! ([`GemmFamily::Wgmma`]) when its rules hold (host scalars; every leading dimension times 2
//! bytes a multiple of 16 for A and B; A and B starting 16-byte aligned, batch strides keeping
//! them so), one launch for the whole batch where its batched kernel reads the strides (each 0
//! or a multiple of 16 bytes no less than one matrix's leading dimension times its outer
//! dimension), else one launch per batch entry (a single product with few tiles and a long K,
//! as in decoding, is split over K by that crate's planner); elsewhere the SIMT kernel
//! ([`GemmFamily::Simt`], `kernels::gemm_ex`), which converts the inputs to f32 as it stages
//! them through shared memory. i8 inputs: i32 loops on the CPU device, the same SIMT kernel
//! with i32 accumulation everywhere else.

use ferrocm_kernel::runtime::backend::Feature;
use ferrocm_kernel::runtime::{AsDeviceSlice, AsDeviceSliceMut, DeviceRepr, KernelArgs, LaunchConfig};
use half::{bf16, f16};

use crate::check::size32;
use crate::error::{BlasError, Result};
use crate::handle::Handle;
use crate::kernels::gemm_ex as kx;
use crate::level2::bools;
use crate::level3::{check_gemm_kernel_limits, GemmFamily};
use crate::native::{self, push_buf, push_scalar};
use crate::types::{ComputeType, DataType, MathMode, Operation, Scalar, ScalarArg, C32, C64};

mod sealed {
    pub trait Sealed {}
}

/// The element types `gemm_ex` takes (f16, bf16, f32, f64, [`C32`], [`C64`], i8, i32), named
/// at run time by [`DataType`] so a call is checked against the supported table. Sealed.
pub trait GemmExType:
    DeviceRepr + Copy + std::fmt::Debug + Default + Send + Sync + 'static + sealed::Sealed
{
    /// The element type.
    const TYPE: DataType;
    /// The value as `(re, im)` in f64 (exact for every type here).
    fn to_parts(self) -> (f64, f64);
}

macro_rules! ex_type {
    ($t:ty, $ty:ident, |$v:ident| $parts:expr) => {
        impl sealed::Sealed for $t {}
        impl GemmExType for $t {
            const TYPE: DataType = DataType::$ty;
            fn to_parts(self) -> (f64, f64) {
                let $v = self;
                $parts
            }
        }
    };
}
ex_type!(f16, F16, |v| (v.to_f64(), 0.0));
ex_type!(bf16, BF16, |v| (v.to_f64(), 0.0));
ex_type!(f32, F32, |v| (v as f64, 0.0));
ex_type!(f64, F64, |v| (v, 0.0));
ex_type!(C32, C32, |v| (v.re as f64, v.im as f64));
ex_type!(C64, C64, |v| (v.re, v.im));
ex_type!(i8, I8, |v| (v as f64, 0.0));
ex_type!(i32, I32, |v| (v as f64, 0.0));

/// The supported table, as text for errors.
const TABLE: &str =
    "A = B in {f16_r, bf16_r} with C in {f16_r, bf16_r, f32_r}, compute f32_r, alpha/beta f32_r; \
    f32_r with compute f32_r or tf32_r; f64_r with f64_r; f32_c with f32_r (alpha/beta f32_c); \
    f64_c with f64_r (alpha/beta f64_c); A = B i8_r with C i32_r, compute i32_r, alpha/beta i32_r";

/// What a supported combination runs as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ExPath {
    /// A classic BLAS type: [`Handle::gemm_strided_batched`] of that type.
    Classic(DataType),
    /// f16/bf16 inputs (`input`), C of type `output`, f32 arithmetic.
    Half { input: DataType, output: DataType },
    /// i8 inputs, i32 C and arithmetic.
    Int8,
    /// f32 A, B and C with tf32 products allowed: the Hopper kernel with
    /// [`ferrocm_gemm::ElemType::TF32`] inputs where it applies, else [`ExPath::Classic`] f32.
    Tf32,
}

/// Checks `(A, B, C, compute, scalar)` against the supported table.
pub(crate) fn ex_path(
    a: DataType,
    b: DataType,
    c: DataType,
    compute: ComputeType,
    scalar: DataType,
) -> Result<ExPath> {
    use DataType as D;
    let path = match (a, c, compute, scalar) {
        _ if a != b => None,
        (D::F16 | D::BF16, D::F16 | D::BF16 | D::F32, ComputeType::F32, D::F32) => {
            Some(ExPath::Half { input: a, output: c })
        }
        (D::F32, D::F32, ComputeType::F32, D::F32) => Some(ExPath::Classic(D::F32)),
        (D::F32, D::F32, ComputeType::F32FastTf32, D::F32) => Some(ExPath::Tf32),
        (D::F64, D::F64, ComputeType::F64, D::F64) => Some(ExPath::Classic(D::F64)),
        (D::C32, D::C32, ComputeType::F32, D::C32) => Some(ExPath::Classic(D::C32)),
        (D::C64, D::C64, ComputeType::F64, D::C64) => Some(ExPath::Classic(D::C64)),
        (D::I8, D::I32, ComputeType::I32, D::I32) => Some(ExPath::Int8),
        _ => None,
    };
    path.ok_or_else(|| BlasError::Unsupported {
        what: format!(
            "gemm_ex with A {}, B {}, C {}, compute {}, alpha/beta {} (supported: {TABLE})",
            a.name(),
            b.name(),
            c.name(),
            compute.name(),
            scalar.name()
        ),
    })
}

/// A view of `v` as another type of the same size (the table check proved the types equal).
fn same<'v, T: DeviceRepr, U: DeviceRepr>(
    v: &'v impl AsDeviceSlice<T>,
) -> Result<ferrocm_kernel::runtime::DeviceSlice<'v, U>> {
    Ok(v.as_device_slice().reinterpret::<U>()?)
}

/// A scalar argument as another type holding the same value.
fn scalar_as<'a, S: GemmExType, T: Scalar>(s: &ScalarArg<'a, S>) -> Result<ScalarArg<'a, T>> {
    Ok(match s {
        ScalarArg::Host(v) => {
            let (re, im) = v.to_parts();
            ScalarArg::Host(T::from_parts(
                <T::Real as crate::types::RealScalar>::from_f64(re),
                <T::Real as crate::types::RealScalar>::from_f64(im),
            ))
        }
        ScalarArg::Device(d) => ScalarArg::Device(d.reinterpret::<T>()?),
    })
}

impl Handle {
    /// `C = alpha op(A) op(B) + beta C` with A and B of one type, C of another and the
    /// arithmetic in `compute` (`rocblas_gemm_ex` with C and D the same matrix, as
    /// `hipblasGemmEx`); the [module docs](self) give the supported table, the numerics and
    /// the kernels. Shapes, leading dimensions and operations follow [`Handle::gemm`]
    /// (`Operation::C` only for complex types; it is `T` for real ones). `alpha` and `beta`
    /// have the compute type (`C32`/`C64` for complex calls).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_ex<'a, TA: GemmExType, TB: GemmExType, TC: GemmExType, S: GemmExType>(
        &'a self,
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        alpha: impl Into<ScalarArg<'a, S>>,
        a: &impl AsDeviceSlice<TA>,
        lda: usize,
        b: &impl AsDeviceSlice<TB>,
        ldb: usize,
        beta: impl Into<ScalarArg<'a, S>>,
        c: &mut impl AsDeviceSliceMut<TC>,
        ldc: usize,
        compute: ComputeType,
    ) -> Result<()> {
        self.gemm_strided_batched_ex(
            transa, transb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1, compute,
        )
    }

    /// `batch_count` [`Handle::gemm_ex`] products on matrices `stride_*` elements apart
    /// (`rocblas_gemm_strided_batched_ex`), with the rules of
    /// [`Handle::gemm_strided_batched`] (the matrices of C must not overlap).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_strided_batched_ex<'a, TA: GemmExType, TB: GemmExType, TC: GemmExType, S: GemmExType>(
        &'a self,
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        alpha: impl Into<ScalarArg<'a, S>>,
        a: &impl AsDeviceSlice<TA>,
        lda: usize,
        stride_a: usize,
        b: &impl AsDeviceSlice<TB>,
        ldb: usize,
        stride_b: usize,
        beta: impl Into<ScalarArg<'a, S>>,
        c: &mut impl AsDeviceSliceMut<TC>,
        ldc: usize,
        stride_c: usize,
        batch_count: usize,
        compute: ComputeType,
    ) -> Result<()> {
        self.gemm_ex_on(
            self.gemm_family_forced(),
            transa,
            transb,
            m,
            n,
            k,
            alpha.into(),
            a,
            lda,
            stride_a,
            b,
            ldb,
            stride_b,
            beta.into(),
            c,
            ldc,
            stride_c,
            batch_count,
            compute,
        )
    }

    /// [`Handle::gemm_strided_batched_ex`] with `forced` in place of the handle's forced family
    /// (for half and i8 inputs; classic types keep the handle's).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn gemm_ex_on<'a, TA: GemmExType, TB: GemmExType, TC: GemmExType, S: GemmExType>(
        &'a self,
        forced: Option<GemmFamily>,
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        alpha: ScalarArg<'a, S>,
        a: &impl AsDeviceSlice<TA>,
        lda: usize,
        stride_a: usize,
        b: &impl AsDeviceSlice<TB>,
        ldb: usize,
        stride_b: usize,
        beta: ScalarArg<'a, S>,
        c: &mut impl AsDeviceSliceMut<TC>,
        ldc: usize,
        stride_c: usize,
        batch_count: usize,
        compute: ComputeType,
    ) -> Result<()> {
        let path = ex_path(TA::TYPE, TB::TYPE, TC::TYPE, compute, S::TYPE)?;
        macro_rules! classic {
            ($t:ty) => {{
                let (al, be) = (scalar_as::<S, $t>(&alpha)?, scalar_as::<S, $t>(&beta)?);
                let (a, b) = (same::<TA, $t>(a)?, same::<TB, $t>(b)?);
                let mut c = c.as_device_slice_mut().reinterpret::<$t>()?;
                self.gemm_strided_batched_full(
                    transa,
                    transb,
                    m,
                    n,
                    k,
                    al,
                    &a,
                    lda,
                    stride_a,
                    &b,
                    ldb,
                    stride_b,
                    be,
                    &mut c,
                    ldc,
                    stride_c,
                    batch_count,
                )
            }};
        }
        // cuBLAS's CUBLAS_TF32_TENSOR_OP_MATH: an f32 computation may take tf32 products; the
        // pedantic mode keeps full f32 even where the call asked for tf32.
        let path = match (path, self.math_mode()) {
            (ExPath::Tf32, MathMode::Pedantic) => ExPath::Classic(DataType::F32),
            (ExPath::Classic(DataType::F32), MathMode::Tf32Allowed) => ExPath::Tf32,
            (p, _) => p,
        };
        if path == ExPath::Tf32 && (real_op(transa), real_op(transb)) != (Operation::T, Operation::N) {
            if let Some(done) = self.tf32_transposed(
                forced,
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
            ) {
                return done;
            }
        }
        if path == ExPath::Tf32
            && !self.tf32_on_wgmma(
                forced,
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
                c,
                ldc,
                batch_count,
            )
        {
            return classic!(f32);
        }
        match path {
            ExPath::Classic(DataType::F32) => return classic!(f32),
            ExPath::Classic(DataType::F64) => return classic!(f64),
            ExPath::Classic(DataType::C32) => return classic!(C32),
            ExPath::Classic(DataType::C64) => return classic!(C64),
            _ => {}
        }
        if transa == Operation::C || transb == Operation::C {
            // Real types: C is T (reference BLAS's rule).
            let (ta, tb) = (real_op(transa), real_op(transb));
            return self.gemm_ex_on(
                forced,
                ta,
                tb,
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
                compute,
            );
        }
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
        let zero = |v: (f64, f64)| v == (0.0, 0.0);
        let skip_ab = k == 0 || alpha.host().is_some_and(|v| zero(v.to_parts()));
        if skip_ab && beta.host().is_some_and(|v| v.to_parts() == (1.0, 0.0)) {
            return Ok(());
        }
        // The Hopper kernel takes host scalars, finite (its plan's rule).
        let finite = |v: Option<S>| v.is_some_and(|v| v.to_parts().0.is_finite());
        let host_scalars = finite(alpha.host()) && finite(beta.host());
        let family = self.gemm_ex_family(forced, path, host_scalars && !skip_ab, || {
            self.wgmma_plan(transa, transb, m, n, k, a, lda, stride_a, b, ldb, stride_b, c, ldc, batch_count)
                .is_some()
        })?;
        let s = self.stream();
        let k = if skip_ab { 0 } else { k };
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
                let routine = match TA::TYPE {
                    DataType::F16 => "gemm_ex_f16",
                    DataType::BF16 => "gemm_ex_bf16",
                    _ => "gemm_ex_i8",
                };
                native::launch(s, routine, TC::TYPE, &args)
            }
            GemmFamily::Wgmma => {
                let Some(desc) = self.wgmma_plan(
                    transa,
                    transb,
                    m,
                    n,
                    k,
                    a,
                    lda,
                    stride_a,
                    b,
                    ldb,
                    stride_b,
                    c,
                    ldc,
                    batch_count,
                ) else {
                    return Err(BlasError::Unsupported {
                        what: format!(
                            "a {} gemm_ex on GemmFamily::Wgmma with this handle: {}",
                            TA::TYPE.name(),
                            WGMMA_RULE
                        ),
                    });
                };
                let (al, be) = (alpha.host().map(|v| v.to_parts().0), beta.host().map(|v| v.to_parts().0));
                let desc = desc.with_alpha_beta(al.unwrap_or(1.0) as f32, be.unwrap_or(0.0) as f32);
                // One launch for the whole batch where the batched kernel reads the strides
                // (TMA's rules: see `ferrocm_gemm::GemmDesc::with_batch`); else one per entry.
                let batched = (batch_count > 1)
                    .then(|| desc.with_batch(batch_count, stride_a, stride_b, stride_c))
                    .and_then(|d| self.hopper_plan(&d, 0).ok());
                let plan = match batched {
                    Some(p) => p,
                    None => self.hopper_plan(&desc, 0).map_err(gemm_error)?,
                };
                macro_rules! run {
                    ($i:ty, $o:ty) => {{
                        let (a, b) = (same::<TA, $i>(a)?, same::<TB, $i>(b)?);
                        let mut c = c.as_device_slice_mut().reinterpret::<$o>()?;
                        if plan.desc().batch() > 1 {
                            plan.run(s, &a, &b, &mut c).map_err(gemm_error)?;
                        } else {
                            for z in 0..batch_count {
                                let (az, bz) = (a.slice(z * stride_a..)?, b.slice(z * stride_b..)?);
                                let (_, mut cz) = c.as_device_slice_mut().split_at_mut(z * stride_c)?;
                                plan.run(s, &az, &bz, &mut cz).map_err(gemm_error)?;
                            }
                        }
                    }};
                }
                match (TA::TYPE, TC::TYPE) {
                    (DataType::F32, _) => run!(f32, f32),
                    (DataType::F16, DataType::F16) => run!(f16, f16),
                    (DataType::F16, DataType::BF16) => run!(f16, bf16),
                    (DataType::F16, _) => run!(f16, f32),
                    (_, DataType::F16) => run!(bf16, f16),
                    (_, DataType::BF16) => run!(bf16, bf16),
                    _ => run!(bf16, f32),
                }
                Ok(())
            }
            _ => {
                check_gemm_kernel_limits(spans, 1, batch_count)?;
                let (m32, n32, k32) = (size32("m", m)?, size32("n", n)?, size32("k", k)?);
                let cols = n32.div_ceil(kx::TILE);
                if cols > kx::MAX_GRID_YZ {
                    return Err(BlasError::SizeTooLarge {
                        arg: "n",
                        value: n as u128,
                        rule: "the SIMT gemm_ex takes n at most 65535 * 64 (the grid's y limit)",
                    });
                }
                let cfg = LaunchConfig::new((m32.div_ceil(kx::TILE), cols, batch_count as u32), (16, 16));
                kernels_annotate::<TA, TC>(m, n, k, batch_count);
                let (ta, tb) = (transa != Operation::N, transb != Operation::N);
                let (lda, ldb, ldc) = (lda as u32, ldb as u32, ldc as u32);
                let (sa, sb, sc) = (stride_a as u32, stride_b as u32, stride_c as u32);
                let (dsa, dsb) = (alpha.host().is_none(), beta.host().is_none());
                macro_rules! go {
                    ($i:ty, $o:ty, $acc:ty) => {{
                        let (av, bv) = (same::<TA, $i>(a)?, same::<TB, $i>(b)?);
                        let mut cv = c.as_device_slice_mut().reinterpret::<$o>()?;
                        let dummy = self.dummy.as_device_slice().reinterpret::<$acc>()?;
                        let host = |s: &ScalarArg<'a, S>| s.host().map_or(0.0, |v| v.to_parts().0) as $acc;
                        let (are, bre) = (host(&alpha), host(&beta));
                        let view = |s: &ScalarArg<'a, S>| match s {
                            ScalarArg::Device(d) => d.reinterpret::<$acc>(),
                            ScalarArg::Host(_) => Ok(dummy),
                        };
                        let (alv, bev) = (view(&alpha)?, view(&beta)?);
                        bools!(ta => TA_, bools!(tb => TB_, bools!(dsa => DSA, bools!(dsb => DSB, {
                            kx::gemm_ex_simt::launch::<$i, $o, $acc, TA_, TB_, DSA, DSB>(
                                s, cfg, m32, n32, k32, are, &alv, &av, lda, sa, &bv, ldb, sb, bre, &bev,
                                &mut cv, ldc, sc,
                            )?
                        }))));
                    }};
                }
                match (TA::TYPE, TC::TYPE) {
                    (DataType::F16, DataType::F16) => go!(f16, f16, f32),
                    (DataType::F16, DataType::BF16) => go!(f16, bf16, f32),
                    (DataType::F16, _) => go!(f16, f32, f32),
                    (DataType::BF16, DataType::F16) => go!(bf16, f16, f32),
                    (DataType::BF16, DataType::BF16) => go!(bf16, bf16, f32),
                    (DataType::BF16, _) => go!(bf16, f32, f32),
                    _ => go!(i8, i32, i32),
                }
                Ok(())
            }
        }
    }

    /// `C = alpha op(A) op(B) + beta C` on half-precision matrices (`rocblas_hgemm` and the
    /// bf16 GEMM): [`Handle::gemm_ex`] with A, B and C of type `H`, f32 arithmetic and f32
    /// `alpha`/`beta` (the sum is rounded once to `H`).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_half<'a, H: crate::types::HalfScalar + GemmExType>(
        &'a self,
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        alpha: impl Into<ScalarArg<'a, f32>>,
        a: &impl AsDeviceSlice<H>,
        lda: usize,
        b: &impl AsDeviceSlice<H>,
        ldb: usize,
        beta: impl Into<ScalarArg<'a, f32>>,
        c: &mut impl AsDeviceSliceMut<H>,
        ldc: usize,
    ) -> Result<()> {
        self.gemm_ex(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, ComputeType::F32)
    }

    /// The family a `gemm_ex` of `path` runs on: the forced one when it can, else the
    /// planner's choice. `hopper` says whether `ferrocm-gemm`'s rules hold for the operands
    /// (evaluated only where the target has the instructions).
    fn gemm_ex_family(
        &self,
        forced: Option<GemmFamily>,
        path: ExPath,
        host_scalars: bool,
        hopper: impl Fn() -> bool,
    ) -> Result<GemmFamily> {
        let target = self.stream().device().target();
        let kernels = self.use_kernels();
        let half = matches!(path, ExPath::Half { .. } | ExPath::Tf32);
        let has_wgmma =
            [Feature::Wgmma, Feature::Tma, Feature::SetMaxNReg].into_iter().all(|f| target.has(f));
        let wgmma_ok = || kernels && half && has_wgmma && host_scalars && hopper();
        let family = match forced {
            Some(f) => f,
            None if !kernels => GemmFamily::Native,
            None if wgmma_ok() => GemmFamily::Wgmma,
            None => GemmFamily::Simt,
        };
        let rule = match family {
            GemmFamily::Native if kernels => {
                Some("the native family runs on the CPU device with Engine::Auto")
            }
            GemmFamily::Native => None,
            _ if !kernels => {
                Some("the kernel families run on GPUs, or on the CPU device with Engine::Kernels")
            }
            GemmFamily::Simt => None,
            GemmFamily::Wgmma if wgmma_ok() => None,
            GemmFamily::Wgmma => Some(WGMMA_RULE),
            _ => Some("gemm_ex runs f16, bf16 and i8 inputs on the Native, Simt and Wgmma families"),
        };
        if let Some(rule) = rule {
            let input = match path {
                ExPath::Half { input, .. } => input,
                ExPath::Tf32 => DataType::F32,
                _ => DataType::I8,
            };
            return Err(BlasError::Unsupported {
                what: format!(
                    "a {} gemm_ex on GemmFamily::{family:?} with this handle: {rule}",
                    input.name()
                ),
            });
        }
        Ok(family)
    }

    /// The Hopper kernel's plan of `desc` within the handle's workspace limit, of which the call
    /// already takes `taken` bytes: the planner's split-K takes its partial sums from the pool
    /// ([`ferrocm_gemm::Plan::workspace_bytes`]), so a plan needing more than is left is made
    /// again without the split.
    pub(crate) fn hopper_plan(
        &self,
        desc: &ferrocm_gemm::GemmDesc,
        taken: u64,
    ) -> std::result::Result<ferrocm_gemm::Plan, ferrocm_gemm::GemmError> {
        let device = self.stream().device();
        let plan = ferrocm_gemm::Gemm::plan(device, desc)?;
        match self.workspace_limit() {
            Some(limit) if plan.workspace_bytes() > limit.saturating_sub(taken) => {
                let unsplit = ferrocm_gemm::Tuning { split_k: Some(1), ..Default::default() };
                ferrocm_gemm::Gemm::plan_tuned(device, desc, unsplit)
            }
            _ => Ok(plan),
        }
    }

    /// Whether an f32 product with tf32 allowed runs on the Hopper kernel: kernels on a target
    /// with `wgmma`, TMA and `setmaxnreg`, no other family forced, finite host scalars, a
    /// product to compute (`k >= 1`, `alpha != 0`), and K-major operands (`wgmma` reads tf32
    /// only so: column-major `op(A) = T`, `op(B) = N`) meeting `ferrocm-gemm`'s rules.
    /// Everything else computes in full f32 ([`Handle::gemm_strided_batched`]).
    #[allow(clippy::too_many_arguments)]
    fn tf32_on_wgmma<'a, TA: GemmExType, TB: GemmExType, TC: GemmExType, S: GemmExType>(
        &self,
        forced: Option<GemmFamily>,
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        alpha: &ScalarArg<'a, S>,
        a: &impl AsDeviceSlice<TA>,
        lda: usize,
        stride_a: usize,
        b: &impl AsDeviceSlice<TB>,
        ldb: usize,
        stride_b: usize,
        beta: &ScalarArg<'a, S>,
        c: &impl AsDeviceSlice<TC>,
        ldc: usize,
        batch_count: usize,
    ) -> bool {
        let target = self.stream().device().target();
        let finite = |v: Option<S>| v.is_some_and(|v| v.to_parts().0.is_finite());
        forced.is_none_or(|f| f == GemmFamily::Wgmma)
            && self.use_kernels()
            && [Feature::Wgmma, Feature::Tma, Feature::SetMaxNReg].into_iter().all(|f| target.has(f))
            && finite(alpha.host())
            && finite(beta.host())
            && alpha.host().is_some_and(|v| v.to_parts().0 != 0.0)
            && (real_op(transa), real_op(transb)) == (Operation::T, Operation::N)
            && m > 0
            && n > 0
            && batch_count > 0
            && self
                .wgmma_plan(transa, transb, m, n, k, a, lda, stride_a, b, ldb, stride_b, c, ldc, batch_count)
                .is_some()
    }

    /// An f32 product with tf32 allowed whose operands are not both K-major: the ones that are
    /// not are transposed into the workspace (K-major, leading dimension `k` rounded up to 4)
    /// and the product runs as `op(A) = T`, `op(B) = N` on the Hopper kernel. `None` where
    /// that does not apply (the conditions of [`Handle::tf32_on_wgmma`] other than the layouts,
    /// a workspace limit below the copies, grids past the launch limits): the caller computes
    /// in f32.
    #[allow(clippy::too_many_arguments)]
    fn tf32_transposed<'a, TA: GemmExType, TB: GemmExType, TC: GemmExType, S: GemmExType>(
        &'a self,
        forced: Option<GemmFamily>,
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        alpha: ScalarArg<'a, S>,
        a: &impl AsDeviceSlice<TA>,
        lda: usize,
        stride_a: usize,
        b: &impl AsDeviceSlice<TB>,
        ldb: usize,
        stride_b: usize,
        beta: ScalarArg<'a, S>,
        c: &mut impl AsDeviceSliceMut<TC>,
        ldc: usize,
        stride_c: usize,
        batch_count: usize,
    ) -> Option<Result<()>> {
        if !self.tf32_copy_applies(forced, transa, transb, m, n, k, &alpha, &beta, batch_count) {
            return None;
        }
        let (copy_a, copy_b) = (real_op(transa) != Operation::T, real_op(transb) != Operation::N);
        let ld = k.next_multiple_of(4);
        Some((|| {
            // Every argument is checked before the copies read A and B.
            self.check_gemm_batch(
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
            let s = self.stream();
            let (a32, b32) = (same::<TA, f32>(a)?, same::<TB, f32>(b)?);
            // `src` (rows x cols, column-major) transposed into a fresh `cols x rows` one, `ld`.
            let transposed = |src: &ferrocm_kernel::runtime::DeviceSlice<'_, f32>,
                              rows: usize,
                              cols: usize,
                              lds: usize,
                              ss: usize|
             -> Result<ferrocm_kernel::runtime::DeviceBuffer<f32>> {
                let mut w = self.workspace::<f32>(ld * rows * batch_count)?;
                let (r32, c32) = (size32("m", rows)?, size32("k", cols)?);
                let grid =
                    (r32.div_ceil(kx::TRANSPOSE_TILE), c32.div_ceil(kx::TRANSPOSE_TILE), batch_count as u32);
                let cfg = LaunchConfig::new(grid, (kx::TRANSPOSE_TILE, kx::TRANSPOSE_THREADS_Y));
                let (ld32, lds32) = (size32("lda", ld)?, size32("lda", lds)?);
                let (ss32, sd32) = (size32("stride", ss)?, size32("stride", ld * rows)?);
                kx::transpose_f32::launch(s, cfg, r32, c32, src, lds32, ss32, &mut w, ld32, sd32)?;
                Ok(w)
            };
            let wa = if copy_a { Some(transposed(&a32, m, k, lda, stride_a)?) } else { None };
            let wb = if copy_b { Some(transposed(&b32, n, k, ldb, stride_b)?) } else { None };
            let (av, lda, stride_a) = match &wa {
                Some(w) => (w.as_device_slice(), ld, ld * m),
                None => (a32, lda, stride_a),
            };
            let (bv, ldb, stride_b) = match &wb {
                Some(w) => (w.as_device_slice(), ld, ld * n),
                None => (b32, ldb, stride_b),
            };
            let (t, nn) = (Operation::T, Operation::N);
            self.gemm_ex_on(
                forced,
                t,
                nn,
                m,
                n,
                k,
                alpha,
                &av,
                lda,
                stride_a,
                &bv,
                ldb,
                stride_b,
                beta,
                c,
                ldc,
                stride_c,
                batch_count,
                ComputeType::F32FastTf32,
            )
        })())
    }

    /// Whether [`Handle::tf32_transposed`] takes an f32 product with tf32 allowed whose
    /// operands are not both K-major (see there).
    #[allow(clippy::too_many_arguments)]
    fn tf32_copy_applies<S: GemmExType>(
        &self,
        forced: Option<GemmFamily>,
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        alpha: &ScalarArg<'_, S>,
        beta: &ScalarArg<'_, S>,
        batch_count: usize,
    ) -> bool {
        let target = self.stream().device().target();
        let finite = |v: Option<S>| v.is_some_and(|v| v.to_parts().0.is_finite());
        let (copy_a, copy_b) = (real_op(transa) != Operation::T, real_op(transb) != Operation::N);
        let ld = k.next_multiple_of(4);
        let words = ld
            .checked_mul(m * copy_a as usize + n * copy_b as usize)
            .and_then(|w| w.checked_mul(batch_count));
        let fits =
            words.is_some_and(|w| self.workspace_limit().is_none_or(|l| (w as u64).saturating_mul(4) <= l));
        // The copies' grids: (rows / 32, cols / 32, batch), y and z within 65535.
        let grid_ok = |cols: usize| cols.div_ceil(kx::TRANSPOSE_TILE as usize) <= kx::MAX_GRID_YZ as usize;
        (copy_a || copy_b)
            && forced.is_none_or(|f| f == GemmFamily::Wgmma)
            && self.use_kernels()
            && [Feature::Wgmma, Feature::Tma, Feature::SetMaxNReg].into_iter().all(|f| target.has(f))
            && finite(alpha.host())
            && finite(beta.host())
            && alpha.host().is_some_and(|v| v.to_parts().0 != 0.0)
            && m > 0
            && n > 0
            && k > 0
            && batch_count > 0
            && batch_count <= kx::MAX_GRID_YZ as usize
            && fits
            && grid_ok(k)
    }

    /// `ferrocm-gemm`'s description of this column-major product, if its rules hold (TMA's
    /// leading dimensions and alignment, a product to compute).
    #[allow(clippy::too_many_arguments)]
    fn wgmma_plan<TA: GemmExType, TB: GemmExType, TC: GemmExType>(
        &self,
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        a: &impl AsDeviceSlice<TA>,
        lda: usize,
        stride_a: usize,
        b: &impl AsDeviceSlice<TB>,
        ldb: usize,
        stride_b: usize,
        c: &impl AsDeviceSlice<TC>,
        ldc: usize,
        batch_count: usize,
    ) -> Option<ferrocm_gemm::GemmDesc> {
        use ferrocm_gemm::{ElemType, GemmDesc, Layout};
        let ty = |t: DataType| match t {
            DataType::F16 => Some(ElemType::F16),
            DataType::BF16 => Some(ElemType::BF16),
            DataType::F32 => Some(ElemType::F32),
            _ => None,
        };
        // f32 inputs reach the Hopper kernel only as tf32 (ExPath::Tf32).
        let ei = match TA::TYPE {
            DataType::F32 => ElemType::TF32,
            t => ty(t)?,
        };
        let ec = ty(TC::TYPE)?;
        let aligned = |p: u64, stride: usize, size: usize| {
            p % 16 == 0 && (batch_count == 1 || (stride * size) % 16 == 0)
        };
        let size = TA::TYPE.size();
        if k == 0
            || !aligned(a.device_ptr().0, stride_a, size)
            || !aligned(b.device_ptr().0, stride_b, size)
            || (lda * size) % 16 != 0
            || (ldb * size) % 16 != 0
        {
            return None;
        }
        let _ = c;
        // A stored m x k column-major (N) is a column-major m x k operand; stored k x m (T),
        // it is the row-major m x k operand with the same leading dimension.
        let layout = |o: Operation| if o == Operation::N { Layout::ColMajor } else { Layout::RowMajor };
        let desc = GemmDesc::new(m, n, k, ei)
            .with_c_type(ec)
            .with_layouts(layout(transa), layout(transb), Layout::ColMajor)
            .with_leading_dims(lda, ldb, ldc);
        ferrocm_gemm::Gemm::plan(self.stream().device(), &desc).ok().map(|_| desc)
    }
}

/// Why [`GemmFamily::Wgmma`] refused a call.
const WGMMA_RULE: &str = "Wgmma runs f16/bf16 inputs, and f32 inputs with tf32 compute (transposed K-major into \
    the workspace unless transa = T and transb = N), with host alpha/beta on targets with wgmma, TMA and setmaxnreg (sm_90a), A and B 16-byte aligned \
    with lda and ldb multiples of 16 bytes (and batch strides keeping that), k >= 1";

/// `T` for `C` on real types.
fn real_op(o: Operation) -> Operation {
    if o == Operation::C {
        Operation::T
    } else {
        o
    }
}

/// A `ferrocm-gemm` refusal the planner could not foresee, as a BLAS error.
fn gemm_error(e: ferrocm_gemm::GemmError) -> BlasError {
    BlasError::Kernel { message: e.to_string() }
}

/// Declares a SIMT `gemm_ex` launch's work for the profiler.
fn kernels_annotate<TA: GemmExType, TC: GemmExType>(m: usize, n: usize, k: usize, batch: usize) {
    let bytes = (m * k + k * n) * TA::TYPE.size() + 2 * m * n * TC::TYPE.size();
    crate::kernels::annotate((2 * m * n * k * batch) as u64, (bytes * batch) as u64);
}
