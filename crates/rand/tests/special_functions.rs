//! The error function and normal quantile behind the quasi-random normal outputs.

// Numerical Recipes' `erfcc` (fractional error below 1.2e-7), shared with the statistical
// tests: an independent cross-check of the reference's erfc.
use crate::common::stats::erfc as erfc_nr;
use ferrocm_rand::reference::distributions::{erfc, normal_cdf, normal_icdf};

fn check(what: &str, got: f64, want: f64, rel: f64) {
    assert!((got - want).abs() <= rel * want.abs(), "{what}: got {got:e}, want {want:e}");
}

#[test]
fn erfc_agrees_with_an_independent_approximation() {
    for i in -60..=100 {
        let x = i as f64 * 0.1;
        check(&format!("erfc({x})"), erfc(x), erfc_nr(x), 2e-7);
    }
    // The series (below 0.7) and the continued fraction (above) meet smoothly.
    check("erfc at 0.7", erfc(0.7 - 1e-12), erfc(0.7), 1e-11);
}

#[test]
fn normal_icdf_inverts_the_cdf() {
    // Dyadic p, so that 1 - p is exact and symmetry is a fair test.
    for k in 1..4096 {
        let p = k as f64 / 4096.0;
        check(&format!("cdf(icdf({p}))"), normal_cdf(normal_icdf(p)), p, 1e-14);
        check(&format!("symmetry at {p}"), normal_icdf(1.0 - p), -normal_icdf(p), 1e-14);
    }
    // Far in the tail the round trip is ill-conditioned: a one-ulp change of z moves the
    // CDF by a relative z^2 ulps, so the allowance grows with z^2.
    for e in 3..300 {
        let p = 10f64.powi(-e);
        let z = normal_icdf(p);
        check(&format!("cdf(icdf({p:e}))"), normal_cdf(z), p, 4e-16 * (8.0 + z * z));
    }
    assert_eq!(normal_icdf(0.5), 0.0);
    assert_eq!(normal_icdf(0.0), f64::NEG_INFINITY);
    assert!(normal_icdf(1.5).is_nan());
}
