//! Level 3 beyond GEMM in the kernel language: the structured GEMM under `symm`/`hemm`,
//! `syrk`/`herk`, `syr2k`/`her2k` and `trmm`, the diagonal-block solve under `trsm`, and two
//! small helpers (a matrix copy/clear and trsm's device-alpha flag).
//!
//! [`l3_gemm`] is the SIMT GEMM of [`super::gemm::gemm_simt`] (16 x 16 threads, `W x W` register
//! tiles, 16-deep K slabs through shared memory with the next slab prefetched into registers)
//! with two changes, both selected by the runtime word `mode` (uniform over the grid, so every
//! branch on it is uniform):
//! - one operand may be *structured*: its element `(r, c)` (stored coordinates) is read through
//!   a triangle: mirrored for a symmetric matrix, conjugate-mirrored with a real diagonal for a
//!   Hermitian one, zero outside the triangle (and an implicit unit diagonal) for a triangular
//!   one. Nothing outside the stored triangle is read.
//! - the store may be limited to one triangle of `C` (blocks wholly outside it return at once),
//!   and a Hermitian store writes the diagonal's imaginary part as zero.

use ferrocm_kernel::prelude::*;

use super::gemm::{simt_at, simt_slot, simt_store, SIMT_PAD};
use super::{lit, scalar, KReal};

/// `mode` bits of [`l3_gemm`]: the structure of the structured operand (0 none).
pub const ST_MASK: u32 = 3;
/// Structure: symmetric (mirror).
pub const ST_SYM: u32 = 1;
/// Structure: Hermitian (conjugate mirror, real diagonal).
pub const ST_HERM: u32 = 2;
/// Structure: triangular (zero outside, [`M_UNIT`] for an implicit unit diagonal).
pub const ST_TRI: u32 = 3;
/// The structured operand is `B` (else `A`).
pub const M_ON_B: u32 = 4;
/// The structured operand's stored triangle is the lower one.
pub const M_LOWER: u32 = 8;
/// The triangular operand has an implicit unit diagonal (never read).
pub const M_UNIT: u32 = 16;
/// Store only `C`'s upper triangle (`row <= col`).
pub const M_C_UPPER: u32 = 32;
/// Store only `C`'s lower triangle (`row >= col`).
pub const M_C_LOWER: u32 = 64;
/// `C` is Hermitian: its diagonal's imaginary part is written zero.
pub const M_C_HERM: u32 = 128;
/// Use `conj(alpha)`.
pub const M_CONJ_ALPHA: u32 = 256;
/// `alpha` is real (a device alpha holds one real; its imaginary part is not read).
pub const M_REAL_ALPHA: u32 = 512;
/// `beta` is real (as [`M_REAL_ALPHA`]).
pub const M_REAL_BETA: u32 = 1024;

/// Loads register `r` of one operand's share of the slab at `k0` into `nr[r]` (`ni[r]`), as
/// `gemm::simt_fetch`, reading the stored element `(sr, sc)` through the structure `st`
/// (0 general, else [`ST_SYM`], [`ST_HERM`], [`ST_TRI`]) of the triangle `lower` (0 or 1),
/// `unit` (0 or 1) for a triangular matrix; `conj` (the operation `C`) conjugates last.
#[device]
#[allow(clippy::too_many_arguments)]
fn l3_fetch<R: KReal, const CX: bool, const W: usize>(
    #[comptime] direct: bool,
    #[comptime] conj: bool,
    #[comptime] r: usize,
    st: u32,
    lower: u32,
    unit: u32,
    x: &[R],
    ld: u32,
    mn: u32,
    k: u32,
    r0: u32,
    k0: u32,
    t_lo: u32,
    t_hi: u32,
    nr: &VarArray<Val<R>>,
    ni: &VarArray<Val<R>>,
) {
    let at = simt_slot(direct, W, r, t_lo, t_hi);
    let gi = r0 + at.get(0);
    let gk = k0 + at.get(1);
    let sr = if direct { gi } else { gk };
    let sc = if direct { gk } else { gi };
    let mut vr = lit::<R>(0.0);
    let mut vi = lit::<R>(0.0);
    if gi < mn && gk < k {
        // Inside the stored triangle (the diagonal included).
        let inside = select(lower == 1u32, sr >= sc, sr <= sc);
        let mut idx = sr + sc * ld;
        let read = st != ST_TRI || (inside && (unit == 0u32 || sr != sc));
        if st == ST_SYM || st == ST_HERM {
            idx = select(inside, sr + sc * ld, sc + sr * ld);
        }
        if read {
            if CX {
                vr = x.load(2u32 * idx);
                vi = x.load(2u32 * idx + 1u32);
            } else {
                vr = x.load(idx);
            }
        }
        if st == ST_TRI {
            if unit == 1u32 && sr == sc {
                vr = lit::<R>(1.0);
            }
        }
        if CX {
            if st == ST_HERM {
                if sr == sc {
                    vi = lit::<R>(0.0);
                }
                if !inside {
                    vi = -vi;
                }
            }
            if conj {
                vi = -vi;
            }
        }
    }
    nr.set(r, vr);
    if CX {
        ni.set(r, vi);
    }
}

/// `C = alpha op(A) op(B) + beta C` with the structure and store rules of `mode` (the
/// module docs; bits `ST_*` and `M_*`), `A` `m x k` as `op(A)`, `B` `k x n` as `op(B)`, one
/// `16 W x 16 W` tile of `C` per block of 16 x 16 threads. `TA`/`TB`: 0 `N`, 1 `T`, 2 `C`.
/// `beta = 0` never reads `C`; `alpha = 0` never reads `A` or `B`.
#[kernel]
pub fn l3_gemm<
    R: KReal,
    const CX: bool,
    const TA: u32,
    const TB: u32,
    const DSA: bool,
    const DSB: bool,
    const W: usize,
>(
    mode: u32,
    m: u32,
    n: u32,
    k: u32,
    a_re: R,
    a_im: R,
    alpha: &[R],
    a: &[R],
    lda: u32,
    b: &[R],
    ldb: u32,
    b_re: R,
    b_im: R,
    beta: &[R],
    c: &mut [R],
    ldc: u32,
) {
    let v4 = !CX && W == 8;
    let p = 16 * W + SIMT_PAD;
    let tile = (16 * W) as u32;
    let row0 = block_idx_y() * tile;
    let col0 = block_idx_x() * tile;
    // Tiles wholly outside C's stored triangle have nothing to write.
    if (mode & M_C_UPPER) != 0u32 && row0 >= col0 + tile {
        return;
    }
    if (mode & M_C_LOWER) != 0u32 && col0 >= row0 + tile {
        return;
    }
    let sar = shared_array_aligned::<R>(16 * p, 16);
    let sbr = shared_array_aligned::<R>(16 * p, 16);
    let sai = shared_array::<R>(if CX { 16 * p } else { 1 });
    let sbi = shared_array::<R>(if CX { 16 * p } else { 1 });
    let accr = var_array(W * W, lit::<R>(0.0));
    let acci = var_array(if CX { W * W } else { 1 }, lit::<R>(0.0));
    let far = var_array(W, lit::<R>(0.0));
    let fai = var_array(W, lit::<R>(0.0));
    let fbr = var_array(W, lit::<R>(0.0));
    let fbi = var_array(W, lit::<R>(0.0));
    let nar = var_array(W, lit::<R>(0.0));
    let nai = var_array(if CX { W } else { 1 }, lit::<R>(0.0));
    let nbr = var_array(W, lit::<R>(0.0));
    let nbi = var_array(if CX { W } else { 1 }, lit::<R>(0.0));
    let tx = thread_idx_x();
    let ty = thread_idx_y();
    let t = ty * 16u32 + tx;
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let mut ai = lit::<R>(0.0);
    if CX {
        if (mode & M_REAL_ALPHA) == 0u32 {
            ai = scalar(DSA, a_im, &alpha, 1u32);
        }
        if (mode & M_CONJ_ALPHA) != 0u32 {
            ai = -ai;
        }
    }
    let br = scalar(DSB, b_re, &beta, 0u32);
    let mut bi = lit::<R>(0.0);
    if CX {
        if (mode & M_REAL_BETA) == 0u32 {
            bi = scalar(DSB, b_im, &beta, 1u32);
        }
    }
    // The structure of each operand (0 for the general one).
    let st = mode & ST_MASK;
    let on_b = (mode & M_ON_B) != 0u32;
    let sta = select(on_b, 0u32, st);
    let stb = select(on_b, st, 0u32);
    let lower = (mode / M_LOWER) & 1u32;
    let unit = (mode / M_UNIT) & 1u32;
    let t_lo = t % ((16 * W) as u32);
    let t_hi = t / ((16 * W) as u32);
    let (da, db) = (TA == 0, TB != 0);
    // alpha = 0 reads neither A nor B (uniform over the block, so the barriers agree).
    if ar != lit::<R>(0.0) || ai != lit::<R>(0.0) {
        let mut k0 = 0u32;
        for r in 0..W {
            l3_fetch::<R, CX, W>(
                da,
                TA == 2,
                r,
                sta,
                lower,
                unit,
                a,
                lda,
                m,
                k,
                row0,
                k0,
                t_lo,
                t_hi,
                &nar,
                &nai,
            );
            l3_fetch::<R, CX, W>(
                db,
                TB == 2,
                r,
                stb,
                lower,
                unit,
                b,
                ldb,
                n,
                k,
                col0,
                k0,
                t_lo,
                t_hi,
                &nbr,
                &nbi,
            );
        }
        while k0 < k {
            for r in 0..W {
                simt_store::<R, CX, W>(da, r, p, sar, sai, t_lo, t_hi, &nar, &nai);
                simt_store::<R, CX, W>(db, r, p, sbr, sbi, t_lo, t_hi, &nbr, &nbi);
            }
            sync_threads();
            let k1 = k0 + 16u32;
            if k1 < k {
                for r in 0..W {
                    l3_fetch::<R, CX, W>(
                        da,
                        TA == 2,
                        r,
                        sta,
                        lower,
                        unit,
                        a,
                        lda,
                        m,
                        k,
                        row0,
                        k1,
                        t_lo,
                        t_hi,
                        &nar,
                        &nai,
                    );
                    l3_fetch::<R, CX, W>(
                        db,
                        TB == 2,
                        r,
                        stb,
                        lower,
                        unit,
                        b,
                        ldb,
                        n,
                        k,
                        col0,
                        k1,
                        t_lo,
                        t_hi,
                        &nbr,
                        &nbi,
                    );
                }
            }
            for q in 0..16usize {
                let row = (q * p) as u32;
                if v4 {
                    for h in 0..W / 4 {
                        let va = sar.load4((row + (64 * h) as u32 + tx * 4u32) / 4u32);
                        let vb = sbr.load4((row + (64 * h) as u32 + ty * 4u32) / 4u32);
                        for e in 0..4usize {
                            far.set(4 * h + e, va.get(e));
                            fbr.set(4 * h + e, vb.get(e));
                        }
                    }
                } else {
                    for i in 0..W {
                        far.set(i, sar[row + simt_at(false, i, tx)]);
                        fbr.set(i, sbr[row + simt_at(false, i, ty)]);
                        if CX {
                            fai.set(i, sai[row + simt_at(false, i, tx)]);
                            fbi.set(i, sbi[row + simt_at(false, i, ty)]);
                        }
                    }
                }
                for i in 0..W {
                    for j in 0..W {
                        if CX {
                            let (xr, xi, yr, yi) = (far.get(i), fai.get(i), fbr.get(j), fbi.get(j));
                            accr.set(i * W + j, accr.get(i * W + j) + xr * yr - xi * yi);
                            acci.set(i * W + j, acci.get(i * W + j) + xr * yi + xi * yr);
                        } else {
                            accr.set(i * W + j, far.get(i).mul_add(fbr.get(j), accr.get(i * W + j)));
                        }
                    }
                }
            }
            sync_threads();
            k0 = k1;
        }
    }
    let zero_beta = br == lit::<R>(0.0) && bi == lit::<R>(0.0);
    let up = (mode & M_C_UPPER) != 0u32;
    let lo = (mode & M_C_LOWER) != 0u32;
    let herm = (mode & M_C_HERM) != 0u32;
    for j in 0..W {
        let col = col0 + simt_at(v4, j, ty);
        for i in 0..W {
            let row = row0 + simt_at(v4, i, tx);
            let keep = (!up || row <= col) && (!lo || row >= col);
            if row < m && col < n && keep {
                let ic = row + col * ldc;
                let sr = accr.get(i * W + j);
                let si = if CX { acci.get(i * W + j) } else { lit::<R>(0.0) };
                let pr = if CX { ar * sr - ai * si } else { ar * sr };
                let pi = if CX { ar * si + ai * sr } else { lit::<R>(0.0) };
                if zero_beta {
                    if CX {
                        c[2u32 * ic] = pr;
                        c[2u32 * ic + 1u32] = select(herm && row == col, lit::<R>(0.0), pi);
                    } else {
                        c[ic] = pr;
                    }
                } else if CX {
                    let cr = c[2u32 * ic];
                    let ci = c[2u32 * ic + 1u32];
                    // A Hermitian C's diagonal is real: its stored imaginary part is not read.
                    let ci = select(herm && row == col, lit::<R>(0.0), ci);
                    c[2u32 * ic] = pr + br * cr - bi * ci;
                    c[2u32 * ic + 1u32] = select(herm && row == col, lit::<R>(0.0), pi + br * ci + bi * cr);
                } else {
                    c[ic] = br.mul_add(c[ic], pr);
                }
            }
        }
    }
}

/// `dst = src` (`CLEAR`: `dst = 0`, `src` not read) for an `m x n` column-major matrix.
#[kernel]
pub fn l3_copy<R: KReal, const CX: bool, const CLEAR: bool>(
    m: u32,
    n: u32,
    src: &[R],
    lds: u32,
    dst: &mut [R],
    ldd: u32,
) {
    let total = m * n;
    let mut e = global_index() as u32;
    while e < total {
        let i = e % m;
        let j = e / m;
        let is = i + j * lds;
        let id = i + j * ldd;
        if CX {
            let mut vr = lit::<R>(0.0);
            let mut vi = lit::<R>(0.0);
            if !CLEAR {
                vr = src[2u32 * is];
                vi = src[2u32 * is + 1u32];
            }
            dst[2u32 * id] = vr;
            dst[2u32 * id + 1u32] = vi;
        } else {
            let mut v = lit::<R>(0.0);
            if !CLEAR {
                v = src[is];
            }
            dst[id] = v;
        }
        e += grid_stride() as u32;
    }
}

/// `out = 0` if the device scalar `alpha` is zero, else `-1` (trsm's update factor: a zero
/// alpha then reads no `A` in the updates). One thread.
#[kernel]
pub fn l3_neg_flag<R: KReal, const CX: bool>(alpha: &[R], out: &mut [R]) {
    if global_index() == 0usize {
        let ar = alpha[0u32];
        let mut ai = lit::<R>(0.0);
        if CX {
            ai = alpha[1u32];
        }
        let zero = ar == lit::<R>(0.0) && ai == lit::<R>(0.0);
        out[0u32] = select(zero, lit::<R>(0.0), lit::<R>(-1.0));
        if CX {
            out[1u32] = lit::<R>(0.0);
        }
    }
}

/// Rows of a diagonal block of [`trsm_diag`].
pub const TRSM_NB: u32 = 32;

/// Right-hand sides per block of [`trsm_diag`] (one thread each): 64 real, 32 complex (the
/// shared memory of complex f64 then stays under 48 KiB).
pub const fn trsm_rhs(complex: bool) -> u32 {
    if complex {
        32
    } else {
        64
    }
}

/// `trsm_diag` mode bits: `M` is `A^T` in storage (element `(i, l)` at `A(l, i)`).
pub const TS_TRANS: u32 = 1;
/// Conjugate `A`'s elements.
pub const TS_CONJ: u32 = 2;
/// `M` is lower triangular (forward substitution); else upper (backward).
pub const TS_LOWER: u32 = 4;
/// Unit diagonal (never read).
pub const TS_UNIT: u32 = 8;
/// Right side: right-hand side `c` is row `c` of `B` (element `i` at `B(c, i)`); else column.
pub const TS_RIGHT: u32 = 16;
/// Multiply the right-hand sides by `alpha` first (the first block of a solve).
pub const TS_SCALE: u32 = 32;

/// Solves one diagonal block of a triangular system in place: `M x = s b` for every
/// right-hand side, `M` the `len x len` diagonal block at `(r0, r0)` of the triangular matrix
/// (per `mode`, the `TS_*` bits), `s` alpha with [`TS_SCALE`] (else 1). Block `bx` takes
/// right-hand sides `RHS bx ..` (one thread each); the block of `M` and the right-hand
/// sides are staged in shared memory with coalesced loads, the solution written back to `B`
/// and to `w` (left: `w[i + c NB]`, right: `w[c + i nrhs]`, the GEMM update's operand). A zero
/// `alpha` writes zeros and reads no `A`. Batch `block_idx_z` takes `A`, `B` and `w` at
/// `z stride_*` (in reals).
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn trsm_diag<R: KReal, const CX: bool, const DSA: bool>(
    mode: u32,
    len: u32,
    nrhs: u32,
    r0: u32,
    a_re: R,
    a_im: R,
    alpha: &[R],
    a: &[R],
    lda: u32,
    stride_a: u32,
    b: &mut [R],
    ldb: u32,
    stride_b: u32,
    w: &mut [R],
    stride_w: u32,
) {
    let nb = TRSM_NB as usize;
    let rhs = trsm_rhs(CX) as usize;
    let xp = rhs + 1;
    let mr = shared_array::<R>(nb * nb);
    let mi = shared_array::<R>(if CX { nb * nb } else { 1 });
    let xr = shared_array::<R>(nb * xp);
    let xi = shared_array::<R>(if CX { nb * xp } else { 1 });
    let t = thread_idx_x();
    let c0 = block_idx_x() * (rhs as u32);
    // Batch z's matrices (strides in reals).
    let z = block_idx_z();
    let oa = z * stride_a;
    let ob = z * stride_b;
    let ow = z * stride_w;
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let mut ai = lit::<R>(0.0);
    if CX {
        ai = scalar(DSA, a_im, &alpha, 1u32);
    }
    let live = ar != lit::<R>(0.0) || ai != lit::<R>(0.0);
    let trans = (mode & TS_TRANS) != 0u32;
    let cj = (mode & TS_CONJ) != 0u32;
    let lower = (mode & TS_LOWER) != 0u32;
    let unit = (mode & TS_UNIT) != 0u32;
    let right = (mode & TS_RIGHT) != 0u32;
    let sc = (mode & TS_SCALE) != 0u32;
    // The block of M: thread t loads stored elements (p, q) = (e % NB, e / NB) of the block,
    // down the stored columns; only the triangle the solve uses is read.
    if live {
        let mut e = t;
        while e < TRSM_NB * TRSM_NB {
            let p = e % TRSM_NB;
            let q = e / TRSM_NB;
            let i = select(trans, q, p);
            let l = select(trans, p, q);
            let used = select(lower, l <= i, l >= i) && (!unit || l != i);
            if p < len && q < len && used {
                let ia = (r0 + p) + (r0 + q) * lda;
                if CX {
                    mr[i * TRSM_NB + l] = a[oa + 2u32 * ia];
                    let v = a[oa + 2u32 * ia + 1u32];
                    mi[i * TRSM_NB + l] = select(cj, -v, v);
                } else {
                    mr[i * TRSM_NB + l] = a[oa + ia];
                }
            }
            e += rhs as u32;
        }
    }
    // The right-hand sides, scaled: element (i, cc) at xs[i XP + cc].
    let mut e = t;
    while e < TRSM_NB * (rhs as u32) {
        // Left: i fastest (down B's columns); right: cc fastest (down B's columns too).
        let i = select(right, e / (rhs as u32), e % TRSM_NB);
        let cc = select(right, e % (rhs as u32), e / TRSM_NB);
        let cg = c0 + cc;
        if i < len && cg < nrhs {
            let ib = select(right, cg + (r0 + i) * ldb, (r0 + i) + cg * ldb);
            let slot = i * (xp as u32) + cc;
            if CX {
                let mut vr = lit::<R>(0.0);
                let mut vi = lit::<R>(0.0);
                if live {
                    let br = b[ob + 2u32 * ib];
                    let bi = b[ob + 2u32 * ib + 1u32];
                    vr = br;
                    vi = bi;
                    if sc {
                        vr = ar * br - ai * bi;
                        vi = ar * bi + ai * br;
                    }
                }
                xr[slot] = vr;
                xi[slot] = vi;
            } else {
                let mut v = lit::<R>(0.0);
                if live {
                    v = b[ob + ib];
                    if sc {
                        v = ar * v;
                    }
                }
                xr[slot] = v;
            }
        }
        e += rhs as u32;
    }
    sync_threads();
    if live && c0 + t < nrhs {
        let mut s = 0u32;
        while s < len {
            let i = select(lower, s, len - 1u32 - s);
            let xs = i * (xp as u32) + t;
            let mut vr = xr[xs];
            let mut vi = lit::<R>(0.0);
            if CX {
                vi = xi[xs];
            }
            // The solved entries: l < i (forward) or l > i (backward).
            let mut q = 0u32;
            while q < s {
                let l = select(lower, q, len - 1u32 - q);
                let at = i * TRSM_NB + l;
                let xl = l * (xp as u32) + t;
                if CX {
                    let (m_r, m_i, x_r, x_i) = (mr[at], mi[at], xr[xl], xi[xl]);
                    vr = vr - (m_r * x_r - m_i * x_i);
                    vi = vi - (m_r * x_i + m_i * x_r);
                } else {
                    vr = (-mr[at]).mul_add(xr[xl], vr);
                }
                q += 1u32;
            }
            if !unit {
                let at = i * TRSM_NB + i;
                if CX {
                    let (dr, di) = (mr[at], mi[at]);
                    let den = dr * dr + di * di;
                    let nr = (vr * dr + vi * di) / den;
                    let ni = (vi * dr - vr * di) / den;
                    vr = nr;
                    vi = ni;
                } else {
                    vr = vr / mr[at];
                }
            }
            xr[xs] = vr;
            if CX {
                xi[xs] = vi;
            }
            s += 1u32;
        }
    }
    sync_threads();
    let mut e = t;
    while e < TRSM_NB * (rhs as u32) {
        let i = select(right, e / (rhs as u32), e % TRSM_NB);
        let cc = select(right, e % (rhs as u32), e / TRSM_NB);
        let cg = c0 + cc;
        if i < len && cg < nrhs {
            let ib = select(right, cg + (r0 + i) * ldb, (r0 + i) + cg * ldb);
            let iw = select(right, cg + i * nrhs, i + cg * TRSM_NB);
            let slot = i * (xp as u32) + cc;
            if CX {
                b[ob + 2u32 * ib] = xr[slot];
                b[ob + 2u32 * ib + 1u32] = xi[slot];
                w[ow + 2u32 * iw] = xr[slot];
                w[ow + 2u32 * iw + 1u32] = xi[slot];
            } else {
                b[ob + ib] = xr[slot];
                w[ow + iw] = xr[slot];
            }
        }
        e += rhs as u32;
    }
}

/// Every kernel here lowers to PTX for sm_80 and sm_90 (no GPU needed), within the 48 KiB of
/// static shared memory a block may declare.
#[cfg(test)]
mod ptx {
    use super::*;

    /// The bytes of `.shared` arrays the PTX declares.
    fn shared_bytes(ptx: &str) -> usize {
        ptx.lines()
            .filter(|l| l.contains(".shared") && l.contains('['))
            .map(|l| {
                let elem = if l.contains(".b64") || l.contains(".f64") || l.contains(".u64") { 8 } else { 4 };
                let n: usize = l
                    .split('[')
                    .nth(1)
                    .and_then(|s| s.split(']').next())
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                if l.contains(".b8") {
                    n
                } else {
                    n * elem
                }
            })
            .sum()
    }

    fn check(name: &str, ptx: &str) {
        let bytes = shared_bytes(ptx);
        if std::env::var_os("L3_SHARED").is_some() {
            eprintln!("{name}: {bytes} bytes shared");
        }
        if let Some(dir) = std::env::var_os("L3_DUMP_PTX") {
            std::fs::write(std::path::Path::new(&dir).join(format!("{}.ptx", name.replace(' ', "_"))), ptx)
                .unwrap();
        }
        assert!(bytes <= 48 * 1024, "{name}: {bytes} bytes of static shared memory");
    }

    #[test]
    fn l3_kernels_lower_for_sm80_and_sm90() {
        for sm in ["sm_80", "sm_90"] {
            let ptx = l3_gemm::kernel::<f32, false, 0, 1, false, false, 8>().unwrap().ptx(sm).unwrap();
            check("l3_gemm f32", &ptx);
            let ptx = l3_gemm::kernel::<f64, false, 1, 0, true, true, 8>().unwrap().ptx(sm).unwrap();
            check("l3_gemm f64", &ptx);
            let ptx = l3_gemm::kernel::<f64, true, 2, 0, false, true, 4>().unwrap().ptx(sm).unwrap();
            check("l3_gemm c64", &ptx);
            let ptx = l3_gemm::kernel::<f32, true, 0, 2, true, false, 4>().unwrap().ptx(sm).unwrap();
            check("l3_gemm c32", &ptx);
            for (name, ptx) in [
                ("trsm_diag f32", trsm_diag::kernel::<f32, false, false>().unwrap().ptx(sm).unwrap()),
                ("trsm_diag f64", trsm_diag::kernel::<f64, false, true>().unwrap().ptx(sm).unwrap()),
                ("trsm_diag c64", trsm_diag::kernel::<f64, true, true>().unwrap().ptx(sm).unwrap()),
                ("l3_copy", l3_copy::kernel::<f64, true, false>().unwrap().ptx(sm).unwrap()),
                ("l3_neg_flag", l3_neg_flag::kernel::<f32, true>().unwrap().ptx(sm).unwrap()),
            ] {
                check(name, &ptx);
                if name.starts_with("trsm_diag") {
                    assert!(ptx.contains("bar.sync"), "{name}: no barrier");
                }
            }
        }
    }
}
