//! Level 2 structured products and triangular routines: `symv`/`hemv`, `gbmv`,
//! `sbmv`/`hbmv`, `spmv`/`hpmv`, `trmv`/`tbmv`/`tpmv`, `trsv`/`tbsv`/`tpsv`.
//!
//! Storage follows reference BLAS. Full: column-major, `A(i, j)` at `i + j lda`, only the
//! triangle [`Fill`] names is read. Band (`gbmv` with `kl` sub- and `ku` super-diagonals;
//! `sbmv`, `hbmv`, `tbmv`, `tbsv` with `k`): column `j` of `A` is column `j` of the band
//! array, `A(i, j)` at `ku + i - j + j lda` (`ku = k` for an upper triangle, `0` for a
//! lower one), so `lda >= kl + ku + 1` (`k + 1`); a band as wide as the matrix or wider
//! (`k >= n`) is allowed and means every element of the triangle is stored. Packed
//! (`spmv`, `hpmv`, `tpmv`, `tpsv`): the triangle's columns one after another,
//! `n (n + 1) / 2` elements, `A(i, j)` at `i + j (j + 1) / 2` (upper) or
//! `i + j (2 n - j - 1) / 2` (lower).
//!
//! Hermitian routines take the imaginary part of the diagonal as zero without reading it.
//! Triangular routines with [`Diagonal::Unit`] read no diagonal. As in reference BLAS, the
//! solves make no singularity check (a zero diagonal gives Inf or NaN).

use ferrocm_kernel::runtime::{AsDeviceSlice, AsDeviceSliceMut, KernelArgs, LaunchConfig};

use crate::check::size32;
use crate::error::{BlasError, Result};
use crate::handle::Handle;
use crate::kernels::l2mv as k;
use crate::kernels::{self, walk};
use crate::level2::bools;
use crate::native::{self, push_buf, push_scalar};
use crate::types::{Diagonal, Fill, Operation, Scalar, ScalarArg, C32, C64};

mod sealed {
    pub trait Sealed {}
}

/// The complex BLAS types, [`C32`] and [`C64`]: the element types of the Hermitian routines
/// (`hemv`, `hbmv`, `hpmv`), which rocBLAS has only as `c` and `z`. Sealed.
pub trait ComplexScalar: Scalar + sealed::Sealed {}
impl sealed::Sealed for C32 {}
impl ComplexScalar for C32 {}
impl sealed::Sealed for C64 {}
impl ComplexScalar for C64 {}

/// The matrix one call reads, as the kernels and the native engine take it: `flags` (the
/// kernels' `UPPER`, `UNIT`, `TRANS`, `CONJ`, shape and storage bits), the stored matrix's
/// `rows x cols` (a packed matrix's order is `rows`) and its stored sub-/super-diagonals
/// `kl`/`ku` (the triangle's bound for full and packed triangles).
#[derive(Clone, Copy, Debug)]
struct Layout {
    flags: u32,
    rows: usize,
    cols: usize,
    kl: usize,
    ku: usize,
}

impl Layout {
    fn new(shape: u32, store: u32, fill: Fill, rows: usize, cols: usize, kl: usize, ku: usize) -> Layout {
        let upper = if fill == Fill::Upper { k::UPPER } else { 0 };
        Layout { flags: (shape << k::SHAPE_SHIFT) | (store << k::STORE_SHIFT) | upper, rows, cols, kl, ku }
    }

    /// A symmetric or Hermitian `n x n` matrix (band half-width `b`; `n` for a full or packed one).
    fn symmetric(shape: u32, store: u32, fill: Fill, n: usize, b: usize) -> Layout {
        let (kl, ku) = if fill == Fill::Upper { (0, b) } else { (b, 0) };
        Layout::new(shape, store, fill, n, n, kl, ku)
    }

    /// A triangular `n x n` matrix (band width `b`; `n` for a full or packed one) read as
    /// `op(A)`, with its diagonal.
    fn triangular(store: u32, fill: Fill, op: Operation, diag: Diagonal, n: usize, b: usize) -> Layout {
        let mut l = Layout::symmetric(k::TRIANGULAR, store, fill, n, b).op(op);
        if diag == Diagonal::Unit {
            l.flags |= k::UNIT;
        }
        l
    }

    fn op(mut self, op: Operation) -> Layout {
        match op {
            Operation::N => {}
            Operation::T => self.flags |= k::TRANS,
            Operation::C => self.flags |= k::TRANS | k::CONJ,
        }
        self
    }

    fn trans(&self) -> bool {
        self.flags & k::TRANS != 0
    }

    /// `M = op(A)`'s rows and columns.
    fn m_dims(&self) -> (usize, usize) {
        if self.trans() {
            (self.cols, self.rows)
        } else {
            (self.rows, self.cols)
        }
    }

    /// `M`'s sub- and super-diagonals (`lo`, `up`), clamped to its shape.
    fn m_band(&self) -> (usize, usize) {
        let shape = (self.flags >> k::SHAPE_SHIFT) & 3;
        let (lo, up) = match shape {
            k::SYMMETRIC | k::HERMITIAN => (self.kl.max(self.ku), self.kl.max(self.ku)),
            _ if self.trans() => (self.ku, self.kl),
            _ => (self.kl, self.ku),
        };
        let (mr, mc) = self.m_dims();
        (lo.min(mr), up.min(mc))
    }

    /// `M` is lower triangular (a triangular solve runs forward).
    fn lower(&self) -> bool {
        self.m_band().1 == 0
    }
}

impl Handle {
    /// `y = alpha A x + beta y` (`?symv`) for a symmetric `n x n` matrix `A` of which the
    /// `fill` triangle is stored in column-major `a` (`lda >= max(1, n)`); `x`, `y` have `n`
    /// elements. `beta = 0` sets `y` without reading it; `alpha = 0` reads neither `A` nor
    /// `x`. Each element of `y` is within `gamma(n + 2) (|alpha| |A| |x| + |beta| |y|)` of
    /// the exact result (the tests' bound).
    #[allow(clippy::too_many_arguments)]
    pub fn symv<'a, T: Scalar>(
        &'a self,
        fill: Fill,
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
        self.check_matrix("a", "lda", a, n, n, lda)?;
        let l = Layout::symmetric(k::SYMMETRIC, k::FULL, fill, n, n);
        self.structured_mv(l, alpha.into(), a, lda, x, incx, beta.into(), y, incy)
    }

    /// `y = alpha A x + beta y` (`?hemv`) for a Hermitian `n x n` matrix `A` (the `fill`
    /// triangle stored, as [`Handle::symv`]); the imaginary parts of the diagonal are taken
    /// as zero and not read. Bound as [`Handle::symv`].
    #[allow(clippy::too_many_arguments)]
    pub fn hemv<'a, T: ComplexScalar>(
        &'a self,
        fill: Fill,
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
        self.check_matrix("a", "lda", a, n, n, lda)?;
        let l = Layout::symmetric(k::HERMITIAN, k::FULL, fill, n, n);
        self.structured_mv(l, alpha.into(), a, lda, x, incx, beta.into(), y, incy)
    }

    /// `y = alpha op(A) x + beta y` (`?gbmv`) for an `m x n` band matrix `A` with `kl`
    /// sub- and `ku` super-diagonals in BLAS band storage (`A(i, j)` at
    /// `ku + i - j + j lda`, `lda >= kl + ku + 1`); `x` has `n` elements and `y` `m` for
    /// `op = N`, the other way round for `T` and `C`. Bound: `gamma(kl + ku + 3)` as
    /// [`Handle::symv`].
    #[allow(clippy::too_many_arguments)]
    pub fn gbmv<'a, T: Scalar>(
        &'a self,
        op: Operation,
        m: usize,
        n: usize,
        kl: usize,
        ku: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        beta: impl Into<ScalarArg<'a, T>>,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
    ) -> Result<()> {
        let band = band_rows(kl, ku)?;
        self.check_matrix("a", "lda", a, band, n, lda)?;
        // (A general matrix has no fill: the flag is not read.)
        let l = Layout::new(k::GENERAL, k::BAND, Fill::Upper, m, n, kl, ku).op(op);
        self.structured_mv(l, alpha.into(), a, lda, x, incx, beta.into(), y, incy)
    }

    /// `y = alpha A x + beta y` (`?sbmv`) for a symmetric `n x n` band matrix with `k`
    /// diagonals on each side of the diagonal, the `fill` triangle in BLAS band storage
    /// (`lda >= k + 1`; `k >= n` stores the whole triangle). Bound: `gamma(2 k + 3)` as
    /// [`Handle::symv`].
    #[allow(clippy::too_many_arguments)]
    pub fn sbmv<'a, T: Scalar>(
        &'a self,
        fill: Fill,
        n: usize,
        k: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        beta: impl Into<ScalarArg<'a, T>>,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
    ) -> Result<()> {
        self.check_matrix("a", "lda", a, band_rows(k, 0)?, n, lda)?;
        let l = Layout::symmetric(k::SYMMETRIC, k::BAND, fill, n, k);
        self.structured_mv(l, alpha.into(), a, lda, x, incx, beta.into(), y, incy)
    }

    /// `y = alpha A x + beta y` (`?hbmv`) for a Hermitian band matrix (as [`Handle::sbmv`];
    /// the diagonal's imaginary parts are taken as zero and not read).
    #[allow(clippy::too_many_arguments)]
    pub fn hbmv<'a, T: ComplexScalar>(
        &'a self,
        fill: Fill,
        n: usize,
        k: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        beta: impl Into<ScalarArg<'a, T>>,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
    ) -> Result<()> {
        self.check_matrix("a", "lda", a, band_rows(k, 0)?, n, lda)?;
        let l = Layout::symmetric(k::HERMITIAN, k::BAND, fill, n, k);
        self.structured_mv(l, alpha.into(), a, lda, x, incx, beta.into(), y, incy)
    }

    /// `y = alpha A x + beta y` (`?spmv`) for a symmetric `n x n` matrix whose `fill`
    /// triangle is packed in `ap` (`n (n + 1) / 2` elements, BLAS's column order). Bound as
    /// [`Handle::symv`].
    #[allow(clippy::too_many_arguments)]
    pub fn spmv<'a, T: Scalar>(
        &'a self,
        fill: Fill,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        ap: &impl AsDeviceSlice<T>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        beta: impl Into<ScalarArg<'a, T>>,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
    ) -> Result<()> {
        self.check_packed(ap, n)?;
        let l = Layout::symmetric(k::SYMMETRIC, k::PACKED, fill, n, n);
        self.structured_mv(l, alpha.into(), ap, 1, x, incx, beta.into(), y, incy)
    }

    /// `y = alpha A x + beta y` (`?hpmv`) for a Hermitian matrix packed as in
    /// [`Handle::spmv`] (the diagonal's imaginary parts are taken as zero and not read).
    #[allow(clippy::too_many_arguments)]
    pub fn hpmv<'a, T: ComplexScalar>(
        &'a self,
        fill: Fill,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        ap: &impl AsDeviceSlice<T>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        beta: impl Into<ScalarArg<'a, T>>,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
    ) -> Result<()> {
        self.check_packed(ap, n)?;
        let l = Layout::symmetric(k::HERMITIAN, k::PACKED, fill, n, n);
        self.structured_mv(l, alpha.into(), ap, 1, x, incx, beta.into(), y, incy)
    }

    /// `x = op(A) x` (`?trmv`) for a triangular `n x n` matrix whose `fill` triangle is
    /// stored in column-major `a` (`lda >= max(1, n)`); [`Diagonal::Unit`] takes the
    /// diagonal as ones without reading it. Each element is within
    /// `gamma(n + 2) |op(A)| |x|` of the exact product. On kernels the product reads a copy
    /// of `x` in workspace (`n` elements; [`BlasError::WorkspaceTooSmall`] if the handle's
    /// limit is smaller).
    #[allow(clippy::too_many_arguments)]
    pub fn trmv<T: Scalar>(
        &self,
        fill: Fill,
        op: Operation,
        diag: Diagonal,
        n: usize,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        x: &mut impl AsDeviceSliceMut<T>,
        incx: isize,
    ) -> Result<()> {
        self.check_matrix("a", "lda", a, n, n, lda)?;
        let l = Layout::triangular(k::FULL, fill, op, diag, n, n);
        self.triangular(l, false, a, lda, x, incx)
    }

    /// `x = op(A) x` (`?tbmv`) for a triangular band matrix with `k` diagonals besides the
    /// diagonal, the `fill` triangle in BLAS band storage (`lda >= k + 1`; `k >= n` stores
    /// the whole triangle). Bound: `gamma(k + 3)` as [`Handle::trmv`].
    #[allow(clippy::too_many_arguments)]
    pub fn tbmv<T: Scalar>(
        &self,
        fill: Fill,
        op: Operation,
        diag: Diagonal,
        n: usize,
        k: usize,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        x: &mut impl AsDeviceSliceMut<T>,
        incx: isize,
    ) -> Result<()> {
        self.check_matrix("a", "lda", a, band_rows(k, 0)?, n, lda)?;
        let l = Layout::triangular(k::BAND, fill, op, diag, n, k);
        self.triangular(l, false, a, lda, x, incx)
    }

    /// `x = op(A) x` (`?tpmv`) for a triangular matrix packed in `ap` (`n (n + 1) / 2`
    /// elements, as [`Handle::spmv`]). Bound as [`Handle::trmv`].
    #[allow(clippy::too_many_arguments)]
    pub fn tpmv<T: Scalar>(
        &self,
        fill: Fill,
        op: Operation,
        diag: Diagonal,
        n: usize,
        ap: &impl AsDeviceSlice<T>,
        x: &mut impl AsDeviceSliceMut<T>,
        incx: isize,
    ) -> Result<()> {
        self.check_packed(ap, n)?;
        let l = Layout::triangular(k::PACKED, fill, op, diag, n, n);
        self.triangular(l, false, ap, 1, x, incx)
    }

    /// Solves `op(A) x = b` in place (`?trsv`: `x` holds `b` and receives the solution) for
    /// a triangular matrix stored as in [`Handle::trmv`]. Substitution is backward stable:
    /// the computed `x` solves `(op(A) + E) x = b` with `|E| <= gamma(n) |op(A)|`, so the
    /// forward error is at most about `cond(A) gamma(n) max|x|`. The tests use diagonally
    /// dominant triangles (diagonal magnitude at least `3 n` and off-diagonal parts at most 1,
    /// or off-diagonal parts at most `1 / (3 n)` under a unit diagonal: `cond <= 4`) and check
    /// `|x_i - x*_i| <= 8 gamma(n + 2) max_j |x*_j|` against the double-double solution `x*`.
    /// No singularity check: a zero diagonal gives Inf or NaN.
    #[allow(clippy::too_many_arguments)]
    pub fn trsv<T: Scalar>(
        &self,
        fill: Fill,
        op: Operation,
        diag: Diagonal,
        n: usize,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        x: &mut impl AsDeviceSliceMut<T>,
        incx: isize,
    ) -> Result<()> {
        self.check_matrix("a", "lda", a, n, n, lda)?;
        let l = Layout::triangular(k::FULL, fill, op, diag, n, n);
        self.triangular(l, true, a, lda, x, incx)
    }

    /// Solves `op(A) x = b` in place (`?tbsv`) for a triangular band matrix stored as in
    /// [`Handle::tbmv`]. Bound as [`Handle::trsv`].
    #[allow(clippy::too_many_arguments)]
    pub fn tbsv<T: Scalar>(
        &self,
        fill: Fill,
        op: Operation,
        diag: Diagonal,
        n: usize,
        k: usize,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        x: &mut impl AsDeviceSliceMut<T>,
        incx: isize,
    ) -> Result<()> {
        self.check_matrix("a", "lda", a, band_rows(k, 0)?, n, lda)?;
        let l = Layout::triangular(k::BAND, fill, op, diag, n, k);
        self.triangular(l, true, a, lda, x, incx)
    }

    /// Solves `op(A) x = b` in place (`?tpsv`) for a packed triangular matrix stored as in
    /// [`Handle::tpmv`]. Bound as [`Handle::trsv`].
    #[allow(clippy::too_many_arguments)]
    pub fn tpsv<T: Scalar>(
        &self,
        fill: Fill,
        op: Operation,
        diag: Diagonal,
        n: usize,
        ap: &impl AsDeviceSlice<T>,
        x: &mut impl AsDeviceSliceMut<T>,
        incx: isize,
    ) -> Result<()> {
        self.check_packed(ap, n)?;
        let l = Layout::triangular(k::PACKED, fill, op, diag, n, n);
        self.triangular(l, true, ap, 1, x, incx)
    }

    /// `ap` holds a packed triangle of order `n`.
    fn check_packed<T: Scalar>(&self, ap: &impl AsDeviceSlice<T>, n: usize) -> Result<()> {
        let required = n.checked_mul(n + 1).map(|v| v / 2).ok_or(BlasError::SizeTooLarge {
            arg: "n",
            value: n as u128,
            rule: "n (n + 1) / 2 must fit in usize",
        })?;
        self.check_len("ap", ap, "a packed triangle of n (n + 1) / 2 elements", required)
    }

    /// `y = alpha M x + beta y` for the matrix `l` describes (`a` checked by the caller).
    #[allow(clippy::too_many_arguments)]
    fn structured_mv<'a, T: Scalar>(
        &'a self,
        l: Layout,
        alpha: ScalarArg<'a, T>,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        beta: ScalarArg<'a, T>,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
    ) -> Result<()> {
        self.check_scalar("alpha", &alpha)?;
        self.check_scalar("beta", &beta)?;
        let (mr, mc) = l.m_dims();
        self.check_vector("x", "incx", x, mc, incx)?;
        self.check_vector("y", "incy", y, mr, incy)?;
        if mr == 0 || mc == 0 {
            // Reference BLAS returns at once, leaving y as it was.
            return Ok(());
        }
        if alpha.host().is_some_and(|v| v.is_zero()) && beta.host().is_some_and(|v| v.is_one()) {
            return Ok(());
        }
        let s = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(native::l2mv::MV);
            push_layout(&mut args, &l, lda);
            push_scalar(&mut args, &alpha);
            push_buf(&mut args, a);
            push_buf(&mut args, x);
            args.push(incx as i64);
            push_scalar(&mut args, &beta);
            push_buf(&mut args, y);
            args.push(incy as i64);
            return native::launch(s, "l2mv", T::TYPE, &args);
        }
        let d = KLayout::new(&l, lda)?;
        let (ka, kb) = (self.kscalar(&alpha)?, self.kscalar(&beta)?);
        let ar = a.as_device_slice().reinterpret::<T::Real>()?;
        let xr = x.as_device_slice().reinterpret::<T::Real>()?;
        let mut yr = y.as_device_slice_mut().reinterpret::<T::Real>()?;
        let ((ox, ix), (oy, iy)) = (walk(mc, incx), walk(mr, incy));
        let row_blocks = mr.div_ceil(k::TILE as usize);
        let flops = 2 * d.work * if T::COMPLEX { 4 } else { 1 };
        if let Some(reals) = self.one_pass::<T>(&l) {
            // Each stored tile read once, for its rows and its columns; partials summed in
            // a fixed order by the second launch.
            let mut part = self.workspace::<T::Real>(reals)?;
            let stored = (d.work + mr as u64) / 2;
            kernels::annotate(flops, (stored + (reals + mc + 2 * mr) as u64) * size_of::<T>() as u64);
            let cfg = LaunchConfig::new(row_blocks as u32, k::THREADS);
            bools!(T::COMPLEX => CX, bools!(ka.device => DSA, {
                k::symv_part::launch::<T::Real, CX, DSA>(
                    s, cfg, d.rows, d.flags, d.kl, d.ku, ka.re, ka.im, &ka.view, &ar, d.lda, &xr, ox, ix,
                    &mut part,
                )?;
            }));
            let cfg = kernels::cfg(kernels::grid(s, mr));
            bools!(T::COMPLEX => CX, bools!(ka.device => DSA, bools!(kb.device => DSB, {
                k::symv_finish::launch::<T::Real, CX, DSA, DSB>(
                    s, cfg, d.rows, d.flags, ka.re, ka.im, &ka.view, &part, kb.re, kb.im, &kb.view,
                    &mut yr, oy, iy,
                )?;
            })));
            return Ok(());
        }
        let cfg = LaunchConfig::new(row_blocks as u32, k::THREADS);
        kernels::annotate(flops, d.bytes::<T>(mr, mc));
        bools!(T::COMPLEX => CX, bools!(ka.device => DSA, bools!(kb.device => DSB, {
            k::smv::launch::<T::Real, CX, DSA, DSB>(
                s, cfg, d.rows, d.cols, d.lo, d.up, d.flags, d.n, d.kl, d.ku, ka.re, ka.im, &ka.view,
                &ar, d.lda, &xr, ox, ix, kb.re, kb.im, &kb.view, &mut yr, oy, iy,
            )?;
        })));
        Ok(())
    }

    /// The workspace (reals) of the one-pass symmetric/Hermitian product for `l` (full or
    /// packed storage), or `None` for another matrix or when the workspace limit leaves no
    /// room for its partials (a column block's sums for each row: `n / 32 x n`); the two-sweep
    /// `smv` runs then.
    fn one_pass<T: Scalar>(&self, l: &Layout) -> Option<usize> {
        let shape = (l.flags >> k::SHAPE_SHIFT) & 3;
        let store = (l.flags >> k::STORE_SHIFT) & 3;
        if !matches!(shape, k::SYMMETRIC | k::HERMITIAN) || store == k::BAND {
            return None;
        }
        let n = l.rows;
        let reals =
            n.div_ceil(k::TILE as usize).checked_mul(n)?.checked_mul(if T::COMPLEX { 2 } else { 1 })?;
        let bytes = (reals as u64).saturating_mul(size_of::<T::Real>() as u64);
        (reals <= u32::MAX as usize && self.workspace_limit().is_none_or(|w| bytes <= w)).then_some(reals)
    }

    /// `x = M x` (`solve`: `M x = b` in place) for the triangular matrix `l` describes.
    fn triangular<T: Scalar>(
        &self,
        l: Layout,
        solve: bool,
        a: &impl AsDeviceSlice<T>,
        lda: usize,
        x: &mut impl AsDeviceSliceMut<T>,
        incx: isize,
    ) -> Result<()> {
        let n = l.rows;
        self.check_vector("x", "incx", x, n, incx)?;
        if n == 0 {
            return Ok(());
        }
        let s = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(if solve { native::l2mv::TRSV } else { native::l2mv::TRMV });
            push_layout(&mut args, &l, lda);
            push_buf(&mut args, a);
            push_buf(&mut args, x);
            args.push(incx as i64);
            return native::launch(s, "l2mv", T::TYPE, &args);
        }
        let d = KLayout::new(&l, lda)?;
        let ar = a.as_device_slice().reinterpret::<T::Real>()?;
        let mut xr = x.as_device_slice_mut().reinterpret::<T::Real>()?;
        let (ox, ix) = walk(n, incx);
        let flops = 2 * d.work * if T::COMPLEX { 4 } else { 1 };
        if solve {
            let flags = d.flags | if l.lower() { k::FORWARD } else { 0 };
            kernels::annotate(flops, d.bytes::<T>(n, n));
            let cfg = LaunchConfig::new(1, k::SOLVE_THREADS);
            bools!(T::COMPLEX => CX, {
                k::tsv::launch::<T::Real, CX>(
                    s, cfg, d.rows, d.lo, d.up, flags, d.kl, d.ku, &ar, d.lda, &mut xr, ox, ix,
                )?;
            });
            return Ok(());
        }
        // The product reads x while it writes it: x goes to workspace first.
        let reals = if T::COMPLEX { 2 * n } else { n };
        let mut w = self.workspace::<T::Real>(reals)?;
        let cfg = kernels::cfg(kernels::grid(s, n));
        kernels::annotate(0, 2 * (n * size_of::<T>()) as u64);
        bools!(T::COMPLEX => CX, {
            kernels::level1::copy::launch::<T::Real, CX>(s, cfg, d.rows, &xr, ox, ix, &mut w, 0, 1)?;
        });
        let (one, zero) = (<T::Real as Scalar>::one(), <T::Real as Scalar>::zero());
        let dummy = self.dummy.as_device_slice().reinterpret::<T::Real>()?;
        let cfg = LaunchConfig::new(n.div_ceil(k::TILE as usize) as u32, k::THREADS);
        kernels::annotate(flops, d.bytes::<T>(n, n));
        bools!(T::COMPLEX => CX, {
            k::smv::launch::<T::Real, CX, false, false>(
                s, cfg, d.rows, d.cols, d.lo, d.up, d.flags, d.n, d.kl, d.ku, one, zero, &dummy, &ar,
                d.lda, &w, 0, 1, zero, zero, &dummy, &mut xr, ox, ix,
            )?;
        });
        Ok(())
    }
}

/// `kl + ku + 1`, the rows of a band array.
fn band_rows(kl: usize, ku: usize) -> Result<usize> {
    kl.checked_add(ku).and_then(|v| v.checked_add(1)).ok_or(BlasError::SizeTooLarge {
        arg: "kl + ku",
        value: kl as u128 + ku as u128,
        rule: "kl + ku + 1 must fit in usize",
    })
}

/// Pushes a layout for the native engine.
fn push_layout(args: &mut KernelArgs, l: &Layout, lda: usize) {
    args.push(l.flags).push(l.rows as u64).push(l.cols as u64).push(l.kl as u64).push(l.ku as u64);
    args.push(lda as u64);
}

/// A layout in the kernels' 32-bit terms.
struct KLayout {
    flags: u32,
    /// `M`'s rows and columns.
    rows: u32,
    cols: u32,
    /// `M`'s sub- and super-diagonals.
    lo: u32,
    up: u32,
    kl: u32,
    ku: u32,
    /// The packed order.
    n: u32,
    lda: u32,
    /// Multiply-adds (elements of `M` inside its band).
    work: u64,
}

impl KLayout {
    fn new(l: &Layout, lda: usize) -> Result<KLayout> {
        let (mr, mc) = l.m_dims();
        let (lo, up) = l.m_band();
        // The band array's rows are at most lda, which a view's 32-bit length bounds.
        let (kl, ku) = (l.kl.min(u32::MAX as usize), l.ku.min(u32::MAX as usize));
        let band = (lo + up + 1).min(mc) as u64;
        Ok(KLayout {
            flags: l.flags,
            rows: size32("m", mr)?,
            cols: size32("n", mc)?,
            lo: lo as u32,
            up: up as u32,
            kl: kl as u32,
            ku: ku as u32,
            n: l.rows as u32,
            lda: size32("lda", lda)?,
            work: mr as u64 * band,
        })
    }

    fn bytes<T: Scalar>(&self, ly: usize, lx: usize) -> u64 {
        (self.work + (lx + 2 * ly) as u64) * size_of::<T>() as u64
    }
}
