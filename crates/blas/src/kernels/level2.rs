//! Level 2 in the kernel language: `gemv`.
//!
//! `op = N` (`y` has `m` elements): one thread per row, walking the columns; neighbouring
//! threads read neighbouring elements of each column (coalesced). `op = T` or `C` (`y` has `n`
//! elements): one block per column (grid-stride over the columns), its threads striding down
//! the column and reducing with warp shuffles and shared memory. `beta = 0` never reads `y`;
//! `alpha = 0` never reads `A` or `x`.

use ferrocm_kernel::prelude::*;

use super::level1::{block_sum, elem};
use super::{lit, scalar, KReal};

/// Stores element `iy` of a gemv's result, `y = alpha s + beta y` for the dot product `s`
/// (`CX`: complex, interleaved parts); `beta = 0` sets `y` without reading it.
#[device]
#[allow(clippy::too_many_arguments)]
fn store_y<R: KReal>(#[comptime] cx: bool, y: &mut [R], iy: u32, ar: R, ai: R, sr: R, si: R, br: R, bi: R) {
    let pr = if cx { ar * sr - ai * si } else { ar * sr };
    let pi = if cx { ar * si + ai * sr } else { lit::<R>(0.0) };
    if br == lit::<R>(0.0) && bi == lit::<R>(0.0) {
        if cx {
            y.store(2u32 * iy, pr);
            y.store(2u32 * iy + 1u32, pi);
        } else {
            y.store(iy, pr);
        }
    } else if cx {
        let yr = y.load(2u32 * iy);
        let yi = y.load(2u32 * iy + 1u32);
        y.store(2u32 * iy, pr + br * yr - bi * yi);
        y.store(2u32 * iy + 1u32, pi + br * yi + bi * yr);
    } else {
        y.store(iy, br.mul_add(y.load(iy), pr));
    }
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
        store_y(CX, y, elem(offy, incy, i), ar, ai, sr, si, br, bi);
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
            store_y(CX, y, elem(offy, incy, j), ar, ai, tr, ti, br, bi);
        }
        j += grid_dim_x();
    }
}
