//! Low-discrepancy properties of the Sobol sequences: every 2^k prefix of every dimension puts
//! exactly one point in each interval [j/2^k, (j+1)/2^k), and the first two dimensions form a
//! (0, k, 2)-net (one point in every elementary box of area 2^-k).

use ferrocm_rand::reference::{Sobol32, Sobol64, SOBOL_MAX_DIMENSIONS};

const DIMS: [u32; 9] = [0, 1, 2, 3, 10, 100, 1000, 10_000, SOBOL_MAX_DIMENSIONS - 1];
const MAX_K: u32 = 12;

/// Asserts that the top `k` bits of the first 2^k points are a permutation of 0..2^k.
fn check_stratified(name: &str, top_bits: &[u64], k: u32) {
    let mut seen = vec![false; 1 << k];
    for &b in &top_bits[..1 << k] {
        assert!(!seen[b as usize], "{name}: two of the first 2^{k} points share stratum {b}");
        seen[b as usize] = true;
    }
}

#[test]
fn sobol32_prefixes_stratify_each_dimension() {
    for dim in DIMS {
        let mut s = Sobol32::new(dim, 0).unwrap();
        let pts: Vec<u32> = (0..1 << MAX_K).map(|_| s.next_u32()).collect();
        for k in 1..=MAX_K {
            let top: Vec<u64> = pts.iter().map(|&x| (x >> (32 - k)) as u64).collect();
            check_stratified(&format!("sobol32 dim {dim}"), &top, k);
        }
    }
}

#[test]
fn sobol64_prefixes_stratify_each_dimension() {
    for dim in DIMS {
        let mut s = Sobol64::new(dim, 0).unwrap();
        let pts: Vec<u64> = (0..1 << MAX_K).map(|_| s.next_u64()).collect();
        for k in 1..=MAX_K {
            let top: Vec<u64> = pts.iter().map(|&x| x >> (64 - k)).collect();
            check_stratified(&format!("sobol64 dim {dim}"), &top, k);
        }
        // The 64-bit sequence refines the 32-bit one: same leading 32 bits.
        let mut s32 = Sobol32::new(dim, 0).unwrap();
        assert!(pts.iter().all(|&x| (x >> 32) as u32 == s32.next_u32()), "dim {dim}");
    }
}

#[test]
fn first_two_dimensions_form_a_zero_net() {
    let mut a = Sobol32::new(0, 0).unwrap();
    let mut b = Sobol32::new(1, 0).unwrap();
    let pts: Vec<(u32, u32)> = (0..1 << MAX_K).map(|_| (a.next_u32(), b.next_u32())).collect();
    for k in 1..=MAX_K {
        for kx in 0..=k {
            let ky = k - kx;
            let cell = |(x, y): (u32, u32)| {
                let cx = if kx == 0 { 0 } else { (x >> (32 - kx)) as u64 };
                let cy = if ky == 0 { 0 } else { (y >> (32 - ky)) as u64 };
                (cx << ky) | cy
            };
            let cells: Vec<u64> = pts.iter().map(|&p| cell(p)).collect();
            check_stratified(&format!("net k={k} kx={kx}"), &cells, k);
        }
    }
}

#[test]
fn first_points_are_zero_then_one_half() {
    for dim in DIMS {
        let mut s = Sobol32::new(dim, 0).unwrap();
        assert_eq!(s.next_u32(), 0);
        assert_eq!(s.next_u32(), 1 << 31, "dim {dim}: second point is 1/2");
    }
}
