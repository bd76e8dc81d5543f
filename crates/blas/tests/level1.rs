//! Level 1 against the double-double reference, on every device and engine, from the case
//! table `cases/level1.txt`. Besides each result, every element a routine must not touch
//! (between strided elements, past the end) is checked unchanged.

use crate::common::{cd, close, expand, gamma, run_cases, scalar, u, Case, Cd, Dd, Rng, Target};
use ferrocm_blas::{RealScalar, Scalar, ScalarArg, C32, C64};
use ferrocm_kernel::runtime::DeviceBuffer;

const CASES: &str = include_str!("cases/level1.txt");

/// Extra elements after each vector's span (must stay untouched).
const PAD: usize = 3;

/// Vectors longer than this skip the CPU executor (it interprets every thread; the native
/// engine and GPUs run them). The longer rows give a GPU more than 256 block results, which
/// the reductions' one-block finish scans in a strided loop.
const EXECUTOR_MAX: usize = 100_000;

fn span(n: usize, inc: isize) -> usize {
    if n == 0 {
        0
    } else {
        (n - 1) * inc.unsigned_abs() + 1
    }
}

/// Reference BLAS's walk: element `i` of `n` at increment `inc`.
fn at(i: usize, n: usize, inc: isize) -> usize {
    if inc > 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

fn upload<T: Scalar>(t: &Target, v: &[T]) -> DeviceBuffer<T> {
    t.stream.clone_htod(v).expect("upload")
}

fn download<T: Scalar>(t: &Target, b: &DeviceBuffer<T>) -> Vec<T> {
    t.stream.clone_dtoh(b).expect("download")
}

/// Asserts every element outside `touched` equals the original.
fn untouched<T: Scalar>(label: &str, what: &str, got: &[T], orig: &[T], touched: &[bool]) {
    for i in 0..got.len() {
        if !touched[i] {
            assert!(got[i] == orig[i], "{label}: {what}[{i}] was written ({:?} -> {:?})", orig[i], got[i]);
        }
    }
}

fn touched(len: usize, n: usize, inc: isize) -> Vec<bool> {
    let mut t = vec![false; len];
    for i in 0..n {
        t[at(i, n, inc)] = true;
    }
    t
}

#[test]
fn level1_cases() {
    let cases = expand(CASES);
    assert!(cases.len() > 1000, "the case table expands to {} cases", cases.len());
    run_cases(&cases, |c, t, seed| match c.get("type") {
        "s" => run::<f32>(c, t, seed),
        "d" => run::<f64>(c, t, seed),
        "c" => run::<C32>(c, t, seed),
        "z" => run::<C64>(c, t, seed),
        other => panic!("type {other}"),
    });
}

fn run<T: Scalar>(c: &Case, t: &Target, seed: u64) {
    let mut r = Rng::new(seed);
    let n = c.usize("n");
    if t.executor && n > EXECUTOR_MAX {
        return;
    }
    let incx = c.isize("incx");
    let incy: isize = c.keys.get("incy").map(|v| v.parse().expect("incy")).unwrap_or(1);
    let lx = span(n, incx) + PAD;
    let ly = span(n, incy) + PAD;
    let h = t.handle();
    let label = c.label();
    let device_mode = c.get_or("mode", "host") == "device";
    match c.routine.as_str() {
        "axpy" => {
            let alpha: T = scalar(c.complex("alpha"));
            let (x, y0) = (r.vec::<T>(lx), r.vec::<T>(ly));
            let (dx, mut dy) = (upload(t, &x), upload(t, &y0));
            let da = upload(t, &[alpha]);
            let a = if device_mode { ScalarArg::device(&da) } else { ScalarArg::Host(alpha) };
            h.axpy(n, a, &dx, incx, &mut dy, incy).expect("axpy");
            let y = download(t, &dy);
            let ca = cd(alpha);
            for i in 0..n {
                let (ix, iy) = (at(i, n, incx), at(i, n, incy));
                let want = if alpha.is_zero() { cd(y0[iy]) } else { cd(y0[iy]) + ca * cd(x[ix]) };
                let mag = ca.mag() * cd(x[ix]).mag() + cd(y0[iy]).mag();
                close(&label, "y", iy, y[iy], want, gamma::<T>(1) * mag);
            }
            untouched(&label, "y", &y, &y0, &touched(ly, n, incy));
        }
        "scal" | "scal_real" => {
            let (re, im) = c.complex("alpha");
            let x0 = r.vec::<T>(lx);
            let mut dx = upload(t, &x0);
            let (alpha, ca): (T, Cd) = if c.routine == "scal" {
                let a: T = scalar((re, im));
                (a, cd(a))
            } else {
                (scalar((re, 0.0)), Cd::new(re, 0.0))
            };
            if c.routine == "scal" {
                let da = upload(t, &[alpha]);
                let a = if device_mode { ScalarArg::device(&da) } else { ScalarArg::Host(alpha) };
                h.scal(n, a, &mut dx, incx).expect("scal");
            } else {
                let ar = T::Real::from_f64(re);
                let da = upload(t, &[ar]);
                let a = if device_mode { ScalarArg::device(&da) } else { ScalarArg::Host(ar) };
                h.scal_real::<T>(n, a, &mut dx, incx).expect("scal_real");
            }
            let x = download(t, &dx);
            let walked = if incx > 0 { n } else { 0 };
            for i in 0..walked {
                let ix = at(i, n, incx);
                let want = ca * cd(x0[ix]);
                close(&label, "x", ix, x[ix], want, gamma::<T>(0) * ca.mag() * cd(x0[ix]).mag());
            }
            untouched(&label, "x", &x, &x0, &touched(lx, walked, incx));
        }
        "copy" | "swap" => {
            let (x0, y0) = (r.vec::<T>(lx), r.vec::<T>(ly));
            let (mut dx, mut dy) = (upload(t, &x0), upload(t, &y0));
            if c.routine == "copy" {
                h.copy(n, &dx, incx, &mut dy, incy).expect("copy");
            } else {
                h.swap(n, &mut dx, incx, &mut dy, incy).expect("swap");
            }
            let (x, y) = (download(t, &dx), download(t, &dy));
            for i in 0..n {
                let (ix, iy) = (at(i, n, incx), at(i, n, incy));
                assert!(y[iy] == x0[ix], "{label}: y[{iy}]");
                if c.routine == "swap" {
                    assert!(x[ix] == y0[iy], "{label}: x[{ix}]");
                }
            }
            untouched(&label, "y", &y, &y0, &touched(ly, n, incy));
            let xt = if c.routine == "swap" { touched(lx, n, incx) } else { vec![false; lx] };
            untouched(&label, "x", &x, &x0, &xt);
        }
        "dot" | "dotc" => {
            let (x, y) = (r.vec::<T>(lx), r.vec::<T>(ly));
            let (dx, dy) = (upload(t, &x), upload(t, &y));
            let got = if c.routine == "dot" {
                h.dot(n, &dx, incx, &dy, incy).expect("dot")
            } else {
                h.dotc(n, &dx, incx, &dy, incy).expect("dotc")
            };
            let mut want = Cd::ZERO;
            let mut mag = 0.0;
            for i in 0..n {
                let (xv, yv) = (cd(x[at(i, n, incx)]), cd(y[at(i, n, incy)]));
                let xv = if c.routine == "dotc" { xv.conj() } else { xv };
                want = want + xv * yv;
                mag += xv.mag() * yv.mag();
            }
            close(&label, "dot", 0, got, want, gamma::<T>(n) * mag);
        }
        "nrm2" | "asum" => {
            let scale: f64 = c.get_or("scale", "1").parse().expect("scale");
            // `scale2` (default `scale`) scales every third stored element: vectors that mix
            // magnitudes (tiny with ordinary, huge with tiny) cross the norm's scaling ranges.
            let scale2: f64 = c.get_or("scale2", &scale.to_string()).parse().expect("scale2");
            let x: Vec<T> = r
                .vec::<T>(lx)
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    let (a, b) = v.parts();
                    let f = if i % 3 == 1 { scale2 } else { scale };
                    scalar((a.to_f64() * f, b.to_f64() * f))
                })
                .collect();
            let dx = upload(t, &x);
            let walked = if incx > 0 { n } else { 0 };
            if c.routine == "nrm2" {
                let got = h.nrm2(n, &dx, incx).expect("nrm2");
                // The reference scales by the largest component (exact powers of two), so
                // it neither overflows nor underflows.
                let big = (0..walked).map(|i| cd(x[at(i, n, incx)]).abs1()).fold(0.0f64, f64::max);
                let want = if big == 0.0 || !big.is_finite() {
                    Dd::new(if big.is_nan() { f64::NAN } else { big })
                } else {
                    let s = 2f64.powi(big.log2().floor() as i32);
                    let mut sum = Dd::ZERO;
                    for i in 0..walked {
                        let v = cd(x[at(i, n, incx)]);
                        for p in [v.re, v.im] {
                            let q = p * Dd::new(1.0 / s);
                            sum = sum + q * q;
                        }
                    }
                    sum.sqrt() * Dd::new(s)
                };
                let w = want.to_f64();
                // Rounding of the inputs' squares and of the sum: a relative bound.
                let comps = if T::COMPLEX { 2 } else { 1 };
                let bound = (2 * comps * walked + 4) as f64 * u::<T>() * w.abs() + w.abs() * 4.0 * u::<T>();
                let g = got.to_f64();
                let ok = if w.is_nan() {
                    g.is_nan()
                } else if w.is_infinite() {
                    g == w
                } else {
                    (g - w).abs() <= bound
                };
                assert!(ok, "{label}: nrm2 = {g:e}, reference {w:e}");
            } else {
                let got = h.asum(n, &dx, incx).expect("asum");
                let mut sum = Dd::ZERO;
                for i in 0..walked {
                    let v = cd(x[at(i, n, incx)]);
                    sum = sum + v.re.abs() + v.im.abs();
                }
                let w = sum.to_f64();
                let g = got.to_f64();
                assert!(
                    (g - w).abs() <= gamma::<T>(2 * walked) * w,
                    "{label}: asum = {g:e}, reference {w:e}"
                );
            }
        }
        "iamax" | "iamin" => {
            let mut x = r.vec::<T>(lx);
            if c.get("ties") == "yes" && n > 2 {
                // Equal magnitudes at several places: the first must win.
                let v = x[at(n / 2, n, incx)];
                let m = if c.routine == "iamax" { 4.0 } else { 1e-3 };
                let big: T = scalar((m, 0.0));
                let _ = v;
                for i in [n - 1, n / 2, 1] {
                    x[at(i, n, incx)] = big;
                }
            }
            let dx = upload(t, &x);
            let got = if c.routine == "iamax" {
                h.iamax(n, &dx, incx).expect("iamax")
            } else {
                h.iamin(n, &dx, incx).expect("iamin")
            };
            let mut want = 0usize;
            if n > 0 && incx > 0 {
                let v = |i: usize| cd(x[at(i, n, incx)]).abs1();
                let mut m = v(0);
                want = 1;
                for i in 1..n {
                    let b = if c.routine == "iamax" { v(i) > m } else { v(i) < m };
                    if b {
                        m = v(i);
                        want = i + 1;
                    }
                }
            }
            assert_eq!(got, want, "{label}");
        }
        "rot" => {
            let cc = c.complex("c").0;
            let sv: T = scalar(c.complex("s"));
            let (x0, y0) = (r.vec::<T>(lx), r.vec::<T>(ly));
            let (mut dx, mut dy) = (upload(t, &x0), upload(t, &y0));
            let creal = T::Real::from_f64(cc);
            let (dc, ds) = (upload(t, &[creal]), upload(t, &[sv]));
            if device_mode {
                h.rot(n, &mut dx, incx, &mut dy, incy, ScalarArg::device(&dc), ScalarArg::device(&ds))
                    .expect("rot");
            } else {
                h.rot(n, &mut dx, incx, &mut dy, incy, creal, sv).expect("rot");
            }
            let (x, y) = (download(t, &dx), download(t, &dy));
            let (ccd, scd) = (Cd::new(creal.to_f64(), 0.0), cd(sv));
            for i in 0..n {
                let (ix, iy) = (at(i, n, incx), at(i, n, incy));
                let (xv, yv) = (cd(x0[ix]), cd(y0[iy]));
                let bound = gamma::<T>(2) * (ccd.mag() + scd.mag()) * (xv.mag() + yv.mag());
                close(&label, "x", ix, x[ix], ccd * xv + scd * yv, bound);
                close(&label, "y", iy, y[iy], ccd * yv - scd.conj() * xv, bound);
            }
            untouched(&label, "x", &x, &x0, &touched(lx, n, incx));
            untouched(&label, "y", &y, &y0, &touched(ly, n, incy));
        }
        "rotm" => rotm::<T>(c, t, &mut r, n, incx, incy),
        other => panic!("routine {other}"),
    }
}

/// `rotm` is real only: complex cases are skipped by the table (types s and d).
fn rotm<T: Scalar>(c: &Case, t: &Target, r: &mut Rng, n: usize, incx: isize, incy: isize) {
    if T::COMPLEX {
        return;
    }
    let flag: f64 = c.get("flag").parse().expect("flag");
    let h = t.handle();
    let label = c.label();
    let (lx, ly) = (span(n, incx) + PAD, span(n, incy) + PAD);
    let (x0, y0) = (r.vec::<T::Real>(lx), r.vec::<T::Real>(ly));
    let p: Vec<T::Real> = [flag, 0.7, -0.3, 0.45, 1.25].map(T::Real::from_f64).to_vec();
    let (mut dx, mut dy, dp) = (upload(t, &x0), upload(t, &y0), upload(t, &p));
    h.rotm(n, &mut dx, incx, &mut dy, incy, &dp).expect("rotm");
    let (x, y) = (download(t, &dx), download(t, &dy));
    let pf: Vec<f64> = p.iter().map(|v| v.to_f64()).collect();
    let (h11, h21, h12, h22) = match flag {
        -2.0 => (1.0, 0.0, 0.0, 1.0),
        f if f < 0.0 => (pf[1], pf[2], pf[3], pf[4]),
        0.0 => (1.0, pf[2], pf[3], 1.0),
        _ => (pf[1], -1.0, 1.0, pf[4]),
    };
    for i in 0..n {
        let (ix, iy) = (at(i, n, incx), at(i, n, incy));
        let (w, z) = (cd(x0[ix]), cd(y0[iy]));
        let b = gamma::<T::Real>(2) * 2.0 * (w.mag() + z.mag());
        close(&label, "x", ix, x[ix], Cd::new(h11, 0.0) * w + Cd::new(h12, 0.0) * z, b);
        close(&label, "y", iy, y[iy], Cd::new(h21, 0.0) * w + Cd::new(h22, 0.0) * z, b);
    }
    untouched(&label, "x", &x, &x0, &touched(lx, n, incx));
}

#[test]
fn rotg_zeroes_the_second_component() {
    let mut r = Rng::new(crate::common::fresh_seed());
    for _ in 0..200 {
        let (a0, b0) = (r.uniform() * 10.0, r.uniform() * 10.0);
        let (mut a, mut b) = (a0, b0);
        let (c, s) = ferrocm_blas::rotg(&mut a, &mut b);
        assert!((c * a0 + s * b0 - a).abs() <= 1e-14 * a.abs().max(1.0), "r");
        assert!((-s * a0 + c * b0).abs() <= 1e-14 * a.abs().max(1.0), "zero");
        assert!((c * c + s * s - 1.0).abs() < 1e-14);
        let (mut ca, mut cb) = (C64::new(r.uniform(), r.uniform()), C64::new(r.uniform(), r.uniform()));
        let (a0, b0) = (ca, cb);
        let (c, s) = ferrocm_blas::rotg(&mut ca, &mut cb);
        assert!((a0 * c + s * b0 - ca).norm() < 1e-14, "complex r");
        assert!((b0 * c - s.conj() * a0).norm() < 1e-14, "complex zero");
    }
    let (mut a, mut b) = (0.0f32, 0.0f32);
    assert_eq!(ferrocm_blas::rotg(&mut a, &mut b), (1.0, 0.0));
}

#[test]
fn rotmg_zeroes_the_second_component() {
    let mut r = Rng::new(crate::common::fresh_seed());
    for _ in 0..500 {
        let (d1, d2, x1, y1) =
            (r.uniform().abs() * 4.0 + 0.1, r.uniform().abs() * 4.0, r.uniform(), r.uniform());
        let (mut e1, mut e2, mut ex) = (d1, d2, x1);
        let p = ferrocm_blas::rotmg(&mut e1, &mut e2, &mut ex, y1);
        let (h11, h21, h12, h22) = match p[0] {
            -2.0 => (1.0, 0.0, 0.0, 1.0),
            f if f < 0.0 => (p[1], p[2], p[3], p[4]),
            0.0 => (1.0, p[2], p[3], 1.0),
            _ => (p[1], -1.0, 1.0, p[4]),
        };
        // H [x1; y1] = [x1'; 0] and the scaled norms are preserved.
        let (nx, ny) = (h11 * x1 + h12 * y1, h21 * x1 + h22 * y1);
        assert!(ny.abs() < 1e-12, "second component {ny} (param {p:?})");
        assert!((nx - ex).abs() < 1e-12 * ex.abs().max(1.0), "x1 {nx} vs {ex}");
        let before = d1 * x1 * x1 + d2 * y1 * y1;
        assert!((e1 * ex * ex - before).abs() < 1e-10 * before.max(1e-300), "norm");
    }
}
