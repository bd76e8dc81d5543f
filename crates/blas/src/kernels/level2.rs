//! Level 2 in the kernel language: `gemv`.
//!
//! `op = N` (`y` has `m` elements), the split form (every GPU shape the host planner sends):
//! [`gemv_n_part`] gives each block a 32-lane strip of rows times a range of columns, each lane
//! `V` consecutive reals of a column per 16-byte access, the block's 8 warps interleaving over
//! the columns; the warps' sums meet in shared memory in a fixed order and land in one partial
//! per (column range, row) of a workspace; [`gemv_n_finish`] adds the partials of each row in
//! range order and applies `alpha` and `beta`. The order of every addition is fixed by the
//! shape, so results are bitwise reproducible run to run (as cuBLAS's sgemv is).
//! The one-pass form [`gemv_n`] (one thread per row, walking the columns; neighbouring
//! threads read neighbouring elements of each column, coalesced) serves when the workspace
//! limit leaves no room for the partials. `op = T` or `C` (`y` has `n`
//! elements): one block per column (grid-stride over the columns), its threads striding down
//! the column and reducing with warp shuffles and shared memory. `beta = 0` never reads `y`;
//! `alpha = 0` never reads `A` or `x`.
//!
//! Batches (`gemv_strided_batched`) run on the grid's `z` dimension: block `(.., .., z)`
//! works on the matrix `z sa` elements into `a` and the vectors `z sx`, `z sy` elements (in
//! whole elements, before the walk's offset) into `x` and `y`; a single gemv is the batch of
//! one with zero strides. The host splits more than 65535 batches over launches, each on
//! views starting at its first batch.

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
    sa: u32,
    sx: u32,
    sy: u32,
) {
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let ai = if CX { scalar(DSA, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    let br = scalar(DSB, b_re, &beta, 0u32);
    let bi = if CX { scalar(DSB, b_im, &beta, 1u32) } else { lit::<R>(0.0) };
    let live = ar != lit::<R>(0.0) || ai != lit::<R>(0.0);
    let bz = block_idx_z();
    let a0 = bz * sa;
    let offx = offx + bz * sx;
    let offy = offy + bz * sy;
    let mut i = global_index() as u32;
    while i < m {
        let mut sr = lit::<R>(0.0);
        let mut si = lit::<R>(0.0);
        if live {
            let mut j = 0u32;
            while j < n {
                let ia = a0 + i + j * lda;
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

/// Warps per block of [`gemv_n_part`].
pub const GEMV_N_WARPS: u32 = 8;
/// Columns each warp of [`gemv_n_part`] has in flight per step (loads issued before the FMAs).
const GEMV_N_UNROLL: u32 = 4;

/// The per-range partial sums of `A x` for `y = alpha A x + beta y`: block `(bx, by)` covers
/// reals `32 V bx ..` of every column (`mr = m` reals, `2 m` when `CX`; lane `l` takes the `V`
/// reals from `32 V bx + V l`) and columns `cols by .. min(cols (by + 1), n)` (warp `w` takes
/// the columns `w`, `w + 8`, ... of the range), and writes `part[by mr + i]`. `VEC`: `lda`
/// (in reals) is a multiple of `V` and `A` is 16-byte aligned, so full groups are read with
/// one `V`-wide access. `alpha = 0` (uniform) reads and writes nothing.
#[kernel]
pub fn gemv_n_part<R: KReal, const CX: bool, const DSA: bool, const V: u32, const VEC: bool>(
    m: u32,
    n: u32,
    cols: u32,
    a_re: R,
    a_im: R,
    alpha: &[R],
    a: &[R],
    lda: u32,
    x: &[R],
    offx: u32,
    incx: i32,
    part: &mut [R],
    sa: u32,
    sx: u32,
) {
    let sums = shared_array::<R>((GEMV_N_WARPS * 32 * V) as usize);
    let acc = var_array(V as usize, lit::<R>(0.0));
    let vals = var_array((V * GEMV_N_UNROLL) as usize, lit::<R>(0.0));
    let xs = var_array(2 * GEMV_N_UNROLL as usize, lit::<R>(0.0));
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let ai = if CX { scalar(DSA, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    if ar == lit::<R>(0.0) && ai == lit::<R>(0.0) {
        return;
    }
    let mr = if CX { 2u32 * m } else { m };
    let ldr = if CX { 2u32 * lda } else { lda };
    let bz = block_idx_z();
    let offx = offx + bz * sx;
    // The batch's matrix, in reals (a multiple of V when VEC).
    let ab = if CX { 2u32 * bz * sa } else { bz * sa };
    let lane = lane_id();
    let warp = thread_idx_x() / 32u32;
    let i0 = block_idx_x() * (32 * V) + lane * V;
    let full = i0 + V <= mr;
    let c0 = block_idx_y() * cols;
    let c1 = (c0 + cols).min(n);
    let mut j = c0 + warp;
    // GEMV_N_UNROLL columns per step: every load of the step issues before its FMAs.
    while j + (GEMV_N_WARPS * (GEMV_N_UNROLL - 1)) < c1 {
        for u in 0..GEMV_N_UNROLL as usize {
            let col = j + (GEMV_N_WARPS * u as u32);
            let ix = elem(offx, incx, col);
            if CX {
                xs.set(2 * u, x[2u32 * ix]);
                xs.set(2 * u + 1, x[2u32 * ix + 1u32]);
            } else {
                xs.set(2 * u, x[ix]);
            }
            load_strip::<R, V, VEC>(a, ab + i0 + col * ldr, full, i0, mr, &vals, u * V as usize);
        }
        for u in 0..GEMV_N_UNROLL as usize {
            accumulate::<R, CX, V>(&acc, &vals, u * V as usize, xs.get(2 * u), xs.get(2 * u + 1));
        }
        j += GEMV_N_WARPS * GEMV_N_UNROLL;
    }
    while j < c1 {
        let ix = elem(offx, incx, j);
        let xr = if CX { x[2u32 * ix] } else { x[ix] };
        let xi = if CX { x[2u32 * ix + 1u32] } else { lit::<R>(0.0) };
        load_strip::<R, V, VEC>(a, ab + i0 + j * ldr, full, i0, mr, &vals, 0);
        accumulate::<R, CX, V>(&acc, &vals, 0, xr, xi);
        j += GEMV_N_WARPS;
    }
    for v in 0..V as usize {
        sums[warp * (32 * V) + lane * V + v as u32] = acc.get(v);
    }
    sync_threads();
    let t = thread_idx_x();
    let row = block_idx_x() * (32 * V) + t;
    if t < 32 * V && row < mr {
        let mut s = sums[t];
        for w in 1..GEMV_N_WARPS as usize {
            s += sums[(w as u32) * (32 * V) + t];
        }
        part[(bz * grid_dim_y() + block_idx_y()) * mr + row] = s;
    }
}

/// Reads the `V` reals of `a` from `base` (row `i0` of a column) into `vals[at ..]`: one wide
/// access when `VEC` and the group lies inside the `mr` rows, else element by element (rows
/// past `mr` read as 0).
#[device]
#[allow(clippy::too_many_arguments)]
fn load_strip<R: KReal, const V: u32, const VEC: bool>(
    a: &[R],
    base: u32,
    full: bool,
    i0: u32,
    mr: u32,
    vals: &VarArray<Val<R>>,
    #[comptime] at: usize,
) {
    if VEC && V == 4 {
        if full {
            let v = a.load4(base / 4u32);
            for q in 0..4usize {
                vals.set(at + q, v.get(q));
            }
        } else {
            load_each::<R, V>(a, base, i0, mr, vals, at);
        }
    } else if VEC && V == 2 {
        if full {
            let v = a.load2(base / 2u32);
            for q in 0..2usize {
                vals.set(at + q, v.get(q));
            }
        } else {
            load_each::<R, V>(a, base, i0, mr, vals, at);
        }
    } else {
        load_each::<R, V>(a, base, i0, mr, vals, at);
    }
}

/// [`load_strip`] element by element.
#[device]
fn load_each<R: KReal, const V: u32>(
    a: &[R],
    base: u32,
    i0: u32,
    mr: u32,
    vals: &VarArray<Val<R>>,
    #[comptime] at: usize,
) {
    for q in 0..V as usize {
        let mut e = lit::<R>(0.0);
        if i0 + (q as u32) < mr {
            e = a.load(base + q as u32);
        }
        vals.set(at + q, e);
    }
}

/// `acc += vals[at .. at + V] * x` (`CX`: the reals pair up as complex elements).
#[device]
fn accumulate<R: KReal, const CX: bool, const V: u32>(
    acc: &VarArray<Val<R>>,
    vals: &VarArray<Val<R>>,
    #[comptime] at: usize,
    xr: R,
    xi: R,
) {
    if CX {
        for p in 0..(V / 2) as usize {
            let (vr, vi) = (vals.get(at + 2 * p), vals.get(at + 2 * p + 1));
            acc.set(2 * p, acc.get(2 * p) + vr * xr - vi * xi);
            acc.set(2 * p + 1, acc.get(2 * p + 1) + vr * xi + vi * xr);
        }
    } else {
        for q in 0..V as usize {
            acc.set(q, vals.get(at + q).mul_add(xr, acc.get(q)));
        }
    }
}

/// `y = alpha s + beta y` with `s` the sum, in range order, of the `splits` partials of
/// [`gemv_n_part`] (`part[r mr + i]`) for each of the `m` elements of `y`; `alpha = 0` reads
/// no partial.
#[kernel]
pub fn gemv_n_finish<R: KReal, const CX: bool, const DSA: bool, const DSB: bool>(
    m: u32,
    splits: u32,
    a_re: R,
    a_im: R,
    alpha: &[R],
    part: &[R],
    b_re: R,
    b_im: R,
    beta: &[R],
    y: &mut [R],
    offy: u32,
    incy: i32,
    sy: u32,
) {
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let ai = if CX { scalar(DSA, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    let br = scalar(DSB, b_re, &beta, 0u32);
    let bi = if CX { scalar(DSB, b_im, &beta, 1u32) } else { lit::<R>(0.0) };
    let live = ar != lit::<R>(0.0) || ai != lit::<R>(0.0);
    let mr = if CX { 2u32 * m } else { m };
    let bz = block_idx_z();
    let offy = offy + bz * sy;
    // This batch's partials.
    let p0 = bz * splits * mr;
    let mut i = global_index() as u32;
    while i < m {
        let mut sr = lit::<R>(0.0);
        let mut si = lit::<R>(0.0);
        if live {
            let mut r = 0u32;
            while r < splits {
                if CX {
                    sr += part[p0 + r * mr + 2u32 * i];
                    si += part[p0 + r * mr + 2u32 * i + 1u32];
                } else {
                    sr += part[p0 + r * mr + i];
                }
                r += 1u32;
            }
        }
        store_y(CX, y, elem(offy, incy, i), ar, ai, sr, si, br, bi);
        i += grid_stride() as u32;
    }
}

/// `y = alpha op(A) x + beta y` for `op = T` (`CONJ`: `C`), `A` `m x n`: one block per
/// column of `A` (element of `y`, grid-stride over the columns), each thread `V` consecutive
/// reals of the column per step (one `V`-wide access when `VEC`, as in [`gemv_n_part`]; the
/// column's last partial group element by element) and the matching reals of `x` (one wide
/// access when `XV`: unit stride, aligned, so `x`'s reals line up with the column's), then a
/// shuffle + shared-memory reduction in a fixed order.
#[kernel]
pub fn gemv_t<
    R: KReal,
    const CX: bool,
    const CONJ: bool,
    const DSA: bool,
    const DSB: bool,
    const V: u32,
    const VEC: bool,
    const XV: bool,
>(
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
    sa: u32,
    sx: u32,
    sy: u32,
) {
    let scratch = shared_array::<R>(32);
    let vals = var_array(V as usize, lit::<R>(0.0));
    let xs = var_array(V as usize, lit::<R>(0.0));
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let ai = if CX { scalar(DSA, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    let br = scalar(DSB, b_re, &beta, 0u32);
    let bi = if CX { scalar(DSB, b_im, &beta, 1u32) } else { lit::<R>(0.0) };
    let live = ar != lit::<R>(0.0) || ai != lit::<R>(0.0);
    let mr = if CX { 2u32 * m } else { m };
    let ldr = if CX { 2u32 * lda } else { lda };
    let bz = block_idx_z();
    // The batch's matrix and vectors (in reals for A and a unit-stride x: multiples of V when
    // VEC and XV).
    let ab = if CX { 2u32 * bz * sa } else { bz * sa };
    let xb = if CX { 2u32 * bz * sx } else { bz * sx };
    let offx = offx + bz * sx;
    let offy = offy + bz * sy;
    let mut j = block_idx_x();
    while j < n {
        let mut sr = lit::<R>(0.0);
        let mut si = lit::<R>(0.0);
        if live {
            let mut i0 = thread_idx_x() * V;
            while i0 < mr {
                let full = i0 + V <= mr;
                if XV {
                    load_strip::<R, V, true>(x, xb + i0, full, i0, mr, &xs, 0);
                } else {
                    // Strided x: element by element (rows past m read as 0).
                    for q in 0..V as usize {
                        let mut e = lit::<R>(0.0);
                        if i0 + (q as u32) < mr {
                            let ix = if CX {
                                2u32 * elem(offx, incx, (i0 + q as u32) / 2u32)
                            } else {
                                elem(offx, incx, i0 + q as u32)
                            };
                            e = x[if CX { ix + (q % 2) as u32 } else { ix }];
                        }
                        xs.set(q, e);
                    }
                }
                load_strip::<R, V, VEC>(a, ab + i0 + j * ldr, full, i0, mr, &vals, 0);
                if CX {
                    for p in 0..(V / 2) as usize {
                        let vr = vals.get(2 * p);
                        let vi = if CONJ { -vals.get(2 * p + 1) } else { vals.get(2 * p + 1) };
                        let (xr, xi) = (xs.get(2 * p), xs.get(2 * p + 1));
                        sr += vr * xr - vi * xi;
                        si += vr * xi + vi * xr;
                    }
                } else {
                    for q in 0..V as usize {
                        sr = vals.get(q).mul_add(xs.get(q), sr);
                    }
                }
                i0 += block_dim_x() * V;
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
