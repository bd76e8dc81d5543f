//! Level 3 beyond GEMM on the CPU device: the products through the `gemm` crate (the
//! symmetric, Hermitian or triangular operand expanded into a full temporary first; `syrk`
//! and relatives form the whole `op(A) op(B)^T` and combine its triangle); `trsm` blocked by
//! 64 rows: substitution in the diagonal blocks (one right-hand side per rayon task when
//! large), `gemm` crate updates of the rest.

use std::collections::HashMap;

use rayon::prelude::*;

use super::{Args, NativeFn, SendPtr};
use crate::types::{DataType, RealScalar, Scalar, C32, C64};

type R<T = ()> = std::result::Result<T, String>;

/// Products (or solves) with at least this many multiply-adds use every rayon thread.
const PAR_MIN: usize = 1 << 18;

fn par(work: usize) -> gemm::Parallelism {
    if work >= PAR_MIN {
        gemm::Parallelism::Rayon(rayon::current_num_threads())
    } else {
        gemm::Parallelism::None
    }
}

/// `x / d`, formed in f64 and rounded once per part (correctly rounded for real f32).
fn div<T: Scalar>(x: T, d: T) -> T {
    let (xr, xi) = x.parts();
    let (dr, di) = d.parts();
    let (xr, xi, dr, di) = (xr.to_f64(), xi.to_f64(), dr.to_f64(), di.to_f64());
    if !T::COMPLEX {
        return T::from_real(T::Real::from_f64(xr / dr));
    }
    let den = dr * dr + di * di;
    T::from_parts(T::Real::from_f64((xr * dr + xi * di) / den), T::Real::from_f64((xi * dr - xr * di) / den))
}

/// `C = beta C` for an `m x n` matrix (`beta = 0` writes zeros without reading).
///
/// # Safety
/// `pc` spans `ldc * (n - 1) + m` elements that nothing else accesses.
unsafe fn scale<T: Scalar>(m: usize, n: usize, beta: T, pc: *mut T, ldc: usize) {
    for j in 0..n {
        for i in 0..m {
            let v = pc.add(i + j * ldc);
            *v = if beta.is_zero() { T::zero() } else { beta * *v };
        }
    }
}

/// `syrk`, `herk`, `syr2k`, `her2k`.
fn rank_k<T: Scalar>(a: &mut Args<'_>) -> R {
    let (uplo, trans, two, herm) =
        (a.value::<u32>()?, a.value::<u32>()?, a.value::<u32>()? == 1, a.value::<u32>()? == 1);
    let (n, k) = (a.usize()?, a.usize()?);
    let alpha: T = if herm && !two { T::from_real(a.scalar::<T::Real>()?) } else { a.scalar::<T>()? };
    let (pa, lda) = (a.ptr::<T>()?, a.usize()?);
    let (pb, ldb) = (a.ptr::<T>()?, a.usize()?);
    let beta: T = if herm { T::from_real(a.scalar::<T::Real>()?) } else { a.scalar::<T>()? };
    let (pc, ldc) = (a.ptr::<T>()?, a.usize()?);
    let live = k > 0 && !alpha.is_zero();
    // P = op(A) op(B)^T (^H for the Hermitian forms), n x n.
    let mut p = vec![T::zero(); if live { n * n } else { 0 }];
    if live {
        let (lrs, lcs) = if trans == 0 { (1, lda as isize) } else { (lda as isize, 1) };
        let (rrs, rcs) = if trans == 0 { (ldb as isize, 1) } else { (1, ldb as isize) };
        // SAFETY: the caller checked A and B span their op's k x n (n x k) elements; P is ours.
        unsafe {
            gemm::gemm(
                n,
                n,
                k,
                p.as_mut_ptr(),
                n as isize,
                1,
                false,
                pa as *const T,
                lcs,
                lrs,
                pb as *const T,
                rcs,
                rrs,
                T::zero(),
                T::one(),
                false,
                trans == 2,
                herm != (trans == 2),
                par(n * n * k),
            );
        }
    }
    for j in 0..n {
        let (i0, i1) = if uplo == 0 { (0, j + 1) } else { (j, n) };
        for i in i0..i1 {
            // SAFETY: C spans ldc * (n - 1) + n elements (checked), borrowed exclusively.
            let cij = unsafe { &mut *pc.add(i + j * ldc) };
            let mut v = if live { alpha * p[i + j * n] } else { T::zero() };
            if two && live {
                let w = alpha * p[j + i * n];
                v += if herm { w.conj() } else { w };
            }
            let diag = herm && i == j;
            let mut r = if beta.is_zero() {
                v
            } else {
                let old = if diag { T::from_real(cij.parts().0) } else { *cij };
                v + beta * old
            };
            if diag {
                r = T::from_real(r.parts().0);
            }
            *cij = r;
        }
    }
    Ok(())
}

/// `symm`, `hemm`.
fn symm<T: Scalar>(a: &mut Args<'_>) -> R {
    let (side, uplo, herm) = (a.value::<u32>()?, a.value::<u32>()?, a.value::<u32>()? == 1);
    let (m, n) = (a.usize()?, a.usize()?);
    let alpha: T = a.scalar()?;
    let (pa, lda) = (a.ptr::<T>()?, a.usize()?);
    let (pb, ldb) = (a.ptr::<T>()?, a.usize()?);
    let beta: T = a.scalar()?;
    let (pc, ldc) = (a.ptr::<T>()?, a.usize()?);
    if alpha.is_zero() {
        // SAFETY: C was checked to span its m x n elements.
        unsafe { scale(m, n, beta, pc, ldc) };
        return Ok(());
    }
    let dim = if side == 0 { m } else { n };
    let mut af = vec![T::zero(); dim * dim];
    for j in 0..dim {
        for i in 0..dim {
            let inside = if uplo == 0 { i <= j } else { i >= j };
            // SAFETY: A spans lda * (dim - 1) + dim elements; only its stored triangle is read.
            let v = unsafe {
                if inside {
                    *pa.add(i + j * lda)
                } else if herm {
                    (*pa.add(j + i * lda)).conj()
                } else {
                    *pa.add(j + i * lda)
                }
            };
            af[i + j * dim] = if herm && i == j { T::from_real(v.parts().0) } else { v };
        }
    }
    let (lhs, l_cs, rhs, r_cs) = if side == 0 {
        (af.as_ptr(), dim, pb as *const T, ldb)
    } else {
        (pb as *const T, ldb, af.as_ptr(), dim)
    };
    // SAFETY: B and C span their m x n elements (checked); C is borrowed exclusively; the crate
    // computes C = beta C + alpha lhs rhs and reads no C when beta = 0.
    unsafe {
        gemm::gemm(
            m,
            n,
            dim,
            pc,
            ldc as isize,
            1,
            !beta.is_zero(),
            lhs,
            l_cs as isize,
            1,
            rhs,
            r_cs as isize,
            1,
            beta,
            alpha,
            false,
            false,
            false,
            par(m * n * dim),
        );
    }
    Ok(())
}

/// The arguments `trmm` and `trsm` share.
struct Tri<T> {
    left: bool,
    lower: bool,
    trans: u32,
    unit: bool,
    m: usize,
    n: usize,
    alpha: T,
    pa: *mut T,
    lda: usize,
    pb: *mut T,
    ldb: usize,
}

fn tri<T: Scalar>(a: &mut Args<'_>) -> R<Tri<T>> {
    let (side, uplo, trans, diag) =
        (a.value::<u32>()?, a.value::<u32>()?, a.value::<u32>()?, a.value::<u32>()?);
    let (m, n) = (a.usize()?, a.usize()?);
    let alpha: T = a.scalar()?;
    let (pa, lda) = (a.ptr::<T>()?, a.usize()?);
    let (pb, ldb) = (a.ptr::<T>()?, a.usize()?);
    Ok(Tri { left: side == 0, lower: uplo == 1, trans, unit: diag == 1, m, n, alpha, pa, lda, pb, ldb })
}

/// `trmm` (in place on B).
fn trmm<T: Scalar>(a: &mut Args<'_>) -> R {
    let t = tri::<T>(a)?;
    if t.alpha.is_zero() {
        // SAFETY: B spans its m x n elements (checked).
        unsafe { scale(t.m, t.n, T::zero(), t.pb, t.ldb) };
        return Ok(());
    }
    let dim = if t.left { t.m } else { t.n };
    let mut af = vec![T::zero(); dim * dim];
    for j in 0..dim {
        let (i0, i1) = if t.lower { (j, dim) } else { (0, j + 1) };
        for i in i0..i1 {
            // SAFETY: A spans lda * (dim - 1) + dim elements; only the triangle is read.
            af[i + j * dim] = if t.unit && i == j { T::one() } else { unsafe { *t.pa.add(i + j * t.lda) } };
        }
    }
    let (m, n) = (t.m, t.n);
    let (a_rs, a_cs) = if t.trans == 0 { (1, dim as isize) } else { (dim as isize, 1) };
    let conj = t.trans == 2;
    let mut w = vec![T::zero(); m * n];
    let pb = t.pb as *const T;
    // SAFETY: B spans its m x n elements (checked); W is ours.
    unsafe {
        if t.left {
            gemm::gemm(
                m,
                n,
                m,
                w.as_mut_ptr(),
                m as isize,
                1,
                false,
                af.as_ptr(),
                a_cs,
                a_rs,
                pb,
                t.ldb as isize,
                1,
                T::zero(),
                t.alpha,
                false,
                conj,
                false,
                par(m * n * m),
            );
        } else {
            gemm::gemm(
                m,
                n,
                n,
                w.as_mut_ptr(),
                m as isize,
                1,
                false,
                pb,
                t.ldb as isize,
                1,
                af.as_ptr(),
                a_cs,
                a_rs,
                T::zero(),
                t.alpha,
                false,
                false,
                conj,
                par(m * n * n),
            );
        }
        for j in 0..n {
            std::ptr::copy_nonoverlapping(w.as_ptr().add(j * m), t.pb.add(j * t.ldb), m);
        }
    }
    Ok(())
}

/// Rows of `trsm`'s diagonal blocks on the CPU (substitution inside, `gemm` crate updates).
const TRSM_NB: usize = 64;

/// `trsm` (in place on B), blocked: `B = alpha B`, then per diagonal block of 64 rows the
/// substitution for every right-hand side (rayon over them when large) and one `gemm` crate
/// update of the rows still to solve.
fn trsm<T: Scalar>(a: &mut Args<'_>) -> R {
    let t = tri::<T>(a)?;
    let (m, n) = (t.m, t.n);
    if t.alpha.is_zero() {
        // SAFETY: B spans its m x n elements (checked).
        unsafe { scale(m, n, T::zero(), t.pb, t.ldb) };
        return Ok(());
    }
    if !t.alpha.is_one() {
        // SAFETY: as above.
        unsafe { scale(m, n, t.alpha, t.pb, t.ldb) };
    }
    let (dim, nrhs) = if t.left { (m, n) } else { (n, m) };
    // The system M X = B: M is op(A) on the left, op(A)^T on the right (M(i, l) = A(l, i) when
    // `trans_m`); X(i, c) is B(i, c) on the left, B(c, i) on the right.
    let trans_m = if t.left { t.trans != 0 } else { t.trans == 0 };
    let lower_m = t.lower != trans_m;
    let conj = t.trans == 2;
    let (xrs, xcs) = if t.left { (1, t.ldb) } else { (t.ldb, 1) };
    let (mrs, mcs) = if trans_m { (t.lda, 1) } else { (1, t.lda) };
    let (pa, pb, unit) = (SendPtr(t.pa), SendPtr(t.pb), t.unit);
    let mel = move |i: usize, l: usize| -> T {
        let p = pa;
        // SAFETY: i, l < dim index A's stored triangle (checked span).
        let v = unsafe { *p.0.add(i * mrs + l * mcs) };
        if conj {
            v.conj()
        } else {
            v
        }
    };
    let blocks = dim.div_ceil(TRSM_NB);
    for step in 0..blocks {
        let bi = if lower_m { step } else { blocks - 1 - step };
        let (r0, r1) = (bi * TRSM_NB, dim.min(bi * TRSM_NB + TRSM_NB));
        let order: Vec<usize> = if lower_m { (r0..r1).collect() } else { (r0..r1).rev().collect() };
        let solve = |c: usize| {
            let p = pb;
            // SAFETY: X(i, c) lies in B's checked span; right-hand side c touches only its own.
            let x = |i: usize| unsafe { p.0.add(i * xrs + c * xcs) };
            for (s, &i) in order.iter().enumerate() {
                // SAFETY (the three accesses): see `x`.
                let mut v = unsafe { *x(i) };
                for &l in &order[..s] {
                    v = v - mel(i, l) * unsafe { *x(l) };
                }
                unsafe { *x(i) = if unit { v } else { div(v, mel(i, i)) } };
            }
        };
        if (r1 - r0) * (r1 - r0) * nrhs >= PAR_MIN {
            (0..nrhs).into_par_iter().for_each(solve);
        } else {
            (0..nrhs).for_each(solve);
        }
        // X[u0..u1, :] -= M[u0..u1, r0..r1] X[r0..r1, :].
        let (u0, u1) = if lower_m { (r1, dim) } else { (0, r0) };
        if u1 > u0 {
            // SAFETY: the rows u0..u1 and r0..r1 of X are disjoint and in B's checked span; the
            // block of M lies in A's stored triangle.
            unsafe {
                gemm::gemm(
                    u1 - u0,
                    nrhs,
                    r1 - r0,
                    t.pb.add(u0 * xrs),
                    xcs as isize,
                    xrs as isize,
                    true,
                    t.pa.add(u0 * mrs + r0 * mcs) as *const T,
                    mcs as isize,
                    mrs as isize,
                    t.pb.add(r0 * xrs) as *const T,
                    xcs as isize,
                    xrs as isize,
                    T::one(),
                    -T::one(),
                    false,
                    conj,
                    false,
                    par((u1 - u0) * nrhs * (r1 - r0)),
                );
            }
        }
    }
    Ok(())
}

pub(crate) fn register(m: &mut HashMap<(&'static str, DataType), NativeFn>) {
    macro_rules! all {
        ($name:literal, $f:ident) => {
            m.insert(($name, DataType::F32), $f::<f32>);
            m.insert(($name, DataType::F64), $f::<f64>);
            m.insert(($name, DataType::C32), $f::<C32>);
            m.insert(($name, DataType::C64), $f::<C64>);
        };
    }
    all!("rank_k", rank_k);
    all!("symm", symm);
    all!("trmm", trmm);
    all!("trsm", trsm);
}
