//! Bad input is reported as `RandError`, never a panic.

use ferrocm_rand::reference::host::{PseudoGenerator, PseudoKind, QuasiGenerator, QuasiKind};
use ferrocm_rand::reference::{DiscreteDistribution, LogNormal, Normal, Poisson, Sobol32, Sobol64};
use ferrocm_rand::RandError;

fn check<T: std::fmt::Debug>(got: Result<T, RandError>, want: RandError) {
    assert_eq!(got.unwrap_err(), want);
}

#[test]
fn quasi_dimension_counts_outside_1_to_20000() {
    let max = 20_000;
    check(
        QuasiGenerator::new(QuasiKind::Sobol32, 0),
        RandError::UnsupportedDimensions { dimensions: 0, max },
    );
    check(
        QuasiGenerator::new(QuasiKind::Sobol64, 20_001),
        RandError::UnsupportedDimensions { dimensions: 20_001, max },
    );
    check(Sobol32::new(20_000, 0), RandError::UnsupportedDimensions { dimensions: 20_001, max });
    check(Sobol64::new(u32::MAX - 1, 0), RandError::UnsupportedDimensions { dimensions: u32::MAX, max });
    check(Sobol64::new(u32::MAX, 0), RandError::UnsupportedDimensions { dimensions: u32::MAX, max });
    assert!(QuasiGenerator::new(QuasiKind::Sobol32, 20_000).is_ok());
}

#[test]
fn quasi_lengths() {
    let mut g = QuasiGenerator::new(QuasiKind::Sobol32, 3).unwrap();
    check(g.generate(&mut []), RandError::Empty { what: "output" });
    check(
        g.generate_uniform(&mut [0.0; 4]),
        RandError::LengthNotMultipleOfDimensions { len: 4, dimensions: 3 },
    );
    check(g.generate_normal(&mut [0.0; 3], 0.0, 0.0), RandError::InvalidStddev { stddev: 0.0 });
}

#[test]
fn pseudo_normal_needs_nonempty_even_lengths_and_positive_stddev() {
    let mut g = PseudoGenerator::new(PseudoKind::Philox4x32_10);
    check(
        g.generate_normal(&mut [0.0; 5], 0.0, 1.0),
        RandError::OddLength { what: "generate_normal", len: 5 },
    );
    check(
        g.generate_normal_double(&mut [0.0; 1], 0.0, 1.0),
        RandError::OddLength { what: "generate_normal_double", len: 1 },
    );
    check(
        g.generate_log_normal(&mut [0.0; 3], 0.0, 1.0),
        RandError::OddLength { what: "generate_log_normal", len: 3 },
    );
    check(g.generate_normal(&mut [], 0.0, 1.0), RandError::Empty { what: "output" });
    check(g.generate(&mut []), RandError::Empty { what: "output" });
    check(g.generate_normal(&mut [0.0; 2], 0.0, -1.0), RandError::InvalidStddev { stddev: -1.0 });
    check(
        g.generate_normal_double(&mut [0.0; 2], f64::INFINITY, 1.0),
        RandError::InvalidMean { mean: f64::INFINITY },
    );
}

#[test]
fn invalid_distribution_parameters() {
    for lambda in [0.0, -1.0, f64::INFINITY, f64::NEG_INFINITY] {
        check(Poisson::new(lambda), RandError::InvalidLambda { lambda });
    }
    assert!(matches!(Poisson::new(f64::NAN), Err(RandError::InvalidLambda { lambda }) if lambda.is_nan()));
    check(Normal::new(0.0, 0.0), RandError::InvalidStddev { stddev: 0.0 });
    check(LogNormal::new(1.0, -2.0), RandError::InvalidStddev { stddev: -2.0 });
    assert!(matches!(LogNormal::new(0.0, f64::NAN), Err(RandError::InvalidStddev { .. })));
}

#[test]
fn invalid_discrete_tables() {
    check(DiscreteDistribution::new(&[]), RandError::Empty { what: "weights" });
    check(DiscreteDistribution::new(&[1.0, -1.0]), RandError::InvalidWeight { index: 1, weight: -1.0 });
    check(DiscreteDistribution::new(&[0.0, 0.0]), RandError::AllWeightsZero { len: 2 });
    check(
        DiscreteDistribution::new(&[1.0, f64::INFINITY]),
        RandError::InvalidWeight { index: 1, weight: f64::INFINITY },
    );
}

#[test]
fn messages_say_what_was_asked_and_the_limit() {
    let e = QuasiGenerator::new(QuasiKind::Sobol32, 20_001).unwrap_err();
    assert_eq!(e.to_string(), "Sobol dimension count must be between 1 and 20000, got 20001");
    let e = PseudoGenerator::new(PseudoKind::Xorwow).generate_normal(&mut [0.0; 3], 0.0, 1.0).unwrap_err();
    assert_eq!(e.to_string(), "generate_normal needs an even number of outputs, got 3");
}
