//! Level 3 on the CPU device: GEMM through the `gemm` crate (sarah-ek's packed SIMD kernels,
//! the engine under faer), threaded with rayon for large products.

use std::collections::HashMap;

use super::{Args, NativeFn};
use crate::types::{DataType, Scalar, C32, C64};

type R<T = ()> = std::result::Result<T, String>;

/// Products with at least this many multiply-adds use every rayon thread.
const PAR_MIN: usize = 1 << 18;

fn gemm<T: Scalar>(a: &mut Args<'_>) -> R {
    let (ta, tb) = (a.value::<u32>()?, a.value::<u32>()?);
    let (m, n, k) = (a.usize()?, a.usize()?, a.usize()?);
    let alpha: T = a.scalar()?;
    let (pa, lda, sa) = (a.ptr::<T>()?, a.usize()?, a.usize()?);
    let (pb, ldb, sb) = (a.ptr::<T>()?, a.usize()?, a.usize()?);
    let beta: T = a.scalar()?;
    let (pc, ldc, sc) = (a.ptr::<T>()?, a.usize()?, a.usize()?);
    let batch = a.usize()?;
    for i in 0..batch {
        // SAFETY: the caller checked every batch's matrices lie within their views; the
        // matrices of C do not overlap one another nor A and B (C is borrowed exclusively).
        unsafe {
            gemm_one(
                (ta, tb),
                (m, n, k),
                alpha,
                (pa.add(i * sa), lda),
                (pb.add(i * sb), ldb),
                beta,
                (pc.add(i * sc), ldc),
                m * n * k >= PAR_MIN,
            )
        };
    }
    Ok(())
}

/// One GEMM `C = alpha op(A) op(B) + beta C` (`ta`, `tb`: 0 `N`, 1 `T`, 2 `C`), on every
/// rayon thread when `par`.
///
/// # Safety
/// `A`, `B` and `C` span their column-major matrices (`ld (cols - 1) + rows` elements); `C`
/// overlaps neither `A` nor `B`, and no other thread touches it meanwhile.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm_one<T: Scalar>(
    (ta, tb): (u32, u32),
    (m, n, k): (usize, usize, usize),
    alpha: T,
    (pa, lda): (*mut T, usize),
    (pb, ldb): (*mut T, usize),
    beta: T,
    (c, ldc): (*mut T, usize),
    par: bool,
) {
    let par =
        if par { gemm::Parallelism::Rayon(rayon::current_num_threads()) } else { gemm::Parallelism::None };
    let (a_rs, a_cs) = if ta == 0 { (1, lda as isize) } else { (lda as isize, 1) };
    let (b_rs, b_cs) = if tb == 0 { (1, ldb as isize) } else { (ldb as isize, 1) };
    // SAFETY: see the function's contract.
    unsafe {
        if k == 0 || alpha.is_zero() {
            // C = beta C, without reading A or B (beta = 0 clears NaNs).
            for j in 0..n {
                let col = std::slice::from_raw_parts_mut(c.add(j * ldc), m);
                for v in col {
                    *v = if beta.is_zero() { T::zero() } else { beta * *v };
                }
            }
            return;
        }
        // The crate computes dst = alpha' dst + beta' lhs rhs, and overwrites dst when
        // it is not read (so beta = 0 never reads C, as BLAS requires).
        gemm::gemm(
            m,
            n,
            k,
            c,
            ldc as isize,
            1,
            !beta.is_zero(),
            pa as *const T,
            a_cs,
            a_rs,
            pb as *const T,
            b_cs,
            b_rs,
            beta,
            alpha,
            false,
            ta == 2,
            tb == 2,
            par,
        );
    }
}

pub(crate) fn register(m: &mut HashMap<(&'static str, DataType), NativeFn>) {
    m.insert(("gemm", DataType::F32), gemm::<f32>);
    m.insert(("gemm", DataType::F64), gemm::<f64>);
    m.insert(("gemm", DataType::C32), gemm::<C32>);
    m.insert(("gemm", DataType::C64), gemm::<C64>);
}
