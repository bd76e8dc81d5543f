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
    m.insert(("fp8_decode", DataType::F32), fp8_decode);
    m.insert(("matmul_epilogue", DataType::F16), matmul_epilogue::<f16>);
    m.insert(("matmul_epilogue", DataType::BF16), matmul_epilogue::<bf16>);
    m.insert(("matmul_epilogue", DataType::F32), matmul_epilogue::<f32>);
}

/// 8-bit floats (`e5`: e5m2, else e4m3) decoded exactly to f32.
fn fp8_decode(args: &mut Args<'_>) -> R {
    let (n, e5) = (args.usize()?, args.value::<u32>()? != 0);
    let (x, y) = (args.ptr::<u8>()?, args.ptr::<f32>()?);
    for i in 0..n {
        // SAFETY: both views hold n elements (the caller sized the workspace from x).
        unsafe {
            let b = *x.add(i);
            *y.add(i) = if e5 {
                crate::matmul::E5M2::from_bits(b).to_f32()
            } else {
                crate::matmul::E4M3::from_bits(b).to_f32()
            };
        }
    }
    Ok(())
}

/// The matmul epilogue (see `kernels::gemm_ex::matmul_epilogue`) on the CPU device.
fn matmul_epilogue<O: Float32>(args: &mut Args<'_>) -> R {
    let (m, n, batch) = (args.usize()?, args.usize()?, args.usize()?);
    let p = args.ptr::<f32>()?;
    let beta = args.value::<f32>()?;
    let (d, ldd, sd) = (args.ptr::<O>()?, args.usize()?, args.usize()?);
    let (bias_ty, act) = (args.value::<u32>()?, args.value::<u32>()?);
    let (has_bias, has_aux) = (args.value::<u32>()? != 0, args.value::<u32>()? != 0);
    let bias = args.ptr::<u8>()?;
    let (aux, lda, sa) = (args.ptr::<O>()?, args.usize()?, args.usize()?);
    use crate::kernels::gemm_ex::{gelu, ACT_GELU, ACT_RELU};
    for z in 0..batch {
        for j in 0..n {
            for i in 0..m {
                // SAFETY: the caller checked D, aux (when used), the bias (m elements, when
                // used) and sized p as m n batch.
                unsafe {
                    let id = z * sd + i + j * ldd;
                    let mut x = *p.add(z * m * n + i + j * m);
                    if beta != 0.0 {
                        x += beta * (*d.add(id)).to_f32();
                    }
                    if has_bias {
                        x += match bias_ty {
                            0 => (*(bias as *const f16).add(i)).to_f32(),
                            1 => (*(bias as *const bf16).add(i)).to_f32(),
                            _ => *(bias as *const f32).add(i),
                        };
                    }
                    if has_aux {
                        *aux.add(z * sa + i + j * lda) = O::from_f32(x);
                    }
                    if act == ACT_RELU {
                        x = x.max(0.0);
                    } else if act == ACT_GELU {
                        x = gelu(x);
                    }
                    *d.add(id) = O::from_f32(x);
                }
            }
        }
    }
    Ok(())
}
