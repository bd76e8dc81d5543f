//! The device engine's kernels, in the kernel language: an element-wise reduction of two
//! buffers into a third (optionally the last step of an average) and a copy. Each takes its
//! buffers as a whole slice plus an element offset, so a rank's own buffers are passed as
//! runtime views (their use is tracked) and a peer's by address and length; every access is
//! bounds-checked on the CPU executor.
//!
//! Wide accesses: with `width` 4 (2 for 8-byte types) each thread moves a vector per access
//! (16 bytes for 4- and 8-byte types), when the host has checked that every address is aligned
//! for it; the elements past the last whole vector are done one by one. Grid-stride loops, so
//! the host picks the grid for occupancy, not for the size.

use ferrocm_kernel::dsl::{self, cast, Memory, MemoryMut, Num, Slice, SliceMut, Val};
use ferrocm_kernel::prelude::*;

use crate::types::ReduceOp;

fn combine<T: Num>(op: ReduceOp, x: Val<T>, y: Val<T>) -> Val<T> {
    match op {
        ReduceOp::Prod => x * y,
        ReduceOp::Min => x.min(y),
        ReduceOp::Max => x.max(y),
        _ => x + y,
    }
}

/// `x op y`, divided by the number of ranks when this is the last step of an average.
fn element<T: Num>(op: ReduceOp, finalize: bool, x: Val<T>, y: Val<T>, nranks: Val<u32>) -> Val<T> {
    let r = combine(op, x, y);
    if finalize && op == ReduceOp::Avg {
        r / cast::<T, _>(nranks)
    } else {
        r
    }
}

#[allow(clippy::too_many_arguments)]
fn reduce_body<T: Num>(
    op: ReduceOp,
    finalize: bool,
    width: u32,
    a: Slice<T>,
    a_off: Val<u64>,
    b: Slice<T>,
    b_off: Val<u64>,
    out: SliceMut<T>,
    out_off: Val<u64>,
    n: Val<u64>,
    nranks: Val<u32>,
) {
    let start: Val<u64> = cast::<u64, _>(global_index());
    let stride: Val<u64> = cast::<u64, _>(grid_stride());
    let w = width as u64;
    let whole = if width > 1 { n / w } else { Val::constant(0u64) };
    if width == 4 {
        dsl::for_range_step(start, whole, stride, |i: Val<u64>| {
            let x = a.load4(a_off / 4u64 + i);
            let y = b.load4(b_off / 4u64 + i);
            let f = |k: usize| element(op, finalize, x.get(k), y.get(k), nranks);
            out.store4(out_off / 4u64 + i, vec4(f(0), f(1), f(2), f(3)));
        });
    } else if width == 2 {
        dsl::for_range_step(start, whole, stride, |i: Val<u64>| {
            let x = a.load2(a_off / 2u64 + i);
            let y = b.load2(b_off / 2u64 + i);
            let f = |k: usize| element(op, finalize, x.get(k), y.get(k), nranks);
            out.store2(out_off / 2u64 + i, vec2(f(0), f(1)));
        });
    }
    dsl::for_range_step(whole * w + start, n, stride, |i: Val<u64>| {
        let v = element(op, finalize, a.load(a_off + i), b.load(b_off + i), nranks);
        out.store(out_off + i, v);
    });
}

/// `out[out_off + i] = a[a_off + i] op b[b_off + i]` for `i < n` (divided by `nranks` when
/// `finalize` ends an average).
#[kernel]
#[allow(clippy::too_many_arguments)]
pub(crate) fn reduce2<T: Num>(
    #[comptime] op: ReduceOp,
    #[comptime] finalize: bool,
    #[comptime] width: u32,
    a: &[T],
    a_off: u64,
    b: &[T],
    b_off: u64,
    out: &mut [T],
    out_off: u64,
    n: u64,
    nranks: u32,
) {
    reduce_body::<T>(op, finalize, width, a, a_off, b, b_off, out, out_off, n, nranks);
}

fn copy_body<T: Elem>(
    width: u32,
    src: Slice<T>,
    src_off: Val<u64>,
    dst: SliceMut<T>,
    dst_off: Val<u64>,
    n: Val<u64>,
) {
    let start: Val<u64> = cast::<u64, _>(global_index());
    let stride: Val<u64> = cast::<u64, _>(grid_stride());
    let whole = if width == 4 { n / 4u64 } else { Val::constant(0u64) };
    if width == 4 {
        dsl::for_range_step(start, whole, stride, |i: Val<u64>| {
            dst.store4(dst_off / 4u64 + i, src.load4(src_off / 4u64 + i));
        });
    }
    dsl::for_range_step(whole * 4u64 + start, n, stride, |i: Val<u64>| {
        dst.store(dst_off + i, src.load(src_off + i));
    });
}

/// `dst[dst_off + i] = src[src_off + i]` for `i < n`.
#[kernel]
pub(crate) fn copy<T: Elem>(
    #[comptime] width: u32,
    src: &[T],
    src_off: u64,
    dst: &mut [T],
    dst_off: u64,
    n: u64,
) {
    copy_body::<T>(width, src, src_off, dst, dst_off, n);
}
