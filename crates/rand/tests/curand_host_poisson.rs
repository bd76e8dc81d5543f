//! cuRAND's host-API Poisson (`curandCreatePoissonDistribution`, `curandGeneratePoisson` in the
//! legacy ordering and from Sobol32) against the real cuRAND (`curand_poisson_tables.txt`,
//! `curand_host_poisson.txt`): the reference, and `Generator` on every device.

use crate::common;

use crate::common::{devices, fnv1a, is_gpu, Case};
use ferrocm_kernel::runtime::Device;
use ferrocm_rand::reference::host::{PseudoGenerator, PseudoKind, QuasiGenerator, QuasiKind};
use ferrocm_rand::reference::host_poisson::{self as hp, PoissonTable, QuasiPoisson};
use ferrocm_rand::{Generator, Ordering, RandError, RngType};

const COUNT: usize = 16_384;

fn lambda(c: &Case) -> f64 {
    c.get("lambda").parse().expect("lambda")
}

/// Whether cuRAND's values for this line are a map of the 32-bit stream (reproduced bit for
/// bit) rather than rounded float normals (equal unless a normal straddles a boundary).
fn exact(c: &Case) -> bool {
    c.get("gen") == "sobol32" || lambda(c) < hp::GAUSS_MIN_LAMBDA
}

/// Compares `ours` with the line: when `ours` has all of the line's values, their digest, sum
/// and stored head if exact, otherwise at most `slack` values of the head differ, each by one,
/// and the sum by at most `slack`; when `ours` is only the head, the head alone.
fn check(c: &Case, ours: &[u32], slack: u64, label: &str) {
    let whole = ours.len() == c.u64("count") as usize;
    assert!(whole || ours.len() == c.values.len(), "{label}: {} values", ours.len());
    let head: Vec<u64> = ours[..c.values.len()].iter().map(|&x| x as u64).collect();
    let sum: u64 = ours.iter().map(|&x| x as u64).sum();
    if slack == 0 {
        assert_eq!(head, c.values, "{label}");
        if whole {
            assert_eq!(sum, c.u64("sum"), "{label}");
            assert_eq!(fnv1a(ours.iter().map(|&x| x as u64), 4), c.u64("fnv"), "{label}");
        }
    } else {
        let off: Vec<_> = head.iter().zip(&c.values).enumerate().filter(|(_, (a, b))| a != b).collect();
        assert!(
            off.len() as u64 <= slack && off.iter().all(|(_, (a, b))| a.abs_diff(**b) == 1),
            "{label}: differences {off:?}"
        );
        if whole {
            assert!(sum.abs_diff(c.u64("sum")) <= slack, "{label}: sum {sum} cuRAND {}", c.u64("sum"));
        }
    }
}

/// The output sizes of a line's calls; `head` asks for only the stored head of a one-call
/// line (the CPU executor would take minutes over all lines' 16,384 values).
fn calls(c: &Case, head: bool) -> Vec<usize> {
    match (c.get("call"), head) {
        ("two", _) => vec![1000, 1000],
        (_, true) => vec![c.values.len()],
        (_, false) => vec![COUNT],
    }
}

fn pseudo_kind(gen: &str) -> PseudoKind {
    match gen {
        "philox" => PseudoKind::Philox4x32_10,
        "xorwow" => PseudoKind::Xorwow,
        "mrg" => PseudoKind::Mrg32k3a,
        other => panic!("unknown generator {other}"),
    }
}

fn rng_type(gen: &str) -> RngType {
    match gen {
        "philox" => RngType::Philox4x32_10,
        "xorwow" => RngType::Xorwow,
        "mrg" => RngType::Mrg32k3a,
        "sobol32" => RngType::Sobol32,
        other => panic!("unknown generator {other}"),
    }
}

#[test]
fn poisson_tables_match_curand() {
    let lines = common::parse(common::POISSON_TABLES);
    assert_eq!(lines.len(), 20);
    let mut histograms = 0;
    for c in &lines {
        let lambda = lambda(c);
        let label = c.label();
        if c.keys.contains_key("status") {
            assert_eq!(c.u64("status"), 104, "{label}");
            assert_eq!(
                PoissonTable::new(lambda),
                Err(RandError::LambdaOutOfRange { lambda, max: hp::MAX_LAMBDA })
            );
            continue;
        }
        match (c.get("method"), PoissonTable::new(lambda).unwrap()) {
            ("m2", PoissonTable::SquareHistogram { shift, histogram }) => {
                assert_eq!(shift as u64, c.u64("shift"), "{label}");
                assert_eq!(histogram.len() as u64, c.u64("length"), "{label}");
                let k = histogram.aliases().iter().map(|&k| k as u64);
                let v = histogram.thresholds().iter().map(|v| v.to_bits());
                assert_eq!(
                    k.clone().take(8).chain(v.clone().take(8)).collect::<Vec<_>>(),
                    c.values,
                    "{label}"
                );
                assert_eq!(fnv1a(k, 4), c.u64("k_fnv"), "{label}: K");
                assert_eq!(fnv1a(v, 8), c.u64("v_fnv"), "{label}: V");
                histograms += 1;
            }
            ("gauss", PoissonTable::Gauss { mean, stddev }) => {
                assert_eq!(mean.to_bits(), c.u64("mean"), "{label}");
                assert_eq!(stddev.to_bits(), c.u64("stddev"), "{label}");
            }
            (method, ours) => panic!("{label}: cuRAND {method}, ours {ours:?}"),
        }
    }
    assert_eq!(histograms, 12);
}

/// The reference's `generate_poisson` for one line (fresh generator, the line's calls).
fn reference_values(c: &Case) -> Vec<u32> {
    let mut out = Vec::new();
    if c.get("gen") == "sobol32" {
        let mut g = QuasiGenerator::new(QuasiKind::Sobol32, 1).unwrap();
        g.set_offset(c.u64("offset"));
        for n in calls(c, false) {
            let mut v = vec![0u32; n];
            g.generate_poisson(&mut v, lambda(c)).unwrap();
            out.extend(v);
        }
    } else {
        let mut g = PseudoGenerator::new(pseudo_kind(c.get("gen")));
        g.set_seed(c.u64("seed"));
        g.set_offset(c.u64("offset"));
        for n in calls(c, false) {
            let mut v = vec![0u32; n];
            g.generate_poisson(&mut v, lambda(c)).unwrap();
            out.extend(v);
        }
    }
    out
}

#[test]
fn reference_host_poisson_matches_curand() {
    let lines = common::parse(common::HOST_POISSON);
    assert_eq!(lines.len(), 11 * 14);
    for c in &lines {
        // Rounded float normals: measured at most 2 of 16,384 values off by one.
        let slack = if exact(c) { 0 } else { 4 };
        check(c, &reference_values(c), slack, &c.label());
    }
}

fn device_values(d: &Device, c: &Case) -> Vec<u32> {
    let head = !is_gpu(d);
    let stream = d.create_stream().unwrap();
    let mut g = Generator::new(&stream, rng_type(c.get("gen"))).unwrap();
    g.set_ordering(Ordering::Legacy);
    g.set_seed(c.u64("seed"));
    g.set_offset(c.u64("offset"));
    let mut out = Vec::new();
    for n in calls(c, head) {
        let mut buf = stream.alloc_zeroed::<u32>(n).unwrap();
        g.generate_poisson(&mut buf, lambda(c)).unwrap();
        out.extend(stream.clone_dtoh(&buf).unwrap());
    }
    assert_eq!(g.offset(), c.u64("offset") + out.len() as u64, "{}", c.label());
    out
}

#[test]
fn generator_legacy_poisson_matches_curand() {
    let lines = common::parse(common::HOST_POISSON);
    for d in devices() {
        for c in &lines {
            let label = format!("{} on {}", c.label(), d.properties().name);
            // Sobol32's Gaussian map uses Acklam's unrefined inverse CDF on devices, float
            // normals on GPUs the approximate instructions.
            let sobol_gauss = c.get("gen") == "sobol32"
                && matches!(QuasiPoisson::new(lambda(c)), Ok(QuasiPoisson::Gauss { .. }));
            let slack = match (sobol_gauss, exact(c), is_gpu(&d)) {
                (true, ..) => 2,
                (false, true, _) => 0,
                (false, false, false) => 4,
                (false, false, true) => 8,
            };
            check(c, &device_values(&d, c), slack, &label);
        }
    }
}

/// Offsets that are not multiples of the layouts' groups, and a second lambda on one
/// generator (the cached table is replaced), against the reference.
#[test]
fn generator_legacy_poisson_follows_the_reference_at_odd_offsets() {
    for d in devices() {
        for gen in ["philox", "xorwow", "mrg"] {
            for lambda in [500.0, 4000.0] {
                let stream = d.create_stream().unwrap();
                let mut g = Generator::new(&stream, rng_type(gen)).unwrap();
                g.set_ordering(Ordering::Legacy);
                g.set_seed(77);
                g.set_offset(4097);
                let mut r = PseudoGenerator::new(pseudo_kind(gen));
                r.set_seed(77);
                r.set_offset(4097);
                for n in [333usize, 4101] {
                    let mut buf = stream.alloc_zeroed::<u32>(n).unwrap();
                    g.generate_poisson(&mut buf, lambda).unwrap();
                    let ours = stream.clone_dtoh(&buf).unwrap();
                    let mut want = vec![0u32; n];
                    r.generate_poisson(&mut want, lambda).unwrap();
                    let off = ours.iter().zip(&want).filter(|(a, b)| a != b).count();
                    let slack = if lambda < hp::GAUSS_MIN_LAMBDA {
                        0
                    } else if is_gpu(&d) {
                        4
                    } else {
                        0
                    };
                    assert!(
                        off <= slack,
                        "{gen} lambda {lambda} n {n} on {}: {off} differ",
                        d.properties().name
                    );
                }
            }
        }
    }
}

#[test]
fn host_poisson_rejects_unknown_and_bad_lambdas() {
    for lambda in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(PoissonTable::new(lambda), Err(RandError::InvalidLambda { .. })), "{lambda}");
    }
    // The switch points, bisected on cuRAND to adjacent doubles.
    let below = |x: f64| f64::from_bits(x.to_bits() - 1);
    assert!(matches!(PoissonTable::new(below(2000.0)), Ok(PoissonTable::SquareHistogram { .. })));
    assert!(matches!(PoissonTable::new(2000.0), Ok(PoissonTable::Gauss { .. })));
    assert!(matches!(QuasiPoisson::new(below(10.0)), Ok(QuasiPoisson::SquareHistogram(_))));
    assert!(matches!(QuasiPoisson::new(10.0), Ok(QuasiPoisson::InverseCdf { .. })));
    assert!(matches!(QuasiPoisson::new(8000.0), Ok(QuasiPoisson::InverseCdf { .. })));
    assert!(matches!(QuasiPoisson::new(8000.5), Ok(QuasiPoisson::Gauss { .. })));
    assert!(matches!(QuasiPoisson::new(4e5), Ok(QuasiPoisson::Gauss { .. })));
    let over = f64::from_bits(4e5f64.to_bits() + 1);
    assert_eq!(
        QuasiPoisson::new(over),
        Err(RandError::LambdaOutOfRange { lambda: over, max: hp::MAX_LAMBDA })
    );
    let mut q = QuasiGenerator::new(QuasiKind::Sobol64, 1).unwrap();
    assert!(matches!(q.generate_poisson(&mut [0u32; 4], 4.0), Err(RandError::Unsupported { .. })));
    for d in devices() {
        let stream = d.create_stream().unwrap();
        let mut ints = stream.alloc_zeroed::<u32>(8).unwrap();
        for rng in [RngType::Philox4x32_10, RngType::Xorwow, RngType::Mrg32k3a] {
            let mut g = Generator::new(&stream, rng).unwrap();
            g.set_ordering(Ordering::Legacy);
            assert!(matches!(g.generate_poisson(&mut ints, 1e6), Err(RandError::LambdaOutOfRange { .. })));
            assert!(matches!(g.generate_poisson(&mut ints, -2.0), Err(RandError::InvalidLambda { .. })));
            assert_eq!(g.offset(), 0, "a refused request leaves the offset alone");
        }
        let mut s = Generator::new(&stream, RngType::Sobol64).unwrap();
        assert!(matches!(s.generate_poisson(&mut ints, 4.0), Err(RandError::Unsupported { .. })));
    }
}

/// Sobol32's inverse-CDF Poisson (one lookup-table read per point) against the reference's
/// search over the running sums, on every device: lambdas at each of the table's scales
/// (10 and 500 at the coarsest, 700, 2500 and 8000, 6854.77 at the finest), one and three
/// dimensions, offsets 0 and multiples of 4096 (the warp kernel) and odd, even and large
/// (the per-thread kernel), lengths not a multiple of 4 or of 4096 and calls that continue
/// one another; a second lambda on one generator replaces the staged table.
#[test]
fn sobol32_inverse_cdf_poisson_follows_the_reference_across_table_scales() {
    for d in devices() {
        let stream = d.create_stream().unwrap();
        let gpu = is_gpu(&d);
        let cases: &[(f64, u32, u64, &[usize])] = &[
            (10.0, 1, 0, &[4096 + 12, 333]),
            (500.0, 3, 1, &[3 * 1001]),
            (700.0, 1, 4096, &[8192, 4099]),
            (2500.0, 1, 2, &[4 * 257]),
            (6854.77, 3, 8192, &[3 * 4100, 3 * 5]),
            (8000.0, 1, (1 << 31) - 3, &[1000, 4096 + 4]),
        ];
        for &(lambda, dims, offset, calls) in cases {
            let mut g = Generator::new(&stream, RngType::Sobol32).unwrap();
            g.set_dimensions(dims).unwrap();
            g.set_offset(offset);
            let mut r = QuasiGenerator::new(QuasiKind::Sobol32, dims).unwrap();
            r.set_offset(offset);
            // A table of another scale first, so the lambda's own replaces it.
            let mut warm = stream.alloc_zeroed::<u32>(dims as usize * 4).unwrap();
            g.generate_poisson(&mut warm, 100.0 + lambda / 2.0).unwrap();
            g.set_offset(offset);
            for &n in calls {
                // The GPU runs the calls as given; the CPU executor a quarter (at least one
                // value per dimension), still crossing the kernels' boundaries.
                let n = if gpu { n * 4 } else { n };
                let mut buf = stream.alloc_zeroed::<u32>(n).unwrap();
                g.generate_poisson(&mut buf, lambda).unwrap();
                let ours = stream.clone_dtoh(&buf).unwrap();
                let mut want = vec![0u32; n];
                r.generate_poisson(&mut want, lambda).unwrap();
                let off: Vec<_> =
                    ours.iter().zip(&want).enumerate().filter(|(_, (a, b))| a != b).take(5).collect();
                assert!(
                    off.is_empty(),
                    "lambda {lambda} dims {dims} offset {offset} n {n} on {}: {off:?}",
                    d.properties().name
                );
            }
        }
    }
}
