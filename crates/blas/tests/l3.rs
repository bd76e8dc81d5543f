//! Level 3 beyond GEMM (`syrk`/`herk`, `syr2k`/`her2k`, `symm`/`hemm`, `trmm`, `trsm` and its
//! batched forms) against the double-double reference, on every device and engine, from
//! `cases/l3.txt`. The elements a routine must not read hold NaN (the triangle of `A` opposite
//! `uplo`, a unit diagonal, a Hermitian diagonal's imaginary parts, `C` when `beta = 0`), so a
//! stray read shows in the result; every element outside the output (the other triangle of
//! `C`, rows past the matrix within the leading dimension, padding after the end) is checked
//! unchanged.

use crate::common::{cd, close, expand, gamma, run_cases, scalar, Case, Cd, Rng, Target};
use ferrocm_blas::{Diagonal, Fill, Operation, RealScalar, Scalar, ScalarArg, Side, C32, C64};
use ferrocm_kernel::runtime::{AsDeviceSliceMut, DeviceBuffer};

const CASES: &str = include_str!("cases/l3.txt");

/// Extra elements after each view (must stay untouched).
const PAD: usize = 3;
/// Multiply-adds above which a case skips the CPU executor (which interprets every thread);
/// a row may raise it (`executor=N`).
const EXECUTOR_MAX: usize = 40_000;

fn op(s: &str) -> Operation {
    match s {
        "N" => Operation::N,
        "T" => Operation::T,
        "C" => Operation::C,
        _ => panic!("operation {s}"),
    }
}

fn fill(c: &Case) -> Fill {
    match c.get("uplo") {
        "U" => Fill::Upper,
        "L" => Fill::Lower,
        u => panic!("uplo {u}"),
    }
}

fn side(c: &Case) -> Side {
    match c.get("side") {
        "L" => Side::Left,
        "R" => Side::Right,
        s => panic!("side {s}"),
    }
}

fn diag(c: &Case) -> Diagonal {
    match c.get_or("diag", "N") {
        "N" => Diagonal::NonUnit,
        "U" => Diagonal::Unit,
        d => panic!("diag {d}"),
    }
}

fn upload<T: Scalar>(t: &Target, v: &[T]) -> DeviceBuffer<T> {
    t.stream.clone_htod(v).expect("upload")
}

fn download<T: Scalar>(t: &Target, b: &DeviceBuffer<T>) -> Vec<T> {
    t.stream.clone_dtoh(b).expect("download")
}

fn nan<T: Scalar>() -> T {
    scalar((f64::NAN, f64::NAN))
}

/// `T` with a NaN imaginary part (the real part kept); `v` itself for real types.
fn nan_im<T: Scalar>(v: T) -> T {
    if T::COMPLEX {
        T::from_parts(v.parts().0, T::Real::from_f64(f64::NAN))
    } else {
        v
    }
}

fn finite(bound: f64) -> f64 {
    if bound.is_nan() {
        0.0
    } else {
        bound
    }
}

fn span(rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        ld * (cols - 1) + rows
    }
}

fn ld(c: &Case, rows: usize) -> usize {
    rows.max(1) + c.usize_or("pad", 0)
}

/// Whether `(i, j)` lies in the `uplo` triangle (the diagonal included).
fn inside(uplo: Fill, i: usize, j: usize) -> bool {
    if uplo == Fill::Upper {
        i <= j
    } else {
        i >= j
    }
}

/// `op(M)(i, l)` of a column-major matrix, in double-double.
fn elem<T: Scalar>(m: &[T], ld: usize, o: Operation, i: usize, l: usize) -> Cd {
    match o {
        Operation::N => cd(m[i + l * ld]),
        Operation::T => cd(m[l + i * ld]),
        Operation::C => cd(m[l + i * ld]).conj(),
    }
}

/// Checks every element of `got` that `touched` does not mark is unchanged from `before`.
fn untouched<T: Scalar>(label: &str, what: &str, got: &[T], before: &[T], touched: &[bool]) {
    for (i, (&g, &o)) in got.iter().zip(before).enumerate() {
        if !touched[i] {
            let same = g == o || {
                let (gp, op) = (g.parts(), o.parts());
                (gp.0 == op.0 || (gp.0.is_nan() && op.0.is_nan()))
                    && (gp.1 == op.1 || (gp.1.is_nan() && op.1.is_nan()))
            };
            assert!(same, "{label}: {what}[{i}] was written ({o:?} -> {g:?})");
        }
    }
}

/// The case's scalars in host or device pointer mode.
struct Scalars<S: Scalar> {
    host: S,
    dev: DeviceBuffer<S>,
    device: bool,
}

impl<S: Scalar> Scalars<S> {
    fn new(c: &Case, t: &Target, v: S) -> Scalars<S> {
        Scalars { host: v, dev: upload(t, &[v]), device: c.get_or("mode", "host") == "device" }
    }
    fn arg(&self) -> ScalarArg<'_, S> {
        if self.device {
            ScalarArg::device(&self.dev)
        } else {
            ScalarArg::Host(self.host)
        }
    }
}

fn dispatch(c: &Case, t: &Target, seed: u64) {
    macro_rules! go {
        ($f:ident) => {
            match c.get("type") {
                "s" => $f::<f32>(c, t, seed),
                "d" => $f::<f64>(c, t, seed),
                "c" => $f::<C32>(c, t, seed),
                "z" => $f::<C64>(c, t, seed),
                other => panic!("type {other}"),
            }
        };
    }
    match c.routine.as_str() {
        "syrk" | "herk" | "syr2k" | "her2k" => go!(rank_k),
        "symm" | "hemm" => go!(symm),
        "trmm" => go!(trmm),
        "trsm" | "trsm_strided_batched" | "trsm_batched" => go!(trsm),
        r => panic!("routine {r}"),
    }
}

/// Whether the case is too large for the CPU executor (or a `c` case there: the executor runs
/// the complex kernels through `z`).
fn skip(c: &Case, t: &Target, work: usize) -> bool {
    t.executor
        && (work > c.usize_or("executor", EXECUTOR_MAX)
            || c.get("type") == "c"
            || c.get_or("exec", "yes") == "no")
}

#[test]
fn l3_cases() {
    let cases = expand(CASES);
    assert!(cases.len() > 400, "the case table expands to {} cases", cases.len());
    // `L3_TIMES=1` prints the seconds each routine took per target (for the CI budget).
    let times = std::sync::Mutex::new(std::collections::BTreeMap::<String, (f64, usize)>::new());
    run_cases(&cases, |c, t, seed| {
        let t0 = std::time::Instant::now();
        dispatch(c, t, seed);
        let key = format!("{} {}", t.label, c.routine);
        let mut times = times.lock().unwrap();
        let e = times.entry(key).or_default();
        e.0 += t0.elapsed().as_secs_f64();
        e.1 += 1;
    });
    if std::env::var_os("L3_TIMES").is_some() {
        for (k, (secs, n)) in times.lock().unwrap().iter() {
            eprintln!("{k}: {n} cases, {secs:.2} s");
        }
    }
}

fn rank_k<T: Scalar>(c: &Case, t: &Target, seed: u64) {
    let two = c.routine.ends_with("2k");
    let herm = c.routine.starts_with("her");
    let (uplo, trans) = (fill(c), op(c.get("trans")));
    let (n, k) = (c.usize("n"), c.usize("k"));
    if skip(c, t, n * n * k.max(1) * if two { 2 } else { 1 }) {
        return;
    }
    let mut r = Rng::new(seed);
    let (ra, ca) = if trans == Operation::N { (n, k) } else { (k, n) };
    let (lda, ldc) = (ld(c, ra), ld(c, n));
    let mut a = r.vec::<T>(span(ra, ca, lda) + PAD);
    let b = r.vec::<T>(span(ra, ca, lda) + PAD);
    let mut c0 = r.vec::<T>(span(n, n, ldc) + PAD);
    let (al, be) = (c.complex("alpha"), c.complex("beta"));
    // herk's alpha and the Hermitian forms' beta are real.
    let alpha: T = scalar(if herm && !two { (al.0, 0.0) } else { al });
    let beta: T = scalar(if herm { (be.0, 0.0) } else { be });
    match c.get_or("nan", "none") {
        "c" => c0.iter_mut().for_each(|v| *v = nan()),
        "a" if ra > 0 && ca > 0 => a[ra / 2 + (ca / 2) * lda] = nan(),
        _ => {}
    }
    if herm {
        // The diagonal's imaginary parts of a Hermitian C are not read.
        for j in 0..n {
            c0[j + j * ldc] = nan_im(c0[j + j * ldc]);
        }
    }
    let (da, db, mut dc) = (upload(t, &a), upload(t, &b), upload(t, &c0));
    let h = t.handle();
    let label = c.label();
    let (ar, br) = (alpha.parts().0, beta.parts().0);
    let (sa, sb) = (Scalars::new(c, t, alpha), Scalars::new(c, t, beta));
    let (sar, sbr) = (Scalars::new(c, t, ar), Scalars::new(c, t, br));
    let res = match (two, herm) {
        (false, false) => h.syrk(uplo, trans, n, k, sa.arg(), &da, lda, sb.arg(), &mut dc, ldc),
        (false, true) => h.herk(uplo, trans, n, k, sar.arg(), &da, lda, sbr.arg(), &mut dc, ldc),
        (true, false) => h.syr2k(uplo, trans, n, k, sa.arg(), &da, lda, &db, lda, sb.arg(), &mut dc, ldc),
        (true, true) => h.her2k(uplo, trans, n, k, sa.arg(), &da, lda, &db, lda, sbr.arg(), &mut dc, ldc),
    };
    res.unwrap_or_else(|e| panic!("{label}: {e}"));
    let got = download(t, &dc);
    let (cal, cbe) = (cd(alpha), cd(beta));
    let live = k > 0 && !alpha.is_zero();
    let mut touched = vec![false; got.len()];
    // Reference BLAS's quick return (host scalars): C untouched, its diagonal included.
    let host = c.get_or("mode", "host") == "host";
    if host && n > 0 && (k == 0 || alpha.is_zero()) && beta == T::one() {
        untouched(&label, "c", &got, &c0, &touched);
        return;
    }
    // A Hermitian product pairs op(X)(i, l) with conj(op(Y)(j, l)).
    let second = |m: &[T], j: usize, l: usize| {
        let v = elem(m, lda, trans, j, l);
        if herm {
            v.conj()
        } else {
            v
        }
    };
    for j in 0..n {
        for i in 0..n {
            if !inside(uplo, i, j) {
                continue;
            }
            let ic = i + j * ldc;
            let (mut s1, mut s2, mut mag) = (Cd::ZERO, Cd::ZERO, 0.0);
            if live {
                for l in 0..k {
                    let (x, y) = (elem(&a, lda, trans, i, l), second(&a, j, l));
                    if two {
                        let (yb, xb) = (second(&b, j, l), elem(&b, lda, trans, i, l));
                        s1 = s1 + x * yb;
                        s2 = s2 + xb * y;
                        mag += x.mag() * yb.mag() + xb.mag() * y.mag();
                    } else {
                        s1 = s1 + x * y;
                        mag += x.mag() * y.mag();
                    }
                }
            }
            let a2 = if herm { cal.conj() } else { cal };
            let mut want = if live { cal * s1 + if two { a2 * s2 } else { Cd::ZERO } } else { Cd::ZERO };
            let mut old = cd(c0[ic]);
            if herm && i == j {
                old = Cd { re: old.re, im: crate::common::Dd::ZERO };
            }
            if !beta.is_zero() {
                want = want + cbe * old;
            }
            if herm && i == j {
                want.im = crate::common::Dd::ZERO;
                assert!(
                    got[ic].parts().1 == T::Real::zero(),
                    "{label}: c[{ic}] diagonal imaginary part not zero"
                );
            }
            let bound = gamma::<T>(2 * k + 2)
                * (cal.mag() * mag + if beta.is_zero() { 0.0 } else { cbe.mag() * old.mag() });
            close(&label, "c", ic, got[ic], want, finite(bound));
            touched[ic] = true;
        }
    }
    untouched(&label, "c", &got, &c0, &touched);
}

/// A random `dim x dim` matrix whose triangle opposite `uplo` is NaN (never read); with
/// `nan_diag_im` the diagonal's imaginary parts are NaN too (a Hermitian matrix's).
fn tri_input<T: Scalar>(r: &mut Rng, dim: usize, lda: usize, uplo: Fill, nan_diag_im: bool) -> Vec<T> {
    let mut a = r.vec::<T>(span(dim, dim, lda) + PAD);
    for j in 0..dim {
        for i in 0..dim {
            if !inside(uplo, i, j) {
                a[i + j * lda] = nan();
            } else if i == j && nan_diag_im {
                a[i + j * lda] = nan_im(a[i + j * lda]);
            }
        }
    }
    a
}

fn symm<T: Scalar>(c: &Case, t: &Target, seed: u64) {
    let herm = c.routine == "hemm";
    let (side, uplo) = (side(c), fill(c));
    let (m, n) = (c.usize("m"), c.usize("n"));
    let dim = if side == Side::Left { m } else { n };
    if skip(c, t, m * n * dim.max(1)) {
        return;
    }
    let mut r = Rng::new(seed);
    let (lda, ldb, ldc) = (ld(c, dim), ld(c, m), ld(c, m));
    let mut a = tri_input::<T>(&mut r, dim, lda, uplo, herm);
    let b = r.vec::<T>(span(m, n, ldb) + PAD);
    let mut c0 = r.vec::<T>(span(m, n, ldc) + PAD);
    let alpha: T = scalar(c.complex("alpha"));
    let beta: T = scalar(c.complex("beta"));
    match c.get_or("nan", "none") {
        "c" => c0.iter_mut().for_each(|v| *v = nan()),
        "a" if dim > 0 => a[dim - 1 + (dim - 1) * lda] = nan(),
        _ => {}
    }
    let (da, db, mut dc) = (upload(t, &a), upload(t, &b), upload(t, &c0));
    let (sa, sb) = (Scalars::new(c, t, alpha), Scalars::new(c, t, beta));
    let h = t.handle();
    let label = c.label();
    let res = if herm {
        h.hemm(side, uplo, m, n, sa.arg(), &da, lda, &db, ldb, sb.arg(), &mut dc, ldc)
    } else {
        h.symm(side, uplo, m, n, sa.arg(), &da, lda, &db, ldb, sb.arg(), &mut dc, ldc)
    };
    res.unwrap_or_else(|e| panic!("{label}: {e}"));
    let got = download(t, &dc);
    // The full matrix A stands for.
    let af = |i: usize, j: usize| -> Cd {
        let v = if inside(uplo, i, j) {
            cd(a[i + j * lda])
        } else if herm {
            cd(a[j + i * lda]).conj()
        } else {
            cd(a[j + i * lda])
        };
        if herm && i == j {
            Cd { re: v.re, im: crate::common::Dd::ZERO }
        } else {
            v
        }
    };
    let (cal, cbe) = (cd(alpha), cd(beta));
    let live = !alpha.is_zero();
    let mut touched = vec![false; got.len()];
    for j in 0..n {
        for i in 0..m {
            let ic = i + j * ldc;
            let (mut s, mut mag) = (Cd::ZERO, 0.0);
            if live {
                for l in 0..dim {
                    let (x, y) = if side == Side::Left {
                        (af(i, l), cd(b[l + j * ldb]))
                    } else {
                        (cd(b[i + l * ldb]), af(l, j))
                    };
                    s = s + x * y;
                    mag += x.mag() * y.mag();
                }
            }
            let mut want = if live { cal * s } else { Cd::ZERO };
            if !beta.is_zero() {
                want = want + cbe * cd(c0[ic]);
            }
            let bound = gamma::<T>(dim + 2)
                * (cal.mag() * mag + if beta.is_zero() { 0.0 } else { cbe.mag() * cd(c0[ic]).mag() });
            close(&label, "c", ic, got[ic], want, finite(bound));
            touched[ic] = true;
        }
    }
    untouched(&label, "c", &got, &c0, &touched);
}

/// The triangular matrix `A` stands for: zero outside `uplo`, ones on a unit diagonal.
fn tri_elem<T: Scalar>(a: &[T], lda: usize, uplo: Fill, unit: bool, i: usize, j: usize) -> Cd {
    if !inside(uplo, i, j) {
        Cd::ZERO
    } else if unit && i == j {
        Cd::new(1.0, 0.0)
    } else {
        cd(a[i + j * lda])
    }
}

fn op_tri<T: Scalar>(a: &[T], lda: usize, uplo: Fill, unit: bool, o: Operation, i: usize, l: usize) -> Cd {
    match o {
        Operation::N => tri_elem(a, lda, uplo, unit, i, l),
        Operation::T => tri_elem(a, lda, uplo, unit, l, i),
        Operation::C => tri_elem(a, lda, uplo, unit, l, i).conj(),
    }
}

fn trmm<T: Scalar>(c: &Case, t: &Target, seed: u64) {
    let (side, uplo, trans, dg) = (side(c), fill(c), op(c.get("trans")), diag(c));
    let unit = dg == Diagonal::Unit;
    let (m, n) = (c.usize("m"), c.usize("n"));
    let dim = if side == Side::Left { m } else { n };
    if skip(c, t, m * n * dim.max(1)) {
        return;
    }
    let mut r = Rng::new(seed);
    let (lda, ldb) = (ld(c, dim), ld(c, m));
    let mut a = tri_input::<T>(&mut r, dim, lda, uplo, false);
    if unit {
        for i in 0..dim {
            a[i + i * lda] = nan();
        }
    }
    let alpha: T = scalar(c.complex("alpha"));
    if c.get_or("nan", "none") == "a" && dim > 0 {
        // alpha = 0 must not read A.
        a[if uplo == Fill::Upper { dim - 1 } else { 0 } * lda + dim / 2] = nan();
    }
    let b0 = r.vec::<T>(span(m, n, ldb) + PAD);
    let (da, mut db) = (upload(t, &a), upload(t, &b0));
    let sa = Scalars::new(c, t, alpha);
    let mut h = t.handle();
    // `workspace=N`: the kernels' product goes through blocks of B that fit N bytes.
    if let Some(w) = c.keys.get("workspace") {
        h.set_workspace_limit(Some(w.parse().expect("workspace")));
    }
    let label = c.label();
    h.trmm(side, uplo, trans, dg, m, n, sa.arg(), &da, lda, &mut db, ldb)
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    let got = download(t, &db);
    let cal = cd(alpha);
    let mut touched = vec![false; got.len()];
    for j in 0..n {
        for i in 0..m {
            let ib = i + j * ldb;
            let (mut s, mut mag) = (Cd::ZERO, 0.0);
            if !alpha.is_zero() {
                for l in 0..dim {
                    let (x, y) = if side == Side::Left {
                        (op_tri(&a, lda, uplo, unit, trans, i, l), cd(b0[l + j * ldb]))
                    } else {
                        (cd(b0[i + l * ldb]), op_tri(&a, lda, uplo, unit, trans, l, j))
                    };
                    if !x.is_zero() {
                        s = s + x * y;
                        mag += x.mag() * y.mag();
                    }
                }
            }
            let want = cal * s;
            close(&label, "b", ib, got[ib], want, finite(gamma::<T>(dim + 2) * cal.mag() * mag));
            touched[ib] = true;
        }
    }
    untouched(&label, "b", &got, &b0, &touched);
}

/// `trsm`, `trsm_strided_batched` (`batch`, `extra` elements between matrices) and
/// `trsm_batched` (arrays of views: `layout=separate` buffers, views of one buffer in order,
/// `shared`, or `reversed`): checked by the residual `op(A) X - alpha B` (left) or
/// `X op(A) - alpha B` (right) in double-double, per element within
/// `4 gamma(dim + 2) (|op(A)| |X| + |alpha B|)` (componentwise backward stability of
/// substitution and of the blocked form's GEMM updates), on triangles with `|a_ii| >= dim`.
fn trsm<T: Scalar>(c: &Case, t: &Target, seed: u64) {
    let (side, uplo, trans, dg) = (side(c), fill(c), op(c.get("trans")), diag(c));
    let unit = dg == Diagonal::Unit;
    let (m, n) = (c.usize("m"), c.usize("n"));
    let dim = if side == Side::Left { m } else { n };
    let batch = c.usize_or("batch", 1);
    if skip(c, t, m * n * dim.max(1) * batch.max(1)) {
        return;
    }
    let mut r = Rng::new(seed);
    let (lda, ldb) = (ld(c, dim), ld(c, m));
    let extra = c.usize_or("extra", 0);
    let (one_a, one_b) = (span(dim, dim, lda), span(m, n, ldb));
    let (sa, sb) = (one_a + extra, one_b + extra);
    let mut a = Vec::new();
    for z in 0..batch.max(1) {
        let mut az = tri_input::<T>(&mut r, dim, lda, uplo, false);
        for i in 0..dim {
            // Well conditioned: |a_ii| >= dim, off-diagonal entries in [-1, 1].
            let (re, im) = az[i + i * lda].parts();
            let re = re.to_f64();
            let d = (dim as f64 + 1.0 + re.abs()) * if re < 0.0 { -1.0 } else { 1.0 };
            az[i + i * lda] = if unit { nan() } else { T::from_parts(T::Real::from_f64(d), im) };
        }
        az.truncate(one_a);
        if z + 1 < batch {
            az.extend(r.vec::<T>(extra));
        } else {
            az.extend(r.vec::<T>(PAD));
        }
        a.extend(az);
    }
    let alpha: T = scalar(c.complex("alpha"));
    if c.get_or("nan", "none") == "a" && dim > 0 {
        a[dim / 2 + dim / 2 * lda] = nan();
    }
    let b0 = r.vec::<T>(if batch == 0 { 0 } else { (batch - 1) * sb } + one_b + PAD);
    let sal = Scalars::new(c, t, alpha);
    let h = t.handle();
    let label = c.label();
    let got = match c.routine.as_str() {
        "trsm" => {
            let (da, mut db) = (upload(t, &a), upload(t, &b0));
            h.trsm(side, uplo, trans, dg, m, n, sal.arg(), &da, lda, &mut db, ldb)
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            download(t, &db)
        }
        "trsm_strided_batched" => {
            let (da, mut db) = (upload(t, &a), upload(t, &b0));
            h.trsm_strided_batched(
                side,
                uplo,
                trans,
                dg,
                m,
                n,
                sal.arg(),
                &da,
                lda,
                sa,
                &mut db,
                ldb,
                sb,
                batch,
            )
            .unwrap_or_else(|e| panic!("{label}: {e}"));
            download(t, &db)
        }
        _ if c.get_or("layout", "separate") != "separate" => {
            // Views of one buffer per operand, in order (a strided batch after all) or
            // reversed (entry i is matrix batch - 1 - i of both operands: no constant stride).
            let (da, mut db) = (upload(t, &a), upload(t, &b0));
            let mut av: Vec<_> =
                (0..batch).map(|z| da.slice(z * sa..z * sa + one_a).expect("view")).collect();
            let mut bv = Vec::new();
            let mut rest = db.as_device_slice_mut();
            for z in 0..batch {
                let (head, tail) = rest.split_at_mut(if z + 1 == batch { one_b } else { sb }).expect("split");
                bv.push(head.split_at_mut(one_b).expect("split").0);
                rest = tail;
            }
            if c.get("layout") == "reversed" {
                av.reverse();
                bv.reverse();
            }
            h.trsm_batched(side, uplo, trans, dg, m, n, sal.arg(), &av, lda, &mut bv, ldb)
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            drop(bv);
            download(t, &db)
        }
        _ => {
            // One buffer per entry (the last holding the padding).
            let cut = |v: &[T], z: usize, s: usize, one: usize| {
                v[z * s..if z + 1 == batch { v.len() } else { z * s + one }].to_vec()
            };
            let das: Vec<_> = (0..batch).map(|z| upload(t, &cut(&a, z, sa, one_a))).collect();
            let mut dbs: Vec<_> = (0..batch).map(|z| upload(t, &cut(&b0, z, sb, one_b))).collect();
            h.trsm_batched(side, uplo, trans, dg, m, n, sal.arg(), &das, lda, &mut dbs, ldb)
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            // Reassemble as the strided layout (the gaps unchanged).
            let mut got = b0.clone();
            for (z, d) in dbs.iter().enumerate() {
                let part = download(t, d);
                got[z * sb..z * sb + part.len()].copy_from_slice(&part);
            }
            got
        }
    };
    let cal = cd(alpha);
    let mut touched = vec![false; got.len()];
    for z in 0..batch {
        let (a, b0, x) = (&a[z * sa..], &b0[z * sb..], &got[z * sb..]);
        for j in 0..n {
            for i in 0..m {
                let ib = i + j * ldb;
                touched[z * sb + ib] = true;
                if alpha.is_zero() {
                    close(&label, "b", z * sb + ib, x[ib], Cd::ZERO, 0.0);
                    continue;
                }
                let (mut s, mut mag) = (Cd::ZERO, 0.0);
                for l in 0..dim {
                    let (p, q) = if side == Side::Left {
                        (op_tri(a, lda, uplo, unit, trans, i, l), cd(x[l + j * ldb]))
                    } else {
                        (cd(x[i + l * ldb]), op_tri(a, lda, uplo, unit, trans, l, j))
                    };
                    if !p.is_zero() && !q.is_zero() {
                        s = s + p * q;
                        mag += p.mag() * q.mag();
                    }
                }
                let rhs = cal * cd(b0[ib]);
                let bound = 4.0 * gamma::<T>(dim + 2) * (mag + rhs.mag());
                // The residual op(A) X - alpha B must vanish.
                let res = s - rhs;
                assert!(
                    res.mag() <= bound,
                    "{label}: residual at b[{}] = {:e} > bound {bound:e} (x = {:?})",
                    z * sb + ib,
                    res.mag(),
                    x[ib]
                );
            }
        }
    }
    untouched(&label, "b", &got, &b0, &touched);
}
