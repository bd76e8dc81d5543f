//! GEMM kernels in the kernel language.
//!
//! The SIMT family (every type, every target): a block of 16 x 16 threads computes a
//! `16 W x 16 W` tile of `C`, each thread a `W x W` register tile, staging 16-wide slabs of
//! `op(A)` and `op(B)` through shared memory (loads coalesced along the stored leading
//! dimension for every operation). Batches run on the
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

/// `C = alpha op(A) op(B) + beta C`: a block of 16 x 16 threads computes a `16 W x 16 W` tile
/// of `C` (batch `block_idx_z`), each thread a `W x W` register tile (rows `tx + 16 i`,
/// columns `ty + 16 j`), staging 16-wide K slabs of `op(A)` and `op(B)` through shared memory
/// (k-major, loads coalesced along each operand's stored leading dimension). `TA`/`TB` are
/// [`Operation`](crate::Operation) codes (0 `N`, 1 `T`, 2 `C`); `DSA`/`DSB` read alpha/beta
/// from their device views. `beta = 0` never reads `C`; `alpha = 0` never reads `A` or `B`.
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
    let sar = shared_array::<R>(256 * W);
    let sbr = shared_array::<R>(256 * W);
    let sai = shared_array::<R>(if CX { 256 * W } else { 1 });
    let sbi = shared_array::<R>(if CX { 256 * W } else { 1 });
    let accr = var_array(W * W, lit::<R>(0.0));
    let acci = var_array(if CX { W * W } else { 1 }, lit::<R>(0.0));
    let far = var_array(W, lit::<R>(0.0));
    let fai = var_array(W, lit::<R>(0.0));
    let fbr = var_array(W, lit::<R>(0.0));
    let fbi = var_array(W, lit::<R>(0.0));
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
    // A `16 W x 16` slab of 256 W elements is W loads per thread: for op N, thread t takes row
    // t % 16W of K rows t / 16W + r (256 / 16W) (coalesced down the column); for T and C, K
    // index tx of row ty + 16 r (coalesced along the stored row). B likewise.
    let t_lo = t % ((16 * W) as u32);
    let t_hi = t / ((16 * W) as u32);
    // alpha = 0 reads neither A nor B (uniform over the block, so the barriers agree).
    if ar != lit::<R>(0.0) || ai != lit::<R>(0.0) {
        let mut k0 = 0u32;
        while k0 < k {
            for r in 0..W {
                let ii = if TA == 0 { t_lo } else { ty + (16 * r) as u32 };
                let kk = if TA == 0 { t_hi + (r * 256 / (16 * W)) as u32 } else { tx };
                let gi = row0 + ii;
                let gk = k0 + kk;
                let mut vr = lit::<R>(0.0);
                let mut vi = lit::<R>(0.0);
                if gi < m && gk < k {
                    let idx = if TA == 0 { oa + gi + gk * lda } else { oa + gk + gi * lda };
                    if CX {
                        vr = a[2u32 * idx];
                        vi = a[2u32 * idx + 1u32];
                        if TA == 2 {
                            vi = -vi;
                        }
                    } else {
                        vr = a[idx];
                    }
                }
                sar[kk * ((16 * W) as u32) + ii] = vr;
                if CX {
                    sai[kk * ((16 * W) as u32) + ii] = vi;
                }
                let jj = if TB == 0 { ty + (16 * r) as u32 } else { t_lo };
                let hk = if TB == 0 { tx } else { t_hi + (r * 256 / (16 * W)) as u32 };
                let gj = col0 + jj;
                let gh = k0 + hk;
                let mut wr = lit::<R>(0.0);
                let mut wi = lit::<R>(0.0);
                if gh < k && gj < n {
                    let idx = if TB == 0 { ob + gh + gj * ldb } else { ob + gj + gh * ldb };
                    if CX {
                        wr = b[2u32 * idx];
                        wi = b[2u32 * idx + 1u32];
                        if TB == 2 {
                            wi = -wi;
                        }
                    } else {
                        wr = b[idx];
                    }
                }
                sbr[hk * ((16 * W) as u32) + jj] = wr;
                if CX {
                    sbi[hk * ((16 * W) as u32) + jj] = wi;
                }
            }
            sync_threads();
            for q in 0..16usize {
                for i in 0..W {
                    far.set(i, sar[(q * 16 * W + 16 * i) as u32 + tx]);
                    fbr.set(i, sbr[(q * 16 * W + 16 * i) as u32 + ty]);
                    if CX {
                        fai.set(i, sai[(q * 16 * W + 16 * i) as u32 + tx]);
                        fbi.set(i, sbi[(q * 16 * W + 16 * i) as u32 + ty]);
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
            k0 += 16u32;
        }
    }
    let zero_beta = br == lit::<R>(0.0) && bi == lit::<R>(0.0);
    for j in 0..W {
        let col = col0 + ty + (16 * j) as u32;
        for i in 0..W {
            let row = row0 + tx + (16 * i) as u32;
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
