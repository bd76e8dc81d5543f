//! GEMM kernels in the kernel language.
//!
//! The SIMT family (every type, every target): a block of 16 x 16 threads computes a 16 x 16
//! tile of `C`, staging 16-wide slabs of `op(A)` and `op(B)` through shared memory (loads
//! coalesced along the stored leading dimension for every operation). Batches run on the
//! grid's `z` axis at element strides. Which family runs is the planner's choice
//! ([`crate::level3`]); the tensor-core families plug in there.

use ferrocm_kernel::prelude::*;

use super::{lit, KReal};

/// The SIMT GEMM's tile edge (and block edge, in threads).
pub const TILE: u32 = 16;

/// Reads a scalar: the device view when `DS`, else the host value.
#[device]
fn scalar<R: KReal>(#[comptime] ds: bool, host: R, view: &[R], k: u32) -> R {
    let mut v = host;
    if ds {
        v = view.load(k);
    }
    v
}

/// `C = alpha op(A) op(B) + beta C` for one 16 x 16 tile of `C` per block (batch
/// `block_idx_z`). `TA`/`TB` are [`Operation`](crate::Operation) codes (0 `N`, 1 `T`, 2 `C`);
/// `DSA`/`DSB` read alpha/beta from their device views. `beta = 0` never reads `C`;
/// `alpha = 0` never reads `A` or `B`.
#[kernel]
pub fn gemm_simt<R: KReal, const CX: bool, const TA: u32, const TB: u32, const DSA: bool, const DSB: bool>(
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
    let sar = shared_array::<R>(256);
    let sbr = shared_array::<R>(256);
    let sai = shared_array::<R>(if CX { 256 } else { 1 });
    let sbi = shared_array::<R>(if CX { 256 } else { 1 });
    let tx = thread_idx_x();
    let ty = thread_idx_y();
    let z = block_idx_z();
    let row0 = block_idx_y() * 16u32;
    let col0 = block_idx_x() * 16u32;
    let ar = scalar(DSA, a_re, &alpha, 0u32);
    let ai = if CX { scalar(DSA, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    let br = scalar(DSB, b_re, &beta, 0u32);
    let bi = if CX { scalar(DSB, b_im, &beta, 1u32) } else { lit::<R>(0.0) };
    let oa = z * stride_a;
    let ob = z * stride_b;
    let oc = z * stride_c;
    let mut accr = lit::<R>(0.0);
    let mut acci = lit::<R>(0.0);
    // Tile coordinates each thread loads: along the stored leading dimension for coalescing.
    let ai_ = if TA == 0 { tx } else { ty };
    let ak_ = if TA == 0 { ty } else { tx };
    let bk_ = if TB == 0 { tx } else { ty };
    let bj_ = if TB == 0 { ty } else { tx };
    // alpha = 0 reads neither A nor B (uniform over the block, so the barriers agree).
    if ar != lit::<R>(0.0) || ai != lit::<R>(0.0) {
        let mut k0 = 0u32;
        while k0 < k {
            let gi = row0 + ai_;
            let gk = k0 + ak_;
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
            sar[ak_ * 16u32 + ai_] = vr;
            if CX {
                sai[ak_ * 16u32 + ai_] = vi;
            }
            let hk = k0 + bk_;
            let gj = col0 + bj_;
            let mut wr = lit::<R>(0.0);
            let mut wi = lit::<R>(0.0);
            if hk < k && gj < n {
                let idx = if TB == 0 { ob + hk + gj * ldb } else { ob + gj + hk * ldb };
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
            sbr[bj_ * 16u32 + bk_] = wr;
            if CX {
                sbi[bj_ * 16u32 + bk_] = wi;
            }
            sync_threads();
            for q in 0..16u32 {
                let xr = sar[q * 16u32 + tx];
                let yr = sbr[ty * 16u32 + q];
                if CX {
                    let xi = sai[q * 16u32 + tx];
                    let yi = sbi[ty * 16u32 + q];
                    accr += xr * yr - xi * yi;
                    acci += xr * yi + xi * yr;
                } else {
                    accr = xr.mul_add(yr, accr);
                }
            }
            sync_threads();
            k0 += 16u32;
        }
    }
    let row = row0 + tx;
    let col = col0 + ty;
    if row < m && col < n {
        let ic = oc + row + col * ldc;
        // alpha * acc (exactly 0 when alpha = 0: A and B were not read).
        let pr = if CX { ar * accr - ai * acci } else { ar * accr };
        let pi = if CX { ar * acci + ai * accr } else { lit::<R>(0.0) };
        if br == lit::<R>(0.0) && bi == lit::<R>(0.0) {
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
