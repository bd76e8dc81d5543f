//! Warp-level tensor cores: `mma.sync` (with Hopper's FP64 m16n8k16 shape), `ldmatrix`,
//! `cp.async`.

use super::*;

/// One tensor-core step `d = a * b + c` on a 16x8x16 tile (`mma.sync.aligned.m16n8k16`,
/// row-major A, column-major B, f32 accumulators). `a` holds 4 `u32` registers of packed
/// half pairs, `b` 2, `c` 4 f32, per lane in the PTX fragment layout. `elem` is `f16` or `bf16`.
pub fn mma_m16n8k16<H: Elem>(a: Vec4<u32>, b_: Vec2<u32>, c: Vec4<f32>) -> Vec4<f32> {
    let elem = match H::TY {
        ScalarType::F16 => 0,
        ScalarType::BF16 => 1,
        t => {
            fail(BuildError::Unsupported {
                what: format!("mma_m16n8k16 on {t}"),
                why: "it multiplies f16 or bf16".into(),
            });
            0
        }
    };
    VecVal::from_ir_value(intrinsic_value(
        &intrinsics::tensor::MMA,
        &[("elem", elem)],
        &[],
        vec![a.v, b_.v, c.v],
        Type::Vector(ScalarType::F32, 4),
    ))
}

/// One FP64 tensor-core step `d = a * b + c` on an 8x8x4 tile
/// (`mma.sync.aligned.m8n8k4.row.col.f64`, sm_80+). Lane `l` (group `g = l / 4`, `t = l % 4`)
/// passes A element (row `g`, column `t`) in `a`, B element (row `t`, column `g`) in `b_`, and
/// C elements (row `g`, columns `2t`, `2t + 1`) in `c`; it gets D's elements at C's places.
/// The whole warp must execute it.
pub fn mma_m8n8k4_f64(a: Val<f64>, b_: Val<f64>, c: Vec2<f64>) -> Vec2<f64> {
    VecVal::from_ir_value(intrinsic_value(
        &intrinsics::tensor::DMMA,
        &[],
        &[],
        vec![a.v, b_.v, c.v],
        Type::Vector(ScalarType::F64, 2),
    ))
}

/// One FP64 tensor-core step `d = a * b + c` on a 16x8x16 tile
/// (`mma.sync.aligned.m16n8k16.row.col.f64`, SASS `DMMA.16x8x16`, sm_90+: eight times the
/// multiply-adds of [`mma_m8n8k4_f64`] per instruction). Lane `l` (group `g = l / 4`,
/// `t = l % 4`) passes A elements `a[i]` at (row `g + 8 (i % 2)`, column `t + 4 (i / 2)`),
/// B elements `b_[i]` at (row `t + 4 i`, column `g`) and C elements `c.get(i)` at (row
/// `g + 8 (i / 2)`, column `2t + i % 2`); it gets D's elements at C's places. The whole warp
/// must execute it. On a target below sm_90 the kernel does not compile
/// ([`KernelError::MissingFeature`](crate::KernelError::MissingFeature)).
pub fn mma_m16n8k16_f64(a: [Val<f64>; 8], b_: [Val<f64>; 4], c: Vec4<f64>) -> Vec4<f64> {
    dmma_m16(&intrinsics::tensor::DMMA16, &a, &b_, c)
}

/// One FP64 `mma` of the m16n8kK shapes (`def`): A's and B's fragments as vectors, C's in place.
fn dmma_m16(def: &'static intrinsics::Def, a: &[Val<f64>], b_: &[Val<f64>], c: Vec4<f64>) -> Vec4<f64> {
    let av = b(|b| b.make_vector(&a.iter().map(|v| v.v).collect::<Vec<_>>()));
    let bv = b(|b| b.make_vector(&b_.iter().map(|v| v.v).collect::<Vec<_>>()));
    VecVal::from_ir_value(intrinsic_value(def, &[], &[], vec![av, bv, c.v], Type::Vector(ScalarType::F64, 4)))
}

/// One FP64 tensor-core step `d = a * b + c` on a 16x8x8 tile
/// (`mma.sync.aligned.m16n8k8.row.col.f64`, SASS `DMMA.16x8x8`, sm_90+): [`mma_m16n8k16_f64`]
/// at half the depth, with the same fragment formulas (A elements `a[i]` at (row
/// `g + 8 (i % 2)`, column `t + 4 (i / 2)`), B elements `b_[i]` at (row `t + 4 i`, column `g`),
/// C and D as there), so a 16-deep fragment is two of these: elements 0..4 of A and 0..2 of B
/// for k 0..8, the rest for k 8..16. The whole warp must execute it; below sm_90 the kernel
/// does not compile.
pub fn mma_m16n8k8_f64(a: [Val<f64>; 4], b_: [Val<f64>; 2], c: Vec4<f64>) -> Vec4<f64> {
    dmma_m16(&intrinsics::tensor::DMMA8, &a, &b_, c)
}

/// Packs two halves (`f16`/`bf16`) into a `u32`: `lo` in bits 0..16.
pub fn pack_half2<H: Elem>(lo: Val<H>, hi: Val<H>) -> Val<u32> {
    let bits = |h: Val<H>| -> Val<u32> {
        // Reinterpret through a 16-bit integer: a half's bits are its value's encoding.
        let as16: Val<u16> = Val::from_ir(b(|b| b.bitcast(h.v, ScalarType::U16)));
        cast::<u32, _>(as16)
    };
    bits(lo) | (bits(hi) << 16u32)
}

fn ldmatrix<H: Elem>(s: &Shared<H>, row_start: impl Index, num: u8, trans: bool) -> Value {
    let (m, i) = (s.mem(), row_start.index());
    let ty = if num == 1 { Type::Scalar(ScalarType::U32) } else { Type::Vector(ScalarType::U32, num) };
    intrinsic_value(
        &intrinsics::tensor::LDMATRIX,
        &[("num", num as i64), ("trans", trans as i64)],
        &[m],
        vec![i],
        ty,
    )
}

/// `ldmatrix .x4`: four 8x8 matrices of 16-bit elements from shared memory. Lane `8m + r` passes
/// the element index where row `r` of matrix `m` starts (16-byte aligned); each lane gets one
/// `u32` (two halves: row `lane / 4`, columns `2 * (lane % 4)`, `+1`) per matrix, the layout of
/// an `mma.m16n8k16` fragment. The whole warp must execute it.
pub fn ldmatrix_x4<H: Elem>(s: &Shared<H>, row_start: impl Index) -> Vec4<u32> {
    VecVal::from_ir_value(ldmatrix(s, row_start, 4, false))
}
/// [`ldmatrix_x4`] with each matrix transposed.
pub fn ldmatrix_x4_trans<H: Elem>(s: &Shared<H>, row_start: impl Index) -> Vec4<u32> {
    VecVal::from_ir_value(ldmatrix(s, row_start, 4, true))
}
/// `ldmatrix .x2` (lanes 0..16 give row starts).
pub fn ldmatrix_x2<H: Elem>(s: &Shared<H>, row_start: impl Index) -> Vec2<u32> {
    VecVal::from_ir_value(ldmatrix(s, row_start, 2, false))
}
/// [`ldmatrix_x2`] with each matrix transposed.
pub fn ldmatrix_x2_trans<H: Elem>(s: &Shared<H>, row_start: impl Index) -> Vec2<u32> {
    VecVal::from_ir_value(ldmatrix(s, row_start, 2, true))
}

/// Starts an asynchronous copy of `bytes` (4, 8 or 16, a compile-time value) from global memory
/// at element `src_index` to shared memory at element `dst_index` (both aligned to the copy).
/// The data is ready after [`cp_async_commit`] and a [`cp_async_wait`] covering its group.
pub fn cp_async<T: Elem, M: Memory<T>>(
    dst: &Shared<T>,
    dst_index: impl Index,
    src: &M,
    src_index: impl Index,
    bytes: u32,
) {
    let (d, s) = (dst.mem(), src.mem());
    let (di, si) = (dst_index.index(), src_index.index());
    // The byte count is checked by the intrinsic's row (4, 8 or 16), never truncated.
    intrinsic(&intrinsics::async_copy::CP_ASYNC, &[("bytes", bytes as i64)], &[d, s], vec![di, si]);
}
/// Closes the group of asynchronous copies issued since the previous commit.
pub fn cp_async_commit() {
    intrinsic(&intrinsics::async_copy::CP_ASYNC_COMMIT, &[], &[], vec![]);
}
/// Waits until at most `pending` committed groups of this thread's copies are still in flight.
pub fn cp_async_wait(pending: u32) {
    intrinsic(&intrinsics::async_copy::CP_ASYNC_WAIT, &[("pending", pending as i64)], &[], vec![]);
}
