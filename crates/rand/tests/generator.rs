//! The host API (`Generator`) on every device: legacy ordering against the real cuRAND and the
//! reference, default ordering against its documented layout, Sobol32, errors.

use crate::common;

use crate::common::{assert_close, devices, is_gpu};
use ferrocm_kernel::runtime::{Device, DeviceBuffer, DeviceRepr};
use ferrocm_rand::reference::host::{PseudoGenerator, PseudoKind, QuasiGenerator, QuasiKind};
use ferrocm_rand::reference::{self as r, CurandDevice};
use ferrocm_rand::{DiscreteTable, Generator, Ordering, RandError, RngType};

/// Float normals on a GPU use `sin/cos/lg2.approx`, so they get a wider tolerance than on the
/// CPU executor; f64 normals use f64 polynomials everywhere (worst seen on an H200: 3.3e-16).
fn normal_tol(d: &Device, double: bool) -> f64 {
    match (is_gpu(d), double) {
        (false, false) => 4e-6,
        (true, false) => 2e-5,
        (_, true) => 2e-15,
    }
}

fn run<T: DeviceRepr + Default + Clone>(
    d: &Device,
    rng: RngType,
    setup: impl Fn(&mut Generator),
    n: usize,
    f: impl Fn(&mut Generator, &mut DeviceBuffer<T>) -> Result<(), RandError>,
) -> Vec<T> {
    let stream = d.create_stream().unwrap();
    let mut g = Generator::new(&stream, rng).unwrap();
    setup(&mut g);
    let mut buf = stream.alloc_zeroed::<T>(n).unwrap();
    f(&mut g, &mut buf).unwrap();
    stream.clone_dtoh(&buf).unwrap()
}

fn rng_of(gen: &str) -> (RngType, PseudoKind) {
    match gen {
        "philox" => (RngType::Philox4x32_10, PseudoKind::Philox4x32_10),
        "xorwow" => (RngType::Xorwow, PseudoKind::Xorwow),
        _ => (RngType::Mrg32k3a, PseudoKind::Mrg32k3a),
    }
}

fn bits32(v: &[f32]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits() as u64).collect()
}
fn f64s(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

#[test]
fn legacy_ordering_matches_curand_host_vectors() {
    for d in devices() {
        for c in common::parse(common::HOST) {
            let (rng, _) = rng_of(c.get("gen"));
            let (seed, offset) = (c.u64("seed"), c.u64("offset"));
            let setup = |g: &mut Generator| {
                g.set_ordering(Ordering::Legacy);
                g.set_seed(seed);
                g.set_offset(offset);
            };
            let n = c.values.len();
            let label = format!("{} on {}", c.label(), d.properties().name);
            let theirs32 = || c.values.iter().map(|&b| f32::from_bits(b as u32) as f64).collect::<Vec<_>>();
            let theirs64 = || c.values.iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>();
            match c.get("func") {
                "generate" => {
                    let o = run(&d, rng, setup, n, |g, b| g.generate_u32(b));
                    assert_eq!(o.iter().map(|&x| x as u64).collect::<Vec<_>>(), c.values, "{label}");
                }
                "generate_uniform" => {
                    let o = run(&d, rng, setup, n, |g, b| g.generate_uniform(b));
                    assert_eq!(bits32(&o), c.values, "{label}");
                }
                "generate_uniform_double" => {
                    let o = run(&d, rng, setup, n, |g, b| g.generate_uniform_double(b));
                    assert_eq!(o.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), c.values, "{label}");
                }
                "generate_normal" => {
                    let o = run(&d, rng, setup, n, |g, b| g.generate_normal(b, 0.0, 1.0));
                    assert_close(&label, &f64s(&o), &theirs32(), normal_tol(&d, false));
                }
                "generate_normal_double" => {
                    let o = run(&d, rng, setup, n, |g, b| g.generate_normal_double(b, 0.0, 1.0));
                    assert_close(&label, &o, &theirs64(), normal_tol(&d, true));
                }
                "generate_log_normal" => {
                    let o = run(&d, rng, setup, n, |g, b| g.generate_log_normal(b, 0.5, 0.75));
                    assert_close(&label, &f64s(&o), &theirs32(), 4.0 * normal_tol(&d, false));
                }
                "generate_poisson_4" => {
                    let o = run(&d, rng, setup, n, |g, b| g.generate_poisson(b, 4.0));
                    assert_eq!(o.iter().map(|&x| x as u64).collect::<Vec<_>>(), c.values, "{label}");
                }
                _ => {}
            }
        }
    }
}

/// Longer legacy streams than the cuRAND vectors, against the reference host layouts (a
/// quarter of Philox's 65,536 subsequences and into their doubles, with an offset; the
/// boundaries themselves are crossed in `generator_layouts.rs`).
#[test]
fn legacy_philox_matches_reference_past_one_round_of_states() {
    let n = 4 * 16_384 + 36;
    let mut reference = PseudoGenerator::new(PseudoKind::Philox4x32_10);
    reference.set_seed(77);
    reference.set_offset(8);
    let mut want = vec![0u32; n];
    reference.generate(&mut want).unwrap();
    let mut want_u = vec![0f64; 2 * 16_384 + 10];
    reference.set_offset(4);
    reference.generate_uniform_double(&mut want_u).unwrap();
    for d in devices() {
        let setup = |g: &mut Generator| {
            g.set_ordering(Ordering::Legacy);
            g.set_seed(77);
            g.set_offset(8);
        };
        assert_eq!(run(&d, RngType::Philox4x32_10, setup, n, |g, b| g.generate_u32(b)), want);
        let setup = |g: &mut Generator| {
            g.set_ordering(Ordering::Legacy);
            g.set_seed(77);
            g.set_offset(4);
        };
        let o = run(&d, RngType::Philox4x32_10, setup, want_u.len(), |g, b| g.generate_uniform_double(b));
        assert_eq!(
            o.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            want_u.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
    }
}

/// XORWOW legacy past its 4,096 states (draws 0 to 2 of each), against the reference.
#[test]
fn legacy_xorwow_and_mrg_match_reference_with_offset() {
    for (rng, kind, n) in
        [(RngType::Xorwow, PseudoKind::Xorwow, 2 * 4096 + 50), (RngType::Mrg32k3a, PseudoKind::Mrg32k3a, 300)]
    {
        let mut reference = PseudoGenerator::new(kind);
        reference.set_seed(5);
        reference.set_offset(4000);
        let mut want = vec![0u32; n];
        reference.generate(&mut want).unwrap();
        for d in devices() {
            let setup = |g: &mut Generator| {
                g.set_ordering(Ordering::Legacy);
                g.set_seed(5);
                g.set_offset(4000);
            };
            assert_eq!(run(&d, rng, setup, n, |g, b| g.generate_u32(b)), want, "{rng:?}");
        }
    }
}

/// Default Philox: value `4k + w` is word `w` of block `k`; the offset counts values, so an
/// unaligned offset and a split request give the same stream.
#[test]
fn default_philox_is_the_documented_counter_stream() {
    let seed = 0x1234_5678_9abc_def0u64;
    let key = [seed as u32, (seed >> 32) as u32];
    let stream_at = |g: u64| {
        r::philox::philox4x32_10([(g / 4) as u32, ((g / 4) >> 32) as u32, 0, 0], key)[(g % 4) as usize]
    };
    for d in devices() {
        let n = 1003;
        let o = run(
            &d,
            RngType::Philox4x32_10,
            |g| {
                g.set_seed(seed);
                g.set_offset(6);
            },
            n,
            |g, b| g.generate_u32(b),
        );
        let want: Vec<u32> = (0..n as u64).map(|j| stream_at(6 + j)).collect();
        assert_eq!(o, want, "{}", d.properties().name);
        // Aligned start with a partial last block (16-byte stores, then the tail).
        let o = run(&d, RngType::Philox4x32_10, |g| g.set_seed(seed), 1001, |g, b| g.generate_u32(b));
        assert_eq!(o, (0..1001).map(stream_at).collect::<Vec<_>>(), "aligned, with a tail");
        // Two calls continue the stream.
        let stream = d.create_stream().unwrap();
        let mut g = Generator::new(&stream, RngType::Philox4x32_10).unwrap();
        g.set_seed(seed);
        let mut a = stream.alloc_zeroed::<u32>(7).unwrap();
        let mut b = stream.alloc_zeroed::<u32>(996).unwrap();
        g.generate_u32(&mut a).unwrap();
        g.generate_u32(&mut b).unwrap();
        let mut joined = stream.clone_dtoh(&a).unwrap();
        joined.extend(stream.clone_dtoh(&b).unwrap());
        assert_eq!(joined, (0..n as u64).map(stream_at).collect::<Vec<_>>());
        // Uniform floats and normals follow the same words.
        let u = run(&d, RngType::Philox4x32_10, |g| g.set_seed(seed), 64, |g, b| g.generate_uniform(b));
        assert_eq!(
            bits32(&u),
            (0..64).map(|j| r::distributions::uniform_f32(stream_at(j)).to_bits() as u64).collect::<Vec<_>>()
        );
        let z =
            run(&d, RngType::Philox4x32_10, |g| g.set_seed(seed), 64, |g, b| g.generate_normal(b, 1.5, 2.0));
        let want: Vec<f64> = (0..32u64)
            .flat_map(|p| r::distributions::box_muller(stream_at(2 * p), stream_at(2 * p + 1)))
            .map(|x| 2.0f32.mul_add(x, 1.5) as f64)
            .collect();
        assert_close("philox default normal", &f64s(&z), &want, 2.0 * normal_tol(&d, false));
    }
}

/// Default XORWOW / MRG32k3a: state `t = curand_init(seed, t, offset)` draws the units
/// `t, t + S, ...` of each call and keeps its position for the next call.
#[test]
fn default_stateful_generators_follow_their_states() {
    let (seed, offset) = (99u64, 3u64);
    for d in devices() {
        for rng in [RngType::Xorwow, RngType::Mrg32k3a] {
            let stream = d.create_stream().unwrap();
            let mut g = Generator::new(&stream, rng).unwrap();
            g.set_seed(seed);
            g.set_offset(offset);
            let mut a = stream.alloc_zeroed::<u32>(40).unwrap();
            let mut b = stream.alloc_zeroed::<f32>(24).unwrap();
            g.generate_u32(&mut a).unwrap();
            g.generate_uniform(&mut b).unwrap();
            let (a, b) = (stream.clone_dtoh(&a).unwrap(), stream.clone_dtoh(&b).unwrap());
            let mut states: Vec<Box<dyn CurandDevice>> = (0..10u64)
                .map(|t| -> Box<dyn CurandDevice> {
                    match rng {
                        RngType::Xorwow => Box::new(r::Xorwow::new(seed, t, offset)),
                        _ => Box::new(r::Mrg32k3a::new(seed, t, offset)),
                    }
                })
                .collect();
            let want_a: Vec<u32> =
                (0..10).flat_map(|t| (0..4).map(|_| states[t].next_u32()).collect::<Vec<_>>()).collect();
            let want_b: Vec<u64> = (0..6)
                .flat_map(|t| (0..4).map(|_| states[t].uniform().to_bits() as u64).collect::<Vec<_>>())
                .collect();
            assert_eq!(a, want_a, "{rng:?} on {}", d.properties().name);
            assert_eq!(bits32(&b), want_b, "{rng:?} second call on {}", d.properties().name);
        }
    }
}

#[test]
fn sobol32_matches_reference_dimension_major() {
    let (dims, points, offset) = (5u32, 37usize, 11u64);
    let mut q = QuasiGenerator::new(QuasiKind::Sobol32, dims).unwrap();
    q.set_offset(offset);
    let mut want = vec![0u32; dims as usize * points];
    q.generate_u32(&mut want).unwrap();
    let mut want_u = vec![0f32; dims as usize * 40];
    q.set_offset(0);
    q.generate_uniform(&mut want_u).unwrap();
    for d in devices() {
        let setup = |g: &mut Generator| {
            g.set_dimensions(dims).unwrap();
            g.set_offset(offset);
        };
        assert_eq!(run(&d, RngType::Sobol32, setup, want.len(), |g, b| g.generate_u32(b)), want);
        let setup = |g: &mut Generator| g.set_dimensions(dims).unwrap();
        let u = run(&d, RngType::Sobol32, setup, want_u.len(), |g, b| g.generate_uniform(b));
        assert_eq!(bits32(&u), bits32(&want_u));
    }
}

/// Calls long enough for the warp-coalesced Sobol32 kernel (first index a multiple of 4096,
/// several warp tasks per dimension, a partial last task) match the reference, at offset 0
/// and 4096, for integers and uniforms.
#[test]
fn sobol32_warp_kernel_matches_reference() {
    let (dims, points) = (3u32, 2 * 4096 + 132usize);
    for offset in [0u64, 4096] {
        let mut q = QuasiGenerator::new(QuasiKind::Sobol32, dims).unwrap();
        q.set_offset(offset);
        let mut want = vec![0u32; dims as usize * points];
        q.generate_u32(&mut want).unwrap();
        let want_u: Vec<u64> =
            want.iter().map(|&x| r::distributions::uniform_f32(x).to_bits() as u64).collect();
        for d in devices() {
            let setup = |g: &mut Generator| {
                g.set_dimensions(dims).unwrap();
                g.set_offset(offset);
            };
            let got = run(&d, RngType::Sobol32, setup, want.len(), |g, b| g.generate_u32(b));
            let first = got.iter().zip(&want).position(|(a, b)| a != b);
            assert_eq!(first, None, "offset {offset} on {}: first differing element", d.properties().name);
            let u = run(&d, RngType::Sobol32, setup, want.len(), |g, b| g.generate_uniform(b));
            let first = bits32(&u).iter().zip(&want_u).position(|(a, b)| a != b);
            assert_eq!(
                first,
                None,
                "uniform, offset {offset} on {}: first differing element",
                d.properties().name
            );
        }
    }
}

/// cuRAND's Sobol32 host vectors (one line per dimension); with 20,000 dimensions only the
/// first 8 points of each listed dimension are generated, to keep the CPU run short.
/// Sobol32 normals by the inverse CDF against the reference's refined double-precision one:
/// floats by the f32 polynomial (1e-5 relative to max(1, |x|) on the CPU executor, 3e-5 on
/// GPUs, whose `ln` is approximate), doubles by Acklam's formula in f64 (2e-9 everywhere).
#[test]
fn sobol32_normals_follow_the_reference_inverse_cdf() {
    let (dims, points) = (3u32, 301usize);
    let mut q = QuasiGenerator::new(QuasiKind::Sobol32, dims).unwrap();
    let mut want = vec![0f32; dims as usize * points];
    q.generate_normal(&mut want, 0.5, 1.5).unwrap();
    let mut want64 = vec![0f64; dims as usize * points];
    q.set_offset(0);
    q.generate_normal_double(&mut want64, -1.0, 0.25).unwrap();
    for d in devices() {
        let got64 = run(
            &d,
            RngType::Sobol32,
            |g| g.set_dimensions(dims).unwrap(),
            want64.len(),
            |g, b| g.generate_normal_double(b, -1.0, 0.25),
        );
        assert_close(&format!("sobol32 double normal on {}", d.properties().name), &got64, &want64, 2e-9);
        let got = run(
            &d,
            RngType::Sobol32,
            |g| g.set_dimensions(dims).unwrap(),
            want.len(),
            |g, b| g.generate_normal(b, 0.5, 1.5),
        );
        let tol = if is_gpu(&d) { 3e-5 } else { 1e-5 };
        assert_close(&format!("sobol32 normal on {}", d.properties().name), &f64s(&got), &f64s(&want), tol);
    }
}

#[test]
fn sobol32_matches_curand_quasi_vectors() {
    let cases: Vec<_> = common::parse(common::HOST_QUASI)
        .into_iter()
        .filter(|c| c.get("gen") == "sobol32" && matches!(c.get("func"), "generate" | "generate_uniform"))
        .collect();
    assert!(!cases.is_empty(), "no Sobol32 vectors");
    for d in devices() {
        let mut cache: std::collections::HashMap<(u32, u64, String), (usize, Vec<u64>)> = Default::default();
        for c in &cases {
            let dims: u32 = c.get("dims").parse().unwrap();
            let (offset, dim) = (c.u64("offset"), c.u64("dim") as usize);
            let key = (dims, offset, c.get("func").to_string());
            let (points, got) = cache.entry(key).or_insert_with(|| {
                let points = if dims > 100 { 8 } else { c.values.len() };
                let setup = |g: &mut Generator| {
                    g.set_dimensions(dims).unwrap();
                    g.set_offset(offset);
                };
                let n = points * dims as usize;
                let got = if c.get("func") == "generate" {
                    run(&d, RngType::Sobol32, setup, n, |g, b| g.generate_u32(b))
                        .iter()
                        .map(|&x| x as u64)
                        .collect()
                } else {
                    bits32(&run(&d, RngType::Sobol32, setup, n, |g, b| g.generate_uniform(b)))
                };
                (points, got)
            });
            let p = (*points).min(c.values.len());
            assert_eq!(
                &got[dim * *points..dim * *points + p],
                &c.values[..p],
                "{} on {}",
                c.label(),
                d.properties().name
            );
        }
    }
}

/// Default-ordering Poisson outputs are cuRAND's host-API methods on this ordering's own
/// streams: below lambda 2000 the square histogram (checked against the reference's table,
/// itself checked against cuRAND's in `curand_host_poisson.rs`) of the `generate_u32` stream,
/// from 2000 the rounded `generate_normal` stream (same seed and offset); discrete values
/// map the `generate_u32` stream.
#[test]
fn poisson_and_discrete_outputs_follow_the_reference() {
    use ferrocm_rand::reference::host_poisson::{gauss, PoissonTable};
    let seed = 31u64;
    let weights = [0.5, 0.0, 2.0, 1.25, 0.25];
    let table = r::DiscreteDistribution::new(&weights).unwrap();
    for d in devices() {
        for lambda in [0.25f64, 3.5, 100.0, 1999.0, 2000.0, 5000.0, 4e5] {
            for rng in [RngType::Philox4x32_10, RngType::Xorwow, RngType::Mrg32k3a] {
                let n = 203;
                let setup = |g: &mut Generator| {
                    g.set_seed(seed);
                    g.set_offset(if rng == RngType::Philox4x32_10 { 6 } else { 0 });
                };
                let got = run(&d, rng, setup, n, |g, b| g.generate_poisson(b, lambda));
                let want: Vec<u32> = match PoissonTable::new(lambda).unwrap() {
                    t @ PoissonTable::SquareHistogram { .. } => {
                        let bits = run(&d, rng, setup, n, |g, b| g.generate_u32(b));
                        bits.iter().map(|&x| t.sample_bits(x)).collect()
                    }
                    PoissonTable::Gauss { mean, stddev } => {
                        let z = run(&d, rng, setup, n + 1, |g, b| g.generate_normal(b, 0.0, 1.0));
                        z[..n].iter().map(|&z| gauss(mean, stddev, z as f64)).collect()
                    }
                };
                assert_eq!(got, want, "{rng:?} poisson {lambda} on {}", d.properties().name);
            }
        }
        let stream = d.create_stream().unwrap();
        let dt = DiscreteTable::new(&stream, &weights).unwrap();
        assert_eq!(dt.len(), weights.len());
        for rng in [RngType::Philox4x32_10, RngType::Mrg32k3a] {
            let bits = run(&d, rng, |g| g.set_seed(seed), 203, |g, b| g.generate_u32(b));
            let got = run(&d, rng, |g| g.set_seed(seed), 203, |g, b| g.generate_discrete(b, &dt));
            let want: Vec<u32> = bits.iter().map(|&x| table.sample_bits(x)).collect();
            assert_eq!(got, want, "{rng:?} discrete on {}", d.properties().name);
        }
    }
}

#[test]
fn bad_requests_are_errors() {
    let d = Device::all().unwrap().into_iter().next().unwrap();
    let stream = d.create_stream().unwrap();
    let mut g = Generator::new(&stream, RngType::Philox4x32_10).unwrap();
    let mut odd = stream.alloc_zeroed::<f32>(7).unwrap();
    assert!(matches!(g.generate_normal(&mut odd, 0.0, 1.0), Err(RandError::OddLength { len: 7, .. })));
    let mut even = stream.alloc_zeroed::<f32>(8).unwrap();
    assert!(matches!(g.generate_normal(&mut even, 0.0, 0.0), Err(RandError::InvalidStddev { .. })));
    assert!(matches!(g.generate_log_normal(&mut even, f32::NAN, 1.0), Err(RandError::InvalidMean { .. })));
    assert!(matches!(g.set_dimensions(3), Err(RandError::Unsupported { .. })));
    let mut s = Generator::new(&stream, RngType::Sobol32).unwrap();
    assert!(matches!(s.set_dimensions(0), Err(RandError::UnsupportedDimensions { dimensions: 0, .. })));
    assert!(matches!(s.set_dimensions(20_001), Err(RandError::UnsupportedDimensions { .. })));
    s.set_dimensions(3).unwrap();
    assert!(matches!(
        s.generate_uniform(&mut even),
        Err(RandError::LengthNotMultipleOfDimensions { len: 8, dimensions: 3 })
    ));
    let mut even64 = stream.alloc_zeroed::<f64>(6).unwrap();
    assert!(matches!(s.generate_normal_double(&mut even64, 0.0, -1.0), Err(RandError::InvalidStddev { .. })));
    let mut ints = stream.alloc_zeroed::<u32>(8).unwrap();
    assert!(matches!(g.generate_poisson(&mut ints, 0.0), Err(RandError::InvalidLambda { .. })));
    assert!(matches!(g.generate_poisson(&mut ints, f64::NAN), Err(RandError::InvalidLambda { .. })));
    assert!(matches!(g.generate_poisson(&mut ints, -1.0), Err(RandError::InvalidLambda { .. })));
    assert!(matches!(g.generate_poisson(&mut ints, f64::INFINITY), Err(RandError::InvalidLambda { .. })));
    g.generate_poisson(&mut ints, 100.0).unwrap();
    // Above cuRAND's largest lambda (see tests/curand_host_poisson.rs).
    let mut legacy = Generator::new(&stream, RngType::Xorwow).unwrap();
    legacy.set_ordering(Ordering::Legacy);
    assert!(matches!(legacy.generate_poisson(&mut ints, 5e5), Err(RandError::LambdaOutOfRange { .. })));
    assert!(matches!(DiscreteTable::new(&stream, &[]), Err(RandError::Empty { .. })));
    assert!(matches!(
        DiscreteTable::new(&stream, &[1.0, -1.0]),
        Err(RandError::InvalidWeight { index: 1, .. })
    ));
    assert!(matches!(DiscreteTable::new(&stream, &[0.0, 0.0]), Err(RandError::AllWeightsZero { len: 2 })));
    // A zero-length view.
    let mut e = stream.alloc_zeroed::<u32>(4).unwrap();
    let mut empty = e.slice_mut(0..0).unwrap();
    assert!(matches!(g.generate_u32(&mut empty), Err(RandError::Empty { .. })));
}
