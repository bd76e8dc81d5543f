//! Level 2 structured products and triangular solves on the CPU device, one function
//! (`"l2mv"`) for every shape and storage the kernels' `flags` describe. Products sweep the
//! stored columns once (a symmetric element feeds its row and its mirrored column), split
//! into a fixed number of column ranges with private accumulators summed in range order when
//! the matrix is large (results do not depend on the thread count); solves are reference
//! BLAS's column algorithms.

use std::collections::HashMap;
use std::ops::Range;

use rayon::prelude::*;

use super::{at, Args, NativeFn};
use crate::kernels::l2mv as k;
use crate::types::{DataType, RealScalar, Scalar, C32, C64};

type R<T = ()> = std::result::Result<T, String>;

/// `y = alpha M x + beta y`.
pub(crate) const MV: u32 = 0;
/// `x = M x` (triangular).
pub(crate) const TRMV: u32 = 1;
/// `M x = b` in place (triangular).
pub(crate) const TRSV: u32 = 2;

/// Products with at least this many stored elements are split over threads.
const PAR_MIN: usize = 1 << 18;
/// The column ranges of a split product (fixed, so sums do not depend on the thread count).
const PARTS: usize = 16;

/// The stored matrix: `rows x cols`, `kl`/`ku` stored sub-/super-diagonals.
#[derive(Clone, Copy)]
struct Mat<T> {
    a: *const T,
    lda: usize,
    flags: u32,
    rows: usize,
    cols: usize,
    kl: usize,
    ku: usize,
}

// SAFETY: the matrix is only read, and the launch outlives every task.
unsafe impl<T> Send for Mat<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Mat<T> {}

impl<T: Scalar> Mat<T> {
    fn has(&self, f: u32) -> bool {
        self.flags & f != 0
    }
    fn shape(&self) -> u32 {
        (self.flags >> k::SHAPE_SHIFT) & 3
    }
    /// The stored rows of column `j`.
    fn col(&self, j: usize) -> Range<usize> {
        let lo = j.saturating_sub(self.ku);
        let hi = self.rows.min(j.saturating_add(self.kl).saturating_add(1));
        lo..hi.max(lo)
    }
    /// Stored `A(i, j)`.
    ///
    /// # Safety
    /// `(i, j)` lies in the stored band or triangle (`i` in `col(j)`), which the caller's
    /// argument checks bound inside `a`.
    unsafe fn get(&self, i: usize, j: usize) -> T {
        let p = match (self.flags >> k::STORE_SHIFT) & 3 {
            k::BAND => self.ku + i - j + j * self.lda,
            k::PACKED if self.has(k::UPPER) => i + j * (j + 1) / 2,
            k::PACKED => i + j * (2 * self.rows - j - 1) / 2,
            _ => i + j * self.lda,
        };
        // SAFETY: see the function's contract.
        unsafe { *self.a.add(p) }
    }
    /// `A(i, j)` conjugated if `CONJ`.
    unsafe fn op(&self, i: usize, j: usize) -> T {
        // SAFETY: the caller's contract.
        let v = unsafe { self.get(i, j) };
        if self.has(k::CONJ) {
            v.conj()
        } else {
            v
        }
    }

    /// Adds `M x` over columns `js` of the stored matrix into `acc` (`M`'s rows).
    fn sweep(&self, js: Range<usize>, xs: &[T], acc: &mut [T]) {
        let herm = self.shape() == k::HERMITIAN;
        let tri = self.shape() == k::TRIANGULAR;
        let unit = tri && self.has(k::UNIT);
        for j in js {
            // SAFETY (every `get` below): `i` runs over `col(j)`.
            match self.shape() {
                k::SYMMETRIC | k::HERMITIAN => {
                    let (xj, mut s) = (xs[j], T::zero());
                    for i in self.col(j) {
                        let v = unsafe { self.get(i, j) };
                        if i == j {
                            acc[j] += if herm { T::from_real(v.parts().0) } else { v } * xj;
                        } else {
                            acc[i] += v * xj;
                            s += if herm { v.conj() } else { v } * xs[i];
                        }
                    }
                    acc[j] += s;
                }
                _ if self.has(k::TRANS) => {
                    let mut s = T::zero();
                    for i in self.col(j) {
                        let v = if unit && i == j { T::one() } else { unsafe { self.op(i, j) } };
                        s += v * xs[i];
                    }
                    acc[j] += s;
                }
                _ => {
                    let xj = xs[j];
                    for i in self.col(j) {
                        let v = if unit && i == j { T::one() } else { unsafe { self.get(i, j) } };
                        acc[i] += v * xj;
                    }
                }
            }
        }
    }

    /// `M x` (`M`'s rows).
    fn product(&self, xs: &[T]) -> Vec<T> {
        let mr = if self.has(k::TRANS) { self.cols } else { self.rows };
        let band = (self.kl + self.ku + 1).min(self.rows);
        if self.cols * band < PAR_MIN {
            let mut acc = vec![T::zero(); mr];
            self.sweep(0..self.cols, xs, &mut acc);
            return acc;
        }
        let step = self.cols.div_ceil(PARTS);
        let parts: Vec<Vec<T>> = (0..PARTS)
            .into_par_iter()
            .map(|p| {
                let mut acc = vec![T::zero(); mr];
                self.sweep((p * step).min(self.cols)..((p + 1) * step).min(self.cols), xs, &mut acc);
                acc
            })
            .collect();
        let mut acc = vec![T::zero(); mr];
        for part in parts {
            for (s, v) in acc.iter_mut().zip(part) {
                *s += v;
            }
        }
        acc
    }

    /// Solves `M x = b` in place in `xs` (reference BLAS's column algorithms).
    fn solve(&self, xs: &mut [T]) {
        let n = self.rows;
        let unit = self.has(k::UNIT);
        let upper = self.has(k::UPPER);
        // SAFETY (every `get`/`op` below): `i` runs over `col(j)` or is `j` (the diagonal
        // is stored unless unit, and is then not read).
        if !self.has(k::TRANS) {
            let step = |j: usize, xs: &mut [T]| {
                if xs[j].is_zero() {
                    return;
                }
                if !unit {
                    xs[j] = div(xs[j], unsafe { self.get(j, j) });
                }
                let t = xs[j];
                for i in self.col(j).filter(|&i| i != j) {
                    xs[i] = xs[i] - t * unsafe { self.get(i, j) };
                }
            };
            if upper {
                (0..n).rev().for_each(|j| step(j, xs));
            } else {
                (0..n).for_each(|j| step(j, xs));
            }
        } else {
            let step = |j: usize, xs: &mut [T]| {
                let mut t = xs[j];
                for i in self.col(j).filter(|&i| i != j) {
                    t = t - unsafe { self.op(i, j) } * xs[i];
                }
                if !unit {
                    t = div(t, unsafe { self.op(j, j) });
                }
                xs[j] = t;
            };
            if upper {
                (0..n).for_each(|j| step(j, xs));
            } else {
                (0..n).rev().for_each(|j| step(j, xs));
            }
        }
    }
}

/// `a / b` in f64 (for f32 and c32 one rounding at the end; Smith's algorithm for complex).
fn div<T: Scalar>(a: T, b: T) -> T {
    let ((ar, ai), (br, bi)) = (a.parts(), b.parts());
    let (ar, ai, br, bi) = (ar.to_f64(), ai.to_f64(), br.to_f64(), bi.to_f64());
    let (qr, qi) = if !T::COMPLEX {
        (ar / br, 0.0)
    } else if br.abs() >= bi.abs() {
        let (r, d) = (bi / br, br + bi * (bi / br));
        ((ar + ai * r) / d, (ai - ar * r) / d)
    } else {
        let (r, d) = (br / bi, bi + br * (br / bi));
        ((ar * r + ai) / d, (ai * r - ar) / d)
    };
    T::from_parts(T::Real::from_f64(qr), T::Real::from_f64(qi))
}

fn l2mv<T: Scalar>(a: &mut Args<'_>) -> R {
    let kind = a.value::<u32>()?;
    let flags = a.value::<u32>()?;
    let (rows, cols, kl, ku, lda) = (a.usize()?, a.usize()?, a.usize()?, a.usize()?, a.usize()?);
    let alpha: T = if kind == MV { a.scalar()? } else { T::one() };
    let m = Mat { a: a.ptr::<T>()? as *const T, lda, flags, rows, cols, kl, ku };
    let (px, incx) = (a.ptr::<T>()?, a.isize()?);
    let (mr, mc) = if m.has(k::TRANS) { (cols, rows) } else { (rows, cols) };
    // SAFETY (every access below): the caller checked x spans (mc - 1) |incx| + 1 elements
    // (y (mr - 1) |incy| + 1) and A every stored element; y does not alias A or x.
    let xs: Vec<T> = (0..mc).map(|i| unsafe { *px.add(at(i, mc, incx)) }).collect();
    match kind {
        MV => {
            let beta: T = a.scalar()?;
            let (py, incy) = (a.ptr::<T>()?, a.isize()?);
            let acc = if alpha.is_zero() { vec![T::zero(); mr] } else { m.product(&xs) };
            for (i, s) in acc.into_iter().enumerate() {
                let yi = unsafe { &mut *py.add(at(i, mr, incy)) };
                *yi = if beta.is_zero() { alpha * s } else { alpha * s + beta * *yi };
            }
        }
        TRMV | TRSV => {
            let out = if kind == TRMV {
                m.product(&xs)
            } else {
                let mut xs = xs;
                m.solve(&mut xs);
                xs
            };
            for (i, v) in out.into_iter().enumerate() {
                unsafe { *px.add(at(i, mc, incx)) = v };
            }
        }
        other => return Err(format!("l2mv: unknown kind {other}")),
    }
    Ok(())
}

pub(crate) fn register(m: &mut HashMap<(&'static str, DataType), NativeFn>) {
    m.insert(("l2mv", DataType::F32), l2mv::<f32>);
    m.insert(("l2mv", DataType::F64), l2mv::<f64>);
    m.insert(("l2mv", DataType::C32), l2mv::<C32>);
    m.insert(("l2mv", DataType::C64), l2mv::<C64>);
}
