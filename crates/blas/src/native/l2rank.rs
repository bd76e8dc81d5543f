//! The rank updates on the CPU device (`ger`, `syr`/`her`, `syr2`/`her2`, `spr`/`hpr`,
//! `spr2`/`hpr2`): one pass over the stored columns, each column `A(:, j) += t1 op(y_j) +
//! t2 op(x_j)` with the row factors `t1 = alpha x`, `t2 = alpha' y` formed once; columns split
//! over rayon's threads when the matrix is large (columns are disjoint in full and packed
//! storage alike).

use std::collections::HashMap;

use rayon::prelude::*;

use super::{at, Args, NativeFn, SendPtr};
use crate::kernels::l2rank::shape;
use crate::types::{DataType, Scalar, C32, C64};

type R<T = ()> = std::result::Result<T, String>;

/// Updates touching at least this many elements are split over threads.
const PAR_MIN: usize = 1 << 16;

fn rank_update<T: Scalar>(a: &mut Args<'_>) -> R {
    let (sh, two, conj) = (a.value::<u32>()?, a.value::<u32>()? != 0, a.value::<u32>()? != 0);
    let (m, n) = (a.usize()?, a.usize()?);
    let alpha: T =
        if a.value::<u32>()? != 0 { T::from_real(a.scalar::<T::Real>()?) } else { a.scalar::<T>()? };
    let (px, incx) = (a.ptr::<T>()?, a.isize()?);
    let (py, incy) = (a.ptr::<T>()?, a.isize()?);
    let (pa, lda) = (a.ptr::<T>()?, a.usize()?);
    if alpha.is_zero() {
        return Ok(());
    }
    let herm = conj && sh != shape::FULL;
    let op = |v: T| if conj { v.conj() } else { v };
    // SAFETY (every access below): the caller checked x spans (m - 1) |incx| + 1 elements,
    // y (n - 1) |incy| + 1 (n = m on a triangle), and A the storage's span (lda (n - 1) + m,
    // or n (n + 1) / 2 packed); A does not alias x or y (it is borrowed exclusively).
    let xs: Vec<T> = (0..m).map(|i| unsafe { *px.add(at(i, m, incx)) }).collect();
    let ys: Vec<T> = (0..n).map(|j| unsafe { *py.add(at(j, n, incy)) }).collect();
    let alpha2 = if conj { alpha.conj() } else { alpha };
    let t1: Vec<T> = xs.iter().map(|&v| alpha * v).collect();
    let t2: Vec<T> = if two { ys.iter().map(|&v| alpha2 * v).collect() } else { Vec::new() };
    // Column j's stored rows and where its first stored row lies.
    let rows = |j: usize| match sh {
        shape::FULL => (0, m, j * lda),
        shape::UPPER => (0, j + 1, j * lda),
        shape::LOWER => (j, n, j * lda + j),
        shape::PACKED_UPPER => (0, j + 1, j * (j + 1) / 2),
        _ => (j, n, j * (2 * n - j + 1) / 2),
    };
    let pa = SendPtr(pa);
    let column = |j: usize| {
        let p = pa; // the whole SendPtr (a closure capturing only the field would not be Sync)
        let (r0, r1, start) = rows(j);
        let col = unsafe { std::slice::from_raw_parts_mut(p.0.add(start), r1 - r0) };
        let (yj, xj) = (op(ys[j]), if two { op(xs[j]) } else { T::zero() });
        for (k, v) in col.iter_mut().enumerate() {
            let i = r0 + k;
            let mut d = t1[i] * yj;
            if two {
                d += t2[i] * xj;
            }
            if herm && i == j {
                *v = T::from_real(v.parts().0 + d.parts().0);
            } else {
                *v += d;
            }
        }
    };
    let elems = if sh == shape::FULL { m * n } else { n * (n + 1) / 2 };
    if elems >= PAR_MIN {
        (0..n).into_par_iter().for_each(column);
    } else {
        (0..n).for_each(column);
    }
    Ok(())
}

pub(crate) fn register(m: &mut HashMap<(&'static str, DataType), NativeFn>) {
    m.insert(("rank_update", DataType::F32), rank_update::<f32>);
    m.insert(("rank_update", DataType::F64), rank_update::<f64>);
    m.insert(("rank_update", DataType::C32), rank_update::<C32>);
    m.insert(("rank_update", DataType::C64), rank_update::<C64>);
}
