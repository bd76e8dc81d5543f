//! Level 2 on the CPU device: `gemv` as column sweeps (`N`: `y += x[j] A[:, j]`, contiguous
//! in `A`) and dot products down columns (`T`, `C`), split over rayon's threads by column
//! blocks when the matrix is large.

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
    let col = |j: usize| {
        let p = pa; // the whole SendPtr (a closure capturing only the field would not be Sync)
        unsafe { std::slice::from_raw_parts(p.0.add(j * lda), m) }
    };
    let live = !alpha.is_zero();
    if op == 0 {
        // y = alpha A x + beta y, accumulated into a contiguous buffer.
        let mut acc = vec![T::zero(); m];
        if live {
            let sweep = |acc: &mut [T], j0: usize, j1: usize, r0: usize| {
                for (j, &xj) in xs.iter().enumerate().take(j1).skip(j0) {
                    let cj = &col(j)[r0..r0 + acc.len()];
                    for (s, &v) in acc.iter_mut().zip(cj) {
                        *s += v * xj;
                    }
                }
            };
            if m * n >= PAR_MIN && m >= 256 {
                acc.par_chunks_mut(m.div_ceil(rayon::current_num_threads()).max(64)).enumerate().for_each(
                    |(c, chunk)| {
                        let r0 = c * m.div_ceil(rayon::current_num_threads()).max(64);
                        sweep(chunk, 0, n, r0)
                    },
                );
            } else {
                sweep(&mut acc, 0, n, 0);
            }
        }
        for (i, s) in acc.into_iter().enumerate() {
            let yi = unsafe { &mut *py.add(at(i, m, incy)) };
            *yi = if beta.is_zero() { alpha * s } else { alpha * s + beta * *yi };
        }
    } else {
        let conj = op == 2;
        let dot = |j: usize| -> T {
            if !live {
                return T::zero();
            }
            let mut s = T::zero();
            for (&v, &xi) in col(j).iter().zip(&xs) {
                s += if conj { v.conj() } else { v } * xi;
            }
            s
        };
        let dots: Vec<T> = if m * n >= PAR_MIN {
            (0..n).into_par_iter().map(dot).collect()
        } else {
            (0..n).map(dot).collect()
        };
        let y = SendPtr(py);
        for (j, d) in dots.into_iter().enumerate() {
            let yj = unsafe { &mut *y.0.add(at(j, n, incy)) };
            *yj = if beta.is_zero() { alpha * d } else { alpha * d + beta * *yj };
        }
    }
}

pub(crate) fn register(m: &mut HashMap<(&'static str, DataType), NativeFn>) {
    m.insert(("gemv", DataType::F32), gemv::<f32>);
    m.insert(("gemv", DataType::F64), gemv::<f64>);
    m.insert(("gemv", DataType::C32), gemv::<C32>);
    m.insert(("gemv", DataType::C64), gemv::<C64>);
}
