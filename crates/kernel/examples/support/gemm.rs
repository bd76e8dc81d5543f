//! A tensor-core bf16 GEMM written in the kernel language: `C = A * B^T` with A `M x K`, B
//! `N x K` (both row major, "NT" as `torch.matmul(a, b.T)`), C `M x N` in f32.
//!
//! Block tile 128x128x32 with 8 warps (2 along M by 4 along N, 64x32 each). Tiles stream into
//! shared memory with 16-byte `cp.async` in a `STAGES`-deep pipeline (2 or 3: 16 KiB per stage
//! within the 48 KiB of static shared memory), one barrier per k-tile; each 64-byte row is stored with
//! its four 16-byte chunks XOR-swizzled (`chunk ^ (row / 2) % 4`) so `ldmatrix` reads are free of
//! bank conflicts; fragments come from `ldmatrix.x4` and feed `mma.sync.m16n8k16`. M and N must be
//! multiples of 128 and K of 32.

use ferrocm_kernel::prelude::*;

/// Issues this thread's 16-byte copies of one `rows`x32 tile (rows `row0..row0+rows`, columns
/// `k0..k0+32` of a row-major matrix with `ld` columns) into stage `stage` of `s`.
#[device]
fn load_stage(#[comptime] rows: u32, s: Shared<bf16>, g: &[bf16], row0: u32, ld: u32, k0: u32, stage: u32) {
    let tid = thread_idx_x();
    for j in 0..(rows / 64) {
        let q = tid + j * 256u32;
        let row = q / 4u32;
        let ch = q % 4u32;
        let src = (row0 + row) * ld + k0 + ch * 8u32;
        cp_async(&s, swizzled(stage * rows * 32u32, row, ch), &g, src, 16);
    }
}

/// The element index of logical 16-byte chunk `ch` of tile row `row` in the stage starting at
/// element `base`.
#[device]
fn swizzled(base: u32, row: u32, ch: u32) -> u32 {
    base + row * 32u32 + (ch ^ ((row / 2u32) % 4u32)) * 8u32
}

/// `NT` is the number of 8-column mma tiles per warp along N: 4 (warp 64x32, block 128x128) or
/// 8 (warp 64x64, block 128x256, `STAGES` 2 only: 24 KiB per stage).
#[kernel]
pub fn gemm_bf16_nt<const STAGES: u32, const NT: usize>(
    a: &[bf16],
    b: &[bf16],
    c: &mut [f32],
    m: u32,
    n: u32,
    k: u32,
) {
    let bn = 32 * NT as u32;
    let sa = shared_array::<bf16>(STAGES as usize * 128 * 32);
    let sb = shared_array::<bf16>(STAGES as usize * (bn as usize) * 32);
    let warp = thread_idx_x() / 32u32;
    let lane = lane_id();
    let wm = warp / 4u32;
    let wn = warp % 4u32;
    let bm0 = block_idx_y() * 128u32;
    let bn0 = block_idx_x() * bn;
    let mi = lane / 8u32;
    let r = lane % 8u32;
    let acc = var_array(4 * NT, vec4(0.0f32, 0.0f32, 0.0f32, 0.0f32));
    let afr = var_array(4, vec4(0u32, 0u32, 0u32, 0u32));
    let bfr = var_array(NT / 2, vec4(0u32, 0u32, 0u32, 0u32));
    let ktiles = k / 32u32;
    // Prologue: the first STAGES - 1 tiles in flight, one commit group each.
    for s in 0..(STAGES - 1) {
        if s < ktiles {
            load_stage(128, sa, &a, bm0, k, s * 32u32, s);
            load_stage(bn, sb, &b, bn0, k, s * 32u32, s);
        }
        cp_async_commit();
    }
    for kt in 0u32..ktiles {
        // Tile kt has landed once at most STAGES - 2 younger groups are pending; the barrier
        // also tells every warp that the stage refilled below was consumed in iteration kt - 1.
        cp_async_wait(STAGES - 2);
        sync_threads();
        let next = kt + (STAGES - 1);
        if next < ktiles {
            load_stage(128, sa, &a, bm0, k, next * 32u32, next % STAGES);
            load_stage(bn, sb, &b, bn0, k, next * 32u32, next % STAGES);
        }
        cp_async_commit();
        let stage = kt % STAGES;
        for kk in 0..2u32 {
            for mt in 0..4usize {
                let row = wm * 64u32 + (mt as u32) * 16u32 + r + (mi % 2u32) * 8u32;
                afr.set(mt, ldmatrix_x4(&sa, swizzled(stage * 4096u32, row, kk * 2u32 + mi / 2u32)));
            }
            for nt2 in 0..(NT / 2) {
                let row = wn * (8 * NT as u32) + (nt2 as u32) * 16u32 + r + (mi / 2u32) * 8u32;
                bfr.set(nt2, ldmatrix_x4(&sb, swizzled(stage * bn * 32u32, row, kk * 2u32 + mi % 2u32)));
            }
            for mt in 0..4usize {
                for nt in 0..NT {
                    let bq = bfr.get(nt / 2);
                    let bv =
                        if nt % 2 == 0 { vec2(bq.get(0), bq.get(1)) } else { vec2(bq.get(2), bq.get(3)) };
                    acc.set(mt * NT + nt, mma_m16n8k16::<bf16>(afr.get(mt), bv, acc.get(mt * NT + nt)));
                }
            }
        }
    }
    let g = lane / 4u32;
    let t = lane % 4u32;
    for mt in 0..4usize {
        for nt in 0..NT {
            let d = acc.get(mt * NT + nt);
            let row = bm0 + wm * 64u32 + (mt as u32) * 16u32 + g;
            let col = bn0 + wn * (8 * NT as u32) + (nt as u32) * 8u32 + t * 2u32;
            c.store2((row * n + col) / 2u32, vec2(d.get(0), d.get(1)));
            c.store2(((row + 8u32) * n + col) / 2u32, vec2(d.get(2), d.get(3)));
        }
    }
}

/// The launch for an `m x n` output with `nt` mma tiles per warp along N.
#[allow(dead_code)]
pub fn gemm_config(m: u32, n: u32, nt: u32) -> LaunchConfig {
    LaunchConfig::new((n / (32 * nt), m / 128), 256)
}
