//! Level 1 in the kernel language: grid-stride element-wise kernels (16-byte accesses on
//! aligned unit-stride real vectors) and one-pass reductions (a partial per block, warp
//! shuffles then shared memory, and a one-block final pass).

use ferrocm_kernel::prelude::*;

use super::{lit, scalar, KReal};

/// Element `i` of a strided walk.
#[device]
pub fn elem(off: u32, inc: i32, i: u32) -> u32 {
    ((off as i64) + (i as i64) * (inc as i64)) as u32
}

/// `y += alpha * x` over `n` elements (`VW` reals per 16-byte access on aligned unit-stride
/// real vectors; 1 otherwise).
#[kernel]
pub fn axpy<R: KReal, const CX: bool, const DS: bool, const VW: u32>(
    n: u32,
    a_re: R,
    a_im: R,
    alpha: &[R],
    x: &[R],
    offx: u32,
    incx: i32,
    y: &mut [R],
    offy: u32,
    incy: i32,
) {
    let ar = scalar(DS, a_re, &alpha, 0u32);
    let ai = if CX { scalar(DS, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    // Reference BLAS returns at once for alpha = 0 (NaNs in x are not propagated).
    if DS && ar == lit::<R>(0.0) && ai == lit::<R>(0.0) {
        return;
    }
    let start = global_index() as u32;
    let stride = grid_stride() as u32;
    if VW == 4 {
        let groups = n / 4u32;
        let mut g = start;
        while g < groups {
            let xv = x.load4(g);
            let yv = y.load4(g);
            y.store4(
                g,
                vec4(
                    ar.mul_add(xv.get(0), yv.get(0)),
                    ar.mul_add(xv.get(1), yv.get(1)),
                    ar.mul_add(xv.get(2), yv.get(2)),
                    ar.mul_add(xv.get(3), yv.get(3)),
                ),
            );
            g += stride;
        }
        let t = groups * 4u32 + start;
        if t < n {
            y[t] = ar.mul_add(x[t], y[t]);
        }
    } else if VW == 2 {
        let groups = n / 2u32;
        let mut g = start;
        while g < groups {
            let xv = x.load2(g);
            let yv = y.load2(g);
            y.store2(g, vec2(ar.mul_add(xv.get(0), yv.get(0)), ar.mul_add(xv.get(1), yv.get(1))));
            g += stride;
        }
        let t = groups * 2u32 + start;
        if t < n {
            y[t] = ar.mul_add(x[t], y[t]);
        }
    } else {
        let mut i = start;
        while i < n {
            let ix = elem(offx, incx, i);
            let iy = elem(offy, incy, i);
            if CX {
                let xr = x[2u32 * ix];
                let xi = x[2u32 * ix + 1u32];
                y[2u32 * iy] = y[2u32 * iy] + ar * xr - ai * xi;
                y[2u32 * iy + 1u32] = y[2u32 * iy + 1u32] + ar * xi + ai * xr;
            } else {
                y[iy] = ar.mul_add(x[ix], y[iy]);
            }
            i += stride;
        }
    }
}

/// `x *= alpha` (`REAL_ALPHA`: a real alpha on a complex vector, `csscal`).
#[kernel]
pub fn scal<R: KReal, const CX: bool, const DS: bool, const REAL_ALPHA: bool>(
    n: u32,
    a_re: R,
    a_im: R,
    alpha: &[R],
    x: &mut [R],
    incx: i32,
) {
    let ar = scalar(DS, a_re, &alpha, 0u32);
    let ai = if CX && !REAL_ALPHA { scalar(DS, a_im, &alpha, 1u32) } else { lit::<R>(0.0) };
    let mut i = global_index() as u32;
    while i < n {
        let ix = i * (incx as u32);
        if CX {
            let xr = x[2u32 * ix];
            let xi = x[2u32 * ix + 1u32];
            x[2u32 * ix] = ar * xr - ai * xi;
            x[2u32 * ix + 1u32] = ar * xi + ai * xr;
        } else {
            x[ix] = ar * x[ix];
        }
        i += grid_stride() as u32;
    }
}

/// `y = x`.
#[kernel]
pub fn copy<R: KReal, const CX: bool>(
    n: u32,
    x: &[R],
    offx: u32,
    incx: i32,
    y: &mut [R],
    offy: u32,
    incy: i32,
) {
    let mut i = global_index() as u32;
    while i < n {
        let ix = elem(offx, incx, i);
        let iy = elem(offy, incy, i);
        if CX {
            y[2u32 * iy] = x[2u32 * ix];
            y[2u32 * iy + 1u32] = x[2u32 * ix + 1u32];
        } else {
            y[iy] = x[ix];
        }
        i += grid_stride() as u32;
    }
}

/// Exchanges `x` and `y`.
#[kernel]
pub fn swap<R: KReal, const CX: bool>(
    n: u32,
    x: &mut [R],
    offx: u32,
    incx: i32,
    y: &mut [R],
    offy: u32,
    incy: i32,
) {
    let mut i = global_index() as u32;
    while i < n {
        let ix = elem(offx, incx, i);
        let iy = elem(offy, incy, i);
        if CX {
            let xr = x[2u32 * ix];
            let xi = x[2u32 * ix + 1u32];
            x[2u32 * ix] = y[2u32 * iy];
            x[2u32 * ix + 1u32] = y[2u32 * iy + 1u32];
            y[2u32 * iy] = xr;
            y[2u32 * iy + 1u32] = xi;
        } else {
            let xv = x[ix];
            x[ix] = y[iy];
            y[iy] = xv;
        }
        i += grid_stride() as u32;
    }
}

/// `x' = c x + s y`, `y' = c y - conj(s) x` (`ROTM`: the modified rotation with
/// `param = [flag, h11, h21, h12, h22]` in `s`'s view, real types only).
#[kernel]
pub fn rot<R: KReal, const CX: bool, const DS_C: bool, const DS_S: bool, const ROTM: bool>(
    n: u32,
    x: &mut [R],
    offx: u32,
    incx: i32,
    y: &mut [R],
    offy: u32,
    incy: i32,
    c_host: R,
    c_view: &[R],
    s_re: R,
    s_im: R,
    s_view: &[R],
) {
    let mut h11 = scalar(DS_C, c_host, &c_view, 0u32);
    let mut h22 = h11;
    let mut h12 = scalar(DS_S, s_re, &s_view, 0u32);
    let mut h21 = -h12;
    let si = if CX { scalar(DS_S, s_im, &s_view, 1u32) } else { lit::<R>(0.0) };
    if ROTM {
        let flag = s_view[0];
        if flag == lit::<R>(-2.0) {
            return;
        }
        if flag < lit::<R>(0.0) {
            h11 = s_view[1];
            h21 = s_view[2];
            h12 = s_view[3];
            h22 = s_view[4];
        } else if flag == lit::<R>(0.0) {
            h11 = lit::<R>(1.0);
            h21 = s_view[2];
            h12 = s_view[3];
            h22 = lit::<R>(1.0);
        } else {
            h11 = s_view[1];
            h21 = lit::<R>(-1.0);
            h12 = lit::<R>(1.0);
            h22 = s_view[4];
        }
    }
    let mut i = global_index() as u32;
    while i < n {
        let ix = elem(offx, incx, i);
        let iy = elem(offy, incy, i);
        if CX {
            let xr = x[2u32 * ix];
            let xi = x[2u32 * ix + 1u32];
            let yr = y[2u32 * iy];
            let yi = y[2u32 * iy + 1u32];
            // x' = c x + s y; y' = c y - conj(s) x, with s = h12 + i si.
            x[2u32 * ix] = h11 * xr + h12 * yr - si * yi;
            x[2u32 * ix + 1u32] = h11 * xi + h12 * yi + si * yr;
            y[2u32 * iy] = h11 * yr - h12 * xr - si * xi;
            y[2u32 * iy + 1u32] = h11 * yi - h12 * xi + si * xr;
        } else {
            let w = x[ix];
            let z = y[iy];
            x[ix] = w * h11 + z * h12;
            y[iy] = w * h21 + z * h22;
        }
        i += grid_stride() as u32;
    }
}

/// The sum of `v` over the block, valid in thread 0 (`scratch` holds a value per warp).
#[device]
pub fn block_sum<R: KReal>(v: R, scratch: Shared<R>) -> R {
    let mut s = v;
    for k in 0..5u32 {
        s += shfl_xor(s, 16u32 >> k);
    }
    let warp = thread_idx_x() / 32u32;
    if lane_id() == 0u32 {
        scratch[warp] = s;
    }
    sync_threads();
    let mut t = lit::<R>(0.0);
    if warp == 0u32 {
        if lane_id() < block_dim_x() / 32u32 {
            t = scratch[lane_id()];
        }
        for k in 0..5u32 {
            t += shfl_xor(t, 16u32 >> k);
        }
    }
    sync_threads();
    t
}

/// Per-block partial sums of `x . y` (`CONJ`: `conj(x) . y`) into `part[2 b]`, `part[2 b + 1]`.
#[kernel]
pub fn dot_partial<R: KReal, const CX: bool, const CONJ: bool>(
    n: u32,
    x: &[R],
    offx: u32,
    incx: i32,
    y: &[R],
    offy: u32,
    incy: i32,
    part: &mut [R],
) {
    let scratch = shared_array::<R>(32);
    let mut sr = lit::<R>(0.0);
    let mut si = lit::<R>(0.0);
    let mut i = global_index() as u32;
    while i < n {
        let ix = elem(offx, incx, i);
        let iy = elem(offy, incy, i);
        if CX {
            let xr = x[2u32 * ix];
            let yr = y[2u32 * iy];
            let yi = y[2u32 * iy + 1u32];
            let xi = if CONJ { -x[2u32 * ix + 1u32] } else { x[2u32 * ix + 1u32] };
            sr += xr * yr - xi * yi;
            si += xr * yi + xi * yr;
        } else {
            sr = x[ix].mul_add(y[iy], sr);
        }
        i += grid_stride() as u32;
    }
    let tr = block_sum(sr, scratch);
    let ti = if CX { block_sum(si, scratch) } else { lit::<R>(0.0) };
    if thread_idx_x() == 0u32 {
        part[2u32 * block_idx_x()] = tr;
        part[2u32 * block_idx_x() + 1u32] = ti;
    }
}

/// Per-block partial sums of `|re| + |im|` into `part[2 b]`.
#[kernel]
pub fn asum_partial<R: KReal, const CX: bool>(n: u32, x: &[R], incx: i32, part: &mut [R]) {
    let scratch = shared_array::<R>(32);
    let mut s = lit::<R>(0.0);
    let mut i = global_index() as u32;
    while i < n {
        let ix = i * (incx as u32);
        if CX {
            s += x[2u32 * ix].abs() + x[2u32 * ix + 1u32].abs();
        } else {
            s += x[ix].abs();
        }
        i += grid_stride() as u32;
    }
    let t = block_sum(s, scratch);
    if thread_idx_x() == 0u32 {
        part[2u32 * block_idx_x()] = t;
        part[2u32 * block_idx_x() + 1u32] = lit::<R>(0.0);
    }
}

/// Blue's thresholds and scales for f64 (LAPACK 3.10's `la_constants`): squares of `|x|` in
/// `[TSML, TBIG]` neither overflow nor underflow; smaller ones are summed scaled up by `SSML`,
/// larger ones scaled down by `SBIG` (powers of two: the scalings are exact).
const TSML: f64 = f64::from_bits((1023 - 511) << 52);
const TBIG: f64 = f64::from_bits((1023 + 486) << 52);
const SSML: f64 = f64::from_bits((1023 + 537) << 52);
const SBIG: f64 = f64::from_bits((1023 - 538) << 52);

/// Adds `v^2` to Blue's accumulators `(small, medium, big)` (`SCALED`, f64 input) or, for f32
/// input (whose squares cannot leave f64's range), to the plain f64 sum `acc[1]`.
#[device]
fn ssq_add<R: KReal>(#[comptime] scaled: bool, x: R, acc: &VarArray<Val<f64>>) {
    let v = (x as f64).abs();
    if scaled {
        if v > TBIG {
            let y = v * SBIG;
            acc.set(2, y.mul_add(y, acc.get(2)));
        } else if v < TSML {
            let y = v * SSML;
            acc.set(0, y.mul_add(y, acc.get(0)));
        } else {
            acc.set(1, v.mul_add(v, acc.get(1)));
        }
    } else {
        acc.set(1, v.mul_add(v, acc.get(1)));
    }
}

/// Adds `(s2, q2)` into the scaled sum of squares `(s, q)` (value `s^2 q`).
#[device]
fn ssq_merge(s: f64, q: f64, s2: f64, q2: f64) -> Vec2<f64> {
    let mut rs = s;
    let mut rq = q;
    if s2 > s {
        rs = s2;
        rq = q2 + q * (s / s2) * (s / s2);
    } else if s2 > 0.0f64 && s2 != f64::INFINITY {
        rq = q + q2 * (s2 / s) * (s2 / s);
    } else if s2 != s2 {
        rs = s2;
    }
    vec2(rs, rq)
}

/// Per-block scaled sums of squares `(scale, ssq)` into `part[2 b]`, `part[2 b + 1]`, in f64.
/// Each thread sums squares in f64: `SCALED` (f64 input) in Blue's three accumulators, so no
/// finite input overflows or underflows, f32 input plainly (its squares fit f64). The threads'
/// sums become `(scale, ssq)` pairs (scales `2^-537`, 1, `2^538`, or 0 for nothing) merged by
/// [`ssq_merge`]. `VW > 1`: `x` is `n` unit-stride reals read `VW` at a time (16 bytes; a
/// complex vector as its `2 n` reals), else `n` elements `incx` apart.
#[kernel]
pub fn nrm2_partial<R: KReal, const CX: bool, const SCALED: bool, const VW: u32>(
    n: u32,
    x: &[R],
    incx: i32,
    part: &mut [f64],
) {
    let ss = shared_array::<f64>(32);
    let sq = shared_array::<f64>(32);
    // Two sets of accumulators (small, medium, big), so consecutive loads' FMAs do not chain.
    let acc = var_array(3, 0.0f64);
    let acc2 = var_array(3, 0.0f64);
    let start = global_index() as u32;
    let stride = grid_stride() as u32;
    if VW == 4 {
        let groups = n / 4u32;
        let mut g = start;
        while g + stride < groups {
            let v = x.load4(g);
            let w = x.load4(g + stride);
            for e in 0..4usize {
                ssq_add(SCALED, v.get(e), &acc);
                ssq_add(SCALED, w.get(e), &acc2);
            }
            g += 2u32 * stride;
        }
        if g < groups {
            let v = x.load4(g);
            for e in 0..4usize {
                ssq_add(SCALED, v.get(e), &acc);
            }
        }
        let t = groups * 4u32 + start;
        if t < n {
            ssq_add(SCALED, x[t], &acc2);
        }
    } else if VW == 2 {
        let groups = n / 2u32;
        let mut g = start;
        while g + stride < groups {
            let v = x.load2(g);
            let w = x.load2(g + stride);
            for e in 0..2usize {
                ssq_add(SCALED, v.get(e), &acc);
                ssq_add(SCALED, w.get(e), &acc2);
            }
            g += 2u32 * stride;
        }
        if g < groups {
            let v = x.load2(g);
            for e in 0..2usize {
                ssq_add(SCALED, v.get(e), &acc);
            }
        }
        let t = groups * 2u32 + start;
        if t < n {
            ssq_add(SCALED, x[t], &acc2);
        }
    } else {
        let mut i = start;
        while i < n {
            let ix = i * (incx as u32);
            if CX {
                ssq_add(SCALED, x[2u32 * ix], &acc);
                ssq_add(SCALED, x[2u32 * ix + 1u32], &acc2);
            } else {
                ssq_add(SCALED, x[ix], &acc);
            }
            i += stride;
        }
    }
    // The thread's pair: its nonzero accumulators merged smallest scale first (a zero
    // accumulator takes scale 0, so it never lowers the precision of the others).
    let mut s = 0.0f64;
    let mut q = 0.0f64;
    for j in 0..3usize {
        let sum = acc.get(j) + acc2.get(j);
        let scale = if j == 0 {
            1.0f64 / SSML
        } else if j == 1 {
            1.0f64
        } else {
            1.0f64 / SBIG
        };
        let mut s2 = 0.0f64;
        if sum != 0.0f64 {
            s2 = scale;
        }
        let m = ssq_merge(s, q, s2, sum);
        s = m.get(0);
        q = m.get(1);
    }
    let m = block_ssq(s, q, ss, sq);
    if thread_idx_x() == 0u32 {
        part[2u32 * block_idx_x()] = m.get(0);
        part[2u32 * block_idx_x() + 1u32] = m.get(1);
    }
}

/// Merges every thread's scaled sum of squares `(s, q)` over the block (warp shuffles, then
/// the first warp over the warps' pairs in `ss`/`sq`, one per warp); valid in thread 0. The
/// merge order is fixed by the block's shape, so results repeat bit for bit.
#[device]
fn block_ssq(s: f64, q: f64, ss: Shared<f64>, sq: Shared<f64>) -> Vec2<f64> {
    let mut s = s;
    let mut q = q;
    for k in 0..5u32 {
        let m = ssq_merge(s, q, shfl_xor(s, 16u32 >> k), shfl_xor(q, 16u32 >> k));
        s = m.get(0);
        q = m.get(1);
    }
    let warp = thread_idx_x() / 32u32;
    if lane_id() == 0u32 {
        ss[warp] = s;
        sq[warp] = q;
    }
    sync_threads();
    let mut ts = 0.0f64;
    let mut tq = 0.0f64;
    if warp == 0u32 {
        if lane_id() < block_dim_x() / 32u32 {
            ts = ss[lane_id()];
            tq = sq[lane_id()];
        }
        for k in 0..5u32 {
            let m = ssq_merge(ts, tq, shfl_xor(ts, 16u32 >> k), shfl_xor(tq, 16u32 >> k));
            ts = m.get(0);
            tq = m.get(1);
        }
    }
    sync_threads();
    vec2(ts, tq)
}

/// Per-block best `(|re| + |im|, index)` (largest for `MAX`, else smallest; NaNs never
/// chosen; ties to the lower index) into `val[b]`, `idx[b]` (index `u32::MAX`: none).
#[kernel]
pub fn iamax_partial<R: KReal, const CX: bool, const MAX: bool>(
    n: u32,
    x: &[R],
    incx: i32,
    val: &mut [R],
    idx: &mut [u32],
) {
    let sv = shared_array::<R>(32);
    let si = shared_array::<u32>(32);
    let mut bv = lit::<R>(0.0);
    let mut bi = 0xffff_ffffu32;
    let mut i = global_index() as u32;
    while i < n {
        let ix = i * (incx as u32);
        let v = if CX { x[2u32 * ix].abs() + x[2u32 * ix + 1u32].abs() } else { x[ix].abs() };
        let better = if MAX { v > bv } else { v < bv };
        // Indices grow along a thread's walk, so equal values keep the earlier one.
        if v == v && (bi == 0xffff_ffffu32 || better) {
            bv = v;
            bi = i;
        }
        i += grid_stride() as u32;
    }
    block_best(MAX, bv, bi, sv, si);
    if thread_idx_x() == 0u32 {
        val[block_idx_x()] = sv[0u32];
        idx[block_idx_x()] = si[0u32];
    }
}

/// Whether `(ov, oi)` beats `(bv, bi)` in `iamax`/`iamin`: an index (not `u32::MAX`, "none")
/// beats none, a larger (`max`) or smaller value wins, equal values go to the lower index.
#[device]
fn beats<R: KReal>(#[comptime] max: bool, ov: R, oi: u32, bv: R, bi: u32) -> bool {
    let better = if max { ov > bv } else { ov < bv };
    oi != 0xffff_ffffu32 && (bi == 0xffff_ffffu32 || better || (ov == bv && oi < bi))
}

/// The block's best `(value, index)` of every thread's `(v, i)` by [`beats`] (warp shuffles,
/// then thread 0 over the warps' results), left in `sv[0]`, `si[0]` for thread 0.
#[device]
fn block_best<R: KReal>(#[comptime] max: bool, v: R, i: u32, sv: Shared<R>, si: Shared<u32>) {
    let mut bv = v;
    let mut bi = i;
    for k in 0..5u32 {
        let ov = shfl_xor(bv, 16u32 >> k);
        let oi = shfl_xor(bi, 16u32 >> k);
        if beats(max, ov, oi, bv, bi) {
            bv = ov;
            bi = oi;
        }
    }
    let warp = thread_idx_x() / 32u32;
    if lane_id() == 0u32 {
        sv[warp] = bv;
        si[warp] = bi;
    }
    sync_threads();
    if thread_idx_x() == 0u32 {
        for w in 1u32..(block_dim_x() / 32u32) {
            let ov = sv[w];
            let oi = si[w];
            if beats(max, ov, oi, bv, bi) {
                bv = ov;
                bi = oi;
            }
        }
        sv[0u32] = bv;
        si[0u32] = bi;
    }
}

/// Reduces `nparts` partial pairs into `result` (one block).
#[kernel]
pub fn finish_sum<R: KReal, const CX: bool>(nparts: u32, part: &[R], result: &mut [R]) {
    let scratch = shared_array::<R>(32);
    let mut sr = lit::<R>(0.0);
    let mut si = lit::<R>(0.0);
    let mut i = thread_idx_x();
    while i < nparts {
        sr += part[2u32 * i];
        si += part[2u32 * i + 1u32];
        i += block_dim_x();
    }
    let tr = block_sum(sr, scratch);
    let ti = if CX { block_sum(si, scratch) } else { lit::<R>(0.0) };
    if thread_idx_x() == 0u32 {
        result[0u32] = tr;
        if CX {
            result[1u32] = ti;
        }
    }
}

/// Merges `nparts` scaled sums of squares and writes the norm (one block: each thread merges
/// every `block_dim`-th pair, then the block merges the threads'; a single thread walking a
/// thousand pairs waited on a load and two divisions per pair, longer than the partial pass).
#[kernel]
pub fn finish_norm<R: KReal>(nparts: u32, part: &[f64], result: &mut [R]) {
    let ss = shared_array::<f64>(32);
    let sq = shared_array::<f64>(32);
    let mut s = 0.0f64;
    let mut q = 0.0f64;
    let mut i = thread_idx_x();
    while i < nparts {
        let m = ssq_merge(s, q, part[2u32 * i], part[2u32 * i + 1u32]);
        s = m.get(0);
        q = m.get(1);
        i += block_dim_x();
    }
    let m = block_ssq(s, q, ss, sq);
    if thread_idx_x() == 0u32 {
        result[0u32] = (m.get(0) * m.get(1).sqrt()) as R;
    }
}

/// Picks the best of `nparts` block results and writes the 1-based index (0 for `n = 0`;
/// 1 when the first element is NaN, as reference BLAS).
#[kernel]
pub fn finish_iamax<R: KReal, const CX: bool, const MAX: bool>(
    n: u32,
    x: &[R],
    nparts: u32,
    val: &[R],
    idx: &[u32],
    result: &mut [i32],
) {
    // Every thread scans every `block_dim`-th block result, then the block merges (a single
    // thread walking a thousand results waited on a load per result).
    let sv = shared_array::<R>(32);
    let si = shared_array::<u32>(32);
    let mut bv = lit::<R>(0.0);
    let mut bi = 0xffff_ffffu32;
    let mut w = thread_idx_x();
    while w < nparts {
        let ov = val[w];
        let oi = idx[w];
        if beats(MAX, ov, oi, bv, bi) {
            bv = ov;
            bi = oi;
        }
        w += block_dim_x();
    }
    block_best(MAX, bv, bi, sv, si);
    if thread_idx_x() == 0u32 {
        let bi = si[0u32];
        let mut r = 0i32;
        if n > 0u32 {
            let x0 = if CX { x[0u32].abs() + x[1u32].abs() } else { x[0u32].abs() };
            if x0 != x0 || bi == 0xffff_ffffu32 {
                r = 1i32;
            } else {
                r = (bi + 1u32) as i32;
            }
        }
        result[0u32] = r;
    }
}
