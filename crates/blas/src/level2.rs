//! Level 2: matrix-vector operations (`s`, `d`, `c`, `z`). Matrices are column-major with a
//! leading dimension; vectors strided as in Level 1 (negative increments walk from the far
//! end; zero is an error).

use ferrocm_kernel::runtime::{AsDeviceSlice, AsDeviceSliceMut, KernelArgs, LaunchConfig};

use crate::check::size32;
use crate::error::Result;
use crate::handle::Handle;
use crate::kernels::{self, walk};
use crate::native::{self, push_buf, push_scalar};
use crate::types::{Operation, Scalar, ScalarArg};

/// Picks a `bool` const generic from a runtime value: `bools!(v => V, body)`.
macro_rules! bools {
    ($v:expr => $name:ident, $body:expr) => {
        if $v {
            const $name: bool = true;
            $body
        } else {
            const $name: bool = false;
            $body
        }
    };
}
pub(crate) use bools;

impl Handle {
    /// `y = alpha op(A) x + beta y` (`?gemv`), `A` an `m x n` column-major matrix with
    /// leading dimension `lda >= max(1, m)`; `x` has `n` elements and `y` `m` for `op = N`,
    /// the other way round for `T` and `C`. `beta = 0` sets `y` without reading it (NaNs in
    /// `y` vanish); `alpha = 0` reads neither `A` nor `x`.
    #[allow(clippy::too_many_arguments)]
    pub fn gemv<'a, T: Scalar>(
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
        let (alpha, beta) = (alpha.into(), beta.into());
        self.check_scalar("alpha", &alpha)?;
        self.check_scalar("beta", &beta)?;
        self.check_matrix("a", "lda", a, m, n, lda)?;
        let (lx, ly) = if op == Operation::N { (n, m) } else { (m, n) };
        self.check_vector("x", "incx", x, lx, incx)?;
        self.check_vector("y", "incy", y, ly, incy)?;
        if m == 0 || n == 0 {
            // Reference BLAS returns at once, leaving y as it was.
            return Ok(());
        }
        if alpha.host().is_some_and(|v| v.is_zero()) && beta.host().is_some_and(|v| v.is_one()) {
            return Ok(());
        }
        let s = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(op.code()).push(m as u64).push(n as u64);
            push_scalar(&mut args, &alpha);
            push_buf(&mut args, a);
            args.push(lda as u64);
            push_buf(&mut args, x);
            args.push(incx as i64);
            push_scalar(&mut args, &beta);
            push_buf(&mut args, y);
            args.push(incy as i64);
            return native::launch(s, "gemv", T::TYPE, &args);
        }
        let (m32, n32, lda32) = (size32("m", m)?, size32("n", n)?, size32("lda", lda)?);
        let (ka, kb) = (self.kscalar(&alpha)?, self.kscalar(&beta)?);
        let ar = a.as_device_slice().reinterpret::<T::Real>()?;
        let xr = x.as_device_slice().reinterpret::<T::Real>()?;
        let mut yr = y.as_device_slice_mut().reinterpret::<T::Real>()?;
        let ((ox, ix), (oy, iy)) = (walk(lx, incx), walk(ly, incy));
        let flops = 2 * (m * n) as u64 * if T::COMPLEX { 4 } else { 1 };
        kernels::annotate(flops, ((m * n + lx + 2 * ly) * size_of::<T>()) as u64);
        bools!(T::COMPLEX => CX, bools!(ka.device => DSA, bools!(kb.device => DSB, {
            if op == Operation::N {
                let cfg = kernels::cfg(m.div_ceil(kernels::BLOCK as usize).max(1) as u32);
                kernels::level2::gemv_n::launch::<T::Real, CX, DSA, DSB>(
                    s, cfg, m32, n32, ka.re, ka.im, &ka.view, &ar, lda32, &xr, ox, ix, kb.re, kb.im,
                    &kb.view, &mut yr, oy, iy,
                )?;
            } else {
                let blocks = n.min(65_535 * 8) as u32;
                let cfg = LaunchConfig::new(blocks, kernels::BLOCK);
                bools!(op == Operation::C => CONJ, {
                    kernels::level2::gemv_t::launch::<T::Real, CX, CONJ, DSA, DSB>(
                        s, cfg, m32, n32, ka.re, ka.im, &ka.view, &ar, lda32, &xr, ox, ix, kb.re,
                        kb.im, &kb.view, &mut yr, oy, iy,
                    )?;
                });
            }
        })));
        Ok(())
    }
}
