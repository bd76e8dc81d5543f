//! Sobol32's inverse-CDF Poisson (cuRAND's map from lambda 10 to 8000) as one table lookup
//! per point.
//!
//! The outcome of point `x` is `shift + j`, `j` the least index with `cdf[j] >= u` for
//! `u = x 2^-32 + 2^-32` (the last index when the sum falls short of `u`). Since
//! `u = (x + 1) 2^-32` exactly, `cdf[j] < u` holds exactly when `x >= floor(cdf[j] 2^32)`, so
//! `j` is the number of thresholds `T[i] = floor(cdf[i] 2^32)`, `i < len - 1`, at or below
//! `x`: a step function of `x` whose steps the host finds once per lambda.
//!
//! The kernel finds the step by a bucket of `x` on a log-linear scale of the distance to the
//! nearer end of the 32-bit range ([`bucket`]: `2^bits` buckets per octave, the tails'
//! octaves as fine as the middle's), where the steps crowd as the Poisson tails thin out. The
//! host picks the smallest `bits` from [`MIN_BITS`] for which no bucket holds more than one
//! step (4-7 for lambda 10 to 8000), and each bucket is two words: the step's `x`, and the
//! outcomes (less `shift`) before and from it. A lookup is then one 8-byte read and one
//! compare, the same work for every lane of a warp.

/// The finest scale tried: `2 (32 - bits) 2^bits` buckets of 8 bytes, 96 KiB at 8.
pub(crate) const MAX_BITS: u32 = 8;
/// The coarsest scale tried.
pub(crate) const MIN_BITS: u32 = 4;

/// The number of buckets at scale `bits`.
pub(crate) fn buckets(bits: u32) -> u32 {
    2 * ((32 - bits) << bits)
}

/// The bucket of `x` at scale `bits` (`MIN_BITS ..= MAX_BITS`), non-decreasing in `x`: with
/// `y` the distance of `x` to the nearer end (`x` below 2^31, `!x` from it), `y` itself below
/// `2^(bits + 1)`, else the octave of `y` and its next `bits` bits; the upper half mirrored.
/// [`crate::generator::kernels`] computes the same on the device.
pub(crate) fn bucket(x: u32, bits: u32) -> u32 {
    let upper = x >> 31;
    let y = x ^ 0u32.wrapping_sub(upper);
    let sh = (31 - bits) - y.leading_zeros().min(31 - bits);
    let k = (sh << bits) + (y >> sh);
    if upper == 1 {
        buckets(bits) - 1 - k
    } else {
        k
    }
}

/// The inverse-CDF map's lookup table: `words[2 k]` the step in bucket `k` (its first `x`;
/// the bucket's first `x` when it holds none), `words[2 k + 1]` the outcomes less `shift`
/// below the step (low 16 bits) and from it (high 16 bits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CdfLookup {
    pub bits: u32,
    pub words: Vec<u32>,
}

impl CdfLookup {
    /// The table for the running sums `cdf` (non-decreasing, at most 65,536 entries), or
    /// `None` if no scale up to [`MAX_BITS`] has at most one step per bucket (not the case
    /// for any Poisson lambda from 10 to 8000: see the tests).
    pub(crate) fn new(cdf: &[f64]) -> Option<CdfLookup> {
        if cdf.is_empty() || cdf.len() > 1 << 16 {
            return None;
        }
        const TWO_POW_32: f64 = 4_294_967_296.0;
        let thresholds: Vec<u64> = cdf[..cdf.len() - 1]
            .iter()
            .map(|&c| (c * TWO_POW_32).floor())
            .take_while(|&t| t < TWO_POW_32)
            .map(|t| t as u64)
            .collect();
        // The outcome less `shift` of point `x`.
        let outcome = |x: u64| thresholds.partition_point(|&t| t <= x) as u32;
        (MIN_BITS..=MAX_BITS).find_map(|bits| {
            let n = buckets(bits);
            let mut words = Vec::with_capacity(2 * n as usize);
            // The first `x` of each bucket (least `x` with `bucket(x) >= k`), and 2^32.
            let starts: Vec<u64> = (0..=n)
                .map(|k| {
                    if k == n {
                        return 1 << 32;
                    }
                    let (mut lo, mut hi) = (0u64, 1u64 << 32);
                    while lo < hi {
                        let mid = (lo + hi) / 2;
                        if bucket(mid as u32, bits) < k {
                            lo = mid + 1;
                        } else {
                            hi = mid;
                        }
                    }
                    lo
                })
                .collect();
            for w in starts.windows(2) {
                let (first, last) = (w[0], w[1] - 1);
                let below = outcome(first);
                // Thresholds strictly inside the bucket: its steps (several thresholds may
                // share one `x`).
                let i = thresholds.partition_point(|&t| t <= first);
                let j = thresholds.partition_point(|&t| t <= last);
                let step = thresholds.get(i).copied().filter(|_| i < j).unwrap_or(first);
                if thresholds[i..j].iter().any(|&t| t != step) {
                    return None;
                }
                words.push(step as u32);
                words.push(below | (outcome(last) << 16));
            }
            Some(CdfLookup { bits, words })
        })
    }

    /// The outcome less `shift` of point `x`, as the kernel reads it off the table (the
    /// host-side statement of the device code, for the tests).
    #[cfg(test)]
    pub(crate) fn lookup(&self, x: u32) -> u32 {
        let k = bucket(x, self.bits) as usize;
        let (step, outcomes) = (self.words[2 * k], self.words[2 * k + 1]);
        if x >= step {
            outcomes >> 16
        } else {
            outcomes & 0xffff
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::distributions::uniform_f64_from_u32;
    use crate::reference::host_poisson::{inverse_cdf_index, QuasiPoisson};

    fn cdf_of(lambda: f64) -> (u32, Vec<f64>) {
        match QuasiPoisson::new(lambda).unwrap() {
            QuasiPoisson::InverseCdf { shift, cdf } => (shift, cdf),
            _ => panic!("lambda {lambda} is not in the inverse-CDF range"),
        }
    }

    #[test]
    fn buckets_are_monotone_and_cover_the_range() {
        for bits in MIN_BITS..=MAX_BITS {
            let n = buckets(bits);
            assert_eq!(bucket(0, bits), 0);
            assert_eq!(bucket(u32::MAX, bits), n - 1);
            // Every boundary of the scale: powers of two and their neighbours on both sides.
            let mut xs: Vec<u32> = (0..32)
                .flat_map(|e| {
                    let p = 1u32 << e;
                    [p - 1, p, p + 1, !p, !(p - 1), !(p + 1)]
                })
                .collect();
            xs.extend((0..4096u32).map(|i| i.wrapping_mul(0x9e37_79b9)));
            xs.sort_unstable();
            for w in xs.windows(2) {
                let (a, b) = (bucket(w[0], bits), bucket(w[1], bits));
                assert!(a <= b && b < n, "bits {bits}: bucket({}) = {a}, bucket({}) = {b}", w[0], w[1]);
                // Adjacent `x` never skip a bucket.
                if w[1] == w[0] + 1 {
                    assert!(b - a <= 1, "bits {bits}: {} skips from {a} to {b}", w[0]);
                }
            }
        }
    }

    /// The table gives the reference's outcome on both sides of every step, at both ends of
    /// every bucket and at spread points, for lambdas across the inverse-CDF range (where the
    /// scale changes, 10, 8000, and a grid between).
    #[test]
    fn lookup_matches_the_reference_map() {
        let mut lambdas: Vec<f64> =
            vec![10.0, 10.5, 37.25, 100.0, 999.9, 1500.0, 3000.0, 6854.77, 7999.99, 8000.0];
        lambdas.extend((0..24).map(|i| 10.0 + 7990.0 * (i as f64 + 0.37) / 24.0));
        let mut scales = std::collections::BTreeSet::new();
        for lambda in lambdas {
            let (_, cdf) = cdf_of(lambda);
            let t = CdfLookup::new(&cdf).unwrap_or_else(|| panic!("no table for lambda {lambda}"));
            scales.insert(t.bits);
            let reference = |x: u32| inverse_cdf_index(&cdf, uniform_f64_from_u32(x));
            let mut xs: Vec<u32> = vec![0, 1, u32::MAX, u32::MAX - 1, 1 << 31, (1 << 31) - 1];
            for k in 0..buckets(t.bits) as usize {
                let step = t.words[2 * k];
                xs.extend([step.wrapping_sub(1), step, step.wrapping_add(1)]);
            }
            xs.extend((0..20_000u32).map(|i| i.wrapping_mul(0x9e37_79b9) ^ (i >> 3)));
            for x in xs {
                assert_eq!(t.lookup(x), reference(x), "lambda {lambda}, x {x:#x}, scale {}", t.bits);
            }
        }
        // The cases reach more than one scale.
        assert!(scales.len() >= 3, "scales {scales:?}");
    }

    #[test]
    fn tables_that_need_more_than_one_step_per_bucket_are_refused() {
        // Steps every 4.3 points up to 4295: two or more in the buckets of 8 or more points
        // (from 2^11 on at the finest scale).
        let cdf: Vec<f64> = (1..=1000).map(|i| i as f64 * 1e-9).chain([1.0]).collect();
        assert_eq!(CdfLookup::new(&cdf), None);
        assert_eq!(CdfLookup::new(&[]), None);
    }
}
