//! Level 2 rank updates in the kernel language: `ger`/`geru`/`gerc`, `syr`/`her`,
//! `syr2`/`her2` and their packed forms `spr`/`hpr`, `spr2`/`hpr2`, all through one kernel,
//! [`rank_update`].
//!
//! One thread per matrix element: a block of [`RANK_ROWS`] x [`RANK_WARPS`] threads covers a
//! tile of [`RANK_ROWS`] rows by [`RANK_COLS`] columns; lane `l` of warp `w` owns row
//! `RANK_ROWS bx + l` and the columns `RANK_COLS by + w + RANK_WARPS c` of the tile. The
//! row's factors (`alpha x_i`, and `alpha' y_i` for rank 2) live in registers for the whole
//! tile; a warp's 32 lanes update 32 consecutive elements of one column (coalesced, in full
//! and in packed storage alike, since a packed column is contiguous), and read the column's
//! `y_j` (`x_j`) as one broadcast. Tiles wholly outside a triangle do no work. Column tiles
//! past the grid's `y` limit (65535) are covered by a grid-stride loop.
//!
//! Every element gets `A(i, j) += alpha x_i op(y_j) [+ alpha' y_i op(x_j)]`, `op` the
//! conjugate when `CONJ` and `alpha'` then `conj(alpha)`; the Hermitian forms (`CONJ` on a
//! triangle) write the diagonal's imaginary part as zero and never read it, and the rank-1
//! Hermitian form takes a real `alpha`. `alpha = 0` (read on the device when `DSA`) reads and
//! writes nothing.

use ferrocm_kernel::prelude::*;

use super::level1::elem;
use super::{lit, scalar, KReal};

/// Rows per tile: one warp's lanes.
pub const RANK_ROWS: u32 = 32;
/// Warps per block (the block's `y` extent).
pub const RANK_WARPS: u32 = 8;
/// Columns per tile (each warp takes `RANK_COLS / RANK_WARPS` of them).
pub const RANK_COLS: u32 = 32;

/// The storage a rank update writes (the kernel's `SHAPE`).
pub mod shape {
    /// A full `m x n` matrix with a leading dimension (`ger`).
    pub const FULL: u32 = 0;
    /// The upper triangle of an `n x n` matrix with a leading dimension.
    pub const UPPER: u32 = 1;
    /// The lower triangle.
    pub const LOWER: u32 = 2;
    /// The upper triangle packed by columns (reference BLAS's `AP`, `uplo = 'U'`).
    pub const PACKED_UPPER: u32 = 3;
    /// The lower triangle packed by columns (`uplo = 'L'`).
    pub const PACKED_LOWER: u32 = 4;
}

/// The element index of `(i, j)` in the storage `SHAPE` (`lda` for the full shapes, `n` for
/// the packed ones), in 64 bits for the packed column starts (the caller checked the result
/// fits 32 bits).
#[device]
fn index_of(#[comptime] shape_: u32, i: u32, j: u32, lda: u32, n: u32) -> u32 {
    let mut ia = i + j * lda;
    if shape_ == shape::PACKED_UPPER {
        let j64 = j as u64;
        ia = (j64 * (j64 + 1u64) / 2u64 + i as u64) as u32;
    } else if shape_ == shape::PACKED_LOWER {
        let j64 = j as u64;
        let n64 = n as u64;
        ia = (j64 * (2u64 * n64 - j64 + 1u64) / 2u64 + (i - j) as u64) as u32;
    }
    ia
}

/// `A += alpha x op(y)^T [+ alpha' y op(x)^T]` on the elements `SHAPE` stores of an `m x n`
/// matrix (`m = n` for the triangles): see the [module docs](self). `TWO`: rank 2; `CONJ`:
/// `op` conjugates (and `alpha' = conj(alpha)`); for rank 1 on a triangle `y` is `x`.
#[kernel]
pub fn rank_update<
    R: KReal,
    const CX: bool,
    const SHAPE: u32,
    const TWO: bool,
    const CONJ: bool,
    const DSA: bool,
>(
    m: u32,
    n: u32,
    a_re: R,
    a_im: R,
    alpha: &[R],
    x: &[R],
    offx: u32,
    incx: i32,
    y: &[R],
    offy: u32,
    incy: i32,
    a: &mut [R],
    lda: u32,
) {
    // The Hermitian forms: the diagonal is real; rank 1 takes a real alpha (a one-real view).
    let herm = CONJ && SHAPE != shape::FULL;
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let ai = if CX && !(herm && !TWO) { scalar(DSA, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    if ar == lit::<R>(0.0) && ai == lit::<R>(0.0) {
        return;
    }
    let i = block_idx_x() * RANK_ROWS + thread_idx_x();
    let i0 = block_idx_x() * RANK_ROWS;
    // The row's factors t1 = alpha x_i and t2 = alpha' y_i (alpha' = conj(alpha) when CONJ).
    let mut t1r = lit::<R>(0.0);
    let mut t1i = lit::<R>(0.0);
    let mut t2r = lit::<R>(0.0);
    let mut t2i = lit::<R>(0.0);
    let a2i = if CONJ { -ai } else { ai };
    if i < m {
        let ix = elem(offx, incx, i);
        if CX {
            let (xr, xi) = (x[2u32 * ix], x[2u32 * ix + 1u32]);
            t1r = ar * xr - ai * xi;
            t1i = ar * xi + ai * xr;
        } else {
            t1r = ar * x[ix];
        }
        if TWO {
            let iy = elem(offy, incy, i);
            if CX {
                let (yr, yi) = (y[2u32 * iy], y[2u32 * iy + 1u32]);
                t2r = ar * yr - a2i * yi;
                t2i = ar * yi + a2i * yr;
            } else {
                t2r = ar * y[iy];
            }
        }
    }
    let tiles = (n + (RANK_COLS - 1)) / RANK_COLS;
    let mut jt = block_idx_y();
    while jt < tiles {
        let j0 = jt * RANK_COLS;
        // Tiles wholly outside the stored triangle do nothing.
        let mut live = i0 < m;
        if SHAPE == shape::UPPER || SHAPE == shape::PACKED_UPPER {
            live = live && i0 < j0 + RANK_COLS;
        }
        if SHAPE == shape::LOWER || SHAPE == shape::PACKED_LOWER {
            live = live && i0 + RANK_ROWS > j0;
        }
        if live {
            for c in 0..(RANK_COLS / RANK_WARPS) as usize {
                let j = j0 + thread_idx_y() + RANK_WARPS * c as u32;
                let mut inside = i < m && j < n;
                if SHAPE == shape::UPPER || SHAPE == shape::PACKED_UPPER {
                    inside = inside && i <= j;
                }
                if SHAPE == shape::LOWER || SHAPE == shape::PACKED_LOWER {
                    inside = inside && i >= j;
                }
                if inside {
                    let ia = index_of(SHAPE, i, j, lda, n);
                    let iy = elem(offy, incy, j);
                    if CX {
                        let yr = y[2u32 * iy];
                        let yi = if CONJ { -y[2u32 * iy + 1u32] } else { y[2u32 * iy + 1u32] };
                        let mut vr = t1r * yr - t1i * yi;
                        let mut vi = t1r * yi + t1i * yr;
                        if TWO {
                            let jx = elem(offx, incx, j);
                            let xr = x[2u32 * jx];
                            let xi = if CONJ { -x[2u32 * jx + 1u32] } else { x[2u32 * jx + 1u32] };
                            vr += t2r * xr - t2i * xi;
                            vi += t2r * xi + t2i * xr;
                        }
                        let re = a[2u32 * ia] + vr;
                        a[2u32 * ia] = re;
                        if herm {
                            if i == j {
                                a[2u32 * ia + 1u32] = lit::<R>(0.0);
                            } else {
                                a[2u32 * ia + 1u32] = a[2u32 * ia + 1u32] + vi;
                            }
                        } else {
                            a[2u32 * ia + 1u32] = a[2u32 * ia + 1u32] + vi;
                        }
                    } else {
                        let mut v = t1r * y[iy];
                        if TWO {
                            v = t2r.mul_add(x[elem(offx, incx, j)], v);
                        }
                        a[ia] = a[ia] + v;
                    }
                }
            }
        }
        jt += grid_dim_y();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every storage shape lowers to PTX for the GPUs the suite runs on (the CPU executor runs
    /// the same IR; this catches what only the PTX path rejects).
    #[test]
    fn rank_update_lowers_to_ptx() {
        for arch in ["sm_80", "sm_90"] {
            rank_update::kernel::<f32, false, { shape::FULL }, false, false, false>()
                .unwrap()
                .ptx(arch)
                .unwrap();
            rank_update::kernel::<f64, true, { shape::PACKED_LOWER }, true, true, true>()
                .unwrap()
                .ptx(arch)
                .unwrap();
            rank_update::kernel::<f32, true, { shape::UPPER }, false, true, false>()
                .unwrap()
                .ptx(arch)
                .unwrap();
            rank_update::kernel::<f64, false, { shape::PACKED_UPPER }, true, false, true>()
                .unwrap()
                .ptx(arch)
                .unwrap();
        }
    }
}
