//! GEMM kernels in the kernel language.
//!
//! The SIMT family (every type, every target): a block of 16 x 16 threads computes a
//! `16 W x 16 W` tile of `C`, each thread a `W x W` register tile, staging 16-wide slabs of
//! `op(A)` and `op(B)` through shared memory (loads coalesced along the stored leading
//! dimension for every operation). The FP64 tensor-core families multiply real f64 tiles with
//! `mma.sync`: 8x8x4 on sm_80+ (`gemm_dmma`), 16x8x16 on sm_90+ (`gemm_dmma16`). Batches run on the
//! grid's `z` axis at element strides. Which family runs is the planner's choice
//! ([`crate::level3`]); the tensor-core families plug in there.

use ferrocm_kernel::prelude::*;

use super::{lit, scalar, KReal};

/// The SIMT GEMM's block edge, in threads.
pub const BLOCK_EDGE: u32 = 16;

/// The register tile edge `W` of the SIMT GEMM for a real element of `real_bytes` and
/// complexity: 8 x 8 for real types (a 128 x 128 tile of C, 16 KiB (f32) or 32 KiB (f64) of
/// shared memory), 4 x 4 for complex ones (two accumulators per element; 64 x 64 tiles).
pub const fn register_tile(complex: bool) -> usize {
    if complex {
        4
    } else {
        8
    }
}

/// Padding (elements) after each K row of the SIMT GEMM's shared slabs: the transposed
/// operands' stores (16 threads of a warp on 16 K rows) then spread over the banks instead of
/// hitting one, and rows stay 16-byte aligned for the 4-wide fragment loads.
pub(super) const SIMT_PAD: usize = 4;

/// Row (or column) offset in the tile of register `i` of a thread at `t` (its `tx` or `ty`):
/// 4-wide groups (`64 (i / 4) + 4 t + i % 4`, one 16-byte shared load per group) when `V4`,
/// else `t + 16 i`.
#[device]
pub(super) fn simt_at(#[comptime] v4: bool, #[comptime] i: usize, t: u32) -> u32 {
    let mut o = t + (16 * i) as u32;
    if v4 {
        o = t * 4u32 + (64 * (i / 4) + i % 4) as u32;
    }
    o
}

/// Where register `r` of a thread's share of a SIMT slab lives: `(i, kk)`, `i` the tile row of
/// `op(A)` (or column of `op(B)`), `kk` the K index in the slab. `direct` operands (A with `N`,
/// B with `T`: stored along `i`) give thread `t` index `t % 16W` of K rows
/// `t / 16W + r (256 / 16W)` (coalesced down the stored column); the others (stored along K)
/// K index `tx` of `i = ty + 16 r` (coalesced along the stored row).
#[device]
pub(super) fn simt_slot(
    #[comptime] direct: bool,
    #[comptime] w: usize,
    #[comptime] r: usize,
    t_lo: u32,
    t_hi: u32,
) -> Vec2<u32> {
    let mut i = thread_idx_y() + (16 * r) as u32;
    let mut kk = thread_idx_x();
    if direct {
        i = t_lo;
        kk = t_hi + (r * 256 / (16 * w)) as u32;
    }
    vec2(i, kk)
}

/// Loads register `r` of one operand's share of the SIMT GEMM's slab at `k0` into `nr[r]`
/// (`ni[r]`), at [`simt_slot`], zero outside the matrix (`conj` negates imaginary parts):
/// element `(i, kk)` of the slab is stored at `o + (r0 + i) + (k0 + kk) ld` when `direct`,
/// else at `o + (k0 + kk) + (r0 + i) ld`; `mn` bounds `r0 + i`. A is `(row0, m)`, B `(col0, n)`.
#[device]
#[allow(clippy::too_many_arguments)]
fn simt_fetch<R: KReal, const CX: bool, const W: usize>(
    #[comptime] direct: bool,
    #[comptime] conj: bool,
    #[comptime] r: usize,
    x: &[R],
    o: u32,
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
    let mut vr = lit::<R>(0.0);
    let mut vi = lit::<R>(0.0);
    if gi < mn && gk < k {
        let idx = if direct { o + gi + gk * ld } else { o + gk + gi * ld };
        if CX {
            vr = x.load(2u32 * idx);
            vi = x.load(2u32 * idx + 1u32);
            if conj {
                vi = -vi;
            }
        } else {
            vr = x.load(idx);
        }
    }
    nr.set(r, vr);
    if CX {
        ni.set(r, vi);
    }
}

/// Stores register `r` of one operand from [`simt_fetch`] into its k-major shared slab (row
/// pitch `p`; `si` only for complex types).
#[device]
#[allow(clippy::too_many_arguments)]
pub(super) fn simt_store<R: KReal, const CX: bool, const W: usize>(
    #[comptime] direct: bool,
    #[comptime] r: usize,
    #[comptime] p: usize,
    sr: Shared<R>,
    si: Shared<R>,
    t_lo: u32,
    t_hi: u32,
    nr: &VarArray<Val<R>>,
    ni: &VarArray<Val<R>>,
) {
    let at = simt_slot(direct, W, r, t_lo, t_hi);
    let slot = at.get(1) * (p as u32) + at.get(0);
    sr[slot] = nr.get(r);
    if CX {
        si[slot] = ni.get(r);
    }
}

/// `C = alpha op(A) op(B) + beta C`: a block of 16 x 16 threads computes a `16 W x 16 W` tile
/// of `C` (batch `block_idx_z`), each thread a `W x W` register tile, staging 16-wide K slabs
/// of `op(A)` and `op(B)` through shared memory (k-major rows padded by [`SIMT_PAD`], loads
/// coalesced along each operand's stored leading dimension). The next slab's global loads are
/// issued into registers before the current slab is multiplied, so their latency hides behind
/// the FMAs. Real types (`W = 8`) hold rows `64 (i / 4) + 4 tx + i % 4` and columns likewise in
/// `ty`, read from shared memory 4 at a time (16-byte loads: 6 shared-memory wavefronts per
/// 64 FMAs of a warp, where scalar loads took 16); complex ones rows `tx + 16 i`, columns
/// `ty + 16 j`. `TA`/`TB` are [`Operation`](crate::Operation) codes (0 `N`, 1 `T`, 2 `C`);
/// `DSA`/`DSB` read alpha/beta from their device views. `beta = 0` never reads `C`;
/// `alpha = 0` never reads `A` or `B`.
#[kernel]
pub fn gemm_simt<
    R: KReal,
    const CX: bool,
    const TA: u32,
    const TB: u32,
    const DSA: bool,
    const DSB: bool,
    const W: usize,
>(
    m: u32,
    n: u32,
    k: u32,
    a_re: R,
    a_im: R,
    alpha: &[R],
    a: &[R],
    lda: u32,
    stride_a: u32,
    b: &[R],
    ldb: u32,
    stride_b: u32,
    b_re: R,
    b_im: R,
    beta: &[R],
    c: &mut [R],
    ldc: u32,
    stride_c: u32,
) {
    let v4 = !CX && W == 8;
    let p = 16 * W + SIMT_PAD;
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
    // The next slab, in flight in registers while the current one is multiplied.
    let nar = var_array(W, lit::<R>(0.0));
    let nai = var_array(if CX { W } else { 1 }, lit::<R>(0.0));
    let nbr = var_array(W, lit::<R>(0.0));
    let nbi = var_array(if CX { W } else { 1 }, lit::<R>(0.0));
    let tx = thread_idx_x();
    let ty = thread_idx_y();
    let t = ty * 16u32 + tx;
    let z = block_idx_z();
    let row0 = block_idx_y() * ((16 * W) as u32);
    let col0 = block_idx_x() * ((16 * W) as u32);
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let ai = if CX { scalar(DSA, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    let br = scalar(DSB, b_re, &beta, 0u32);
    let bi = if CX { scalar(DSB, b_im, &beta, 1u32) } else { lit::<R>(0.0) };
    let oa = z * stride_a;
    let ob = z * stride_b;
    let oc = z * stride_c;
    // A `16 W x 16` slab of 256 W elements is W loads per thread (see `simt_fetch`).
    let t_lo = t % ((16 * W) as u32);
    let t_hi = t / ((16 * W) as u32);
    // A with N and B with T are stored along the tile (see `simt_slot`).
    let (da, db) = (TA == 0, TB != 0);
    // alpha = 0 reads neither A nor B (uniform over the block, so the barriers agree).
    if ar != lit::<R>(0.0) || ai != lit::<R>(0.0) {
        let mut k0 = 0u32;
        // Slab 0 into the registers.
        for r in 0..W {
            simt_fetch::<R, CX, W>(da, TA == 2, r, a, oa, lda, m, k, row0, k0, t_lo, t_hi, &nar, &nai);
            simt_fetch::<R, CX, W>(db, TB == 2, r, b, ob, ldb, n, k, col0, k0, t_lo, t_hi, &nbr, &nbi);
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
                    simt_fetch::<R, CX, W>(
                        da,
                        TA == 2,
                        r,
                        a,
                        oa,
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
                    simt_fetch::<R, CX, W>(
                        db,
                        TB == 2,
                        r,
                        b,
                        ob,
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
    for j in 0..W {
        let col = col0 + simt_at(v4, j, ty);
        for i in 0..W {
            let row = row0 + simt_at(v4, i, tx);
            if row < m && col < n {
                let ic = oc + row + col * ldc;
                let sr = accr.get(i * W + j);
                let si = if CX { acci.get(i * W + j) } else { lit::<R>(0.0) };
                // alpha * acc (exactly 0 when alpha = 0: A and B were not read).
                let pr = if CX { ar * sr - ai * si } else { ar * sr };
                let pi = if CX { ar * si + ai * sr } else { lit::<R>(0.0) };
                if zero_beta {
                    if CX {
                        c[2u32 * ic] = pr;
                        c[2u32 * ic + 1u32] = pi;
                    } else {
                        c[ic] = pr;
                    }
                } else if CX {
                    let cr = c[2u32 * ic];
                    let ci = c[2u32 * ic + 1u32];
                    c[2u32 * ic] = pr + br * cr - bi * ci;
                    c[2u32 * ic + 1u32] = pi + br * ci + bi * cr;
                } else {
                    c[ic] = br.mul_add(c[ic], pr);
                }
            }
        }
    }
}

/// Rows of `C` per block of [`gemm_dmma`].
pub const DMMA_BM: u32 = 128;
/// Shared-memory stages of [`gemm_dmma`] (two K slabs in flight while one is multiplied).
const DMMA_STAGES: u32 = 3;
/// Padding (f64 elements) after each k-row of a stage: a fragment load's four k-rows then
/// start 64 bytes apart modulo 128 (rows of 136 or 72 doubles), so a warp's 256-byte load
/// takes the minimum two shared-memory wavefronts.
const DMMA_PAD: u32 = 8;

/// The XOR swizzle of [`gemm_dmma`]'s stages: element `i` of k-row `k` is stored at
/// `i ^ dmma_swizzle(k)` (a permutation inside each aligned group of 8 doubles, so a fragment
/// load still reads the same 64 bytes per k-row). Staging that walks k down a column (B with
/// `N`, A with `T`) then spreads the 8 even and the 8 odd k-rows of a warp's copies over
/// distinct banks (2 wavefronts per 32 copies, where the plain layout took 8).
#[device]
fn dmma_swizzle(k: u32) -> u32 {
    (k >> 1u32) & 7u32
}

/// Columns of `C` per block of [`gemm_dmma`]: 128 for the wide geometry (16 warps, 4 x 4),
/// 64 for the narrow one (8 warps, 4 down x 2 across); each warp computes 32 x 32.
pub const fn dmma_bn(wide: bool) -> u32 {
    if wide {
        128
    } else {
        64
    }
}

/// K per shared-memory stage of [`gemm_dmma`]: 16 wide (four k-steps per barrier), 8 narrow.
pub const fn dmma_bk(wide: bool) -> u32 {
    if wide {
        16
    } else {
        8
    }
}

/// Threads per block of [`gemm_dmma`] (32 per 32 x 32 warp tile).
pub const fn dmma_threads(wide: bool) -> u32 {
    DMMA_BM * dmma_bn(wide) / 32
}

/// Dynamic shared memory of one [`gemm_dmma`] block: the ring of A and B stages (104 448
/// bytes wide, 39 936 narrow).
pub const fn dmma_shared_bytes(wide: bool) -> u32 {
    DMMA_STAGES * dmma_bk(wide) * (DMMA_BM + DMMA_PAD + dmma_bn(wide) + DMMA_PAD) * 8
}

/// Stages the `bk`-deep slab at `k0` of this block's `op(A)` rows (128) and `op(B)` columns
/// (`bn`), copied by `threads` threads, into
/// stage `st` of the ring in `sm` (k-major: A's stages `sm[k (BM + PAD) + (i ^ s(k))]` first,
/// then B's from `sb0`, `sm[sb0 + k (BN + PAD) + (j ^ s(k))]`, `s` = [`dmma_swizzle`]). Full
/// slabs go through 8-byte `cp.async` (threads walk each operand's stored leading dimension,
/// so the global reads coalesce for every operation); partial ones (the matrix's edges)
/// through guarded loads that write zeros outside the matrix.
#[device]
#[allow(clippy::too_many_arguments)]
fn dmma_stage<const TA: u32, const TB: u32>(
    #[comptime] bn: u32,
    #[comptime] bk: u32,
    #[comptime] threads: u32,
    sm: Shared<f64>,
    sb0: u32,
    a: &[f64],
    b: &[f64],
    oa: u32,
    ob: u32,
    lda: u32,
    ldb: u32,
    m: u32,
    n: u32,
    k: u32,
    row0: u32,
    col0: u32,
    k0: u32,
    st: u32,
) {
    let t = thread_idx_x();
    let ap = DMMA_BM + DMMA_PAD;
    let bp = bn + DMMA_PAD;
    let base_a = st * (bk * ap);
    let base_b = sb0 + st * (bk * bp);
    let full = row0 + DMMA_BM <= m && col0 + bn <= n && k0 + bk <= k;
    // A: BM x bk elements, B: bk x bn, each an integral number per thread.
    // Element `e = t + r threads` of a slab; every extent is a power of two dividing
    // `threads`, so its coordinates are the thread's own (masks and shifts of `t`) plus
    // constants: no division per copy.
    let (sh_bk, sh_bm, sh_bn) = (bk.trailing_zeros(), DMMA_BM.trailing_zeros(), bn.trailing_zeros());
    for r in 0..((DMMA_BM * bk / threads) as usize) {
        let ii = if TA == 0 { t & (DMMA_BM - 1) } else { (t >> sh_bk) + (r as u32) * (threads / bk) };
        let kk = if TA == 0 { (t >> sh_bm) + (r as u32) * (threads / DMMA_BM) } else { t & (bk - 1) };
        let (gi, gk) = (row0 + ii, k0 + kk);
        let src = if TA == 0 { oa + gi + gk * lda } else { oa + gk + gi * lda };
        let dst = base_a + kk * ap + (ii ^ dmma_swizzle(kk));
        if full {
            cp_async(&sm, dst, &a, src, 8);
        } else {
            let mut v = 0.0f64;
            if gi < m && gk < k {
                v = a.load(src);
            }
            sm[dst] = v;
        }
    }
    for r in 0..((bn * bk / threads) as usize) {
        let jj = if TB == 0 { (t >> sh_bk) + (r as u32) * (threads / bk) } else { t & (bn - 1) };
        let kk = if TB == 0 { t & (bk - 1) } else { (t >> sh_bn) + (r as u32) * (threads / bn) };
        let (gj, gk) = (col0 + jj, k0 + kk);
        let src = if TB == 0 { ob + gk + gj * ldb } else { ob + gj + gk * ldb };
        let dst = base_b + kk * bp + (jj ^ dmma_swizzle(kk));
        if full {
            cp_async(&sm, dst, &b, src, 8);
        } else {
            let mut v = 0.0f64;
            if gj < n && gk < k {
                v = b.load(src);
            }
            sm[dst] = v;
        }
    }
}

/// Real f64 `C = alpha op(A) op(B) + beta C` on the FP64 tensor core
/// (`mma.sync.m8n8k4.f64`, sm_80+): each warp computes a 32 x 32 tile of `C` (batch
/// `block_idx_z`) as 4 x 4 accumulators of 8 x 8; a block of [`dmma_threads`] covers 128 x
/// [`dmma_bn`] (`WIDE`: 16 warps on 128 x 128, one block of 512 threads per multiprocessor at
/// <= 128 registers; narrow: 8 warps on 128 x 64, two blocks). K moves in [`dmma_bk`]-deep slabs
/// through a 3-stage ring in dynamic shared memory ([`dmma_shared_bytes`]) filled by
/// `cp.async` (see [`dmma_stage`]), one barrier per slab. `TA`/`TB`: 0 `N`, else `T` (a real
/// `C` is `T`). `beta = 0` never reads `C`; `alpha = 0` never reads `A` or `B`.
#[kernel]
pub fn gemm_dmma<const TA: u32, const TB: u32, const DSA: bool, const DSB: bool, const WIDE: bool>(
    m: u32,
    n: u32,
    k: u32,
    a_re: f64,
    alpha: &[f64],
    a: &[f64],
    lda: u32,
    stride_a: u32,
    b: &[f64],
    ldb: u32,
    stride_b: u32,
    b_re: f64,
    beta: &[f64],
    c: &mut [f64],
    ldc: u32,
    stride_c: u32,
) {
    let (bn, bk) = (dmma_bn(WIDE), dmma_bk(WIDE));
    // <= 128 registers: one wide block (512 threads) or two narrow ones per multiprocessor.
    launch_bounds(dmma_threads(WIDE), if WIDE { 1 } else { 2 });
    let ap = DMMA_BM + DMMA_PAD;
    let bp = bn + DMMA_PAD;
    // A's stages, then B's from `sb0`.
    let sm = dyn_shared::<f64>();
    let sb0 = DMMA_STAGES * bk * ap;
    let acc = var_array(32, 0.0f64);
    let fa = var_array(4, 0.0f64);
    let fb = var_array(4, 0.0f64);
    let lane = lane_id();
    let warp = thread_idx_x() / 32u32;
    let g = lane / 4u32;
    let q = lane % 4u32;
    let wm = (warp % 4u32) * 32u32;
    let wn = (warp / 4u32) * 32u32;
    let z = block_idx_z();
    let row0 = block_idx_y() * DMMA_BM;
    let col0 = block_idx_x() * bn;
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let br = scalar(DSB, b_re, &beta, 0u32);
    let oa = z * stride_a;
    let ob = z * stride_b;
    let oc = z * stride_c;
    // alpha = 0 reads neither A nor B (uniform over the block, so the barriers agree).
    if ar != 0.0f64 {
        let tiles = (k + (bk - 1)) / bk;
        for s in 0..(DMMA_STAGES - 1) as usize {
            if (s as u32) < tiles {
                dmma_stage::<TA, TB>(
                    bn,
                    bk,
                    dmma_threads(WIDE),
                    sm,
                    sb0,
                    a,
                    b,
                    oa,
                    ob,
                    lda,
                    ldb,
                    m,
                    n,
                    k,
                    row0,
                    col0,
                    (s as u32) * bk,
                    s as u32,
                );
            }
            cp_async_commit();
        }
        let mut kt = 0u32;
        while kt < tiles {
            // Slab kt has landed (at most STAGES - 2 younger groups in flight); the barrier
            // also tells every warp that slab kt - 1's stage is no longer read.
            cp_async_wait(DMMA_STAGES - 2);
            sync_threads();
            let next = kt + (DMMA_STAGES - 1);
            if next < tiles {
                dmma_stage::<TA, TB>(
                    bn,
                    bk,
                    dmma_threads(WIDE),
                    sm,
                    sb0,
                    a,
                    b,
                    oa,
                    ob,
                    lda,
                    ldb,
                    m,
                    n,
                    k,
                    row0,
                    col0,
                    next * bk,
                    next % DMMA_STAGES,
                );
            }
            cp_async_commit();
            let st = kt % DMMA_STAGES;
            for kk in 0..(bk / 4) as usize {
                let kq = (kk * 4) as u32 + q;
                let gs = g ^ dmma_swizzle(kq);
                let ka = st * (bk * ap) + kq * ap + wm + gs;
                let kb = sb0 + st * (bk * bp) + kq * bp + wn + gs;
                for i in 0..4usize {
                    fa.set(i, sm[ka + (8 * i) as u32]);
                    fb.set(i, sm[kb + (8 * i) as u32]);
                }
                for i in 0..4usize {
                    for j in 0..4usize {
                        let at = 2 * (4 * i + j);
                        let d = mma_m8n8k4_f64(fa.get(i), fb.get(j), vec2(acc.get(at), acc.get(at + 1)));
                        acc.set(at, d.get(0));
                        acc.set(at + 1, d.get(1));
                    }
                }
            }
            kt += 1u32;
        }
        cp_async_wait(0);
    }
    let zero_beta = br == 0.0f64;
    for j in 0..4usize {
        for h in 0..2usize {
            let col = col0 + wn + (8 * j + h) as u32 + 2u32 * q;
            for i in 0..4usize {
                let row = row0 + wm + (8 * i) as u32 + g;
                if row < m && col < n {
                    let ic = oc + row + col * ldc;
                    // alpha * acc (exactly 0 when alpha = 0: A and B were not read).
                    let p = ar * acc.get(2 * (4 * i + j) + h);
                    if zero_beta {
                        c[ic] = p;
                    } else {
                        c[ic] = br.mul_add(c[ic], p);
                    }
                }
            }
        }
    }
}

/// K per shared-memory stage of [`gemm_dmma16`]: one `mma.m16n8k16` step per barrier.
pub const DMMA16_BK: u32 = 16;
/// Shared-memory stages of [`gemm_dmma16`]'s ring: three slabs in flight while one is
/// multiplied (a power of two, so the stage index is a mask).
const DMMA16_STAGES: u32 = 4;

/// [`gemm_dmma16`]'s geometry (its `GEO` parameter): 128 x 64 tiles of C per block of 4 warps
/// (2 down x 2 across) of 64 x 32, two blocks per multiprocessor.
pub const DMMA16_NARROW: u32 = 0;
/// 128 x 128 tiles per block of 8 warps (2 x 4) of 64 x 32, one block per multiprocessor.
pub const DMMA16_WIDE: u32 = 1;
/// 128 x 64 tiles per block of 8 warps (4 down x 2 across) of 32 x 32, two blocks per
/// multiprocessor (at most 128 registers a thread): twice the warps of [`DMMA16_WIDE`] on a
/// multiprocessor, and two blocks whose barriers do not stop each other.
pub const DMMA16_W32: u32 = 2;
/// [`DMMA16_NARROW`]'s tiles (4 warps of 64 x 32 on 128 x 64, two blocks per multiprocessor)
/// multiplied in 8-deep steps (`mma.m16n8k8.f64`, two per slab) whose fragments are double
/// buffered: the next step's are loaded while the current step's MMAs run, across the slab
/// barrier too, so a warp reaches each barrier with its next operands already asked for.
pub const DMMA16_K8: u32 = 3;

/// Columns of C per block of [`gemm_dmma16`] in geometry `geo`.
pub const fn dmma16_bn(geo: u32) -> u32 {
    if geo == DMMA16_WIDE {
        128
    } else {
        64
    }
}

/// Rows of C per warp of [`gemm_dmma16`] in geometry `geo` (16 per m-tile; every geometry's
/// warp has 32 columns, four n-tiles of 8).
pub const fn dmma16_warp_rows(geo: u32) -> u32 {
    if geo == DMMA16_W32 {
        32
    } else {
        64
    }
}

/// Threads per block of [`gemm_dmma16`] in geometry `geo`: a warp per warp tile.
pub const fn dmma16_threads(geo: u32) -> u32 {
    32 * (DMMA_BM / dmma16_warp_rows(geo)) * (dmma16_bn(geo) / 32)
}

/// Blocks of [`gemm_dmma16`] per multiprocessor in geometry `geo` (the launch bounds' minimum;
/// it caps registers at 65536 / (threads x blocks)).
pub const fn dmma16_blocks_per_sm(geo: u32) -> u32 {
    if geo == DMMA16_WIDE {
        1
    } else {
        2
    }
}

/// Dynamic shared memory of one [`gemm_dmma16`] block: the ring of A and B stages (131 072
/// bytes wide, 98 304 for the 128 x 64 tiles).
pub const fn dmma16_shared_bytes(geo: u32) -> u32 {
    DMMA16_STAGES * DMMA16_BK * (DMMA_BM + dmma16_bn(geo)) * 8
}

/// One stage-index formula written once, as a `#[device]` function for values known at run time
/// and as a `const fn` of the same body for the compile-time offsets the copies fold in (the
/// kernel language cannot call a `const fn` on run-time values).
macro_rules! stage_index_fn {
    ($(#[$doc:meta])* fn $dev:ident / $c:ident ($k:ident) { $($body:tt)* }) => {
        $(#[$doc])*
        #[device]
        fn $dev($k: u32) -> u32 {
            $($body)*
        }

        #[doc = concat!("[`", stringify!($dev), "`] of a compile-time value.")]
        const fn $c($k: u32) -> u32 {
            $($body)*
        }
    };
}

stage_index_fn! {
    /// The swizzle of [`gemm_dmma16`]'s stages on 16-byte pairs: in A's k-row `k`, pair `q` of a
    /// 16-row group is stored at pair `q ^ dmma16_swizzle(k)`; in B's k-row pair `kb`, column `j` of
    /// an 8-column group at `j ^ dmma16_swizzle(kb)`. It permutes the low 3 bits of its argument
    /// (so it is linear in XOR: `s(x ^ y) = s(x) ^ s(y)`); on 8 consecutive values it takes all 8
    /// results (8 k-rows of one A pair, or the 8 k-row pairs of one B column, which the staging of
    /// an operand stored along K writes at once, spread over the 8 bank quads), and on `t + 4 u`,
    /// `t` = 0..3, four values of distinct `>> 1` (a fragment load's four lanes `t` of two
    /// neighbouring `g` fill the 8 bank quads of a 128-byte wavefront).
    fn dmma16_swizzle / dmma16_swizzle_c (k) {
        ((k & 3u32) << 1u32) | ((k >> 2u32) & 1u32)
    }
}

stage_index_fn! {
    /// B's k-row pair of k-row `k` in a [`gemm_dmma16`] stage: k-rows `k` and `k + 4` (`k % 8 <
    /// 4`) share pair `k % 4 + 4 (k / 8)`, side by side, as elements `b_{2u}` and `b_{2u+1}` of an
    /// `m16n8k16` B fragment (k-rows `t + 8 u` and `t + 8 u + 4`) sit side by side in its
    /// registers.
    fn dmma16_kpair / dmma16_kpair_c (k) {
        (k & 3u32) | ((k >> 3u32) << 2u32)
    }
}

/// Where element `(i, k)` of one operand lies in a [`gemm_dmma16`] stage of `ext` rows (`i` a
/// row of `op(A)` or a column of `op(B)`, `k` its k-row), in f64. A: k-row by k-row, rows `g`
/// and `g + 8` of each 16-row group side by side as pair `g` (the two values an A fragment
/// register pair holds), pairs swizzled by [`dmma16_swizzle`] of `k`. B (`b_op`): k-row pair by
/// k-row pair ([`dmma16_kpair_c`]), column by column, the two k-rows of a pair side by side,
/// columns swizzled inside groups of 8 by the pair's [`dmma16_swizzle`]. Either way every
/// fragment register pair is one aligned 16-byte load.
#[device]
fn dmma16_at(#[comptime] b_op: bool, #[comptime] ext: u32, i: u32, k: u32) -> u32 {
    let mut at =
        k * ext + ((i >> 4u32) << 4u32) + (((i & 7u32) ^ dmma16_swizzle(k)) << 1u32) + ((i >> 3u32) & 1u32);
    if b_op {
        let kb = dmma16_kpair(k);
        at = kb * (2 * ext)
            + ((i >> 3u32) << 4u32)
            + (((i & 7u32) ^ dmma16_swizzle(kb)) << 1u32)
            + ((k >> 2u32) & 1u32);
    }
    at
}

/// Pass `r` of a thread's copies into a [`gemm_dmma16`] stage, as compile-time offsets `(di,
/// dk)` from its first element `(i0, k0)` ([`dmma16_lane`]), for an operand copied by `threads`
/// threads (`W` warps of lanes `l`). `along` (stored along the tile: A with `N`, B with `T`),
/// A: warp `w` copies k-rows `w (16 / W) + v`, rows `32 q + l` of each (`r = q (16 / W) + v`);
/// B: columns `8 (w + W q) + l % 8` of k-rows `l / 16 + 4 ((l / 8) % 2) + 2 (a % 2) + 8 (a / 2)`
/// (`r = 4 q + a`: each half-warp writes 8 columns of both k-rows of a pair, all 16 bank
/// pairs). Stored along K: A's warp copies rows `i` and `i + 8` of one 16-row group, 16
/// consecutive k each (pair `p = w + r W`, `i = 16 (p / 8) + 8 ((l / 8) % 2) + p % 8`, k-row
/// `l % 8 + 8 (l / 16)`); B's copies columns `l / 16 + 2 w + 2 W r`, k-row `l % 16`. The offsets
/// never carry into the thread's own bits (`W` is 4 or 8), so every address is the thread's
/// own plus constants, and the swizzle the thread's XOR a constant ([`dmma16_copy`]).
const fn dmma16_pass(b_op: bool, along: bool, threads: u32, r: u32) -> (u32, u32) {
    let w = threads / 32;
    match (b_op, along) {
        (false, true) => (32 * (r / (DMMA16_BK / w)), r % (DMMA16_BK / w)),
        (false, false) => (16 * ((r * w) >> 3) + ((r * w) & 7), 0),
        (true, true) => (8 * w * (r / 4), ((r % 4) & 1) << 1 | ((r % 4) >> 1) << 3),
        (true, false) => (2 * w * r, 0),
    }
}

/// The first element `(i0, k0)` a thread copies into a [`gemm_dmma16`] stage (see
/// [`dmma16_pass`]).
#[device]
fn dmma16_lane(#[comptime] b_op: bool, #[comptime] along: bool, #[comptime] threads: u32) -> Vec2<u32> {
    let t = thread_idx_x();
    let l = t & 31u32;
    let w = t >> 5u32;
    let mut i0 = (((l >> 3u32) & 1u32) << 3u32) + w;
    let mut k0 = (l & 7u32) + ((l >> 4u32) << 3u32);
    if !b_op && along {
        i0 = l;
        k0 = w * (DMMA16_BK / (threads / 32));
    }
    if b_op && along {
        i0 = (w << 3u32) + (l & 7u32);
        k0 = (l >> 4u32) + (((l >> 3u32) & 1u32) << 2u32);
    }
    if b_op && !along {
        i0 = (l >> 4u32) + (w << 1u32);
        k0 = l & 15u32;
    }
    vec2(i0, k0)
}

/// The thread's parts of one [`gemm_dmma16`] operand's copy addresses, computed once per
/// kernel: `(s0, d)`. Pass `(di, dk)` ([`dmma16_pass`]) of the slab at `k0` reads global index
/// `s0 + k0 ld + di + dk ld` (`along`) or `s0 + k0 + dk + di ld`, and writes stage offset
/// `(d ^ e) + c`, `c` and `e` the pass's constants ([`dmma16_pass_dst`]): [`dmma16_at`] split
/// into the thread's part and the pass's, exact because the pass's bits never meet the
/// thread's and the swizzle is linear in XOR. The swizzled pair (`x2`, bits 1..3) and the rest
/// of the thread's offset (`d0`, zero in bits 1..3, as `c` and the stage bases are) share one
/// register, `d = d0 + x2`: two registers per operand held through the slab loop.
#[device]
#[allow(clippy::too_many_arguments)]
fn dmma16_thread(
    #[comptime] b_op: bool,
    #[comptime] along: bool,
    #[comptime] ext: u32,
    #[comptime] threads: u32,
    o: u32,
    ld: u32,
    r0: u32,
) -> Vec2<u32> {
    let at = dmma16_lane(b_op, along, threads);
    let (i0, k0) = (at.get(0), at.get(1));
    let s0 = if along { o + r0 + i0 + k0 * ld } else { o + k0 + (r0 + i0) * ld };
    let mut d0 = k0 * ext + ((i0 >> 4u32) << 4u32) + ((i0 >> 3u32) & 1u32);
    let mut x2 = ((i0 & 7u32) ^ dmma16_swizzle(k0)) << 1u32;
    if b_op {
        let kb = dmma16_kpair(k0);
        d0 = kb * (2 * ext) + ((i0 >> 3u32) << 4u32) + ((k0 >> 2u32) & 1u32);
        x2 = ((i0 & 7u32) ^ dmma16_swizzle(kb)) << 1u32;
    }
    vec2(s0, d0 + x2)
}

/// The compile-time part `(c, e)` of pass `(di, dk)`'s stage offset (see [`dmma16_thread`]).
const fn dmma16_pass_dst(b_op: bool, ext: u32, di: u32, dk: u32) -> (u32, u32) {
    if b_op {
        let kb = dmma16_kpair_c(dk);
        (kb * 2 * ext + 16 * (di >> 3), ((di & 7) ^ dmma16_swizzle_c(kb)) << 1)
    } else {
        (dk * ext + 16 * (di >> 4), ((di & 7) ^ dmma16_swizzle_c(dk)) << 1)
    }
}

/// Copies one operand's share of the 16-deep slab at `k0` into the stage at `sm[base..]` laid
/// out as [`dmma16_at`] says (`ext` tile rows of `op(A)` or columns of `op(B)` from `r0` of
/// `mn`), thread by thread as [`dmma16_pass`] says: every warp reads whole 32-byte sectors
/// (128-byte lines for A with `N`, B with `N` and A with `T`, 64-byte runs for B with `T`) and
/// each half-warp writes the 16 bank pairs once. `along`: element `(i, kk)` is at `o + (r0 + i)
/// + (k0 + kk) ld` (A with `N`, B with `T`), else at `o + (k0 + kk) + (r0 + i) ld`, `o` and `r0`
/// folded into the thread's precomputed offsets `th` ([`dmma16_thread`]). Whole slabs go through
/// 8-byte `cp.async` at `th` plus constants; edges through guarded loads that write zeros
/// outside the matrix, at the same global index and at [`dmma16_at`] of the lane's element (an
/// independent form of the same stage offset), `r0` taken again from the block index (A's rows
/// from `block_idx_y ext`, B's columns from `block_idx_x ext`, as [`gemm_dmma16`]'s grid has
/// them). `whole`: the tile's `ext` rows lie inside `mn` (`r0 + ext <= mn`, tested once per
/// kernel). Nothing but `th` is held per thread through the slab loop: registers are what limits
/// the warps per multiprocessor.
#[device]
#[allow(clippy::too_many_arguments)]
fn dmma16_copy(
    #[comptime] b_op: bool,
    #[comptime] along: bool,
    #[comptime] ext: u32,
    #[comptime] threads: u32,
    sm: Shared<f64>,
    base: u32,
    x: &[f64],
    ld: u32,
    mn: u32,
    k: u32,
    whole: bool,
    k0: u32,
    th: Vec2<u32>,
) {
    let passes = ext * DMMA16_BK / threads;
    let src0 = if along { th.get(0) + k0 * ld } else { th.get(0) + k0 };
    if whole && k0 + DMMA16_BK <= k {
        let dst0 = base + th.get(1);
        for r in 0..(passes as usize) {
            let (di, dk) = dmma16_pass(b_op, along, threads, r as u32);
            let (c, e) = dmma16_pass_dst(b_op, ext, di, dk);
            let src = if along { src0 + di + dk * ld } else { src0 + dk + di * ld };
            cp_async(&sm, (dst0 ^ e) + c, &x, src, 8);
        }
    } else {
        let at = dmma16_lane(b_op, along, threads);
        let r0 = if b_op { block_idx_x() * ext } else { block_idx_y() * ext };
        for r in 0..(passes as usize) {
            let (di, dk) = dmma16_pass(b_op, along, threads, r as u32);
            let (i, kk) = (at.get(0) + di, at.get(1) + dk);
            let src = if along { src0 + di + dk * ld } else { src0 + dk + di * ld };
            let mut v = 0.0f64;
            if r0 + i < mn && k0 + kk < k {
                v = x.load(src);
            }
            sm[base + dmma16_at(b_op, ext, i, kk)] = v;
        }
    }
}

/// Loads `pairs` 16-byte pairs of the lane's fragment into `f[at..]`: pair `i` at `base ^ s(4 i)`
/// ([`dmma16_swizzle`]) plus `i step + off` (16-byte units in the stage, see [`gemm_dmma16`]).
/// A's fragment of m-tile `mt` (8 values, `pairs` 4, `step` `2 DMMA_BM`, `off` `8 mt`, `base` the
/// lane's pair in k-row `t`): pair `j` is elements `2 j` and `2 j + 1`, rows `16 mt + g` and
/// `16 mt + g + 8` of k-row `t + 4 j`. B's fragment of n-tile `nt` (4 values, `pairs` 2, `step`
/// `4 bn` for a stage of `bn` columns, `off` `8 nt`, `base` the lane's pair in k-row pair `t`):
/// pair `u` is elements `2 u` and `2 u + 1`, k-rows `t + 8 u` and `t + 8 u + 4` of column
/// `8 nt + g` (k-row pair `t + 4 u`).
#[device]
fn dmma16_frag(
    sm: Shared<f64>,
    base: u32,
    #[comptime] pairs: usize,
    #[comptime] step: u32,
    #[comptime] off: u32,
    f: &VarArray<Val<f64>>,
    #[comptime] at: usize,
) {
    dmma16_frag_part(sm, base, 0, pairs, step, off, f, at);
}

/// Pairs `first..first + pairs` of [`dmma16_frag`]'s fragment into `f[at..]` (pair `first` at
/// `f[at]`): half of a 16-deep fragment is an 8-deep one ([`mma_m16n8k8_f64`]), A's pairs
/// `2 h` and `2 h + 1` and B's pair `h` for k `8 h..8 h + 8`.
#[device]
#[allow(clippy::too_many_arguments)]
fn dmma16_frag_part(
    sm: Shared<f64>,
    base: u32,
    #[comptime] first: usize,
    #[comptime] pairs: usize,
    #[comptime] step: u32,
    #[comptime] off: u32,
    f: &VarArray<Val<f64>>,
    #[comptime] at: usize,
) {
    for j in 0..pairs {
        let i = first + j;
        let e = dmma16_swizzle_c(4 * i as u32);
        let v = sm.load2((base ^ e) + (i as u32) * step + off);
        f.set(at + 2 * j, v.get(0));
        f.set(at + 2 * j + 1, v.get(1));
    }
}

/// [`DMMA16_K8`]'s operands of one 8-deep step: half `h` of the slab in the stage at A offset
/// `sa` and B offset `sb` (16-byte units, the lane's own, as [`gemm_dmma16`]'s `sa`/`sbs`), into
/// fragment set `set` (A's four m-tiles at `fa[16 set + 4 mt..]`, B's four n-tiles at
/// `fb[8 set + 2 nt..]`): 8 + 4 `LDS.128`.
#[device]
fn dmma8_frags(
    sm: Shared<f64>,
    sa: u32,
    sb: u32,
    #[comptime] bn: u32,
    #[comptime] h: usize,
    #[comptime] set: usize,
    fa: &VarArray<Val<f64>>,
    fb: &VarArray<Val<f64>>,
) {
    for mt in 0..4usize {
        dmma16_frag_part(sm, sa, 2 * h, 2, 2 * DMMA_BM, (8 * mt) as u32, fa, 16 * set + 4 * mt);
    }
    for nt in 0..4usize {
        dmma16_frag_part(sm, sb, h, 1, 4 * bn, (8 * nt) as u32, fb, 8 * set + 2 * nt);
    }
}

/// The 16 `mma.m16n8k8.f64` of one 8-deep step on a 64 x 32 warp tile, fragment set `set` of
/// [`dmma8_frags`].
#[device]
fn dmma8_mmas(
    acc: &VarArray<Val<f64>>,
    fa: &VarArray<Val<f64>>,
    fb: &VarArray<Val<f64>>,
    #[comptime] set: usize,
) {
    for mt in 0..4usize {
        for nt in 0..4usize {
            let (a, b, c) = (16 * set + 4 * mt, 8 * set + 2 * nt, 4 * (4 * mt + nt));
            let d = mma_m16n8k8_f64(
                [fa.get(a), fa.get(a + 1), fa.get(a + 2), fa.get(a + 3)],
                [fb.get(b), fb.get(b + 1)],
                vec4(acc.get(c), acc.get(c + 1), acc.get(c + 2), acc.get(c + 3)),
            );
            for i in 0..4usize {
                acc.set(c + i, d.get(i));
            }
        }
    }
}

/// One `mma.m16n8k16.f64` on the accumulator tile at `acc[c..c + 4]` with the A fragment at
/// `fa[a..a + 8]` and the B fragment at `fb[b..b + 4]`.
#[device]
fn dmma16_mma(
    acc: &VarArray<Val<f64>>,
    #[comptime] c: usize,
    fa: &VarArray<Val<f64>>,
    #[comptime] a: usize,
    fb: &VarArray<Val<f64>>,
    #[comptime] b: usize,
) {
    let av = [
        fa.get(a),
        fa.get(a + 1),
        fa.get(a + 2),
        fa.get(a + 3),
        fa.get(a + 4),
        fa.get(a + 5),
        fa.get(a + 6),
        fa.get(a + 7),
    ];
    let bv = [fb.get(b), fb.get(b + 1), fb.get(b + 2), fb.get(b + 3)];
    let d = mma_m16n8k16_f64(av, bv, vec4(acc.get(c), acc.get(c + 1), acc.get(c + 2), acc.get(c + 3)));
    for i in 0..4usize {
        acc.set(c + i, d.get(i));
    }
}

/// Real f64 `C = alpha op(A) op(B) + beta C` on Hopper's FP64 tensor-core shape
/// (`mma.sync.m16n8k16.f64`, SASS `DMMA.16x8x16`, sm_90+): each warp computes a
/// [`dmma16_warp_rows`] x 32 tile of `C` (batch `block_idx_z`) as 4 (or 2) x 4 accumulators of
/// 16 x 8; a block of [`dmma16_threads`] covers 128 x [`dmma16_bn`]. `GEO`: [`DMMA16_WIDE`], 8
/// warps of 64 x 32, one block per multiprocessor; [`DMMA16_NARROW`], 4 warps of 64 x 32 on
/// 128 x 64, two blocks; [`DMMA16_W32`], 8 warps of 32 x 32 on 128 x 64, two blocks in at most
/// 128 registers a thread. K moves in 16-deep slabs (one MMA step) through a
/// [`DMMA16_STAGES`]-stage `cp.async` ring ([`dmma16_copy`]), one barrier per slab. Stages have
/// no padding and are laid out for the fragments ([`dmma16_at`]): A k-row by k-row with rows `g`
/// and `g + 8` of each 16-row group side by side, B by pairs of k-rows (`k`, `k + 4`) side by
/// side, so every fragment register pair is one 16-byte shared load that lands in the MMA's
/// operand registers as it is. With 64 x 32 warp tiles a lane loads its B fragments of four
/// n-tiles per slab (8 loads), then per m-tile its A fragment (4) and issues four MMAs: 24
/// `LDS.128` per warp and slab, where 8-byte loads took 48. With 32 x 32 it loads A's two
/// m-tiles first (8), then per n-tile B's fragment (2) and issues two MMAs: 16 `LDS.128`, the
/// fewest fragment registers live. With 128- or 64-double rows and the swizzle, each
/// quarter-warp's 8 loads (lanes `t` = 0..3, two neighbouring `g`) cover the 8 bank quads: 4
/// wavefronts per load, the minimum. `TA`/`TB`: 0 `N`, else `T`. `beta = 0` never reads `C`; `alpha = 0` never
/// reads `A` or `B`.
#[kernel]
pub fn gemm_dmma16<const TA: u32, const TB: u32, const DSA: bool, const DSB: bool, const GEO: u32>(
    m: u32,
    n: u32,
    k: u32,
    a_re: f64,
    alpha: &[f64],
    a: &[f64],
    lda: u32,
    stride_a: u32,
    b: &[f64],
    ldb: u32,
    stride_b: u32,
    b_re: f64,
    beta: &[f64],
    c: &mut [f64],
    ldc: u32,
    stride_c: u32,
) {
    let bn = dmma16_bn(GEO);
    let bk = DMMA16_BK;
    let threads = dmma16_threads(GEO);
    // m-tiles per warp, and warps down the block's 128 rows.
    let mts = (dmma16_warp_rows(GEO) / 16) as usize;
    let warps_m = DMMA_BM / dmma16_warp_rows(GEO);
    // 64 x 32: 64 accumulators and 24 fragment values a lane, up to 255 registers (one 8-warp
    // block or two 4-warp ones). 32 x 32: 32 and 20, at most 128 (two 8-warp blocks).
    launch_bounds(threads, dmma16_blocks_per_sm(GEO));
    let sm = dyn_shared::<f64>();
    // A's stages, then B's from `sb0` (in f64); a stage of A is `bk` k-rows of 128, of B of `bn`.
    let sb0 = DMMA16_STAGES * bk * DMMA_BM;
    let acc = var_array(16 * mts, 0.0f64);
    let k8 = GEO == DMMA16_K8;
    let fa = var_array(
        if k8 {
            32
        } else if mts == 4 {
            8
        } else {
            8 * mts
        },
        0.0f64,
    );
    // K8: two sets of 8-deep fragments (A 16 values and B 8 a set), as many as one 16-deep set.
    let fb = var_array(if mts == 4 { 16 } else { 4 }, 0.0f64);
    let lane = lane_id();
    let warp = thread_idx_x() >> 5u32;
    let g = lane >> 2u32;
    let t = lane & 3u32;
    let wm = (warp & (warps_m - 1)) * dmma16_warp_rows(GEO);
    let wn = (warp >> warps_m.trailing_zeros()) * 32u32;
    let z = block_idx_z();
    let row0 = block_idx_y() * DMMA_BM;
    let col0 = block_idx_x() * bn;
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let oa = z * stride_a;
    let ob = z * stride_b;
    let oc = z * stride_c;
    // The lane's k-row `t` (A's column, B's k-row pair) and its pair `g` in it, swizzled: offsets
    // in 16-byte units inside stage 0, one register per operand (registers are what limits the
    // warps). Every other term of a fragment's offset is a multiple of 8 pairs, so the low 3 bits
    // are the swizzled pair alone; and k-row `t + 4 j` (pair `t + 4 u` of B) swizzles pair `g` to
    // `(g ^ s(t)) ^ s(4 j)` (no carry into t's bits; `s` linear in XOR): an XOR of the base by
    // `s(4 j)` = j % 2 ([`dmma16_frag`]).
    let x = g ^ dmma16_swizzle(t);
    let offa = ((t * DMMA_BM + wm) >> 1u32) + x;
    // B's k-row pair `t` (k-rows `t` and `t + 4`), column `wn + g`.
    let offb = (sb0 >> 1u32) + t * bn + wn + x;
    // The thread's parts of its copy addresses, out of the slab loop.
    let tha = dmma16_thread(false, TA == 0, DMMA_BM, threads, oa, lda, row0);
    let thb = dmma16_thread(true, TB != 0, bn, threads, ob, ldb, col0);
    let whole_a = row0 + DMMA_BM <= m;
    let whole_b = col0 + bn <= n;
    // alpha = 0 reads neither A nor B (uniform over the block, so the barriers agree).
    // Slab `k0 / bk` of A and B into ring stage `st` (A's stages first, then B's from `sb0`).
    let copy_slab = |st: Val<u32>, k0: Val<u32>| {
        dmma16_copy(
            false,
            TA == 0,
            DMMA_BM,
            threads,
            sm,
            st * (bk * DMMA_BM),
            a,
            lda,
            m,
            k,
            whole_a,
            k0,
            tha,
        );
        dmma16_copy(true, TB != 0, bn, threads, sm, sb0 + st * (bk * bn), b, ldb, n, k, whole_b, k0, thb);
    };
    // The lane's fragment bases of stage `st` (16-byte units): A's, then B's.
    let frag_bases = |st: Val<u32>| (st * (bk * DMMA_BM / 2) + offa, st * (bk * bn / 2) + offb);
    if ar != 0.0f64 {
        // The ring's first slabs: every stage for K8 (its loop refills stage kt after the
        // barrier of slab kt + 1), all but one for the others (refilled before slab kt's MMAs).
        let tiles = (k + (bk - 1)) / bk;
        let ahead = if k8 { DMMA16_STAGES } else { DMMA16_STAGES - 1 };
        for s in 0..ahead as usize {
            if (s as u32) < tiles {
                copy_slab(Val::constant(s as u32), Val::constant((s as u32) * bk));
            }
            cp_async_commit();
        }
        if k8 {
            // Every stage of the ring is in flight before the first barrier; then per slab kt: half 1's
            // fragments (set 1) asked for, half 0's MMAs (set 0, loaded before), the barrier that
            // makes slab kt + 1 visible (and tells every warp that stage kt is no longer read: both
            // its halves were asked for before it), slab kt + 1's half 0 into set 0, half 1's
            // MMAs, then the copies of slab kt + 4 into stage kt's place (after the MMAs: set 1 is
            // free by then, so the copies' addresses fit beside the accumulators and set 0). A
            // warp's MMAs always have the next step's loads in flight behind them.
            cp_async_wait(DMMA16_STAGES - 1);
            sync_threads();
            dmma8_frags(sm, offa, offb, bn, 0, 0, &fa, &fb);
            let mut kt = 0u32;
            while kt < tiles {
                let st = kt & (DMMA16_STAGES - 1);
                let (sa, sb) = frag_bases(st);
                dmma8_frags(sm, sa, sb, bn, 1, 1, &fa, &fb);
                dmma8_mmas(&acc, &fa, &fb, 0);
                if kt + 1u32 < tiles {
                    // Slab kt + 1 has landed (slabs kt + 2 and kt + 3 may still be in flight).
                    cp_async_wait(DMMA16_STAGES - 2);
                    sync_threads();
                    let (sa, sb) = frag_bases((kt + 1u32) & (DMMA16_STAGES - 1));
                    dmma8_frags(sm, sa, sb, bn, 0, 0, &fa, &fb);
                }
                dmma8_mmas(&acc, &fa, &fb, 1);
                let next = kt + DMMA16_STAGES;
                if next < tiles {
                    let k0 = next * bk;
                    copy_slab(st, k0);
                }
                cp_async_commit();
                kt += 1u32;
            }
        } else {
            let mut kt = 0u32;
            while kt < tiles {
                // Slab kt has landed (at most STAGES - 2 younger groups in flight); the barrier
                // also tells every warp that slab kt - 1's stage is no longer read.
                cp_async_wait(DMMA16_STAGES - 2);
                sync_threads();
                let next = kt + (DMMA16_STAGES - 1);
                if next < tiles {
                    let (k0, sn) = (next * bk, next & (DMMA16_STAGES - 1));
                    copy_slab(sn, k0);
                }
                cp_async_commit();
                let (sa, sbs) = frag_bases(kt & (DMMA16_STAGES - 1));
                if mts == 4 {
                    // 64 x 32: B's four n-tiles stay (32 registers), A comes m-tile by m-tile (16).
                    for nt in 0..4usize {
                        dmma16_frag(sm, sbs, 2, 4 * bn, (8 * nt) as u32, &fb, 4 * nt);
                    }
                    for mt in 0..mts {
                        dmma16_frag(sm, sa, 4, 2 * DMMA_BM, (8 * mt) as u32, &fa, 0);
                        for nt in 0..4usize {
                            dmma16_mma(&acc, 4 * (4 * mt + nt), &fa, 0, &fb, 4 * nt);
                        }
                    }
                } else {
                    // 32 x 32: A's two m-tiles stay (32 registers), B comes n-tile by n-tile (8): the
                    // fewest fragment registers live, as 128 registers hold 112 of data.
                    for mt in 0..mts {
                        dmma16_frag(sm, sa, 4, 2 * DMMA_BM, (8 * mt) as u32, &fa, 8 * mt);
                    }
                    for nt in 0..4usize {
                        dmma16_frag(sm, sbs, 2, 4 * bn, (8 * nt) as u32, &fb, 0);
                        for mt in 0..mts {
                            dmma16_mma(&acc, 4 * (4 * mt + nt), &fa, 8 * mt, &fb, 0);
                        }
                    }
                }
                kt += 1u32;
            }
        }
        cp_async_wait(0);
    }
    // beta is read after the slab loop: a device beta would hold two registers through it.
    let br = scalar(DSB, b_re, &beta, 0u32);
    let zero_beta = br == 0.0f64;
    // C element i of (mt, nt): row 16 mt + g + 8 (i / 2), column 8 nt + 2 t + i % 2.
    for nt in 0..4usize {
        for h in 0..2usize {
            let col = col0 + wn + (8 * nt + h) as u32 + 2u32 * t;
            for mt in 0..mts {
                for v in 0..2usize {
                    let row = row0 + wm + (16 * mt + 8 * v) as u32 + g;
                    if row < m && col < n {
                        let ic = oc + row + col * ldc;
                        // alpha * acc (exactly 0 when alpha = 0: A and B were not read).
                        let p = ar * acc.get(4 * (4 * mt + nt) + 2 * v + h);
                        if zero_beta {
                            c[ic] = p;
                        } else {
                            c[ic] = br.mul_add(c[ic], p);
                        }
                    }
                }
            }
        }
    }
}

/// Threads per block of [`gemm_wt`]: 8 warps, 2 down x 4 across, each a 64 x 32 tile of C.
pub const WT_THREADS: u32 = 256;
/// Edge of [`gemm_wt`]'s square tile of C.
pub const WT_TILE: u32 = 128;
/// K per shared-memory slab of [`gemm_wt`].
const WT_BK: u32 = 8;
/// Padding (f32) after each k-row of a slab: the 4 k-rows a warp writes when it transposes an
/// operand ([`wt_store`]) land 16 banks apart, so the stores are conflict-free; rows stay
/// 16-byte aligned for the fragment loads.
const WT_PAD: u32 = 4;
/// Row pitch of a slab, in f32.
const WT_P: u32 = WT_TILE + WT_PAD;
/// One operand's slab (`WT_BK` k-rows), in f32; the ring holds two.
const WT_SLAB: u32 = WT_BK * WT_P;

/// Starts staging one operand's `128 x 8` slab at `k0` of [`gemm_wt`] into
/// `s[base + k WT_P + i]` (`i` the tile row of `op(A)` or column of `op(B)`, from `r0` of
/// `mn`). `direct`: element `(i, k)` is at `o + i + k ld` (A with `N`, B with `T`); each thread
/// copies 4 consecutive `i` of one k-row, by a 16-byte `cp.async` when the slab is whole
/// (no registers held), else by guarded loads with zeros outside the matrix, all done here.
/// Otherwise `(i, k)` is at `o + k + i ld` (A with `T`, B with `N`): each thread reads 4
/// consecutive `k` of one `i` (one 16-byte load when whole) into `v`, and [`wt_store`] writes
/// them transposed after the current slab has been multiplied. Needs `o` and `ld` multiples
/// of 4 and `x` 16-byte aligned (the planner's condition).
#[device]
#[allow(clippy::too_many_arguments)]
fn wt_load(
    #[comptime] direct: bool,
    s: Shared<f32>,
    x: &[f32],
    o: u32,
    ld: u32,
    r0: u32,
    mn: u32,
    k: u32,
    k0: u32,
    base: u32,
    v: &VarArray<Val<f32>>,
) {
    let t = thread_idx_x();
    let whole = r0 + WT_TILE <= mn && k0 + WT_BK <= k;
    if direct {
        let ii = (t & 31u32) * 4u32;
        let kk = t >> 5u32;
        let src = o + r0 + ii + (k0 + kk) * ld;
        let dst = base + kk * WT_P + ii;
        if whole {
            cp_async(&s, dst, &x, src, 16);
        } else {
            for e in 0..4usize {
                let mut w = 0.0f32;
                if r0 + ii + (e as u32) < mn && k0 + kk < k {
                    w = x.load(src + e as u32);
                }
                s[dst + e as u32] = w;
            }
        }
    } else {
        let ii = t >> 1u32;
        let kk = (t & 1u32) * 4u32;
        let src = o + k0 + kk + (r0 + ii) * ld;
        if whole {
            let w = x.load4(src >> 2u32);
            for e in 0..4usize {
                v.set(e, w.get(e));
            }
        } else {
            for e in 0..4usize {
                let mut w = 0.0f32;
                if r0 + ii < mn && k0 + kk + (e as u32) < k {
                    w = x.load(src + e as u32);
                }
                v.set(e, w);
            }
        }
    }
}

/// Writes the 4 values [`wt_load`] read for a transposed operand into `s[base..]`, k-major.
#[device]
fn wt_store(s: Shared<f32>, base: u32, v: &VarArray<Val<f32>>) {
    let t = thread_idx_x();
    let ii = t >> 1u32;
    let kk = (t & 1u32) * 4u32;
    for e in 0..4usize {
        s[base + (kk + e as u32) * WT_P + ii] = v.get(e);
    }
}

/// Real f32 `C = alpha op(A) op(B) + beta C`, warp-tiled for two blocks per multiprocessor
/// (sm_80+, `cp.async`): a block of 8 warps computes a 128 x 128 tile of `C` (batch
/// `block_idx_z`), each warp a 64 x 32 sub-tile with its lanes 8 down x 4 across, each thread
/// 8 x 8 outputs (rows `4 (lane % 8) + {0..3} + {0, 32}`, columns `4 (lane / 8) + {0..3} +
/// {0, 16}` of its warp's tile), so a k-step's fragments are 2 + 2 16-byte shared loads that
/// take one wavefront each (broadcast, no conflicts). K moves in 8-deep slabs through two
/// shared buffers: while one is multiplied, the next arrives ([`wt_load`]: `cp.async` for the
/// operand stored along the tile, 4 registers per thread for the one stored across it, written
/// transposed by [`wt_store`]); one barrier per slab. `TA`/`TB`: 0 `N`, else `T`. `A` and `B`
/// must be 16-byte aligned with leading dimensions and batch strides multiples of 4.
/// `beta = 0` never reads `C`; `alpha = 0` never reads `A` or `B`.
#[kernel]
pub fn gemm_wt<const TA: u32, const TB: u32, const DSA: bool, const DSB: bool>(
    m: u32,
    n: u32,
    k: u32,
    a_re: f32,
    alpha: &[f32],
    a: &[f32],
    lda: u32,
    stride_a: u32,
    b: &[f32],
    ldb: u32,
    stride_b: u32,
    b_re: f32,
    beta: &[f32],
    c: &mut [f32],
    ldc: u32,
    stride_c: u32,
) {
    launch_bounds(WT_THREADS, 2);
    let sa = shared_array::<f32>((2 * WT_SLAB) as usize);
    let sb = shared_array::<f32>((2 * WT_SLAB) as usize);
    let acc = var_array(64, 0.0f32);
    let fa = var_array(8, 0.0f32);
    let fb = var_array(8, 0.0f32);
    let va = var_array(4, 0.0f32);
    let vb = var_array(4, 0.0f32);
    let lane = lane_id();
    let warp = thread_idx_x() >> 5u32;
    // The thread's first row and column in the block's tile.
    let tm = (warp & 1u32) * 64u32 + (lane & 7u32) * 4u32;
    let tn = (warp >> 1u32) * 32u32 + (lane >> 3u32) * 4u32;
    let z = block_idx_z();
    let row0 = block_idx_y() * WT_TILE;
    let col0 = block_idx_x() * WT_TILE;
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let br = scalar(DSB, b_re, &beta, 0u32);
    let oa = z * stride_a;
    let ob = z * stride_b;
    let oc = z * stride_c;
    let (da, db) = (TA == 0, TB != 0);
    // alpha = 0 reads neither A nor B (uniform over the block, so the barriers agree).
    if ar != 0.0f32 {
        let tiles = (k + (WT_BK - 1)) / WT_BK;
        wt_load(da, sa, a, oa, lda, row0, m, k, 0u32, 0u32, &va);
        wt_load(db, sb, b, ob, ldb, col0, n, k, 0u32, 0u32, &vb);
        if !da {
            wt_store(sa, 0u32, &va);
        }
        if !db {
            wt_store(sb, 0u32, &vb);
        }
        cp_async_commit();
        cp_async_wait(0);
        sync_threads();
        let mut kt = 0u32;
        while kt < tiles {
            let cur = (kt & 1u32) * WT_SLAB;
            let nxt = WT_SLAB - cur;
            let more = kt + 1u32 < tiles;
            if more {
                let k1 = (kt + 1u32) * WT_BK;
                wt_load(da, sa, a, oa, lda, row0, m, k, k1, nxt, &va);
                wt_load(db, sb, b, ob, ldb, col0, n, k, k1, nxt, &vb);
            }
            cp_async_commit();
            // Fragment addresses in 16-byte units: one base per operand, the rest immediates.
            let pa = (cur + tm) >> 2u32;
            let pb = (cur + tn) >> 2u32;
            for q in 0..(WT_BK as usize) {
                for h in 0..2usize {
                    let x = sa.load4(pa + (q as u32) * (WT_P / 4) + (8 * h) as u32);
                    let y = sb.load4(pb + (q as u32) * (WT_P / 4) + (4 * h) as u32);
                    for e in 0..4usize {
                        fa.set(4 * h + e, x.get(e));
                        fb.set(4 * h + e, y.get(e));
                    }
                }
                for i in 0..8usize {
                    for j in 0..8usize {
                        acc.set(i * 8 + j, fa.get(i).mul_add(fb.get(j), acc.get(i * 8 + j)));
                    }
                }
            }
            if more {
                if !da {
                    wt_store(sa, nxt, &va);
                }
                if !db {
                    wt_store(sb, nxt, &vb);
                }
            }
            cp_async_wait(0);
            sync_threads();
            kt += 1u32;
        }
    }
    let zero_beta = br == 0.0f32;
    for j in 0..8usize {
        let col = col0 + tn + (16 * (j / 4) + j % 4) as u32;
        for i in 0..8usize {
            let row = row0 + tm + (32 * (i / 4) + i % 4) as u32;
            if row < m && col < n {
                let ic = oc + row + col * ldc;
                // alpha * acc (exactly 0 when alpha = 0: A and B were not read).
                let p = ar * acc.get(i * 8 + j);
                if zero_beta {
                    c[ic] = p;
                } else {
                    c[ic] = br.mul_add(c[ic], p);
                }
            }
        }
    }
}
