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
//! Shared memory holds each transform at a stride of [`row_stride`] complex values (`L + 1`
//! rounded up to a multiple of 16, so rows start on a padding group), and a complex index `i`
//! is stored at `i + i / 16` (`i / 8` in `f64`): one padding element per 128 bytes keeps the
//! strided accesses of the early Stockham passes off a single bank. A butterfly's padded
//! addresses are one run-time base plus compile-time offsets wherever the offsets allow it
//! ([`Tile::positions`]), so the compiler folds them into the shared-memory instructions.

use ferrocm_kernel::dsl::{self, cast, vec2, DslCmp, Memory, MemoryMut, Shared, Slice, SliceMut, Val};
use ferrocm_kernel::ir::CmpOp;
use ferrocm_kernel::prelude::*;

use super::codelet::{dft, Cx};
use super::{BlockCfg, FourStep, Input, Mode, Output, RealTable};
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
    /// `in_stride` / `out_stride` is the constant 1 (see `BlockCfg::unit_strides`).
    pub in_unit: bool,
    pub out_unit: bool,
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
            in_unit: false,
            out_unit: false,
        }
    }

    /// The offset of input position `j` from its transform's start (`j in_stride`).
    pub fn in_pos(&self, j: Val<u32>) -> Val<u64> {
        if self.in_unit {
            u64v(j)
        } else {
            u64v(j) * self.in_stride
        }
    }

    /// The offset of output position `k` from its transform's start (`k out_stride`).
    pub fn out_pos(&self, k: Val<u32>) -> Val<u64> {
        if self.out_unit {
            u64v(k)
        } else {
            u64v(k) * self.out_stride
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

/// Runs `run` for element `i` of a loop trip, checking `i < total` only where the trip
/// (`partial`) reaches past the last element.
fn below(partial: bool, i: Val<u32>, total: usize, run: impl FnOnce()) {
    if partial {
        dsl::if_else(lt(i, total), run, || ());
    } else {
        run();
    }
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
        self.load_padded(self.pad(i))
    }
    fn store(&self, i: Val<u32>, v: Cx<T>) {
        self.store_padded(self.pad(i), v);
    }
    fn load_padded(&self, p: Val<u32>) -> Cx<T> {
        let v = self.s.load2(p);
        Cx::new(v.get(0), v.get(1))
    }
    fn store_padded(&self, p: Val<u32>, v: Cx<T>) {
        self.s.store2(p, vec2(v.re, v.im));
    }

    /// The padded positions of `a + o` for each offset `o`, where `a` is known to be a
    /// multiple of `align` (a power of two). Writing `a = G q + s` (`G` the padding group,
    /// `s < G` a multiple of `align`), `pad(a + o) = pad(a) + o + o / G` whenever
    /// `o % G < align`: those positions share one computed base; the others are computed
    /// each on its own.
    fn positions(
        &self,
        a: Val<u32>,
        align: usize,
        offsets: impl IntoIterator<Item = usize>,
    ) -> Vec<Val<u32>> {
        let g = 1usize << self.shift;
        let mut base = None;
        offsets
            .into_iter()
            .map(|o| {
                if o % g < align.min(g) {
                    let b = *base.get_or_insert_with(|| self.pad(a));
                    let d = o + (o >> self.shift);
                    if d == 0 {
                        b
                    } else {
                        b + (d as u32)
                    }
                } else {
                    self.pad(a + (o as u32))
                }
            })
            .collect()
    }
}

/// The largest power of two dividing `x` (`x > 0`), at most `cap`.
fn align_of(x: usize, cap: usize) -> usize {
    (1usize << x.trailing_zeros()).min(cap)
}

/// The padding group: one padding element per this many complex values.
fn group(f64: bool) -> usize {
    if f64 {
        8
    } else {
        16
    }
}

/// How the first Stockham pass lays out its outputs for the second. Its thread `i` writes
/// positions `i R + x` (`x < R`), so consecutive threads write `R` apart: the tile's padding (one
/// element per group) keeps them on distinct banks for a power-of-two `R`; for an odd `R` no
/// padding does (`R` apart is odd), and for another even `R` one element after every `R`
/// (`R + 1` apart). Rows shorter than two groups keep the padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handoff {
    Padded,
    Plain,
    /// Position `e` at `e + e / R`.
    Gap(usize),
}

fn handoff(cfg: &BlockCfg, f64: bool) -> Handoff {
    let r = cfg.radices[0];
    if cfg.radices.len() < 2 || cfg.len < 2 * group(f64) || r.is_power_of_two() {
        Handoff::Padded
    } else if r % 2 == 1 {
        Handoff::Plain
    } else {
        Handoff::Gap(r)
    }
}

/// How the second-last Stockham pass hands its outputs to the last one, when there are three
/// passes or more and the length is not a power of two: in the blocks of `b = L / R` positions
/// (`R` the last radix) that the last pass reads contiguously, unpadded, `stride` apart (the
/// value returned), with `stride` the least at least `b` that is `ns` modulo the padding group
/// (`ns` the second-last pass's stride). The last pass's half-warps then read contiguous slots,
/// and the second-last pass's (`hi` of `R` blocks, `kk < ns`, each block's positions `kk + x ns`)
/// write slots that continue from one block to the next modulo the banks. The tile's padding
/// (one slot per group) made the reads straddle padding slots wherever `b` is not a multiple of
/// the group (1000 = 10 x 10 x 10: 100 x is 4 x modulo 16).
fn last_blocks(cfg: &BlockCfg, f64: bool) -> Option<usize> {
    let n = cfg.radices.len();
    let g = group(f64);
    if n < 3 || cfg.len.is_power_of_two() || cfg.len < 2 * g {
        return None;
    }
    let b = cfg.len / cfg.radices[n - 1];
    let ns = b / cfg.radices[n - 2];
    Some(b + (ns % g + g - b % g) % g)
}

/// The stride of a tile's rows in complex values (before padding), `u G` for the padding group
/// `G`, so every row starts on a group and its padded stride `u (G + 1)` is `u` modulo the
/// banks (counted in elements: pairs of banks in `f32`, quads in `f64`). At least `L + 1`,
/// and room for the first pass's [`Handoff`]. A pass that maps threads to transforms (a strided
/// side, [`Mode::Col`]: `C` transforms per block, consecutive threads on consecutive
/// transforms, the next `G / C` positions in one wavefront) takes `u` an odd multiple of
/// `G / C` (odd for `C >= G`), so those accesses fall on distinct banks. Rows shorter than two
/// groups are `L + 1` apart.
pub(crate) fn row_stride(cfg: &BlockCfg, f64: bool) -> usize {
    let (len, g) = (cfg.len, group(f64));
    if len < 2 * g {
        return len + 1;
    }
    let room = match handoff(cfg, f64) {
        Handoff::Gap(r) => len + (len - 1) / r,
        _ => len,
    };
    let blocks = last_blocks(cfg, f64).map_or(0, |s| s * cfg.radices[cfg.radices.len() - 1]);
    let mut u = (len + 1).div_ceil(g).max(room.div_ceil(g + 1)).max(blocks.div_ceil(g + 1));
    if cfg.per_block > 1 && (cfg.load == Mode::Col || cfg.store == Mode::Col) {
        let s = g / cfg.per_block.min(g);
        while u % (2 * s) != s {
            u += 1;
        }
    }
    u * g
}

/// The alignment [`Tile::positions`] may assume for the start of a row.
fn row_align(len: usize, f64: bool) -> usize {
    let g = if f64 { 8 } else { 16 };
    if len >= 2 * g {
        g
    } else {
        1
    }
}

/// Elements of `T` of dynamic shared memory a block of `cfg` needs.
pub(crate) fn shared_elems(cfg: &BlockCfg, f64: bool) -> usize {
    let n = cfg.per_block * row_stride(cfg, f64);
    let shift = if f64 { 3 } else { 4 };
    2 * (n + (n >> shift) + 1)
}

pub(crate) fn cload<T: FftFloat>(m: &impl Memory<T>, i: Val<u64>) -> Cx<T> {
    let v = m.load2(i);
    Cx::new(v.get(0), v.get(1))
}

/// `W_{2n}^k` from the real-transform table.
pub(crate) fn real_twiddle<T: FftFloat>(aux: &Slice<T>, k: Val<u32>, t: RealTable) -> Cx<T> {
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
    // Registers for about 1024 resident threads per multiprocessor in f32 (64 per thread; 81
    // for blocks of 342 to 512 threads), 512 in f64 (128 per thread): a pass holds at most 16
    // complex values per thread, and occupancy hides the memory latency. (ptxas, sm_90: the
    // radix-16 passes need about 64 registers in f32 and 120 in f64 without spilling.) With
    // every radix at most 10, 1600 in f32 (40 per thread): ptxas fits the 1000-point pass
    // (radix 10, four transforms in a 400-thread block) in 32 registers (a 4-byte spill), so
    // four blocks run per multiprocessor instead of three (s13-r1, H100: 120.5 -> 109.1 us at
    // ncu's base clocks).
    let unit = |s: Val<u64>, unit: bool| if unit { Val::constant(1u64) } else { s };
    let g = Geo {
        in_stride: unit(g.in_stride, cfg.unit_strides[0]),
        out_stride: unit(g.out_stride, cfg.unit_strides[1]),
        in_unit: cfg.unit_strides[0],
        out_unit: cfg.unit_strides[1],
        ..g
    };
    let is_f64 = T::NAME == "f64";
    let nt_all = cfg.threads() as u32;
    let small_radices = cfg.radices.iter().all(|&r| r <= 10);
    let resident = if is_f64 {
        512
    } else if small_radices {
        1600
    } else {
        1024
    };
    launch_bounds(nt_all, (resident / nt_all).max(1));
    let tile = Tile { s: dsl::dyn_shared::<T>(), shift: if is_f64 { 3 } else { 4 } };
    let c_per = cfg.per_block;
    let nt = cfg.threads_per_fft * c_per;
    let ls = row_stride(cfg, is_f64);
    let tid = thread_idx_x();

    // Which transforms this block owns: with a cluster, the cluster's (see `Cluster`), of
    // which this block reads every `q`-th element from the one at its rank.
    let q = cfg.cluster.as_ref().map_or(1, |cl| cl.q);
    let (bid, rank) = if q > 1 {
        cluster_dims(q as u32, 1, 1);
        (block_idx_x() / (q as u32), Some(cluster_rank()))
    } else {
        (block_idx_x(), None)
    };
    let (g, rank_offset) = match rank {
        Some(r) => {
            let offset = g.in_pos(r);
            (Geo { in_stride: g.in_stride * (q as u64), in_unit: false, ..g }, Some(offset))
        }
        None => (g, None),
    };
    // The block's tile of dimension 0 and its index in the other batch dimensions, in 32-bit
    // arithmetic: a launch has fewer than 2^31 blocks, and the tiles of dimension 0 and every
    // other batch count are at most that (a 64-bit division, even by a constant, is a call of a
    // long routine that every warp of an issue-bound pass paid for).
    let cc = c_per as u64;
    let tiles0 = if cc.is_power_of_two() {
        (g.n[0] + (cc - 1)) >> cc.trailing_zeros()
    } else {
        (g.n[0] + (cc - 1)) / cc
    };
    let nb0: Val<u32> = cast::<u32, _>(tiles0);
    let g0 = u64v(bid % nb0);
    let mut rest = bid / nb0;
    let first = g0 * cc;
    // Mirrored transforms: slot `c < P` is transform `g0 P + c`, slot `P + c` its mirror.
    let pairs = c_per / 2;
    let mirror_of = |c: Val<u32>| -> Val<u64> {
        let n1 = cfg.mirror.unwrap_or(0) as u64;
        let lo = g0 * (pairs as u64) + u64v(c & ((pairs - 1) as u32));
        let hi = Val::constant(n1) - lo;
        let hi = dsl::select(lo.dsl_cmp(CmpOp::Eq, 0u64), Val::constant(n1 / 2), hi);
        dsl::select(c.dsl_cmp(CmpOp::Lt, pairs as u32), lo, hi)
    };
    // Row pairs: slot `c < P` is row `g0 P + c`, slot `P + c` row `g0 P + c + n0 / 2`.
    let row_of = |c: Val<u32>| -> Val<u64> {
        let half = cfg.rows.as_ref().map_or(0, |r| r.n0 / 2) as u64;
        let lo = g0 * (pairs as u64) + u64v(c & ((pairs - 1) as u32));
        dsl::select(c.dsl_cmp(CmpOp::Lt, pairs as u32), lo, lo + half)
    };
    let paired = cfg.mirror.is_some() || cfg.rows.is_some();
    let mut in_base = if paired { Val::constant(0u64) } else { first * g.is[0] };
    if let Some(offset) = rank_offset {
        in_base = in_base + offset;
    }
    let mut out_base = if paired { Val::constant(0u64) } else { first * g.os[0] };
    let mut idx1 = Val::constant(0u64);
    for d in 1..cfg.dims {
        let nd: Val<u32> = cast::<u32, _>(g.n[d]);
        let idx = u64v(if d + 1 == cfg.dims { rest } else { rest % nd });
        if d + 1 < cfg.dims {
            rest = rest / nd;
        }
        if d == 1 {
            idx1 = idx;
        }
        in_base = in_base + idx * g.is[d];
        out_base = out_base + idx * g.os[d];
    }
    // Transforms of dimension 0 present in this tile (the last tile may be partial; with
    // `mirror` every tile is full).
    let cols: Val<u32> = cast::<u32, _>((g.n[0] - first).min(cc));
    let guard_cols = c_per > 1 && !paired;
    // The index in batch dimension 0 of the block's transform in slot `c` (the tile's row `c`).
    let index = |c: Val<u32>| {
        if cfg.mirror.is_some() {
            mirror_of(c)
        } else if cfg.rows.is_some() {
            row_of(c)
        } else {
            u64v(c)
        }
    };
    let in_at = |c: Val<u32>| in_base + index(c) * g.is[0];
    let out_at = |c: Val<u32>| out_base + index(c) * g.os[0];

    // The first Stockham pass reads its butterflies' inputs from global memory and, unless
    // the output needs pairs of positions (even-length R2C), the last one writes its outputs
    // there: one shared-memory round trip fewer at each end. Each of those two passes maps
    // threads as the side it touches is laid out (`Mode`), so global accesses run along
    // contiguous memory.
    let read = |c: Val<u32>, j: Val<u32>| {
        let c_eff = if guard_cols { c.min(cols - 1u32) } else { c };
        match (&cfg.four_step, cfg.input) {
            (Some(fs), Input::HalfSpectrumPairs) => {
                // Pass A of an even-length C2R (see `BlockCfg` on `four_step`): position j of
                // transform n2' is logical position j n2 + n2' of the folded spectrum.
                let n = fs.n as usize;
                let col = first + u64v(c_eff);
                let jl = cast::<u32, _>(u64v(j) * ((n / cfg.len) as u64) + col);
                let xj = cload(&input, in_at(c_eff) + g.in_pos(j));
                let back = (in_base - first * g.is[0]) + u64v(u32c(n) - jl) * g.is[0];
                let x = fold(xj, cload(&input, back), jl, real_twiddle(&aux, jl, cfg.real));
                if cfg.inverse {
                    x.conj()
                } else {
                    x
                }
            }
            _ => load_position(cfg, &input, &aux, &g, in_at(c_eff), j),
        }
    };
    let n_out = cfg.output_positions();
    // The four-step twiddle `W_n^{i col}` of output position `i` of transform `c`, from the
    // split table `lo[e % 2^bits] hi[e >> bits]`.
    let four_step_twiddle = |fs: &FourStep, c: Val<u32>, i: Val<u64>| {
        let col = if fs.dim == 1 { idx1 } else { first + u64v(c) };
        let e = i * col;
        let lo = cload(&aux, (e & ((1u64 << fs.bits) - 1)) + (fs.off as u64));
        let hi = cload(&aux, (e >> fs.bits) + ((fs.off + (1usize << fs.bits)) as u64));
        lo.mul(hi)
    };
    // `twiddled`: the four-step twiddle is already applied (see `Ends::four_step`).
    let out_value = |c: Val<u32>, i: Val<u32>, v: Cx<T>, twiddled: bool| {
        let v = match &cfg.bluestein {
            None => v,
            Some(b) => v.conj().mul(cload(&aux, u64v(i) + (b.chirp_off as u64))),
        };
        match &cfg.four_step {
            Some(fs) if !twiddled => v.mul(four_step_twiddle(fs, c, u64v(i))),
            _ => v,
        }
    };
    let write_with = |c: Val<u32>, k: Val<u32>, v: Cx<T>, twiddled: bool| {
        let run = || {
            let base = out_at(c);
            let value = |i: Val<u32>| out_value(c, i, v, twiddled);
            store_output(
                cfg.output,
                cfg.logical_len(),
                cfg.real,
                cfg.inverse,
                &output,
                &aux,
                &g,
                base,
                k,
                &value,
            );
        };
        below(n_out < cfg.len, k, n_out, run);
    };
    // Runs `run` only if the tile holds transform `c`; writes through `write` are inside one
    // (a pass's stores share one branch and one computation of their transform's start).
    let guard = |c: Val<u32>, run: &dyn Fn()| {
        if guard_cols {
            dsl::if_else(c.dsl_cmp(CmpOp::Lt, cols), run, || ());
        } else {
            run();
        }
    };
    let unguarded = |_: Val<u32>, run: &dyn Fn()| run();
    let write = |c: Val<u32>, k: Val<u32>, v: Cx<T>| write_with(c, k, v, false);
    let write_twiddled = |c: Val<u32>, k: Val<u32>, v: Cx<T>| write_with(c, k, v, true);
    // The four-step twiddles `W^{k0 col}` and `W^{step col}` of transform `c` (see
    // `Ends::four_step`).
    let four_step_run = |c: Val<u32>, k0: Val<u32>, step: usize| {
        let fs = cfg.four_step.as_ref().expect("a four-step pass");
        (four_step_twiddle(fs, c, u64v(k0)), four_step_twiddle(fs, c, u64v(u32c(step))))
    };
    // 16-byte accesses (see `Wide`): position j of the transform pair (c & !1, c | 1) is one
    // piece. Lanes 2i and 2i + 1 of a warp hold the two transforms of a pair in Col mode (the
    // block's transforms are even in count, its threads whole warps); they exchange halves with
    // a shuffle, so each of them moves half the positions, both transforms at once.
    let whole_warps = nt % 32 == 0;
    let pair_of = |c: Val<u32>| {
        let c0 = c & !1u32;
        // With an even count of transforms a pair is wholly in the tile or wholly out.
        if guard_cols {
            c0.min(cols - 2u32)
        } else {
            c0
        }
    };
    let read_pair = |c: Val<u32>, j: Val<u32>| {
        // Real pairs: the buffer counts in reals, four to a 16-byte piece.
        let at = in_at(pair_of(c)) + g.in_pos(j);
        let v = input.load4(at >> 2u32);
        let (a, b) = (Cx::new(v.get(0), v.get(1)), Cx::new(v.get(2), v.get(3)));
        if cfg.inverse {
            (a.conj(), b.conj())
        } else {
            (a, b)
        }
    };
    let pairs_io =
        PairIo { read: (cfg.wide.load && whole_warps).then_some(&read_pair as &dyn Fn(_, _) -> _) };
    let direct_out = cfg.output != Output::HalfSpectrumPairs;
    let map = |mode: Mode| match mode {
        Mode::Row => divmod(tid, cfg.threads_per_fft),
        Mode::Col => {
            let (tt, c) = divmod(tid, c_per);
            (c, tt)
        }
    };
    // A cluster pass's last Stockham pass pushes `Y_rank[k]` of transform `c` into the tile
    // of block `k / per` (see `Cluster`), at unpadded position `[k % per][rank][c]`, once
    // every block of the cluster has read its own tile (a cluster barrier between the last
    // pass's reads and its writes). A receive area beside the tile would spare that barrier
    // but double the block's shared memory, halving the blocks per SM (measured slower: the
    // fourteenth session in NOTES.md).
    let push = |c: Val<u32>, k: Val<u32>, v: Cx<T>| {
        let cl = cfg.cluster.as_ref().expect("a cluster pass");
        let rank = rank.expect("a cluster pass knows its rank");
        let (owner, kl) = divmod(k, cfg.len / cl.q);
        let at = (kl * (cl.q as u32) + rank) * (c_per as u32) + c;
        dsl::dsmem_store2(&tile.s, at * 2u32, owner, vec2(v.re, v.im));
    };
    let ends = Ends {
        read: &read,
        write: if cfg.cluster.is_some() { &push } else { &write },
        guard: if cfg.cluster.is_some() { &unguarded } else { &guard },
        pairs: pairs_io,
        load: cfg.load,
        store: cfg.store,
        map: &map,
        hold_write: cfg.cluster.is_some().then_some(&cluster_sync as &dyn Fn()),
        four_step: (cfg.four_step.is_some()
            && cfg.cluster.is_none()
            && cfg.bluestein.is_none()
            && cfg.output == Output::Complex)
            .then_some((&four_step_run as &dyn Fn(_, _, _) -> _, &write_twiddled as &dyn Fn(_, _, _))),
    };
    let ra = row_align(cfg.len, is_f64);
    let (c, tt) = map(Mode::Row);
    let row = c * (ls as u32);
    match &cfg.bluestein {
        None => stockham(cfg, &tile, &tw, ls, ra, &ends, true, direct_out),
        Some(b) => {
            stockham(cfg, &tile, &tw, ls, ra, &ends, true, false);
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
                below((q + 1) * t > m, j, m, run);
            }
            sync_threads();
            stockham(cfg, &tile, &tw, ls, ra, &ends, false, direct_out);
        }
    }
    if let Some(cl) = &cfg.cluster {
        // Every block's pushes are in place once the cluster has passed this barrier; this
        // block then has `Y_r[k']` of every `r` for its positions `k'` in `[rank m / q,
        // (rank + 1) m / q)`. Consecutive threads take consecutive transforms (adjacent where
        // the pushes landed, and runs of the tile's width on the strided output).
        cluster_sync();
        let (m, per) = (cfg.len, cfg.len / cl.q);
        let rank = rank.expect("a cluster pass knows its rank");
        let total = per * c_per;
        for it in 0..total.div_ceil(nt) {
            let e = tid + u32c(it * nt);
            let run = || {
                let (kl, c) = divmod(e, c_per);
                let k1 = rank * (per as u32) + kl;
                let base = kl * ((cl.q * c_per) as u32) + c;
                let v: Vec<Cx<T>> = (0..cl.q)
                    .map(|r| {
                        let y = tile.load_padded(base + u32c(r * c_per));
                        if r == 0 {
                            y
                        } else {
                            y.mul(cload(&aux, u64v(k1) + ((cl.off + (r - 1) * m) as u64)))
                        }
                    })
                    .collect();
                let out = dft(&v);
                guard(c, &|| {
                    for (s, x) in out.iter().enumerate() {
                        write(c, k1 + u32c(s * m), *x);
                    }
                });
            };
            below((it + 1) * nt > total, e, total, run);
        }
        return;
    }
    if direct_out {
        return;
    }
    if let Some(rp) = &cfg.rows {
        // Each pair of rows' half spectra a (slot s) and b (slot P + s) as output rows 2r and
        // 2r + 1 (see `RowPairs`).
        let n = cfg.len;
        let total = pairs * n_out;
        for it in 0..total.div_ceil(nt) {
            let e = tid + u32c(it * nt);
            let run = || {
                let (s, k) = match cfg.store {
                    Mode::Row => divmod(e, n_out),
                    Mode::Col => {
                        let (k, s) = divmod(e, pairs);
                        (s, k)
                    }
                };
                let value = |row: Val<u32>| {
                    let kk = dsl::select(k.dsl_cmp(CmpOp::Eq, n as u32), u32c(0), k);
                    let mk = dsl::select(k.dsl_cmp(CmpOp::Eq, 0u32), u32c(0), u32c(n) - k);
                    let z = |i: Val<u32>| tile.load(row * (ls as u32) + i);
                    unfold(z(kk), z(mk), real_twiddle(&aux, k, cfg.real))
                };
                let (a, b) = (value(s), value(s + (pairs as u32)));
                let r = g0 * (pairs as u64) + u64v(s);
                let lo = cload(&aux, (r & ((1u64 << rp.bits) - 1)) + (rp.off as u64));
                let hi = cload(&aux, (r >> rp.bits) + ((rp.off + (1usize << rp.bits)) as u64));
                let at = out_base + (r + r) * g.os[0] + g.out_pos(k);
                let (y0, y1) = (a.add(b), a.sub(b).mul(lo.mul(hi)));
                output.store2(at, vec2(y0.re, y0.im));
                output.store2(at + g.os[0], vec2(y1.re, y1.im));
            };
            below((it + 1) * nt > total, e, total, run);
        }
        return;
    }
    if let Some(n1) = cfg.mirror {
        // The unfold from the tile: output k = k1 + n1 k2 of the slot `c` holding `k1` needs
        // Z[n - k], which is position n2 - 1 - k2 of the mirror `n1 - k1` (the other half's
        // slot), and for k1 = 0 position (n2 - k2) mod n2 of the same transform.
        let n2 = cfg.len;
        let n = n1 * n2;
        let total = c_per * n2;
        for it in 0..total.div_ceil(nt) {
            let e = tid + u32c(it * nt);
            let run = || {
                let (c, k2) = match cfg.store {
                    Mode::Row => divmod(e, n2),
                    Mode::Col => {
                        let (k2, c) = divmod(e, c_per);
                        (c, k2)
                    }
                };
                let k1 = cast::<u32, _>(mirror_of(c));
                let own = k1.dsl_cmp(CmpOp::Eq, 0u32) | k1.dsl_cmp(CmpOp::Eq, (n1 / 2) as u32);
                let mate = dsl::select(own, c, c ^ (pairs as u32));
                let back = u32c(n2 - 1) - k2;
                let zero_k2 = k2.dsl_cmp(CmpOp::Eq, 0u32);
                let at0 = dsl::select(zero_k2, u32c(0), back + 1u32);
                let mk = dsl::select(k1.dsl_cmp(CmpOp::Eq, 0u32), at0, back);
                let zk = tile.load(c * (ls as u32) + k2);
                let zm = tile.load(mate * (ls as u32) + mk);
                let k = k1 + k2 * (n1 as u32);
                let x = unfold(zk, zm, real_twiddle(&aux, k, cfg.real));
                output.store2(out_at(c) + g.out_pos(k2), vec2(x.re, x.im));
            };
            below((it + 1) * nt > total, e, total, run);
        }
        // X[n], from Z[0], by the thread of block 0 that holds it (Z[n] = Z[0]).
        let last = || {
            let z0 = tile.load(u32c(0));
            let x = unfold(z0, z0, real_twiddle(&aux, u32c(n), cfg.real));
            output.store2(out_at(u32c(0)) + (n2 as u64) * g.out_stride, vec2(x.re, x.im));
        };
        dsl::if_else(g0.dsl_cmp(CmpOp::Eq, 0u64) & tid.dsl_cmp(CmpOp::Eq, 0u32), last, || ());
        return;
    }

    // ---------------------------------------------------------------- store phase
    let positions = n_out;
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
                let base = out_at(c);
                let row = c * (ls as u32);
                let value = |i: Val<u32>| out_value(c, i, tile.load(row + i), false);
                let n = cfg.logical_len();
                store_output(cfg.output, n, cfg.real, cfg.inverse, &output, &aux, &g, base, k, &value);
            };
            if guard_cols {
                dsl::if_else(c.dsl_cmp(CmpOp::Lt, cols), write, || ());
            } else {
                write();
            }
        };
        below((it + 1) * nt > total, e, total, run);
    }
}

/// The global-memory ends of a block's Stockham passes: `read(c, j)` is input position `j` of
/// the block's transform `c`, `write(c, k, v)` stores output `k` of transform `c` (`v` as the
/// last pass computed it), `map(mode)` the thread's `(transform, thread within it)` for the
/// given mapping; `load`/`store` the mappings of the first and last pass.
struct Ends<'a, T> {
    read: &'a dyn Fn(Val<u32>, Val<u32>) -> Cx<T>,
    write: &'a dyn Fn(Val<u32>, Val<u32>, Cx<T>),
    /// `guard(c, run)` runs `run` only for transforms `c` present in the tile; every call of
    /// `write` (and of `four_step`'s) is inside one.
    guard: Guard<'a>,
    pairs: PairIo<'a, T>,
    load: Mode,
    store: Mode,
    map: &'a dyn Fn(Mode) -> (Val<u32>, Val<u32>),
    /// A barrier the last pass waits at between its reads of the tile and its writes through
    /// `write` (which then may write into the tile, or into other blocks' tiles).
    hold_write: Option<&'a dyn Fn()>,
    /// For the last pass of a four-step pass with a radix of at least 4: the twiddles
    /// `(W^{k0 col}, W^{step col})` of transform `c`, from which the thread multiplies on to
    /// those of its positions `k0 + x step` (each at most `r` roundings from its exact value:
    /// two split-table lookups per thread instead of two per position), and a `write` that
    /// takes values already multiplied by them.
    #[allow(clippy::type_complexity)]
    four_step: Option<(
        &'a dyn Fn(Val<u32>, Val<u32>, usize) -> (Cx<T>, Cx<T>),
        &'a dyn Fn(Val<u32>, Val<u32>, Cx<T>),
    )>,
}

/// `Ends::guard`: `guard(c, run)`.
type Guard<'a> = &'a dyn Fn(Val<u32>, &dyn Fn());
/// A pair's read, for [`PairIo`].
type ReadPair<'a, T> = &'a dyn Fn(Val<u32>, Val<u32>) -> (Cx<T>, Cx<T>);
/// The 16-byte global reads of a pass's Col mode (see `Wide`): `read(c, j)` is position `j`
/// of the pair holding transform `c` (the pair's even transform first). `None`: the side moves
/// 8 bytes per thread.
struct PairIo<'a, T> {
    read: Option<ReadPair<'a, T>>,
}

/// `a` where `p` holds, else `b`.
fn select_cx<T: FftFloat>(p: Val<bool>, a: Cx<T>, b: Cx<T>) -> Cx<T> {
    Cx::new(dsl::select(p, a.re, b.re), dsl::select(p, a.im, b.im))
}

/// `v` of the lane whose index differs from this one's in bit 0.
fn shfl_partner<T: FftFloat>(v: Cx<T>) -> Cx<T> {
    Cx::new(dsl::shfl_xor(v.re, 1u32), dsl::shfl_xor(v.im, 1u32))
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
        Input::Complex => cload(input, base + g.in_pos(j)),
        Input::RealPairs => {
            let off = base + g.in_pos(j);
            Cx::new(input.load(off), input.load(off + g.pair_in))
        }
        Input::Real => Cx::new(input.load(base + g.in_pos(j)), zero),
        Input::HalfSpectrum => {
            // Hermitian expansion: X[j] = conj(X[n - j]) above n / 2.
            let low = j.dsl_cmp(CmpOp::Le, (n / 2) as u32);
            let src = dsl::select(low, j, u32c(n) - j);
            let x = cload(input, base + g.in_pos(src));
            // The first value of a Hermitian spectrum is real: its imaginary part does not
            // enter the result (as NumPy, rocFFT and the host path treat it).
            let im = dsl::select(low, x.im, -x.im);
            Cx::new(x.re, dsl::select(src.dsl_cmp(CmpOp::Eq, 0u32), zero, im))
        }
        Input::HalfSpectrumPairs => {
            let xk = cload(input, base + g.in_pos(j));
            let xn = cload(input, base + g.in_pos(u32c(n) - j));
            fold(xk, xn, j, real_twiddle(aux, j, real))
        }
    }
}

/// Position `j` of the half-length complex spectrum whose inverse FFT holds the real output in
/// pairs, from a Hermitian half spectrum: `Z'[j] = (X[j] + conj X[n-j]) + i (X[j] - conj
/// X[n-j]) conj(W_2n^j)` (`xj = X[j]`, `xn = X[n-j]`, `w = W_2n^j`).
fn fold<T: FftFloat>(xj: Cx<T>, xn: Cx<T>, j: Val<u32>, w: Cx<T>) -> Cx<T> {
    let zero = Val::constant(T::lit(0.0));
    let xm = xn.conj();
    // At j = 0 these are the first and the last (Nyquist) values of the spectrum of 2n reals,
    // which are real: their imaginary parts do not enter the result.
    let first = j.dsl_cmp(CmpOp::Eq, 0u32);
    let xk = Cx::new(xj.re, dsl::select(first, zero, xj.im));
    let xm = Cx::new(xm.re, dsl::select(first, zero, xm.im));
    xk.add(xm).add(xk.sub(xm).mul(w.conj()).mul_i())
}

/// Output `k` of the spectrum of `2n` reals from the half-length complex FFT `Z` of their
/// pairs: `X[k] = E + W_2n^k O` with `E = (Z[k] + conj Z[n-k]) / 2`,
/// `O = -i (Z[k] - conj Z[n-k]) / 2` (`zk = Z[k]`, `zn = Z[n-k]`, indices mod `n`).
pub(crate) fn unfold<T: FftFloat>(zk: Cx<T>, zn: Cx<T>, w: Cx<T>) -> Cx<T> {
    let zm = zn.conj();
    let half = Val::constant(T::lit(0.5));
    let e = zk.add(zm).scale(half);
    let o = zk.sub(zm).mul_neg_i().scale(half);
    e.add(o.mul(w))
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
    let off = base + g.out_pos(k);
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
            let x = unfold(result(kk), result(mk), real_twiddle(aux, k, real));
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

/// The Stockham passes of one transform per `threads_per_fft` threads, rows `ls` apart in the
/// tile (rows start on multiples of `row_align`). With `from_global` the first pass reads its
/// inputs through `ends.read` (else from the tile), with `to_global` the last pass writes its
/// outputs through `ends.write` (else to the tile, followed by a barrier).
#[allow(clippy::too_many_arguments)]
fn stockham<T: FftFloat>(
    cfg: &BlockCfg,
    tile: &Tile<T>,
    tw: &Slice<T>,
    ls: usize,
    row_align: usize,
    ends: &Ends<T>,
    from_global: bool,
    to_global: bool,
) {
    let l = cfg.len;
    let t = cfg.threads_per_fft;
    let last = cfg.radices.len() - 1;
    let f64 = tile.shift == 3;
    let handoff = handoff(cfg, f64);
    let r0 = cfg.radices[0];
    let mut ns = 1usize;
    for (p, &r) in cfg.radices.iter().enumerate() {
        let b = l / r;
        let reads_global = from_global && p == 0;
        let writes_global = to_global && p == last;
        let mode = if writes_global {
            ends.store
        } else if reads_global {
            ends.load
        } else {
            Mode::Row
        };
        // A pass that reads and writes the tile holds its results until every thread has read.
        let hold_write = ends.hold_write.filter(|_| writes_global);
        let hold = (!reads_global && !writes_global) || hold_write.is_some();
        let (c, tt) = (ends.map)(mode);
        let row = c * (ls as u32);
        // With ns = 1 a butterfly writes r consecutive positions from a multiple of r.
        let align = if ns == 1 { align_of(r, row_align) } else { 1 };
        let mut held = Vec::new();
        for q in 0..b.div_ceil(t) {
            let i = tt + u32c(q * t);
            let partial = (q + 1) * t > b;
            let ie = if partial { i.min((b - 1) as u32) } else { i };
            let odd = || (c & 1u32).dsl_cmp(CmpOp::Eq, 1u32);
            let mut v: Vec<Cx<T>> =
                if let (true, Mode::Col, Some(read)) = (reads_global, mode, ends.pairs.read) {
                    // Positions 2m and 2m + 1 of the pair: the even lane reads the first, the odd
                    // lane the second, each for both transforms, and they trade the other's half.
                    let odd = odd();
                    let mut v: Vec<Cx<T>> = Vec::with_capacity(r);
                    for m in 0..r / 2 {
                        let j = ie + dsl::select(odd, u32c((2 * m + 1) * b), u32c(2 * m * b));
                        let (p, q) = read(c, j);
                        let (own, other) = (select_cx(odd, q, p), select_cx(odd, p, q));
                        let got = shfl_partner(other);
                        v.push(select_cx(odd, got, own));
                        v.push(select_cx(odd, own, got));
                    }
                    if r % 2 == 1 {
                        v.push((ends.read)(c, ie + u32c((r - 1) * b)));
                    }
                    v
                } else if reads_global {
                    (0..r).map(|x| (ends.read)(c, ie + u32c(x * b))).collect()
                } else {
                    let at = match (p, handoff) {
                        (1, Handoff::Plain) => {
                            let base = tile.pad(row) + ie;
                            (0..r).map(|x| base + u32c(x * b)).collect()
                        }
                        (1, Handoff::Gap(g)) if b % g == 0 => {
                            // (ie + x b) / g = ie / g + x b / g.
                            let base = tile.pad(row) + ie + divmod(ie, g).0;
                            (0..r).map(|x| base + u32c(x * (b + b / g))).collect()
                        }
                        (1, Handoff::Gap(g)) => (0..r)
                            .map(|x| {
                                let e = ie + u32c(x * b);
                                tile.pad(row) + e + divmod(e, g).0
                            })
                            .collect(),
                        _ => match last_blocks(cfg, f64) {
                            Some(stride) if p == last => {
                                let base = tile.pad(row) + ie;
                                (0..r).map(|x| base + u32c(x * stride)).collect()
                            }
                            _ => tile.positions(row + ie, 1, (0..r).map(|x| x * b)),
                        },
                    };
                    at.iter().map(|&p| tile.load_padded(p)).collect()
                };
            let (hi, kk) = divmod(ie, ns);
            if ns > 1 {
                let base = u64v(kk) + (cfg.tw_offsets[p] as u64);
                for (x, vx) in v.iter_mut().enumerate().skip(1) {
                    let w = cload(tw, base + ((x - 1) * ns) as u64);
                    *vx = vx.mul(w);
                }
            }
            let out = dft(&v);
            let put = move || {
                if writes_global {
                    // The last pass: hi = 0, output k = kk + x ns.
                    (ends.guard)(c, &|| match ends.four_step {
                        Some((twiddles, write)) if r >= 4 => {
                            let (mut w, by) = twiddles(c, kk, ns);
                            for (x, vx) in out.iter().enumerate() {
                                if x > 0 {
                                    w = w.mul(by);
                                }
                                write(c, kk + u32c(x * ns), vx.mul(w));
                            }
                        }
                        _ => {
                            for (x, vx) in out.iter().enumerate() {
                                (ends.write)(c, kk + u32c(x * ns), *vx);
                            }
                        }
                    });
                } else {
                    let at = match handoff {
                        Handoff::Plain | Handoff::Gap(_) if p == 0 => {
                            // Thread `hi` writes `hi R + x` at `hi R' + x` (see `Handoff`).
                            let step = if handoff == Handoff::Plain { r0 } else { r0 + 1 };
                            let base = tile.pad(row) + hi * (step as u32);
                            (0..r).map(|x| base + u32c(x)).collect()
                        }
                        _ => match last_blocks(cfg, f64) {
                            Some(stride) if p + 1 == last => {
                                // Block `hi` of the last pass's input (see `last_blocks`).
                                let base = tile.pad(row) + hi * (stride as u32) + kk;
                                (0..r).map(|x| base + u32c(x * ns)).collect()
                            }
                            _ => {
                                let dst = if ns == 1 {
                                    row + hi * (r as u32)
                                } else {
                                    row + hi * ((ns * r) as u32) + kk
                                };
                                tile.positions(dst, align, (0..r).map(|x| x * ns))
                            }
                        },
                    };
                    for (&p, vx) in at.iter().zip(&out) {
                        tile.store_padded(p, *vx);
                    }
                }
            };
            if hold {
                held.push((i, partial, put));
            } else {
                below(partial, i, b, put);
            }
        }
        if hold {
            match hold_write {
                Some(barrier) => barrier(),
                None => sync_threads(),
            }
            for (i, partial, put) in held {
                below(partial, i, b, put);
            }
        }
        if !writes_global {
            sync_threads();
        }
        ns *= r;
    }
}
