//! The pointer-array batched routines on the CPU device (`gemv_batched`, `gemm_batched`): one
//! launch decodes every entry's addresses and computes them with the single-matrix routines,
//! spreading small entries over rayon's threads (large ones thread inside each product).

use std::collections::HashMap;

use rayon::prelude::*;

use super::level2::gemv_one;
use super::level3::gemm_one;
use super::{Args, NativeFn, SendPtr};
use crate::types::{DataType, Scalar, C32, C64};

type R<T = ()> = std::result::Result<T, String>;

/// Entries with fewer multiply-adds than this run one per rayon task.
const SMALL: usize = 1 << 16;

/// `count` addresses, pushed one buffer at a time.
fn ptrs<T>(a: &mut Args<'_>, count: usize) -> R<Vec<SendPtr<T>>> {
    (0..count).map(|_| a.ptr::<T>().map(SendPtr)).collect()
}

fn gemv_batched<T: Scalar>(a: &mut Args<'_>) -> R {
    let op = a.value::<u32>()?;
    let (m, n) = (a.usize()?, a.usize()?);
    let alpha: T = a.scalar()?;
    let beta: T = a.scalar()?;
    let (lda, incx, incy) = (a.usize()?, a.isize()?, a.isize()?);
    let count = a.usize()?;
    let (pa, px, py) = (ptrs::<T>(a, count)?, ptrs::<T>(a, count)?, ptrs::<T>(a, count)?);
    let one = |b: usize| {
        let (pa, px, py) = (pa[b], px[b], py[b]);
        // SAFETY: the caller checked every entry's A, x and y lie in their views, and that no
        // two entries' y overlap (nor any y an A or x: y views are borrowed exclusively).
        unsafe { gemv_one(op, m, n, alpha, pa.0, lda, px.0, incx, beta, py.0, incy) }
    };
    if m * n < SMALL {
        (0..count).into_par_iter().for_each(one);
    } else {
        (0..count).for_each(one);
    }
    Ok(())
}

fn gemm_batched<T: Scalar>(a: &mut Args<'_>) -> R {
    let (ta, tb) = (a.value::<u32>()?, a.value::<u32>()?);
    let (m, n, k) = (a.usize()?, a.usize()?, a.usize()?);
    let alpha: T = a.scalar()?;
    let beta: T = a.scalar()?;
    let (lda, ldb, ldc) = (a.usize()?, a.usize()?, a.usize()?);
    let count = a.usize()?;
    let (pa, pb, pc) = (ptrs::<T>(a, count)?, ptrs::<T>(a, count)?, ptrs::<T>(a, count)?);
    let small = m * n * k < SMALL;
    let one = |b: usize| {
        let (pa, pb, pc) = (pa[b], pb[b], pc[b]);
        // SAFETY: the caller checked every entry's matrices lie in their views and that no
        // two entries' C overlap (nor any C an A or B: C views are borrowed exclusively).
        unsafe { gemm_one((ta, tb), (m, n, k), alpha, (pa.0, lda), (pb.0, ldb), beta, (pc.0, ldc), !small) }
    };
    if small {
        (0..count).into_par_iter().for_each(one);
    } else {
        (0..count).for_each(one);
    }
    Ok(())
}

pub(crate) fn register(m: &mut HashMap<(&'static str, DataType), NativeFn>) {
    m.insert(("gemv_batched", DataType::F32), gemv_batched::<f32>);
    m.insert(("gemv_batched", DataType::F64), gemv_batched::<f64>);
    m.insert(("gemv_batched", DataType::C32), gemv_batched::<C32>);
    m.insert(("gemv_batched", DataType::C64), gemv_batched::<C64>);
    m.insert(("gemm_batched", DataType::F32), gemm_batched::<f32>);
    m.insert(("gemm_batched", DataType::F64), gemm_batched::<f64>);
    m.insert(("gemm_batched", DataType::C32), gemm_batched::<C32>);
    m.insert(("gemm_batched", DataType::C64), gemm_batched::<C64>);
}
