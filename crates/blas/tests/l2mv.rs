//! Level 2 structured products and triangular routines (`symv`, `hemv`, `gbmv`, `sbmv`,
//! `hbmv`, `spmv`, `hpmv`, `trmv`, `tbmv`, `tpmv`, `trsv`, `tbsv`, `tpsv`) against the
//! double-double reference, on every device and engine, from `cases/l2mv.txt`.
//!
//! The test builds each stored matrix from its own map of where reference BLAS keeps
//! element `(i, j)` (full, band, or packed by a running counter), expands it to the full
//! dense matrix (mirrored, conjugated, zero outside a band or triangle, ones on a unit
//! diagonal) and computes the reference from that. Every storage element the routine must
//! not read holds NaN: the other triangle of full storage, the unused corners of band
//! arrays, the imaginary parts of a Hermitian diagonal, a unit diagonal, all of `A` when
//! `alpha = 0`; so a stray read shows as NaN in the result. Every element of `y` (`x`)
//! outside the output (between increments, after the end) is checked unchanged.

use crate::common::{cd, close, expand, gamma, run_cases, scalar, Case, Cd, Rng, Target};
use ferrocm_blas::{Diagonal, Fill, Handle, Operation, RealScalar, Result, Scalar, ScalarArg, C32, C64};
use ferrocm_kernel::runtime::DeviceBuffer;

const CASES: &str = include_str!("cases/l2mv.txt");

/// Extra elements after each view (must stay untouched).
const PAD: usize = 3;
/// Elements of the (band of the) matrix above which a case skips the CPU executor (it
/// interprets every thread; the native engine and GPUs run them).
const EXECUTOR_MAX: usize = 20_000;

fn op(s: &str) -> Operation {
    match s {
        "N" => Operation::N,
        "T" => Operation::T,
        "C" => Operation::C,
        _ => panic!("operation {s}"),
    }
}

fn fill(s: &str) -> Fill {
    match s {
        "U" => Fill::Upper,
        "L" => Fill::Lower,
        _ => panic!("fill {s}"),
    }
}

fn nan<T: Scalar>() -> T {
    scalar((f64::NAN, f64::NAN))
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

/// The Hermitian routines, which take complex types only.
trait Elem: Scalar {
    #[allow(clippy::too_many_arguments)]
    fn herm(
        h: &Handle,
        routine: &str,
        fill: Fill,
        n: usize,
        k: usize,
        alpha: ScalarArg<'_, Self>,
        a: &DeviceBuffer<Self>,
        lda: usize,
        x: &DeviceBuffer<Self>,
        incx: isize,
        beta: ScalarArg<'_, Self>,
        y: &mut DeviceBuffer<Self>,
        incy: isize,
    ) -> Result<()>;
}

macro_rules! real_elem {
    ($t:ty) => {
        impl Elem for $t {
            fn herm(
                _: &Handle,
                routine: &str,
                _: Fill,
                _: usize,
                _: usize,
                _: ScalarArg<'_, Self>,
                _: &DeviceBuffer<Self>,
                _: usize,
                _: &DeviceBuffer<Self>,
                _: isize,
                _: ScalarArg<'_, Self>,
                _: &mut DeviceBuffer<Self>,
                _: isize,
            ) -> Result<()> {
                panic!("{routine} is complex only")
            }
        }
    };
}
real_elem!(f32);
real_elem!(f64);

macro_rules! complex_elem {
    ($t:ty) => {
        impl Elem for $t {
            fn herm(
                h: &Handle,
                routine: &str,
                fill: Fill,
                n: usize,
                k: usize,
                alpha: ScalarArg<'_, Self>,
                a: &DeviceBuffer<Self>,
                lda: usize,
                x: &DeviceBuffer<Self>,
                incx: isize,
                beta: ScalarArg<'_, Self>,
                y: &mut DeviceBuffer<Self>,
                incy: isize,
            ) -> Result<()> {
                match routine {
                    "hemv" => h.hemv(fill, n, alpha, a, lda, x, incx, beta, y, incy),
                    "hbmv" => h.hbmv(fill, n, k, alpha, a, lda, x, incx, beta, y, incy),
                    "hpmv" => h.hpmv(fill, n, alpha, a, x, incx, beta, y, incy),
                    _ => panic!("routine {routine}"),
                }
            }
        }
    };
}
complex_elem!(C32);
complex_elem!(C64);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Storage {
    Full,
    Band,
    Packed,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    General,
    Symmetric,
    Hermitian,
    Triangular,
}

/// A stored `m x n` matrix: the storage and, for each `(i, j)` stored, its index.
struct Stored<T> {
    data: Vec<T>,
    /// `index[i + j m]`: where `A(i, j)` is kept, if it is.
    index: Vec<Option<usize>>,
    m: usize,
}

/// Where reference BLAS keeps the elements of an `m x n` matrix: `kl`/`ku` bound the band
/// (or select the triangle), `storage` picks full (leading dimension `lda`), band or packed.
fn layout(
    storage: Storage,
    m: usize,
    n: usize,
    kl: usize,
    ku: usize,
    lda: usize,
) -> (Vec<Option<usize>>, usize) {
    let mut index = vec![None; m * n];
    let mut next = 0;
    for j in 0..n {
        for i in 0..m {
            let inside = i + ku >= j && j + kl >= i;
            if !inside {
                continue;
            }
            let at = match storage {
                Storage::Full => i + j * lda,
                Storage::Band => ku + i - j + j * lda,
                Storage::Packed => {
                    next += 1;
                    next - 1
                }
            };
            index[i + j * m] = Some(at);
        }
    }
    let len = match storage {
        Storage::Packed => n * (n + 1) / 2,
        _ if n == 0 => 0,
        _ => lda * (n - 1) + if storage == Storage::Band { kl + ku + 1 } else { m },
    };
    (index, len)
}

impl<T: Scalar> Stored<T> {
    /// Random stored elements, NaN everywhere else in the storage.
    #[allow(clippy::too_many_arguments)]
    fn new(r: &mut Rng, storage: Storage, m: usize, n: usize, kl: usize, ku: usize, lda: usize) -> Stored<T> {
        let (index, len) = layout(storage, m, n, kl, ku, lda);
        let mut data = vec![nan::<T>(); len + PAD];
        for &p in index.iter().flatten() {
            data[p] = r.vec::<T>(1)[0];
        }
        Stored { data, index, m }
    }

    fn at(&self, i: usize, j: usize) -> Option<usize> {
        self.index[i + j * self.m]
    }
}

/// The dense `m x n` matrix `A` stands for.
fn dense<T: Scalar>(s: &Stored<T>, kind: Kind, unit: bool, n: usize) -> Vec<Cd> {
    let m = s.m;
    let mirrored = matches!(kind, Kind::Symmetric | Kind::Hermitian);
    let mut d = vec![Cd::ZERO; m * n];
    for j in 0..n {
        for i in 0..m {
            d[i + j * m] = if unit && i == j {
                Cd::new(1.0, 0.0)
            } else if let Some(p) = s.at(i, j) {
                if kind == Kind::Hermitian && i == j {
                    Cd::new(cd(s.data[p]).re.hi, 0.0)
                } else {
                    cd(s.data[p])
                }
            } else if let Some(p) = mirrored.then(|| s.at(j, i)).flatten() {
                if kind == Kind::Hermitian {
                    cd(s.data[p]).conj()
                } else {
                    cd(s.data[p])
                }
            } else {
                Cd::ZERO
            };
        }
    }
    d
}

/// `op(D)(i, l)` of the dense `m x n` matrix `d`.
fn op_at(d: &[Cd], m: usize, o: Operation, i: usize, l: usize) -> Cd {
    match o {
        Operation::N => d[i + l * m],
        Operation::T => d[l + i * m],
        Operation::C => d[l + i * m].conj(),
    }
}

/// The storage, stored kl/ku and `lda` of a routine's matrix (`n x n` unless `gbmv`).
struct Shape {
    storage: Storage,
    kind: Kind,
    m: usize,
    kl: usize,
    ku: usize,
    lda: usize,
    /// The band width `k` of the `*b*` routines.
    k: usize,
}

fn shape(c: &Case, n: usize) -> Shape {
    let r = c.routine.as_str();
    let pad = c.usize_or("pad", 0);
    let k = c.usize_or("k", 0);
    let up = c.get_or("fill", "U") == "U";
    let storage = match r {
        "symv" | "hemv" | "trmv" | "trsv" => Storage::Full,
        "gbmv" | "sbmv" | "hbmv" | "tbmv" | "tbsv" => Storage::Band,
        _ => Storage::Packed,
    };
    let kind = match r {
        "gbmv" => Kind::General,
        "symv" | "sbmv" | "spmv" => Kind::Symmetric,
        "hemv" | "hbmv" | "hpmv" => Kind::Hermitian,
        _ => Kind::Triangular,
    };
    let m = if r == "gbmv" { c.usize("m") } else { n };
    let (kl, ku) = match (r, storage) {
        ("gbmv", _) => (c.usize("kl"), c.usize("ku")),
        (_, Storage::Band) if up => (0, k),
        (_, Storage::Band) => (k, 0),
        _ if up => (0, n),
        _ => (n, 0),
    };
    let lda = match storage {
        Storage::Full => m.max(1) + pad,
        Storage::Band => kl + ku + 1 + pad,
        Storage::Packed => 1,
    };
    Shape { storage, kind, m, kl, ku, lda, k }
}

/// Runs the case file's rows for `routines`.
fn family(routines: &[&str]) {
    let cases: Vec<Case> =
        expand(CASES).into_iter().filter(|c| routines.contains(&c.routine.as_str())).collect();
    assert!(cases.len() > 100, "{routines:?}: the case table expands to {} cases", cases.len());
    run_cases(&cases, |c, t, seed| match c.get("type") {
        "s" => dispatch::<f32>(c, t, seed),
        "d" => dispatch::<f64>(c, t, seed),
        "c" => dispatch::<C32>(c, t, seed),
        "z" => dispatch::<C64>(c, t, seed),
        other => panic!("type {other}"),
    });
}

#[test]
fn symv_hemv() {
    family(&["symv", "hemv"]);
}

#[test]
fn gbmv() {
    family(&["gbmv"]);
}

#[test]
fn sbmv_hbmv() {
    family(&["sbmv", "hbmv"]);
}

#[test]
fn spmv_hpmv() {
    family(&["spmv", "hpmv"]);
}

#[test]
fn trmv_tbmv_tpmv() {
    family(&["trmv", "tbmv", "tpmv"]);
}

#[test]
fn trsv_tbsv_tpsv() {
    family(&["trsv", "tbsv", "tpsv"]);
}

fn dispatch<T: Elem>(c: &Case, t: &Target, seed: u64) {
    match c.routine.as_str() {
        "trmv" | "tbmv" | "tpmv" | "trsv" | "tbsv" | "tpsv" => tri::<T>(c, t, seed),
        _ => mv::<T>(c, t, seed),
    }
}

/// Whether the CPU executor skips a matrix of `rows` rows and `band` columns per row.
fn too_big(t: &Target, rows: usize, band: usize) -> bool {
    t.executor && rows * band > EXECUTOR_MAX
}

fn mv<T: Elem>(c: &Case, t: &Target, seed: u64) {
    let n = c.usize("n");
    let sh = shape(c, n);
    let o = op(c.get_or("op", "N"));
    let m = sh.m;
    let (lx, ly) = if o == Operation::N { (n, m) } else { (m, n) };
    if too_big(t, ly, (sh.kl + sh.ku + 1).min(lx)) {
        return;
    }
    let (incx, incy) = (c.isize("incx"), c.isize("incy"));
    let mut r = Rng::new(seed);
    let alpha: T = scalar(c.complex("alpha"));
    let beta: T = scalar(c.complex("beta"));
    let mut a = Stored::<T>::new(&mut r, sh.storage, m, n, sh.kl, sh.ku, sh.lda);
    if sh.kind == Kind::Hermitian {
        // The diagonal's imaginary parts are not read.
        for i in 0..m.min(n) {
            let p = a.at(i, i).expect("diagonal stored");
            let (re, _) = a.data[p].parts();
            a.data[p] = T::from_parts(re, nan::<T>().parts().1);
        }
    }
    let d = dense(&a, sh.kind, false, n);
    let mut x = r.vec::<T>(span(lx, incx) + PAD);
    if c.get_or("inf", "none") == "x" && lx > 0 {
        // Rows whose band misses x[lx / 2] stay finite, as in reference BLAS.
        x[at(lx / 2, lx, incx)] = scalar((f64::INFINITY, 0.0));
    }
    let mut y0 = r.vec::<T>(span(ly, incy) + PAD);
    match c.get_or("nan", "none") {
        "y" => y0.iter_mut().for_each(|v| *v = nan()),
        "a" => a.data.iter_mut().for_each(|v| *v = nan()),
        _ => {}
    }
    let (da, dx, mut dy) = (upload(t, &a.data), upload(t, &x), upload(t, &y0));
    let (dal, dbe) = (upload(t, &[alpha]), upload(t, &[beta]));
    let (al, be) = if c.get_or("mode", "host") == "device" {
        (ScalarArg::device(&dal), ScalarArg::device(&dbe))
    } else {
        (ScalarArg::Host(alpha), ScalarArg::Host(beta))
    };
    let mut h = t.handle();
    // `workspace=0`: no room for the one-pass symmetric product's partials (the two-sweep
    // kernel runs).
    if let Some(w) = c.keys.get("workspace") {
        h.set_workspace_limit(Some(w.parse().expect("workspace")));
    }
    let f = fill(c.get_or("fill", "U"));
    let lda = sh.lda;
    match c.routine.as_str() {
        "symv" => h.symv(f, n, al, &da, lda, &dx, incx, be, &mut dy, incy),
        "gbmv" => h.gbmv(o, m, n, sh.kl, sh.ku, al, &da, lda, &dx, incx, be, &mut dy, incy),
        "sbmv" => h.sbmv(f, n, sh.k, al, &da, lda, &dx, incx, be, &mut dy, incy),
        "spmv" => h.spmv(f, n, al, &da, &dx, incx, be, &mut dy, incy),
        r @ ("hemv" | "hbmv" | "hpmv") => {
            T::herm(&h, r, f, n, sh.k, al, &da, lda, &dx, incx, be, &mut dy, incy)
        }
        r => panic!("routine {r}"),
    }
    .expect("call");
    let got = download(t, &dy);
    let label = c.label();
    let (cal, cbe) = (cd(alpha), cd(beta));
    let mut touched = vec![false; got.len()];
    if m > 0 && n > 0 {
        let live = !alpha.is_zero();
        for i in 0..ly {
            let iy = at(i, ly, incy);
            let (mut sum, mut mag, mut terms) = (Cd::ZERO, 0.0, 0);
            if live {
                for l in 0..lx {
                    let av = op_at(&d, m, o, i, l);
                    if av.is_zero() {
                        continue;
                    }
                    let xv = cd(x[at(l, lx, incx)]);
                    sum = sum + prod(av, xv);
                    mag += av.mag() * xv.mag();
                    terms += 1;
                }
            }
            let p = if live { prod(cal, sum) } else { Cd::ZERO };
            let want = if beta.is_zero() { p } else { p + cbe * cd(y0[iy]) };
            // The band's terms only: the zeros a kernel adds outside it are exact.
            let bound = gamma::<T>(terms + 2)
                * (cal.mag() * mag + if beta.is_zero() { 0.0 } else { cbe.mag() * cd(y0[iy]).mag() });
            // A NaN y (beta != 0) makes the bound NaN: the finite parts must then match.
            close(&label, "y", iy, got[iy], want, if bound.is_nan() { 0.0 } else { bound });
            touched[iy] = true;
        }
    }
    unchanged(&label, "y", &got, &y0, &touched);
}

fn tri<T: Elem>(c: &Case, t: &Target, seed: u64) {
    let n = c.usize("n");
    let sh = shape(c, n);
    if too_big(t, n, (sh.kl + sh.ku + 1).min(n)) {
        return;
    }
    let o = op(c.get("op"));
    let unit = c.get("diag") == "U";
    let solve = c.routine.ends_with("sv");
    let incx = c.isize("incx");
    let mut r = Rng::new(seed);
    let mut a = Stored::<T>::new(&mut r, sh.storage, n, n, sh.kl, sh.ku, sh.lda);
    // Solves: diagonally dominant (|diagonal| >= 3 n, or off-diagonals scaled by 1 / (3 n)
    // under a unit diagonal), so the forward error stays within a small multiple of u.
    let big = 3.0 * n as f64;
    for j in 0..n {
        for i in 0..n {
            let Some(p) = a.at(i, j) else { continue };
            if i == j && unit {
                a.data[p] = nan();
            } else if i == j && solve {
                let (re, im) = a.data[p].parts();
                let re = big + re.to_f64().abs();
                a.data[p] = scalar((if j % 2 == 0 { re } else { -re }, im.to_f64()));
            } else if solve && unit {
                let (re, im) = a.data[p].parts();
                a.data[p] = scalar((re.to_f64() / big, im.to_f64() / big));
            }
        }
    }
    let d = dense(&a, Kind::Triangular, unit, n);
    let mut x0 = r.vec::<T>(span(n, incx) + PAD);
    if c.get_or("inf", "none") == "x" && n > 0 {
        x0[at(n / 2, n, incx)] = scalar((f64::INFINITY, 0.0));
    }
    let mut dx = upload(t, &x0);
    let da = upload(t, &a.data);
    let h = t.handle();
    let f = fill(c.get("fill"));
    let dg = if unit { Diagonal::Unit } else { Diagonal::NonUnit };
    let (lda, k) = (sh.lda, sh.k);
    match c.routine.as_str() {
        "trmv" => h.trmv(f, o, dg, n, &da, lda, &mut dx, incx),
        "tbmv" => h.tbmv(f, o, dg, n, k, &da, lda, &mut dx, incx),
        "tpmv" => h.tpmv(f, o, dg, n, &da, &mut dx, incx),
        "trsv" => h.trsv(f, o, dg, n, &da, lda, &mut dx, incx),
        "tbsv" => h.tbsv(f, o, dg, n, k, &da, lda, &mut dx, incx),
        "tpsv" => h.tpsv(f, o, dg, n, &da, &mut dx, incx),
        r => panic!("routine {r}"),
    }
    .expect("call");
    let got = download(t, &dx);
    let label = c.label();
    let mut touched = vec![false; got.len()];
    let b: Vec<Cd> = (0..n).map(|i| cd(x0[at(i, n, incx)])).collect();
    if solve {
        let lower = (f == Fill::Lower) == (o == Operation::N);
        let want = solve_dd(&d, n, o, lower, &b);
        let norm = want.iter().map(|v| v.mag()).fold(0.0, f64::max);
        let bound = 8.0 * gamma::<T>(n + 2) * norm;
        for (i, w) in want.into_iter().enumerate() {
            let ix = at(i, n, incx);
            close(&label, "x", ix, got[ix], w, bound);
            touched[ix] = true;
        }
    } else {
        for i in 0..n {
            let (mut sum, mut mag, mut terms) = (Cd::ZERO, 0.0, 0);
            for (l, bl) in b.iter().enumerate() {
                let av = op_at(&d, n, o, i, l);
                if av.is_zero() {
                    continue;
                }
                sum = sum + prod(av, *bl);
                mag += av.mag() * bl.mag();
                terms += 1;
            }
            let ix = at(i, n, incx);
            close(&label, "x", ix, got[ix], sum, gamma::<T>(terms + 2) * mag);
            touched[ix] = true;
        }
    }
    unchanged(&label, "x", &got, &x0, &touched);
}

/// `a b` in double-double, or in f64 when a part is not finite (double-double's correction
/// terms would turn `Inf` into `NaN`).
fn prod(a: Cd, b: Cd) -> Cd {
    let parts = [a.re.hi, a.im.hi, b.re.hi, b.im.hi];
    if parts.iter().all(|v| v.is_finite()) {
        return a * b;
    }
    let [ar, ai, br, bi] = parts;
    if ai == 0.0 && bi == 0.0 {
        return Cd::new(ar * br, 0.0);
    }
    Cd::new(ar * br - ai * bi, ar * bi + ai * br)
}

/// `a / b` in double-double (an f64 quotient and one correction step).
fn div(a: Cd, b: Cd) -> Cd {
    let f = |z: Cd| (z.re.to_f64(), z.im.to_f64());
    let q = |(ar, ai): (f64, f64), (br, bi): (f64, f64)| {
        let d = br * br + bi * bi;
        Cd::new((ar * br + ai * bi) / d, (ai * br - ar * bi) / d)
    };
    let q0 = q(f(a), f(b));
    let r = a - b * q0;
    q0 + q(f(r), f(b))
}

/// Solves `op(D) x = b` for the dense triangular `n x n` `d` (`op(D)` lower if `lower`) by
/// substitution in double-double.
fn solve_dd(d: &[Cd], n: usize, o: Operation, lower: bool, b: &[Cd]) -> Vec<Cd> {
    let m = |i: usize, j: usize| op_at(d, n, o, i, j);
    let mut x = vec![Cd::ZERO; n];
    let order: Vec<usize> = if lower { (0..n).collect() } else { (0..n).rev().collect() };
    for &i in &order {
        let mut s = b[i];
        for (j, &xj) in x.iter().enumerate() {
            if j != i && !xj.is_zero() {
                s = s - m(i, j) * xj;
            }
        }
        x[i] = div(s, m(i, i));
    }
    x
}

fn unchanged<T: Scalar>(label: &str, what: &str, got: &[T], orig: &[T], touched: &[bool]) {
    for (i, (&g, &o)) in got.iter().zip(orig).enumerate() {
        if !touched[i] {
            assert!(
                g == o || (cd(o).re.hi.is_nan() && cd(g).re.hi.is_nan()),
                "{label}: {what}[{i}] was written ({o:?} -> {g:?})"
            );
        }
    }
}

fn upload<T: Scalar>(t: &Target, v: &[T]) -> DeviceBuffer<T> {
    t.stream.clone_htod(v).expect("upload")
}

fn download<T: Scalar>(t: &Target, b: &DeviceBuffer<T>) -> Vec<T> {
    t.stream.clone_dtoh(b).expect("download")
}
