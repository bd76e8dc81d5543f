//! Level 2 on the CPU device: `gemv` through the `gemm` crate's matrix-vector kernels, on
//! panels of columns of `A` (at most eight, fixed by the shape) spread over rayon's threads
//! when the matrix is large: `N` sums the panels' partial products in panel order, `T` and
//! `C` give each panel its own outputs.

use std::collections::HashMap;

use rayon::prelude::*;

use super::{at, Args, NativeFn, SendPtr};
use crate::types::{DataType, Scalar, C32, C64};

type R<T = ()> = std::result::Result<T, String>;

/// Matrices with at least this many elements are split over threads.
const PAR_MIN: usize = 1 << 18;

fn gemv<T: Scalar>(a: &mut Args<'_>) -> R {
    let op = a.value::<u32>()?;
    let (m, n) = (a.usize()?, a.usize()?);
    let alpha: T = a.scalar()?;
    let (pa, lda) = (a.ptr::<T>()?, a.usize()?);
    let (px, incx) = (a.ptr::<T>()?, a.isize()?);
    let beta: T = a.scalar()?;
    let (py, incy) = (a.ptr::<T>()?, a.isize()?);
    let (sa, sx, sy, batch) = (a.usize()?, a.usize()?, a.usize()?, a.usize()?);
    // SAFETY: the caller checked every batch's A, x and y lie in their views, and that the
    // batches' y share no element.
    let one = |b: usize| unsafe {
        gemv_one(op, m, n, alpha, pa.add(b * sa), lda, px.add(b * sx), incx, beta, py.add(b * sy), incy)
    };
    if batch > 1 && m * n < PAR_MIN {
        let (pa, px, py) = (SendPtr(pa), SendPtr(px), SendPtr(py));
        (0..batch).into_par_iter().for_each(|b| {
            // The whole SendPtrs (a closure capturing only their fields would not be Sync).
            let (pa, px, py) = (pa, px, py);
            // SAFETY: as above; the batches write disjoint elements of y.
            unsafe {
                gemv_one(
                    op,
                    m,
                    n,
                    alpha,
                    pa.0.add(b * sa),
                    lda,
                    px.0.add(b * sx),
                    incx,
                    beta,
                    py.0.add(b * sy),
                    incy,
                )
            }
        });
        return Ok(());
    }
    (0..batch).for_each(one);
    Ok(())
}

/// One gemv (`gemv`'s arguments, decoded).
///
/// # Safety
/// `pa` spans `lda (n - 1) + m` elements, `px` and `py` their vectors' spans; `py` aliases
/// neither.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemv_one<T: Scalar>(
    op: u32,
    m: usize,
    n: usize,
    alpha: T,
    pa: *mut T,
    lda: usize,
    px: *mut T,
    incx: isize,
    beta: T,
    py: *mut T,
    incy: isize,
) {
    let lx = if op == 0 { n } else { m };
    // SAFETY (every access below): the caller checked A spans lda * (n - 1) + m elements, x
    // (lx - 1) * |incx| + 1 and y (ly - 1) * |incy| + 1; y does not alias A or x (it is
    // borrowed exclusively).
    let xs: Vec<T> = (0..lx).map(|i| unsafe { *px.add(at(i, lx, incx)) }).collect();
    let pa = SendPtr(pa);
    let live = !alpha.is_zero() && m > 0 && n > 0;
    // Panels of columns of A, fixed by the shape (never by the thread count, so the order of
    // the sums is too), each one `gemm` crate gemv on one thread: every thread streams a
    // contiguous part of A.
    let np = if m * n < PAR_MIN { 1 } else { (n / 512).clamp(1, 8) };
    let w = n.div_ceil(np).max(1);
    // `panel(j0, j1, out)`: out = A[:, j0..j1] xs[j0..j1] (N), or out[j - j0] = op(A[:, j]) . xs
    // for j in j0..j1 (T, C). The crate computes dst = alpha' dst + beta' lhs rhs and
    // overwrites dst when it is not read.
    let panel = |j0: usize, j1: usize, out: &mut [T]| {
        let p = pa; // the whole SendPtr (a closure capturing only the field would not be Sync)
        let a0 = unsafe { p.0.add(j0 * lda) } as *const T;
        let (rows, depth, lhs_cs, lhs_rs, rhs) = if op == 0 {
            (m, j1 - j0, lda as isize, 1, xs[j0..].as_ptr())
        } else {
            (j1 - j0, m, 1, lda as isize, xs.as_ptr())
        };
        // SAFETY: A[:, j0..j1] lies in A's span, `rhs` holds `depth` values, `out` `rows`.
        unsafe {
            gemm::gemm(
                rows,
                1,
                depth,
                out.as_mut_ptr(),
                rows as isize,
                1,
                false,
                a0,
                lhs_cs,
                lhs_rs,
                rhs,
                1,
                1,
                T::zero(),
                T::one(),
                false,
                op == 2,
                false,
                gemm::Parallelism::None,
            )
        }
    };
    let results: Vec<T> = if !live {
        vec![T::zero(); if op == 0 { m } else { n }]
    } else if op == 0 {
        // y = alpha A x + beta y: one partial vector per panel, summed in panel order.
        let mut parts = vec![T::zero(); m * np];
        let run = |(k, part): (usize, &mut [T])| {
            let (j0, j1) = (k * w, ((k + 1) * w).min(n));
            if j0 < j1 {
                panel(j0, j1, part)
            }
        };
        if np == 1 {
            parts.chunks_mut(m).enumerate().for_each(run);
        } else {
            parts.par_chunks_mut(m).enumerate().for_each(run);
        }
        let mut acc = parts[..m].to_vec();
        for part in parts[m..].chunks(m) {
            for (s, &v) in acc.iter_mut().zip(part) {
                *s += v;
            }
        }
        acc
    } else {
        // y_j = op(A[:, j]) . x: panels of outputs.
        let mut dots = vec![T::zero(); n];
        let run = |(k, d): (usize, &mut [T])| panel(k * w, k * w + d.len(), d);
        if np == 1 {
            dots.chunks_mut(w).enumerate().for_each(run);
        } else {
            dots.par_chunks_mut(w).enumerate().for_each(run);
        }
        dots
    };
    let ly = results.len();
    for (i, r) in results.into_iter().enumerate() {
        let yi = unsafe { &mut *py.add(at(i, ly, incy)) };
        *yi = if beta.is_zero() { alpha * r } else { alpha * r + beta * *yi };
    }
}

pub(crate) fn register(m: &mut HashMap<(&'static str, DataType), NativeFn>) {
    m.insert(("gemv", DataType::F32), gemv::<f32>);
    m.insert(("gemv", DataType::F64), gemv::<f64>);
    m.insert(("gemv", DataType::C32), gemv::<C32>);
    m.insert(("gemv", DataType::C64), gemv::<C64>);
}
