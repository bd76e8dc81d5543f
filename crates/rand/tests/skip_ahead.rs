//! Skip-ahead consistency: skipping `n` equals generating `n`, skips compose, and the
//! subsequence tables are the stated powers of the one-step tables.

use ferrocm_rand::reference::mrg32k3a::{
    M1_OFFSET, M1_SUBSEQUENCE, M2_OFFSET, M2_SUBSEQUENCE, MRG_M1, MRG_M2,
};
use ferrocm_rand::reference::xorwow::{mat_vec, skip_tables, Gf2Matrix};
use ferrocm_rand::reference::{CurandDevice, Mrg32k3a, Philox4x32_10, Sobol32, Sobol64, Xorwow};

/// Skipping `n` from `start` must land where `n` single steps land; the next values agree.
fn check<G: CurandDevice + Clone>(start: G, n: u64, skip: impl Fn(&mut G, u64)) {
    let mut stepped = start.clone();
    for _ in 0..n {
        stepped.next_u32();
    }
    let mut skipped = start;
    skip(&mut skipped, n);
    let a: Vec<u32> = (0..9).map(|_| stepped.next_u32()).collect();
    let b: Vec<u32> = (0..9).map(|_| skipped.next_u32()).collect();
    assert_eq!(a, b, "skip {n}");
}

const COUNTS: [u64; 9] = [0, 1, 2, 3, 4, 5, 7, 100, 1001];

#[test]
fn philox_skip_equals_stepping() {
    for n in COUNTS {
        for pre in 0..4 {
            let mut g = Philox4x32_10::new(99, 3, 0);
            for _ in 0..pre {
                g.next_u32();
            }
            check(g, n, |g, n| g.skip(n));
        }
    }
}

#[test]
fn xorwow_skip_equals_stepping() {
    for n in COUNTS {
        check(Xorwow::new(99, 3, 0), n, |g, n| g.skip(n));
    }
}

#[test]
fn mrg32k3a_skip_equals_stepping() {
    for n in COUNTS {
        check(Mrg32k3a::new(99, 3, 0), n, |g, n| g.skip(n));
    }
}

#[test]
fn init_offset_equals_skip_after_init() {
    let n = (1u64 << 45) + 12_345;
    let mut a = Xorwow::new(5, 7, 0);
    a.skip(n);
    assert_eq!(a, Xorwow::new(5, 7, n));
    let mut b = Mrg32k3a::new(5, 7, 0);
    b.skip(n);
    assert_eq!(b, Mrg32k3a::new(5, 7, n));
    let mut c = Philox4x32_10::new(5, 7, 0);
    c.skip(n);
    assert_eq!(c, Philox4x32_10::new(5, 7, n));
}

#[test]
fn large_skips_compose() {
    let (a, b) = ((1u64 << 40) + 3, (1u64 << 41) + 12_345_678);
    let mut x = Xorwow::new(1, 0, a);
    x.skip(b);
    assert_eq!(x.v, Xorwow::new(1, 0, a + b).v);
    let mut m = Mrg32k3a::new(1, 0, a);
    m.skip(b);
    assert_eq!(m, Mrg32k3a::new(1, 0, a + b));
    let mut s = Xorwow::new(1, 3, 0);
    s.skip_subsequence(5);
    assert_eq!(s, Xorwow::new(1, 8, 0));
    let mut r = Mrg32k3a::new(1, 3, 0);
    r.skip_subsequence(5);
    assert_eq!(r, Mrg32k3a::new(1, 8, 0));
}

fn square(m: &Gf2Matrix) -> Box<Gf2Matrix> {
    let mut out = Box::new([[0u32; 5]; 160]);
    for (row, o) in m.iter().zip(out.iter_mut()) {
        *o = mat_vec(m, *row);
    }
    out
}

#[test]
fn xorwow_subsequence_is_two_to_the_67_steps() {
    let t = skip_tables();
    // M^(2^64) = (M^(2^63))^2, then three more squarings give M^(2^67).
    let mut m = square(&t.offset[63]);
    for _ in 0..3 {
        m = square(&m);
    }
    assert!(*m == t.subsequence[0], "subsequence table is not M^(2^67)");
    assert!(*square(&t.subsequence[0]) == t.subsequence[1]);
    // And the one-step table really is one step.
    let mut g = Xorwow::new(42, 0, 0);
    let v0 = g.v;
    g.next_u32();
    assert_eq!(mat_vec(&t.offset[0], v0), g.v);
}

fn mat_mul(a: &[[u32; 3]; 3], b: &[[u32; 3]; 3], m: u32) -> [[u32; 3]; 3] {
    let mut o = [[0u32; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            let s: u128 = (0..3).map(|k| a[i][k] as u128 * b[k][j] as u128).sum();
            o[i][j] = (s % m as u128) as u32;
        }
    }
    o
}

#[test]
fn mrg32k3a_subsequence_is_two_to_the_76_steps() {
    for (off, sub, m) in [(&M1_OFFSET, &M1_SUBSEQUENCE, MRG_M1), (&M2_OFFSET, &M2_SUBSEQUENCE, MRG_M2)] {
        // 2^76 = 2^63 * 2^13: square A^(2^63) thirteen times.
        let mut p = off[63];
        for _ in 0..13 {
            p = mat_mul(&p, &p, m);
        }
        assert_eq!(p, sub[0]);
        assert_eq!(mat_mul(&off[5], &off[5], m), off[6]);
    }
}

#[test]
fn philox_subsequence_is_two_to_the_66_values() {
    // Eight skips of 2^63 values move the counter by 2^64 blocks = 2^66 values.
    let mut a = Philox4x32_10::new(77, 0, 9);
    for _ in 0..8 {
        a.skip(1 << 63);
    }
    let b = Philox4x32_10::new(77, 1, 9);
    assert_eq!((a.ctr, a.index, a.output), (b.ctr, b.index, b.output));
}

#[test]
fn sobol_skip_equals_stepping() {
    for dim in [0, 1, 7, 19_999] {
        for n in [0u32, 1, 2, 3, 255, 256, 1000] {
            let mut a = Sobol32::new(dim, 0).unwrap();
            for _ in 0..n {
                a.next_u32();
            }
            let mut b = Sobol32::new(dim, n).unwrap();
            assert_eq!(
                (0..5).map(|_| a.next_u32()).collect::<Vec<_>>(),
                (0..5).map(|_| b.next_u32()).collect::<Vec<_>>()
            );
            let mut c = Sobol64::new(dim, 0).unwrap();
            for _ in 0..n {
                c.next_u64();
            }
            let mut d = Sobol64::new(dim, n as u64).unwrap();
            assert_eq!(c.next_u64(), d.next_u64(), "dim {dim} skip {n}");
        }
    }
}
