//! The SIMT kernel of `gemm_ex` for inputs narrower than their arithmetic (f16/bf16 with f32
//! accumulation, i8 with i32): the inputs are converted to the accumulator type as they are
//! staged through shared memory, so the inner loop is the plain f32 (or i32) register-tile
//! product, and the result is rounded once to C's type.

use ferrocm_kernel::dsl::{cast, Elem, Num, Val};
use ferrocm_kernel::prelude::*;
use ferrocm_kernel::runtime::DeviceRepr;

/// The edge of the tile of C one block computes (16 x 16 threads, 4 x 4 elements each).
pub const TILE: u32 = 64;
/// Register tile edge per thread.
const W: usize = 4;
/// The K depth of a shared-memory slab.
const SLAB: u32 = 16;
/// The k-major slabs' row pitch: one element of padding spreads the stores of operands
/// stored along K (16 K indices of one row per half-warp) over the banks.
const PITCH: usize = TILE as usize + 1;
pub use super::MAX_GRID_YZ;

/// Accumulator types: f32 (float inputs) and i32 (i8 inputs).
pub trait KAcc: Elem<Repr = Self> + Num + DeviceRepr {
    /// 0.
    const ZERO: Self;
}
impl KAcc for f32 {
    const ZERO: f32 = 0.0;
}
impl KAcc for i32 {
    const ZERO: i32 = 0;
}

/// Reads a scalar: the device view when `DS`, else the host value.
#[device]
fn acc_scalar<ACC: KAcc>(#[comptime] ds: bool, host: ACC, view: &[ACC]) -> ACC {
    let mut v = host;
    if ds {
        v = view.load(0u32);
    }
    v
}

/// Stages register `r` of one operand's share of a slab into the k-major shared slab `sh`:
/// slab element `(i, kk)` (tile row `i` of `op(A)` or column of `op(B)`, K index `kk`) is stored
/// at `o + (r0 + i) + (k0 + kk) ld` when `direct` (A with N, B with T), else at
/// `o + (k0 + kk) + (r0 + i) ld`; out of the matrix it is 0. Direct operands give thread `t`
/// `i = t % 64`, `kk = t / 64 + 4 r` (coalesced down the stored column); the others
/// `kk = t % 16`, `i = t / 16 + 16 r` (coalesced along the stored row).
#[device]
#[allow(clippy::too_many_arguments)]
fn stage<I: Elem, ACC: KAcc>(
    #[comptime] direct: bool,
    #[comptime] r: usize,
    x: &[I],
    o: u32,
    ld: u32,
    mn: u32,
    k: u32,
    r0: u32,
    k0: u32,
    t: u32,
    sh: Shared<ACC>,
) {
    let mut i = t / 16u32 + (16 * r) as u32;
    let mut kk = t % 16u32;
    if direct {
        i = t % TILE;
        kk = t / TILE + (4 * r) as u32;
    }
    let gi = r0 + i;
    let gk = k0 + kk;
    let mut v = Val::<ACC>::constant(ACC::ZERO);
    if gi < mn && gk < k {
        let idx = if direct { o + gi + gk * ld } else { o + gk + gi * ld };
        v = cast::<ACC, _>(x.load(idx));
    }
    sh[kk * (PITCH as u32) + i] = v;
}

/// `C = alpha op(A) op(B) + beta C` for inputs of type `I` accumulated in `ACC`, C of type `O`:
/// block `(bx, by, z)` computes the 64 x 64 tile of C at rows `64 bx`, columns `64 by` of batch
/// `z`; thread `(tx, ty)` its rows `tx + 16 i` and columns `ty + 16 j` (neighbouring threads
/// write neighbouring rows of a column). 16-deep K slabs of `op(A)` and `op(B)` are converted to
/// `ACC` on the way into shared memory (k-major, padded rows). `TA`/`TB`: the operand is
/// transposed. `DSA`/`DSB`: alpha/beta are read from their device views. `alpha = 0` never reads
/// A or B; `beta = 0` never reads C. `alpha acc + beta C` is formed in `ACC` and rounded once to
/// `O`.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn gemm_ex_simt<
    I: Elem,
    O: Elem,
    ACC: KAcc,
    const TA: bool,
    const TB: bool,
    const DSA: bool,
    const DSB: bool,
>(
    m: u32,
    n: u32,
    k: u32,
    a_host: ACC,
    alpha: &[ACC],
    a: &[I],
    lda: u32,
    stride_a: u32,
    b: &[I],
    ldb: u32,
    stride_b: u32,
    b_host: ACC,
    beta: &[ACC],
    c: &mut [O],
    ldc: u32,
    stride_c: u32,
) {
    let sa = shared_array::<ACC>(SLAB as usize * PITCH);
    let sb = shared_array::<ACC>(SLAB as usize * PITCH);
    let acc = var_array(W * W, Val::<ACC>::constant(ACC::ZERO));
    let fa = var_array(W, Val::<ACC>::constant(ACC::ZERO));
    let fb = var_array(W, Val::<ACC>::constant(ACC::ZERO));
    let tx = thread_idx_x();
    let ty = thread_idx_y();
    let t = ty * 16u32 + tx;
    let z = block_idx_z();
    let row0 = block_idx_x() * TILE;
    let col0 = block_idx_y() * TILE;
    let al = acc_scalar(DSA, a_host, &alpha);
    let be = acc_scalar(DSB, b_host, &beta);
    let oa = z * stride_a;
    let ob = z * stride_b;
    let oc = z * stride_c;
    // alpha = 0 reads neither A nor B (uniform over the block, so the barriers agree).
    if al != ACC::ZERO {
        let mut k0 = 0u32;
        while k0 < k {
            for r in 0..W {
                stage::<I, ACC>(!TA, r, a, oa, lda, m, k, row0, k0, t, sa);
                stage::<I, ACC>(TB, r, b, ob, ldb, n, k, col0, k0, t, sb);
            }
            sync_threads();
            for q in 0..SLAB as usize {
                let row = (q * PITCH) as u32;
                for i in 0..W {
                    fa.set(i, sa[row + tx + (16 * i) as u32]);
                    fb.set(i, sb[row + ty + (16 * i) as u32]);
                }
                for i in 0..W {
                    for j in 0..W {
                        acc.set(i * W + j, acc.get(i * W + j) + fa.get(i) * fb.get(j));
                    }
                }
            }
            // The slabs are overwritten next.
            sync_threads();
            k0 += SLAB;
        }
    }
    for j in 0..W {
        let col = col0 + ty + (16 * j) as u32;
        for i in 0..W {
            let row = row0 + tx + (16 * i) as u32;
            if row < m && col < n {
                let ic = oc + row + col * ldc;
                let mut v = al * acc.get(i * W + j);
                if be != ACC::ZERO {
                    v = v + be * cast::<ACC, _>(c.load(ic));
                }
                c.store(ic, cast::<O, _>(v));
            }
        }
    }
}

/// The exact f32 value of an 8-bit float's bits `x`: e4m3 (`E5 = false`: bias 7, no
/// infinities, `S.1111.111` NaN) or e5m2 (bias 15, IEEE-style infinities and NaNs).
#[device]
fn fp8_value(#[comptime] e5: bool, x: u32) -> f32 {
    let man_bits = if e5 { 2u32 } else { 3u32 };
    let exp_mask = if e5 { 31u32 } else { 15u32 };
    let bias = if e5 { 15u32 } else { 7u32 };
    let sign = (x >> 7u32) << 31u32;
    let e = (x >> man_bits) & exp_mask;
    let mt = x & ((1u32 << man_bits) - 1u32);
    // Normal: the exponent rebiased to f32's, the mantissa at its top bits.
    let mut bits = sign | ((e + 127u32 - bias) << 23u32) | (mt << (23u32 - man_bits));
    if e == 0u32 {
        // Subnormal (or zero): mt 2^(1 - bias - man_bits), exact in f32.
        let scale = f32::from_bits((127u32 + 1u32 - bias - man_bits) << 23u32);
        bits = sign | (cast::<f32, _>(mt) * scale).to_bits();
    }
    if e5 {
        if e == 31u32 {
            bits = sign | 0x7f80_0000u32 | (mt << 21u32);
        }
    } else if e == 15u32 && mt == 7u32 {
        bits = 0x7fc0_0000u32;
    }
    f32::from_bits(bits)
}

/// Decodes `n` 8-bit floats (`E5`: e5m2, else e4m3) to f32, grid-stride.
#[kernel]
pub fn fp8_decode<const E5: bool>(n: u32, x: &[u8], y: &mut [f32]) {
    let mut i = global_index() as u32;
    while i < n {
        y.store(i, fp8_value(E5, cast::<u32, _>(x.load(i))));
        i += grid_stride() as u32;
    }
}

/// The matmul epilogue's activations (`ACT` of [`matmul_epilogue`]).
pub const ACT_NONE: u32 = 0;
/// `max(x, 0)`.
pub const ACT_RELU: u32 = 1;
/// GELU, tanh form.
pub const ACT_GELU: u32 = 2;

/// GELU's tanh form on the host, as the epilogue kernel computes it.
pub(crate) fn gelu(x: f32) -> f32 {
    let y = 0.797_884_6f32 * (x + 0.044_715f32 * x * x * x);
    let th = 1.0f32 - 2.0f32 / ((2.0f32 * y).exp() + 1.0f32);
    0.5f32 * x * (1.0f32 + th)
}

/// The element-wise matmul epilogue over `batch` `m x n` results: `x = p + beta D` (`p` the
/// f32 product, packed, `m n` apart; `beta = 0` does not read D), plus `bias[i]` when `BIAS`
/// (one vector shared by the batch), stored to `aux` (rounded to `O`) when `AUX`, then the
/// activation, rounded once to `O` into D. GELU is `0.5 x (1 + tanh(sqrt(2 / pi) (x +
/// 0.044715 x^3)))` with `tanh(y) = 1 - 2 / (exp(2 y) + 1)` (absolute error near f32's
/// epsilon, where `tanh.approx` has 5e-4 relative).
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn matmul_epilogue<O: Elem, B: Elem, const ACT: u32, const BIAS: bool, const AUX: bool>(
    m: u32,
    n: u32,
    total: u32,
    p: &[f32],
    beta: f32,
    d: &mut [O],
    ldd: u32,
    stride_d: u32,
    bias: &[B],
    aux: &mut [O],
    ld_aux: u32,
    stride_aux: u32,
) {
    let mut t = global_index() as u32;
    while t < total {
        let i = t % m;
        let j = (t / m) % n;
        let z = t / (m * n);
        let id = z * stride_d + i + j * ldd;
        let mut x = p.load(t);
        if beta != 0.0f32 {
            x += beta * cast::<f32, _>(d.load(id));
        }
        if BIAS {
            x += cast::<f32, _>(bias.load(i));
        }
        if AUX {
            aux.store(z * stride_aux + i + j * ld_aux, cast::<O, _>(x));
        }
        if ACT == ACT_RELU {
            x = x.max(0.0f32);
        }
        if ACT == ACT_GELU {
            let y = 0.797_884_6f32 * (x + 0.044_715f32 * x * x * x);
            let th = 1.0f32 - 2.0f32 / ((2.0f32 * y).exp() + 1.0f32);
            x = 0.5f32 * x * (1.0f32 + th);
        }
        d.store(id, cast::<O, _>(x));
        t += grid_stride() as u32;
    }
}

/// Every input/output pair lowers to PTX for sm_80 and sm_90 (no GPU needed), with the
/// conversions on the staging path.
#[cfg(test)]
mod ptx {
    use super::{fp8_decode, gemm_ex_simt, matmul_epilogue, ACT_GELU, ACT_RELU};
    use half::{bf16, f16};

    #[test]
    fn matmul_kernels_lower_for_sm80_and_sm90() {
        for sm in ["sm_80", "sm_90"] {
            fp8_decode::kernel::<true>().unwrap().ptx(sm).unwrap();
            fp8_decode::kernel::<false>().unwrap().ptx(sm).unwrap();
            let g = matmul_epilogue::kernel::<bf16, f32, ACT_GELU, true, true>().unwrap().ptx(sm).unwrap();
            assert!(g.contains("ex2.approx"), "{sm}: GELU through exp");
            matmul_epilogue::kernel::<f16, f16, ACT_RELU, false, true>().unwrap().ptx(sm).unwrap();
            matmul_epilogue::kernel::<f32, bf16, 0, true, false>().unwrap().ptx(sm).unwrap();
        }
    }

    #[test]
    fn every_type_pair_lowers_for_sm80_and_sm90() {
        for sm in ["sm_80", "sm_90"] {
            let h =
                gemm_ex_simt::kernel::<f16, f16, f32, false, true, false, false>().unwrap().ptx(sm).unwrap();
            assert!(h.contains("cvt.f32.f16") && h.contains("cvt.rn.f16.f32"), "{sm}: f16 conversions");
            let b =
                gemm_ex_simt::kernel::<bf16, f32, f32, true, false, true, true>().unwrap().ptx(sm).unwrap();
            assert!(b.contains("bar.sync"), "{sm}: barriers");
            gemm_ex_simt::kernel::<bf16, bf16, f32, true, true, false, false>().unwrap().ptx(sm).unwrap();
            gemm_ex_simt::kernel::<f16, bf16, f32, false, false, false, true>().unwrap().ptx(sm).unwrap();
            let i =
                gemm_ex_simt::kernel::<i8, i32, i32, false, true, false, false>().unwrap().ptx(sm).unwrap();
            assert!(i.contains("ld.global.s8") || i.contains("ld.global.u8"), "{sm}: i8 loads");
        }
    }
}

/// Rows and columns (of the source) one block of [`transpose_f32`] copies: a 32 x 32 tile.
pub const TRANSPOSE_TILE: u32 = 32;
/// Threads of a [`transpose_f32`] block along y: each thread moves `32 / 8 = 4` elements.
pub const TRANSPOSE_THREADS_Y: u32 = 8;
/// Row pitch of the shared tile: 33 words, so that reading the tile's columns touches 32
/// different banks.
const TRANSPOSE_PITCH: u32 = TRANSPOSE_TILE + 1;

/// `dst = src^T` for `batch` f32 matrices: `src` is `rows x cols` column-major (leading
/// dimension `lds`, matrices `ss` apart), `dst` `cols x rows` column-major (`ldd`, `sd` apart).
/// A block of 32 x 8 threads moves a 32 x 32 tile through shared memory, so that both the reads
/// (along src's columns) and the writes (along dst's columns) are 128-byte runs per warp; grid
/// `(rows / 32, cols / 32, batch)` rounded up. It feeds the Hopper tf32 GEMM, which reads A and
/// B K-major only, the operands it gets in the other layouts.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub fn transpose_f32(
    rows: u32,
    cols: u32,
    src: &[f32],
    lds: u32,
    ss: u32,
    dst: &mut [f32],
    ldd: u32,
    sd: u32,
) {
    let tile = shared_array::<f32>((TRANSPOSE_TILE * TRANSPOSE_PITCH) as usize);
    let tx = thread_idx_x();
    let ty = thread_idx_y();
    let i0 = block_idx_x() * TRANSPOSE_TILE;
    let j0 = block_idx_y() * TRANSPOSE_TILE;
    let z = block_idx_z();
    // Read: lanes along src's rows (one column per thread row and step), stored at [column][row].
    for r in 0..(TRANSPOSE_TILE / TRANSPOSE_THREADS_Y) {
        let jl = ty + r * TRANSPOSE_THREADS_Y;
        let (i, j) = (i0 + tx, j0 + jl);
        if i < rows && j < cols {
            tile[jl * TRANSPOSE_PITCH + tx] =
                src[z as usize * ss as usize + j as usize * lds as usize + i as usize];
        }
    }
    sync_threads();
    // Write: lanes along dst's rows (src's columns), read down the tile's columns.
    for r in 0..(TRANSPOSE_TILE / TRANSPOSE_THREADS_Y) {
        let il = ty + r * TRANSPOSE_THREADS_Y;
        let (i, j) = (i0 + il, j0 + tx);
        if i < rows && j < cols {
            dst[z as usize * sd as usize + i as usize * ldd as usize + j as usize] =
                tile[tx * TRANSPOSE_PITCH + il];
        }
    }
}
