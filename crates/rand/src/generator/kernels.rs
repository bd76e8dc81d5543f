//! The host API's kernels. Each `#[kernel]` is a thin entry point; the bodies are `#[device]`
//! functions generic over the element type and the generator, with the compile-time [`Plan`]
//! picked apart by `match`, `if` and unrolled `for` (the code for one plan holds no trace of the
//! others), and runtime `if`/`for`/`while` on the values.

use ferrocm_kernel::dsl::{self, cast, vec2, vec4, Elem, Memory, MemoryMut, Shared, Slice, SliceMut, Val};
use ferrocm_kernel::prelude::*;

use crate::device::{self as dev, DeviceGenerator};
use crate::reference::ThreefryKind;

/// What a kernel computes, fixed at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Plan {
    pub dist: Dist,
    pub rng: Rng,
    /// cuRAND-compatible (legacy) layout instead of the default one.
    pub legacy: bool,
    /// Whole units are written with one 2- or 4-wide store (the output is aligned for it).
    pub vector: bool,
    /// Philox blocks each thread computes per loop trip (independent, for instruction-level
    /// parallelism); results do not depend on it.
    pub unroll: u64,
    /// Default ordering with 32-bit loop indices (the call's units, the grid and the output
    /// length all fit), which saves 64-bit integer work in the loop; the launch's stream
    /// positions (units) cross no multiple of 2^31, so the high word of every counter is the
    /// same for the whole launch.
    pub narrow: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dist {
    Bits,
    Uniform,
    UniformHalf,
    /// Poisson outcomes by cuRAND's host-API Gaussian method: float normals rounded,
    /// `(u32)(stddev z + mean + 0.5)` in double, `mean = lambda`, `stddev = sqrt(lambda)`.
    PoissonGauss,
    /// Poisson outcomes by cuRAND's host-API square histogram: each 32-bit draw mapped
    /// through the table of [`Values::Histogram`].
    PoissonHistogram,
    /// Sobol32 Poisson outcomes by the inverse CDF (fused [`PoissonMap::Cdf`]).
    PoissonCdf,
    /// Sobol32 Poisson outcomes by the Gaussian map (fused [`PoissonMap::Icdf`]).
    PoissonIcdf,
    Normal,
    LogNormal,
    UniformDouble,
    NormalDouble,
    LogNormalDouble,
}

/// What a unit's values are made of: a distribution's mean and standard deviation (kernel
/// parameters; `Dist::PoissonGauss` takes lambda and its square root), or the Poisson square
/// histogram in device memory (`Dist::PoissonHistogram`: outcome `shift + j`).
#[derive(Clone, Copy)]
pub(crate) enum Values {
    Dist { mean: Val<f64>, stddev: Val<f64> },
    Histogram { shift: Val<u32>, thresholds: Slice<f64>, aliases: Slice<u32> },
}

impl Values {
    fn mean_stddev(self) -> (Val<f64>, Val<f64>) {
        match self {
            Values::Dist { mean, stddev } => (mean, stddev),
            Values::Histogram { .. } => (Val::constant(0.0), Val::constant(1.0)),
        }
    }

    /// One 32-bit draw through the Poisson square histogram.
    fn histogram(self, x: Val<u32>) -> Val<u32> {
        match self {
            Values::Histogram { shift, thresholds, aliases } => {
                dev::discrete_bits(x, thresholds, aliases) + shift
            }
            Values::Dist { .. } => x,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rng {
    Philox,
    Xorwow,
    Mrg32k3a,
    Lfsr113,
    /// Counter-based like Philox: unit `u` is values `4u .. 4u + 4` of the stream.
    Threefry(crate::reference::ThreefryKind),
}

impl Dist {
    /// Elements per unit: one unit is one Philox block (four 32-bit words).
    pub fn per_unit(self) -> u64 {
        match self {
            Dist::UniformDouble | Dist::NormalDouble | Dist::LogNormalDouble => 2,
            _ => 4,
        }
    }
    pub fn pairs(self) -> bool {
        matches!(self, Dist::Normal | Dist::LogNormal | Dist::NormalDouble | Dist::LogNormalDouble)
    }
}

/// Reinterprets a value built for the output type chosen by the plan (the plan and `T` agree
/// by construction in `Generator`).
fn as_t<T: Elem, U: Elem>(v: Val<U>) -> Val<T> {
    Val::from_ir(v.ir())
}

/// A float uniform rounded to half precision (to nearest even).
fn half(x: Val<f32>) -> Val<ferrocm_kernel::f16> {
    cast::<ferrocm_kernel::f16, _>(x)
}

fn affine32(z: Val<f32>, mean: Val<f64>, stddev: Val<f64>, log: bool) -> Val<f32> {
    let m: Val<f32> = cast::<f32, _>(mean);
    let s: Val<f32> = cast::<f32, _>(stddev);
    let v = s.mul_add(z, m);
    if log {
        v.exp()
    } else {
        v
    }
}

fn affine64(z: Val<f64>, mean: Val<f64>, stddev: Val<f64>, log: bool) -> Val<f64> {
    let v = stddev.mul_add(z, mean);
    if log {
        v.exp()
    } else {
        v
    }
}

/// The values of one Philox block under `dist` (4, or 2 for doubles).
fn philox_values<T: Elem>(dist: Dist, w: [Val<u32>; 4], v: Values) -> Vec<Val<T>> {
    let (mean, stddev) = v.mean_stddev();
    match dist {
        // Only the Sobol32 kernels are built with the Sobol Poisson maps (see `Generator`).
        Dist::Bits | Dist::PoissonCdf | Dist::PoissonIcdf => w.iter().map(|&x| as_t(x)).collect(),
        Dist::Uniform => w.iter().map(|&x| as_t(dev::uniform_f32(x))).collect(),
        Dist::UniformHalf => w.iter().map(|&x| as_t(half(dev::uniform_f32(x)))).collect(),
        Dist::PoissonHistogram => w.iter().map(|&x| as_t(v.histogram(x))).collect(),
        Dist::PoissonGauss => {
            let (a, b) = dev::box_muller(w[0], w[1]);
            let (c, d) = dev::box_muller(w[2], w[3]);
            [a, b, c, d].iter().map(|&z| as_t(poisson_gauss(cast::<f64, _>(z), mean, stddev))).collect()
        }
        Dist::Normal | Dist::LogNormal => {
            let log = dist == Dist::LogNormal;
            let (a, b) = dev::box_muller(w[0], w[1]);
            let (c, d) = dev::box_muller(w[2], w[3]);
            [a, b, c, d].iter().map(|&z| as_t(affine32(z, mean, stddev, log))).collect()
        }
        Dist::UniformDouble => {
            vec![as_t(dev::uniform_f64_hq(w[0], w[1])), as_t(dev::uniform_f64_hq(w[2], w[3]))]
        }
        Dist::NormalDouble | Dist::LogNormalDouble => {
            let log = dist == Dist::LogNormalDouble;
            let (a, b) = dev::box_muller_double(w[0], w[1], w[2], w[3]);
            vec![as_t(affine64(a, mean, stddev, log)), as_t(affine64(b, mean, stddev, log))]
        }
    }
}

/// The values of one unit drawn from a stateful generator (the same element counts as Philox).
fn state_values<T: Elem, G: DeviceGenerator>(g: &G, dist: Dist, v: Values) -> Vec<Val<T>> {
    let (mean, stddev) = v.mean_stddev();
    match dist {
        // Only the Sobol32 kernels are built with the Sobol Poisson maps (see `Generator`).
        Dist::Bits | Dist::PoissonCdf | Dist::PoissonIcdf => (0..4).map(|_| as_t(g.next_u32())).collect(),
        Dist::Uniform => (0..4).map(|_| as_t(g.uniform())).collect(),
        Dist::UniformHalf => (0..4).map(|_| as_t(half(g.uniform()))).collect(),
        Dist::PoissonHistogram => (0..4).map(|_| as_t(v.histogram(g.next_u32()))).collect(),
        Dist::PoissonGauss => {
            let (a, b) = g.box_muller();
            let (c, d) = g.box_muller();
            [a, b, c, d].iter().map(|&z| as_t(poisson_gauss(cast::<f64, _>(z), mean, stddev))).collect()
        }
        Dist::Normal | Dist::LogNormal => {
            let log = dist == Dist::LogNormal;
            let (a, b) = g.box_muller();
            let (c, d) = g.box_muller();
            [a, b, c, d].iter().map(|&z| as_t(affine32(z, mean, stddev, log))).collect()
        }
        Dist::UniformDouble => (0..2).map(|_| as_t(g.uniform_double())).collect(),
        Dist::NormalDouble | Dist::LogNormalDouble => {
            let log = dist == Dist::LogNormalDouble;
            let (a, b) = g.box_muller_double();
            vec![as_t(affine64(a, mean, stddev, log)), as_t(affine64(b, mean, stddev, log))]
        }
    }
}

/// Writes unit `q`'s values to elements `q * E + e - lead` that fall inside `out`, with one
/// wide store when the plan allows and the whole unit fits.
#[device]
fn store_unit<T: Elem>(plan: Plan, out: SliceMut<T>, q: u64, lead: u64, vals: &[Val<T>]) {
    let e = vals.len() as u64;
    let n = out.len() as u64;
    let scalar = || {
        for (k, &v) in vals.iter().enumerate() {
            let jj = q * e + k as u64;
            if jj >= lead && jj - lead < n {
                out[jj - lead] = v;
            }
        }
    };
    if plan.vector {
        if (q + 1u64) * e <= n {
            if e == 4 {
                out.store4(q, vec4(vals[0], vals[1], vals[2], vals[3]))
            } else {
                out.store2(q, vec2(vals[0], vals[1]))
            }
        } else {
            scalar()
        }
    } else {
        scalar()
    }
}

/// Legacy Philox: the host API's 65,536 interleaved subsequences.
pub const PHILOX_LEGACY_STATES: u64 = 65_536;

/// Philox: unit `q` of the call is block `u_first + q` of the stream.
#[allow(clippy::too_many_arguments)]
#[device]
fn philox_body<T: Elem>(
    plan: Plan,
    key_lo: u32,
    key_hi: u32,
    u_first: u64,
    lead: u64,
    units: u64,
    v: Values,
    out: SliceMut<T>,
) {
    let start = global_index() as u64;
    let stride = grid_stride() as u64;
    let keys = dev::philox_round_keys([key_lo, key_hi]);
    let unroll = plan.unroll.max(1);
    let seed = (key_lo as u64) | ((key_hi as u64) << 32u32);
    if plan.rng == Rng::Threefry(ThreefryKind::X4x64) && plan.narrow && !plan.legacy {
        threefry_block_pairs_narrow(plan, seed, u_first, lead, units, v, out);
    } else if plan.rng == Rng::Threefry(ThreefryKind::X4x64) {
        threefry_block_pairs(plan, seed, u_first, lead, units, v, out);
    } else if plan.narrow && !plan.legacy {
        philox_narrow(plan, &keys, seed, u_first, lead, units, v, out);
    } else {
        for q0 in (start..units).step_by(stride * unroll) {
            #[comptime]
            let mut all = Vec::new();
            for k in 0..unroll {
                let q = q0 + stride * k;
                let u = u_first + q;
                let (lo, hi) = if !plan.legacy {
                    (u, Val::constant(0u64))
                } else if plan.dist.per_unit() == 4 {
                    (u >> 16u32, u & (PHILOX_LEGACY_STATES - 1))
                } else {
                    // Doubles: two blocks per state and row; the state starts at its block row
                    // `r0` of the 32-bit stream at the offset (`o4 = offset / 4` blocks).
                    let b = u >> 1u32;
                    let (state, row) = (b & (PHILOX_LEGACY_STATES - 1), b >> 16u32);
                    let o4 = u_first >> 1u32;
                    let r0 = (o4 >> 16u32) + select(state < (o4 & (PHILOX_LEGACY_STATES - 1)), 1u64, 0u64);
                    (row * 2u64 - r0 + (u & 1u64), state)
                };
                let ctr = [lo as u32, (lo >> 32u32) as u32, hi as u32, (hi >> 32u32) as u32];
                let w = match plan.rng {
                    Rng::Threefry(kind) => dev::threefry_unit(kind, seed, u),
                    _ => dev::philox4x32_10_keyed(ctr, &keys),
                };
                all.push((q, philox_values::<T>(plan.dist, w, v)));
            }
            for (k, (q, vals)) in all.into_iter().enumerate() {
                if k == 0 {
                    store_unit(plan, out, q, lead, &vals);
                } else if q < units {
                    store_unit(plan, out, q, lead, &vals);
                }
            }
        }
    }
}

/// ThreeFry4x64: one block of eight words per loop trip, units `2b` and `2b + 1` of the
/// stream (a unit of four values is half a block). A thread's two units are adjacent 16-byte
/// halves of one 32-byte sector, so two stores of its own halves would half-fill every sector
/// of each warp store. Instead the lanes of a pair (blocks `b`, `b + 1`) trade the halves in
/// between (one `shfl.bfly` per word): each lane then stores units `2b - p` and `2b + 2 - p`
/// (`p` its lane's parity), and each warp store writes whole sectors. The loop runs whole
/// warps (a lane past the last block computes a block the call does not store, but still
/// stores the half its partner gives it); units outside the call are skipped.
#[allow(clippy::too_many_arguments)]
#[device]
fn threefry_block_pairs<T: Elem>(
    plan: Plan,
    seed: u64,
    u_first: u64,
    lead: u64,
    units: u64,
    v: Values,
    out: SliceMut<T>,
) {
    let lane = lane_id();
    let odd = (lane & 1u32) != 0u32;
    let warp_start = global_index() as u64 - lane as u64;
    let stride = grid_stride() as u64;
    let b0 = u_first >> 1u32;
    let blocks = ((u_first + units + 1u64) >> 1u32) - b0;
    let p = (lane & 1u32) as u64;
    for i in (warp_start..blocks).step_by(stride) {
        let b = b0 + i + lane as u64;
        let w = dev::threefry_block(ThreefryKind::X4x64, seed, b);
        for (h, words) in trade_halves(odd, &w).into_iter().enumerate() {
            // Wraps past `units` for the unit before the call's first.
            let q = b * 2u64 + (2 * h) as u64 - p - u_first;
            let vals = philox_values::<T>(plan.dist, words, v);
            if q < units {
                store_unit(plan, out, q, lead, &vals);
            }
        }
    }
}

/// The halves a lane of a pair stores after trading ([`threefry_block_pairs`]): the even lane
/// (`odd` false) gives its block's second half `w[4..8]` and keeps the first, the odd lane gives
/// its first; each returns its two units in order.
fn trade_halves(odd: Val<bool>, w: &[Val<u32>]) -> [[Val<u32>; 4]; 2] {
    let got: Vec<Val<u32>> = (0..4).map(|k| shfl_xor(select(odd, w[k], w[4 + k]), 1u32)).collect();
    let first = std::array::from_fn(|k| select(odd, got[k], w[k]));
    let second = std::array::from_fn(|k| select(odd, w[4 + k], got[k]));
    [first, second]
}

/// [`threefry_block_pairs`] with 32-bit indices, in the narrow plan: no unit of the launch
/// crosses a multiple of 2^31, so block `b = u_first / 2 + j` has the launch's high word
/// `f_hi / 2` and the low word `(f_hi mod 2) 2^31 + f_lo / 2 + j` without a carry, and unit
/// `q` of the call is `2 j + 2 h - p - (f_lo mod 2)` for the `h`-th half a lane stores.
#[allow(clippy::too_many_arguments)]
#[device]
fn threefry_block_pairs_narrow<T: Elem>(
    plan: Plan,
    seed: u64,
    u_first: u64,
    lead: u64,
    units: u64,
    v: Values,
    out: SliceMut<T>,
) {
    let lane = lane_id();
    let odd = (lane & 1u32) != 0u32;
    let warp_start = block_idx_x() * block_dim_x() + thread_idx_x() - lane;
    let stride = grid_dim_x() * block_dim_x();
    let units32 = units as u32;
    let (f_lo, f_hi) = (u_first as u32, (u_first >> 32u32) as u32);
    let blocks = ((f_lo & 1u32) + units32 + 1u32) >> 1u32;
    let b_first = ((f_hi & 1u32) << 31u32) + (f_lo >> 1u32);
    let b_hi = (f_hi >> 1u32) as u64;
    let p = lane & 1u32;
    let q_first = p + (f_lo & 1u32);
    for i in (warp_start..blocks).step_by(stride) {
        let j = i + lane;
        let b = ((b_first + j) as u64) | (b_hi << 32u32);
        let w = dev::threefry_block(ThreefryKind::X4x64, seed, b);
        for (h, words) in trade_halves(odd, &w).into_iter().enumerate() {
            // Wraps past `units` for the unit before the call's first.
            let q = j * 2u32 + (2 * h) as u32 - q_first;
            let vals = philox_values::<T>(plan.dist, words, v);
            if q < units32 {
                store_unit_narrow(plan, out, q, lead, &vals);
            }
        }
    }
}

/// [`store_unit`] with a 32-bit unit index (the narrow plan's).
#[device]
fn store_unit_narrow<T: Elem>(plan: Plan, out: SliceMut<T>, q: u32, lead: u64, vals: &[Val<T>]) {
    let e = vals.len() as u32;
    if !plan.vector {
        store_unit(plan, out, q as u64, lead, vals)
    } else if (q + 1u32) * e <= out.len() as u32 {
        if e == 4 {
            out.store4(q, vec4(vals[0], vals[1], vals[2], vals[3]))
        } else {
            out.store2(q, vec2(vals[0], vals[1]))
        }
    } else {
        store_unit(Plan { vector: false, ..plan }, out, q as u64, lead, vals)
    }
}

/// [`philox_body`] for the default ordering with 32-bit indices (Philox, and ThreeFry but for
/// 4x64).
#[allow(clippy::too_many_arguments)]
#[device]
fn philox_narrow<T: Elem>(
    plan: Plan,
    keys: &[[Val<u32>; 2]; 10],
    seed: u64,
    u_first: u64,
    lead: u64,
    units: u64,
    v: Values,
    out: SliceMut<T>,
) {
    let start = block_idx_x() * block_dim_x() + thread_idx_x();
    let stride = grid_dim_x() * block_dim_x();
    let units32 = units as u32;
    let (f_lo, f_hi) = (u_first as u32, (u_first >> 32u32) as u32);
    let unroll = plan.unroll.max(1) as u32;
    for q0 in (start..units32).step_by(stride * unroll) {
        #[comptime]
        let mut all = Vec::new();
        for k in 0..unroll {
            let q = q0 + stride * k;
            // No carry into the high word, nor across bit 31 (the narrow plan's promise).
            let c0 = f_lo + q;
            let zero = Val::constant(0u32);
            let w = match plan.rng {
                Rng::Threefry(kind) => dev::threefry_unit_narrow(kind, seed, c0, f_hi, f_lo >> 31u32),
                _ => dev::philox4x32_10_keyed([c0, f_hi, zero, zero], keys),
            };
            all.push((q, philox_values::<T>(plan.dist, w, v)));
        }
        for (k, (q, vals)) in all.into_iter().enumerate() {
            if k == 0 {
                store_unit_narrow(plan, out, q, lead, &vals);
            } else if q < units32 {
                store_unit_narrow(plan, out, q, lead, &vals);
            }
        }
    }
}

#[kernel]
pub(crate) fn philox_fill<T: Elem>(
    #[comptime] plan: Plan,
    key_lo: u32,
    key_hi: u32,
    u_first: u64,
    lead: u64,
    units: u64,
    mean: f64,
    stddev: f64,
    out: &mut [T],
) {
    let v = dist_values(mean, stddev);
    philox_body::<T>(plan, key_lo, key_hi, u_first, lead, units, v, out);
}

fn dist_values(mean: Val<f64>, stddev: Val<f64>) -> Values {
    Values::Dist { mean, stddev }
}

fn histogram_values(shift: Val<u32>, thresholds: Slice<f64>, aliases: Slice<u32>) -> Values {
    Values::Histogram { shift, thresholds, aliases }
}

/// [`philox_fill`] of Poisson outcomes through the square histogram (`Dist::PoissonHistogram`).
#[kernel]
#[allow(clippy::too_many_arguments)]
pub(crate) fn philox_histogram_fill<T: Elem>(
    #[comptime] plan: Plan,
    key_lo: u32,
    key_hi: u32,
    u_first: u64,
    lead: u64,
    units: u64,
    shift: u32,
    thresholds: &[f64],
    aliases: &[u32],
    out: &mut [T],
) {
    let v = histogram_values(shift, thresholds, aliases);
    philox_body::<T>(plan, key_lo, key_hi, u_first, lead, units, v, out);
}

fn load_words(states: SliceMut<u32>, t: Val<u64>, count: Val<u64>) -> [Val<u32>; 6] {
    std::array::from_fn(|w| states.load(count * w as u64 + t))
}

fn store_words(states: SliceMut<u32>, t: Val<u64>, count: Val<u64>, words: [Val<u32>; 6]) {
    for (w, x) in words.into_iter().enumerate() {
        states.store(count * w as u64 + t, x);
    }
}

/// Initialises states `first..first + todo` of `count` (word-major: word `w` of state `t` at
/// `w * count + t`) as `curand_init(seed, t, offset)`.
#[device]
fn init_body(
    #[comptime] rng: Rng,
    seed: u64,
    offset: u64,
    first: u64,
    todo: u64,
    table: Slice<u32>,
    states: SliceMut<u32>,
) {
    let count = states.len() as u64 / 6u64;
    let start = global_index() as u64;
    let stride = grid_stride() as u64;
    for i in (start..todo).step_by(stride) {
        let t = first + i;
        let words = match rng {
            Rng::Xorwow => dev::Xorwow::init(seed, t, offset, table).words(),
            Rng::Lfsr113 => {
                let z = dev::Lfsr113::init(seed, t, offset, table).words();
                [z[0], z[1], z[2], z[3], Val::constant(0u32), Val::constant(0u32)]
            }
            _ => dev::Mrg32k3a::init(seed, t, offset, table).words(),
        };
        store_words(states, t, count, words);
    }
}

#[kernel]
pub(crate) fn state_init(
    #[comptime] rng: Rng,
    seed: u64,
    offset: u64,
    first: u64,
    todo: u64,
    table: &[u32],
    states: &mut [u32],
) {
    init_body(rng, seed, offset, first, todo, table, states);
}

/// Default ordering for XORWOW and MRG32k3a: state `t` produces units `t, t + S, ...` of the
/// call (S states), and is stored back advanced.
#[device]
fn stateful_body<T: Elem>(
    plan: Plan,
    units: u64,
    v: Values,
    mrg: dev::MrgConstants,
    states: SliceMut<u32>,
    out: SliceMut<T>,
) {
    let count = states.len() as u64 / 6u64;
    let start = global_index() as u64;
    let stride = grid_stride() as u64;
    for t in (start..count.min(units)).step_by(stride) {
        let words = load_words(states, t, count);
        match plan.rng {
            Rng::Xorwow => {
                let g = dev::Xorwow::from_words(words[0], [words[1], words[2], words[3], words[4], words[5]]);
                state_units(plan, &g, t, units, count, v, out);
                store_words(states, t, count, g.words());
            }
            Rng::Lfsr113 => {
                let g = dev::Lfsr113::from_words([words[0], words[1], words[2], words[3]]);
                state_units(plan, &g, t, units, count, v, out);
                let z = g.words();
                store_words(states, t, count, [z[0], z[1], z[2], z[3], words[4], words[5]]);
            }
            _ => {
                let g = dev::Mrg32k3a::from_words_with(words, mrg);
                state_units(plan, &g, t, units, count, v, out);
                store_words(states, t, count, g.words());
            }
        }
    }
}

/// State `g` (index `t` of `count`) draws units `t, t + count, ...` below `units` in order.
/// With `plan.unroll == 2` the loop body draws two units (while both exist) so one unit's
/// float work can overlap the next unit's state steps; the values are the same.
#[allow(clippy::too_many_arguments)]
#[device]
fn state_units<T: Elem, G: DeviceGenerator>(
    plan: Plan,
    g: &G,
    t: u64,
    units: u64,
    count: u64,
    v: Values,
    out: SliceMut<T>,
) {
    let lead = Val::constant(0u64);
    if plan.unroll != 2 {
        for q in (t..units).step_by(count) {
            let vals = state_values::<T, _>(g, plan.dist, v);
            store_unit(plan, out, q, lead, &vals);
        }
    } else {
        // Pairs (q, q + count) with q + count < units, then at most one unit left.
        let end = units.max(count) - count;
        let step = count * 2u64;
        for q in (t..end).step_by(step) {
            let a = state_values::<T, _>(g, plan.dist, v);
            let b = state_values::<T, _>(g, plan.dist, v);
            store_unit(plan, out, q, lead, &a);
            store_unit(plan, out, q + count, lead, &b);
        }
        let pairs = select(end > t, (end - t + (step - 1u64)) / step, 0u64);
        let q = t + pairs * step;
        if q < units {
            let vals = state_values::<T, _>(g, plan.dist, v);
            store_unit(plan, out, q, lead, &vals);
        }
    }
}

fn mrg_constants(
    m1: Val<f64>,
    m2: Val<f64>,
    m1_inv: Val<f64>,
    m2_inv: Val<f64>,
    norm: Val<f64>,
    bits_norm: Val<f64>,
) -> dev::MrgConstants {
    dev::MrgConstants::from_params([m1, m2, m1_inv, m2_inv, norm, bits_norm])
}

/// The `mrg_*` parameters are [`dev::MrgConstants::VALUES`] (unused by XORWOW).
#[kernel]
pub(crate) fn stateful_fill<T: Elem>(
    #[comptime] plan: Plan,
    units: u64,
    mean: f64,
    stddev: f64,
    mrg_m1: f64,
    mrg_m2: f64,
    mrg_m1_inv: f64,
    mrg_m2_inv: f64,
    mrg_norm: f64,
    mrg_bits_norm: f64,
    states: &mut [u32],
    out: &mut [T],
) {
    let mrg = mrg_constants(mrg_m1, mrg_m2, mrg_m1_inv, mrg_m2_inv, mrg_norm, mrg_bits_norm);
    let v = dist_values(mean, stddev);
    stateful_body::<T>(plan, units, v, mrg, states, out);
}

/// [`stateful_fill`] of Poisson outcomes through the square histogram
/// (`Dist::PoissonHistogram`).
#[kernel]
#[allow(clippy::too_many_arguments)]
pub(crate) fn stateful_histogram_fill<T: Elem>(
    #[comptime] plan: Plan,
    units: u64,
    shift: u32,
    thresholds: &[f64],
    aliases: &[u32],
    mrg_m1: f64,
    mrg_m2: f64,
    mrg_m1_inv: f64,
    mrg_m2_inv: f64,
    mrg_norm: f64,
    mrg_bits_norm: f64,
    states: &mut [u32],
    out: &mut [T],
) {
    let mrg = mrg_constants(mrg_m1, mrg_m2, mrg_m1_inv, mrg_m2_inv, mrg_norm, mrg_bits_norm);
    let v = histogram_values(shift, thresholds, aliases);
    stateful_body::<T>(plan, units, v, mrg, states, out);
}

/// Legacy XORWOW / MRG32k3a (see [`crate::reference::host::PseudoGenerator`]): group `j` of
/// the call (a value, or a normal pair) is slot `offset + j`, drawn by state
/// `(offset + j) % S`; thread `t` initialises state `t` at its row `r0` of the 32-bit stream at
/// the offset and draws its groups `j0, j0 + S, ...` in order. Indices stay below the call's
/// `items`, so no position wraps (the generator refuses calls that pass 2^64).
#[allow(clippy::too_many_arguments)]
#[device]
fn legacy_body<T: Elem>(
    plan: Plan,
    seed: u64,
    offset: u64,
    items: u64,
    states: u64,
    v: Values,
    table: Slice<u32>,
    out: SliceMut<T>,
) {
    let (mean, stddev) = v.mean_stddev();
    let start = global_index() as u64;
    let stride = grid_stride() as u64;
    let per = if plan.dist.pairs() { 2u64 } else { 1u64 };
    let log32 = plan.dist == Dist::LogNormal;
    let log64 = plan.dist == Dist::LogNormalDouble;
    for t in (start..states).step_by(stride) {
        // The first group of state t: j0 = (t - offset % S) mod S; its row r0.
        let r = offset % states;
        let before = t < r;
        let j0 = t + select(before, states, 0u64) - r;
        let r0 = offset / states + select(before, 1u64, 0u64);
        let values = |g: &dyn DeviceGenerator| -> Vec<Val<T>> {
            match plan.dist {
                Dist::Bits | Dist::PoissonCdf | Dist::PoissonIcdf => vec![as_t(g.next_u32())],
                Dist::Uniform => vec![as_t(g.uniform())],
                Dist::UniformHalf => vec![as_t(half(g.uniform()))],
                // cuRAND's host-API Gaussian Poisson: one float `curand_normal` per element,
                // the state's Box-Muller cache carried from element to element.
                Dist::PoissonGauss => vec![as_t(poisson_gauss(cast::<f64, _>(g.normal()), mean, stddev))],
                Dist::PoissonHistogram => vec![as_t(v.histogram(g.next_u32()))],
                Dist::UniformDouble => vec![as_t(g.uniform_double())],
                Dist::Normal | Dist::LogNormal => {
                    let (a, b) = g.box_muller();
                    vec![as_t(affine32(a, mean, stddev, log32)), as_t(affine32(b, mean, stddev, log32))]
                }
                Dist::NormalDouble | Dist::LogNormalDouble => {
                    let (a, b) = g.box_muller_double();
                    vec![as_t(affine64(a, mean, stddev, log64)), as_t(affine64(b, mean, stddev, log64))]
                }
            }
        };
        let run = |g: &dyn DeviceGenerator| {
            for j in (j0..items).step_by(states) {
                for (k, v) in values(g).into_iter().enumerate() {
                    out[j * per + k as u64] = v;
                }
            }
        };
        if j0 < items {
            match plan.rng {
                Rng::Xorwow => run(&dev::Xorwow::init(seed, t, r0, table)),
                _ => run(&dev::Mrg32k3a::init(seed, t, r0, table)),
            }
        }
    }
}

#[kernel]
pub(crate) fn legacy_fill<T: Elem>(
    #[comptime] plan: Plan,
    seed: u64,
    offset: u64,
    items: u64,
    states: u64,
    mean: f64,
    stddev: f64,
    table: &[u32],
    out: &mut [T],
) {
    let v = dist_values(mean, stddev);
    legacy_body::<T>(plan, seed, offset, items, states, v, table, out);
}

/// [`legacy_fill`] of Poisson outcomes through the square histogram (`Dist::PoissonHistogram`).
#[kernel]
#[allow(clippy::too_many_arguments)]
pub(crate) fn legacy_histogram_fill<T: Elem>(
    #[comptime] plan: Plan,
    seed: u64,
    offset: u64,
    items: u64,
    states: u64,
    shift: u32,
    thresholds: &[f64],
    aliases: &[u32],
    table: &[u32],
    out: &mut [T],
) {
    let v = histogram_values(shift, thresholds, aliases);
    legacy_body::<T>(plan, seed, offset, items, states, v, table, out);
}

/// The output of Sobol32 point `x` under `dist`.
fn sobol_value<T: Elem>(dist: Dist, x: Val<u32>, mean: Val<f64>, stddev: Val<f64>) -> Val<T> {
    sobol_mapped::<T>(dist, x, mean, stddev, None)
}

/// [`sobol_value`], or the Poisson outcome of point `x` when `map` is given (Sobol32's
/// host-API Poisson fused into the generating kernel).
fn sobol_mapped<T: Elem>(
    dist: Dist,
    x: Val<u32>,
    mean: Val<f64>,
    stddev: Val<f64>,
    map: Option<PoissonMap>,
) -> Val<T> {
    if let Some(m) = map {
        return as_t(poisson_of(m, x));
    }
    match dist {
        Dist::Bits => as_t::<T, u32>(x),
        Dist::UniformDouble => as_t(dev::uniform_f64_from_u32(x)),
        Dist::UniformHalf => as_t(half(dev::uniform_f32(x))),
        Dist::Normal | Dist::LogNormal => {
            as_t(affine32(dev::normal_icdf_f32(dev::uniform_f32(x)), mean, stddev, dist == Dist::LogNormal))
        }
        Dist::NormalDouble | Dist::LogNormalDouble => {
            let z = dev::normal_icdf_acklam(dev::uniform_f64_from_u32(x));
            as_t(affine64(z, mean, stddev, dist == Dist::LogNormalDouble))
        }
        _ => as_t(dev::uniform_f32(x)),
    }
}

/// Sobol32 points per thread unit (a multiple of 4).
pub const SOBOL_CHUNK: u64 = 16;

/// Sobol32, dimension-major: unit `c` of dimension `d` writes points `offset + c * CHUNK ..`
/// of that dimension, computing only the first from its Gray code.
#[allow(clippy::too_many_arguments)]
#[device]
fn sobol_body<T: Elem>(
    plan: Plan,
    points: u64,
    offset: u32,
    units: u64,
    mean: f64,
    stddev: f64,
    map: Option<PoissonMap>,
    directions: Slice<u32>,
    out: SliceMut<T>,
) {
    let chunks = (points + (SOBOL_CHUNK - 1)) / SOBOL_CHUNK;
    let start = global_index() as u64;
    let stride = grid_stride() as u64;
    for q in (start..units).step_by(stride) {
        let d = q / chunks;
        let c = q - d * chunks;
        let base = (d * 32u64) as u32;
        let j0 = c * SOBOL_CHUNK;
        let i0 = offset + j0 as u32;
        let mut sobol_cur = dev::sobol32_point(directions, base, i0);
        let row = d * points;
        for g in 0..(SOBOL_CHUNK / 4) {
            #[comptime]
            let mut vals = Vec::new();
            for e in 0..4u32 {
                let xi = sobol_cur;
                vals.push(sobol_mapped::<T>(plan.dist, xi, mean, stddev, map));
                let i = i0 + (g as u32 * 4 + e);
                // Point 2^32 - 1 is followed by point 0 (the index wraps, as cuRAND's state
                // index does): its step flips the last direction vector, never a 33rd.
                let k = dev::ctz32(!i).min(31u32);
                sobol_cur = xi ^ directions[base + k];
            }
            let jg = j0 + g * 4;
            let scalar = || {
                for (e, &v) in vals.iter().enumerate() {
                    let j = jg + e as u64;
                    if j < points {
                        out[row + j] = v;
                    }
                }
            };
            if plan.vector {
                if jg + 4u64 <= points {
                    out.store4((row + jg) >> 2u32, vec4(vals[0], vals[1], vals[2], vals[3]));
                } else {
                    scalar();
                }
            } else {
                scalar();
            }
        }
    }
}

/// Points of one warp task of [`sobol_warp_body`]: 32 steps of 128 points.
pub const SOBOL_WARP_POINTS: u64 = 4096;

/// Sobol32 with whole-warp coalesced stores, for calls whose first point index is a multiple
/// of [`SOBOL_WARP_POINTS`] and whose rows are 16-byte aligned (`plan.vector`).
///
/// Warp task `q` writes points `j0 .. j0 + 4096` of one dimension (`i0 = offset + j0`, a
/// multiple of 4096). For `r < 128`, `gray(128m + r) = gray(128m) ^ gray(r)`, so point
/// `128m + r` is `P(128m) ^ P(r)`: lane `l` computes its four `P(4l + e)` once, the warp-uniform
/// `P(128m)` starts from the direct Gray-code XOR at `i0` and steps by `v[6] ^ v[7 + ctz(s)]`
/// (step `s` of 32, a compile-time index because `i0 / 128` is a multiple of 32), and each step
/// stores 32 lanes x 16 contiguous bytes.
#[allow(clippy::too_many_arguments)]
#[device]
fn sobol_warp_body<T: Elem>(
    plan: Plan,
    points: u64,
    offset: u32,
    tasks: u64,
    mean: f64,
    stddev: f64,
    map: Option<PoissonMap>,
    directions: Slice<u32>,
    out: SliceMut<T>,
) {
    let per_dim = (points + (SOBOL_WARP_POINTS - 1)) / SOBOL_WARP_POINTS;
    let gi = global_index() as u64;
    let lane = (gi as u32) & 31u32;
    let warps = (grid_stride() as u64) >> 5u32;
    for q in ((gi >> 5u32)..tasks).step_by(warps) {
        let d = q / per_dim;
        let j0 = (q - d * per_dim) * SOBOL_WARP_POINTS;
        let base = (d * 32u64) as u32;
        let v: Vec<Val<u32>> = (0..32u32).map(|k| directions[base + k]).collect();
        // P(i0): bits 0..10 of gray(i0) are zero.
        let i0 = offset + j0 as u32;
        let g0 = i0 ^ (i0 >> 1u32);
        #[comptime]
        let mut head = Val::constant(0u32);
        for (k, &vk) in v.iter().enumerate().skip(11) {
            head = head ^ (vk & (Val::constant(0u32) - ((g0 >> k as u32) & 1u32)));
        }
        // P(4l): gray(4l) has bits 1..6 only; then P(4l+1), P(4l+2), P(4l+3) by the recurrence.
        let r = lane * 4u32;
        let gr = r ^ (r >> 1u32);
        #[comptime]
        let mut p = Val::constant(0u32);
        for (k, &vk) in v.iter().enumerate().take(7).skip(1) {
            p = p ^ (vk & (Val::constant(0u32) - ((gr >> k as u32) & 1u32)));
        }
        let own = [p, p ^ v[0], p ^ v[0] ^ v[1], p ^ v[1]];
        // gray(128(m+1)) ^ gray(128m) = 64 * (gray(2m+2) ^ gray(2m)): bits 6 and 7 + ctz(m+1).
        let step: Vec<Val<u32>> = (0..5).map(|k| v[6] ^ v[7 + k]).collect();
        let row = d * points;
        let col = j0 + r as u64;
        for s in 0..32u64 {
            if s > 0 {
                head = head ^ step[s.trailing_zeros() as usize];
            }
            let j = col + s * 128;
            let vals: Vec<Val<T>> =
                own.iter().map(|&o| sobol_mapped::<T>(plan.dist, head ^ o, mean, stddev, map)).collect();
            if j < points {
                out.store4((row + j) >> 2u32, vec4(vals[0], vals[1], vals[2], vals[3]));
            }
        }
    }
}

#[kernel]
pub(crate) fn sobol32_warp_fill<T: Elem>(
    #[comptime] plan: Plan,
    points: u64,
    offset: u32,
    tasks: u64,
    mean: f64,
    stddev: f64,
    directions: &[u32],
    out: &mut [T],
) {
    sobol_warp_body::<T>(plan, points, offset, tasks, mean, stddev, None, directions, out);
}

/// Maps 32-bit draws in place to outcomes `shift + curand_discrete` of a square histogram: a
/// user's discrete table (`shift` 0) or cuRAND's Poisson histogram.
#[kernel]
pub(crate) fn discrete_map(shift: u32, thresholds: &[f64], aliases: &[u32], out: &mut [u32]) {
    poisson_map_body(PoissonMap::Histogram(shift, thresholds, aliases), out);
}

/// cuRAND's host-API Poisson, Gaussian method: `(u32)(stddev z + mean + 0.5)` in double
/// (see [`crate::reference::host_poisson::gauss`]).
fn poisson_gauss(z: Val<f64>, mean: Val<f64>, stddev: Val<f64>) -> Val<u32> {
    cast::<u32, _>(stddev * z + mean + 0.5f64)
}

/// Sobol32's inverse-CDF Poisson outcome of point `x` less `shift`: one read of the lookup
/// table staged in shared memory (see [`super::quasi_cdf`], whose `bucket` and
/// `CdfLookup::lookup` this mirrors). `bits` is the table's scale.
#[device]
fn poisson_cdf_lookup(table: &[u32], bits: u32, x: u32) -> u32 {
    let upper = x >> 31u32;
    // The distance to the nearer end of the range: `x` below 2^31, `!x` from it.
    let y = x ^ (0u32 - upper);
    let lim = 31u32 - bits;
    let sh = lim - y.leading_zeros().min(lim);
    let k = (sh << bits) + (y >> sh);
    let last = ((32u32 - bits) << (bits + 1u32)) - 1u32;
    let e = table.load2(select(upper != 0u32, last - k, k));
    let outcomes = e.get(1);
    select(x >= e.get(0), outcomes >> 16u32, outcomes & 0xffffu32)
}

/// Copies the inverse-CDF lookup table (a multiple of four words) into the block's dynamic
/// shared memory, all threads of the block taking part; call before any thread leaves.
#[device]
fn stage_cdf_table(table: &[u32]) -> Shared<u32> {
    let sh = dsl::dyn_shared::<u32>();
    let quads = (table.len() as u32) >> 2u32;
    for i in (thread_idx_x()..quads).step_by(block_dim_x()) {
        sh.store4(i, table.load4(i));
    }
    sync_threads();
    sh
}

/// One of the maps of a `u32` buffer in place: a square histogram (discrete tables, the
/// host-API Poisson's) or Sobol32's other Poisson maps (see the kernels below).
#[derive(Clone, Copy)]
enum PoissonMap {
    Histogram(Val<u32>, Slice<f64>, Slice<u32>),
    /// `shift`, the lookup table in shared memory and its scale (see [`poisson_cdf_lookup`]).
    Cdf(Val<u32>, Shared<u32>, Val<u32>),
    Icdf(Val<f64>, Val<f64>),
}

#[device]
fn poisson_map_body(map: PoissonMap, out: SliceMut<u32>) {
    let n = out.len() as u64;
    let start = global_index() as u64;
    let stride = grid_stride() as u64;
    for j in (start..n).step_by(stride) {
        out[j] = poisson_of(map, out[j]);
    }
}

/// One 32-bit draw (or Sobol32 point) through a Poisson map.
fn poisson_of(map: PoissonMap, x: Val<u32>) -> Val<u32> {
    match map {
        PoissonMap::Histogram(shift, thresholds, aliases) => {
            dev::discrete_bits(x, thresholds, aliases) + shift
        }
        PoissonMap::Cdf(shift, table, bits) => poisson_cdf_lookup(table, bits, x) + shift,
        PoissonMap::Icdf(mean, stddev) => {
            let xf: Val<f64> = cast::<f64, _>(x);
            let half = crate::reference::distributions::TWO_POW_M32_F64 / 2.0;
            let u = xf * crate::reference::distributions::TWO_POW_M32_F64 + half;
            poisson_gauss(dev::normal_icdf_acklam(u), mean, stddev)
        }
    }
}

/// The Poisson map of a fused Sobol32 kernel, from its parameters (`plan.dist` says which:
/// histogram `shift, a = thresholds, b = aliases`; inverse CDF `shift, b = lookup table` of
/// scale `bits`, staged in shared memory here; Gaussian `mean, stddev`, tables unused).
#[allow(clippy::too_many_arguments)]
fn sobol_poisson_map(
    plan: Plan,
    shift: Val<u32>,
    bits: Val<u32>,
    mean: Val<f64>,
    stddev: Val<f64>,
    a: Slice<f64>,
    b: Slice<u32>,
) -> PoissonMap {
    match plan.dist {
        Dist::PoissonHistogram => PoissonMap::Histogram(shift, a, b),
        Dist::PoissonCdf => PoissonMap::Cdf(shift, stage_cdf_table(b), bits),
        _ => PoissonMap::Icdf(mean, stddev),
    }
}

/// Sobol32's host-API Poisson fused into the warp-coalesced Sobol32 kernel.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sobol32_poisson_warp_fill(
    #[comptime] plan: Plan,
    points: u64,
    offset: u32,
    tasks: u64,
    shift: u32,
    bits: u32,
    mean: f64,
    stddev: f64,
    a: &[f64],
    b: &[u32],
    directions: &[u32],
    out: &mut [u32],
) {
    let map = sobol_poisson_map(plan, shift, bits, mean, stddev, a, b);
    sobol_warp_body::<u32>(plan, points, offset, tasks, mean, stddev, Some(map), directions, out);
}

/// Sobol32's host-API Poisson fused into the per-thread-chunk Sobol32 kernel.
#[kernel]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sobol32_poisson_fill(
    #[comptime] plan: Plan,
    points: u64,
    offset: u32,
    units: u64,
    shift: u32,
    bits: u32,
    mean: f64,
    stddev: f64,
    a: &[f64],
    b: &[u32],
    directions: &[u32],
    out: &mut [u32],
) {
    let map = sobol_poisson_map(plan, shift, bits, mean, stddev, a, b);
    sobol_body::<u32>(plan, points, offset, units, mean, stddev, Some(map), directions, out);
}

/// Maps Sobol32 points in place to Poisson outcomes by the inverse CDF (`shift + j`, `j`
/// read off the lookup `table` of scale `bits`, see [`poisson_cdf_lookup`]).
#[kernel]
pub(crate) fn poisson_cdf_map(shift: u32, bits: u32, table: &[u32], out: &mut [u32]) {
    poisson_map_body(PoissonMap::Cdf(shift, stage_cdf_table(table), bits), out);
}

/// Maps Sobol32 points in place by the Gaussian method: `z` the inverse normal CDF of
/// `x 2^-32 + 2^-33` (Acklam's, unrefined: see the crate documentation for what that costs).
#[kernel]
pub(crate) fn poisson_icdf_map(mean: f64, stddev: f64, out: &mut [u32]) {
    poisson_map_body(PoissonMap::Icdf(mean, stddev), out);
}

/// Sobol64, dimension-major as [`sobol_body`]: unit `c` of dimension `d` writes points
/// `offset + c * CHUNK ..` of that dimension (raw `u64`, f64 uniforms and inverse-CDF
/// normals from all 64 bits, float outputs from the upper 32), computing only the first from
/// its Gray code.
#[allow(clippy::too_many_arguments)]
#[device]
fn sobol64_body<T: Elem>(
    plan: Plan,
    points: u64,
    offset: u64,
    units: u64,
    mean: f64,
    stddev: f64,
    directions: Slice<u64>,
    out: SliceMut<T>,
) {
    let chunks = (points + (SOBOL_CHUNK - 1)) / SOBOL_CHUNK;
    let start = global_index() as u64;
    let stride = grid_stride() as u64;
    for q in (start..units).step_by(stride) {
        let d = q / chunks;
        let c = q - d * chunks;
        let base = (d * 64u64) as u32;
        let j0 = c * SOBOL_CHUNK;
        let i0 = offset + j0;
        let mut sobol64_cur = dev::sobol64_point(directions, base, i0);
        let row = d * points;
        for e in 0..SOBOL_CHUNK {
            let xi = sobol64_cur;
            let v: Val<T> = match plan.dist {
                Dist::Bits => as_t(xi),
                Dist::UniformDouble => as_t(uniform_f64_from_u64(xi)),
                Dist::NormalDouble => as_t(mean + stddev * dev::normal_icdf_acklam(uniform_f64_from_u64(xi))),
                Dist::LogNormalDouble => {
                    as_t(affine64(dev::normal_icdf_acklam(uniform_f64_from_u64(xi)), mean, stddev, true))
                }
                // Float outputs come from the upper 32 bits, as Sobol32's from its points.
                dist => sobol_value::<T>(dist, (xi >> 32u32) as u32, mean, stddev),
            };
            let j = j0 + e;
            if j < points {
                out[row + j] = v;
            }
            if e + 1 < SOBOL_CHUNK {
                sobol64_cur = dev::sobol64_next(directions, base, i0 + e, xi);
            }
        }
    }
}

/// cuRAND's Sobol64 double uniform: `(x >> 11) * 2^-53 + 2^-54`, in (0, 1).
fn uniform_f64_from_u64(x: Val<u64>) -> Val<f64> {
    let m: Val<f64> = cast::<f64, _>(x >> 11u32);
    m * (1.0f64 / 9_007_199_254_740_992.0) + 1.0f64 / 18_014_398_509_481_984.0
}

#[kernel]
pub(crate) fn sobol64_fill<T: Elem>(
    #[comptime] plan: Plan,
    points: u64,
    offset: u64,
    units: u64,
    mean: f64,
    stddev: f64,
    directions: &[u64],
    out: &mut [T],
) {
    sobol64_body::<T>(plan, points, offset, units, mean, stddev, directions, out);
}

#[kernel]
pub(crate) fn sobol32_fill<T: Elem>(
    #[comptime] plan: Plan,
    points: u64,
    offset: u32,
    units: u64,
    mean: f64,
    stddev: f64,
    directions: &[u32],
    out: &mut [T],
) {
    sobol_body::<T>(plan, points, offset, units, mean, stddev, None, directions, out);
}

/// Words per MTGP32 generator in the parameter buffer: `pos`, `sh1`, `sh2`, `tbl[16]`,
/// `tmp_tbl[16]`.
pub const MTGP32_PARAM_WORDS: u64 = 35;

/// cuRAND's host-API MTGP32 (see [`crate::reference::mtgp32`]): block `g` runs generator `g`
/// (its state and its two 16-word tables in shared memory, 256 threads), computing its rounds
/// in order from where it stopped and writing the values `first .. first + n` of the stream
/// that fall in them. A round only partly inside the call is computed but not kept, so the
/// next call starts there again. The kept states stand at stream position `from` (where the
/// previous call ended, or 0 for the initial states): generator `g` has kept every round
/// (chunk `192 k + g` of 256 values) that ends by `from`, and its ring offset is `256 k mod
/// 1024` for `k` rounds kept.
/// One barrier per round: a round reads words `o + t .. o + t + pos` (`pos + 255 < 351`, see
/// [`MTGP32_MAX_POS`]) and writes words `o + t + 351`, so its reads and writes never meet; the
/// barrier orders them with the next round's.
#[allow(clippy::too_many_arguments)]
#[device]
fn mtgp32_body<T: Elem>(
    plan: Plan,
    from: u64,
    first: u64,
    mask: u32,
    mean: f64,
    stddev: f64,
    params: Slice<u32>,
    states: SliceMut<u32>,
    out: SliceMut<T>,
) {
    use crate::reference::mtgp32::{MTGP32_HOST_GENERATORS as GENS, MTGP32_N, MTGP32_STATE_SIZE};
    let g = block_idx_x();
    let t = thread_idx_x();
    let sh = shared_array::<u32>(MTGP32_STATE_SIZE);
    let tables = shared_array::<u32>(32);
    let base = g as u64 * MTGP32_STATE_SIZE as u64;
    for k in 0..(MTGP32_STATE_SIZE as u32 / 256) {
        let i = t + k * 256;
        sh[i] = states[base + i as u64];
    }
    let pbase = g * MTGP32_PARAM_WORDS as u32;
    // `tbl` then `tmp_tbl`.
    mtgp32_stage_tables(params, pbase, tables);
    let (pos, sh1, sh2) = (params[pbase], params[pbase + 1u32], params[pbase + 2u32]);
    let n = out.len() as u64;
    let end = first + n;
    let m = MTGP32_STATE_SIZE as u32 - 1;
    let (mean32, stddev32) = (mean as f32, stddev as f32);
    // This generator's first round not kept yet: the first chunk `c = 192 k + g` with
    // `256 (c + 1) > from`, i.e. `c >= from / 256`.
    let (c0, gg) = (from / 256u64, g as u64);
    let c = c0 + (gg + GENS as u64 - c0 % GENS as u64) % GENS as u64;
    let kept = (c - gg) / GENS as u64;
    let mut mtgp_off = (kept & 3u64) as u32 * 256u32;
    // The first value of the next round. The loop ends after the first round that passes
    // `end`, which is computed but not kept.
    let mut mtgp_start = c * 256u64;
    sync_threads();
    while mtgp_start < end {
        let s = mtgp_start;
        let o = mtgp_off;
        let p = o + t;
        let x = (sh[p & m] & mask) ^ sh[(p + 1u32) & m];
        let x = x ^ (x << sh1);
        let y = x ^ (sh[(p + pos) & m] >> sh2);
        let r = y ^ tables[y & 15u32];
        let tt = sh[(p + pos - 1u32) & m];
        let tt = tt ^ (tt >> 16u32);
        let tt = tt ^ (tt >> 8u32);
        let v = r ^ tables[16u32 + (tt & 15u32)];
        let val: Val<T> = mtgp32_value::<T>(plan.dist, v, mean, stddev, mean32, stddev32);
        if mtgp32_put(out, first, end, s, t, val) {
            sh[(p + MTGP32_N as u32) & m] = r;
            mtgp_off = (o + 256u32) & m;
        }
        mtgp_start = s + (GENS * 256) as u64;
        sync_threads();
    }
    for k in 0..(MTGP32_STATE_SIZE as u32 / 256) {
        let i = t + k * 256;
        states[base + i as u64] = sh[i];
    }
}

/// One MTGP32 output under `dist`, cuRAND's host-API maps of one 32-bit value (read off
/// cuRAND 10.4's host generator, `tools/curand_host_mtgp32_dists.py`): uniforms
/// `_curand_uniform`; doubles `x 2^-32 + 2^-32` (Sobol32's formula, not MT19937's); float
/// normals and log-normals MT19937's (the inverse CDF of `x 2^-32 + 2^-33`); double normals
/// the float normal widened, then `mean + stddev z` in double; double log-normals
/// `exp(mean + stddev z)` with `z` the double inverse CDF (as MT19937's).
#[device]
fn mtgp32_value<T: Elem>(
    #[comptime] dist: Dist,
    x: u32,
    mean: f64,
    stddev: f64,
    mean32: f32,
    stddev32: f32,
) -> Val<T> {
    use crate::reference::distributions::TWO_POW_M32_F64 as S;
    match dist {
        Dist::Uniform => as_t(dev::uniform_f32(x)),
        Dist::UniformHalf => as_t(half(dev::uniform_f32(x))),
        Dist::UniformDouble => as_t(x as f64 * S + S),
        Dist::NormalDouble => {
            let z: Val<f32> = mt19937_value::<f32>(Dist::Normal, x, mean, stddev, 0.0f32, 1.0f32);
            as_t(stddev.mul_add(z as f64, mean))
        }
        _ => mt19937_value::<T>(dist, x, mean, stddev, mean32, stddev32),
    }
}

/// Copies generator parameters' two 16-word tables (`tbl`, then `tmp_tbl`, from word
/// `pbase + 3`) into `tables`, one word per thread of the first 32.
#[device]
fn mtgp32_stage_tables(params: &[u32], pbase: u32, tables: &mut [u32]) {
    let t = thread_idx_x();
    if t < 32u32 {
        tables[t] = params[pbase + 3u32 + t];
    }
}

/// Stores thread `t`'s value of the round of stream values `s .. s + 256` where it belongs to
/// the call (stream values `first .. end`); whether the round is whole inside the stream's
/// end (then it is kept in the state). Rounds wholly inside the call store without checks.
#[device]
fn mtgp32_put<T: Elem>(out: &mut [T], first: u64, end: u64, s: u64, t: u32, val: T) -> bool {
    let whole = s + 256u64 <= end;
    if whole && s >= first {
        out[s - first + t as u64] = val;
    } else {
        let i = s + t as u64;
        if i >= first && i < end {
            out[i - first] = val;
        }
    }
    whole
}

/// The largest pick-up position [`mtgp32_fill`]'s one barrier per round allows: a round's
/// reads (`o + t + pos` for `t < 256`) stay below its writes (`o + t + 351`).
pub const MTGP32_MAX_POS: u32 = 351 - 256;

#[kernel]
#[allow(clippy::too_many_arguments)]
pub(crate) fn mtgp32_fill<T: Elem>(
    #[comptime] plan: Plan,
    from: u64,
    first: u64,
    mask: u32,
    mean: f64,
    stddev: f64,
    params: &[u32],
    states: &mut [u32],
    out: &mut [T],
) {
    mtgp32_body::<T>(plan, from, first, mask, mean, stddev, params, states, out);
}

/// One MT19937 output under `dist` (cuRAND's host-API maps, each from one 32-bit value; see
/// [`crate::reference::mt19937`]): uniforms `x 2^-32 + 2^-33` in double (floats rounded from
/// it), normals by the inverse CDF mirrored about 2^31 so both tails keep their precision.
/// `mean32`, `stddev32`: `mean` and `stddev` rounded to float once per thread (converted per
/// value, the doubles stayed live across the rows and `ptxas` spilled at 128 registers).
#[device]
fn mt19937_value<T: Elem>(
    #[comptime] dist: Dist,
    x: u32,
    mean: f64,
    stddev: f64,
    mean32: f32,
    stddev32: f32,
) -> Val<T> {
    use crate::reference::distributions::TWO_POW_M32_F64 as S;
    let u = |x: Val<u32>| -> Val<f64> { x as f64 * S + S / 2.0 };
    match dist {
        Dist::Bits => as_t::<T, u32>(x),
        Dist::UniformDouble => as_t(u(x)),
        Dist::UniformHalf => as_t(half(u(x) as f32)),
        Dist::Normal | Dist::LogNormal => {
            let upper = x > 0x8000_0000u32;
            let m = select(upper, 0xFFFF_FFFFu32 - x, x);
            let z = dev::normal_icdf_f32(u(m) as f32);
            let v = stddev32.mul_add(select(upper, -z, z), mean32);
            as_t(if dist == Dist::LogNormal { v.exp() } else { v })
        }
        Dist::NormalDouble | Dist::LogNormalDouble => {
            let z = dev::normal_icdf_acklam(u(x));
            as_t(affine64(z, mean, stddev, dist == Dist::LogNormalDouble))
        }
        _ => as_t(u(x) as f32),
    }
}

/// MT19937's engines (`reference::mt19937::MT19937_ENGINES`) as kept by the host API.
pub const MT19937_ENGINES: u32 = 8192;
/// Threads per engine: each holds 78 of the engine's 624 words in registers.
pub const MT19937_OCTO: u32 = 8;
/// Words per thread (624 / 8): the rows of a twisted block.
pub const MT19937_SLOTS: u32 = 78;
/// Threads of [`mt19937_fill`] (one per engine word share; also the values of one row).
pub const MT19937_LANES: u32 = MT19937_ENGINES * MT19937_OCTO;
/// Threads per block of [`mt19937_fill`] (32 engines); two blocks per multiprocessor.
pub const MT19937_THREADS: u32 = 256;

/// Where the successor of each group's last word lives when it is a lone word ("special"):
/// the octet lane holding it, for groups 1, 2, 4, 5, 6 and 8 (group 9's is lane 7's own).
const MT_SPECIAL_AFTER: [(usize, u32); 6] = [(1, 1), (2, 2), (4, 3), (5, 4), (6, 5), (8, 6)];
/// For each lane's lone word, the group whose first word (held by lane 0) follows it.
const MT_AFTER_SPECIAL: [usize; 8] = [0, 2, 3, 5, 6, 7, 9, 10];

/// cuRAND's host-API MT19937 ([`crate::reference::mt19937`]) in the octo-engine structure:
/// thread `8 g + t` holds engine `g`'s words `element(t, l)`, `l = 0..78`, in registers (slot
/// `l`; kept slot-major in `states[l * 65536 + 8 g + t]` between calls). Slot 0 is a lone word
/// (`[0, 113, 170, 283, 340, 397, 510, 567][t]`); slots `1 + 7 j .. 8 + 7 j` are words
/// `OFFSETS[j] + 7 t ..` of group `j` (`OFFSETS` as in `element`). The layout puts each word's
/// `i + 397` / `i - 227` partner in the same thread and slot (groups `j` and `j + 7`, `j + 4`
/// and `j`), so a twist needs shuffles only for the successor of a thread's last word in a
/// group, for group 4's first word (its partner is one word off) and for the lone words. The
/// twist runs in the recurrence's three phases (words below 227 from old words, 227..454 from
/// the first phase's, 454..624 from the second's); as every value is a register, "in place"
/// is only the order in which new values are made. Row `l` of block `b` is then slot `l`
/// tempered, written by thread `lane` to value `(78 b + l) 65536 + lane`: consecutive threads
/// write consecutive values. The engines hold their twisted block `done - 1` (`done` twists so
/// far; 0: the initial states); values `first .. first + n` of the stream are written (a block
/// already twisted by an earlier call that stopped inside it is reused).
#[allow(clippy::too_many_arguments)]
#[device]
fn mt19937_body<T: Elem>(
    plan: Plan,
    first: u64,
    done: u64,
    mean: f64,
    stddev: f64,
    states: SliceMut<u32>,
    out: SliceMut<T>,
) {
    const R: usize = MT19937_SLOTS as usize;
    const BLOCK: u64 = MT19937_LANES as u64 * MT19937_SLOTS as u64;
    dsl::launch_bounds(MT19937_THREADS, 2);
    let lane = block_idx_x() * MT19937_THREADS + thread_idx_x();
    let t = lane & 7u32;
    let octet = lane_id() & 24u32;
    let at = |l: usize| -> Val<u32> { lane + l as u32 * MT19937_LANES };
    let words: Vec<_> = (0..R).map(|l| dsl::var("mt", states[at(l)])).collect();
    // Slot of word `r` of group `j`; slot 0 is the lone word.
    let slot = |j: usize, r: usize| 1 + 7 * j + r;
    let from = |v: Val<u32>, src: Val<u32>| shfl_idx(v, octet | src);
    let is = |k: u32| t == k;
    let zero = Val::constant(0u32);
    let comp = |a: Val<u32>, b: Val<u32>, m: Val<u32>| -> Val<u32> {
        let y = (a & 0x8000_0000u32) | (b & 0x7FFF_FFFFu32);
        let mag = select((b & 1u32) != 0u32, 0x9908_B0DFu32, 0u32);
        m ^ (y >> 1u32) ^ mag
    };
    let twist = || {
        let old: Vec<Val<u32>> = words.iter().map(|w| w.get()).collect();
        #[comptime]
        let mut new: Vec<Option<Val<u32>>> = vec![None; R];
        // The lone word's successor: the first word of a group, held by lane 0.
        #[comptime]
        let mut next_sp = from(old[slot(MT_AFTER_SPECIAL[0], 0)], zero);
        for (k, &j) in MT_AFTER_SPECIAL.iter().enumerate().skip(1) {
            next_sp = select(is(k as u32), from(old[slot(j, 0)], zero), next_sp);
        }
        let right = (t + 1u32) & 7u32;
        // Group `j`'s new words, from its words and their `m` partners; the successor of lane
        // 7's last word is `after` (lane 0's value in the shuffle) or a lone word.
        let group = |j: usize, m: &dyn Fn(usize) -> Val<u32>, after: Option<Val<u32>>| -> [Val<u32>; 7] {
            let sent = match after {
                Some(a) => select(is(0), a, old[slot(j, 0)]),
                None => old[slot(j, 0)],
            };
            #[comptime]
            let mut last = from(sent, right);
            if let Some(&(_, src)) = MT_SPECIAL_AFTER.iter().find(|&&(g, _)| g == j) {
                last = select(is(7), from(old[0], Val::constant(src)), last);
            } else if j == 9 {
                last = select(is(7), old[0], last);
            }
            std::array::from_fn(|r| {
                let b = if r < 6 { old[slot(j, r + 1)] } else { last };
                comp(old[slot(j, r)], b, m(r))
            })
        };
        // Words below 227: partners 397 on, all old (group j + 7; lone words of lanes t + 5).
        for j in 0..4usize {
            let after = [Some(old[slot(1, 0)]), None, None, Some(old[slot(4, 0)])][j];
            put_group(&mut new, slot(j, 0), group(j, &|r| old[slot(j + 7, r)], after));
        }
        let sp_a = comp(old[0], next_sp, from(old[0], (t + 5u32) & 7u32));
        // Words 227..454: partners 227 back, from the first phase. Group 4 is one word off
        // group 0; lone words 283, 340, 397 take word 56 (lane 7), 113 (lane 1), 170 (lane 2).
        let n = |new: &Vec<Option<Val<u32>>>, j: usize, r: usize| new[slot(j, r)].expect("made earlier");
        let g0_last = n(&new, 0, 6);
        let before = select(is(0), sp_a, from(g0_last, (t + 7u32) & 7u32));
        let done = new.clone();
        let m4 = |r: usize| if r == 0 { before } else { n(&done, 0, r - 1) };
        put_group(&mut new, slot(4, 0), group(4, &m4, None));
        for j in 5..8usize {
            let after = if j == 7 { Some(old[slot(8, 0)]) } else { None };
            put_group(&mut new, slot(j, 0), group(j, &|r| n(&done, j - 4, r), after));
        }
        let src_b = (Val::constant(0x0021_7000u32) >> (t * 4u32)) & 15u32;
        let sp_b = comp(old[0], next_sp, from(select(is(7), g0_last, sp_a), src_b));
        let sp_ab = select(t < 3u32, sp_a, sp_b);
        // Words 454..624: partners from the second phase; lone words 510 and 567 take 283 and
        // 340 (lanes 3 and 4); word 623's successor is the new word 0 (lane 0).
        let sp_c = comp(old[0], next_sp, from(sp_ab, (t + 5u32) & 7u32));
        let sp = select(t < 6u32, sp_ab, sp_c);
        new[0] = Some(sp);
        let done = new.clone();
        for j in 8..11usize {
            let after = if j == 10 { Some(sp) } else { None };
            put_group(&mut new, slot(j, 0), group(j, &|r| n(&done, j - 4, r), after));
        }
        for (w, v) in words.iter().zip(new) {
            w.set(v.expect("every slot twisted"));
        }
    };
    let end = first + out.len() as u64;
    let lane64 = lane as u64;
    let (mean32, stddev32) = (mean as f32, stddev as f32);
    let write_block = |b: Val<u64>| {
        let start = b * BLOCK;
        let full = start >= first && start + BLOCK <= end;
        // The output index of this thread's row 0 (wraps below `first`; such rows are not
        // written).
        let rel = start + lane64 - first;
        let rows = |checked: bool| {
            for (l, w) in words.iter().enumerate() {
                let i = rel + l as u64 * MT19937_LANES as u64;
                let put = || {
                    let y = w.get();
                    let y = y ^ (y >> 11u32);
                    let y = y ^ ((y << 7u32) & 0x9D2C_5680u32);
                    let y = y ^ ((y << 15u32) & 0xEFC6_0000u32);
                    let y = y ^ (y >> 18u32);
                    out[i] = mt19937_value::<T>(plan.dist, y, mean, stddev, mean32, stddev32);
                };
                if checked {
                    // `i + first` in `first .. end`.
                    if i < end - first {
                        put();
                    }
                } else {
                    put();
                }
            }
        };
        if full {
            rows(false)
        } else {
            rows(true)
        }
    };
    let (b_first, b_last) = (first / BLOCK, (end - 1u64) / BLOCK);
    let mut mt_done = done;
    // The next block to write: the one left twisted by the previous call when still wanted.
    let reuse = mt_done >= 1u64 && mt_done - 1u64 >= b_first;
    let mut mt_block = select(reuse, mt_done - 1u64, mt_done);
    while mt_block <= b_last {
        if mt_block == mt_done {
            twist();
            mt_done += 1u64;
        }
        if mt_block >= b_first {
            write_block(mt_block);
        }
        mt_block += 1u64;
    }
    for (l, w) in words.iter().enumerate() {
        states[at(l)] = w.get();
    }
}

/// Stores a twisted group's seven words at slots `first ..` of `new`.
fn put_group(new: &mut [Option<Val<u32>>], first: usize, words: [Val<u32>; 7]) {
    for (slot, w) in new[first..first + 7].iter_mut().zip(words) {
        *slot = Some(w);
    }
}

#[kernel]
#[allow(clippy::too_many_arguments)]
pub(crate) fn mt19937_fill<T: Elem>(
    #[comptime] plan: Plan,
    first: u64,
    done: u64,
    mean: f64,
    stddev: f64,
    states: &mut [u32],
    out: &mut [T],
) {
    mt19937_body::<T>(plan, first, done, mean, stddev, states, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ptx_of(
        k: Result<std::sync::Arc<ferrocm_kernel::CompiledKernel>, ferrocm_kernel::KernelError>,
    ) -> String {
        let ptx = k.unwrap().ptx("sm_90").unwrap();
        if let Ok(dir) = std::env::var("FERROCM_RAND_PTX_DIR") {
            let _ = std::fs::write(format!("{dir}/{}.ptx", ptx.len()), ptx.as_str());
        }
        ptx.to_string()
    }

    /// Every kernel instance the generators can launch builds, IR and PTX. With
    /// `FERROCM_RAND_PTX_DIR` set, each instance's IR and PTX are written there (`<entry>.ir`,
    /// `<entry>.ptx`, the entry named by the kernel and a hash of its compile-time values), to
    /// compare the code before and after a change.
    #[test]
    fn every_generator_instance_builds() {
        use crate::reference::ThreefryKind as K;
        use ferrocm_kernel::{f16, CompiledKernel, KernelError};
        use std::sync::Arc;
        let dir = std::env::var("FERROCM_RAND_PTX_DIR").ok();
        let mut built = 0;
        let mut check = |k: Result<Arc<CompiledKernel>, KernelError>| {
            let k = k.unwrap();
            let ptx = k.ptx("sm_90").unwrap();
            if let Some(dir) = &dir {
                let name = &k.ir().name;
                std::fs::write(format!("{dir}/{name}.ir"), k.ir().to_string()).unwrap();
                std::fs::write(format!("{dir}/{name}.ptx"), ptx.as_str()).unwrap();
            }
            built += 1;
        };
        // Each kernel at the element type its distribution writes.
        macro_rules! typed {
            ($kernel:ident, $plan:expr) => {{
                let plan: Plan = $plan;
                match plan.dist {
                    Dist::Bits
                    | Dist::PoissonGauss
                    | Dist::PoissonHistogram
                    | Dist::PoissonCdf
                    | Dist::PoissonIcdf => $kernel::kernel::<u32>(plan),
                    Dist::Uniform | Dist::Normal | Dist::LogNormal => $kernel::kernel::<f32>(plan),
                    Dist::UniformHalf => $kernel::kernel::<f16>(plan),
                    Dist::UniformDouble | Dist::NormalDouble | Dist::LogNormalDouble => {
                        $kernel::kernel::<f64>(plan)
                    }
                }
            }};
        }
        let dists = [
            Dist::Bits,
            Dist::Uniform,
            Dist::UniformHalf,
            Dist::PoissonGauss,
            Dist::Normal,
            Dist::LogNormal,
            Dist::UniformDouble,
            Dist::NormalDouble,
            Dist::LogNormalDouble,
        ];
        let plan =
            |dist, rng, legacy, vector, unroll, narrow| Plan { dist, rng, legacy, vector, unroll, narrow };
        for rng in [Rng::Xorwow, Rng::Mrg32k3a, Rng::Lfsr113] {
            check(state_init::kernel(rng));
        }
        // Philox and ThreeFry: the default ordering (narrow or not, vector or not), Philox's
        // legacy one.
        let counters = [
            Rng::Philox,
            Rng::Threefry(K::X2x32),
            Rng::Threefry(K::X4x32),
            Rng::Threefry(K::X2x64),
            Rng::Threefry(K::X4x64),
        ];
        for rng in counters {
            for (legacy, narrow) in [(false, true), (false, false), (true, false)] {
                if legacy && rng != Rng::Philox {
                    continue;
                }
                for vector in [true, false] {
                    for dist in dists {
                        check(typed!(philox_fill, plan(dist, rng, legacy, vector, 2, narrow)));
                    }
                    let p = plan(Dist::PoissonHistogram, rng, legacy, vector, 2, narrow);
                    check(philox_histogram_fill::kernel::<u32>(p));
                }
            }
        }
        // XORWOW, MRG32k3a, LFSR113: stateful (default ordering), and legacy for the first two.
        for rng in [Rng::Xorwow, Rng::Mrg32k3a, Rng::Lfsr113] {
            for vector in [true, false] {
                for dist in dists {
                    check(typed!(stateful_fill, plan(dist, rng, false, vector, 2, false)));
                }
                let p = plan(Dist::PoissonHistogram, rng, false, vector, 2, false);
                check(stateful_histogram_fill::kernel::<u32>(p));
            }
            if rng != Rng::Lfsr113 {
                for dist in dists {
                    check(typed!(legacy_fill, plan(dist, rng, true, false, 1, false)));
                }
                let p = plan(Dist::PoissonHistogram, rng, true, false, 1, false);
                check(legacy_histogram_fill::kernel::<u32>(p));
            }
        }
        // Sobol32 (per thread and warp-coalesced), its fused Poisson maps, Sobol64.
        let quasi = [
            Dist::Bits,
            Dist::Uniform,
            Dist::UniformHalf,
            Dist::Normal,
            Dist::LogNormal,
            Dist::UniformDouble,
            Dist::NormalDouble,
            Dist::LogNormalDouble,
        ];
        for dist in quasi {
            for vector in [true, false] {
                if vector && dist.per_unit() != 4 {
                    continue;
                }
                check(typed!(sobol32_fill, plan(dist, Rng::Philox, false, vector, 1, false)));
                if vector {
                    check(typed!(sobol32_warp_fill, plan(dist, Rng::Philox, false, vector, 1, false)));
                }
            }
            let p = plan(dist, Rng::Philox, false, false, 1, false);
            if dist == Dist::Bits {
                check(sobol64_fill::kernel::<u64>(p));
            } else {
                check(typed!(sobol64_fill, p));
            }
        }
        for dist in [Dist::PoissonHistogram, Dist::PoissonCdf, Dist::PoissonIcdf] {
            for vector in [true, false] {
                let p = plan(dist, Rng::Philox, false, vector, 1, false);
                check(sobol32_poisson_fill::kernel(p));
                if vector {
                    check(sobol32_poisson_warp_fill::kernel(p));
                }
            }
        }
        check(discrete_map::kernel());
        check(poisson_cdf_map::kernel());
        check(poisson_icdf_map::kernel());
        // MTGP32 and MT19937.
        for dist in [Dist::Bits, Dist::Uniform, Dist::UniformHalf] {
            check(typed!(mtgp32_fill, plan(dist, Rng::Philox, false, false, 1, false)));
        }
        for dist in quasi {
            check(typed!(mt19937_fill, plan(dist, Rng::Philox, true, false, 1, false)));
        }
        assert!(built > 200, "{built} instances");
    }

    /// The ThreeFry kernels keep everything in registers, write 16-byte stores and compute
    /// each block once; their rotations by products (`mul.wide.u32`, on the FMA pipe) are all
    /// there: a trip of eight values has 40 of them in 2x32 (four blocks, ten rounds each), 20
    /// in 4x32, 72 in 2x64 (two blocks, 18 rotations not by 32, two products each) and 72 in
    /// 4x64 (36 rotations); 4x64's lane pairs trade four words per block (`shfl.sync.bfly`).
    #[test]
    fn threefry_ptx_computes_each_block_once() {
        use crate::reference::ThreefryKind as K;
        for (kind, products, trades) in
            [(K::X2x32, 40, 0), (K::X4x32, 20, 0), (K::X2x64, 72, 0), (K::X4x64, 72, 4)]
        {
            let plan = Plan {
                dist: Dist::Bits,
                rng: Rng::Threefry(kind),
                legacy: false,
                vector: true,
                unroll: 2,
                narrow: true,
            };
            let ptx = ptx_of(philox_fill::kernel::<u32>(plan));
            assert!(ptx.contains("st.global.v4"), "{kind:?}: no 16-byte store");
            assert!(!ptx.contains(".local"), "{kind:?}: local memory");
            let wide = ptx.matches("mul.wide.u32").count();
            assert!((products..products + 4).contains(&wide), "{kind:?}: {wide} mul.wide.u32");
            assert_eq!(ptx.matches("shfl.sync.bfly").count(), trades, "{kind:?}: shuffles");
        }
    }

    /// The fused Sobol32 inverse-CDF Poisson kernel reads one 8-byte table entry per point
    /// from shared memory, with no loop around it and no local memory.
    #[test]
    fn sobol32_poisson_cdf_ptx_reads_one_shared_entry_per_point() {
        let plan = Plan {
            dist: Dist::PoissonCdf,
            rng: Rng::Philox,
            legacy: false,
            vector: true,
            unroll: 1,
            narrow: false,
        };
        // XORWOW's state set-up (skip-ahead by `apply_powers`) stays in registers.
        let init = ptx_of(state_init::kernel(Rng::Xorwow));
        assert!(!init.contains(".local"), "XORWOW init: local memory");
        // The per-thread kernel (first points by `sobol32_point`'s loop) stays in registers.
        let per_thread = ptx_of(sobol32_poisson_fill::kernel(plan));
        assert!(!per_thread.contains(".local"), "per-thread kernel: local memory");
        let ptx = ptx_of(sobol32_poisson_warp_fill::kernel(plan));
        assert!(!ptx.contains(".local"), "local memory");
        // 32 steps of four points each, one `ld.shared.v2` per point.
        assert_eq!(ptx.matches("ld.shared.v2").count(), 128, "shared reads");
        // Only the unused mean and deviation parameters are doubles.
        let doubles = ptx.lines().filter(|l| l.contains(".f64") && !l.contains("param")).count();
        assert!(doubles <= 1, "double arithmetic left in the map ({doubles} lines)");
    }

    /// The inverse-CDF Poisson kernel against the reference at every step of the lookup table,
    /// one point below it and at both ends of the range, on every device (lambdas at the scales
    /// 4, 5, 6 and 7); `FERROCM_REQUIRE_GPU=1` makes a missing GPU a failure.
    #[test]
    fn poisson_cdf_map_matches_the_reference_at_every_step() {
        use crate::reference::distributions::uniform_f64_from_u32;
        use crate::reference::host_poisson::{inverse_cdf_index, QuasiPoisson};
        use ferrocm_kernel::runtime::{BackendKind, Device, LaunchConfig};
        let devices = Device::all().unwrap();
        if std::env::var("FERROCM_REQUIRE_GPU").is_ok_and(|v| v == "1") {
            assert!(devices.iter().any(|d| d.kind() == BackendKind::Cuda), "no CUDA device");
        }
        for lambda in [100.0, 1000.0, 3000.0, 7000.0] {
            let Ok(QuasiPoisson::InverseCdf { shift, cdf }) = QuasiPoisson::new(lambda) else {
                panic!("lambda {lambda}: not the inverse CDF")
            };
            let t = super::super::quasi_cdf::CdfLookup::new(&cdf).unwrap();
            let mut xs: Vec<u32> = vec![0, 1, (1 << 31) - 1, 1 << 31, u32::MAX - 1, u32::MAX];
            for k in 0..t.words.len() / 2 {
                xs.extend([t.words[2 * k].wrapping_sub(1), t.words[2 * k]]);
            }
            let want: Vec<u32> =
                xs.iter().map(|&x| shift + inverse_cdf_index(&cdf, uniform_f64_from_u32(x))).collect();
            for d in &devices {
                let stream = d.create_stream().unwrap();
                let table = stream.clone_htod(&t.words).unwrap();
                let mut out = stream.clone_htod(&xs).unwrap();
                let cfg = LaunchConfig::new(4, 256).with_shared_mem(4 * t.words.len() as u32);
                poisson_cdf_map::launch(&stream, cfg, shift, t.bits, &table, &mut out).unwrap();
                let got = stream.clone_dtoh(&out).unwrap();
                let bad: Vec<_> =
                    xs.iter().zip(got.iter().zip(&want)).filter(|(_, (a, b))| a != b).take(5).collect();
                assert!(
                    bad.is_empty(),
                    "lambda {lambda} (scale {}) on {}: {bad:?}",
                    t.bits,
                    d.properties().name
                );
            }
        }
    }

    /// The default Philox kernels write each block with one 16-byte store and keep everything
    /// in registers.
    #[test]
    fn philox_default_ptx_has_wide_stores_and_no_local_memory() {
        for dist in [Dist::Uniform, Dist::Normal] {
            let plan = Plan { dist, rng: Rng::Philox, legacy: false, vector: true, unroll: 2, narrow: true };
            let ptx = ptx_of(philox_fill::kernel::<f32>(plan));
            assert!(ptx.contains("st.global.v4"), "{dist:?}: no 16-byte store");
            assert!(!ptx.contains(".local"), "{dist:?}: local memory");
        }
    }

    /// The MT19937 kernel keeps each thread's 78 words in registers (no local memory), trades
    /// neighbours by shuffles and asks for two 256-thread blocks per multiprocessor (so
    /// `ptxas` keeps to 128 registers and the 65,536 threads run in one wave).
    #[test]
    fn mt19937_ptx_keeps_the_state_in_registers() {
        let plan =
            |dist| Plan { dist, rng: Rng::Philox, legacy: true, vector: false, unroll: 1, narrow: false };
        for (dist, k) in [
            (Dist::Bits, mt19937_fill::kernel::<u32>(plan(Dist::Bits))),
            (Dist::Uniform, mt19937_fill::kernel::<f32>(plan(Dist::Uniform))),
            (Dist::Normal, mt19937_fill::kernel::<f32>(plan(Dist::Normal))),
            (Dist::LogNormal, mt19937_fill::kernel::<f32>(plan(Dist::LogNormal))),
            (Dist::UniformDouble, mt19937_fill::kernel::<f64>(plan(Dist::UniformDouble))),
            (Dist::NormalDouble, mt19937_fill::kernel::<f64>(plan(Dist::NormalDouble))),
        ] {
            let ptx = ptx_of(k);
            assert!(!ptx.contains(".local"), "{dist:?}: local memory");
            assert!(ptx.contains("shfl.sync.idx"), "{dist:?}: no shuffles");
            assert!(ptx.contains(".minnctapersm 2"), "{dist:?}: no launch bounds");
        }
    }

    /// The MTGP32 kernel meets its block once per round (plus once after loading the state)
    /// and reads its tables from shared memory, not global memory, inside the loop.
    #[test]
    fn mtgp32_ptx_has_one_barrier_per_round() {
        let plan = Plan {
            dist: Dist::Bits,
            rng: Rng::Philox,
            legacy: false,
            vector: false,
            unroll: 1,
            narrow: false,
        };
        let ptx = ptx_of(mtgp32_fill::kernel::<u32>(plan));
        assert_eq!(ptx.matches("bar.sync").count(), 2, "barriers");
        let body = &ptx[ptx.find("$L_loop").unwrap()..ptx.rfind("bra $L_loop").unwrap()];
        assert!(!body.contains("ld.global"), "global loads in the loop");
    }

    /// The host API's MTGP32 parameter sets all allow one barrier per round.
    #[test]
    fn mtgp32_host_parameter_sets_allow_one_barrier_per_round() {
        use crate::reference::mtgp32::{params, MTGP32_HOST_GENERATORS, MTGP32_N, MTGP32_ROUND};
        assert_eq!(MTGP32_MAX_POS as usize, MTGP32_N - MTGP32_ROUND);
        for (g, p) in params().iter().take(MTGP32_HOST_GENERATORS).enumerate() {
            assert!(p.pos <= MTGP32_MAX_POS, "generator {g}: pos {}", p.pos);
        }
    }

    /// The warp-coalesced Sobol32 kernel writes 16 bytes per lane per step and keeps its
    /// direction numbers and per-lane points in registers.
    #[test]
    fn sobol_warp_ptx_has_wide_stores_and_no_local_memory() {
        let plan =
            |dist| Plan { dist, rng: Rng::Philox, legacy: false, vector: true, unroll: 1, narrow: false };
        for (dist, k) in [
            (Dist::Bits, sobol32_warp_fill::kernel::<u32>(plan(Dist::Bits))),
            (Dist::Uniform, sobol32_warp_fill::kernel::<f32>(plan(Dist::Uniform))),
        ] {
            let ptx = ptx_of(k);
            assert_eq!(ptx.matches("st.global.v4").count(), 32, "{dist:?}: one 16-byte store per step");
            assert!(!ptx.contains(".local"), "{dist:?}: local memory");
        }
    }
}
