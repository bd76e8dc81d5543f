//! MRG32k3a's device step (f64 arithmetic, `p / m` rounded with the `2^52 + 2^51` constant)
//! against the reference's integer step on states chosen at the edges of that rounding:
//! `a x - b y` at residues `(m - 1) / 2` and `(m + 1) / 2` (where `p / m` is within `1 / 2m`
//! of a half-integer, as close as the rounding error of `p * (1 / m)`), `0`, `1` and `m - 1`,
//! and words `0` and `m - 1`.

use crate::common::devices;
use ferrocm_kernel::dsl::{Memory, Val};
use ferrocm_kernel::prelude::*;
use ferrocm_rand::device::Mrg32k3a;
use ferrocm_rand::reference::mrg32k3a::{MRG_M1, MRG_M2};
use ferrocm_rand::reference::Mrg32k3a as Reference;

/// Draws per state: the first two use only the chosen words.
const STEPS: u64 = 4;

#[kernel]
fn mrg_steps(words: &[u32], out: &mut [u32]) {
    let states = words.len() as u64 / 6u64;
    let t = global_index() as u64;
    if t < states {
        let w: [Val<u32>; 6] = std::array::from_fn(|k| words[t * 6u64 + k as u64]);
        let g = Mrg32k3a::from_words(w);
        for s in 0..STEPS {
            out[t * (STEPS + 6) + s] = g.next_raw();
        }
        for (k, x) in g.words().into_iter().enumerate() {
            out[t * (STEPS + 6) + STEPS + k as u64] = x;
        }
    }
}

fn inverse(a: u64, m: u64) -> u64 {
    // Fermat: m1 and m2 are prime.
    let (mut r, mut base, mut e) = (1u128, a as u128 % m as u128, m - 2);
    while e > 0 {
        if e & 1 == 1 {
            r = r * base % m as u128;
        }
        base = base * base % m as u128;
        e >>= 1;
    }
    r as u64
}

/// `x` with `a x - b y = target (mod m)`, so that the integer `a x - b y` has that residue.
fn x_for(a: u64, b: u64, y: u64, target: u64, m: u64) -> u32 {
    let rhs = (b as u128 * y as u128 + target as u128) % m as u128;
    ((rhs * inverse(a, m) as u128) % m as u128) as u32
}

fn edge_states() -> Vec<Reference> {
    let (m1, m2) = (MRG_M1 as u64, MRG_M2 as u64);
    let mut states = Vec::new();
    let ys = [0u64, 1, 12345, 2_000_000_000, 4_294_000_000, m2 - 1];
    let targets = |m: u64| [(m - 1) / 2, m.div_ceil(2), 0, 1, m - 1];
    for (i, &y) in ys.iter().enumerate() {
        for (j, (t1, t2)) in targets(m1).into_iter().zip(targets(m2)).enumerate() {
            // Component 1 steps on (s1[1], s1[0]), component 2 on (s2[2], s2[0]).
            let y1 = y.min(m1 - 1);
            let s1 = [y1 as u32, x_for(1_403_580, 810_728, y1, t1, m1), (i * 7 + j) as u32];
            let s2 = [y as u32, (j * 11 + i) as u32, x_for(527_612, 1_370_589, y, t2, m2)];
            states.push(Reference { s1, s2, ..Reference::new(0, 0, 0) });
        }
    }
    states.push(Reference { s1: [0; 3], s2: [0, 0, 1], ..Reference::new(0, 0, 0) });
    states.push(Reference { s1: [MRG_M1 - 1; 3], s2: [MRG_M2 - 1; 3], ..Reference::new(0, 0, 0) });
    states
}

#[test]
fn device_step_matches_reference_at_rounding_edges() {
    let states = edge_states();
    let words: Vec<u32> = states.iter().flat_map(|s| s.s1.iter().chain(&s.s2).copied()).collect();
    let want: Vec<u32> = states
        .iter()
        .flat_map(|s| {
            let mut g = *s;
            let mut v: Vec<u32> = (0..STEPS).map(|_| g.next_raw()).collect();
            v.extend(g.s1.iter().chain(&g.s2));
            v
        })
        .collect();
    for d in devices() {
        let stream = d.create_stream().unwrap();
        let input = stream.clone_htod(&words).unwrap();
        let mut out = stream.alloc_zeroed::<u32>(want.len()).unwrap();
        mrg_steps::launch(&stream, LaunchConfig::for_num_elems(states.len() as u32), &input, &mut out)
            .unwrap();
        let got = stream.clone_dtoh(&out).unwrap();
        assert_eq!(got, want, "on {}", d.properties().name);
    }
}
