//! Level 3 beyond GEMM (`s`, `d`, `c`, `z`): `symm`/`hemm`, `syrk`/`herk`, `syr2k`/`her2k`,
//! `trmm`, `trsm` and the batched `trsm` forms.
//!
//! The Hermitian routines (`hemm`, `herk`, `her2k`) take every element type: on `f32` and
//! `f64` a Hermitian matrix is a symmetric one, and they compute what `symm`, `syrk` and
//! `syr2k` compute (rocBLAS has them for complex types only; here one generic method serves
//! both, so code generic over [`Scalar`] can call them).
//!
//! # How they run
//! On the CPU device with [`Engine::Auto`](crate::Engine::Auto), natively (`native::l3`: the
//! `gemm` crate for the products, loops for triangles and substitution). With kernels (GPUs,
//! and the CPU executor with [`Engine::Kernels`](crate::Engine::Kernels)), as rocBLAS builds
//! them, on GEMM tiling:
//! - `symm`, `hemm`, `syrk`, `herk`, `syr2k`, `her2k`, `trmm`: the structured SIMT GEMM
//!   (`kernels::l3::l3_gemm`), whose operand loads map each element through the stored
//!   triangle and whose store writes only `C`'s triangle (tiles wholly outside it exit at
//!   once). `syr2k`/`her2k` are two such launches (the second adds `B op(A)^T` with
//!   `beta = 1`). `trmm` is in place on `B` (the classic BLAS form): the product goes to a
//!   workspace a block of `B`'s columns (left) or rows (right) at a time, then is copied back.
//! - `trsm`: blocked, 32 rows of the triangle at a time: each diagonal block is solved in
//!   shared memory for every right-hand side (`kernels::l3::trsm_diag`), then the rest of `B`
//!   is updated with [`Handle::gemm`] on sub-views (its planner picks the family: the FP64
//!   tensor-core kernels for `d`, the warp-tiled one for aligned `s`).
//!
//! The structured GEMM runs on the SIMT kernel's tiling for every type (the FP64 tensor-core
//! and warp-tiled families are not used for these routines, except through `trsm`'s updates).

use ferrocm_kernel::runtime::{
    AsDeviceSlice, AsDeviceSliceMut, DeviceSlice, DeviceSliceMut, KernelArgs, LaunchConfig,
};

use crate::batched::{by_output, strided_in, strided_out};
use crate::check::{matrix_span, size32};
use crate::error::{BlasError, Result};
use crate::handle::Handle;
use crate::kernels::l3 as k;
use crate::kernels::{self, gemm::register_tile, gemm::BLOCK_EDGE, KScalar};
use crate::level2::bools;
use crate::native::{self, push_buf, push_scalar};
use crate::types::{Diagonal, Fill, Operation, Scalar, ScalarArg, Side};

/// The most batches one launch covers (the grid's `z` limit).
const MAX_BATCH: usize = crate::kernels::MAX_GRID_YZ as usize;

/// Elements of workspace `trmm` takes at most for one block of its product (the workspace
/// limit lowers it).
const TRMM_WORKSPACE: usize = 1 << 24;

fn fill_code(f: Fill) -> u32 {
    match f {
        Fill::Upper => 0,
        Fill::Lower => 1,
    }
}

fn side_code(s: Side) -> u32 {
    match s {
        Side::Left => 0,
        Side::Right => 1,
    }
}

fn diag_code(d: Diagonal) -> u32 {
    match d {
        Diagonal::NonUnit => 0,
        Diagonal::Unit => 1,
    }
}

/// The offset of `op(A)(i, l)` in a column-major `A` with leading dimension `ld`.
fn op_at(op: Operation, i: usize, l: usize, ld: usize) -> usize {
    if op == Operation::N {
        i + l * ld
    } else {
        l + i * ld
    }
}

/// Which rank-k update a call is (`syrk`, `herk`, `syr2k`, `her2k`).
#[derive(Clone, Copy, PartialEq, Eq)]
struct RankK {
    two: bool,
    herm: bool,
}

impl Handle {
    /// `C = alpha op(A) op(A)^T + beta C` (`?syrk`) on the `uplo` triangle of the `n x n`
    /// matrix `C` (the other triangle is neither read nor written). `trans` is `N`
    /// (`op(A) = A`, stored `n x k`, `lda >= max(1, n)`) or `T` (`A` stored `k x n`,
    /// `lda >= max(1, k)`); `C` is allowed only for real types (where it means `T`).
    /// `ldc >= max(1, n)`. `k = 0` or `alpha = 0` reads no `A` (`C = beta C`); `beta = 0`
    /// reads no `C`. Tested to `gamma(k + 2) (|alpha| sum |a||a| + |beta||c|)` per element.
    #[allow(clippy::too_many_arguments)]
    pub fn syrk<'a, T: Scalar>(
        &'a self,
        uplo: Fill,
        trans: Operation,
        n: usize,
        k: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        beta: impl Into<ScalarArg<'a, T>>,
        c: &mut impl AsDeviceSliceMut<T>,
        ldc: usize,
    ) -> Result<()> {
        let kind = RankK { two: false, herm: false };
        self.rank_k::<T, T>(kind, uplo, trans, n, k, alpha.into(), a, lda, None, beta.into(), c, ldc)
    }

    /// `C = alpha op(A) op(A)^H + beta C` (`?herk`) on the `uplo` triangle of the Hermitian
    /// `n x n` matrix `C`, with real `alpha` and `beta`. `trans` is `N` (`A` stored `n x k`)
    /// or `C` (`A` stored `k x n`; `T` is allowed only for real types). The imaginary parts
    /// of `C`'s diagonal are not read and are written zero. Other rules as [`Handle::syrk`].
    #[allow(clippy::too_many_arguments)]
    pub fn herk<'a, T: Scalar>(
        &'a self,
        uplo: Fill,
        trans: Operation,
        n: usize,
        k: usize,
        alpha: impl Into<ScalarArg<'a, T::Real>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        beta: impl Into<ScalarArg<'a, T::Real>>,
        c: &mut impl AsDeviceSliceMut<T>,
        ldc: usize,
    ) -> Result<()> {
        let kind = RankK { two: false, herm: true };
        self.rank_k::<T, T::Real>(kind, uplo, trans, n, k, alpha.into(), a, lda, None, beta.into(), c, ldc)
    }

    /// `C = alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C` (`?syr2k`) on the `uplo` triangle
    /// of the `n x n` matrix `C`; `A` and `B` are stored alike (`n x k` for `N`, `k x n` for
    /// `T`) with `lda`, `ldb`. Other rules as [`Handle::syrk`]; tested to
    /// `gamma(2k + 2) (|alpha| sum (|a||b| + |b||a|) + |beta||c|)`.
    #[allow(clippy::too_many_arguments)]
    pub fn syr2k<'a, T: Scalar>(
        &'a self,
        uplo: Fill,
        trans: Operation,
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
        let kind = RankK { two: true, herm: false };
        let bb = Some((b.as_device_slice(), ldb));
        self.rank_k::<T, T>(kind, uplo, trans, n, k, alpha.into(), a, lda, bb, beta.into(), c, ldc)
    }

    /// `C = alpha op(A) op(B)^H + conj(alpha) op(B) op(A)^H + beta C` (`?her2k`) on the
    /// `uplo` triangle of the Hermitian `n x n` matrix `C`, complex `alpha`, real `beta`;
    /// `trans` `N` or `C` (`T` only for real types). `C`'s diagonal is real (imaginary parts
    /// not read, written zero). Other rules as [`Handle::syr2k`].
    #[allow(clippy::too_many_arguments)]
    pub fn her2k<'a, T: Scalar>(
        &'a self,
        uplo: Fill,
        trans: Operation,
        n: usize,
        k: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        b: &impl AsDeviceSlice<T>,
        ldb: usize,
        beta: impl Into<ScalarArg<'a, T::Real>>,
        c: &mut impl AsDeviceSliceMut<T>,
        ldc: usize,
    ) -> Result<()> {
        let kind = RankK { two: true, herm: true };
        let bb = Some((b.as_device_slice(), ldb));
        self.rank_k::<T, T::Real>(kind, uplo, trans, n, k, alpha.into(), a, lda, bb, beta.into(), c, ldc)
    }

    /// The four rank-k updates; `S` is the type of `beta` (and of `alpha` for `herk`).
    #[allow(clippy::too_many_arguments)]
    fn rank_k<'a, T: Scalar, S: Scalar<Real = T::Real>>(
        &'a self,
        kind: RankK,
        uplo: Fill,
        trans: Operation,
        n: usize,
        k: usize,
        alpha: ScalarArg<'a, impl Scalar<Real = T::Real>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        b: Option<(DeviceSlice<'_, T>, usize)>,
        beta: ScalarArg<'a, S>,
        c: &mut impl AsDeviceSliceMut<T>,
        ldc: usize,
    ) -> Result<()> {
        let allowed = if kind.herm { Operation::C } else { Operation::T };
        if trans != Operation::N && trans != allowed && T::COMPLEX {
            return Err(BlasError::InvalidValue {
                arg: "trans",
                value: format!("{trans:?}"),
                rule: if kind.herm {
                    "herk and her2k take N or C on complex types"
                } else {
                    "syrk and syr2k take N or T on complex types"
                },
            });
        }
        self.check_scalar("alpha", &alpha)?;
        self.check_scalar("beta", &beta)?;
        let (ra, ca) = if trans == Operation::N { (n, k) } else { (k, n) };
        self.check_matrix("a", "lda", a, ra, ca, lda)?;
        if let Some((bv, ldb)) = &b {
            self.check_matrix("b", "ldb", bv, ra, ca, *ldb)?;
        }
        self.check_matrix("c", "ldc", c, n, n, ldc)?;
        if n == 0 {
            return Ok(());
        }
        let skip = k == 0 || alpha.host().is_some_and(|v| v.is_zero());
        if skip && beta.host().is_some_and(|v| v.is_one()) {
            return Ok(());
        }
        let s = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(fill_code(uplo)).push(trans.code()).push(kind.two as u32).push(kind.herm as u32);
            args.push(n as u64).push(k as u64);
            push_scalar(&mut args, &alpha);
            push_buf(&mut args, a);
            args.push(lda as u64);
            match &b {
                Some((bv, ldb)) => {
                    push_buf(&mut args, bv);
                    args.push(*ldb as u64);
                }
                None => {
                    push_buf(&mut args, a);
                    args.push(lda as u64);
                }
            }
            push_scalar(&mut args, &beta);
            push_buf(&mut args, c);
            args.push(ldc as u64);
            return native::launch(s, "rank_k", T::TYPE, &args);
        }
        let real = if T::COMPLEX { 2 } else { 1 };
        size32("a", matrix_span(ra, ca, lda).unwrap_or(usize::MAX).saturating_mul(real))?;
        size32("c", matrix_span(n, n, ldc).unwrap_or(usize::MAX).saturating_mul(real))?;
        let ka = self.kscalar(&alpha)?;
        let kb = self.kscalar(&beta)?;
        let ar = a.as_device_slice().reinterpret::<T::Real>()?;
        let (br, ldb) = match &b {
            Some((bv, ldb)) => {
                size32("b", matrix_span(ra, ca, *ldb).unwrap_or(usize::MAX).saturating_mul(real))?;
                (bv.reinterpret::<T::Real>()?, *ldb)
            }
            None => (ar, lda),
        };
        let mut cr = c.as_device_slice_mut().reinterpret::<T::Real>()?;
        // op(B)^T (or ^H) as GEMM's second operand: B as stored, read across.
        let second = if trans == Operation::N {
            if kind.herm {
                Operation::C
            } else {
                Operation::T
            }
        } else {
            Operation::N
        };
        let trans = if T::COMPLEX || trans == Operation::N { trans } else { Operation::T };
        let mut mode = if uplo == Fill::Upper { k::M_C_UPPER } else { k::M_C_LOWER };
        if kind.herm {
            mode |= k::M_C_HERM | k::M_REAL_BETA;
            if !kind.two {
                mode |= k::M_REAL_ALPHA;
            }
        }
        let k = if skip { 0 } else { k };
        let flops = (n * n * k) as u64 * if T::COMPLEX { 4 } else { 1 } * if kind.two { 2 } else { 1 };
        kernels::annotate(flops, ((2 * n * k + n * n) * size_of::<T>()) as u64);
        self.l3_gemm::<T>(mode, trans, second, n, n, k, &ka, &ar, lda, &br, ldb, &kb, &mut cr, ldc)?;
        if kind.two && k > 0 {
            // + alpha op(B) op(A)^T (her2k: conj(alpha) op(B) op(A)^H), onto the first pass.
            let mode = mode | if kind.herm { k::M_CONJ_ALPHA } else { 0 };
            let one = self.kscalar(&ScalarArg::Host(T::Real::one()))?;
            self.l3_gemm::<T>(mode, trans, second, n, n, k, &ka, &br, ldb, &ar, lda, &one, &mut cr, ldc)?;
        }
        Ok(())
    }

    /// `C = alpha A B + beta C` (`Side::Left`, `A` `m x m`) or `C = alpha B A + beta C`
    /// (`Side::Right`, `A` `n x n`) (`?symm`), `A` symmetric and read from its `uplo`
    /// triangle only, `B` and `C` `m x n`. `lda >= max(1, dim A)`, `ldb, ldc >= max(1, m)`.
    /// `alpha = 0` reads neither `A` nor `B`; `beta = 0` reads no `C`. Tested to
    /// `gamma(k + 2) (|alpha| sum |a||b| + |beta||c|)`, `k` the dimension of `A`.
    #[allow(clippy::too_many_arguments)]
    pub fn symm<'a, T: Scalar>(
        &'a self,
        side: Side,
        uplo: Fill,
        m: usize,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        b: &impl AsDeviceSlice<T>,
        ldb: usize,
        beta: impl Into<ScalarArg<'a, T>>,
        c: &mut impl AsDeviceSliceMut<T>,
        ldc: usize,
    ) -> Result<()> {
        self.symm_any(false, side, uplo, m, n, alpha.into(), a, lda, b, ldb, beta.into(), c, ldc)
    }

    /// [`Handle::symm`] with `A` Hermitian (`?hemm`): the triangle opposite `uplo` is the
    /// conjugate of the stored one, and the imaginary parts of `A`'s diagonal are taken as
    /// zero (not read).
    #[allow(clippy::too_many_arguments)]
    pub fn hemm<'a, T: Scalar>(
        &'a self,
        side: Side,
        uplo: Fill,
        m: usize,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        b: &impl AsDeviceSlice<T>,
        ldb: usize,
        beta: impl Into<ScalarArg<'a, T>>,
        c: &mut impl AsDeviceSliceMut<T>,
        ldc: usize,
    ) -> Result<()> {
        self.symm_any(true, side, uplo, m, n, alpha.into(), a, lda, b, ldb, beta.into(), c, ldc)
    }

    #[allow(clippy::too_many_arguments)]
    fn symm_any<'a, T: Scalar>(
        &'a self,
        herm: bool,
        side: Side,
        uplo: Fill,
        m: usize,
        n: usize,
        alpha: ScalarArg<'a, T>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        b: &impl AsDeviceSlice<T>,
        ldb: usize,
        beta: ScalarArg<'a, T>,
        c: &mut impl AsDeviceSliceMut<T>,
        ldc: usize,
    ) -> Result<()> {
        self.check_scalar("alpha", &alpha)?;
        self.check_scalar("beta", &beta)?;
        let ka_dim = if side == Side::Left { m } else { n };
        self.check_matrix("a", "lda", a, ka_dim, ka_dim, lda)?;
        self.check_matrix("b", "ldb", b, m, n, ldb)?;
        self.check_matrix("c", "ldc", c, m, n, ldc)?;
        if m == 0 || n == 0 {
            return Ok(());
        }
        if alpha.host().is_some_and(|v| v.is_zero()) && beta.host().is_some_and(|v| v.is_one()) {
            return Ok(());
        }
        let s = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(side_code(side)).push(fill_code(uplo)).push(herm as u32);
            args.push(m as u64).push(n as u64);
            push_scalar(&mut args, &alpha);
            push_buf(&mut args, a);
            args.push(lda as u64);
            push_buf(&mut args, b);
            args.push(ldb as u64);
            push_scalar(&mut args, &beta);
            push_buf(&mut args, c);
            args.push(ldc as u64);
            return native::launch(s, "symm", T::TYPE, &args);
        }
        let real = if T::COMPLEX { 2 } else { 1 };
        size32("a", matrix_span(ka_dim, ka_dim, lda).unwrap_or(usize::MAX).saturating_mul(real))?;
        size32("b", matrix_span(m, n, ldb).unwrap_or(usize::MAX).saturating_mul(real))?;
        size32("c", matrix_span(m, n, ldc).unwrap_or(usize::MAX).saturating_mul(real))?;
        let (ka, kb) = (self.kscalar(&alpha)?, self.kscalar(&beta)?);
        let ar = a.as_device_slice().reinterpret::<T::Real>()?;
        let br = b.as_device_slice().reinterpret::<T::Real>()?;
        let mut cr = c.as_device_slice_mut().reinterpret::<T::Real>()?;
        let mut mode = if herm && T::COMPLEX { k::ST_HERM } else { k::ST_SYM };
        if uplo == Fill::Lower {
            mode |= k::M_LOWER;
        }
        kernels::annotate(
            (2 * m * n * ka_dim) as u64 * if T::COMPLEX { 4 } else { 1 },
            ((ka_dim * ka_dim + 3 * m * n) * size_of::<T>()) as u64,
        );
        let nn = Operation::N;
        if side == Side::Left {
            self.l3_gemm::<T>(mode, nn, nn, m, n, m, &ka, &ar, lda, &br, ldb, &kb, &mut cr, ldc)
        } else {
            self.l3_gemm::<T>(mode | k::M_ON_B, nn, nn, m, n, n, &ka, &br, ldb, &ar, lda, &kb, &mut cr, ldc)
        }
    }

    /// `B = alpha op(A) B` (`Side::Left`, `A` `m x m`) or `B = alpha B op(A)`
    /// (`Side::Right`, `A` `n x n`) (`?trmm`, the classic in-place form: the result
    /// overwrites `B`, `m x n`), `A` triangular (`uplo`; `Diagonal::Unit`: ones, the diagonal
    /// not read; the other triangle is never read). `lda >= max(1, dim A)`,
    /// `ldb >= max(1, m)`. `alpha = 0` sets `B` to zero without reading `A` or `B`. With
    /// kernels the product goes through a workspace of up to 2^24 elements (or the
    /// workspace limit) per block of `B`'s columns (left) or rows (right). Tested to
    /// `gamma(k + 2) |alpha| sum |a||b|`.
    #[allow(clippy::too_many_arguments)]
    pub fn trmm<'a, T: Scalar>(
        &'a self,
        side: Side,
        uplo: Fill,
        trans: Operation,
        diag: Diagonal,
        m: usize,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        b: &mut impl AsDeviceSliceMut<T>,
        ldb: usize,
    ) -> Result<()> {
        let alpha = alpha.into();
        self.check_scalar("alpha", &alpha)?;
        let ka_dim = if side == Side::Left { m } else { n };
        self.check_matrix("a", "lda", a, ka_dim, ka_dim, lda)?;
        self.check_matrix("b", "ldb", b, m, n, ldb)?;
        if m == 0 || n == 0 {
            return Ok(());
        }
        let s = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(side_code(side)).push(fill_code(uplo)).push(trans.code()).push(diag_code(diag));
            args.push(m as u64).push(n as u64);
            push_scalar(&mut args, &alpha);
            push_buf(&mut args, a);
            args.push(lda as u64);
            push_buf(&mut args, b);
            args.push(ldb as u64);
            return native::launch(s, "trmm", T::TYPE, &args);
        }
        let real = if T::COMPLEX { 2 } else { 1 };
        size32("a", matrix_span(ka_dim, ka_dim, lda).unwrap_or(usize::MAX).saturating_mul(real))?;
        size32("b", matrix_span(m, n, ldb).unwrap_or(usize::MAX).saturating_mul(real))?;
        let mut bv = b.as_device_slice_mut();
        if alpha.host().is_some_and(|v| v.is_zero()) {
            return self.l3_clear::<T>(m, n, &mut bv, ldb);
        }
        let ka = self.kscalar(&alpha)?;
        let zero = self.kscalar(&ScalarArg::Host(T::zero()))?;
        let ar = a.as_device_slice().reinterpret::<T::Real>()?;
        let mut mode = k::ST_TRI;
        if uplo == Fill::Lower {
            mode |= k::M_LOWER;
        }
        if diag == Diagonal::Unit {
            mode |= k::M_UNIT;
        }
        let trans = if T::COMPLEX || trans == Operation::N { trans } else { Operation::T };
        let budget = self
            .workspace_limit()
            .map_or(TRMM_WORKSPACE, |l| (l / size_of::<T>() as u64).min(TRMM_WORKSPACE as u64) as usize);
        let nn = Operation::N;
        if side == Side::Left {
            let nc = (budget / m).clamp(1, n);
            let mut w = self.workspace::<T>(m * nc)?;
            let mut j0 = 0;
            while j0 < n {
                let cols = nc.min(n - j0);
                {
                    let bsub = bv.as_slice().slice(j0 * ldb..)?.reinterpret::<T::Real>()?;
                    let mut wr = w.as_device_slice_mut().reinterpret::<T::Real>()?;
                    self.l3_gemm::<T>(
                        mode, trans, nn, m, cols, m, &ka, &ar, lda, &bsub, ldb, &zero, &mut wr, m,
                    )?;
                }
                let (_, mut bsub) = bv.as_device_slice_mut().split_at_mut(j0 * ldb)?;
                self.l3_copy::<T>(m, cols, &w.as_device_slice(), m, &mut bsub, ldb)?;
                j0 += cols;
            }
        } else {
            let mc = (budget / n).clamp(1, m);
            let mut w = self.workspace::<T>(mc * n)?;
            let mut i0 = 0;
            while i0 < m {
                let rows = mc.min(m - i0);
                {
                    let bsub = bv.as_slice().slice(i0..)?.reinterpret::<T::Real>()?;
                    let mut wr = w.as_device_slice_mut().reinterpret::<T::Real>()?;
                    self.l3_gemm::<T>(
                        mode | k::M_ON_B,
                        nn,
                        trans,
                        rows,
                        n,
                        n,
                        &ka,
                        &bsub,
                        ldb,
                        &ar,
                        lda,
                        &zero,
                        &mut wr,
                        rows,
                    )?;
                }
                let (_, mut bsub) = bv.as_device_slice_mut().split_at_mut(i0)?;
                self.l3_copy::<T>(rows, n, &w.as_device_slice(), rows, &mut bsub, ldb)?;
                i0 += rows;
            }
        }
        Ok(())
    }

    /// Solves `op(A) X = alpha B` (`Side::Left`, `A` `m x m`) or `X op(A) = alpha B`
    /// (`Side::Right`, `A` `n x n`) for `X` (`?trsm`), which overwrites `B` (`m x n`); `A`
    /// triangular (`uplo`, `diag` as [`Handle::trmm`]; the other triangle is never read).
    /// `lda >= max(1, dim A)`, `ldb >= max(1, m)`. `alpha = 0` sets `B` to zero without
    /// reading `A` (in device pointer mode too). A singular `A` gives infinities or NaNs,
    /// as reference BLAS (no check). Tested on triangles with `|a_ii| >= dim A` and
    /// off-diagonal elements in `[-1, 1]` by the residual: per element,
    /// `|op(A) X - alpha B| <= 4 gamma(dim A + 2) (|op(A)| |X| + |alpha B|)` (left; `X op(A)`
    /// right), the componentwise backward error of substitution and of the blocked updates.
    #[allow(clippy::too_many_arguments)]
    pub fn trsm<'a, T: Scalar>(
        &'a self,
        side: Side,
        uplo: Fill,
        trans: Operation,
        diag: Diagonal,
        m: usize,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        b: &mut impl AsDeviceSliceMut<T>,
        ldb: usize,
    ) -> Result<()> {
        let alpha = alpha.into();
        self.check_trsm(side, m, n, &alpha, a, lda, b, ldb)?;
        self.trsm_checked(side, uplo, trans, diag, m, n, alpha, a, lda, 0, b, ldb, 0, 1)
    }

    /// `batch_count` [`Handle::trsm`]s on matrices `stride_a` and `stride_b` elements apart
    /// (`?trsm_strided_batched`): batch `i` uses `A + i stride_a` and `B + i stride_b`. `A`
    /// may repeat (`stride_a = 0`); the matrices of `B` must not overlap
    /// (`stride_b >= ldb * n` when there is more than one batch). With kernels every batch
    /// runs in each launch (up to 65535 a launch): the diagonal-block solves on the grid's `z`
    /// axis, the updates as strided batched GEMMs.
    #[allow(clippy::too_many_arguments)]
    pub fn trsm_strided_batched<'a, T: Scalar>(
        &'a self,
        side: Side,
        uplo: Fill,
        trans: Operation,
        diag: Diagonal,
        m: usize,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        stride_a: usize,
        b: &mut impl AsDeviceSliceMut<T>,
        ldb: usize,
        stride_b: usize,
        batch_count: usize,
    ) -> Result<()> {
        let alpha = alpha.into();
        self.check_scalar("alpha", &alpha)?;
        let ka_dim = if side == Side::Left { m } else { n };
        self.check_batch("a", "lda", a, ka_dim, ka_dim, lda, stride_a, batch_count)?;
        self.check_batch("b", "ldb", b, m, n, ldb, stride_b, batch_count)?;
        if batch_count > 1 && m > 0 && n > 0 && stride_b < ldb.saturating_mul(n) {
            return Err(BlasError::InvalidValue {
                arg: "stride_b",
                value: stride_b.to_string(),
                rule: "the batches of B must not overlap: stride_b >= ldb * n when batch_count > 1",
            });
        }
        if m == 0 || n == 0 {
            return Ok(());
        }
        self.trsm_checked(
            side,
            uplo,
            trans,
            diag,
            m,
            n,
            alpha,
            a,
            lda,
            stride_a,
            b,
            ldb,
            stride_b,
            batch_count,
        )
    }

    /// [`Handle::trsm`] on each entry of arrays of views (`?trsm_batched`): `a[i]` and
    /// `b[i]` are batch `i`'s matrices (`a` and `b` of the same length). Every entry is
    /// checked before any is solved. With kernels, entries that are a strided batch after all
    /// (each operand's entries in one allocation, ascending, a constant distance apart, B's
    /// whole columns apart) are solved as [`Handle::trsm_strided_batched`] solves them; any
    /// other layout runs one `trsm` per entry (its own launches).
    #[allow(clippy::too_many_arguments)]
    pub fn trsm_batched<'a, T: Scalar, A: AsDeviceSlice<T>, B: AsDeviceSliceMut<T>>(
        &'a self,
        side: Side,
        uplo: Fill,
        trans: Operation,
        diag: Diagonal,
        m: usize,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &[A],
        lda: usize,
        b: &mut [B],
        ldb: usize,
    ) -> Result<()> {
        let alpha = alpha.into();
        if a.len() != b.len() {
            return Err(BlasError::InvalidValue {
                arg: "a",
                value: format!("{} entries", a.len()),
                rule: "a and b must have one entry per batch (the same length)",
            });
        }
        for (ai, bi) in a.iter().zip(b.iter()) {
            self.check_trsm(side, m, n, &alpha, ai, lda, bi, ldb)?;
        }
        let count = b.len();
        if count > 1 && self.use_kernels() {
            let reals = if T::COMPLEX { 2 } else { 1 };
            // SAFETY: the strided solve reads A and reads and writes B, `i * step` into each
            // view, only at entry `order[i]`, with the shape every entry was checked with.
            let order = by_output(b);
            let (ar, br) = unsafe { (strided_in(a, &order, reals), strided_out(b, &order, reals)) };
            if let (Some((av, sa)), Some((mut bv, sb))) = (ar, br) {
                if m == 0 || n == 0 || sb >= ldb.saturating_mul(n) {
                    return self.trsm_checked(
                        side, uplo, trans, diag, m, n, alpha, &av, lda, sa, &mut bv, ldb, sb, count,
                    );
                }
            }
        }
        for (ai, bi) in a.iter().zip(b.iter_mut()) {
            self.trsm_checked(side, uplo, trans, diag, m, n, alpha, ai, lda, 0, bi, ldb, 0, 1)?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn check_trsm<T: Scalar>(
        &self,
        side: Side,
        m: usize,
        n: usize,
        alpha: &ScalarArg<'_, T>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        b: &impl AsDeviceSlice<T>,
        ldb: usize,
    ) -> Result<()> {
        self.check_scalar("alpha", alpha)?;
        let ka_dim = if side == Side::Left { m } else { n };
        self.check_matrix("a", "lda", a, ka_dim, ka_dim, lda)?;
        self.check_matrix("b", "ldb", b, m, n, ldb)?;
        let real = if T::COMPLEX { 2 } else { 1 };
        if self.use_kernels() {
            size32("a", matrix_span(ka_dim, ka_dim, lda).unwrap_or(usize::MAX).saturating_mul(real))?;
            size32("b", matrix_span(m, n, ldb).unwrap_or(usize::MAX).saturating_mul(real))?;
        }
        Ok(())
    }

    /// `trsm` after its checks, on `batch` systems `stride_a` and `stride_b` apart.
    #[allow(clippy::too_many_arguments)]
    fn trsm_checked<'a, T: Scalar>(
        &'a self,
        side: Side,
        uplo: Fill,
        trans: Operation,
        diag: Diagonal,
        m: usize,
        n: usize,
        alpha: ScalarArg<'a, T>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        stride_a: usize,
        b: &mut impl AsDeviceSliceMut<T>,
        ldb: usize,
        stride_b: usize,
        batch: usize,
    ) -> Result<()> {
        if m == 0 || n == 0 || batch == 0 {
            return Ok(());
        }
        let s = self.stream();
        let av = a.as_device_slice();
        let mut bv = b.as_device_slice_mut();
        if !self.use_kernels() {
            for z in 0..batch {
                let ai = av.slice(z * stride_a..)?;
                let (_, bi) = bv.as_device_slice_mut().split_at_mut(z * stride_b)?;
                let mut args = KernelArgs::new();
                args.push(side_code(side)).push(fill_code(uplo)).push(trans.code()).push(diag_code(diag));
                args.push(m as u64).push(n as u64);
                push_scalar(&mut args, &alpha);
                push_buf(&mut args, &ai);
                args.push(lda as u64);
                push_buf(&mut args, &bi);
                args.push(ldb as u64);
                native::launch(s, "trsm", T::TYPE, &args)?;
            }
            return Ok(());
        }
        let real = if T::COMPLEX { 2 } else { 1 };
        let left = side == Side::Left;
        let (dim, nrhs) = if left { (m, n) } else { (n, m) };
        let span_b = (batch - 1) * stride_b + matrix_span(m, n, ldb).unwrap_or(usize::MAX);
        size32("b", span_b.saturating_mul(real))?;
        size32(
            "a",
            ((batch - 1) * stride_a + matrix_span(dim, dim, lda).unwrap_or(usize::MAX)).saturating_mul(real),
        )?;
        if alpha.host().is_some_and(|v| v.is_zero()) {
            for z in 0..batch {
                let (_, mut bi) = bv.as_device_slice_mut().split_at_mut(z * stride_b)?;
                self.l3_clear::<T>(m, n, &mut bi, ldb)?;
            }
            return Ok(());
        }
        let trans = if T::COMPLEX || trans == Operation::N { trans } else { Operation::T };
        // M: the matrix the substitution walks (op(A) on the left, op(A)^T on the right).
        let trans_m = if left { trans != Operation::N } else { trans == Operation::N };
        let lower_m = (uplo == Fill::Lower) != trans_m;
        let mut mode = 0;
        if trans_m {
            mode |= k::TS_TRANS;
        }
        if trans == Operation::C && T::COMPLEX {
            mode |= k::TS_CONJ;
        }
        if lower_m {
            mode |= k::TS_LOWER;
        }
        if diag == Diagonal::Unit {
            mode |= k::TS_UNIT;
        }
        if !left {
            mode |= k::TS_RIGHT;
        }
        let ka = self.kscalar(&alpha)?;
        // The updates' factor: -1, or (device alpha) 0 when alpha is 0, so they read no A.
        let mut neg = self.workspace::<T>(1)?;
        let neg_arg: ScalarArg<'_, T> = if ka.device {
            let mut nr = neg.as_device_slice_mut().reinterpret::<T::Real>()?;
            bools!(T::COMPLEX => CX, k::l3_neg_flag::launch::<T::Real, CX>(s, LaunchConfig::new(1, 32), &ka.view, &mut nr)?);
            ScalarArg::device(&neg)
        } else {
            ScalarArg::Host(-T::one())
        };
        let nb = k::TRSM_NB as usize;
        // Batches run on the grid's z axis, at most 65535 a launch.
        let chunk = batch.min(MAX_BATCH);
        let ws = nb * nrhs;
        let mut w = self.workspace::<T>(ws * chunk)?;
        let rhs = k::trsm_rhs(T::COMPLEX);
        let blocks = dim.div_ceil(nb);
        let mut z0 = 0;
        while z0 < batch {
            let zc = chunk.min(batch - z0);
            let cfg = LaunchConfig::new((size32("n", nrhs.div_ceil(rhs as usize))?, 1, zc as u32), rhs);
            let az = av.slice(z0 * stride_a..)?;
            let ar = az.reinterpret::<T::Real>()?;
            let (_, mut bz) = bv.as_device_slice_mut().split_at_mut(z0 * stride_b)?;
            for step in 0..blocks {
                let bi = if lower_m { step } else { blocks - 1 - step };
                let (r0, len) = (bi * nb, nb.min(dim - bi * nb));
                let mode = mode | if step == 0 { k::TS_SCALE } else { 0 };
                {
                    let mut br = bz.as_device_slice_mut().reinterpret::<T::Real>()?;
                    let mut wr = w.as_device_slice_mut().reinterpret::<T::Real>()?;
                    let (sa, sb, sw) =
                        ((stride_a * real) as u32, (stride_b * real) as u32, (ws * real) as u32);
                    bools!(T::COMPLEX => CX, bools!(ka.device => DSA, k::trsm_diag::launch::<T::Real, CX, DSA>(
                        s, cfg, mode, len as u32, nrhs as u32, r0 as u32, ka.re, ka.im, &ka.view, &ar, lda as u32,
                        sa, &mut br, ldb as u32, sb, &mut wr, sw,
                    )?));
                }
                let (u0, u1) = if lower_m { (r0 + len, dim) } else { (0, r0) };
                if u1 == u0 {
                    continue;
                }
                let beta = if step == 0 { alpha } else { ScalarArg::Host(T::one()) };
                let (sa, sb) = (if zc > 1 { stride_a } else { 0 }, if zc > 1 { stride_b } else { 0 });
                if left {
                    // B[u0..u1, :] -= op(A)[u0..u1, r0..r0 + len] X.
                    let asub = az.slice(op_at(trans, u0, r0, lda)..)?;
                    let (_, mut bsub) = bz.as_device_slice_mut().split_at_mut(u0)?;
                    self.gemm_strided_batched(
                        trans,
                        Operation::N,
                        u1 - u0,
                        n,
                        len,
                        neg_arg,
                        &asub,
                        lda,
                        sa,
                        &w,
                        nb,
                        ws,
                        beta,
                        &mut bsub,
                        ldb,
                        sb,
                        zc,
                    )?;
                } else {
                    // B[:, u0..u1] -= X op(A)[r0..r0 + len, u0..u1].
                    let asub = az.slice(op_at(trans, r0, u0, lda)..)?;
                    let (_, mut bsub) = bz.as_device_slice_mut().split_at_mut(u0 * ldb)?;
                    self.gemm_strided_batched(
                        Operation::N,
                        trans,
                        m,
                        u1 - u0,
                        len,
                        neg_arg,
                        &w,
                        m,
                        ws,
                        &asub,
                        lda,
                        sa,
                        beta,
                        &mut bsub,
                        ldb,
                        sb,
                        zc,
                    )?;
                }
            }
            z0 += zc;
        }
        Ok(())
    }

    /// Launches the structured GEMM (`kernels::l3::l3_gemm`) on views of reals.
    #[allow(clippy::too_many_arguments)]
    fn l3_gemm<T: Scalar>(
        &self,
        mode: u32,
        ta: Operation,
        tb: Operation,
        m: usize,
        n: usize,
        k: usize,
        ka: &KScalar<'_, T::Real>,
        a: &DeviceSlice<'_, T::Real>,
        lda: usize,
        b: &DeviceSlice<'_, T::Real>,
        ldb: usize,
        kb: &KScalar<'_, T::Real>,
        c: &mut DeviceSliceMut<'_, T::Real>,
        ldc: usize,
    ) -> Result<()> {
        let s = self.stream();
        let tile = BLOCK_EDGE * register_tile(T::COMPLEX) as u32;
        let (m32, n32, k32) = (size32("m", m)?, size32("n", n)?, size32("k", k)?);
        if m32.div_ceil(tile) > crate::kernels::MAX_GRID_YZ {
            return Err(BlasError::SizeTooLarge {
                arg: "m",
                value: m as u128,
                rule: "the kernels take at most 65535 row tiles (of 128 rows, 64 complex)",
            });
        }
        let grid = (n32.div_ceil(tile), m32.div_ceil(tile), 1);
        let cfg = LaunchConfig::new(grid, (BLOCK_EDGE, BLOCK_EDGE));
        let (lda, ldb, ldc) = (lda as u32, ldb as u32, ldc as u32);
        macro_rules! go {
            ($ta:literal, $tb:literal) => {
                bools!(T::COMPLEX => CX, bools!(ka.device => DSA, bools!(kb.device => DSB, {
                    const W: usize = register_tile(CX);
                    k::l3_gemm::launch::<T::Real, CX, $ta, $tb, DSA, DSB, W>(
                        s, cfg, mode, m32, n32, k32, ka.re, ka.im, &ka.view, a, lda, b, ldb, kb.re, kb.im,
                        &kb.view, c, ldc,
                    )?
                })))
            };
        }
        match (ta.code(), tb.code()) {
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

    /// `dst = src` for `m x n` matrices (kernels).
    fn l3_copy<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        src: &DeviceSlice<'_, T>,
        lds: usize,
        dst: &mut DeviceSliceMut<'_, T>,
        ldd: usize,
    ) -> Result<()> {
        let s = self.stream();
        let sr = src.reinterpret::<T::Real>()?;
        let mut dr = dst.as_device_slice_mut().reinterpret::<T::Real>()?;
        let cfg = kernels::cfg(kernels::grid(s, m * n));
        bools!(T::COMPLEX => CX, k::l3_copy::launch::<T::Real, CX, false>(
            s, cfg, m as u32, n as u32, &sr, lds as u32, &mut dr, ldd as u32,
        )?);
        Ok(())
    }

    /// `dst = 0` for an `m x n` matrix (kernels; nothing read).
    fn l3_clear<T: Scalar>(
        &self,
        m: usize,
        n: usize,
        dst: &mut DeviceSliceMut<'_, T>,
        ldd: usize,
    ) -> Result<()> {
        let s = self.stream();
        let mut dr = dst.as_device_slice_mut().reinterpret::<T::Real>()?;
        let src = self.dummy.as_device_slice().reinterpret::<T::Real>()?;
        let cfg = kernels::cfg(kernels::grid(s, m * n));
        bools!(T::COMPLEX => CX, k::l3_copy::launch::<T::Real, CX, true>(
            s, cfg, m as u32, n as u32, &src, 1, &mut dr, ldd as u32,
        )?);
        Ok(())
    }
}
