//! `gemm_ex` on the CPU device: f16/bf16 inputs through the `gemm` crate's f32 kernels on f32
//! copies of `op(A)` and `op(B)` (exact conversions), the sum rounded once to C's type; i8
//! inputs as i32 dot products (wrapping, as integer GEMMs on GPUs), columns spread over rayon.

use std::collections::HashMap;

use half::{bf16, f16};
use rayon::prelude::*;

use super::{Args, NativeFn, SendPtr};
use crate::types::DataType;

type R<T = ()> = std::result::Result<T, String>;

/// Products with at least this many multiply-adds use every rayon thread.
const PAR_MIN: usize = 1 << 18;

/// Float element types with exact conversions to and rounding from f32.
trait Float32: Copy + Send + Sync + 'static {
    fn to_f32(self) -> f32;
    fn from_f32(x: f32) -> Self;
}
impl Float32 for f16 {
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    fn from_f32(x: f32) -> f16 {
        f16::from_f32(x)
    }
}
impl Float32 for bf16 {
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
    fn from_f32(x: f32) -> bf16 {
        bf16::from_f32(x)
    }
}
impl Float32 for f32 {
    fn to_f32(self) -> f32 {
        self
    }
    fn from_f32(x: f32) -> f32 {
        x
    }
}

/// The arguments every `gemm_ex` native function takes, decoded.
struct Ex<I, S, O> {
    ta: bool,
    tb: bool,
    m: usize,
    n: usize,
    k: usize,
    alpha: S,
    a: *const I,
    lda: usize,
    sa: usize,
    b: *const I,
    ldb: usize,
    sb: usize,
    beta: S,
    c: *mut O,
    ldc: usize,
    sc: usize,
    batch: usize,
}

fn decode<I, S: ferrocm_kernel::runtime::DeviceRepr, O>(a: &mut Args<'_>) -> R<Ex<I, S, O>> {
    let (ta, tb) = (a.value::<u32>()? != 0, a.value::<u32>()? != 0);
    let (m, n, k) = (a.usize()?, a.usize()?, a.usize()?);
    let alpha = a.scalar()?;
    let (pa, lda, sa) = (a.ptr::<I>()?, a.usize()?, a.usize()?);
    let (pb, ldb, sb) = (a.ptr::<I>()?, a.usize()?, a.usize()?);
    let beta = a.scalar()?;
    let (c, ldc, sc) = (a.ptr::<O>()?, a.usize()?, a.usize()?);
    let batch = a.usize()?;
    Ok(Ex { ta, tb, m, n, k, alpha, a: pa, lda, sa, b: pb, ldb, sb, beta, c, ldc, sc, batch })
}

/// `op(X)` (`rows x cols`, stored transposed when `t`) copied column-major and packed with
/// each element converted by `f`.
///
/// # Safety
/// `x` spans the stored matrix with leading dimension `ld`.
unsafe fn pack<I: Copy, T>(
    x: *const I,
    ld: usize,
    t: bool,
    rows: usize,
    cols: usize,
    f: impl Fn(I) -> T,
) -> Vec<T> {
    let mut out = Vec::with_capacity(rows * cols);
    for j in 0..cols {
        for i in 0..rows {
            // SAFETY: (i, j) lies in the stored matrix (the caller's contract).
            out.push(f(unsafe { *x.add(if t { j + i * ld } else { i + j * ld }) }));
        }
    }
    out
}

fn gemm_ex_float<I: Float32, O: Float32>(args: &mut Args<'_>) -> R {
    let e = decode::<I, f32, O>(args)?;
    let (m, n, k) = (e.m, e.n, e.k);
    let par = if m * n * k >= PAR_MIN {
        gemm::Parallelism::Rayon(rayon::current_num_threads())
    } else {
        gemm::Parallelism::None
    };
    let read_c = e.beta != 0.0;
    for z in 0..e.batch {
        // SAFETY: the caller checked every batch's matrices lie within their views; the
        // matrices of C do not overlap one another nor A and B (C is borrowed exclusively).
        unsafe {
            let c = e.c.add(z * e.sc);
            // D in f32: beta C (or 0), then alpha op(A) op(B) added by the gemm crate.
            let mut d = vec![0f32; m * n];
            if read_c {
                for j in 0..n {
                    for i in 0..m {
                        d[i + j * m] = e.beta * (*c.add(i + j * e.ldc)).to_f32();
                    }
                }
            }
            if k > 0 && e.alpha != 0.0 {
                let a = pack(e.a.add(z * e.sa), e.lda, e.ta, m, k, I::to_f32);
                let b = pack(e.b.add(z * e.sb), e.ldb, e.tb, k, n, I::to_f32);
                // dst = 1 dst + alpha lhs rhs (dst read only when it holds beta C).
                gemm::gemm(
                    m,
                    n,
                    k,
                    d.as_mut_ptr(),
                    m as isize,
                    1,
                    read_c,
                    a.as_ptr(),
                    m as isize,
                    1,
                    b.as_ptr(),
                    k as isize,
                    1,
                    1.0f32,
                    e.alpha,
                    false,
                    false,
                    false,
                    par,
                );
            }
            for j in 0..n {
                for i in 0..m {
                    *c.add(i + j * e.ldc) = O::from_f32(d[i + j * m]);
                }
            }
        }
    }
    Ok(())
}

fn gemm_ex_i8(args: &mut Args<'_>) -> R {
    let e = decode::<i8, i32, i32>(args)?;
    let (m, n, k) = (e.m, e.n, e.k);
    let live = k > 0 && e.alpha != 0;
    for z in 0..e.batch {
        // SAFETY: as in `gemm_ex_float`; each column of C is written by one task only.
        unsafe {
            // op(A) row by row (rows contiguous along k), op(B) column by column.
            let (a, b) = if live {
                let at = pack(e.a.add(z * e.sa), e.lda, !e.ta, k, m, i32::from);
                (at, pack(e.b.add(z * e.sb), e.ldb, e.tb, k, n, i32::from))
            } else {
                (Vec::new(), Vec::new())
            };
            let c = SendPtr(e.c.add(z * e.sc));
            let (alpha, beta, ldc) = (e.alpha, e.beta, e.ldc);
            let column = |j: usize| {
                // The whole `SendPtr` (Send), not its raw field (closures capture fields).
                #[allow(clippy::redundant_locals)]
                let c = c;
                for i in 0..m {
                    let mut s = 0i32;
                    if live {
                        let (ar, bc) = (&a[i * k..(i + 1) * k], &b[j * k..(j + 1) * k]);
                        for (x, y) in ar.iter().zip(bc) {
                            s = s.wrapping_add(x.wrapping_mul(*y));
                        }
                    }
                    let p = c.0.add(i + j * ldc);
                    let mut v = alpha.wrapping_mul(s);
                    if beta != 0 {
                        v = v.wrapping_add(beta.wrapping_mul(*p));
                    }
                    *p = v;
                }
            };
            if m * n * k >= PAR_MIN {
                (0..n).into_par_iter().for_each(column);
            } else {
                (0..n).for_each(column);
            }
        }
    }
    Ok(())
}

pub(crate) fn register(m: &mut HashMap<(&'static str, DataType), NativeFn>) {
    m.insert(("gemm_ex_f16", DataType::F16), gemm_ex_float::<f16, f16>);
    m.insert(("gemm_ex_f16", DataType::BF16), gemm_ex_float::<f16, bf16>);
    m.insert(("gemm_ex_f16", DataType::F32), gemm_ex_float::<f16, f32>);
    m.insert(("gemm_ex_bf16", DataType::F16), gemm_ex_float::<bf16, f16>);
    m.insert(("gemm_ex_bf16", DataType::BF16), gemm_ex_float::<bf16, bf16>);
    m.insert(("gemm_ex_bf16", DataType::F32), gemm_ex_float::<bf16, f32>);
    m.insert(("gemm_ex_i8", DataType::I32), gemm_ex_i8);
}
