//! Pointer-array batched routines (hipBLAS's `?gemvBatched`, `?gemmBatched`): each batch
//! entry is its own view, anywhere on the handle's device.
//!
//! The entries come as slices of views: `&[A]` for the inputs and `&mut [C]` for the outputs,
//! where `A` is any view type (`DeviceBuffer`, `DeviceSlice`) and `C` any writable one
//! (`DeviceBuffer`, `DeviceSliceMut`), so a batch can be separate buffers or disjoint pieces
//! of one buffer (`split_at_mut`). Inputs may repeat (the same view in several entries);
//! outputs must not overlap one another, which is checked (overlapping outputs would make the
//! result depend on the order entries run in). Every entry is checked as the single routine
//! checks it, before anything is queued.
//!
//! On the CPU device with `Engine::Auto` one native launch computes every entry (small entries
//! spread over rayon's threads). With kernels (GPUs, `Engine::Kernels`), a batch whose
//! entries are a strided batch after all (each operand's entries in one allocation, ascending,
//! a constant number of elements apart: a batch cut out of one buffer, the usual way to build
//! a pointer array) runs as the strided-batched routine: one launch (per 65,535 entries for
//! GEMM), whatever the order of the entries in the arrays. Any other layout is a launch of the
//! single routine per entry: the kernel language has no load of a device address from memory,
//! so the device-side table of addresses rocBLAS reads is not available to these kernels yet
//! (see NOTES.md).

use ferrocm_kernel::runtime::{
    AsDeviceSlice, AsDeviceSliceMut, DeviceRepr, DeviceSlice, DeviceSliceMut, KernelArgs,
};

use crate::check::{matrix_span, size32, vector_span};
use crate::error::{BlasError, Result};
use crate::handle::Handle;
use crate::kernels::MAX_GRID_YZ;
use crate::native::{self, push_buf, push_scalar};
use crate::types::{Operation, Scalar, ScalarArg};

/// The batch's entry count: every slice has `count` entries.
fn entries(counts: [(&'static str, usize); 3]) -> Result<usize> {
    let count = counts[0].1;
    for (arg, len) in counts {
        if len != count {
            return Err(BlasError::InvalidValue {
                arg,
                value: format!("{len} entries"),
                rule: "every operand of a batched call has one view per batch entry (as many as the first)",
            });
        }
    }
    Ok(count)
}

/// The outputs' touched ranges `(start address, bytes)` share no byte.
fn check_outputs_disjoint(arg: &'static str, mut ranges: Vec<(u64, u64, usize)>) -> Result<()> {
    ranges.retain(|r| r.1 > 0);
    ranges.sort_unstable();
    for w in ranges.windows(2) {
        let ((s0, len0, i0), (s1, _, i1)) = (w[0], w[1]);
        if s0 + len0 > s1 {
            return Err(BlasError::InvalidValue {
                arg,
                value: format!("entries {} and {} overlapping", i0.min(i1), i0.max(i1)),
                rule: "the outputs of a batched call must not overlap one another",
            });
        }
    }
    Ok(())
}

impl Handle {
    /// `y_i = alpha op(A_i) x_i + beta y_i` for every entry `i` (`?gemvBatched`): `a`, `x`
    /// and `y` hold one view per entry (the same count), each checked as [`Handle::gemv`]
    /// checks its operand with the shared `m`, `n`, `lda`, `incx` and `incy`. The `y` views'
    /// touched elements must not overlap. No entries (`a.len() == 0`) is a no-op.
    #[allow(clippy::too_many_arguments)]
    pub fn gemv_batched<'a, T: Scalar>(
        &'a self,
        op: Operation,
        m: usize,
        n: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &[impl AsDeviceSlice<T>],
        lda: usize,
        x: &[impl AsDeviceSlice<T>],
        incx: isize,
        beta: impl Into<ScalarArg<'a, T>>,
        y: &mut [impl AsDeviceSliceMut<T>],
        incy: isize,
    ) -> Result<()> {
        let (alpha, beta) = (alpha.into(), beta.into());
        self.check_scalar("alpha", &alpha)?;
        self.check_scalar("beta", &beta)?;
        let count = entries([("a", a.len()), ("x", x.len()), ("y", y.len())])?;
        let (lx, ly) = if op == Operation::N { (n, m) } else { (m, n) };
        for i in 0..count {
            self.check_matrix("a", "lda", &a[i], m, n, lda)?;
            self.check_vector("x", "incx", &x[i], lx, incx)?;
            self.check_vector("y", "incy", &y[i], ly, incy)?;
        }
        let y_span = vector_span(ly, incy).unwrap_or(0);
        let bytes = (y_span * size_of::<T>()) as u64;
        check_outputs_disjoint(
            "y",
            y.iter().enumerate().map(|(i, v)| (v.device_ptr().0, bytes, i)).collect(),
        )?;
        if m == 0 || n == 0 || count == 0 {
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
            push_scalar(&mut args, &beta);
            args.push(lda as u64).push(incx as i64).push(incy as i64).push(count as u64);
            a.iter().for_each(|v| push_buf(&mut args, v));
            x.iter().for_each(|v| push_buf(&mut args, v));
            y.iter().for_each(|v| push_buf(&mut args, v));
            return native::launch(s, "gemv_batched", T::TYPE, &args);
        }
        let reals = if T::COMPLEX { 2 } else { 1 };
        if count > 1 {
            // SAFETY: the strided routine reads and writes, `i * step` into each view, only
            // entry `order[i]`, with the shape every entry was checked with above.
            let order = by_output(y);
            let (ar, xr) = unsafe { (strided_in(a, &order, reals), strided_in(x, &order, reals)) };
            if let (Some((av, sa)), Some((xv, sx)), Some((mut yv, sy))) =
                (ar, xr, unsafe { strided_out(y, &order, reals) })
            {
                return self.gemv_strided_batched(
                    op, m, n, alpha, &av, lda, sa, &xv, incx, sx, beta, &mut yv, incy, sy, count,
                );
            }
        }
        // Everything a launch could refuse is checked before the first one is queued.
        size32("a", matrix_span(m, n, lda).unwrap_or(usize::MAX).saturating_mul(reals))?;
        size32("x", vector_span(lx, incx).unwrap_or(usize::MAX).saturating_mul(reals))?;
        size32("y", y_span.saturating_mul(reals))?;
        let (m32, n32, lda32) = (size32("m", m)?, size32("n", n)?, size32("lda", lda)?);
        let (ka, kb) = (self.kscalar(&alpha)?, self.kscalar(&beta)?);
        for i in 0..count {
            let ar = a[i].as_device_slice().reinterpret::<T::Real>()?;
            let xr = x[i].as_device_slice().reinterpret::<T::Real>()?;
            let mut yr = y[i].as_device_slice_mut().reinterpret::<T::Real>()?;
            self.gemv_launch::<T>(
                op,
                m,
                n,
                m32,
                n32,
                &ka,
                &kb,
                &ar,
                lda32,
                &xr,
                incx,
                &mut yr,
                incy,
                (0, 0, 0),
                1,
            )?;
        }
        Ok(())
    }

    /// `C_i = alpha op(A_i) op(B_i) + beta C_i` for every entry `i` (`?gemmBatched`): `a`,
    /// `b` and `c` hold one view per entry (the same count), each checked as
    /// [`Handle::gemm`] checks its operand with the shared shape and leading dimensions. The
    /// `C` views' matrices must not overlap. `A` and `B` entries may repeat.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_batched<'a, T: Scalar>(
        &'a self,
        transa: Operation,
        transb: Operation,
        m: usize,
        n: usize,
        k: usize,
        alpha: impl Into<ScalarArg<'a, T>>,
        a: &[impl AsDeviceSlice<T>],
        lda: usize,
        b: &[impl AsDeviceSlice<T>],
        ldb: usize,
        beta: impl Into<ScalarArg<'a, T>>,
        c: &mut [impl AsDeviceSliceMut<T>],
        ldc: usize,
    ) -> Result<()> {
        let (alpha, beta) = (alpha.into(), beta.into());
        self.check_scalar("alpha", &alpha)?;
        self.check_scalar("beta", &beta)?;
        let count = entries([("a", a.len()), ("b", b.len()), ("c", c.len())])?;
        let (ra, ca) = if transa == Operation::N { (m, k) } else { (k, m) };
        let (rb, cb) = if transb == Operation::N { (k, n) } else { (n, k) };
        for i in 0..count {
            self.check_matrix("a", "lda", &a[i], ra, ca, lda)?;
            self.check_matrix("b", "ldb", &b[i], rb, cb, ldb)?;
            self.check_matrix("c", "ldc", &c[i], m, n, ldc)?;
        }
        // Leading dimensions obey their rules even with no entries.
        for (arg, ld, rows) in [("lda", lda, ra), ("ldb", ldb, rb), ("ldc", ldc, m)] {
            if ld < rows.max(1) {
                return Err(BlasError::LeadingDimension { arg, ld, rows });
            }
        }
        let c_span = matrix_span(m, n, ldc).unwrap_or(0);
        let bytes = (c_span * size_of::<T>()) as u64;
        check_outputs_disjoint(
            "c",
            c.iter().enumerate().map(|(i, v)| (v.device_ptr().0, bytes, i)).collect(),
        )?;
        if m == 0 || n == 0 || count == 0 {
            return Ok(());
        }
        let skip_ab = k == 0 || alpha.host().is_some_and(|v| v.is_zero());
        if skip_ab && beta.host().is_some_and(|v| v.is_one()) {
            return Ok(());
        }
        let s = self.stream();
        if !self.use_kernels() && self.gemm_family_forced().is_none() {
            let mut args = KernelArgs::new();
            args.push(transa.code()).push(transb.code());
            args.push(m as u64).push(n as u64).push(k as u64);
            push_scalar(&mut args, &alpha);
            push_scalar(&mut args, &beta);
            args.push(lda as u64).push(ldb as u64).push(ldc as u64).push(count as u64);
            a.iter().for_each(|v| push_buf(&mut args, v));
            b.iter().for_each(|v| push_buf(&mut args, v));
            c.iter().for_each(|v| push_buf(&mut args, v));
            return native::launch(s, "gemm_batched", T::TYPE, &args);
        }
        // A strided batch after all (see `strided_in`), with C's matrices whole columns apart:
        // strided launches, one per MAX_GRID_YZ entries; the strided routine checks its one
        // plan before queuing, and the 32-bit spans were checked for the whole batch, so no
        // chunk fails after an earlier one was queued.
        let reals = if T::COMPLEX { 2 } else { 1 };
        if count > 1 {
            let order = by_output(c);
            // SAFETY: the strided routine reads and writes, `i * step` into each view, only entry
            // `order[i]`, with the shape every entry was checked with.
            let (ar, br, cr) = unsafe {
                (strided_in(a, &order, reals), strided_in(b, &order, reals), strided_out(c, &order, reals))
            };
            if let (Some((av, sa)), Some((bv, sb)), Some((mut cv, sc))) = (ar, br, cr) {
                if sc >= ldc.saturating_mul(n) {
                    let max = MAX_GRID_YZ as usize;
                    for start in (0..count).step_by(max) {
                        let nb = (count - start).min(max);
                        let (az, bz) = (av.slice(start * sa..)?, bv.slice(start * sb..)?);
                        let (_, mut cz) = cv.as_device_slice_mut().split_at_mut(start * sc)?;
                        self.gemm_strided_batched(
                            transa, transb, m, n, k, alpha, &az, lda, sa, &bz, ldb, sb, beta, &mut cz, ldc,
                            sc, nb,
                        )?;
                    }
                    return Ok(());
                }
            }
        }
        // Everything an entry's GEMM could refuse is checked before the first is queued.
        let quad = |x: usize| x % 4 == 0;
        for i in 0..count {
            let (pa, pb) = (a[i].device_ptr().0, b[i].device_ptr().0);
            let aligned16 = pa % 16 == 0 && pb % 16 == 0 && quad(lda) && quad(ldb);
            let family = self.gemm_plan(T::TYPE, m, n, k, aligned16);
            if let Some(rule) = self.gemm_family_rule(family, T::TYPE, aligned16) {
                return Err(BlasError::Unsupported {
                    what: format!(
                        "a {} GEMM on GemmFamily::{family:?} with this handle (entry {i}): {rule}",
                        T::TYPE.name()
                    ),
                });
            }
            for (arg, span) in
                [("a", matrix_span(ra, ca, lda)), ("b", matrix_span(rb, cb, ldb)), ("c", Some(c_span))]
            {
                size32(arg, span.unwrap_or(usize::MAX).saturating_mul(reals))?;
            }
        }
        for i in 0..count {
            let (al, be) = (alpha, beta);
            self.gemm(transa, transb, m, n, k, al, &a[i], lda, &b[i], ldb, be, &mut c[i], ldc)?;
        }
        Ok(())
    }
}

/// The entries of a pointer-array batch in the order of their outputs' addresses (the entries
/// are independent and their outputs disjoint, so any order computes the same batch).
pub(crate) fn by_output<T: DeviceRepr>(outputs: &[impl AsDeviceSlice<T>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..outputs.len()).collect();
    order.sort_by_key(|&i| outputs[i].device_ptr().0);
    order
}

/// A pointer-array operand that is a strided batch after all, its entries taken in `order`:
/// they lie in one allocation, ascending, a constant number of elements apart (a batch cut out
/// of one buffer, as callers of cuBLAS's and rocBLAS's batched routines usually build their
/// pointer arrays), and the whole batch, in reals (`reals` per element), can be indexed with
/// 32 bits. Returns the view from the first entry to the end of the last, and the step; `None`
/// for any other layout.
///
/// # Safety
/// The view also names the memory between the entries, which other views may borrow: the
/// caller reads through it only the elements of entry `order[i]`, at `i * step` from its start.
pub(crate) unsafe fn strided_in<'v, T: DeviceRepr>(
    views: &'v [impl AsDeviceSlice<T>],
    order: &[usize],
    reals: usize,
) -> Option<(DeviceSlice<'v, T>, usize)> {
    // SAFETY: passed on to the caller.
    let hull = unsafe { DeviceSlice::hull(views) }?;
    let (first, step) = progression(views, order, hull.device_ptr().0)?;
    let entries = hull.slice(first..).ok()?;
    fits_32_bits(entries.len(), reals).then_some((entries, step))
}

/// [`strided_in`] for an output operand.
///
/// # Safety
/// As for [`strided_in`]: the caller reads and writes only the elements of entry `order[i]`,
/// at `i * step` from the view's start.
pub(crate) unsafe fn strided_out<'v, T: DeviceRepr>(
    views: &'v mut [impl AsDeviceSliceMut<T>],
    order: &[usize],
    reals: usize,
) -> Option<(DeviceSliceMut<'v, T>, usize)> {
    let base = views.iter().map(|v| v.device_ptr().0).min()?;
    let (first, step) = progression(views, order, base)?;
    // SAFETY: passed on to the caller.
    let hull = unsafe { DeviceSliceMut::hull(views) }?;
    let (_, entries) = hull.split_at_mut(first).ok()?;
    fits_32_bits(entries.len(), reals).then_some((entries, step))
}

fn fits_32_bits(len: usize, reals: usize) -> bool {
    len.checked_mul(reals).is_some_and(|r| r <= u32::MAX as usize)
}

/// `(first, step)` in elements of `T` when entry `order[i]` of `views` starts
/// `first + i step` elements after `base`, with `step >= 0`.
fn progression<T: DeviceRepr>(
    views: &[impl AsDeviceSlice<T>],
    order: &[usize],
    base: u64,
) -> Option<(usize, usize)> {
    let size = size_of::<T>() as u64;
    let ptr = |i: usize| views[order[i]].device_ptr().0;
    let first = views[*order.first()?].device_ptr().0;
    let step = if order.len() > 1 { ptr(1).checked_sub(first)? } else { 0 };
    for i in 1..order.len() {
        if ptr(i).checked_sub(ptr(i - 1))? != step {
            return None;
        }
    }
    Some((((first.checked_sub(base)?) / size) as usize, (step / size) as usize))
}
