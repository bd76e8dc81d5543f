//! Level 1 on the CPU device: loops over strided vectors, walked as reference BLAS walks
//! them (negative increments from the far end).

use std::collections::HashMap;

use rayon::prelude::*;

use super::{at, Args, NativeFn, SendPtr};
use crate::types::{DataType, RealScalar, Scalar, C32, C64};

/// Unit-stride vectors at least this long are split over the CPU's threads.
const PAR_MIN: usize = 1 << 16;

type R<T = ()> = std::result::Result<T, String>;

fn axpy<T: Scalar>(a: &mut Args<'_>) -> R {
    let n = a.usize()?;
    let alpha: T = a.scalar()?;
    let (x, incx, y, incy) = (a.ptr::<T>()?, a.isize()?, a.ptr::<T>()?, a.isize()?);
    if alpha.is_zero() {
        return Ok(());
    }
    if incx == 1 && incy == 1 {
        // SAFETY: the caller checked both views hold n elements; x and y may not overlap
        // (one is borrowed shared, the other exclusively).
        let (xs, ys) = unsafe { (std::slice::from_raw_parts(x, n), std::slice::from_raw_parts_mut(y, n)) };
        if n >= PAR_MIN {
            ys.par_chunks_mut(PAR_MIN).zip(xs.par_chunks(PAR_MIN)).for_each(|(yc, xc)| {
                for (yv, &xv) in yc.iter_mut().zip(xc) {
                    *yv += alpha * xv;
                }
            });
        } else {
            for (yv, &xv) in ys.iter_mut().zip(xs) {
                *yv += alpha * xv;
            }
        }
        return Ok(());
    }
    for i in 0..n {
        // SAFETY: `at` stays within (n - 1) * |inc| + 1 elements, which the caller checked.
        unsafe { *y.add(at(i, n, incy)) += alpha * *x.add(at(i, n, incx)) };
    }
    Ok(())
}

fn scal<T: Scalar + std::ops::Mul<S, Output = T>, S: Scalar>(a: &mut Args<'_>) -> R {
    let n = a.usize()?;
    let alpha: S = a.scalar()?;
    let (x, incx) = (a.ptr::<T>()?, a.isize()?);
    if incx <= 0 {
        return Ok(());
    }
    if incx == 1 {
        // SAFETY: the caller checked the view holds n elements.
        let xs = unsafe { std::slice::from_raw_parts_mut(x, n) };
        if n >= PAR_MIN {
            xs.par_chunks_mut(PAR_MIN).for_each(|c| c.iter_mut().for_each(|v| *v = *v * alpha));
        } else {
            xs.iter_mut().for_each(|v| *v = *v * alpha);
        }
        return Ok(());
    }
    for i in 0..n {
        // SAFETY: within the checked span.
        unsafe {
            let p = x.add(i * incx as usize);
            *p = *p * alpha;
        }
    }
    Ok(())
}

fn copy<T: Scalar>(a: &mut Args<'_>) -> R {
    let n = a.usize()?;
    let (x, incx, y, incy) = (a.ptr::<T>()?, a.isize()?, a.ptr::<T>()?, a.isize()?);
    if incx == 1 && incy == 1 {
        // SAFETY: both views hold n elements and do not overlap (shared and exclusive borrows).
        unsafe { std::ptr::copy_nonoverlapping(x, y, n) };
        return Ok(());
    }
    for i in 0..n {
        // SAFETY: within the checked spans.
        unsafe { *y.add(at(i, n, incy)) = *x.add(at(i, n, incx)) };
    }
    Ok(())
}

fn swap<T: Scalar>(a: &mut Args<'_>) -> R {
    let n = a.usize()?;
    let (x, incx, y, incy) = (a.ptr::<T>()?, a.isize()?, a.ptr::<T>()?, a.isize()?);
    for i in 0..n {
        // SAFETY: within the checked spans; x and y are distinct exclusive borrows.
        unsafe { std::ptr::swap(x.add(at(i, n, incx)), y.add(at(i, n, incy))) };
    }
    Ok(())
}

/// `sum op(x_i) y_i`, with `op` the conjugate when `CONJ`; written to `result`.
fn dot<T: Scalar, const CONJ: bool>(a: &mut Args<'_>) -> R {
    let n = a.usize()?;
    let (x, incx, y, incy, result) = (a.ptr::<T>()?, a.isize()?, a.ptr::<T>()?, a.isize()?, a.ptr::<T>()?);
    let (xp, yp) = (SendPtr(x), SendPtr(y));
    let range = move |lo: usize, hi: usize| {
        let (x, y) = (xp, yp);
        let mut s = T::zero();
        for i in lo..hi {
            // SAFETY: within the checked spans.
            let (xv, yv) = unsafe { (*x.0.add(at(i, n, incx)), *y.0.add(at(i, n, incy))) };
            s += if CONJ { xv.conj() * yv } else { xv * yv };
        }
        s
    };
    let sum = if n >= PAR_MIN {
        let parts: Vec<T> = (0..n.div_ceil(PAR_MIN))
            .into_par_iter()
            .map(|c| range(c * PAR_MIN, ((c + 1) * PAR_MIN).min(n)))
            .collect();
        parts.into_iter().fold(T::zero(), |s, v| s + v)
    } else {
        range(0, n)
    };
    // SAFETY: the result view holds one element.
    unsafe { result.write(sum) };
    Ok(())
}

/// The Euclidean norm with LAPACK's scaled sum of squares (no overflow or underflow for any
/// finite input; NaN and infinity propagate).
fn nrm2<T: Scalar>(a: &mut Args<'_>) -> R {
    let n = a.usize()?;
    let (x, incx, result) = (a.ptr::<T>()?, a.isize()?, a.ptr::<T::Real>()?);
    let mut scale = 0.0f64;
    let mut ssq = 1.0f64;
    let (mut nan, mut inf) = (false, false);
    if incx > 0 {
        for i in 0..n {
            // SAFETY: within the checked span.
            let (re, im) = unsafe { *x.add(i * incx as usize) }.parts();
            for v in [re.to_f64(), im.to_f64()] {
                let av = v.abs();
                if av.is_nan() {
                    nan = true;
                } else if av.is_infinite() {
                    inf = true;
                } else if av != 0.0 {
                    if scale < av {
                        ssq = 1.0 + ssq * (scale / av) * (scale / av);
                        scale = av;
                    } else {
                        ssq += (av / scale) * (av / scale);
                    }
                }
            }
        }
    }
    let norm = if nan {
        f64::NAN
    } else if inf {
        f64::INFINITY
    } else {
        scale * ssq.sqrt()
    };
    // SAFETY: the result view holds one element.
    unsafe { result.write(T::Real::from_f64(norm)) };
    Ok(())
}

fn asum<T: Scalar>(a: &mut Args<'_>) -> R {
    let n = a.usize()?;
    let (x, incx, result) = (a.ptr::<T>()?, a.isize()?, a.ptr::<T::Real>()?);
    let mut s = <T::Real as Scalar>::zero();
    if incx > 0 {
        for i in 0..n {
            // SAFETY: within the checked span.
            s += unsafe { *x.add(i * incx as usize) }.abs1();
        }
    }
    // SAFETY: the result view holds one element.
    unsafe { result.write(s) };
    Ok(())
}

/// The 1-based index of the first element of largest (`MAX`) or smallest `|re| + |im|`, 0 for
/// `n = 0` or `incx <= 0`, as reference BLAS (`i?amax` skips NaNs after the first element).
fn iamax<T: Scalar, const MAX: bool>(a: &mut Args<'_>) -> R {
    let n = a.usize()?;
    let (x, incx, result) = (a.ptr::<T>()?, a.isize()?, a.ptr::<i32>()?);
    let mut best = 0i32;
    if n > 0 && incx > 0 {
        // SAFETY: within the checked span.
        let v = |i: usize| unsafe { *x.add(i * incx as usize) }.abs1();
        let mut m = v(0);
        best = 1;
        for i in 1..n {
            let vi = v(i);
            if (MAX && vi > m) || (!MAX && vi < m) {
                m = vi;
                best = i as i32 + 1;
            }
        }
    }
    // SAFETY: the result view holds one element.
    unsafe { result.write(best) };
    Ok(())
}

/// `x' = c x + s y`, `y' = c y - conj(s) x`.
fn rot<T: Scalar>(a: &mut Args<'_>) -> R {
    let n = a.usize()?;
    let (x, incx, y, incy) = (a.ptr::<T>()?, a.isize()?, a.ptr::<T>()?, a.isize()?);
    let c: T::Real = a.scalar()?;
    let s: T = a.scalar()?;
    for i in 0..n {
        // SAFETY: within the checked spans; x and y are distinct exclusive borrows.
        unsafe {
            let (px, py) = (x.add(at(i, n, incx)), y.add(at(i, n, incy)));
            let (xv, yv) = (*px, *py);
            *px = xv.scale(c) + s * yv;
            *py = yv.scale(c) - s.conj() * xv;
        }
    }
    Ok(())
}

/// The modified Givens rotation with `param = [flag, h11, h21, h12, h22]` (reference `drotm`).
fn rotm<T: RealScalar>(a: &mut Args<'_>) -> R {
    let n = a.usize()?;
    let (x, incx, y, incy, param) = (a.ptr::<T>()?, a.isize()?, a.ptr::<T>()?, a.isize()?, a.ptr::<T>()?);
    // SAFETY: the parameter view holds five elements (checked by the caller).
    let p = unsafe { std::slice::from_raw_parts(param, 5) };
    let flag = p[0].to_f64();
    let (h11, h21, h12, h22) = if flag == -2.0 {
        return Ok(());
    } else if flag < 0.0 {
        (p[1], p[2], p[3], p[4])
    } else if flag == 0.0 {
        (T::one(), p[2], p[3], T::one())
    } else {
        (p[1], -T::one(), T::one(), p[4])
    };
    for i in 0..n {
        // SAFETY: within the checked spans.
        unsafe {
            let (px, py) = (x.add(at(i, n, incx)), y.add(at(i, n, incy)));
            let (w, z) = (*px, *py);
            *px = w * h11 + z * h12;
            *py = w * h21 + z * h22;
        }
    }
    Ok(())
}

pub(crate) fn register(m: &mut HashMap<(&'static str, DataType), NativeFn>) {
    macro_rules! each {
        ($($t:ty),*) => {$(
            m.insert(("axpy", <$t>::TYPE), axpy::<$t>);
            m.insert(("scal", <$t>::TYPE), scal::<$t, $t>);
            m.insert(("copy", <$t>::TYPE), copy::<$t>);
            m.insert(("swap", <$t>::TYPE), swap::<$t>);
            m.insert(("dot", <$t>::TYPE), dot::<$t, false>);
            m.insert(("dotc", <$t>::TYPE), dot::<$t, true>);
            m.insert(("nrm2", <$t>::TYPE), nrm2::<$t>);
            m.insert(("asum", <$t>::TYPE), asum::<$t>);
            m.insert(("iamax", <$t>::TYPE), iamax::<$t, true>);
            m.insert(("iamin", <$t>::TYPE), iamax::<$t, false>);
            m.insert(("rot", <$t>::TYPE), rot::<$t>);
        )*};
    }
    each!(f32, f64, C32, C64);
    m.insert(("scal_real", C32::TYPE), scal::<C32, f32>);
    m.insert(("scal_real", C64::TYPE), scal::<C64, f64>);
    m.insert(("rotm", f32::TYPE), rotm::<f32>);
    m.insert(("rotm", f64::TYPE), rotm::<f64>);
}
