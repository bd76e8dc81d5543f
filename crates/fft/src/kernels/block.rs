//! The block kernel: `C` transforms of one length `L` per thread block, computed in shared
//! memory by mixed-radix Stockham passes (autosorting, so no bit reversal), with the load and
//! store phases doing whatever the pass needs on the way in and out (conjugation for inverse
//! transforms, four-step twiddles, Bluestein's chirp and filter, the real-transform pre- and
//! post-processing).
//!
//! Shape of one launch: block `g` takes transforms `g0 C .. g0 C + C` of batch dimension 0
//! and one index of each other batch dimension (up to four in all). The load phase moves the
//! tile from global memory into shared memory with a thread mapping chosen at plan time for
//! coalescing ([`Mode::Row`]: consecutive threads read consecutive elements of one transform;
//! [`Mode::Col`]: consecutive threads read the same element of consecutive transforms), the
//! passes run, and the store phase writes the tile back with its own mapping, so a pass can
//! read along one axis and write along another (the transposes of the four-step and of
//! multi-dimensional transforms are fused into these phases; no separate transpose kernel).
//!
//! Shared memory holds each transform at a stride of `L + 1` complex values, and a complex
//! index `i` is stored at `i + i / 16` (`i / 8` in `f64`): one padding element per 128 bytes
//! keeps the strided accesses of the early Stockham passes off a single bank.

use ferrocm_kernel::dsl::{self, cast, vec2, DslCmp, Memory, MemoryMut, Shared, Slice, SliceMut, Val};
use ferrocm_kernel::ir::CmpOp;
use ferrocm_kernel::prelude::*;

use super::codelet::{dft, Cx};
use super::{BlockCfg, Input, Mode, Output, RealTable};
use crate::precision::FftFloat;

/// The layout parameters of a launch (kernel arguments, see `BlockCfg` for their meaning).
pub(crate) struct Geo {
    pub in_stride: Val<u64>,
    pub out_stride: Val<u64>,
    pub pair_in: Val<u64>,
    pub pair_out: Val<u64>,
    pub n: [Val<u64>; 4],
    pub is: [Val<u64>; 4],
    pub os: [Val<u64>; 4],
}

impl Geo {
    /// The kernel's layout arguments, in parameter order.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        in_stride: Val<u64>,
        out_stride: Val<u64>,
        pair_in: Val<u64>,
        pair_out: Val<u64>,
        n0: Val<u64>,
        is0: Val<u64>,
        os0: Val<u64>,
        n1: Val<u64>,
        is1: Val<u64>,
        os1: Val<u64>,
        n2: Val<u64>,
        is2: Val<u64>,
        os2: Val<u64>,
        n3: Val<u64>,
        is3: Val<u64>,
        os3: Val<u64>,
    ) -> Geo {
        Geo {
            in_stride,
            out_stride,
            pair_in,
            pair_out,
            n: [n0, n1, n2, n3],
            is: [is0, is1, is2, is3],
            os: [os0, os1, os2, os3],
        }
    }
}

pub(crate) fn u32c(x: usize) -> Val<u32> {
    Val::constant(x as u32)
}

pub(crate) fn u64v(x: Val<u32>) -> Val<u64> {
    cast::<u64, _>(x)
}

/// `x / d` and `x % d` for a compile-time `d`, as shifts and masks for powers of two.
pub(crate) fn divmod(x: Val<u32>, d: usize) -> (Val<u32>, Val<u32>) {
    if d == 1 {
        return (x, u32c(0));
    }
    if d.is_power_of_two() {
        let s = d.trailing_zeros();
        return (x >> s, x & ((d - 1) as u32));
    }
    (x / (d as u32), x % (d as u32))
}

pub(crate) fn lt(a: Val<u32>, b: usize) -> Val<bool> {
    a.dsl_cmp(CmpOp::Lt, b as u32)
}

/// Shared memory viewed as complex values at padded indices.
struct Tile<T> {
    s: Shared<T>,
    shift: u32,
}

impl<T: FftFloat> Tile<T> {
    fn pad(&self, i: Val<u32>) -> Val<u32> {
        i + (i >> self.shift)
    }
    fn load(&self, i: Val<u32>) -> Cx<T> {
        let v = self.s.load2(self.pad(i));
        Cx::new(v.get(0), v.get(1))
    }
    fn store(&self, i: Val<u32>, v: Cx<T>) {
        self.s.store2(self.pad(i), vec2(v.re, v.im));
    }
}

/// Elements of `T` of dynamic shared memory a block of `cfg` needs.
pub(crate) fn shared_elems(cfg: &BlockCfg, f64: bool) -> usize {
    let n = cfg.per_block * (cfg.len + 1);
    let shift = if f64 { 3 } else { 4 };
    2 * (n + (n >> shift) + 1)
}

pub(crate) fn cload<T: FftFloat>(m: &impl Memory<T>, i: Val<u64>) -> Cx<T> {
    let v = m.load2(i);
    Cx::new(v.get(0), v.get(1))
}

/// `W_{2n}^k` from the real-transform table.
fn real_twiddle<T: FftFloat>(aux: &Slice<T>, k: Val<u32>, t: RealTable) -> Cx<T> {
    if t.bits == 0 {
        return cload(aux, u64v(k) + t.off as u64);
    }
    let lo = cload(aux, u64v(k & ((1u32 << t.bits) - 1)) + t.off as u64);
    let hi = cload(aux, u64v(k >> t.bits) + (t.off + (1usize << t.bits)) as u64);
    lo.mul(hi)
}

/// The body of [`super::fft_block`].
pub(crate) fn body<T: FftFloat>(
    cfg: &BlockCfg,
    input: Slice<T>,
    output: SliceMut<T>,
    tw: Slice<T>,
    aux: Slice<T>,
    g: Geo,
) {
    // Registers for about 1024 resident threads per multiprocessor (64 per thread; 81 for
    // blocks of 342 to 512 threads): a pass holds at most 16 complex values per thread, and
    // occupancy hides the memory latency.
    let nt_all = cfg.threads();
    launch_bounds(nt_all as u32, (1024 / nt_all as u32).max(1));
    let is_f64 = T::NAME == "f64";
    let tile = Tile { s: dsl::dyn_shared::<T>(), shift: if is_f64 { 3 } else { 4 } };
    let c_per = cfg.per_block;
    let nt = cfg.threads_per_fft * c_per;
    let ls = cfg.len + 1;
    let tid = thread_idx_x();

    // Which transforms this block owns.
    let bid: Val<u64> = u64v(block_idx_x());
    let cc = c_per as u64;
    let nb0 = (g.n[0] + (cc - 1)) / cc;
    let g0 = bid % nb0;
    let mut rest = bid / nb0;
    let first = g0 * cc;
    let mut in_base = first * g.is[0];
    let mut out_base = first * g.os[0];
    let mut idx1 = Val::constant(0u64);
    for d in 1..cfg.dims {
        let idx = if d + 1 == cfg.dims { rest } else { rest % g.n[d] };
        if d + 1 < cfg.dims {
            rest = rest / g.n[d];
        }
        if d == 1 {
            idx1 = idx;
        }
        in_base = in_base + idx * g.is[d];
        out_base = out_base + idx * g.os[d];
    }
    // Transforms of dimension 0 present in this tile (the last tile may be partial).
    let cols: Val<u32> = cast::<u32, _>((g.n[0] - first).min(cc));

    // ---------------------------------------------------------------- load phase
    let positions = cfg.input_positions();
    let total = c_per * positions;
    for it in 0..total.div_ceil(nt) {
        let e = tid + u32c(it * nt);
        let run = || {
            let (c, j) = match cfg.load {
                Mode::Row => {
                    let (c, j) = divmod(e, positions);
                    (c, j)
                }
                Mode::Col => {
                    let (j, c) = divmod(e, c_per);
                    (c, j)
                }
            };
            let c_eff = if c_per > 1 { c.min(cols - 1u32) } else { c };
            let base = in_base + u64v(c_eff) * g.is[0];
            tile.store(c * (ls as u32) + j, load_position(cfg, &input, &aux, &g, base, j));
        };
        if (it + 1) * nt > total {
            dsl::if_else(lt(e, total), run, || ());
        } else {
            run();
        }
    }
    sync_threads();

    // ---------------------------------------------------------------- passes
    let (c, tt) = divmod(tid, cfg.threads_per_fft);
    let row = c * (ls as u32);
    stockham(cfg, &tile, &tw, row, tt);
    if let Some(b) = &cfg.bluestein {
        // Y = conj(FFT(a) * F): the second forward FFT then gives conj(a (*) b).
        let m = cfg.len;
        let t = cfg.threads_per_fft;
        for q in 0..m.div_ceil(t) {
            let j = tt + u32c(q * t);
            let run = || {
                let v = tile.load(row + j);
                let f = cload(&aux, u64v(j) + (b.filter_off as u64));
                tile.store(row + j, v.mul(f).conj());
            };
            if (q + 1) * t > m {
                dsl::if_else(lt(j, m), run, || ());
            } else {
                run();
            }
        }
        sync_threads();
        stockham(cfg, &tile, &tw, row, tt);
    }

    // ---------------------------------------------------------------- store phase
    let positions = cfg.output_positions();
    let total = c_per * positions;
    for it in 0..total.div_ceil(nt) {
        let e = tid + u32c(it * nt);
        let run = || {
            let (c, k) = match cfg.store {
                Mode::Row => divmod(e, positions),
                Mode::Col => {
                    let (k, c) = divmod(e, c_per);
                    (c, k)
                }
            };
            let write = || {
                let base = out_base + u64v(c) * g.os[0];
                let col = match &cfg.four_step {
                    Some(fs) if fs.dim == 1 => idx1,
                    _ => first + u64v(c),
                };
                let row = c * (ls as u32);
                let value = |i: Val<u32>| {
                    let v = result(cfg, &tile, &aux, row, i);
                    match &cfg.four_step {
                        None => v,
                        Some(fs) => {
                            let e = u64v(i) * col;
                            let lo = cload(&aux, (e & ((1u64 << fs.bits) - 1)) + (fs.off as u64));
                            let hi = cload(&aux, (e >> fs.bits) + ((fs.off + (1usize << fs.bits)) as u64));
                            v.mul(lo.mul(hi))
                        }
                    }
                };
                let n = cfg.logical_len();
                store_output(cfg.output, n, cfg.real, cfg.inverse, &output, &aux, &g, base, k, &value);
            };
            if c_per > 1 {
                dsl::if_else(c.dsl_cmp(CmpOp::Lt, cols), write, || ());
            } else {
                write();
            }
        };
        if (it + 1) * nt > total {
            dsl::if_else(lt(e, total), run, || ());
        } else {
            run();
        }
    }
}

/// Input position `j` of the transform at `base`, as the FFT of the tile sees it: the logical
/// input (after the real-transform pre-processing), conjugated for inverse transforms, and for
/// Bluestein multiplied by the chirp and zero-padded.
fn load_position<T: FftFloat>(
    cfg: &BlockCfg,
    input: &Slice<T>,
    aux: &Slice<T>,
    g: &Geo,
    base: Val<u64>,
    j: Val<u32>,
) -> Cx<T> {
    let Some(b) = &cfg.bluestein else {
        let x = logical_input(cfg.input, cfg.logical_len(), cfg.real, input, aux, g, base, j);
        return if cfg.inverse { x.conj() } else { x };
    };
    let zero = Val::constant(T::lit(0.0));
    let inside = lt(j, b.n);
    let je = j.min((b.n - 1) as u32);
    let x = logical_input(cfg.input, b.n, cfg.real, input, aux, g, base, je);
    let x = if cfg.inverse { x.conj() } else { x };
    let a = x.mul(cload(aux, u64v(je) + (b.chirp_off as u64)));
    Cx::new(dsl::select(inside, a.re, zero), dsl::select(inside, a.im, zero))
}

/// Logical input `j` (`j < n`) of the length-`n` transform at `base`, read as `kind` says
/// (`real`: the real-transform twiddles in `aux`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn logical_input<T: FftFloat>(
    kind: Input,
    n: usize,
    real: RealTable,
    input: &Slice<T>,
    aux: &Slice<T>,
    g: &Geo,
    base: Val<u64>,
    j: Val<u32>,
) -> Cx<T> {
    let zero = Val::constant(T::lit(0.0));
    match kind {
        Input::Complex => cload(input, base + u64v(j) * g.in_stride),
        Input::RealPairs => {
            let off = base + u64v(j) * g.in_stride;
            Cx::new(input.load(off), input.load(off + g.pair_in))
        }
        Input::Real => Cx::new(input.load(base + u64v(j) * g.in_stride), zero),
        Input::HalfSpectrum => {
            // Hermitian expansion: X[j] = conj(X[n - j]) above n / 2.
            let low = j.dsl_cmp(CmpOp::Le, (n / 2) as u32);
            let src = dsl::select(low, j, u32c(n) - j);
            let x = cload(input, base + u64v(src) * g.in_stride);
            Cx::new(x.re, dsl::select(low, x.im, -x.im))
        }
        Input::HalfSpectrumPairs => {
            // Z'[k] = (X[k] + conj X[n-k]) + i (X[k] - conj X[n-k]) conj(W_2n^k): the inverse
            // FFT of Z' of half length holds the real output in its pairs.
            let xk = cload(input, base + u64v(j) * g.in_stride);
            let xm = cload(input, base + u64v(u32c(n) - j) * g.in_stride).conj();
            let w = real_twiddle(aux, j, real);
            xk.add(xm).add(xk.sub(xm).mul(w.conj()).mul_i())
        }
    }
}

/// The transform's logical output `k` from the tile row at `row` (Bluestein's chirp applied),
/// still in the forward sense (inverse transforms conjugate it on the way out).
fn result<T: FftFloat>(cfg: &BlockCfg, tile: &Tile<T>, aux: &Slice<T>, row: Val<u32>, k: Val<u32>) -> Cx<T> {
    let v = tile.load(row + k);
    match &cfg.bluestein {
        None => v,
        Some(b) => v.conj().mul(cload(aux, u64v(k) + (b.chirp_off as u64))),
    }
}

/// Writes output position `k` of the transform at `base`, from `result(i)`: the transform's
/// logical output `i` in the forward sense (conjugated here for inverse transforms).
#[allow(clippy::too_many_arguments)]
pub(crate) fn store_output<T: FftFloat>(
    kind: Output,
    n: usize,
    real: RealTable,
    inverse: bool,
    output: &SliceMut<T>,
    aux: &Slice<T>,
    g: &Geo,
    base: Val<u64>,
    k: Val<u32>,
    result: &dyn Fn(Val<u32>) -> Cx<T>,
) {
    let off = base + u64v(k) * g.out_stride;
    match kind {
        Output::Complex | Output::HalfSpectrum => {
            let v = result(k);
            let v = if inverse { v.conj() } else { v };
            output.store2(off, vec2(v.re, v.im));
        }
        Output::HalfSpectrumPairs => {
            // X[k] = E + W^k O, E = (Z[k] + conj Z[n-k]) / 2, O = -i (Z[k] - conj Z[n-k]) / 2,
            // Z's indices taken mod n.
            let kk = dsl::select(k.dsl_cmp(CmpOp::Eq, n as u32), u32c(0), k);
            let mk = dsl::select(k.dsl_cmp(CmpOp::Eq, 0u32), u32c(0), u32c(n) - k);
            let zk = result(kk);
            let zm = result(mk).conj();
            let half = Val::constant(T::lit(0.5));
            let e = zk.add(zm).scale(half);
            let o = zk.sub(zm).mul_neg_i().scale(half);
            let w = real_twiddle(aux, k, real);
            let x = e.add(o.mul(w));
            output.store2(off, vec2(x.re, x.im));
        }
        Output::RealPairs => {
            // The conjugate of the forward result is the inverse: x[2k] = re, x[2k+1] = -im.
            let v = result(k);
            output.store(off, v.re);
            output.store(off + g.pair_out, -v.im);
        }
        Output::Real => {
            let v = result(k);
            output.store(off, v.re);
        }
    }
}

/// The Stockham passes over the tile row at `row`; thread `tt` of the transform's threads.
fn stockham<T: FftFloat>(cfg: &BlockCfg, tile: &Tile<T>, tw: &Slice<T>, row: Val<u32>, tt: Val<u32>) {
    let l = cfg.len;
    let t = cfg.threads_per_fft;
    let mut ns = 1usize;
    for (p, &r) in cfg.radices.iter().enumerate() {
        let b = l / r;
        let mut held = Vec::new();
        for q in 0..b.div_ceil(t) {
            let i = tt + u32c(q * t);
            let partial = (q + 1) * t > b;
            let ie = if partial { i.min((b - 1) as u32) } else { i };
            let mut v: Vec<Cx<T>> = (0..r).map(|x| tile.load(row + ie + u32c(x * b))).collect();
            let (hi, kk) = divmod(ie, ns);
            if ns > 1 {
                let base = u64v(kk * ((r - 1) as u32)) + (cfg.tw_offsets[p] as u64);
                for (x, vx) in v.iter_mut().enumerate().skip(1) {
                    let w = cload(tw, base + (x - 1) as u64);
                    *vx = vx.mul(w);
                }
            }
            let out = dft(&v);
            let dst = row + hi * ((ns * r) as u32) + kk;
            held.push((i, partial, dst, out));
        }
        sync_threads();
        for (i, partial, dst, out) in held {
            let write = || {
                for (x, vx) in out.iter().enumerate() {
                    tile.store(dst + u32c(x * ns), *vx);
                }
            };
            if partial {
                dsl::if_else(lt(i, b), write, || ());
            } else {
                write();
            }
        }
        sync_threads();
        ns *= r;
    }
}
