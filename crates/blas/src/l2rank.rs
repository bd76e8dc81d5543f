//! Level 2 rank updates: `ger`/`geru`/`gerc` (`A += alpha x y^T` / `x y^H`), `syr`/`her`,
//! `syr2`/`her2` on one triangle of a square matrix, and `spr`/`hpr`, `spr2`/`hpr2` on a
//! triangle packed by columns.
//!
//! Every routine is one generic method over the four element types. The complex-only names of
//! rocBLAS (`geru`, `gerc`, `her`, `her2`, `hpr`, `hpr2`) are generic too: on real types the
//! conjugate is the identity, so `gerc` is `ger` and `her` is `syr` there (as the definitions
//! say). `ger` on complex types is `geru`.
//!
//! Conventions (reference BLAS's): increments may be negative (the walk starts at the far
//! end) but not zero; `alpha = 0` (host) returns before anything is read or written, as does
//! an empty matrix; a device `alpha` of 0 makes the kernels return without reading `x`, `y`
//! or `A`. The triangle a routine does not own is never read or written. The Hermitian forms
//! never read the imaginary part of the diagonal and write it as zero.
//!
//! The computed elements obey the bound the tests check: `|A' - A_exact| <= gamma_4 (|A| +
//! |alpha| |x_i| |y_j| + |alpha| |y_i| |x_j|)` per element (`gamma_k = k u`, doubled for
//! complex types).

use ferrocm_kernel::runtime::{AsDeviceSlice, AsDeviceSliceMut, DeviceSlice, KernelArgs, LaunchConfig};

use crate::check::{matrix_span, size32, vector_span};
use crate::error::{BlasError, Result};
use crate::handle::Handle;
use crate::kernels::{self, l2rank::shape, walk};
use crate::level2::bools;
use crate::native::{self, push_buf, push_scalar};
use crate::types::{Fill, Scalar, ScalarArg};

/// A rank update's `alpha`: of the element type, or real (the rank-1 Hermitian forms).
enum Alpha<'a, T: Scalar> {
    Full(ScalarArg<'a, T>),
    Real(ScalarArg<'a, T::Real>),
}

impl<T: Scalar> Alpha<'_, T> {
    /// Whether `alpha` is a host 0 (the routine then returns at once).
    fn host_zero(&self) -> bool {
        match self {
            Alpha::Full(s) => s.host().is_some_and(|v| v.is_zero()),
            Alpha::Real(s) => s.host().is_some_and(|v| v.is_zero()),
        }
    }
}

/// What one rank update computes (see [`kernels::l2rank`]).
struct Update {
    /// The storage (`kernels::l2rank::shape`).
    shape: u32,
    /// Rank 2 (`x y' + y x'`) rather than rank 1.
    two: bool,
    /// The second factor is conjugated (`gerc`, the Hermitian forms).
    conj: bool,
}

/// The elements `n (n + 1) / 2` of a packed triangle, if that fits.
fn packed_len(n: usize) -> Option<usize> {
    n.checked_add(1)?.checked_mul(n).map(|p| p / 2)
}

impl Handle {
    /// `A = alpha x y^T + A` (`?ger`; `?geru` for complex types), `A` an `m x n` column-major
    /// matrix with leading dimension `lda >= max(1, m)`, `x` of `m` elements, `y` of `n`.
    /// `m = 0`, `n = 0` or `alpha = 0` leave `A` as it is without reading anything.
    #[allow(clippy::too_many_arguments)]
    pub fn ger<'a, T: Scalar>(
        &'a self,
        m: usize,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &impl AsDeviceSlice<T>,
        incy: isize,
        a: &mut impl AsDeviceSliceMut<T>,
        lda: usize,
    ) -> Result<()> {
        self.ger_any(false, m, n, alpha.into(), x, incx, y, incy, a, lda)
    }

    /// `A = alpha x y^T + A` for complex types (`?geru`): the same as [`Handle::ger`].
    #[allow(clippy::too_many_arguments)]
    pub fn geru<'a, T: Scalar>(
        &'a self,
        m: usize,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &impl AsDeviceSlice<T>,
        incy: isize,
        a: &mut impl AsDeviceSliceMut<T>,
        lda: usize,
    ) -> Result<()> {
        self.ger_any(false, m, n, alpha.into(), x, incx, y, incy, a, lda)
    }

    /// `A = alpha x y^H + A` (`?gerc`), arguments as [`Handle::ger`]; on real types the same
    /// as `ger`.
    #[allow(clippy::too_many_arguments)]
    pub fn gerc<'a, T: Scalar>(
        &'a self,
        m: usize,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &impl AsDeviceSlice<T>,
        incy: isize,
        a: &mut impl AsDeviceSliceMut<T>,
        lda: usize,
    ) -> Result<()> {
        self.ger_any(T::COMPLEX, m, n, alpha.into(), x, incx, y, incy, a, lda)
    }

    #[allow(clippy::too_many_arguments)]
    fn ger_any<'a, T: Scalar>(
        &'a self,
        conj: bool,
        m: usize,
        n: usize,
        alpha: ScalarArg<'a, T>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &impl AsDeviceSlice<T>,
        incy: isize,
        a: &mut impl AsDeviceSliceMut<T>,
        lda: usize,
    ) -> Result<()> {
        self.check_scalar("alpha", &alpha)?;
        self.check_vector("x", "incx", x, m, incx)?;
        self.check_vector("y", "incy", y, n, incy)?;
        self.check_matrix("a", "lda", a, m, n, lda)?;
        let span = matrix_span(m, n, lda).unwrap_or(0);
        let up = Update { shape: shape::FULL, two: false, conj };
        self.rank_update(up, m, n, Alpha::Full(alpha), x, incx, y, incy, a, lda, span)
    }

    /// `A = alpha x x^T + A` (`?syr`) on the `uplo` triangle of the `n x n` symmetric matrix
    /// `A` (leading dimension `lda >= max(1, n)`); the other triangle is not touched.
    /// `x` has `n` elements. For complex types this is rocBLAS's `csyr`/`zsyr` (no conjugate).
    #[allow(clippy::too_many_arguments)]
    pub fn syr<'a, T: Scalar>(
        &'a self,
        uplo: Fill,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        a: &mut impl AsDeviceSliceMut<T>,
        lda: usize,
    ) -> Result<()> {
        self.tri_update(
            false,
            false,
            uplo,
            n,
            Alpha::Full(alpha.into()),
            x.as_device_slice(),
            incx,
            None,
            a,
            Some(lda),
        )
    }

    /// `A = alpha x x^H + A` (`?her`) with a real `alpha`, on the `uplo` triangle of the
    /// `n x n` Hermitian matrix `A` (`lda >= max(1, n)`): the diagonal's imaginary parts are
    /// not read and are written as zero; the other triangle is not touched.
    #[allow(clippy::too_many_arguments)]
    pub fn her<'a, T: Scalar>(
        &'a self,
        uplo: Fill,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T::Real>>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        a: &mut impl AsDeviceSliceMut<T>,
        lda: usize,
    ) -> Result<()> {
        self.tri_update(
            false,
            T::COMPLEX,
            uplo,
            n,
            Alpha::Real(alpha.into()),
            x.as_device_slice(),
            incx,
            None,
            a,
            Some(lda),
        )
    }

    /// `A = alpha x y^T + alpha y x^T + A` (`?syr2`) on the `uplo` triangle of the `n x n`
    /// symmetric matrix `A` (`lda >= max(1, n)`); `x` and `y` have `n` elements.
    #[allow(clippy::too_many_arguments)]
    pub fn syr2<'a, T: Scalar>(
        &'a self,
        uplo: Fill,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &impl AsDeviceSlice<T>,
        incy: isize,
        a: &mut impl AsDeviceSliceMut<T>,
        lda: usize,
    ) -> Result<()> {
        self.tri_update(
            true,
            false,
            uplo,
            n,
            Alpha::Full(alpha.into()),
            x.as_device_slice(),
            incx,
            Some((y.as_device_slice(), incy)),
            a,
            Some(lda),
        )
    }

    /// `A = alpha x y^H + conj(alpha) y x^H + A` (`?her2`) on the `uplo` triangle of the
    /// `n x n` Hermitian matrix `A` (`lda >= max(1, n)`): the diagonal's imaginary parts are
    /// not read and are written as zero.
    #[allow(clippy::too_many_arguments)]
    pub fn her2<'a, T: Scalar>(
        &'a self,
        uplo: Fill,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &impl AsDeviceSlice<T>,
        incy: isize,
        a: &mut impl AsDeviceSliceMut<T>,
        lda: usize,
    ) -> Result<()> {
        let c = T::COMPLEX;
        self.tri_update(
            true,
            c,
            uplo,
            n,
            Alpha::Full(alpha.into()),
            x.as_device_slice(),
            incx,
            Some((y.as_device_slice(), incy)),
            a,
            Some(lda),
        )
    }

    /// [`Handle::syr`] on packed storage (`?spr`): `ap` holds the `uplo` triangle column by
    /// column, `n (n + 1) / 2` elements (reference BLAS's order: upper `A(i, j)` at
    /// `i + j (j + 1) / 2`, lower at `i - j + j (2 n - j + 1) / 2`).
    pub fn spr<'a, T: Scalar>(
        &'a self,
        uplo: Fill,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        ap: &mut impl AsDeviceSliceMut<T>,
    ) -> Result<()> {
        self.tri_update(
            false,
            false,
            uplo,
            n,
            Alpha::Full(alpha.into()),
            x.as_device_slice(),
            incx,
            None,
            ap,
            None,
        )
    }

    /// [`Handle::her`] on packed storage (`?hpr`), `ap` as [`Handle::spr`].
    pub fn hpr<'a, T: Scalar>(
        &'a self,
        uplo: Fill,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T::Real>>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        ap: &mut impl AsDeviceSliceMut<T>,
    ) -> Result<()> {
        self.tri_update(
            false,
            T::COMPLEX,
            uplo,
            n,
            Alpha::Real(alpha.into()),
            x.as_device_slice(),
            incx,
            None,
            ap,
            None,
        )
    }

    /// [`Handle::syr2`] on packed storage (`?spr2`), `ap` as [`Handle::spr`].
    #[allow(clippy::too_many_arguments)]
    pub fn spr2<'a, T: Scalar>(
        &'a self,
        uplo: Fill,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &impl AsDeviceSlice<T>,
        incy: isize,
        ap: &mut impl AsDeviceSliceMut<T>,
    ) -> Result<()> {
        self.tri_update(
            true,
            false,
            uplo,
            n,
            Alpha::Full(alpha.into()),
            x.as_device_slice(),
            incx,
            Some((y.as_device_slice(), incy)),
            ap,
            None,
        )
    }

    /// [`Handle::her2`] on packed storage (`?hpr2`), `ap` as [`Handle::spr`].
    #[allow(clippy::too_many_arguments)]
    pub fn hpr2<'a, T: Scalar>(
        &'a self,
        uplo: Fill,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &impl AsDeviceSlice<T>,
        incy: isize,
        ap: &mut impl AsDeviceSliceMut<T>,
    ) -> Result<()> {
        let c = T::COMPLEX;
        self.tri_update(
            true,
            c,
            uplo,
            n,
            Alpha::Full(alpha.into()),
            x.as_device_slice(),
            incx,
            Some((y.as_device_slice(), incy)),
            ap,
            None,
        )
    }

    /// The triangle updates: checks the arguments (`lda`: full storage with that leading
    /// dimension; `None`: packed) and runs the update.
    #[allow(clippy::too_many_arguments)]
    fn tri_update<'a, T: Scalar>(
        &'a self,
        two: bool,
        conj: bool,
        uplo: Fill,
        n: usize,
        alpha: Alpha<'a, T>,
        x: DeviceSlice<'_, T>,
        incx: isize,
        y: Option<(DeviceSlice<'_, T>, isize)>,
        a: &mut impl AsDeviceSliceMut<T>,
        lda: Option<usize>,
    ) -> Result<()> {
        match &alpha {
            Alpha::Full(s) => self.check_scalar("alpha", s)?,
            Alpha::Real(s) => self.check_scalar("alpha", s)?,
        }
        self.check_vector("x", "incx", &x, n, incx)?;
        if let Some((y, incy)) = &y {
            self.check_vector("y", "incy", y, n, *incy)?;
        }
        let (shape, span, lda) = match lda {
            Some(lda) => {
                self.check_matrix("a", "lda", a, n, n, lda)?;
                let s = if uplo == Fill::Upper { shape::UPPER } else { shape::LOWER };
                (s, matrix_span(n, n, lda).unwrap_or(0), lda)
            }
            None => {
                let len = packed_len(n).ok_or(BlasError::SizeTooLarge {
                    arg: "n",
                    value: n as u128,
                    rule: "n (n + 1) / 2 must fit in usize",
                })?;
                self.check_len("ap", a, "a packed n x n triangle (n (n + 1) / 2 elements)", len)?;
                let s = if uplo == Fill::Upper { shape::PACKED_UPPER } else { shape::PACKED_LOWER };
                (s, len, 0)
            }
        };
        let (y, incy) = y.unwrap_or((x, incx));
        self.rank_update(Update { shape, two, conj }, n, n, alpha, &x, incx, &y, incy, a, lda, span)
    }

    /// Queues a checked rank update (`span`: the elements of `a` it may touch).
    #[allow(clippy::too_many_arguments)]
    fn rank_update<'a, T: Scalar>(
        &'a self,
        up: Update,
        m: usize,
        n: usize,
        alpha: Alpha<'a, T>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &impl AsDeviceSlice<T>,
        incy: isize,
        a: &mut impl AsDeviceSliceMut<T>,
        lda: usize,
        span: usize,
    ) -> Result<()> {
        if m == 0 || n == 0 || alpha.host_zero() {
            return Ok(());
        }
        let s = self.stream();
        let ly = if up.shape == shape::FULL { n } else { m };
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(up.shape).push(up.two as u32).push(up.conj as u32);
            args.push(m as u64).push(n as u64);
            match &alpha {
                Alpha::Full(v) => {
                    args.push(0u32);
                    push_scalar(&mut args, v);
                }
                Alpha::Real(v) => {
                    args.push(1u32);
                    push_scalar(&mut args, v);
                }
            }
            push_buf(&mut args, x);
            args.push(incx as i64);
            push_buf(&mut args, y);
            args.push(incy as i64);
            push_buf(&mut args, a);
            args.push(lda as u64);
            return native::launch(s, "rank_update", T::TYPE, &args);
        }
        // The kernels index reals with 32 bits (a complex element is two).
        let reals = if T::COMPLEX { 2 } else { 1 };
        size32("a", span.saturating_mul(reals))?;
        size32("x", vector_span(m, incx).unwrap_or(usize::MAX).saturating_mul(reals))?;
        size32("y", vector_span(ly, incy).unwrap_or(usize::MAX).saturating_mul(reals))?;
        let (m32, n32, lda32) = (size32("m", m)?, size32("n", n)?, size32("lda", lda)?);
        let ka = match &alpha {
            Alpha::Full(v) => self.kscalar(v)?,
            Alpha::Real(v) => self.kscalar(v)?,
        };
        let xr = x.as_device_slice().reinterpret::<T::Real>()?;
        let yr = y.as_device_slice().reinterpret::<T::Real>()?;
        let mut ar = a.as_device_slice_mut().reinterpret::<T::Real>()?;
        let ((ox, ix), (oy, iy)) = (walk(m, incx), walk(ly, incy));
        let elems = if up.shape == shape::FULL { m * n } else { n * (n + 1) / 2 };
        let per = if up.two { 4 } else { 2 } * if T::COMPLEX { 4 } else { 1 };
        kernels::annotate((elems * per) as u64, ((2 * elems + m + n) * size_of::<T>()) as u64);
        use kernels::l2rank::{rank_update, RANK_COLS, RANK_ROWS, RANK_WARPS};
        let grid = (m32.div_ceil(RANK_ROWS), n32.div_ceil(RANK_COLS).min(crate::kernels::MAX_GRID_YZ));
        let cfg = LaunchConfig::new(grid, (RANK_ROWS, RANK_WARPS));
        macro_rules! go {
            ($shape:expr) => {
                bools!(T::COMPLEX => CX, bools!(up.two => TWO, bools!(up.conj => CONJ, bools!(ka.device => DSA, {
                    rank_update::launch::<T::Real, CX, { $shape }, TWO, CONJ, DSA>(
                        s, cfg, m32, n32, ka.re, ka.im, &ka.view, &xr, ox, ix, &yr, oy, iy, &mut ar, lda32,
                    )?
                }))))
            };
        }
        match up.shape {
            shape::FULL => go!(shape::FULL),
            shape::UPPER => go!(shape::UPPER),
            shape::LOWER => go!(shape::LOWER),
            shape::PACKED_UPPER => go!(shape::PACKED_UPPER),
            _ => go!(shape::PACKED_LOWER),
        }
        Ok(())
    }
}
