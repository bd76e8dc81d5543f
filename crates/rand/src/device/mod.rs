//! The device API: cuRAND's per-thread generators as kernel-language types, callable from any
//! `#[kernel]` (cuRAND's `curand_init`, `curand`, `curand_uniform`, `curand_normal`, ...).
//!
//! A state is a struct of IR variables (`Var`), one per field of the reference state, so a
//! kernel holds it in a plain `let` and its methods update it in place, inside runtime loops and
//! branches alike:
//!
//! ```ignore
//! #[kernel]
//! fn draw(seed: u64, out: &mut [f32]) {
//!     let i = global_index();
//!     let s = Philox::init(seed, i as u64, 0u64);
//!     if i < out.len() {
//!         out[i] = s.uniform();
//!     }
//! }
//! ```
//!
//! Each method is the reference's arithmetic written against the DSL, so integer and uniform
//! outputs are bit-identical to [`crate::reference`] (and so to cuRAND) on every back end.
//! Normals use the back end's `ln`, `sqrt`, `sin` and `cos`: exact-libm-like on the CPU
//! executor, the `.approx` instructions on NVIDIA (as cuRAND's `__sincosf`), so they match
//! within the tolerance stated in the crate documentation.
//!
//! Skip-ahead tables live in device memory and are passed to `init` as a kernel slice:
//! [`xorwow_skip_table`] (400 KiB) and [`mrg32k3a_skip_table`] (9 KiB) build their contents on
//! the host.

mod lfsr113;
mod mrg32k3a;
mod philox;
mod sobol;
mod threefry;
mod xorwow;

pub use lfsr113::{lfsr113_skip_table, Lfsr113};
pub use mrg32k3a::{mrg32k3a_skip_table, Mrg32k3a, MrgConstants};
pub use philox::{philox4x32_10, philox4x32_10_keyed, philox_round_keys, Philox};
pub use sobol::{ctz32, sobol32_point, sobol64_next, sobol64_point};
pub use threefry::{
    threefry2x32, threefry2x64, threefry4x32, threefry4x64, threefry_block, threefry_unit,
    threefry_unit_narrow, Threefry,
};
pub use xorwow::{xorwow_skip_table, Xorwow};

use ferrocm_kernel::device;
use ferrocm_kernel::dsl::{self, cast, select, IntoVal, Memory, Val, Var};

use crate::reference::distributions as d;

pub(crate) fn var_u32(name: &str, v: impl IntoVal<u32>) -> Var<Val<u32>> {
    dsl::var(name, v.into_val())
}

/// `_curand_uniform(x)`: `x * 2^-32 + 2^-33` in float, in (0, 1].
pub fn uniform_f32(x: Val<u32>) -> Val<f32> {
    let f: Val<f32> = cast::<f32, _>(x);
    // One fused multiply-add: the product is exact (a power-of-two scaling), so this rounds
    // once, as the unfused form does.
    f.mul_add(d::TWO_POW_M32_F32, d::TWO_POW_M32_F32 / 2.0)
}

/// `_curand_uniform_double_hq(x, y)`: `(x ^ (y << 21)) * 2^-53 + 2^-54`.
pub fn uniform_f64_hq(x: Val<u32>, y: Val<u32>) -> Val<f64> {
    let z = cast::<u64, _>(x) ^ (cast::<u64, _>(y) << 21u32);
    let f: Val<f64> = cast::<f64, _>(z);
    f * d::TWO_POW_M53_F64 + d::TWO_POW_M53_F64 / 2.0
}

/// `_curand_uniform_double(x)` of one 32-bit draw: `x * 2^-32 + 2^-32`.
pub fn uniform_f64_from_u32(x: Val<u32>) -> Val<f64> {
    let f: Val<f64> = cast::<f64, _>(x);
    f * d::TWO_POW_M32_F64 + d::TWO_POW_M32_F64
}

/// `-2 ln(u)` for `u` in (0, 1]. Near 1 the logarithm is a short series in `t = 1 - u`
/// (exact by Sterbenz), because the back ends' fast `ln` (NVIDIA's `lg2.approx`) has an
/// absolute error that would dominate the tiny Box-Muller radius there. Elsewhere it is
/// `-2 ln 2 * log2(u)` (one `lg2.approx` and one multiply on NVIDIA).
#[device]
pub fn neg2_ln_f32(u: f32) -> f32 {
    let t = 1.0f32 - u;
    // 2 (t + t^2/2 + t^3/3 + t^4/4), Horner form in fused multiply-adds.
    let series = t * t.mul_add(t.mul_add(t.mul_add(0.5f32, 2.0f32 / 3.0), 1.0f32), 2.0f32);
    select(t < 1.0f32 / 128.0, series, u.log2() * (-2.0 * std::f32::consts::LN_2))
}

/// The Box-Muller radius `sqrt(-2 ln u)` in f32: [`neg2_ln_f32`], then the back end's fast
/// square root (NVIDIA: `sqrt.approx`, relative error about 2^-22, well inside the normals'
/// stated tolerance; the correctly rounded `sqrt.rn` costs a slow-path branch per pair).
pub fn box_muller_radius(u: Val<f32>) -> Val<f32> {
    neg2_ln_f32(u).sqrt_approx()
}

/// `-2 ln(u)` in double precision, with the same series near 1 (to `t^8`).
#[device]
pub fn neg2_ln_f64(u: f64) -> f64 {
    let t = 1.0f64 - u;
    #[comptime]
    let mut series = Val::constant(1.0f64 / 8.0);
    for k in (1..8).rev() {
        series = series * t + 1.0 / k as f64;
    }
    let series = series * t;
    select(t < 1.0f64 / 1024.0, series, -u.ln()) * 2.0f64
}

/// The inverse standard normal CDF of a float uniform, for quasi-random float normals,
/// evaluated in f32: `x = (2u - 1) p(w)` with `w = -ln(4u(1 - u))` (`4u(1 - u) = 1 - (2u - 1)^2`
/// without cancellation in either tail), `p` a degree-8 polynomial in `w - 2.5` for `w < 5`
/// (|x| below about 2.9) and in `sqrt(w) - 3` beyond. This is the structure of Giles'
/// single-precision `erfinv` ("Approximating the erfinv function", GPU Computing Gems, 2011),
/// with coefficients fitted for the normal quantile by `tools/fit_normal_icdf.py`: relative
/// error below 7e-7 in f32 (plus the fast `ln`'s on NVIDIA). Both polynomials are evaluated
/// and one selected. `u = 1` gives `+inf`, as the reference.
#[device]
pub fn normal_icdf_f32(u: f32) -> f32 {
    const CENTRAL: [f32; 9] = [
        3.958_321e-8,
        4.851_791e-7,
        -4.981_194_7e-6,
        -6.207_880_2e-6,
        3.091_151e-4,
        -1.773_041_8e-3,
        -5.908_129_7e-3,
        0.348_802_7,
        2.123_313_7,
    ];
    const TAIL: [f32; 9] = [
        1.357_592_3e-5,
        -2.927_291e-4,
        1.682_078e-3,
        -4.706_062e-3,
        8.138_752e-3,
        -1.094_521_8e-2,
        1.335_470_3e-2,
        1.416_596,
        4.006_434,
    ];
    let horner = |x: Val<f32>, c: &[f32; 9]| {
        #[comptime]
        let mut p = Val::constant(c[0]);
        for &k in &c[1..] {
            p = p.mul_add(x, k);
        }
        p
    };
    let y = u.mul_add(2.0f32, -1.0f32);
    let w = (u * 4.0f32 * (1.0f32 - u)).log2() * -std::f32::consts::LN_2;
    let central = horner(w - 2.5f32, &CENTRAL);
    let tail = horner(w.sqrt_approx() - 3.0f32, &TAIL);
    y * select(w < 5.0f32, central, tail)
}

/// Acklam's inverse standard normal CDF in f64 (relative error about 1.2e-9, unrefined), with
/// the central and tail branches both computed and one selected (branch-free); the tail uses
/// `min(u, 1 - u)`, exact for `u > 1/2`. The Sobol host API's double normals use it.
#[device]
pub fn normal_icdf_acklam(u: f64) -> f64 {
    use crate::reference::distributions::acklam::{A, B, C, D, P_LOW};
    let horner = |x: Val<f64>, c: &[f64], last_one: bool| {
        #[comptime]
        let mut p = Val::constant(c[0]);
        for &k in &c[1..] {
            p = p * x + k;
        }
        if last_one {
            p * x + 1.0f64
        } else {
            p
        }
    };
    let q = u - 0.5f64;
    let r = q * q;
    let central = horner(r, &A, false) * q / horner(r, &B, true);
    let upper = u > 0.5f64;
    let lo = select(upper, 1.0f64 - u, u);
    let t = (lo.ln() * -2.0f64).sqrt();
    let tail = horner(t, &C, false) / horner(t, &D, true);
    let tail = select(upper, -tail, tail);
    let in_tail = u < P_LOW || u > 1.0f64 - P_LOW;
    select(in_tail, tail, central)
}

/// `_curand_box_muller(x, y)`: one pair of standard normal floats.
pub fn box_muller(x: Val<u32>, y: Val<u32>) -> (Val<f32>, Val<f32>) {
    let u = uniform_f32(x);
    let yf: Val<f32> = cast::<f32, _>(y);
    let v = yf.mul_add(d::TWO_POW_M32_2PI_F32, d::TWO_POW_M32_2PI_F32 / 2.0);
    let s = box_muller_radius(u);
    (v.sin() * s, v.cos() * s)
}

/// `_curand_box_muller_double(x0, x1, y0, y1)`: one pair of standard normal doubles.
///
/// The angle is reduced to a quarter turn exactly, as the reference's `sincospi`; the
/// transcendentals are the back end's f64 `ln`, `sin` and `cos` (on NVIDIA today they go
/// through f32, see the crate documentation).
pub fn box_muller_double(x0: Val<u32>, x1: Val<u32>, y0: Val<u32>, y1: Val<u32>) -> (Val<f64>, Val<f64>) {
    let u = uniform_f64_hq(x0, x1);
    let zy = cast::<u64, _>(y0) ^ (cast::<u64, _>(y1) << 21u32);
    let zyf: Val<f64> = cast::<f64, _>(zy);
    let v = zyf * (d::TWO_POW_M53_F64 * 2.0) + d::TWO_POW_M53_F64;
    let s = neg2_ln_f64(u).sqrt();
    sincospi_scaled(v, s)
}

/// `(sin(pi v) * s, cos(pi v) * s)` with exact reduction of `v` to a quarter turn.
#[device]
pub(crate) fn sincospi_scaled(v: f64, s: f64) -> (Val<f64>, Val<f64>) {
    // round(2v) for v in (0, 2]: floor(2v + 0.5).
    let k = (v * 2.0f64 + 0.5f64).floor();
    let r = v - k * 0.5f64;
    let a = r * std::f64::consts::PI;
    let (sn, cs) = (a.sin(), a.cos());
    let q: Val<u32> = cast::<u32, _>(cast::<i64, _>(k)) & 3u32;
    let (q0, q1, q2) = (q == 0u32, q == 1u32, q == 2u32);
    let sin = select(q0, sn, select(q1, cs, select(q2, -sn, -cs)));
    let cos = select(q0, cs, select(q1, -sn, select(q2, -cs, sn)));
    (sin * s, cos * s)
}

/// One 32-bit draw mapped to an outcome of a discrete distribution's square histogram
/// (`thresholds` and `aliases` of [`crate::reference::DiscreteDistribution`] in device memory):
/// `u = x * 2^-32 + 2^-32`, `j = min(floor(n u), n - 1)`, `j` if `u < V[j]`, else `K[j]`.
#[device]
pub fn discrete_bits(x: u32, thresholds: &[f64], aliases: &[u32]) -> u32 {
    let u = uniform_f64_from_u32(x);
    let n = thresholds.len() as u64;
    let nf = n as f64;
    let j = ((nf * u) as u64).min(n - 1u64);
    select(u < thresholds[j], j as u32, aliases[j])
}

/// cuRAND's per-state Box-Muller cache (`boxmuller_flag`, `boxmuller_extra`, and the double
/// slot), as IR variables.
#[derive(Clone, Copy)]
pub struct Cache {
    flag: Var<Val<u32>>,
    extra: Var<Val<f32>>,
    flag_double: Var<Val<u32>>,
    extra_double: Var<Val<f64>>,
}

const FLAG_EMPTY: u32 = 0;
const FLAG_NORMAL: u32 = 1;
const FLAG_LOG_NORMAL: u32 = 2;

impl Cache {
    pub(crate) fn new() -> Self {
        Cache {
            flag: var_u32("bm_flag", 0u32),
            extra: dsl::var("bm_extra", 0.0f32),
            flag_double: var_u32("bm_flag_d", 0u32),
            extra_double: dsl::var("bm_extra_d", 0.0f64),
        }
    }
}

/// The generator-independent part of cuRAND's device API, provided for every pseudo-random
/// state from its `next_u32` and its Box-Muller pair functions.
#[device]
pub trait DeviceGenerator {
    /// `curand(state)`.
    fn next_u32(&self) -> Val<u32>;
    /// The state's Box-Muller cache.
    fn cache(&self) -> Cache;
    /// `curand_uniform(state)`.
    fn uniform(&self) -> Val<f32> {
        uniform_f32(self.next_u32())
    }
    /// `curand_uniform_double(state)`: two draws (Philox and MRG32k3a override it).
    fn uniform_double(&self) -> Val<f64> {
        let x = self.next_u32();
        let y = self.next_u32();
        uniform_f64_hq(x, y)
    }
    /// `curand_box_muller(state)`.
    fn box_muller(&self) -> (Val<f32>, Val<f32>) {
        let x = self.next_u32();
        let y = self.next_u32();
        box_muller(x, y)
    }
    /// `curand_box_muller_double(state)`.
    fn box_muller_double(&self) -> (Val<f64>, Val<f64>) {
        let x0 = self.next_u32();
        let x1 = self.next_u32();
        let y0 = self.next_u32();
        let y1 = self.next_u32();
        box_muller_double(x0, x1, y0, y1)
    }
    /// `curand_normal(state)`: uses the cached half of the last pair when there is one.
    fn normal(&self) -> Val<f32> {
        let c = self.cache();
        let cached = c.flag == FLAG_NORMAL;
        if !cached {
            let (a, b) = self.box_muller();
            c.extra = b;
            c.flag = FLAG_NORMAL;
            a
        } else {
            c.flag = FLAG_EMPTY;
            c.extra.get()
        }
    }
    /// `curand_normal2(state)`: a fresh pair; the cache is left alone.
    fn normal2(&self) -> (Val<f32>, Val<f32>) {
        self.box_muller()
    }
    /// `curand_normal_double(state)`.
    fn normal_double(&self) -> Val<f64> {
        let c = self.cache();
        let cached = c.flag_double == FLAG_NORMAL;
        if !cached {
            let (a, b) = self.box_muller_double();
            c.extra_double = b;
            c.flag_double = FLAG_NORMAL;
            a
        } else {
            c.flag_double = FLAG_EMPTY;
            c.extra_double.get()
        }
    }
    /// `curand_normal2_double(state)`.
    fn normal2_double(&self) -> (Val<f64>, Val<f64>) {
        self.box_muller_double()
    }
    /// `curand_log_normal(state, mean, stddev)`: shares the float cache slot with `normal`.
    fn log_normal(&self, mean: impl IntoVal<f32>, stddev: impl IntoVal<f32>) -> Val<f32>
    where
        Self: Sized,
    {
        let (mean, stddev) = (mean.into_val(), stddev.into_val());
        let c = self.cache();
        let cached = c.flag == FLAG_LOG_NORMAL;
        if !cached {
            let (a, b) = self.box_muller();
            c.extra = (mean + stddev * b).exp();
            c.flag = FLAG_LOG_NORMAL;
            (mean + stddev * a).exp()
        } else {
            c.flag = FLAG_EMPTY;
            c.extra.get()
        }
    }
    /// `curand_log_normal_double(state, mean, stddev)`: shares the double cache slot.
    fn log_normal_double(&self, mean: impl IntoVal<f64>, stddev: impl IntoVal<f64>) -> Val<f64>
    where
        Self: Sized,
    {
        let (mean, stddev) = (mean.into_val(), stddev.into_val());
        let c = self.cache();
        let cached = c.flag_double == FLAG_LOG_NORMAL;
        if !cached {
            let (a, b) = self.box_muller_double();
            c.extra_double = (mean + stddev * b).exp();
            c.flag_double = FLAG_LOG_NORMAL;
            (mean + stddev * a).exp()
        } else {
            c.flag_double = FLAG_EMPTY;
            c.extra_double.get()
        }
    }
    /// `curand_poisson(state, lambda)` for `lambda < 64` (Knuth's product of uniforms, cuRAND's
    /// method there), given `exp(lambda)` in float: pass the host's `(lambda as f32).exp()`
    /// for results bit-identical to cuRAND on every back end (a device `exp` is approximate on
    /// NVIDIA).
    fn poisson_knuth(&self, exp_lambda: Val<f32>) -> Val<u32> {
        let mut knuth_p = exp_lambda;
        let mut knuth_k = 0u32;
        loop {
            knuth_k += 1u32;
            knuth_p = knuth_p * self.uniform();
            if (knuth_p as f64) <= 1.0f64 {
                break;
            }
        }
        knuth_k - 1u32
    }
    /// `curand_poisson(state, lambda)` for `lambda > 4000`: cuRAND's rounded normal
    /// approximation `(unsigned)(sqrt(lambda) * curand_normal_double(state) + lambda + 0.5)`
    /// (one double normal, through the Box-Muller cache).
    fn poisson_normal_approx(&self, lambda: Val<f64>) -> Val<u32>
    where
        Self: Sized,
    {
        cast::<u32, _>(lambda.sqrt() * self.normal_double() + lambda + 0.5f64)
    }
    /// `curand_poisson(state, lambda)` for `64 <= lambda <= 4000`: cuRAND's rejection
    /// sampler on its closed-form approximation of the incomplete gamma function, two
    /// uniforms per trial (see [`crate::reference::Poisson`]). Bit-identical to cuRAND where
    /// the back end's f32 `exp`/`ln` are (the CPU executor); on NVIDIA they are the `.approx`
    /// instructions, so a draw can differ by one where a trial sits within about 1e-6 of
    /// its acceptance bound or of an integer.
    fn poisson_gamma_rejection(&self, lambda: Val<f32>) -> Val<u32>
    where
        Self: Sized,
    {
        let logl = lambda.ln();
        let mut gamma_res = 0u32;
        loop {
            let y = self.uniform();
            let x = pgammaincinv(lambda, y).floor();
            let z = self.uniform();
            let v = (pgammainc(lambda, x + 1.0f32) - pgammainc(lambda, x)) * 1.3f32;
            let z = z * v;
            let lg = lgamma_integer((x + 1.0f32) as i32) as f32;
            let t = (x.mul_add(logl, 0.0f32 - lambda) - lg).exp();
            if z < t && (v as f64) >= 1e-20f64 {
                gamma_res = x as u32;
                break;
            }
        }
        gamma_res
    }
    /// `curand_discrete(state, table)`: one draw mapped through a square-histogram table
    /// ([`discrete_bits`]).
    fn discrete(&self, thresholds: impl Memory<f64>, aliases: impl Memory<u32>) -> Val<u32>
    where
        Self: Sized,
    {
        discrete_bits(self.next_u32(), thresholds, aliases)
    }
    /// `curand_log_normal2(state, mean, stddev)`.
    fn log_normal2(&self, mean: impl IntoVal<f32>, stddev: impl IntoVal<f32>) -> (Val<f32>, Val<f32>)
    where
        Self: Sized,
    {
        let (mean, stddev) = (mean.into_val(), stddev.into_val());
        let (a, b) = self.box_muller();
        ((mean + stddev * a).exp(), (mean + stddev * b).exp())
    }
}

/// cuRAND's `(alpha, beta)` of the incomplete-gamma approximation for mean `a`.
fn gamma_alpha_beta(a: Val<f32>) -> (Val<f32>, Val<f32>) {
    use crate::reference::distributions::{MA1, MA2, MA3, MB1, MB2, MB3};
    let one = Val::constant(1.0f32);
    let alpha = Val::constant(MA1).mul_add(one / (a - MA2).sqrt(), MA3);
    let beta = Val::constant(MB1).mul_add(one / (a - MB2).sqrt(), MB3);
    (alpha, beta)
}

/// `P(a, x) ~ 1 / (1 + exp(alpha (a - x) - beta))^2`.
fn pgammainc(a: Val<f32>, x: Val<f32>) -> Val<f32> {
    let (alpha, beta) = gamma_alpha_beta(a);
    let t = alpha.mul_add(a - x, Val::constant(0.0f32) - beta).exp() + 1.0f32;
    Val::constant(1.0f32) / (t * t)
}

/// The inverse in `x` of [`pgammainc`].
fn pgammaincinv(a: Val<f32>, y: Val<f32>) -> Val<f32> {
    let (alpha, beta) = gamma_alpha_beta(a);
    let t = (Val::constant(1.0f32) / y.sqrt() - 1.0f32).ln();
    (Val::constant(0.0f32) - (beta + t)).mul_add(Val::constant(1.0f32) / alpha, a)
}

/// `ln((a - 1)!)` as cuRAND computes it: its table up to 8, its Stirling series beyond (both
/// evaluated, one selected).
#[device]
fn lgamma_integer(a: i32) -> f64 {
    use crate::reference::distributions::{LGAMMA_HALF_LN_2PI, LGAMMA_SERIES, LGAMMA_TABLE};
    let fa = (a as f32).abs() as f64;
    let s = 1.0f64 / fa;
    let t = s * s;
    #[comptime]
    let mut sum = Val::constant(LGAMMA_SERIES[0]);
    for &c in &LGAMMA_SERIES[1..] {
        sum = sum * t + c;
    }
    let sum = sum * s + LGAMMA_HALF_LN_2PI;
    let half_log = fa.ln() * 0.5f64;
    let hs = half_log * (fa - 0.5f64);
    let stirling = (hs - fa) + (hs + sum);
    // The table index `max(fa, 1) - 1`, at most 8.
    let idx = ((fa as u32).max(1u32) - 1u32).min(8u32);
    #[comptime]
    let mut table = Val::constant(LGAMMA_TABLE[0]);
    for (k, &v) in LGAMMA_TABLE.iter().enumerate().skip(1) {
        table = select(idx == k as u32, v, table);
    }
    select(a > 8i32, stirling, table)
}
