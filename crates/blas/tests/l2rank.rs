//! The Level 2 rank updates (`ger`/`geru`/`gerc`, `syr`/`her`, `syr2`/`her2`, `spr`/`hpr`,
//! `spr2`/`hpr2`) against the double-double reference, on every device and engine, from
//! `cases/l2rank.txt`. The reference forms every stored element of the updated matrix; every
//! element the routine does not own (the other triangle, rows past `m` within `lda`, padding
//! past the end) is checked unchanged bit for bit, and the Hermitian forms' diagonal must come
//! back with a zero imaginary part.

use crate::common::{cd, close, expand, gamma, run_cases, scalar, Case, Cd, Dd, Rng, Target};
use ferrocm_blas::{Fill, RealScalar, Scalar, ScalarArg, C32, C64};
use ferrocm_kernel::runtime::DeviceBuffer;

const CASES: &str = include_str!("cases/l2rank.txt");

/// Extra elements after each view (must stay untouched).
const PAD: usize = 3;
/// Updates of more elements than this skip the CPU executor (it interprets every thread).
const EXECUTOR_MAX: usize = 5_000;

fn upload<T: Scalar>(t: &Target, v: &[T]) -> DeviceBuffer<T> {
    t.stream.clone_htod(v).expect("upload")
}

fn span(n: usize, inc: isize) -> usize {
    if n == 0 {
        0
    } else {
        (n - 1) * inc.unsigned_abs() + 1
    }
}

fn at(i: usize, n: usize, inc: isize) -> usize {
    if inc > 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

fn nan<T: Scalar>() -> T {
    scalar((f64::NAN, f64::NAN))
}

#[test]
fn rank_update_cases() {
    let cases = expand(CASES);
    assert!(cases.len() > 1000, "the case table expands to {} cases", cases.len());
    run_cases(&cases, |c, t, seed| match c.get("type") {
        "s" => rank::<f32>(c, t, seed),
        "d" => rank::<f64>(c, t, seed),
        "c" => rank::<C32>(c, t, seed),
        "z" => rank::<C64>(c, t, seed),
        other => panic!("type {other}"),
    });
}

fn rank<T: Scalar>(c: &Case, t: &Target, seed: u64) {
    let r = c.routine.as_str();
    let full = matches!(r, "ger" | "geru" | "gerc");
    let packed = matches!(r, "spr" | "hpr" | "spr2" | "hpr2");
    let two = matches!(r, "syr2" | "her2" | "spr2" | "hpr2");
    let conj = T::COMPLEX && matches!(r, "gerc" | "her" | "her2" | "hpr" | "hpr2");
    let herm = conj && !full;
    let real_alpha = matches!(r, "her" | "hpr");
    let n = c.usize("n");
    let m = if full { c.usize("m") } else { n };
    if t.executor && (m * n > EXECUTOR_MAX || c.get_or("size", "") == "large") {
        return;
    }
    let upper = c.get_or("uplo", "U") == "U";
    let uplo = if upper { Fill::Upper } else { Fill::Lower };
    let (incx, incy) = (c.isize("incx"), c.keys.get("incy").map_or(1, |v| v.parse().expect("incy")));
    let lda = m.max(1) + c.usize_or("pad", 0);
    let mut rng = Rng::new(seed);
    let mut alpha: T = scalar(c.complex("alpha"));
    if real_alpha {
        alpha = T::from_real(alpha.parts().0);
    }
    // Where the routine keeps element (i, j), if it keeps it.
    let index = |i: usize, j: usize| -> Option<usize> {
        if full {
            Some(i + j * lda)
        } else if (upper && i > j) || (!upper && i < j) {
            None
        } else if !packed {
            Some(i + j * lda)
        } else if upper {
            Some(i + j * (j + 1) / 2)
        } else {
            Some(i - j + j * (2 * n - j + 1) / 2)
        }
    };
    let len = if packed {
        n * (n + 1) / 2
    } else if m == 0 || n == 0 {
        0
    } else {
        lda * (n - 1) + m
    };
    let mut a0 = rng.vec::<T>(len + PAD);
    let mut x = rng.vec::<T>(span(m, incx) + PAD);
    let y = rng.vec::<T>(span(n, incy) + PAD);
    match c.get_or("nan", "none") {
        "x" if m > 0 => x[at(m / 2, m, incx)] = nan(),
        "diag" => {
            for j in 0..n.min(m) {
                if let Some(k) = index(j, j) {
                    let re = a0[k].parts().0;
                    a0[k] = T::from_parts(re, RealScalar::from_f64(f64::NAN));
                }
            }
        }
        _ => {}
    }
    let (dx, dy, mut da) = (upload(t, &x), upload(t, &y), upload(t, &a0));
    let dal = upload(t, &[alpha]);
    let dal_re = upload(t, &[alpha.parts().0]);
    let device = c.get_or("mode", "host") == "device";
    let al = if device { ScalarArg::device(&dal) } else { ScalarArg::Host(alpha) };
    let al_re = if device { ScalarArg::device(&dal_re) } else { ScalarArg::Host(alpha.parts().0) };
    let h = t.handle();
    match r {
        "ger" => h.ger(m, n, al, &dx, incx, &dy, incy, &mut da, lda),
        "geru" => h.geru(m, n, al, &dx, incx, &dy, incy, &mut da, lda),
        "gerc" => h.gerc(m, n, al, &dx, incx, &dy, incy, &mut da, lda),
        "syr" => h.syr(uplo, n, al, &dx, incx, &mut da, lda),
        "her" => h.her(uplo, n, al_re, &dx, incx, &mut da, lda),
        "syr2" => h.syr2(uplo, n, al, &dx, incx, &dy, incy, &mut da, lda),
        "her2" => h.her2(uplo, n, al, &dx, incx, &dy, incy, &mut da, lda),
        "spr" => h.spr(uplo, n, al, &dx, incx, &mut da),
        "hpr" => h.hpr(uplo, n, al_re, &dx, incx, &mut da),
        "spr2" => h.spr2(uplo, n, al, &dx, incx, &dy, incy, &mut da),
        "hpr2" => h.hpr2(uplo, n, al, &dx, incx, &dy, incy, &mut da),
        other => panic!("routine {other}"),
    }
    .unwrap_or_else(|e| panic!("{r}: {e}"));
    let got = t.stream.clone_dtoh(&da).expect("download");
    let label = c.label();
    let op = |v: Cd| if conj { v.conj() } else { v };
    let xv = |i: usize| cd(x[at(i, m, incx)]);
    // The second factor: y for ger and the rank-2 forms, x itself for the rank-1 triangles.
    let yv = |j: usize| if full || two { cd(y[at(j, n, incy)]) } else { xv(j) };
    let al = cd(alpha);
    let al2 = if conj { al.conj() } else { al };
    let mut touched = vec![false; got.len()];
    // Reference BLAS returns at once for an empty matrix or alpha = 0 (A unchanged).
    if m > 0 && n > 0 && !alpha.is_zero() {
        for j in 0..n {
            for i in 0..m {
                let Some(k) = index(i, j) else { continue };
                let mut d = al * xv(i) * op(yv(j));
                let mut mag = al.mag() * xv(i).mag() * yv(j).mag();
                if two {
                    d = d + al2 * yv(i) * op(xv(j));
                    mag += al.mag() * yv(i).mag() * xv(j).mag();
                }
                let a = cd(a0[k]);
                let bound = gamma::<T>(2) * (a.mag() + mag);
                if herm && i == j {
                    // The diagonal's imaginary part is neither read nor kept.
                    let want = Cd { re: a.re + d.re, im: Dd::ZERO };
                    let bound = gamma::<T>(2) * (a.re.to_f64().abs() + mag);
                    close(&label, "a", k, got[k], want, if bound.is_nan() { 0.0 } else { bound });
                    assert!(got[k].parts().1 == <T::Real as Scalar>::zero(), "{label}: a[{k}] diagonal imag");
                } else {
                    close(&label, "a", k, got[k], a + d, if bound.is_nan() { 0.0 } else { bound });
                }
                touched[k] = true;
            }
        }
    }
    for (k, (&g, &o)) in got.iter().zip(&a0).enumerate() {
        if !touched[k] {
            let same_nan = |v: T| v.parts().0 != v.parts().0 || v.parts().1 != v.parts().1;
            assert!(
                g == o || (same_nan(g) && same_nan(o) && format!("{g:?}") == format!("{o:?}")),
                "{label}: a[{k}] was written ({o:?} -> {g:?})"
            );
        }
    }
}
