//! Level 2 in the kernel language: `gemv`.
//!
//! `op = N` (`y` has `m` elements): one thread per row, walking the columns; neighbouring
//! threads read neighbouring elements of each column (coalesced). `op = T` or `C` (`y` has `n`
//! elements): one block per column (grid-stride over the columns), its threads striding down
//! the column and reducing with warp shuffles and shared memory. `beta = 0` never reads `y`;
//! `alpha = 0` never reads `A` or `x`.

use ferrocm_kernel::prelude::*;

use super::level1::{block_sum, elem};
use super::{lit, KReal};

/// Reads a scalar: the device view when `DS`, else the host value.
#[device]
fn scalar<R: KReal>(#[comptime] ds: bool, host: R, view: &[R], k: u32) -> R {
    let mut v = host;
    if ds {
        v = view.load(k);
    }
    v
}

/// `y = alpha A x + beta y`, `A` `m x n` column-major: one thread per row.
#[kernel]
pub fn gemv_n<R: KReal, const CX: bool, const DSA: bool, const DSB: bool>(
    m: u32,
    n: u32,
    a_re: R,
    a_im: R,
    alpha: &[R],
    a: &[R],
    lda: u32,
    x: &[R],
    offx: u32,
    incx: i32,
    b_re: R,
    b_im: R,
    beta: &[R],
    y: &mut [R],
    offy: u32,
    incy: i32,
) {
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let ai = if CX { scalar(DSA, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    let br = scalar(DSB, b_re, &beta, 0u32);
    let bi = if CX { scalar(DSB, b_im, &beta, 1u32) } else { lit::<R>(0.0) };
    let live = ar != lit::<R>(0.0) || ai != lit::<R>(0.0);
    let mut i = global_index() as u32;
    while i < m {
        let mut sr = lit::<R>(0.0);
        let mut si = lit::<R>(0.0);
        if live {
            let mut j = 0u32;
            while j < n {
                let ia = i + j * lda;
                let ix = elem(offx, incx, j);
                if CX {
                    let vr = a[2u32 * ia];
                    let vi = a[2u32 * ia + 1u32];
                    let xr = x[2u32 * ix];
                    let xi = x[2u32 * ix + 1u32];
                    sr += vr * xr - vi * xi;
                    si += vr * xi + vi * xr;
                } else {
                    sr = a[ia].mul_add(x[ix], sr);
                }
                j += 1u32;
            }
        }
        let pr = if CX { ar * sr - ai * si } else { ar * sr };
        let pi = if CX { ar * si + ai * sr } else { lit::<R>(0.0) };
        let iy = elem(offy, incy, i);
        if br == lit::<R>(0.0) && bi == lit::<R>(0.0) {
            if CX {
                y[2u32 * iy] = pr;
                y[2u32 * iy + 1u32] = pi;
            } else {
                y[iy] = pr;
            }
        } else if CX {
            let yr = y[2u32 * iy];
            let yi = y[2u32 * iy + 1u32];
            y[2u32 * iy] = pr + br * yr - bi * yi;
            y[2u32 * iy + 1u32] = pi + br * yi + bi * yr;
        } else {
            y[iy] = br.mul_add(y[iy], pr);
        }
        i += grid_stride() as u32;
    }
}

/// `y = alpha op(A) x + beta y` for `op = T` (`CONJ`: `C`), `A` `m x n`: one block per
/// column of `A` (element of `y`).
#[kernel]
pub fn gemv_t<R: KReal, const CX: bool, const CONJ: bool, const DSA: bool, const DSB: bool>(
    m: u32,
    n: u32,
    a_re: R,
    a_im: R,
    alpha: &[R],
    a: &[R],
    lda: u32,
    x: &[R],
    offx: u32,
    incx: i32,
    b_re: R,
    b_im: R,
    beta: &[R],
    y: &mut [R],
    offy: u32,
    incy: i32,
) {
    let scratch = shared_array::<R>(32);
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let ai = if CX { scalar(DSA, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    let br = scalar(DSB, b_re, &beta, 0u32);
    let bi = if CX { scalar(DSB, b_im, &beta, 1u32) } else { lit::<R>(0.0) };
    let live = ar != lit::<R>(0.0) || ai != lit::<R>(0.0);
    let mut j = block_idx_x();
    while j < n {
        let mut sr = lit::<R>(0.0);
        let mut si = lit::<R>(0.0);
        if live {
            let mut i = thread_idx_x();
            while i < m {
                let ia = i + j * lda;
                let ix = elem(offx, incx, i);
                if CX {
                    let vr = a[2u32 * ia];
                    let vi = if CONJ { -a[2u32 * ia + 1u32] } else { a[2u32 * ia + 1u32] };
                    let xr = x[2u32 * ix];
                    let xi = x[2u32 * ix + 1u32];
                    sr += vr * xr - vi * xi;
                    si += vr * xi + vi * xr;
                } else {
                    sr = a[ia].mul_add(x[ix], sr);
                }
                i += block_dim_x();
            }
        }
        let tr = block_sum(sr, scratch);
        let ti = if CX { block_sum(si, scratch) } else { lit::<R>(0.0) };
        if thread_idx_x() == 0u32 {
            let pr = if CX { ar * tr - ai * ti } else { ar * tr };
            let pi = if CX { ar * ti + ai * tr } else { lit::<R>(0.0) };
            let iy = elem(offy, incy, j);
            if br == lit::<R>(0.0) && bi == lit::<R>(0.0) {
                if CX {
                    y[2u32 * iy] = pr;
                    y[2u32 * iy + 1u32] = pi;
                } else {
                    y[iy] = pr;
                }
            } else if CX {
                let yr = y[2u32 * iy];
                let yi = y[2u32 * iy + 1u32];
                y[2u32 * iy] = pr + br * yr - bi * yi;
                y[2u32 * iy + 1u32] = pi + br * yi + bi * yr;
            } else {
                y[iy] = br.mul_add(y[iy], pr);
            }
        }
        j += grid_dim_x();
    }
}
