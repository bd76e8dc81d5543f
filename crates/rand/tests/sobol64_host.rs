//! Sobol64 through the host API (`RngType::Sobol64`) on every device, against the reference
//! and the real cuRAND host-API vectors.

use crate::common;

use crate::common::{devices, Case};
use ferrocm_kernel::runtime::{Device, DeviceBuffer, DeviceRepr};
use ferrocm_rand::reference::host::{QuasiGenerator, QuasiKind};
use ferrocm_rand::{Generator, RandError, RngType};

/// Acklam's unrefined inverse CDF (relative error about 1.2e-9) against the reference's
/// refined one, relative to max(1, |x|) (worst seen 1.3e-9, CPU executor and H200 alike).
const ICDF_TOL: f64 = 1e-8;

/// Float normals (the f32 inverse CDF; GPUs' fast `ln`), as Sobol32's.
fn icdf_f32_tol(d: &Device) -> f64 {
    if common::is_gpu(d) {
        3e-5
    } else {
        1e-5
    }
}

fn widen(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

fn run<T: DeviceRepr + Default + Clone>(
    d: &Device,
    dims: u32,
    offset: u64,
    n: usize,
    f: impl Fn(&mut Generator, &mut DeviceBuffer<T>) -> Result<(), RandError>,
) -> Vec<T> {
    let stream = d.create_stream().unwrap();
    let mut g = Generator::new(&stream, RngType::Sobol64).unwrap();
    g.set_dimensions(dims).unwrap();
    g.set_offset(offset);
    let mut buf = stream.alloc_zeroed::<T>(n).unwrap();
    f(&mut g, &mut buf).unwrap();
    stream.clone_dtoh(&buf).unwrap()
}

fn reference(dims: u32, offset: u64) -> QuasiGenerator {
    let mut g = QuasiGenerator::new(QuasiKind::Sobol64, dims).unwrap();
    g.set_offset(offset);
    g
}

#[test]
fn sobol64_host_outputs_match_the_reference() {
    for d in devices() {
        let name = d.properties().name.clone();
        // Odd point counts and offsets exercise partial chunks and the Gray-code start.
        for (dims, offset, points) in
            [(1u32, 0u64, 37usize), (3, 5, 50), (7, 1000, 33), (2, (1 << 40) + 3, 20)]
        {
            let n = dims as usize * points;
            let got = run::<u64>(&d, dims, offset, n, |g, b| g.generate_u64(b));
            let mut want = vec![0u64; n];
            reference(dims, offset).generate(&mut want).unwrap();
            assert_eq!(got, want, "raw dims {dims} offset {offset} on {name}");
            let got = run::<f64>(&d, dims, offset, n, |g, b| g.generate_uniform_double(b));
            let mut want = vec![0f64; n];
            reference(dims, offset).generate_uniform_double(&mut want).unwrap();
            assert_eq!(got, want, "uniform dims {dims} offset {offset} on {name}");
            let got = run::<f64>(&d, dims, offset, n, |g, b| g.generate_normal_double(b, 1.5, 2.0));
            let mut want = vec![0f64; n];
            reference(dims, offset).generate_normal_double(&mut want, 1.5, 2.0).unwrap();
            common::assert_close(
                &format!("normal dims {dims} offset {offset} on {name}"),
                &got,
                &want,
                ICDF_TOL,
            );
            let got = run::<f32>(&d, dims, offset, n, |g, b| g.generate_uniform(b));
            let mut want = vec![0f32; n];
            reference(dims, offset).generate_uniform(&mut want).unwrap();
            assert_eq!(got, want, "float uniform dims {dims} offset {offset} on {name}");
            let got = run::<f32>(&d, dims, offset, n, |g, b| g.generate_normal(b, -0.5, 3.0));
            let mut want = vec![0f32; n];
            reference(dims, offset).generate_normal(&mut want, -0.5, 3.0).unwrap();
            common::assert_close(
                &format!("float normal dims {dims} offset {offset} on {name}"),
                &widen(&got),
                &widen(&want),
                icdf_f32_tol(&d),
            );
        }
        // Two calls continue the sequence.
        let stream = d.create_stream().unwrap();
        let mut g = Generator::new(&stream, RngType::Sobol64).unwrap();
        let mut a = stream.alloc_zeroed::<u64>(10).unwrap();
        g.generate_u64(&mut a).unwrap();
        g.generate_u64(&mut a).unwrap();
        let mut want = vec![0u64; 20];
        reference(1, 0).generate(&mut want).unwrap();
        assert_eq!(stream.clone_dtoh(&a).unwrap(), want[10..].to_vec(), "second call on {name}");
    }
}

#[test]
fn sobol64_host_outputs_match_curand_vectors() {
    let mut checked = 0;
    for d in devices() {
        let cases: Vec<Case> =
            common::parse(common::HOST_QUASI).into_iter().filter(|c| c.get("gen") == "sobol64").collect();
        for c in cases {
            let (dims, offset, dim) = (c.u64("dims") as u32, c.u64("offset"), c.u64("dim") as usize);
            // The 20,000-dimension lines are covered by the reference's own test.
            if dims > 16 {
                continue;
            }
            let n = c.values.len();
            let total = dims as usize * n;
            let label = format!("{} on {}", c.label(), d.properties().name);
            match c.get("func") {
                "generate" => {
                    let got = run::<u64>(&d, dims, offset, total, |g, b| g.generate_u64(b));
                    assert_eq!(got[dim * n..(dim + 1) * n], c.values[..], "{label}");
                }
                "generate_uniform_double" => {
                    let got = run::<f64>(&d, dims, offset, total, |g, b| g.generate_uniform_double(b));
                    let bits: Vec<u64> = got[dim * n..(dim + 1) * n].iter().map(|x| x.to_bits()).collect();
                    assert_eq!(bits, c.values, "{label}");
                }
                "generate_normal_double" => {
                    let got =
                        run::<f64>(&d, dims, offset, total, |g, b| g.generate_normal_double(b, 0.0, 1.0));
                    let want: Vec<f64> = c.values.iter().map(|&b| f64::from_bits(b)).collect();
                    common::assert_close(&label, &got[dim * n..(dim + 1) * n], &want, ICDF_TOL);
                }
                "generate_uniform" => {
                    let got = run::<f32>(&d, dims, offset, total, |g, b| g.generate_uniform(b));
                    let bits: Vec<u64> =
                        got[dim * n..(dim + 1) * n].iter().map(|x| x.to_bits() as u64).collect();
                    assert_eq!(bits, c.values, "{label}");
                }
                _ => continue,
            }
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} cuRAND Sobol64 lines checked");
}

#[test]
fn sobol64_host_errors() {
    let d = Device::all().unwrap().into_iter().next().unwrap();
    let stream = d.create_stream().unwrap();
    let mut g = Generator::new(&stream, RngType::Sobol64).unwrap();
    assert!(matches!(g.set_dimensions(0), Err(RandError::UnsupportedDimensions { .. })));
    assert!(matches!(g.set_dimensions(20_001), Err(RandError::UnsupportedDimensions { .. })));
    g.set_dimensions(3).unwrap();
    let mut w = stream.alloc_zeroed::<u64>(8).unwrap();
    assert!(matches!(
        g.generate_u64(&mut w),
        Err(RandError::LengthNotMultipleOfDimensions { len: 8, dimensions: 3 })
    ));
    let mut f = stream.alloc_zeroed::<f32>(6).unwrap();
    assert!(matches!(g.generate_normal(&mut f, 0.0, 0.0), Err(RandError::InvalidStddev { .. })));
    let mut u = stream.alloc_zeroed::<u32>(6).unwrap();
    assert!(matches!(g.generate_u32(&mut u), Err(RandError::Unsupported { .. })));
    assert!(matches!(g.generate_poisson(&mut u, 2.0), Err(RandError::Unsupported { .. })));
    let mut dd = stream.alloc_zeroed::<f64>(6).unwrap();
    assert!(matches!(g.generate_normal_double(&mut dd, 0.0, -1.0), Err(RandError::InvalidStddev { .. })));
    // Odd lengths are fine for quasi-random normals (one per point).
    g.set_dimensions(1).unwrap();
    let mut odd = stream.alloc_zeroed::<f64>(5).unwrap();
    g.generate_normal_double(&mut odd, 0.0, 1.0).unwrap();
    let mut p = Generator::new(&stream, RngType::Philox4x32_10).unwrap();
    assert!(matches!(p.generate_u64(&mut w), Err(RandError::Unsupported { .. })));
}
