//! Level 1: vector operations (`s`, `d`, `c`, `z`).
//!
//! Increments follow reference BLAS: a negative increment walks the vector from its far end
//! (element `i` at `(n - 1 - i) * |inc|`) for `axpy`, `copy`, `swap`, `dot`, `rot` and `rotm`;
//! `scal`, `nrm2`, `asum` and `iamax`/`iamin` do nothing (or return 0) for `inc <= 0`. A zero
//! increment is an error everywhere.

use ferrocm_kernel::runtime::{AsDeviceSlice, AsDeviceSliceMut, DeviceSlice, KernelArgs};

use crate::error::Result;
use crate::handle::Handle;
use crate::kernels::{self, grid, walk, KReal};
use crate::native::{self, push_buf, push_scalar};
use crate::types::{RealScalar, Scalar, ScalarArg};

/// Reductions: which one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reduce {
    Dot { conj: bool },
    Nrm2,
    Asum,
    Iamax { max: bool },
}

impl Handle {
    /// `y = alpha * x + y` (`?axpy`). Returns at once for `alpha = 0` (NaNs in `x` are not
    /// propagated), as reference BLAS.
    pub fn axpy<'a, T: Scalar>(
        &'a self,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
    ) -> Result<()> {
        let alpha = alpha.into();
        self.check_scalar("alpha", &alpha)?;
        self.check_vector("x", "incx", x, n, incx)?;
        self.check_vector("y", "incy", y, n, incy)?;
        if n == 0 || alpha.host().is_some_and(|a| a.is_zero()) {
            return Ok(());
        }
        let s = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(n as u64);
            push_scalar(&mut args, &alpha);
            push_buf(&mut args, x);
            args.push(incx as i64);
            push_buf(&mut args, y);
            args.push(incy as i64);
            return native::launch(s, "axpy", T::TYPE, &args);
        }
        let a = self.kscalar(&alpha)?;
        let xr = x.as_device_slice().reinterpret::<T::Real>()?;
        let mut yr = y.as_device_slice_mut().reinterpret::<T::Real>()?;
        let ((ox, ix), (oy, iy)) = (walk(n, incx), walk(n, incy));
        let aligned = xr.device_ptr().0 % 16 == 0 && yr.device_ptr().0 % 16 == 0;
        let vw = if T::COMPLEX || incx != 1 || incy != 1 || !aligned {
            1
        } else {
            16 / size_of::<T::Real>() as u32
        };
        let n32 = n as u32;
        kernels::annotate(2 * n as u64 * if T::COMPLEX { 4 } else { 1 }, 3 * (n * size_of::<T>()) as u64);
        let cfg = kernels::cfg(grid(s, n.div_ceil(vw as usize)));
        macro_rules! go {
            ($cx:literal, $ds:literal, $vw:literal) => {
                kernels::level1::axpy::launch::<T::Real, $cx, $ds, $vw>(
                    s, cfg, n32, a.re, a.im, &a.view, &xr, ox, ix, &mut yr, oy, iy,
                )?
            };
        }
        match (T::COMPLEX, a.device, vw) {
            (false, false, 4) => go!(false, false, 4),
            (false, false, 2) => go!(false, false, 2),
            (false, true, 4) => go!(false, true, 4),
            (false, true, 2) => go!(false, true, 2),
            (false, false, _) => go!(false, false, 1),
            (false, true, _) => go!(false, true, 1),
            (true, false, _) => go!(true, false, 1),
            (true, true, _) => go!(true, true, 1),
        }
        Ok(())
    }

    /// `x = alpha * x` (`?scal`); nothing for `incx <= 0`.
    pub fn scal<'a, T: Scalar>(
        &'a self,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        x: &mut impl AsDeviceSliceMut<T>,
        incx: isize,
    ) -> Result<()> {
        let alpha = alpha.into();
        self.scal_impl::<T, T>(n, alpha, x, incx, false)
    }

    /// `x = alpha * x` with a real `alpha` on a complex vector (`csscal`, `zdscal`).
    pub fn scal_real<'a, T: Scalar>(
        &'a self,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T::Real>>,
        x: &mut impl AsDeviceSliceMut<T>,
        incx: isize,
    ) -> Result<()> {
        let alpha = alpha.into();
        if !T::COMPLEX {
            return self.scal_impl::<T, T>(n, real_as::<T>(alpha), x, incx, false);
        }
        self.scal_impl::<T, T::Real>(n, alpha, x, incx, true)
    }

    fn scal_impl<'a, T: Scalar, S: Scalar<Real = T::Real>>(
        &'a self,
        n: usize,
        alpha: ScalarArg<'a, S>,
        x: &mut impl AsDeviceSliceMut<T>,
        incx: isize,
        real_alpha: bool,
    ) -> Result<()> {
        self.check_scalar("alpha", &alpha)?;
        self.check_vector("x", "incx", x, n, incx)?;
        if n == 0 || incx <= 0 {
            return Ok(());
        }
        let s = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(n as u64);
            push_scalar(&mut args, &alpha);
            push_buf(&mut args, x);
            args.push(incx as i64);
            return native::launch(s, if real_alpha { "scal_real" } else { "scal" }, T::TYPE, &args);
        }
        let a = self.kscalar(&alpha)?;
        let mut xr = x.as_device_slice_mut().reinterpret::<T::Real>()?;
        let cfg = kernels::cfg(grid(s, n));
        let (n32, inc) = (n as u32, incx as i32);
        kernels::annotate(n as u64 * if T::COMPLEX { 6 } else { 1 }, 2 * (n * size_of::<T>()) as u64);
        macro_rules! go {
            ($cx:literal, $ds:literal, $ra:literal) => {
                kernels::level1::scal::launch::<T::Real, $cx, $ds, $ra>(
                    s, cfg, n32, a.re, a.im, &a.view, &mut xr, inc,
                )?
            };
        }
        match (T::COMPLEX, a.device, real_alpha) {
            (false, false, _) => go!(false, false, false),
            (false, true, _) => go!(false, true, false),
            (true, false, false) => go!(true, false, false),
            (true, true, false) => go!(true, true, false),
            (true, false, true) => go!(true, false, true),
            (true, true, true) => go!(true, true, true),
        }
        Ok(())
    }

    /// `y = x` (`?copy`).
    pub fn copy<T: Scalar>(
        &self,
        n: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
    ) -> Result<()> {
        self.check_vector("x", "incx", x, n, incx)?;
        self.check_vector("y", "incy", y, n, incy)?;
        if n == 0 {
            return Ok(());
        }
        let s = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(n as u64);
            push_buf(&mut args, x);
            args.push(incx as i64);
            push_buf(&mut args, y);
            args.push(incy as i64);
            return native::launch(s, "copy", T::TYPE, &args);
        }
        let xr = x.as_device_slice().reinterpret::<T::Real>()?;
        let mut yr = y.as_device_slice_mut().reinterpret::<T::Real>()?;
        let ((ox, ix), (oy, iy)) = (walk(n, incx), walk(n, incy));
        let cfg = kernels::cfg(grid(s, n));
        kernels::annotate(0, 2 * (n * size_of::<T>()) as u64);
        if T::COMPLEX {
            kernels::level1::copy::launch::<T::Real, true>(s, cfg, n as u32, &xr, ox, ix, &mut yr, oy, iy)?;
        } else {
            kernels::level1::copy::launch::<T::Real, false>(s, cfg, n as u32, &xr, ox, ix, &mut yr, oy, iy)?;
        }
        Ok(())
    }

    /// Exchanges `x` and `y` (`?swap`).
    pub fn swap<T: Scalar>(
        &self,
        n: usize,
        x: &mut impl AsDeviceSliceMut<T>,
        incx: isize,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
    ) -> Result<()> {
        self.check_vector("x", "incx", x, n, incx)?;
        self.check_vector("y", "incy", y, n, incy)?;
        if n == 0 {
            return Ok(());
        }
        let s = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(n as u64);
            push_buf(&mut args, x);
            args.push(incx as i64);
            push_buf(&mut args, y);
            args.push(incy as i64);
            return native::launch(s, "swap", T::TYPE, &args);
        }
        let mut xr = x.as_device_slice_mut().reinterpret::<T::Real>()?;
        let mut yr = y.as_device_slice_mut().reinterpret::<T::Real>()?;
        let ((ox, ix), (oy, iy)) = (walk(n, incx), walk(n, incy));
        let cfg = kernels::cfg(grid(s, n));
        kernels::annotate(0, 4 * (n * size_of::<T>()) as u64);
        if T::COMPLEX {
            kernels::level1::swap::launch::<T::Real, true>(
                s, cfg, n as u32, &mut xr, ox, ix, &mut yr, oy, iy,
            )?;
        } else {
            kernels::level1::swap::launch::<T::Real, false>(
                s, cfg, n as u32, &mut xr, ox, ix, &mut yr, oy, iy,
            )?;
        }
        Ok(())
    }

    /// `x . y = sum x_i y_i` (`?dot`, `?dotu`), returned to the host (synchronizes the stream).
    pub fn dot<T: Scalar>(
        &self,
        n: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &impl AsDeviceSlice<T>,
        incy: isize,
    ) -> Result<T> {
        self.host_result(|h, r| h.dot_device(n, x, incx, y, incy, r))
    }

    /// `sum conj(x_i) y_i` (`?dotc`; the same as [`Handle::dot`] for real types), returned
    /// to the host.
    pub fn dotc<T: Scalar>(
        &self,
        n: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &impl AsDeviceSlice<T>,
        incy: isize,
    ) -> Result<T> {
        self.host_result(|h, r| h.dotc_device(n, x, incx, y, incy, r))
    }

    /// [`Handle::dot`] into `result[0]` on the device, without synchronizing.
    pub fn dot_device<T: Scalar>(
        &self,
        n: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &impl AsDeviceSlice<T>,
        incy: isize,
        result: &mut impl AsDeviceSliceMut<T>,
    ) -> Result<()> {
        self.reduce(Reduce::Dot { conj: false }, n, x, incx, Some((y, incy)), result)
    }

    /// [`Handle::dotc`] into `result[0]` on the device, without synchronizing.
    pub fn dotc_device<T: Scalar>(
        &self,
        n: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: &impl AsDeviceSlice<T>,
        incy: isize,
        result: &mut impl AsDeviceSliceMut<T>,
    ) -> Result<()> {
        self.reduce(Reduce::Dot { conj: T::COMPLEX }, n, x, incx, Some((y, incy)), result)
    }

    /// The Euclidean norm `sqrt(sum |x_i|^2)` (`?nrm2`, `sc`/`dz` for complex), computed
    /// without overflow or underflow for finite inputs; 0 for `incx <= 0`.
    pub fn nrm2<T: Scalar>(&self, n: usize, x: &impl AsDeviceSlice<T>, incx: isize) -> Result<T::Real> {
        self.host_result(|h, r| h.nrm2_device(n, x, incx, r))
    }

    /// [`Handle::nrm2`] into `result[0]` on the device.
    pub fn nrm2_device<T: Scalar>(
        &self,
        n: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        result: &mut impl AsDeviceSliceMut<T::Real>,
    ) -> Result<()> {
        self.reduce::<T, _, _>(Reduce::Nrm2, n, x, incx, None::<(&DeviceSlice<'_, T>, isize)>, result)
    }

    /// `sum |re(x_i)| + |im(x_i)|` (`?asum`); 0 for `incx <= 0`.
    pub fn asum<T: Scalar>(&self, n: usize, x: &impl AsDeviceSlice<T>, incx: isize) -> Result<T::Real> {
        self.host_result(|h, r| h.asum_device(n, x, incx, r))
    }

    /// [`Handle::asum`] into `result[0]` on the device.
    pub fn asum_device<T: Scalar>(
        &self,
        n: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        result: &mut impl AsDeviceSliceMut<T::Real>,
    ) -> Result<()> {
        self.reduce::<T, _, _>(Reduce::Asum, n, x, incx, None::<(&DeviceSlice<'_, T>, isize)>, result)
    }

    /// The 1-based index of the first element of largest `|re| + |im|` (`i?amax`); 0 for
    /// `n = 0` or `incx <= 0`. NaNs are skipped unless the first element is NaN (then 1), as
    /// reference BLAS.
    pub fn iamax<T: Scalar>(&self, n: usize, x: &impl AsDeviceSlice<T>, incx: isize) -> Result<usize> {
        self.host_result(|h, r| h.iamax_device(n, x, incx, r)).map(|i: i32| i as usize)
    }

    /// The 1-based index of the first element of smallest `|re| + |im|` (`i?amin`), as
    /// [`Handle::iamax`].
    pub fn iamin<T: Scalar>(&self, n: usize, x: &impl AsDeviceSlice<T>, incx: isize) -> Result<usize> {
        self.host_result(|h, r| h.iamin_device(n, x, incx, r)).map(|i: i32| i as usize)
    }

    /// [`Handle::iamax`] into `result[0]` on the device.
    pub fn iamax_device<T: Scalar>(
        &self,
        n: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        result: &mut impl AsDeviceSliceMut<i32>,
    ) -> Result<()> {
        self.reduce::<T, _, _>(
            Reduce::Iamax { max: true },
            n,
            x,
            incx,
            None::<(&DeviceSlice<'_, T>, isize)>,
            result,
        )
    }

    /// [`Handle::iamin`] into `result[0]` on the device.
    pub fn iamin_device<T: Scalar>(
        &self,
        n: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        result: &mut impl AsDeviceSliceMut<i32>,
    ) -> Result<()> {
        self.reduce::<T, _, _>(
            Reduce::Iamax { max: false },
            n,
            x,
            incx,
            None::<(&DeviceSlice<'_, T>, isize)>,
            result,
        )
    }

    /// Runs `f` into a one-element device result and copies it back.
    fn host_result<U: ferrocm_kernel::runtime::DeviceRepr + Default>(
        &self,
        f: impl FnOnce(&Self, &mut ferrocm_kernel::runtime::DeviceBuffer<U>) -> Result<()>,
    ) -> Result<U> {
        let mut r = self.stream().alloc_zeroed::<U>(1)?;
        f(self, &mut r)?;
        Ok(self.stream().clone_dtoh(&r)?[0])
    }

    fn reduce<T: Scalar, U: ferrocm_kernel::runtime::DeviceRepr, Y: AsDeviceSlice<T>>(
        &self,
        op: Reduce,
        n: usize,
        x: &impl AsDeviceSlice<T>,
        incx: isize,
        y: Option<(&Y, isize)>,
        result: &mut impl AsDeviceSliceMut<U>,
    ) -> Result<()> {
        self.check_vector("x", "incx", x, n, incx)?;
        if let Some((y, incy)) = y {
            self.check_vector("y", "incy", y, n, incy)?;
        }
        self.check_len("result", result, "the result", 1)?;
        let s = self.stream();
        // Reference BLAS: nrm2, asum, iamax and iamin see nothing for incx <= 0.
        let n = if matches!(op, Reduce::Dot { .. }) || incx > 0 { n } else { 0 };
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(n as u64);
            push_buf(&mut args, x);
            args.push(incx as i64);
            if let Some((y, incy)) = y {
                push_buf(&mut args, y);
                args.push(incy as i64);
            }
            push_buf(&mut args, result);
            let name = match op {
                Reduce::Dot { conj: false } => "dot",
                Reduce::Dot { conj: true } => "dotc",
                Reduce::Nrm2 => "nrm2",
                Reduce::Asum => "asum",
                Reduce::Iamax { max: true } => "iamax",
                Reduce::Iamax { max: false } => "iamin",
            };
            return native::launch(s, name, T::TYPE, &args);
        }
        kernels::level1_reduce::<T, U, Y>(self, op_code(op), n, x, incx, y, result)
    }
}

fn op_code(op: Reduce) -> kernels::ReduceOp {
    match op {
        Reduce::Dot { conj } => kernels::ReduceOp::Dot { conj },
        Reduce::Nrm2 => kernels::ReduceOp::Nrm2,
        Reduce::Asum => kernels::ReduceOp::Asum,
        Reduce::Iamax { max } => kernels::ReduceOp::Iamax { max },
    }
}

/// A real scalar as the real type itself (for `scal_real` on real vectors).
fn real_as<T: Scalar>(a: ScalarArg<'_, T::Real>) -> ScalarArg<'_, T> {
    match a {
        ScalarArg::Host(v) => ScalarArg::Host(T::from_real(v)),
        // Real T: T::Real is T, so the view has the same element type.
        ScalarArg::Device(d) => ScalarArg::Device(
            d.reinterpret::<T>().expect("a real type reinterpreted as itself keeps size and alignment"),
        ),
    }
}

/// Rotations: `rot`, `rotm`, and the host-side `rotg`/`rotmg`.
impl Handle {
    /// Applies the plane rotation `x' = c x + s y`, `y' = c y - conj(s) x` (`?rot`; for
    /// complex types `s` is complex, as `crot`/`zrot`).
    #[allow(clippy::too_many_arguments)]
    pub fn rot<'a, T: Scalar>(
        &'a self,
        n: usize,
        x: &mut impl AsDeviceSliceMut<T>,
        incx: isize,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
        c: impl Into<ScalarArg<'a, T::Real>>,
        s: impl Into<ScalarArg<'a, T>>,
    ) -> Result<()> {
        let (c, sn) = (c.into(), s.into());
        self.check_scalar("c", &c)?;
        self.check_scalar("s", &sn)?;
        self.check_vector("x", "incx", x, n, incx)?;
        self.check_vector("y", "incy", y, n, incy)?;
        if n == 0 {
            return Ok(());
        }
        let st = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(n as u64);
            push_buf(&mut args, x);
            args.push(incx as i64);
            push_buf(&mut args, y);
            args.push(incy as i64);
            push_scalar(&mut args, &c);
            push_scalar(&mut args, &sn);
            return native::launch(st, "rot", T::TYPE, &args);
        }
        let kc = self.kscalar(&c)?;
        let ks = self.kscalar(&sn)?;
        let mut xr = x.as_device_slice_mut().reinterpret::<T::Real>()?;
        let mut yr = y.as_device_slice_mut().reinterpret::<T::Real>()?;
        let ((ox, ix), (oy, iy)) = (walk(n, incx), walk(n, incy));
        let cfg = kernels::cfg(grid(st, n));
        kernels::annotate(6 * n as u64 * if T::COMPLEX { 2 } else { 1 }, 4 * (n * size_of::<T>()) as u64);
        macro_rules! go {
            ($cx:literal, $dc:literal, $dsn:literal) => {
                kernels::level1::rot::launch::<T::Real, $cx, $dc, $dsn, false>(
                    st, cfg, n as u32, &mut xr, ox, ix, &mut yr, oy, iy, kc.re, &kc.view, ks.re, ks.im,
                    &ks.view,
                )?
            };
        }
        match (T::COMPLEX, kc.device, ks.device) {
            (false, false, false) => go!(false, false, false),
            (false, false, true) => go!(false, false, true),
            (false, true, false) => go!(false, true, false),
            (false, true, true) => go!(false, true, true),
            (true, false, false) => go!(true, false, false),
            (true, false, true) => go!(true, false, true),
            (true, true, false) => go!(true, true, false),
            (true, true, true) => go!(true, true, true),
        }
        Ok(())
    }

    /// Applies the modified Givens rotation `param = [flag, h11, h21, h12, h22]` (`?rotm`,
    /// real types), read from device memory when the routine runs.
    pub fn rotm<T: RealScalar + KReal>(
        &self,
        n: usize,
        x: &mut impl AsDeviceSliceMut<T>,
        incx: isize,
        y: &mut impl AsDeviceSliceMut<T>,
        incy: isize,
        param: &impl AsDeviceSlice<T>,
    ) -> Result<()> {
        self.check_vector("x", "incx", x, n, incx)?;
        self.check_vector("y", "incy", y, n, incy)?;
        self.check_len("param", param, "the rotation's flag and matrix", 5)?;
        if n == 0 {
            return Ok(());
        }
        let st = self.stream();
        if !self.use_kernels() {
            let mut args = KernelArgs::new();
            args.push(n as u64);
            push_buf(&mut args, x);
            args.push(incx as i64);
            push_buf(&mut args, y);
            args.push(incy as i64);
            push_buf(&mut args, param);
            return native::launch(st, "rotm", T::TYPE, &args);
        }
        let p = param.as_device_slice();
        let dummy = self.dummy.as_device_slice().reinterpret::<T>()?;
        let mut xr = x.as_device_slice_mut();
        let mut yr = y.as_device_slice_mut();
        let ((ox, ix), (oy, iy)) = (walk(n, incx), walk(n, incy));
        let cfg = kernels::cfg(grid(st, n));
        kernels::annotate(6 * n as u64, 4 * (n * size_of::<T>()) as u64);
        let zero = <T as crate::types::Scalar>::zero();
        kernels::level1::rot::launch::<T, false, false, true, true>(
            st, cfg, n as u32, &mut xr, ox, ix, &mut yr, oy, iy, zero, &dummy, zero, zero, &p,
        )?;
        Ok(())
    }
}

/// Constructs a Givens rotation (`?rotg`): given `a`, `b`, returns `(c, s)` with
/// `[c s; -conj(s) c] [a; b] = [r; 0]`, and overwrites `a` with `r` and (real types) `b` with
/// reference BLAS's `z` (from which `c` and `s` can be rebuilt). Computed on the host.
pub fn rotg<T: Scalar>(a: &mut T, b: &mut T) -> (T::Real, T) {
    if T::COMPLEX {
        let ca = a.parts();
        let cb = b.parts();
        let abs = |p: (T::Real, T::Real)| -> f64 { p.0.to_f64().hypot(p.1.to_f64()) };
        let (na, nb) = (abs(ca), abs(cb));
        if na == 0.0 {
            *a = *b;
            return (<T::Real as RealScalar>::from_f64(0.0), T::one());
        }
        let scale = na + nb;
        let norm = scale * ((na / scale).powi(2) + (nb / scale).powi(2)).sqrt();
        let (ar, ai) = (ca.0.to_f64() / na, ca.1.to_f64() / na);
        let c = na / norm;
        // s = alpha * conj(b) / norm.
        let (br, bi) = (cb.0.to_f64(), -cb.1.to_f64());
        let s = T::from_parts(
            <T::Real as RealScalar>::from_f64((ar * br - ai * bi) / norm),
            <T::Real as RealScalar>::from_f64((ar * bi + ai * br) / norm),
        );
        *a = T::from_parts(
            <T::Real as RealScalar>::from_f64(ar * norm),
            <T::Real as RealScalar>::from_f64(ai * norm),
        );
        return (<T::Real as RealScalar>::from_f64(c), s);
    }
    let (fa, fb) = (a.parts().0.to_f64(), b.parts().0.to_f64());
    let roe = if fa.abs() > fb.abs() { fa } else { fb };
    let scale = fa.abs() + fb.abs();
    let (c, s, r, z);
    if scale == 0.0 {
        (c, s, r, z) = (1.0, 0.0, 0.0, 0.0);
    } else {
        let rr = scale * ((fa / scale).powi(2) + (fb / scale).powi(2)).sqrt();
        r = rr.copysign(roe);
        c = fa / r;
        s = fb / r;
        z = if fa.abs() > fb.abs() {
            s
        } else if c != 0.0 {
            1.0 / c
        } else {
            1.0
        };
    }
    let f = <T::Real as RealScalar>::from_f64;
    *a = T::from_real(f(r));
    *b = T::from_real(f(z));
    (f(c), T::from_real(f(s)))
}

/// Constructs the modified Givens rotation (`?rotmg`, real types) that zeros the second
/// component of `(sqrt(d1) x1, sqrt(d2) y1)`; updates `d1`, `d2`, `x1` and returns
/// `param = [flag, h11, h21, h12, h22]` (reference BLAS's algorithm, in f64, on the host).
pub fn rotmg<T: RealScalar>(d1: &mut T, d2: &mut T, x1: &mut T, y1: T) -> [T; 5] {
    const GAM: f64 = 4096.0;
    const GAMSQ: f64 = GAM * GAM;
    const RGAMSQ: f64 = 1.0 / GAMSQ;
    let (mut dd1, mut dd2, mut dx1, dy1) = (d1.to_f64(), d2.to_f64(), x1.to_f64(), y1.to_f64());
    let (mut flag, mut h11, mut h12, mut h21, mut h22) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut zero_all = false;
    if dd1 < 0.0 {
        zero_all = true;
    } else {
        let dp2 = dd2 * dy1;
        if dp2 == 0.0 {
            let p = [-2.0, 0.0, 0.0, 0.0, 0.0].map(T::from_f64);
            return p;
        }
        let dp1 = dd1 * dx1;
        let dq2 = dp2 * dy1;
        let dq1 = dp1 * dx1;
        if dq1.abs() > dq2.abs() {
            h21 = -dy1 / dx1;
            h12 = dp2 / dp1;
            let du = 1.0 - h12 * h21;
            if du > 0.0 {
                flag = 0.0;
                dd1 /= du;
                dd2 /= du;
                dx1 *= du;
            } else {
                zero_all = true;
            }
        } else if dq2 < 0.0 {
            zero_all = true;
        } else {
            flag = 1.0;
            h11 = dp1 / dp2;
            h22 = dx1 / dy1;
            let du = 1.0 + h11 * h22;
            let temp = dd2 / du;
            dd2 = dd1 / du;
            dd1 = temp;
            dx1 = dy1 * du;
        }
        if !zero_all {
            if dd1 != 0.0 {
                while dd1 <= RGAMSQ || dd1 >= GAMSQ {
                    if flag == 0.0 {
                        h11 = 1.0;
                        h22 = 1.0;
                        flag = -1.0;
                    } else {
                        h21 = -1.0;
                        h12 = 1.0;
                        flag = -1.0;
                    }
                    if dd1 <= RGAMSQ {
                        dd1 *= GAM * GAM;
                        dx1 /= GAM;
                        h11 /= GAM;
                        h12 /= GAM;
                    } else {
                        dd1 /= GAM * GAM;
                        dx1 *= GAM;
                        h11 *= GAM;
                        h12 *= GAM;
                    }
                }
            }
            if dd2 != 0.0 {
                while dd2.abs() <= RGAMSQ || dd2.abs() >= GAMSQ {
                    if flag == 0.0 {
                        h11 = 1.0;
                        h22 = 1.0;
                        flag = -1.0;
                    } else {
                        h21 = -1.0;
                        h12 = 1.0;
                        flag = -1.0;
                    }
                    if dd2.abs() <= RGAMSQ {
                        dd2 *= GAM * GAM;
                        h21 /= GAM;
                        h22 /= GAM;
                    } else {
                        dd2 /= GAM * GAM;
                        h21 *= GAM;
                        h22 *= GAM;
                    }
                }
            }
        }
    }
    if zero_all {
        flag = -1.0;
        (h11, h12, h21, h22) = (0.0, 0.0, 0.0, 0.0);
        (dd1, dd2, dx1) = (0.0, 0.0, 0.0);
    }
    *d1 = T::from_f64(dd1);
    *d2 = T::from_f64(dd2);
    *x1 = T::from_f64(dx1);
    let p = if flag < 0.0 {
        [flag, h11, h21, h12, h22]
    } else if flag == 0.0 {
        [flag, 0.0, h21, h12, 0.0]
    } else {
        [flag, h11, 0.0, 0.0, h22]
    };
    p.map(T::from_f64)
}
