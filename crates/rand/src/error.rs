//! Errors for arguments that cuRAND's host API rejects.

/// What went wrong with a request to a generator or a distribution.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RandError {
    /// An output buffer or a table was empty.
    #[error("{what} must not be empty")]
    Empty {
        /// The argument that was empty.
        what: &'static str,
    },
    /// A normal or log-normal request needs an even count because values come in Box-Muller pairs.
    #[error("{what} needs an even number of outputs, got {len}")]
    OddLength {
        /// The function that was asked.
        what: &'static str,
        /// The count that was asked for.
        len: usize,
    },
    /// A Poisson mean that is not a finite positive number.
    #[error("Poisson lambda must be finite and greater than 0, got {}", num(*lambda))]
    InvalidLambda {
        /// The rejected mean.
        lambda: f64,
    },
    /// A Poisson mean above the largest that cuRAND's host API was seen to accept.
    #[error("Poisson lambda {} is above the largest supported, {}", num(*lambda), num(*max))]
    LambdaOutOfRange {
        /// The rejected mean.
        lambda: f64,
        /// The largest mean supported.
        max: f64,
    },
    /// A standard deviation that is not a finite positive number.
    #[error("standard deviation must be finite and greater than 0, got {}", num(*stddev))]
    InvalidStddev {
        /// The rejected standard deviation.
        stddev: f64,
    },
    /// A mean that is not finite.
    #[error("mean must be finite, got {}", num(*mean))]
    InvalidMean {
        /// The rejected mean.
        mean: f64,
    },
    /// A quasi-random dimension count outside 1..=max.
    #[error("Sobol dimension count must be between 1 and {max}, got {dimensions}")]
    UnsupportedDimensions {
        /// The count that was asked for.
        dimensions: u32,
        /// The largest count supported.
        max: u32,
    },
    /// A quasi-random output length that does not split evenly over the dimensions.
    #[error("output length {len} is not a multiple of the {dimensions} dimensions")]
    LengthNotMultipleOfDimensions {
        /// The output length.
        len: usize,
        /// The dimension count.
        dimensions: u32,
    },
    /// A discrete distribution weight that is negative or not finite.
    #[error("discrete weight {index} (0-based) is {}; weights must be finite and non-negative", num(*weight))]
    InvalidWeight {
        /// Index of the offending weight.
        index: usize,
        /// The offending weight.
        weight: f64,
    },
    /// Discrete distribution weights that are all 0.
    #[error("all {len} discrete weights are 0; at least one must be positive")]
    AllWeightsZero {
        /// The number of weights.
        len: usize,
    },
    /// A table too long for 32-bit outputs.
    #[error("{what} has {len} entries, more than the {max} supported")]
    TooLong {
        /// The argument that was too long.
        what: &'static str,
        /// Its length.
        len: usize,
        /// The largest length supported.
        max: usize,
    },
    /// A request whose values would pass the end of the 64-bit offset range.
    #[error(
        "offset {offset} plus {count} values passes the end of the generator's 64-bit stream; offset + count must be at most 2^64"
    )]
    OffsetOverflow {
        /// The generator offset of the call.
        offset: u64,
        /// The values asked for.
        count: u64,
    },
    /// An MT19937 or MTGP32 call starting farther ahead of its generator's state than the
    /// generator computes through (it computes every value in between; cuRAND refuses offsets
    /// for both).
    #[error(
        "{generator} offset {offset} is past {max}, the farthest a call may start from where the stream stands (every value in between is computed; cuRAND refuses {generator} offsets)"
    )]
    OffsetTooFar {
        /// `"MT19937"` or `"MTGP32"`.
        generator: &'static str,
        /// The generator offset of the call.
        offset: u64,
        /// The largest offset the call could start at.
        max: u64,
    },
    /// The runtime refused an allocation, copy or launch.
    #[error("device runtime: {0}")]
    Runtime(#[from] ferrocm_kernel::runtime::Error),
    /// A kernel could not be built, compiled or launched.
    #[error("kernel: {message}")]
    Kernel {
        /// The kernel layer's message.
        message: String,
    },
    /// A request this generator does not support.
    #[error("unsupported: {what}")]
    Unsupported {
        /// What was asked.
        what: String,
    },
}

/// A float for a message: plain digits for ordinary magnitudes, scientific notation for very
/// large or small ones (so 1e300 is not printed as 301 digits).
fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e16).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_and_tiny_numbers_are_printed_in_scientific_notation() {
        let e = RandError::LambdaOutOfRange { lambda: 1e300, max: 400_000.0 };
        assert_eq!(e.to_string(), "Poisson lambda 1e300 is above the largest supported, 400000");
        assert_eq!(
            RandError::InvalidStddev { stddev: -2.5e-9 }.to_string(),
            "standard deviation must be finite and greater than 0, got -2.5e-9"
        );
        assert_eq!(RandError::InvalidMean { mean: f64::NAN }.to_string(), "mean must be finite, got NaN");
    }
}
