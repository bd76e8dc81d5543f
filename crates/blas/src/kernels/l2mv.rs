//! Level 2 structured products and triangular solves in the kernel language: `symv`/`hemv`,
//! `spmv`/`hpmv` ([`symv_part`], [`symv_finish`]), `gbmv`, `sbmv`/`hbmv`,
//! `trmv`/`tbmv`/`tpmv` ([`smv`]) and `trsv`/`tbsv`/`tpsv` ([`tsv`]).
//!
//! Every routine reads one matrix `M` (the effective matrix: `op(A)`, or the full symmetric or
//! Hermitian matrix one stored triangle stands for) through [`fetch`], which maps an element
//! `M(i, j)` to its place in full, band or packed storage (or to 0 outside the stored band
//! or triangle, to 1 on a unit diagonal). The shape arrives as one runtime `flags` word
//! ([`UPPER`], [`UNIT`], [`TRANS`], [`CONJ`], the shape and the storage), uniform over the
//! launch, so one compiled kernel per element type serves every routine.
//!
//! [`smv`] (`y = alpha M x + beta y`): a block of 256 threads owns 32 rows of `y` and walks
//! the 32-column tiles of `M` that meet the band of its rows. Each tile is staged in shared
//! memory (row pitch 33: conflict-free both ways), read from global memory along storage
//! columns (lanes follow the stored row index, so reads are coalesced for a tile stored as is
//! and for one read mirrored or transposed); each thread then sums 4 columns of the tile for
//! its row, and the 8 partial sums of a row meet in shared memory in a fixed order, so
//! results do not change run to run. For a symmetric or Hermitian matrix this reads an
//! off-diagonal element twice (once for its row block, once mirrored for its column's): the
//! two-sweep design, the traffic of a full `gemv`. It serves band storage, and full or
//! packed storage when the workspace limit leaves no room for the one-pass form's partials.
//!
//! [`symv_part`] + [`symv_finish`] (symmetric/Hermitian, full or packed): the one-pass form.
//! A block per 32-column tile reads each stored tile of its column once, using it for its
//! rows (partials to workspace, one per column block and row) and, transposed, for its
//! columns (summed in registers); the second launch adds each row's partials in column-block
//! order. Stored elements are read once; the partials add `n^2 / 32` reals (a sixteenth of a
//! triangle's traffic).
//!
//! [`tsv`] (`M x = b` in place): one block of 1024 threads walks the 32-element diagonal
//! blocks in substitution order. A diagonal block is staged in shared memory and solved by
//! warp 0, each lane holding its element in a register and the solved element broadcast by
//! shuffle; then all threads subtract the block's contribution from the rest of `x` inside
//! the band, one row per thread. `alpha = 0` never reads `A` or `x`; `beta = 0` never reads
//! `y`.

use ferrocm_kernel::prelude::*;

use super::level1::elem;
use super::{lit, scalar, KReal};

/// `flags`: the upper triangle is stored.
pub const UPPER: u32 = 1;
/// `flags`: a unit diagonal (never read).
pub const UNIT: u32 = 2;
/// `flags`: `M = A^T` (or `A^H` with [`CONJ`]).
pub const TRANS: u32 = 4;
/// `flags`: conjugate the stored elements.
pub const CONJ: u32 = 8;
/// `flags`: forward substitution ([`tsv`]; `M` lower triangular).
pub const FORWARD: u32 = 1 << 8;
/// `flags` bits 4-5: the shape.
pub const SHAPE_SHIFT: u32 = 4;
/// A general (band) matrix.
pub const GENERAL: u32 = 0;
/// Symmetric: one stored triangle stands for both.
pub const SYMMETRIC: u32 = 1;
/// Hermitian: the other triangle is the conjugate; the diagonal's imaginary part is 0.
pub const HERMITIAN: u32 = 2;
/// Triangular: zero outside the stored triangle.
pub const TRIANGULAR: u32 = 3;
/// `flags` bits 6-7: the storage.
pub const STORE_SHIFT: u32 = 6;
/// Column-major with leading dimension `lda`.
pub const FULL: u32 = 0;
/// BLAS band storage: `A(i, j)` at `ku + i - j + j lda`.
pub const BAND: u32 = 1;
/// BLAS packed storage of one triangle, column by column.
pub const PACKED: u32 = 2;

/// Rows (and columns) per tile.
pub const TILE: u32 = 32;
/// Threads per block of the products.
pub const THREADS: u32 = 256;
/// Threads of the solve's one block (a whole SM's worth, so its row updates keep many loads
/// in flight).
pub const SOLVE_THREADS: u32 = 1024;
/// The shared tile's row pitch (one more than a tile row: no bank conflicts either way).
const PITCH: u32 = TILE + 1;

/// `j (j + 1) / 2` without overflowing 32 bits for a halved product that fits.
#[device]
fn half_product(a: u32, b: u32) -> u32 {
    select(a % 2u32 == 0u32, (a / 2u32) * b, a * (b / 2u32))
}

/// `M(i, j)` as `(re, im)`: `A(i, j)` through the shape, transposition, conjugation and
/// storage `flags` describe. `kl`/`ku` are the stored sub-/super-diagonals (the triangle's
/// bound for full and packed triangular storage); `n` the order of a packed matrix.
#[device]
#[allow(clippy::too_many_arguments)]
pub fn fetch<R: KReal>(
    #[comptime] cx: bool,
    a: &[R],
    lda: u32,
    n: u32,
    flags: u32,
    kl: u32,
    ku: u32,
    i: u32,
    j: u32,
) -> Vec2<R> {
    let upper = (flags & UPPER) != 0u32;
    let shape = (flags >> SHAPE_SHIFT) & 3u32;
    let store = (flags >> STORE_SHIFT) & 3u32;
    let trans = (flags & TRANS) != 0u32;
    let ti = select(trans, j, i);
    let tj = select(trans, i, j);
    // A symmetric or Hermitian element outside the stored triangle is its mirror's.
    let sym = shape == SYMMETRIC || shape == HERMITIAN;
    let other = sym && ((upper && ti > tj) || (!upper && ti < tj));
    let si = select(other, tj, ti);
    let sj = select(other, ti, tj);
    let flip = select(other && shape == HERMITIAN, 1u32, 0u32);
    let conj = ((flags & CONJ) >> 3u32) ^ flip;
    let inband = (si <= sj || si - sj <= kl) && (sj <= si || sj - si <= ku);
    let mut vr = lit::<R>(0.0);
    let mut vi = lit::<R>(0.0);
    if shape == TRIANGULAR && (flags & UNIT) != 0u32 && si == sj {
        vr = lit::<R>(1.0);
    } else if inband {
        let mut p = si + sj * lda;
        if store == BAND {
            p = ku + si - sj + sj * lda;
        } else if store == PACKED {
            if upper {
                p = half_product(sj, sj + 1u32) + si;
            } else {
                p = si + half_product(sj, 2u32 * n - sj - 1u32);
            }
        }
        if cx {
            vr = a[2u32 * p];
            if shape != HERMITIAN || si != sj {
                vi = a[2u32 * p + 1u32];
            }
            if conj != 0u32 {
                vi = -vi;
            }
        } else {
            vr = a[p];
        }
    }
    vec2(vr, vi)
}

/// `y = alpha M x + beta y` for the `rows x cols` matrix `M` of [`fetch`], nonzero only for
/// `i - lo <= j <= i + up` (`lo`, `up` at most `rows`, `cols`): a block per 32 rows (see the
/// module doc). `beta = 0` sets `y` without reading it; `alpha = 0` reads neither `A` nor `x`.
#[kernel]
pub fn smv<R: KReal, const CX: bool, const DSA: bool, const DSB: bool>(
    rows: u32,
    cols: u32,
    lo: u32,
    up: u32,
    flags: u32,
    n: u32,
    kl: u32,
    ku: u32,
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
    let tr = shared_array::<R>((TILE * PITCH) as usize);
    let ti = shared_array::<R>(if CX { (TILE * PITCH) as usize } else { 1 });
    let xr = shared_array::<R>(TILE as usize);
    let xi = shared_array::<R>(TILE as usize);
    let pr = shared_array::<R>(THREADS as usize);
    let pi = shared_array::<R>(if CX { THREADS as usize } else { 1 });
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let ai = if CX { scalar(DSA, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    let br = scalar(DSB, b_re, &beta, 0u32);
    let bi = if CX { scalar(DSB, b_im, &beta, 1u32) } else { lit::<R>(0.0) };
    let live = ar != lit::<R>(0.0) || ai != lit::<R>(0.0);
    let t = thread_idx_x();
    let lane = t % 32u32;
    let g = t / 32u32;
    let i0 = block_idx_x() * TILE;
    let upper = (flags & UPPER) != 0u32;
    let shape = (flags >> SHAPE_SHIFT) & 3u32;
    let sym = shape == SYMMETRIC || shape == HERMITIAN;
    let trans = (flags & TRANS) != 0u32;
    let mut sr = lit::<R>(0.0);
    let mut si = lit::<R>(0.0);
    if live {
        let jlo = select(i0 > lo, i0 - lo, 0u32);
        let jhi = (((i0 + TILE) as u64 + up as u64).min(cols as u64)) as u32;
        let mut j0 = (jlo / TILE) * TILE;
        while j0 < jhi {
            // Lanes follow the stored row index: M's rows for a tile stored as is, its
            // columns for one read transposed or mirrored.
            let mirrored = sym && ((upper && i0 > j0) || (!upper && i0 < j0));
            let across = trans != mirrored;
            for q in 0..(TILE * TILE / THREADS) {
                let e = q * THREADS + t;
                let r = select(across, e / TILE, e % TILE);
                let c = select(across, e % TILE, e / TILE);
                let mut vr = lit::<R>(0.0);
                let mut vi = lit::<R>(0.0);
                if i0 + r < rows && j0 + c < cols {
                    let v = fetch::<R>(CX, a, lda, n, flags, kl, ku, i0 + r, j0 + c);
                    vr = v.get(0);
                    vi = v.get(1);
                }
                tr[r * PITCH + c] = vr;
                if CX {
                    ti[r * PITCH + c] = vi;
                }
            }
            if t < TILE {
                let mut vr = lit::<R>(0.0);
                let mut vi = lit::<R>(0.0);
                if j0 + t < cols {
                    let ix = elem(offx, incx, j0 + t);
                    if CX {
                        vr = x[2u32 * ix];
                        vi = x[2u32 * ix + 1u32];
                    } else {
                        vr = x[ix];
                    }
                }
                xr[t] = vr;
                xi[t] = vi;
            }
            sync_threads();
            for q in 0..(TILE * TILE / THREADS) {
                let c = g + q * (THREADS / TILE);
                // Only M's band: an Inf in x must not meet the zeros outside it (0 Inf = NaN
                // where reference BLAS never forms the product).
                let (i, j) = (i0 + lane, j0 + c);
                let inside = (i <= j || i - j <= lo) && (j <= i || j - i <= up);
                let mr = tr[lane * PITCH + c];
                if CX {
                    let mi = ti[lane * PITCH + c];
                    let (vr, vi) = (xr[c], xi[c]);
                    sr = select(inside, sr + (mr * vr - mi * vi), sr);
                    si = select(inside, si + (mr * vi + mi * vr), si);
                } else {
                    sr = select(inside, mr.mul_add(xr[c], sr), sr);
                }
            }
            sync_threads();
            j0 += TILE;
        }
    }
    pr[t] = sr;
    if CX {
        pi[t] = si;
    }
    sync_threads();
    if t < TILE && i0 + t < rows {
        let mut tr_ = pr[t];
        let mut ti_ = lit::<R>(0.0);
        if CX {
            ti_ = pi[t];
        }
        for w in 1..(THREADS / TILE) {
            tr_ += pr[w * TILE + t];
            if CX {
                ti_ += pi[w * TILE + t];
            }
        }
        store(CX, y, elem(offy, incy, i0 + t), ar, ai, tr_, ti_, br, bi);
    }
}

/// The one-pass symmetric/Hermitian product's first launch (full or packed storage): block
/// `jb` owns the 32 columns `J` from `32 jb` and reads each stored tile `(I, J)` of its
/// column once (`I <= J` for an upper triangle, `I >= J` for a lower one). A tile gives its
/// rows `A_IJ x_J`, written to `part[jb n + i]`, and, mirrored, its columns `A_IJ^T x_I`
/// (conjugated when Hermitian), summed in registers over the column's tiles and added to the
/// diagonal tile's row sums in `part[jb n + j]`. Every sum has a fixed order. `alpha = 0`
/// (uniform) reads and writes nothing.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn symv_part<R: KReal, const CX: bool, const DSA: bool>(
    n: u32,
    flags: u32,
    kl: u32,
    ku: u32,
    a_re: R,
    a_im: R,
    alpha: &[R],
    a: &[R],
    lda: u32,
    x: &[R],
    offx: u32,
    incx: i32,
    part: &mut [R],
) {
    let tr = shared_array::<R>((TILE * PITCH) as usize);
    let ti = shared_array::<R>(if CX { (TILE * PITCH) as usize } else { 1 });
    let xjr = shared_array::<R>(TILE as usize);
    let xji = shared_array::<R>(TILE as usize);
    let xir = shared_array::<R>(TILE as usize);
    let xii = shared_array::<R>(TILE as usize);
    let rr = shared_array::<R>(THREADS as usize);
    let ri = shared_array::<R>(if CX { THREADS as usize } else { 1 });
    let dr = shared_array::<R>(TILE as usize);
    let di = shared_array::<R>(TILE as usize);
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let ai = if CX { scalar(DSA, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    if ar == lit::<R>(0.0) && ai == lit::<R>(0.0) {
        return;
    }
    let t = thread_idx_x();
    let lane = t % 32u32;
    let g = t / 32u32;
    let upper = (flags & UPPER) != 0u32;
    let herm = ((flags >> SHAPE_SHIFT) & 3u32) == HERMITIAN;
    let blocks = n / TILE + select(n % TILE != 0u32, 1u32, 0u32);
    let jb = block_idx_x();
    let j0 = jb * TILE;
    if t < TILE {
        load_x::<R>(CX, x, offx, incx, n, j0 + t, xjr, xji, t);
    }
    let mut cr = lit::<R>(0.0);
    let mut ci = lit::<R>(0.0);
    let mut ib = select(upper, 0u32, jb);
    let last = select(upper, jb + 1u32, blocks);
    while ib < last {
        let i0 = ib * TILE;
        // The stored tile, lanes down its columns (coalesced); the diagonal tile whole
        // (mirrored through fetch).
        for q in 0..(TILE * TILE / THREADS) {
            let e = t + q * THREADS;
            let (r, c) = (e % TILE, e / TILE);
            let mut vr = lit::<R>(0.0);
            let mut vi = lit::<R>(0.0);
            if i0 + r < n && j0 + c < n {
                let v = fetch::<R>(CX, a, lda, n, flags, kl, ku, i0 + r, j0 + c);
                vr = v.get(0);
                vi = v.get(1);
            }
            tr[r * PITCH + c] = vr;
            if CX {
                ti[r * PITCH + c] = vi;
            }
        }
        if t < TILE {
            load_x::<R>(CX, x, offx, incx, n, i0 + t, xir, xii, t);
        }
        sync_threads();
        // Rows: lane r, columns g, g + 8, ...
        let mut sr = lit::<R>(0.0);
        let mut si = lit::<R>(0.0);
        for q in 0..(TILE * TILE / THREADS) {
            let c = g + q * (THREADS / TILE);
            let mr = tr[lane * PITCH + c];
            if CX {
                let mi = ti[lane * PITCH + c];
                sr += mr * xjr[c] - mi * xji[c];
                si += mr * xji[c] + mi * xjr[c];
            } else {
                sr = mr.mul_add(xjr[c], sr);
            }
        }
        rr[t] = sr;
        if CX {
            ri[t] = si;
        }
        // Columns (off the diagonal): lane c, rows g, g + 8, ...
        if ib != jb {
            for q in 0..(TILE * TILE / THREADS) {
                let r = g + q * (THREADS / TILE);
                let mr = tr[r * PITCH + lane];
                if CX {
                    let mi = select(herm, -ti[r * PITCH + lane], ti[r * PITCH + lane]);
                    cr += mr * xir[r] - mi * xii[r];
                    ci += mr * xii[r] + mi * xir[r];
                } else {
                    cr = mr.mul_add(xir[r], cr);
                }
            }
        }
        sync_threads();
        if t < TILE {
            let mut s_r = rr[t];
            let mut s_i = lit::<R>(0.0);
            if CX {
                s_i = ri[t];
            }
            for w in 1..(THREADS / TILE) {
                s_r += rr[t + w * TILE];
                if CX {
                    s_i += ri[t + w * TILE];
                }
            }
            if ib == jb {
                dr[t] = s_r;
                di[t] = s_i;
            } else if i0 + t < n {
                put::<R>(CX, part, jb * n + i0 + t, s_r, s_i);
            }
        }
        sync_threads();
        ib += 1u32;
    }
    rr[t] = cr;
    if CX {
        ri[t] = ci;
    }
    sync_threads();
    if t < TILE && j0 + t < n {
        let mut s_r = dr[t];
        let mut s_i = lit::<R>(0.0);
        if CX {
            s_i = di[t];
        }
        for w in 0..(THREADS / TILE) {
            s_r += rr[t + w * TILE];
            if CX {
                s_i += ri[t + w * TILE];
            }
        }
        put::<R>(CX, part, jb * n + j0 + t, s_r, s_i);
    }
}

/// Element `k` of `x` (0 past `n`) into `re[at]`, `im[at]`.
#[device]
#[allow(clippy::too_many_arguments)]
fn load_x<R: KReal>(
    #[comptime] cx: bool,
    x: &[R],
    offx: u32,
    incx: i32,
    n: u32,
    k: u32,
    re: &mut [R],
    im: &mut [R],
    at: u32,
) {
    let mut vr = lit::<R>(0.0);
    let mut vi = lit::<R>(0.0);
    if k < n {
        let ix = elem(offx, incx, k);
        if cx {
            vr = x[2u32 * ix];
            vi = x[2u32 * ix + 1u32];
        } else {
            vr = x[ix];
        }
    }
    re[at] = vr;
    im[at] = vi;
}

/// `part[k] = (sr, si)` (`cx`: interleaved).
#[device]
fn put<R: KReal>(#[comptime] cx: bool, part: &mut [R], k: u32, sr: R, si: R) {
    if cx {
        part[2u32 * k] = sr;
        part[2u32 * k + 1u32] = si;
    } else {
        part[k] = sr;
    }
}

/// The one-pass product's second launch: `y_i = alpha sum_jb part[jb n + i] + beta y_i` over
/// the column blocks that hold row `i`'s stored tiles (`jb >= i / 32` for an upper triangle,
/// `<=` for a lower one), in increasing `jb`. `alpha = 0` reads no partial; `beta = 0` does
/// not read `y`.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn symv_finish<R: KReal, const CX: bool, const DSA: bool, const DSB: bool>(
    n: u32,
    flags: u32,
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
) {
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let ai = if CX { scalar(DSA, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    let br = scalar(DSB, b_re, &beta, 0u32);
    let bi = if CX { scalar(DSB, b_im, &beta, 1u32) } else { lit::<R>(0.0) };
    let live = ar != lit::<R>(0.0) || ai != lit::<R>(0.0);
    let upper = (flags & UPPER) != 0u32;
    let blocks = n / TILE + select(n % TILE != 0u32, 1u32, 0u32);
    let mut i = global_index() as u32;
    while i < n {
        let mut sr = lit::<R>(0.0);
        let mut si = lit::<R>(0.0);
        if live {
            let mut jb = select(upper, i / TILE, 0u32);
            let last = select(upper, blocks, i / TILE + 1u32);
            while jb < last {
                let k = jb * n + i;
                if CX {
                    sr += part[2u32 * k];
                    si += part[2u32 * k + 1u32];
                } else {
                    sr += part[k];
                }
                jb += 1u32;
            }
        }
        store(CX, y, elem(offy, incy, i), ar, ai, sr, si, br, bi);
        i += grid_stride() as u32;
    }
}

/// `y[iy] = alpha s + beta y[iy]` (`CX`: interleaved parts); `beta = 0` does not read `y`.
#[device]
#[allow(clippy::too_many_arguments)]
fn store<R: KReal>(#[comptime] cx: bool, y: &mut [R], iy: u32, ar: R, ai: R, sr: R, si: R, br: R, bi: R) {
    let pr = if cx { ar * sr - ai * si } else { ar * sr };
    let pi = if cx { ar * si + ai * sr } else { lit::<R>(0.0) };
    if br == lit::<R>(0.0) && bi == lit::<R>(0.0) {
        if cx {
            y[2u32 * iy] = pr;
            y[2u32 * iy + 1u32] = pi;
        } else {
            y[iy] = pr;
        }
    } else if cx {
        let yr = y[2u32 * iy];
        let yi = y[2u32 * iy + 1u32];
        y[2u32 * iy] = pr + br * yr - bi * yi;
        y[2u32 * iy + 1u32] = pi + br * yi + bi * yr;
    } else {
        y[iy] = br.mul_add(y[iy], pr);
    }
}

/// Solves `M x = b` in place (`x` holds `b`) for the `n x n` triangular matrix `M` of
/// [`fetch`] (lower with [`FORWARD`] in `flags`, else upper), nonzero only for
/// `i - lo <= j <= i + up`: one block of [`SOLVE_THREADS`] threads (see the module doc). No
/// singularity check: a zero diagonal gives Inf or NaN, as in reference BLAS.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn tsv<R: KReal, const CX: bool>(
    n: u32,
    lo: u32,
    up: u32,
    flags: u32,
    kl: u32,
    ku: u32,
    a: &[R],
    lda: u32,
    x: &mut [R],
    offx: u32,
    incx: i32,
) {
    // At most 64 registers a thread, so 1024 threads fit a multiprocessor.
    launch_bounds(SOLVE_THREADS, 1);
    let tr = shared_array::<R>((TILE * PITCH) as usize);
    let ti = shared_array::<R>(if CX { (TILE * PITCH) as usize } else { 1 });
    let xr = shared_array::<R>(TILE as usize);
    let xi = shared_array::<R>(TILE as usize);
    let t = thread_idx_x();
    let lane = t % 32u32;
    let fwd = (flags & FORWARD) != 0u32;
    let unit = (flags & UNIT) != 0u32;
    let trans = (flags & TRANS) != 0u32;
    let blocks = n / TILE + select(n % TILE != 0u32, 1u32, 0u32);
    let mut b = 0u32;
    while b < blocks {
        let j0 = select(fwd, b, blocks - 1u32 - b) * TILE;
        let nb = (n - j0).min(TILE);
        // The diagonal block, lanes along the stored row index.
        for q in 0..(TILE * TILE / SOLVE_THREADS) {
            let e = q * SOLVE_THREADS + t;
            let r = select(trans, e / TILE, e % TILE);
            let c = select(trans, e % TILE, e / TILE);
            let mut vr = lit::<R>(0.0);
            let mut vi = lit::<R>(0.0);
            if r < nb && c < nb {
                let v = fetch::<R>(CX, a, lda, n, flags, kl, ku, j0 + r, j0 + c);
                vr = v.get(0);
                vi = v.get(1);
            }
            tr[r * PITCH + c] = vr;
            if CX {
                ti[r * PITCH + c] = vi;
            }
        }
        sync_threads();
        if t < 32u32 {
            let mut vr = lit::<R>(0.0);
            let mut vi = lit::<R>(0.0);
            let ix = elem(offx, incx, j0 + lane.min(nb - 1u32));
            if lane < nb {
                if CX {
                    vr = x[2u32 * ix];
                    vi = x[2u32 * ix + 1u32];
                } else {
                    vr = x[ix];
                }
            }
            let mut k = 0u32;
            while k < nb {
                let kk = select(fwd, k, nb - 1u32 - k);
                if lane == kk && !unit {
                    let dr = tr[kk * PITCH + kk];
                    if CX {
                        let di = ti[kk * PITCH + kk];
                        let den = dr * dr + di * di;
                        let qr = (vr * dr + vi * di) / den;
                        let qi = (vi * dr - vr * di) / den;
                        vr = qr;
                        vi = qi;
                    } else {
                        vr = vr / dr;
                    }
                }
                let kr = shfl_idx(vr, kk);
                let ki = if CX { shfl_idx(vi, kk) } else { lit::<R>(0.0) };
                // Rows after kk (forward) or before it, inside M's band.
                let dep = (fwd && lane > kk && lane - kk <= lo) || (!fwd && lane < kk && kk - lane <= up);
                if dep && lane < nb {
                    let mr = tr[lane * PITCH + kk];
                    if CX {
                        let mi = ti[lane * PITCH + kk];
                        vr = vr - (mr * kr - mi * ki);
                        vi = vi - (mr * ki + mi * kr);
                    } else {
                        vr = (-mr).mul_add(kr, vr);
                    }
                }
                k += 1u32;
            }
            if lane < nb {
                if CX {
                    x[2u32 * ix] = vr;
                    x[2u32 * ix + 1u32] = vi;
                } else {
                    x[ix] = vr;
                }
                xr[lane] = vr;
                xi[lane] = vi;
            }
        }
        sync_threads();
        // The rest of x inside the band: rows below the block (forward) or above it.
        let ra = select(fwd, j0 + nb, select(j0 > up, j0 - up, 0u32));
        let rb = select(fwd, (((j0 + nb) as u64 + lo as u64).min(n as u64)) as u32, j0);
        let mut i = ra + t;
        while i < rb {
            let mut sr = lit::<R>(0.0);
            let mut si = lit::<R>(0.0);
            // Only the block's columns inside row i's band.
            // (Forward: i is past the block, its band starts d - lo columns in; backward: i
            // is before it, d <= up, and its band ends at column up - d.)
            let d = select(fwd, i - j0, j0 - i);
            let mut c = select(fwd && d > lo, d - lo, 0u32);
            let end = select(fwd, nb, (up - d).min(nb - 1u32) + 1u32);
            while c < end {
                let v = fetch::<R>(CX, a, lda, n, flags, kl, ku, i, j0 + c);
                if CX {
                    sr += v.get(0) * xr[c] - v.get(1) * xi[c];
                    si += v.get(0) * xi[c] + v.get(1) * xr[c];
                } else {
                    sr = v.get(0).mul_add(xr[c], sr);
                }
                c += 1u32;
            }
            let ix = elem(offx, incx, i);
            if CX {
                x[2u32 * ix] = x[2u32 * ix] - sr;
                x[2u32 * ix + 1u32] = x[2u32 * ix + 1u32] - si;
            } else {
                x[ix] = x[ix] - sr;
            }
            i += SOLVE_THREADS;
        }
        sync_threads();
        b += 1u32;
    }
}

/// The GPU code: every instantiation the host launches lowers to PTX for sm_80 and sm_90
/// (the CPU executor, which runs them in the tests, does not go through PTX).
#[cfg(test)]
mod ptx {
    use super::{smv, symv_finish, symv_part, tsv};

    #[test]
    fn every_instantiation_lowers_to_ptx() {
        for target in ["sm_80", "sm_90"] {
            macro_rules! smv {
                ($($r:ty, $cx:literal, $da:literal, $db:literal);*) => {$(
                    let p = smv::kernel::<$r, $cx, $da, $db>().unwrap().ptx(target).unwrap();
                    assert!(p.contains("bar.sync"), "smv: no barrier");
                )*};
            }
            smv!(f32, false, false, false; f32, false, true, true; f64, false, false, true;
                 f32, true, true, false; f64, true, false, false; f64, true, true, true);
            for p in [
                symv_part::kernel::<f32, false, false>().unwrap().ptx(target).unwrap(),
                symv_part::kernel::<f64, true, true>().unwrap().ptx(target).unwrap(),
                symv_finish::kernel::<f32, false, true, false>().unwrap().ptx(target).unwrap(),
                symv_finish::kernel::<f64, true, false, true>().unwrap().ptx(target).unwrap(),
            ] {
                assert!(p.contains(".entry"), "symv: no kernel");
            }
            for p in [
                tsv::kernel::<f32, false>().unwrap().ptx(target).unwrap(),
                tsv::kernel::<f64, false>().unwrap().ptx(target).unwrap(),
                tsv::kernel::<f32, true>().unwrap().ptx(target).unwrap(),
                tsv::kernel::<f64, true>().unwrap().ptx(target).unwrap(),
            ] {
                assert!(p.contains("shfl.sync.idx"), "tsv: the solved element is not broadcast by shuffle");
                assert!(p.contains(".maxntid 1024, 1, 1"), "tsv: no launch bound for its 1024 threads");
                assert!(p.contains("bar.sync"), "tsv: no barrier");
            }
        }
    }
}
