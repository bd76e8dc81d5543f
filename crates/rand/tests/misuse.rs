//! Misuse of the host API, as data: each case is a request that must fail with a stated error
//! kind and leave the (poisoned) output buffer exactly as it was, on every device. Regression
//! tests named after what broke follow the table.

use crate::common::devices;
use ferrocm_kernel::runtime::{Device, Stream};
use ferrocm_rand::reference::DiscreteDistribution;
use ferrocm_rand::{DiscreteTable, Generator, Ordering, RandError, RngType};
use std::mem::discriminant;

/// Every output buffer starts as this bit pattern, so a stray write shows.
const POISON: u32 = 0xDEAD_BEEF;
const N: usize = 64;

/// What a case does to a fresh generator and its poisoned buffer (of `N` or fewer 32-bit
/// words; 64-bit outputs use the same memory as `N / 2` words).
enum Call {
    U32 { len: usize },
    U64,
    Uniform,
    Normal { len: usize, mean: f32, stddev: f32 },
    LogNormal { stddev: f32 },
    NormalDouble { stddev: f64 },
    Poisson { lambda: f64 },
    Discrete,
    Dimensions(u32),
}

struct Case {
    name: &'static str,
    rng: RngType,
    legacy: bool,
    offset: u64,
    dimensions: u32,
    call: Call,
    want: RandError,
}

fn case(name: &'static str, rng: RngType, call: Call, want: RandError) -> Case {
    Case { name, rng, legacy: false, offset: 0, dimensions: 1, call, want }
}

fn cases() -> Vec<Case> {
    use Call::*;
    use RngType::*;
    let empty = RandError::Empty { what: "output" };
    let stddev = |s: f64| RandError::InvalidStddev { stddev: s };
    let lambda = |l: f64| RandError::InvalidLambda { lambda: l };
    let unsupported = RandError::Unsupported { what: String::new() };
    let overflow = RandError::OffsetOverflow { offset: 0, count: 0 };
    let far = RandError::OffsetTooFar { generator: "", offset: 0, max: 0 };
    let mut v = vec![
        case("empty output", Philox4x32_10, U32 { len: 0 }, empty.clone()),
        case("empty Sobol32 output", Sobol32, U32 { len: 0 }, empty),
        case(
            "odd normal count",
            Xorwow,
            Normal { len: 63, mean: 0.0, stddev: 1.0 },
            RandError::OddLength { what: "", len: 63 },
        ),
        case("zero stddev", Philox4x32_10, Normal { len: N, mean: 0.0, stddev: 0.0 }, stddev(0.0)),
        case("NaN stddev", Mrg32k3a, Normal { len: N, mean: 0.0, stddev: f32::NAN }, stddev(f64::NAN)),
        case(
            "infinite mean",
            Philox4x32_10,
            Normal { len: N, mean: f32::INFINITY, stddev: 1.0 },
            RandError::InvalidMean { mean: 0.0 },
        ),
        case("negative log-normal stddev", Xorwow, LogNormal { stddev: -1.0 }, stddev(-1.0)),
        case("infinite double stddev", Philox4x32_10, NormalDouble { stddev: f64::INFINITY }, stddev(0.0)),
        case(
            "Sobol32 normal with zero stddev",
            Sobol32,
            Normal { len: N, mean: 0.0, stddev: 0.0 },
            stddev(0.0),
        ),
        case("Poisson lambda 0", Philox4x32_10, Poisson { lambda: 0.0 }, lambda(0.0)),
        case("Poisson lambda -1", Xorwow, Poisson { lambda: -1.0 }, lambda(-1.0)),
        case("Poisson lambda NaN", Mrg32k3a, Poisson { lambda: f64::NAN }, lambda(0.0)),
        case(
            "Poisson lambda 1e300",
            Philox4x32_10,
            Poisson { lambda: 1e300 },
            RandError::LambdaOutOfRange { lambda: 0.0, max: 0.0 },
        ),
        case("Sobol32 Poisson lambda -3", Sobol32, Poisson { lambda: -3.0 }, lambda(-3.0)),
        case("64-bit output of Philox", Philox4x32_10, U64, unsupported.clone()),
        case("32-bit output of Sobol64", Sobol64, U32 { len: N }, unsupported.clone()),
        case("Poisson output of Sobol64", Sobol64, Poisson { lambda: 4.0 }, unsupported.clone()),
        case("discrete output of Sobol32", Sobol32, Discrete, unsupported.clone()),
        case("dimensions of Philox", Philox4x32_10, Dimensions(2), unsupported),
        case(
            "0 Sobol dimensions",
            Sobol32,
            Dimensions(0),
            RandError::UnsupportedDimensions { dimensions: 0, max: 0 },
        ),
        case(
            "20,001 Sobol dimensions",
            Sobol64,
            Dimensions(20_001),
            RandError::UnsupportedDimensions { dimensions: 0, max: 0 },
        ),
        Case {
            dimensions: 3,
            ..case(
                "length not a multiple of the dimensions",
                Sobol32,
                Uniform,
                RandError::LengthNotMultipleOfDimensions { len: 0, dimensions: 0 },
            )
        },
        Case {
            legacy: true,
            offset: u64::MAX - 10,
            ..case("legacy XORWOW past 2^64", Xorwow, U32 { len: N }, overflow.clone())
        },
        Case {
            legacy: true,
            offset: u64::MAX - 10,
            ..case(
                "legacy MRG32k3a normals past 2^64",
                Mrg32k3a,
                Normal { len: N, mean: 0.0, stddev: 1.0 },
                overflow.clone(),
            )
        },
        Case {
            legacy: true,
            offset: u64::MAX - 62,
            ..case("legacy Philox past 2^64", Philox4x32_10, Uniform, overflow.clone())
        },
        Case {
            offset: u64::MAX,
            ..case("default Philox past 2^64", Philox4x32_10, U32 { len: 2 }, overflow.clone())
        },
        Case { offset: u64::MAX, ..case("MT19937 past 2^64", Mt19937, U32 { len: 2 }, overflow) },
        // Offsets far ahead would twist every block in between (the last value of 2^64 also
        // wrapped the kernel's end): refused before any work.
        Case { offset: u64::MAX - 1, ..case("MT19937 ending at 2^64", Mt19937, U32 { len: 2 }, far.clone()) },
        Case {
            offset: 5_111_808 * ((1 << 16) + 1),
            ..case("MT19937 offset 2^16 + 1 blocks ahead", Mt19937, U32 { len: N }, far.clone())
        },
        Case {
            offset: 49_152 * (1 << 18) + 1,
            ..case("MTGP32 offset past 2^18 rounds", Mtgp32, U32 { len: N }, far)
        },
        case("MT19937 zero stddev", Mt19937, Normal { len: N, mean: 0.0, stddev: 0.0 }, stddev(0.0)),
        case("MT19937 Poisson lambda -1", Mt19937, Poisson { lambda: -1.0 }, lambda(-1.0)),
        case("64-bit output of MT19937", Mt19937, U64, RandError::Unsupported { what: String::new() }),
    ];
    v.retain(|c| !c.name.is_empty());
    v
}

const POISON64: u64 = 0xDEAD_BEEF_DEAD_BEEF;

fn check(d: &Device, c: &Case) {
    let stream: Stream = d.create_stream().unwrap();
    let mut words = stream.clone_htod(&[POISON; N]).unwrap();
    let mut floats = stream.clone_htod(&[f32::from_bits(POISON); N]).unwrap();
    let mut doubles = stream.clone_htod(&[f64::from_bits(POISON64); N / 2]).unwrap();
    let mut longs = stream.clone_htod(&[POISON64; N / 2]).unwrap();
    let mut g = Generator::new(&stream, c.rng).unwrap();
    if c.legacy {
        g.set_ordering(Ordering::Legacy);
    }
    g.set_offset(c.offset);
    if c.dimensions != 1 {
        g.set_dimensions(c.dimensions).unwrap();
    }
    let label = format!("{} on {}", c.name, d.properties().name);
    let got = match &c.call {
        Call::U32 { len } if *len == N => g.generate_u32(&mut words),
        Call::U32 { len } => g.generate_u32(&mut words.slice_mut(0..*len).unwrap()),
        Call::U64 => g.generate_u64(&mut longs),
        Call::Uniform => g.generate_uniform(&mut floats),
        Call::Normal { len, mean, stddev } if *len == N => g.generate_normal(&mut floats, *mean, *stddev),
        Call::Normal { len, mean, stddev } => {
            g.generate_normal(&mut floats.slice_mut(0..*len).unwrap(), *mean, *stddev)
        }
        Call::LogNormal { stddev } => g.generate_log_normal(&mut floats, 0.0, *stddev),
        Call::NormalDouble { stddev } => g.generate_normal_double(&mut doubles, 0.0, *stddev),
        Call::Poisson { lambda } => g.generate_poisson(&mut words, *lambda),
        Call::Discrete => {
            let table = DiscreteTable::new(&stream, &[1.0, 2.0]).unwrap();
            g.generate_discrete(&mut words, &table)
        }
        Call::Dimensions(n) => g.set_dimensions(*n),
    };
    let err = got.expect_err(&label);
    assert_eq!(discriminant(&err), discriminant(&c.want), "{label}: got {err}");
    assert!(!err.to_string().is_empty() && !err.to_string().ends_with('.'), "{label}: message {err}");
    stream.synchronize().unwrap();
    let written = stream.clone_dtoh(&words).unwrap().iter().any(|&w| w != POISON)
        || stream.clone_dtoh(&floats).unwrap().iter().any(|w| w.to_bits() != POISON)
        || stream.clone_dtoh(&doubles).unwrap().iter().any(|w| w.to_bits() != POISON64)
        || stream.clone_dtoh(&longs).unwrap().iter().any(|&w| w != POISON64);
    assert!(!written, "{label}: an output was written");
}

#[test]
fn misuse_is_refused_and_writes_nothing() {
    let cases = cases();
    assert!(cases.len() >= 20);
    for d in devices() {
        for c in &cases {
            check(&d, c);
        }
    }
}

/// Table construction errors (no output buffer involved).
#[test]
fn discrete_tables_refuse_bad_weights() {
    let stream = devices()[0].create_stream().unwrap();
    for (weights, want) in [
        (vec![], RandError::Empty { what: "weights" }),
        (vec![1.0, -1.0], RandError::InvalidWeight { index: 1, weight: -1.0 }),
        (vec![0.5, f64::NAN], RandError::InvalidWeight { index: 1, weight: f64::NAN }),
        (vec![0.0, 0.0], RandError::AllWeightsZero { len: 2 }),
    ] {
        let Err(err) = DiscreteTable::new(&stream, &weights) else { panic!("{weights:?} accepted") };
        assert_eq!(discriminant(&err), discriminant(&want), "{weights:?}: {err}");
    }
}

/// Regression: weights near f64::MAX overflowed their sum and were reported as "weight 2 is
/// inf" (there is no weight 2); they are a valid, uniform table.
#[test]
fn discrete_weights_near_f64_max_are_a_valid_table() {
    let d = DiscreteDistribution::new(&[1e308, 1e308]).unwrap();
    assert_eq!(d.thresholds(), DiscreteDistribution::new(&[1.0, 1.0]).unwrap().thresholds());
}

/// Regression: all-zero weights were reported as "weight 2 is 0".
#[test]
fn all_zero_weights_say_so() {
    let e = DiscreteDistribution::new(&[0.0, 0.0]).unwrap_err();
    assert_eq!(e.to_string(), "all 2 discrete weights are 0; at least one must be positive");
}

/// Regression: lambda 1e300 was printed with 301 digits.
#[test]
fn huge_lambda_message_is_short() {
    let stream = devices()[0].create_stream().unwrap();
    let mut out = stream.alloc_zeroed::<u32>(4).unwrap();
    let e = Generator::new(&stream, RngType::Philox4x32_10)
        .unwrap()
        .generate_poisson(&mut out, 1e300)
        .unwrap_err();
    assert!(e.to_string().contains("1e300") && e.to_string().len() < 80, "{e}");
}

/// Regression: legacy XORWOW/MRG32k3a at offset 2^64 - 5001 with 64 outputs indexed the output
/// at 5001 (a write past the buffer on a GPU). The call is valid: it ends below 2^64.
#[test]
fn legacy_offset_near_the_end_of_the_range_writes_inside_the_buffer() {
    use ferrocm_rand::reference::host::{PseudoGenerator, PseudoKind};
    for (rng, kind) in [(RngType::Xorwow, PseudoKind::Xorwow), (RngType::Mrg32k3a, PseudoKind::Mrg32k3a)] {
        let offset = u64::MAX - 5000;
        let mut want = vec![0u32; 64];
        let mut r = PseudoGenerator::new(kind);
        r.set_offset(offset);
        r.generate(&mut want).unwrap();
        for d in devices() {
            let stream = d.create_stream().unwrap();
            let mut out = stream.alloc_zeroed::<u32>(64).unwrap();
            let mut g = Generator::new(&stream, rng).unwrap();
            g.set_ordering(Ordering::Legacy);
            g.set_offset(offset);
            g.generate_u32(&mut out).unwrap();
            assert_eq!(stream.clone_dtoh(&out).unwrap(), want, "{rng:?} on {}", d.properties().name);
        }
    }
}

/// Regression: Sobol32 crossing point 2^32 indexed its direction vectors at 32; the point after
/// 2^32 - 1 is point 0, as the reference (and cuRAND's 32-bit state index) has it.
#[test]
fn sobol32_crossing_point_2_pow_32_wraps_to_point_0() {
    use ferrocm_rand::reference::host::{QuasiGenerator, QuasiKind};
    let mut want = vec![0u32; 48];
    let mut r = QuasiGenerator::new(QuasiKind::Sobol32, 2).unwrap();
    r.set_offset((1 << 32) - 13);
    r.generate_u32(&mut want).unwrap();
    assert_eq!(want[13], 0, "point 2^32 is point 0");
    for d in devices() {
        let stream = d.create_stream().unwrap();
        let mut out = stream.alloc_zeroed::<u32>(48).unwrap();
        let mut g = Generator::new(&stream, RngType::Sobol32).unwrap();
        g.set_dimensions(2).unwrap();
        g.set_offset((1 << 32) - 13);
        g.generate_u32(&mut out).unwrap();
        assert_eq!(stream.clone_dtoh(&out).unwrap(), want, "on {}", d.properties().name);
    }
}
