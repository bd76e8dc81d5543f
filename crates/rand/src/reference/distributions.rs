//! cuRAND's conversions from random bits to distributions, as plain functions of the bits.
//!
//! Each function here is what one cuRAND device helper computes (`_curand_uniform`,
//! `_curand_box_muller`, the Poisson samplers, ...), written so the device library can call
//! the same arithmetic. Where the device uses an approximate hardware instruction the host
//! cannot reproduce (`__sincosf`, `ex2.approx`), the accurate function is used instead and the
//! difference is covered by the tolerances the tests state.

use super::CurandDevice;
use crate::RandError;

/// 2^-32 (`CURAND_2POW32_INV`).
pub const TWO_POW_M32_F32: f32 = 2.328_306_4e-10;
/// 2^-32 as a double (`CURAND_2POW32_INV_DOUBLE`).
pub const TWO_POW_M32_F64: f64 = 2.328_306_436_538_696_3e-10;
/// 2^-53 (`CURAND_2POW53_INV_DOUBLE`).
pub const TWO_POW_M53_F64: f64 = 1.110_223_024_625_156_5e-16;
/// 2*pi rounded to a float (`CURAND_2PI`).
pub const TWO_PI_F32: f32 = 6.283_185_5;
/// 2^-32 * 2*pi in float (`CURAND_2POW32_INV_2PI`); exact because 2^-32 is a power of two.
pub const TWO_POW_M32_2PI_F32: f32 = TWO_POW_M32_F32 * TWO_PI_F32;

/// `_curand_uniform(x)`: `x * 2^-32 + 2^-33` in float, a value in (0, 1].
#[inline]
pub fn uniform_f32(x: u32) -> f32 {
    (x as f32) * TWO_POW_M32_F32 + TWO_POW_M32_F32 / 2.0
}

/// `_curand_uniform_double_hq(x, y)`: 53 bits from two draws, `z * 2^-53 + 2^-54`.
///
/// `z = x ^ (y << 21)`; the XOR (not OR) of overlapping bits is what cuRAND does.
#[inline]
pub fn uniform_f64_hq(x: u32, y: u32) -> f64 {
    let z = (x as u64) ^ ((y as u64) << 21);
    (z as f64) * TWO_POW_M53_F64 + TWO_POW_M53_F64 / 2.0
}

/// `_curand_uniform_double(x)` for one 32-bit draw (quasi-random generators): `x * 2^-32 + 2^-32`.
#[inline]
pub fn uniform_f64_from_u32(x: u32) -> f64 {
    (x as f64) * TWO_POW_M32_F64 + TWO_POW_M32_F64
}

/// `_curand_uniform_double(x)` for one 64-bit draw (Sobol64): `(x >> 11) * 2^-53 + 2^-54`.
#[inline]
pub fn uniform_f64_from_u64(x: u64) -> f64 {
    ((x >> 11) as f64) * TWO_POW_M53_F64 + TWO_POW_M53_F64 / 2.0
}

/// `_curand_box_muller(x, y)`: `[sin(v) * s, cos(v) * s]` with `s = sqrt(-2 ln u)`.
///
/// `v = y * 2^-32 * 2pi + 2^-33 * 2pi` is one fused multiply-add, as nvcc contracts it.
#[inline]
pub fn box_muller(x: u32, y: u32) -> [f32; 2] {
    let u = uniform_f32(x);
    let v = (y as f32).mul_add(TWO_POW_M32_2PI_F32, TWO_POW_M32_2PI_F32 / 2.0);
    let s = (-2.0f32 * u.ln()).sqrt();
    let (sin, cos) = v.sin_cos();
    [sin * s, cos * s]
}

/// `_curand_box_muller_double(x0, x1, y0, y1)`: radius from 53 bits of `(x0, x1)`, angle
/// `pi * v` with `v` in (0, 2] from 53 bits of `(y0, y1)`, evaluated with `sincospi`.
#[inline]
pub fn box_muller_double(x0: u32, x1: u32, y0: u32, y1: u32) -> [f64; 2] {
    let zx = (x0 as u64) ^ ((x1 as u64) << 21);
    let u = (zx as f64) * TWO_POW_M53_F64 + TWO_POW_M53_F64 / 2.0;
    let zy = (y0 as u64) ^ ((y1 as u64) << 21);
    let v = (zy as f64) * (TWO_POW_M53_F64 * 2.0) + TWO_POW_M53_F64;
    let s = (-2.0 * u.ln()).sqrt();
    let (sin, cos) = sincospi(v);
    [sin * s, cos * s]
}

/// `sincospi(v)`: `(sin(pi v), cos(pi v))` with exact reduction to a quarter turn.
pub fn sincospi(v: f64) -> (f64, f64) {
    let k = (2.0 * v).round();
    // `v - k / 2` is exact: k / 2 is within a quarter of v.
    let r = v - k * 0.5;
    let (s, c) = (core::f64::consts::PI * r).sin_cos();
    match (k as i64).rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

/// The complementary error function to near double precision (relative error about 1e-15):
/// a positive series for erf below 0.7, where `1 - erf` loses little, and Laplace's continued
/// fraction (modified Lentz, at most a few hundred terms) from 0.7 up.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 0.7 {
        // erf(x) = 2/sqrt(pi) exp(-x^2) sum_n (2x^2)^n x / (1*3*...*(2n+1))
        let x2 = x * x;
        let (mut term, mut sum) = (x, x);
        for n in 1..200 {
            term *= 2.0 * x2 / (2 * n + 1) as f64;
            sum += term;
            if term < sum * 1e-17 {
                break;
            }
        }
        return 1.0 - core::f64::consts::FRAC_2_SQRT_PI * (-x2).exp() * sum;
    }
    if x > 27.0 {
        return 0.0;
    }
    // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))))
    let tiny = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0;
    for n in 1..1000 {
        let a = n as f64 * 0.5;
        d = x + a * d;
        d = if d.abs() < tiny { tiny } else { d };
        c = x + a / c;
        c = if c.abs() < tiny { tiny } else { c };
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / (f * core::f64::consts::PI.sqrt())
}

/// The standard normal CDF, `erfc(-z / sqrt 2) / 2`.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / core::f64::consts::SQRT_2)
}

/// The inverse of the standard normal CDF, used for quasi-random normal outputs: Acklam's
/// rational approximation (relative error below 1.2e-9) refined by one Halley step on the
/// lower half, mirrored for `p > 1/2` (where `1 - p` is exact).
pub fn normal_icdf(p: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) {
        return if p == 0.0 {
            f64::NEG_INFINITY
        } else if p == 1.0 {
            f64::INFINITY
        } else {
            f64::NAN
        };
    }
    if p > 0.5 {
        return -normal_icdf(1.0 - p);
    }
    let z = normal_icdf_acklam(p);
    let e = normal_cdf(z) - p;
    let u = e * (2.0 * core::f64::consts::PI).sqrt() * (0.5 * z * z).exp();
    z - u / (1.0 + 0.5 * z * u)
}

/// Coefficients of Acklam's rational approximation to the inverse standard normal CDF, shared
/// with the device version so the two cannot drift apart.
pub(crate) mod acklam {
    pub(crate) const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    pub(crate) const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    pub(crate) const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_276_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    pub(crate) const D: [f64; 4] =
        [7.784_695_709_041_462e-3, 3.224_671_290_700_398e-1, 2.445_134_137_142_996, 3.754_408_661_907_416];
    pub(crate) const P_LOW: f64 = 0.02425;
}

fn normal_icdf_acklam(p: f64) -> f64 {
    use acklam::{A, B, C, D, P_LOW};
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < P_LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p <= 1.0 - P_LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    }
}

/// A validated normal distribution `N(mean, stddev^2)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Normal {
    mean: f64,
    stddev: f64,
}

impl Normal {
    /// Checks that `mean` is finite and `stddev` finite and positive.
    pub fn new(mean: f64, stddev: f64) -> Result<Self, RandError> {
        check_mean_stddev(mean, stddev)?;
        Ok(Self { mean, stddev })
    }

    /// The mean.
    pub fn mean(&self) -> f64 {
        self.mean
    }

    /// The standard deviation.
    pub fn stddev(&self) -> f64 {
        self.stddev
    }
}

/// A validated log-normal distribution: `exp` of `N(mean, stddev^2)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogNormal {
    normal: Normal,
}

impl LogNormal {
    /// Checks that `mean` is finite and `stddev` finite and positive.
    pub fn new(mean: f64, stddev: f64) -> Result<Self, RandError> {
        Ok(Self { normal: Normal::new(mean, stddev)? })
    }

    /// The parameters of the underlying normal distribution.
    pub fn normal(&self) -> Normal {
        self.normal
    }
}

pub(crate) fn check_mean_stddev(mean: f64, stddev: f64) -> Result<(), RandError> {
    if !mean.is_finite() {
        return Err(RandError::InvalidMean { mean });
    }
    if !(stddev.is_finite() && stddev > 0.0) {
        return Err(RandError::InvalidStddev { stddev });
    }
    Ok(())
}

/// cuRAND's device-API Poisson sampler (`curand_poisson`) for one validated mean.
///
/// cuRAND picks the algorithm by lambda: below 64, Knuth's product of uniforms; above 4000,
/// the normal approximation `round(sqrt(lambda) * normal_double + lambda)`; in between, a
/// rejection method built on an approximation of the regularized incomplete gamma function.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Poisson {
    lambda: f64,
}

/// Which algorithm cuRAND uses for a given lambda.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoissonMethod {
    /// lambda < 64: Knuth's multiplication of uniforms.
    Knuth,
    /// 64 <= lambda <= 4000: rejection from the incomplete-gamma approximation.
    GammaRejection,
    /// lambda > 4000: rounded normal approximation.
    NormalApproximation,
}

impl Poisson {
    /// Checks that `lambda` is finite and positive.
    pub fn new(lambda: f64) -> Result<Self, RandError> {
        if !(lambda.is_finite() && lambda > 0.0) {
            return Err(RandError::InvalidLambda { lambda });
        }
        Ok(Self { lambda })
    }

    /// The mean.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// The algorithm cuRAND uses for this lambda.
    pub fn method(&self) -> PoissonMethod {
        if self.lambda < 64.0 {
            PoissonMethod::Knuth
        } else if self.lambda > 4000.0 {
            PoissonMethod::NormalApproximation
        } else {
            PoissonMethod::GammaRejection
        }
    }

    /// `curand_poisson(state, lambda)`.
    pub fn sample<G: CurandDevice + ?Sized>(&self, g: &mut G) -> u32 {
        match self.method() {
            PoissonMethod::Knuth => poisson_knuth(g, self.lambda as f32),
            PoissonMethod::NormalApproximation => {
                (self.lambda.sqrt() * g.normal_double() + self.lambda + 0.5) as u32
            }
            PoissonMethod::GammaRejection => poisson_gamma_rejection(g, self.lambda as f32),
        }
    }

    /// `curand_poisson4(state, lambda)` (Philox): four samples; with Knuth and the gamma
    /// rejection these are four single samples in a row, with the normal approximation they
    /// come from `curand_normal4_double`, which bypasses the double cache.
    pub fn sample4<G: CurandDevice + ?Sized>(&self, g: &mut G) -> [u32; 4] {
        match self.method() {
            PoissonMethod::NormalApproximation => {
                let [a, b] = g.box_muller_double();
                let [c, d] = g.box_muller_double();
                let r = self.lambda.sqrt();
                [a, b, c, d].map(|n| (r * n + self.lambda + 0.5) as u32)
            }
            _ => [self.sample(g), self.sample(g), self.sample(g), self.sample(g)],
        }
    }
}

/// Knuth: multiply uniforms into `e^lambda` until the product drops to 1 or below.
fn poisson_knuth<G: CurandDevice + ?Sized>(g: &mut G, lambda: f32) -> u32 {
    let mut k: u32 = 0;
    let mut p = lambda.exp();
    loop {
        k = k.wrapping_add(1);
        p *= g.uniform();
        if (p as f64) <= 1.0 {
            break;
        }
    }
    k.wrapping_sub(1)
}

// Parameters of cuRAND's closed-form approximation of the regularized lower incomplete gamma
// function P(a, x) and of its inverse in x.
pub(crate) const MA1: f32 = 1.432_480_4;
pub(crate) const MA2: f32 = 0.124_009_79;
pub(crate) const MA3: f32 = 0.000_253_610_75;
pub(crate) const MB1: f32 = 0.210_967_35;
pub(crate) const MB2: f32 = 1.973_811_6;
pub(crate) const MB3: f32 = 0.942_017_3;

fn gamma_alpha_beta(a: f32) -> (f32, f32) {
    // nvcc contracts `m * r + c` into one fused multiply-add.
    let alpha = MA1.mul_add(1.0 / (a - MA2).sqrt(), MA3);
    let beta = MB1.mul_add(1.0 / (a - MB2).sqrt(), MB3);
    (alpha, beta)
}

/// Approximation of P(a, x) = 1 / (1 + exp(alpha (a - x) - beta))^2.
fn pgammainc(a: f32, x: f32) -> f32 {
    let (alpha, beta) = gamma_alpha_beta(a);
    let t = 1.0 + alpha.mul_add(a - x, -beta).exp();
    1.0 / (t * t)
}

/// Inverse in x of [`pgammainc`].
fn pgammaincinv(a: f32, y: f32) -> f32 {
    let (alpha, beta) = gamma_alpha_beta(a);
    let t = (1.0 / y.sqrt() - 1.0).ln();
    (-(beta + t)).mul_add(1.0 / alpha, a)
}

/// `ln((a - 1)!)` for a positive integer `a`: a table up to 9, Stirling's series beyond.
/// `ln((a - 1)!)` for `a` in `1..=9`, cuRAND's table.
pub(crate) const LGAMMA_TABLE: [f64; 9] = [
    0.0,
    0.0,
    core::f64::consts::LN_2,
    1.791_759_469_228_055,
    3.178_053_830_347_945_6,
    4.787_491_742_782_046,
    6.579_251_212_010_101,
    8.525_161_361_065_415,
    1.060_460_290_274_525e1,
];

/// Coefficients of the Stirling series of [`lgamma_integer`], highest order first (in `1/a^2`).
pub(crate) const LGAMMA_SERIES: [f64; 6] = [
    -0.163_343_643_1e-2,
    0.836_458_789_22e-3,
    -0.595_189_686_119_7e-3,
    0.793_650_576_493_454e-3,
    -0.277_777_777_735_865e-2,
    0.833_333_333_333_331e-1,
];

/// `0.5 ln(2 pi)`, the Stirling series' constant as cuRAND writes it.
pub(crate) const LGAMMA_HALF_LN_2PI: f64 = 0.918_938_533_204_672;

fn lgamma_integer(a: i32) -> f64 {
    const TABLE: [f64; 9] = LGAMMA_TABLE;
    let fa = (a as f32).abs() as f64;
    if a > 8 {
        let s = 1.0 / fa;
        let t = s * s;
        let mut sum = LGAMMA_SERIES[0];
        for &c in &LGAMMA_SERIES[1..] {
            sum = sum * t + c;
        }
        sum = sum * s + LGAMMA_HALF_LN_2PI;
        let half_log = 0.5 * fa.ln();
        let s = half_log * (fa - 0.5);
        let t = s - fa;
        let s = s + sum;
        t + s
    } else {
        // cuRAND indexes its table with `fa - 1`; a below 1 cannot occur for x = floor(.) >= 0,
        // and is clamped rather than read out of bounds.
        TABLE[((fa as usize).max(1) - 1).min(8)]
    }
}

/// Rejection sampler for 64 <= lambda <= 4000 (`curand_poisson_gammainc`).
fn poisson_gamma_rejection<G: CurandDevice + ?Sized>(g: &mut G, lambda: f32) -> u32 {
    let logl = lambda.ln();
    loop {
        let y = g.uniform();
        let x = pgammaincinv(lambda, y).floor();
        let z = g.uniform();
        let v = (pgammainc(lambda, x + 1.0) - pgammainc(lambda, x)) * 1.3;
        let z = z * v;
        let lg = lgamma_integer((1.0f32 + x) as i32) as f32;
        let t = (x.mul_add(logl, -lambda) - lg).exp();
        if z < t && (v as f64) >= 1e-20 {
            return x as u32;
        }
    }
}

/// A discrete distribution over `0..n` from user weights, sampled with Marsaglia, Tsang and
/// Wang's square histogram (the method behind cuRAND's `curand_discrete`).
///
/// Sampling takes one 32-bit draw: `u = x * 2^-32 + 2^-32`, `j = floor(n u)`, then `j` if
/// `u < V[j]` and `K[j]` otherwise. The table is built with Vose's worklists.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscreteDistribution {
    /// Absolute thresholds: column `j` keeps `j` for `u` in `[j/n, V[j])`.
    thresholds: Vec<f64>,
    /// Alias of each column.
    aliases: Vec<u32>,
}

impl DiscreteDistribution {
    /// The longest table: outputs are `u32`.
    pub const MAX_LEN: usize = u32::MAX as usize;

    /// Builds the table from non-negative finite weights that need not sum to 1.
    pub fn new(weights: &[f64]) -> Result<Self, RandError> {
        let n = weights.len();
        if n == 0 {
            return Err(RandError::Empty { what: "weights" });
        }
        if n > Self::MAX_LEN {
            return Err(RandError::TooLong { what: "weights", len: n, max: Self::MAX_LEN });
        }
        let mut largest = 0.0f64;
        for (index, &weight) in weights.iter().enumerate() {
            if !(weight.is_finite() && weight >= 0.0) {
                return Err(RandError::InvalidWeight { index, weight });
            }
            largest = largest.max(weight);
        }
        if largest == 0.0 {
            return Err(RandError::AllWeightsZero { len: n });
        }
        // Summed relative to the largest weight, so finite weights never overflow the sum
        // (at most `n` <= 2^32).
        let total: f64 = weights.iter().map(|w| w / largest).sum();
        let weights: Vec<f64> = weights.iter().map(|w| w / largest).collect();
        let nf = n as f64;
        let mut scaled: Vec<f64> = weights.iter().map(|w| w / total * nf).collect();
        let mut thresholds: Vec<f64> = (0..n).map(|j| (j + 1) as f64 / nf).collect();
        let mut aliases: Vec<u32> = (0..n as u32).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| scaled[i] < 1.0);
        while let (Some(s), Some(&l)) = (small.pop(), large.last()) {
            thresholds[s] = (s as f64 + scaled[s]) / nf;
            aliases[s] = l as u32;
            scaled[l] -= 1.0 - scaled[s];
            if scaled[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        Ok(Self { thresholds, aliases })
    }

    /// A table built elsewhere (cuRAND's own construction, [`super::host_poisson::square_histogram`]).
    pub(crate) fn from_parts(thresholds: Vec<f64>, aliases: Vec<u32>) -> Self {
        Self { thresholds, aliases }
    }

    /// Column thresholds `V[j]` (for a device copy of the table).
    pub fn thresholds(&self) -> &[f64] {
        &self.thresholds
    }

    /// Column aliases `K[j]` (for a device copy of the table).
    pub fn aliases(&self) -> &[u32] {
        &self.aliases
    }

    /// Number of outcomes.
    pub fn len(&self) -> usize {
        self.thresholds.len()
    }

    /// Always false: construction rejects empty tables.
    pub fn is_empty(&self) -> bool {
        self.thresholds.is_empty()
    }

    /// Maps one 32-bit draw to an outcome.
    pub fn sample_bits(&self, x: u32) -> u32 {
        let u = uniform_f64_from_u32(x);
        let n = self.thresholds.len();
        // u can be exactly 1.0; cuRAND would then read one past the table, we clamp.
        let j = ((n as f64 * u) as usize).min(n - 1);
        if u < self.thresholds[j] {
            j as u32
        } else {
            self.aliases[j]
        }
    }

    /// `curand_discrete(state, table)`: one draw from the generator.
    pub fn sample<G: CurandDevice + ?Sized>(&self, g: &mut G) -> u32 {
        self.sample_bits(g.next_u32())
    }
}
