//! rocRAND's extra generators in the host API on every device, against the reference (itself
//! checked against the published known answers in `published_kats.rs`): ThreeFry's counter
//! streams at an unaligned offset and across calls, LFSR113's per-state streams, and their
//! distributions.

use crate::common::{assert_close, devices, is_gpu};
use ferrocm_rand::reference::distributions as d;
use ferrocm_rand::reference::{CurandDevice, Lfsr113, ThreefryKind};
use ferrocm_rand::{Generator, Ordering, RngType};

const THREEFRY: [(RngType, ThreefryKind); 4] = [
    (RngType::Threefry2x32_20, ThreefryKind::X2x32),
    (RngType::Threefry4x32_20, ThreefryKind::X4x32),
    (RngType::Threefry2x64_20, ThreefryKind::X2x64),
    (RngType::Threefry4x64_20, ThreefryKind::X4x64),
];

#[test]
fn threefry_host_api_is_the_counter_stream() {
    let seed = 0x0123_4567_89ab_cdef;
    for d in devices() {
        let stream = d.create_stream().unwrap();
        for (rng, kind) in THREEFRY {
            let mut g = Generator::new(&stream, rng).unwrap();
            g.set_seed(seed);
            g.set_offset(7);
            // Two calls (the second starts where the first ended), then uniforms and normals.
            let mut a = stream.alloc_zeroed::<u32>(1001).unwrap();
            let mut b = stream.alloc_zeroed::<u32>(515).unwrap();
            g.generate_u32(&mut a).unwrap();
            g.generate_u32(&mut b).unwrap();
            let got: Vec<u32> =
                stream.clone_dtoh(&a).unwrap().into_iter().chain(stream.clone_dtoh(&b).unwrap()).collect();
            let want: Vec<u32> = (7..7 + got.len() as u64).map(|i| kind.value(seed, i)).collect();
            assert_eq!(got, want, "{rng:?} on {}", d.properties().name);

            let mut g = Generator::new(&stream, rng).unwrap();
            g.set_seed(seed);
            g.set_ordering(Ordering::Legacy);
            let mut u = stream.alloc_zeroed::<f32>(256).unwrap();
            g.generate_uniform(&mut u).unwrap();
            let want: Vec<u32> = (0..256).map(|i| d::uniform_f32(kind.value(seed, i)).to_bits()).collect();
            let got: Vec<u32> = stream.clone_dtoh(&u).unwrap().iter().map(|x| x.to_bits()).collect();
            assert_eq!(got, want, "{rng:?} uniforms");

            let mut z = stream.alloc_zeroed::<f32>(256).unwrap();
            g.generate_normal(&mut z, 0.0, 1.0).unwrap();
            let want: Vec<f64> = (0..128)
                .flat_map(|p| d::box_muller(kind.value(seed, 256 + 2 * p), kind.value(seed, 257 + 2 * p)))
                .map(|x| x as f64)
                .collect();
            let got: Vec<f64> = stream.clone_dtoh(&z).unwrap().iter().map(|&x| x as f64).collect();
            assert_close(&format!("{rng:?} normals"), &got, &want, if is_gpu(&d) { 2e-5 } else { 4e-6 });
        }
    }
}

/// ThreeFry's host API across the kernels' boundaries: offsets at odd and even units (4x64
/// computes a block of two units per thread, so an odd first unit starts with the block's
/// second half), unaligned offsets, calls whose units cross 2^31 or 2^32 (the 32-bit loop
/// indices would carry into the counter's high word: the wide loop runs them), one whose units
/// all have bit 31 set (2x32's block counters `2u` then have it in their high word), one whose
/// high word is odd (4x64's block counters `u / 2` then have bit 31 set) and one far above;
/// lengths that end inside a unit
/// and inside a block; 32-bit values and doubles (two draws each) against the counter stream.
#[test]
fn threefry_host_api_crosses_unit_block_and_word_boundaries() {
    let seed = 0xfeed_0000_0000_0017u64;
    let offsets = [
        0u64,
        4,
        8,
        13,
        4 * ((1 << 31) - 2),
        4 * (3 << 30) + 5,
        4 * ((1 << 32) - 3),
        4 * (3 << 32) + 29,
        (1 << 40) + 6,
    ];
    for d in devices() {
        let stream = d.create_stream().unwrap();
        let n = if is_gpu(&d) { 40_001 } else { 1_037 };
        for (rng, kind) in THREEFRY {
            for offset in offsets {
                let mut g = Generator::new(&stream, rng).unwrap();
                g.set_seed(seed);
                g.set_offset(offset);
                let mut a = stream.alloc_zeroed::<u32>(n).unwrap();
                g.generate_u32(&mut a).unwrap();
                let got = stream.clone_dtoh(&a).unwrap();
                let want: Vec<u32> = (offset..offset + n as u64).map(|i| kind.value(seed, i)).collect();
                let first = got.iter().zip(&want).position(|(x, y)| x != y);
                assert_eq!(first, None, "{rng:?} offset {offset} on {}", d.properties().name);

                // Doubles: value `j` of the call takes draws `2 (offset + j)` and the next.
                let mut g = Generator::new(&stream, rng).unwrap();
                g.set_seed(seed);
                g.set_offset(offset);
                let m = n / 2 + 1;
                let mut u = stream.alloc_zeroed::<f64>(m).unwrap();
                g.generate_uniform_double(&mut u).unwrap();
                let got = stream.clone_dtoh(&u).unwrap();
                let want: Vec<f64> = (offset..offset + m as u64)
                    .map(|j| d::uniform_f64_hq(kind.value(seed, 2 * j), kind.value(seed, 2 * j + 1)))
                    .collect();
                let first = got.iter().zip(&want).position(|(x, y)| x.to_bits() != y.to_bits());
                assert_eq!(first, None, "{rng:?} doubles offset {offset} on {}", d.properties().name);
            }
        }
    }
}

/// LFSR113 in the default layout: unit `q` (four values) of a call is drawn by state
/// `q % S`, state `t` being `Lfsr113::new(seed, t, offset)`, kept between calls.
#[test]
fn lfsr113_host_api_follows_its_states() {
    let (seed, offset) = (99u64, 3u64);
    for d in devices() {
        let stream = d.create_stream().unwrap();
        let mut g = Generator::new(&stream, RngType::Lfsr113).unwrap();
        g.set_seed(seed);
        g.set_offset(offset);
        let mut a = stream.alloc_zeroed::<u32>(4096).unwrap();
        g.generate_u32(&mut a).unwrap();
        let first = stream.clone_dtoh(&a).unwrap();
        g.generate_u32(&mut a).unwrap();
        let second = stream.clone_dtoh(&a).unwrap();
        for q in 0..1024usize {
            let mut s = Lfsr113::new(seed, q as u64, offset);
            let want: Vec<u32> = (0..8).map(|_| s.next_u32()).collect();
            assert_eq!(
                &first[4 * q..4 * q + 4],
                &want[..4],
                "state {q}, first call, on {}",
                d.properties().name
            );
            assert_eq!(&second[4 * q..4 * q + 4], &want[4..], "state {q}, second call");
        }
        let mut u = stream.alloc_zeroed::<f64>(64).unwrap();
        let mut g = Generator::new(&stream, RngType::Lfsr113).unwrap();
        g.generate_uniform_double(&mut u).unwrap();
        let got = stream.clone_dtoh(&u).unwrap();
        for (q, pair) in got.chunks(2).enumerate() {
            let mut s = Lfsr113::new(0, q as u64, 0);
            assert_eq!(pair, [s.uniform_double(), s.uniform_double()], "state {q} doubles");
        }
    }
}

/// Poisson outputs of the new generators use the host-API methods on their own streams.
#[test]
fn new_generators_give_poisson_outputs_with_the_right_mean() {
    for d in devices() {
        let stream = d.create_stream().unwrap();
        for rng in [RngType::Lfsr113, RngType::Threefry4x32_20, RngType::Threefry2x64_20] {
            for lambda in [4.0, 5000.0] {
                let mut g = Generator::new(&stream, rng).unwrap();
                let mut o = stream.alloc_zeroed::<u32>(1 << 14).unwrap();
                g.generate_poisson(&mut o, lambda).unwrap();
                let v = stream.clone_dtoh(&o).unwrap();
                let mean = v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
                let sigma = (lambda / v.len() as f64).sqrt();
                assert!((mean - lambda).abs() < 6.0 * sigma, "{rng:?} lambda {lambda}: mean {mean}");
            }
        }
    }
}
