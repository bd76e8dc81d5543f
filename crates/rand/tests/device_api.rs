//! Device-API semantics that the cuRAND vectors exercise only implicitly: Box-Muller caching,
//! `curand4` against four `curand` calls, draws spent per call, discrete table edges.

use ferrocm_rand::reference::{CurandDevice, DiscreteDistribution, Mrg32k3a, Philox4x32_10, Xorwow};

/// Runs `a` on one copy of `start` and `b` on another; both must produce the same values and
/// leave the generators at the same place (same next 32-bit draw).
fn check<G: CurandDevice + Clone, T: PartialEq + std::fmt::Debug>(
    what: &str,
    start: &G,
    a: impl Fn(&mut G) -> T,
    b: impl Fn(&mut G) -> T,
) {
    let (mut x, mut y) = (start.clone(), start.clone());
    assert_eq!(a(&mut x), b(&mut y), "{what}: values");
    assert_eq!(x.next_u32(), y.next_u32(), "{what}: position afterwards");
}

#[test]
fn normal_caches_the_second_value_of_a_pair() {
    check("philox", &Philox4x32_10::new(1, 2, 3), |g| [g.normal(), g.normal()], |g| g.normal2());
    check("xorwow", &Xorwow::new(1, 2, 3), |g| [g.normal(), g.normal()], |g| g.normal2());
    check("mrg", &Mrg32k3a::new(1, 2, 3), |g| [g.normal(), g.normal()], |g| g.normal2());
    check(
        "philox double",
        &Philox4x32_10::new(1, 2, 3),
        |g| [g.normal_double(), g.normal_double()],
        |g| g.normal2_double(),
    );
}

#[test]
fn log_normal_discards_a_cached_normal() {
    // normal() leaves a cached value; log_normal() must start a fresh pair, and the normal()
    // after it starts yet another pair.
    let start = Xorwow::new(9, 0, 0);
    check(
        "normal, log_normal, normal",
        &start,
        |g| [g.normal(), g.log_normal(0.0, 1.0), g.normal()],
        |g| {
            let a = g.normal2();
            let b = g.normal2();
            let c = g.normal2();
            [a[0], b[0].exp(), c[0]]
        },
    );
}

#[test]
fn curand4_is_four_curand_calls_from_any_position() {
    for skip in 0..8 {
        let mut start = Philox4x32_10::new(5, 6, 0);
        start.skip(skip);
        check(
            &format!("skip {skip}"),
            &start,
            |g| g.next4(),
            |g| [g.next_u32(), g.next_u32(), g.next_u32(), g.next_u32()],
        );
    }
}

#[test]
fn uniform_double_spends_one_philox_draw_and_two_xorwow_draws() {
    check(
        "philox",
        &Philox4x32_10::new(3, 0, 0),
        |g| (g.uniform_double(), g.next_u32()),
        |g| {
            let x = g.next_u32();
            (ferrocm_rand::reference::distributions::uniform_f64_from_u32(x), g.next_u32())
        },
    );
    check(
        "xorwow",
        &Xorwow::new(3, 0, 0),
        |g| g.uniform_double(),
        |g| {
            let (x, y) = (g.next_u32(), g.next_u32());
            ferrocm_rand::reference::distributions::uniform_f64_hq(x, y)
        },
    );
}

#[test]
fn discrete_table_edges() {
    let one = DiscreteDistribution::new(&[2.5]).unwrap();
    let skewed = DiscreteDistribution::new(&[0.0, 1.0]).unwrap();
    // u = x * 2^-32 + 2^-32 reaches exactly 1.0 at x = u32::MAX.
    for x in [0, 1, 1 << 31, u32::MAX - 1, u32::MAX] {
        assert_eq!(one.sample_bits(x), 0);
        assert_eq!(skewed.sample_bits(x), 1, "x = {x}");
    }
}
