//! Row-major helpers for Rust users (CBLAS's `CblasRowMajor`): `gemm`, `gemm_ex` and `gemv`
//! on row-major operands, with no copy.
//!
//! # The rule
//! A row-major `r x c` matrix with leading dimension `ld` (`ld >= c`, element `(i, j)` at
//! `i * ld + j`) is the same memory as the column-major `c x r` matrix `M^T` with the same
//! leading dimension. So the row-major `C = op(A) op(B)` is the column-major
//! `C^T = op(B)^T op(A)^T`, which is BLAS's column-major GEMM with the operands swapped, `m`
//! and `n` swapped and the operations unchanged: `gemm(transb, transa, n, m, k, alpha, B, ldb,
//! A, lda, beta, C, ldc)`. A row-major `y = op(A) x` is the column-major `gemv` of `A^T` with
//! `N` and `T` exchanged. Errors name the arguments as the caller passed them (`a`, `lda`, `m`
//! are the row-major call's); a leading dimension's rule reads "at least the stored matrix's
//! rows", which for a row-major matrix is its columns.

use ferrocm_kernel::runtime::{AsDeviceSlice, AsDeviceSliceMut};

use crate::error::{BlasError, Result};
use crate::gemm_ex::GemmExType;
use crate::handle::Handle;
use crate::types::{ComputeType, Operation, Scalar, ScalarArg};

/// The argument name of the swapped column-major call, as the row-major caller named it.
fn rename(arg: &'static str) -> &'static str {
    match arg {
        "a" => "b",
        "b" => "a",
        "lda" => "ldb",
        "ldb" => "lda",
        "stride_a" => "stride_b",
        "stride_b" => "stride_a",
        "m" => "n",
        "n" => "m",
        other => other,
    }
}

/// `e` with the names of the swapped call's arguments mapped back to the caller's.
fn unswap(e: BlasError) -> BlasError {
    match e {
        BlasError::LeadingDimension { arg, ld, rows } => {
            BlasError::LeadingDimension { arg: rename(arg), ld, rows }
        }
        BlasError::MatrixTooShort { arg, len, rows, cols, ld, required } => {
            BlasError::MatrixTooShort { arg: rename(arg), len, rows, cols, ld, required }
        }
        BlasError::TooShort { arg, len, what, required } => {
            BlasError::TooShort { arg: rename(arg), len, what, required }
        }
        BlasError::SizeTooLarge { arg, value, rule } => {
            BlasError::SizeTooLarge { arg: rename(arg), value, rule }
        }
        BlasError::DeviceMismatch { arg, device, handle_device } => {
            BlasError::DeviceMismatch { arg: rename(arg), device, handle_device }
        }
        other => other,
    }
}

impl Handle {
    /// [`Handle::gemm`] on row-major matrices: `C = alpha op(A) op(B) + beta C` with `C`
    /// `m x n` row-major (`ldc >= max(1, n)`), `A` stored `m x k` for `N` (`lda >= max(1, k)`)
    /// and `k x m` for `T`/`C` (`lda >= max(1, m)`), `B` likewise. Computed as the column-major
    /// product of the transposes ([module docs](crate::row_major)), with the bounds of
    /// [`Handle::gemm`].
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_row_major<'a, T: Scalar>(
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
        self.gemm(transb, transa, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc).map_err(unswap)
    }

    /// [`Handle::gemm_ex`] on row-major matrices, by the rule of [`Handle::gemm_row_major`].
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_ex_row_major<'a, TA: GemmExType, TB: GemmExType, TC: GemmExType, S: GemmExType>(
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
        self.gemm_ex(transb, transa, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc, compute).map_err(unswap)
    }

    /// [`Handle::gemv`] on a row-major `m x n` matrix `A` (`lda >= max(1, n)`): `y = alpha
    /// op(A) x + beta y`, `x` of `n` elements and `y` of `m` for `N`, the other way round for
    /// `T`. Computed as the column-major `gemv` of `A^T` (`n x m`) with `N` and `T` exchanged.
    /// `Operation::C` on a complex type is [`BlasError::Unsupported`] (it would be a
    /// conjugate without transpose of the column-major view, which BLAS has no operation for);
    /// on a real type it is `T`.
    #[allow(clippy::too_many_arguments)]
    pub fn gemv_row_major<'a, T: Scalar>(
        &'a self,
        op: Operation,
        m: usize,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        beta: impl Into<ScalarArg<'a, T>>,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
    ) -> Result<()> {
        let flipped =
            match op {
                Operation::N => Operation::T,
                Operation::T => Operation::N,
                Operation::C if !T::COMPLEX => Operation::N,
                Operation::C => return Err(BlasError::Unsupported {
                    what:
                        "op C in a row-major complex gemv (a conjugate without transpose of the column-major \
                           view); use the column-major gemv with op C on the transposed storage"
                            .into(),
                }),
            };
        self.gemv(flipped, n, m, alpha, a, lda, x, incx, beta, y, incy).map_err(|e| match e {
            BlasError::SizeTooLarge { arg, value, rule } => {
                BlasError::SizeTooLarge { arg: rename(arg), value, rule }
            }
            other => other,
        })
    }
}
