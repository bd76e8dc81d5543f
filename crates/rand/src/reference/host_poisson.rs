//! cuRAND's host-API Poisson (`curandCreatePoissonDistribution`, `curandGeneratePoisson`),
//! read off the real cuRAND 10.4 (CUDA 13, H200) by `tools/curand_poisson_probe.py` (tables
//! and streams) and `tools/curand_poisson_switch_probe.py` (the lambdas where the method
//! changes, bisected to adjacent doubles).
//!
//! `curandCreatePoissonDistribution(lambda)` builds one of two things:
//! - below lambda 2000 (tables compared: 0.25 to 1999), a square histogram (`CURAND_M2`) over the `k`
//!   whose probability does not underflow in double: `p(k) = exp(k ln lambda - lambda -
//!   ln k!)`, `ln k!` summed term by term, not normalised; `shift` is the first such `k`
//!   (71 for lambda 1000), `length` their count. The histogram is built in probability units
//!   (a column holds `a = 1/length`): passes over the columns in index order take every
//!   column below `a` and fill it from the highest-index column still at or above `a`, which
//!   gives up `a - p(j)`; a column that drops below `a` is taken when a later pass reaches it.
//!   `V[j] = j a + p(j)` (absolute thresholds), `K[j]` the donor, and the last donor keeps
//!   `V[j] = j a + remainder`. This reproduces cuRAND's `K` and `V` bit for bit at every
//!   probed lambda;
//! - from lambda 2000 up to 400,000, `CURAND_DISCRETE_GAUSS` with mean `lambda` and standard
//!   deviation `sqrt(lambda)`. Above 400,000 cuRAND returns `CURAND_STATUS_OUT_OF_RANGE`
//!   (here [`RandError::LambdaOutOfRange`]).
//!
//! `curandGeneratePoisson` then maps the generator's stream:
//! - pseudo-random generators, square histogram: value `i` is `shift + (u < V[j] ? j : K[j])`
//!   of the `i`-th value `x` of the `curandGenerate` stream, `u = x 2^-32 + 2^-32`,
//!   `j = floor(length u)` (`curand_discrete`); a call advances the offset by its length;
//! - pseudo-random generators, Gaussian: `(u32)(sqrt(lambda) * z + lambda + 0.5)` in double
//!   with `z` a float `curand_normal`: Philox in its `curandGenerateNormal` layout (four values
//!   from one state), XORWOW and MRG32k3a one value per element from state `e % T` (`T` the
//!   interleaved states, `e` counting from offset 0), that state started at draw `e0 / T` for
//!   its first element `e0` of the call and drawing successive `curand_normal`s (with the
//!   Box-Muller cache) for `e0 + T`, `e0 + 2T`, ...;
//! - Sobol32 (a monotone map keeps the point set's structure, except for the smallest
//!   lambdas): square histogram below lambda 10 as above; from 10 to 8000 the inverse CDF,
//!   the least `k` whose running sum of `p` from `shift` reaches `u = x 2^-32 + 2^-32`; above
//!   8000 the Gaussian map of one point, `z` the inverse normal CDF of `x 2^-32 + 2^-33`;
//! - MTGP32: Sobol32's three maps of its 32-bit stream, the inverse CDF from lambda 32
//!   (bisected on cuRAND 10.4's host generator to adjacent doubles: 32 - 2^-48 takes the
//!   histogram, 32 the inverse CDF; `tools/curand_host_mtgp32_dists.py` records both sides).

use super::distributions::{self as d, DiscreteDistribution};
use crate::RandError;

/// The largest lambda cuRAND accepts (400,000 is accepted, the next double refused).
pub const MAX_LAMBDA: f64 = 400_000.0;
/// Pseudo-random generators: the square histogram below this lambda, the Gaussian method
/// from it on.
pub const GAUSS_MIN_LAMBDA: f64 = 2000.0;
/// Sobol32: the square histogram below this lambda, the inverse CDF from it on.
pub const QUASI_INVERSE_CDF_MIN_LAMBDA: f64 = 10.0;
/// Sobol32 and MTGP32: the inverse CDF up to this lambda, the Gaussian map above it.
pub const QUASI_INVERSE_CDF_MAX_LAMBDA: f64 = 8000.0;
/// MTGP32: the square histogram below this lambda, the inverse CDF from it on.
pub const MTGP32_INVERSE_CDF_MIN_LAMBDA: f64 = 32.0;

/// cuRAND's Poisson probabilities: the first `k` whose `p(k)` is not 0 in double, and `p(k)`
/// for it and the following `k` up to the last that is not 0.
///
/// `p(k) = exp(k ln lambda - lambda - ln k!)` with `ln k!` accumulated as `ln 1 + ln 2 + ...`
/// in double (that sum's rounding shows in cuRAND's tables: at lambda 1000 its `p` sit about
/// 1e-11 below the exact values).
pub fn poisson_probabilities(lambda: f64) -> Result<(u32, Vec<f64>), RandError> {
    check_lambda(lambda)?;
    let ln_lambda = lambda.ln();
    let mut ln_factorial = 0.0f64;
    let mut first = None;
    let mut p = Vec::new();
    let mut k: u32 = 0;
    loop {
        if k > 0 {
            ln_factorial += (k as f64).ln();
        }
        let pk = (k as f64 * ln_lambda - lambda - ln_factorial).exp();
        if pk > 0.0 {
            first.get_or_insert(k);
            p.push(pk);
        } else if first.is_some() {
            break;
        }
        k += 1;
    }
    // The loop ends once p has risen above 0 and fallen back; lambda > 0 makes p(ceil) > 0.
    Ok((first.unwrap_or(0), p))
}

fn check_lambda(lambda: f64) -> Result<(), RandError> {
    if !(lambda.is_finite() && lambda > 0.0) {
        return Err(RandError::InvalidLambda { lambda });
    }
    if lambda > MAX_LAMBDA {
        return Err(RandError::LambdaOutOfRange { lambda, max: MAX_LAMBDA });
    }
    Ok(())
}

/// cuRAND's square histogram (`CURAND_M2`) over probabilities that need not sum to 1, in
/// the construction order described in the module documentation.
pub fn square_histogram(p: &[f64]) -> Result<DiscreteDistribution, RandError> {
    let n = p.len();
    if n == 0 {
        return Err(RandError::Empty { what: "probabilities" });
    }
    if n > DiscreteDistribution::MAX_LEN {
        return Err(RandError::TooLong { what: "probabilities", len: n, max: DiscreteDistribution::MAX_LEN });
    }
    let a = 1.0 / n as f64;
    let mut rest = p.to_vec();
    let mut done = vec![false; n];
    let mut thresholds = vec![0.0; n];
    let mut aliases: Vec<u32> = (0..n as u32).collect();
    // The donor: the highest-index column not yet taken that holds at least `a`; it only
    // moves down, because a column that drops below `a` never rises again.
    let next_donor = |from: usize, rest: &[f64], done: &[bool]| {
        (0..from).rev().find(|&l| !done[l] && rest[l] >= a).unwrap_or(usize::MAX)
    };
    let mut donor = next_donor(n, &rest, &done);
    let mut taken = true;
    while taken && donor != usize::MAX {
        taken = false;
        for j in 0..n {
            if done[j] || rest[j] >= a {
                continue;
            }
            if done[donor] || rest[donor] < a {
                donor = next_donor(donor, &rest, &done);
                if donor == usize::MAX {
                    break;
                }
            }
            thresholds[j] = j as f64 * a + rest[j];
            aliases[j] = donor as u32;
            done[j] = true;
            taken = true;
            rest[donor] -= a - rest[j];
        }
    }
    for j in 0..n {
        if !done[j] {
            thresholds[j] = j as f64 * a + rest[j];
        }
    }
    Ok(DiscreteDistribution::from_parts(thresholds, aliases))
}

/// What `curandCreatePoissonDistribution` builds for one lambda.
#[derive(Debug, Clone, PartialEq)]
pub enum PoissonTable {
    /// `CURAND_M2`: outcome `shift + j` for column `j` of the histogram.
    SquareHistogram {
        /// The smallest outcome (the first `k` with a non-zero probability).
        shift: u32,
        /// The histogram over `shift ..`.
        histogram: DiscreteDistribution,
    },
    /// `CURAND_DISCRETE_GAUSS`: a rounded normal.
    Gauss {
        /// `lambda`.
        mean: f64,
        /// `sqrt(lambda)`.
        stddev: f64,
    },
}

impl PoissonTable {
    /// `curandCreatePoissonDistribution(lambda)`.
    pub fn new(lambda: f64) -> Result<Self, RandError> {
        check_lambda(lambda)?;
        if lambda < GAUSS_MIN_LAMBDA {
            let (shift, p) = poisson_probabilities(lambda)?;
            Ok(PoissonTable::SquareHistogram { shift, histogram: square_histogram(&p)? })
        } else {
            Ok(PoissonTable::Gauss { mean: lambda, stddev: lambda.sqrt() })
        }
    }

    /// `_curand_discrete` of one 32-bit draw for the square histogram; for the Gaussian method
    /// (which the pseudo-random host API feeds with float normals instead, see [`gauss`]) the normal is the
    /// inverse CDF of `x 2^-32 + 2^-33`, as `curand_discrete` computes it.
    pub fn sample_bits(&self, x: u32) -> u32 {
        match self {
            PoissonTable::SquareHistogram { shift, histogram } => shift + histogram.sample_bits(x),
            PoissonTable::Gauss { mean, stddev } => gauss(*mean, *stddev, icdf_bits(x)),
        }
    }
}

/// The inverse normal CDF of `x 2^-32 + 2^-33` (`_curand_normal_icdf_double`).
pub fn icdf_bits(x: u32) -> f64 {
    d::normal_icdf((x as f64).mul_add(d::TWO_POW_M32_F64, d::TWO_POW_M32_F64 / 2.0))
}

/// `(u32)(stddev z + mean + 0.5)` in double: the Gaussian method's rounding (a negative or
/// huge value saturates, as Rust's cast does; cuRAND's lambdas keep it in range).
pub fn gauss(mean: f64, stddev: f64, z: f64) -> u32 {
    (stddev * z + mean + 0.5) as u32
}

/// How Sobol32's `curandGeneratePoisson` maps one point, by lambda.
#[derive(Debug, Clone, PartialEq)]
pub enum QuasiPoisson {
    /// The square histogram of [`PoissonTable`] (small lambdas).
    SquareHistogram(PoissonTable),
    /// The inverse CDF: outcome `shift + j` for the least `j` with `cdf[j] >= u`.
    InverseCdf {
        /// The smallest outcome.
        shift: u32,
        /// Running sums of [`poisson_probabilities`].
        cdf: Vec<f64>,
    },
    /// The Gaussian map of the point's inverse normal CDF.
    Gauss {
        /// `lambda`.
        mean: f64,
        /// `sqrt(lambda)`.
        stddev: f64,
    },
}

impl QuasiPoisson {
    /// The map Sobol32 uses for `lambda`.
    pub fn new(lambda: f64) -> Result<Self, RandError> {
        Self::with_inverse_cdf_from(lambda, QUASI_INVERSE_CDF_MIN_LAMBDA)
    }

    /// The map MTGP32 uses for `lambda` (Sobol32's, with the inverse CDF from lambda 32).
    pub fn mtgp32(lambda: f64) -> Result<Self, RandError> {
        Self::with_inverse_cdf_from(lambda, MTGP32_INVERSE_CDF_MIN_LAMBDA)
    }

    /// The square histogram below `min`, the inverse CDF from `min` to
    /// [`QUASI_INVERSE_CDF_MAX_LAMBDA`], the Gaussian map above.
    fn with_inverse_cdf_from(lambda: f64, min: f64) -> Result<Self, RandError> {
        check_lambda(lambda)?;
        if lambda < min {
            Ok(QuasiPoisson::SquareHistogram(PoissonTable::new(lambda)?))
        } else if lambda <= QUASI_INVERSE_CDF_MAX_LAMBDA {
            let (shift, p) = poisson_probabilities(lambda)?;
            let cdf = p
                .iter()
                .scan(0.0f64, |acc, &q| {
                    *acc += q;
                    Some(*acc)
                })
                .collect();
            Ok(QuasiPoisson::InverseCdf { shift, cdf })
        } else {
            Ok(QuasiPoisson::Gauss { mean: lambda, stddev: lambda.sqrt() })
        }
    }

    /// One Sobol32 point (or MTGP32 value) mapped to an outcome.
    pub fn sample_bits(&self, x: u32) -> u32 {
        match self {
            QuasiPoisson::SquareHistogram(t) => t.sample_bits(x),
            QuasiPoisson::InverseCdf { shift, cdf } => {
                shift + inverse_cdf_index(cdf, d::uniform_f64_from_u32(x))
            }
            QuasiPoisson::Gauss { mean, stddev } => gauss(*mean, *stddev, icdf_bits(x)),
        }
    }
}

/// The least `j` with `cdf[j] >= u`, the last index when the sum falls short of `u`.
pub fn inverse_cdf_index(cdf: &[f64], u: f64) -> u32 {
    cdf.partition_point(|&c| c < u).min(cdf.len().saturating_sub(1)) as u32
}
