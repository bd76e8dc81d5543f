//! Batched gemv (`gemv_strided_batched`, pointer-array `gemv_batched`) and pointer-array
//! `gemm_batched` against the double-double reference, on every device and engine, from
//! `cases/batched.txt`. Entries lie in separate buffers (`layout=separate`) or in one buffer
//! with gaps (`extra` elements between entries), in order (`layout=shared`) or rotated
//! (`rotated`), both of which kernels run as a strided batch, or with only the inputs rotated
//! (`mixed`: a launch per entry); strided outputs may
//! interleave (`interleave=yes`: `stride_y = 1`, `incy = batch`). Every element outside the
//! outputs (gaps, padding, elements between strided entries, after the end) is checked
//! unchanged.

use crate::common::{cd, close, expand, gamma, run_cases, scalar, Case, Cd, Rng, Target};
use ferrocm_blas::{Operation, Scalar, ScalarArg, C32, C64};
use ferrocm_kernel::runtime::{AsDeviceSliceMut, DeviceBuffer, DeviceSlice, DeviceSliceMut};

const CASES: &str = include_str!("cases/batched.txt");

/// Extra elements after each view (must stay untouched).
const PAD: usize = 3;
/// Work (multiply-adds times batches) above which the CPU executor skips a case.
const EXECUTOR_MAX: usize = 40_000;

fn op(s: &str) -> Operation {
    match s {
        "N" => Operation::N,
        "T" => Operation::T,
        "C" => Operation::C,
        _ => panic!("operation {s}"),
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

fn mspan(rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        ld * (cols - 1) + rows
    }
}

fn at(i: usize, n: usize, inc: isize) -> usize {
    if inc > 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}

/// `op(M)(i, l)` of a column-major matrix with leading dimension `ld`.
fn elem<T: Scalar>(m: &[T], ld: usize, o: Operation, i: usize, l: usize) -> Cd {
    match o {
        Operation::N => cd(m[i + l * ld]),
        Operation::T => cd(m[l + i * ld]),
        Operation::C => cd(m[l + i * ld]).conj(),
    }
}

fn combine(alpha: Cd, sum: Cd, live: bool, beta: Cd, c: Cd) -> Cd {
    let p = if live { alpha * sum } else { Cd::ZERO };
    if beta.is_zero() {
        p
    } else {
        p + beta * c
    }
}

fn finite(bound: f64) -> f64 {
    if bound.is_nan() {
        0.0
    } else {
        bound
    }
}

/// Checks every element not `touched` came back as it went.
fn untouched<T: Scalar>(label: &str, what: &str, got: &[T], before: &[T], touched: &[bool]) {
    for (i, (&g, &o)) in got.iter().zip(before).enumerate() {
        if !touched[i] {
            assert!(
                g == o || (cd(o).re.hi.is_nan() && cd(g).re.hi.is_nan()),
                "{label}: {what}[{i}] was written ({o:?} -> {g:?})"
            );
        }
    }
}

#[test]
fn batched_cases() {
    let cases = expand(CASES);
    assert!(cases.len() > 300, "the case table expands to {} cases", cases.len());
    run_cases(&cases, |c, t, seed| match c.get("type") {
        "s" => run::<f32>(c, t, seed),
        "d" => run::<f64>(c, t, seed),
        "c" => run::<C32>(c, t, seed),
        "z" => run::<C64>(c, t, seed),
        other => panic!("type {other}"),
    });
}

fn run<T: Scalar>(c: &Case, t: &Target, seed: u64) {
    match c.routine.as_str() {
        "gemv_strided" => gemv_strided::<T>(c, t, seed),
        "gemv_batched" => gemv_batched::<T>(c, t, seed),
        "gemm_batched" => gemm_batched::<T>(c, t, seed),
        other => panic!("routine {other}"),
    }
}

/// The alpha/beta arguments of a case (host or device).
struct Scalars<T: Scalar> {
    alpha: T,
    beta: T,
    dal: DeviceBuffer<T>,
    dbe: DeviceBuffer<T>,
    device: bool,
}

impl<T: Scalar> Scalars<T> {
    fn new(c: &Case, t: &Target) -> Self {
        let alpha: T = scalar(c.complex("alpha"));
        let beta: T = scalar(c.complex("beta"));
        let dal = t.stream.clone_htod(&[alpha]).expect("alpha");
        let dbe = t.stream.clone_htod(&[beta]).expect("beta");
        Scalars { alpha, beta, dal, dbe, device: c.get_or("mode", "host") == "device" }
    }
    fn args(&self) -> (ScalarArg<'_, T>, ScalarArg<'_, T>) {
        if self.device {
            (ScalarArg::device(&self.dal), ScalarArg::device(&self.dbe))
        } else {
            (ScalarArg::Host(self.alpha), ScalarArg::Host(self.beta))
        }
    }
}

/// The reference of one gemv entry: checks `y` (entry at `y0[oy..]`) and marks it touched.
#[allow(clippy::too_many_arguments)]
fn check_gemv<T: Scalar>(
    label: &str,
    o: Operation,
    (m, n): (usize, usize),
    (alpha, beta): (T, T),
    (a, lda): (&[T], usize),
    (x, incx): (&[T], isize),
    (y0, got, oy, incy): (&[T], &[T], usize, isize),
    touched: &mut [bool],
) {
    let (lx, ly) = if o == Operation::N { (n, m) } else { (m, n) };
    if m == 0 || n == 0 {
        return;
    }
    let (cal, cbe) = (cd(alpha), cd(beta));
    let live = !alpha.is_zero();
    for i in 0..ly {
        let iy = oy + at(i, ly, incy);
        let (mut sum, mut mag) = (Cd::ZERO, 0.0);
        if live {
            for l in 0..lx {
                let av = elem(a, lda, o, i, l);
                let xv = cd(x[at(l, lx, incx)]);
                sum = sum + av * xv;
                mag += av.mag() * xv.mag();
            }
        }
        let want = combine(cal, sum, live, cbe, cd(y0[iy]));
        let bound = gamma::<T>(lx + 2)
            * (cal.mag() * mag + if beta.is_zero() { 0.0 } else { cbe.mag() * cd(y0[iy]).mag() });
        close(label, "y", iy, got[iy], want, finite(bound));
        touched[iy] = true;
    }
}

fn gemv_strided<T: Scalar>(c: &Case, t: &Target, seed: u64) {
    let o = op(c.get("op"));
    let (m, n, batch) = (c.usize("m"), c.usize("n"), c.usize("batch"));
    if t.executor && (m * n * batch > EXECUTOR_MAX || batch > 100) {
        return;
    }
    let interleave = c.get_or("interleave", "no") == "yes";
    let incx = c.isize("incx");
    let incy = if interleave { batch.max(1) as isize } else { c.isize("incy") };
    let lda = m.max(1) + c.usize_or("pad", 0);
    let extra = c.usize_or("extra", 0);
    let (lx, ly) = if o == Operation::N { (n, m) } else { (m, n) };
    let sa = c.keys.get("stride_a").map_or(mspan(m, n, lda) + extra, |v| v.parse().expect("stride_a"));
    let sx = span(lx, incx) + extra;
    let sy = if interleave { 1 } else { span(ly, incy) + extra };
    let total = |s: usize, one: usize| if batch == 0 { 0 } else { (batch - 1) * s + one } + PAD;
    let mut r = Rng::new(seed);
    let mut a = r.vec::<T>(total(sa, mspan(m, n, lda)));
    let x = r.vec::<T>(total(sx, span(lx, incx)));
    let mut y0 = r.vec::<T>(total(sy, span(ly, incy)));
    match c.get_or("nan", "none") {
        "y" => y0.iter_mut().for_each(|v| *v = nan()),
        "a" if m > 0 && n > 0 => a[m / 2 + (n / 2) * lda] = nan(),
        _ => {}
    }
    let sc = Scalars::<T>::new(c, t);
    let (da, dx) = (t.stream.clone_htod(&a).expect("a"), t.stream.clone_htod(&x).expect("x"));
    let mut dy = t.stream.clone_htod(&y0).expect("y");
    let (al, be) = sc.args();
    let h = t.handle();
    h.gemv_strided_batched(o, m, n, al, &da, lda, sa, &dx, incx, sx, be, &mut dy, incy, sy, batch)
        .expect("gemv_strided_batched");
    let got = t.stream.clone_dtoh(&dy).expect("y back");
    let label = c.label();
    let mut touched = vec![false; got.len()];
    for b in 0..batch {
        check_gemv(
            &label,
            o,
            (m, n),
            (sc.alpha, sc.beta),
            (&a[b * sa..], lda),
            (&x[b * sx..], incx),
            (&y0, &got, b * sy, incy),
            &mut touched,
        );
    }
    untouched(&label, "y", &got, &y0, &touched);
}

/// Device copies of `n` entries of `len` elements each, `len + gap` apart in `host`: one
/// buffer per entry (`separate`), or one buffer for all with entry `i` in slot `slot(i)` of
/// it (`shared`: in order, the layout a strided batch has; `rotated`: the second half of the
/// entries first, a strided batch once the entries are sorted; `mixed`: inputs rotated and
/// outputs in order, which no order of the entries makes a strided batch).
enum Store<T: Scalar> {
    Separate(Vec<DeviceBuffer<T>>),
    Shared(DeviceBuffer<T>, Layout),
}

#[derive(Clone, Copy, PartialEq)]
enum Layout {
    Separate,
    Shared,
    Rotated,
    /// Inputs rotated, outputs in order: no order of the entries is a strided batch.
    Mixed,
}

impl Layout {
    fn of(c: &Case) -> Layout {
        match c.get("layout") {
            "separate" => Layout::Separate,
            "shared" => Layout::Shared,
            "rotated" => Layout::Rotated,
            "mixed" => Layout::Mixed,
            other => panic!("layout {other}"),
        }
    }
    /// The outputs' layout.
    fn outputs(self) -> Layout {
        if self == Layout::Mixed {
            Layout::Shared
        } else {
            self
        }
    }
    /// Where entry `i` of `n` lies, in entries from the start of the host data.
    fn slot(self, i: usize, n: usize) -> usize {
        match self {
            Layout::Rotated | Layout::Mixed => (i + n / 2) % n,
            _ => i,
        }
    }
}

impl<T: Scalar> Store<T> {
    fn new(t: &Target, host: &[T], n: usize, step: usize, layout: Layout) -> Self {
        if layout == Layout::Separate {
            Store::Separate(
                (0..n).map(|i| t.stream.clone_htod(&host[i * step..(i + 1) * step]).expect("up")).collect(),
            )
        } else {
            Store::Shared(t.stream.clone_htod(host).expect("up"), layout)
        }
    }
    fn views(&self, n: usize, step: usize, len: usize) -> Vec<DeviceSlice<'_, T>> {
        match self {
            Store::Separate(v) => v.iter().map(|b| b.slice(..len).expect("view")).collect(),
            Store::Shared(b, l) => (0..n)
                .map(|i| b.slice(l.slot(i, n) * step..).expect("view").slice(..len).expect("view"))
                .collect(),
        }
    }
    fn views_mut(&mut self, n: usize, step: usize, len: usize) -> Vec<DeviceSliceMut<'_, T>> {
        match self {
            Store::Separate(v) => v.iter_mut().map(|b| b.slice_mut(..len).expect("view")).collect(),
            Store::Shared(b, l) => {
                let mut rest = b.as_device_slice_mut();
                let mut by_slot = Vec::new();
                for _ in 0..n {
                    let (head, tail) = rest.split_at_mut(step).expect("split");
                    let (view, _) = head.split_at_mut(len).expect("split");
                    by_slot.push(Some(view));
                    rest = tail;
                }
                (0..n).map(|i| by_slot[l.slot(i, n)].take().expect("one view per slot")).collect()
            }
        }
    }
    fn download(&self, t: &Target) -> Vec<T> {
        match self {
            Store::Separate(v) => v.iter().flat_map(|b| t.stream.clone_dtoh(b).expect("down")).collect(),
            Store::Shared(b, _) => t.stream.clone_dtoh(b).expect("down"),
        }
    }
}

/// Host data for `n` entries of `len` elements `len + gap` apart (with `PAD` after the last).
fn entries<T: Scalar>(r: &mut Rng, n: usize, len: usize, gap: usize) -> Vec<T> {
    r.vec::<T>(n * (len + gap) + PAD)
}

fn gemv_batched<T: Scalar>(c: &Case, t: &Target, seed: u64) {
    let o = op(c.get("op"));
    let (m, n, batch) = (c.usize("m"), c.usize("n"), c.usize("batch"));
    if t.executor && m * n * batch > EXECUTOR_MAX {
        return;
    }
    let layout = Layout::of(c);
    let (incx, incy) = (c.isize("incx"), c.isize("incy"));
    let lda = m.max(1) + c.usize_or("pad", 0);
    let gap = c.usize_or("extra", 0) + PAD;
    let (lx, ly) = if o == Operation::N { (n, m) } else { (m, n) };
    let (la, lxs, lys) = (mspan(m, n, lda), span(lx, incx), span(ly, incy));
    let mut r = Rng::new(seed);
    let mut a = entries::<T>(&mut r, batch, la, gap);
    let x = entries::<T>(&mut r, batch, lxs, gap);
    let mut y0 = entries::<T>(&mut r, batch, lys, gap);
    match c.get_or("nan", "none") {
        "y" => y0.iter_mut().for_each(|v| *v = nan()),
        "a" if m > 0 && n > 0 => a[m / 2 + (n / 2) * lda] = nan(),
        _ => {}
    }
    let sc = Scalars::<T>::new(c, t);
    let (sa, sx, sy) = (la + gap, lxs + gap, lys + gap);
    let da = Store::new(t, &a, batch, sa, layout);
    let dx = Store::new(t, &x, batch, sx, layout);
    let mut dy = Store::new(t, &y0, batch, sy, layout.outputs());
    {
        let (av, xv) = (da.views(batch, sa, la), dx.views(batch, sx, lxs));
        let mut yv = dy.views_mut(batch, sy, lys);
        let (al, be) = sc.args();
        t.handle().gemv_batched(o, m, n, al, &av, lda, &xv, incx, be, &mut yv, incy).expect("gemv_batched");
    }
    let mut got = dy.download(t);
    got.truncate(y0.len());
    let label = c.label();
    let mut touched = vec![false; y0.len()];
    for b in 0..batch {
        let slot = layout.slot(b, batch);
        check_gemv(
            &label,
            o,
            (m, n),
            (sc.alpha, sc.beta),
            (&a[slot * sa..], lda),
            (&x[slot * sx..], incx),
            (&y0, &got, layout.outputs().slot(b, batch) * sy, incy),
            &mut touched,
        );
    }
    // The separate layout's buffers end at the last entry's gap: compare what came back.
    let n_back = got.len();
    untouched(&label, "y", &got, &y0[..n_back], &touched[..n_back]);
}

fn gemm_batched<T: Scalar>(c: &Case, t: &Target, seed: u64) {
    let (ta, tb) = (op(c.get("transa")), op(c.get("transb")));
    let (m, n, k, batch) = (c.usize("m"), c.usize("n"), c.usize("k"), c.usize("batch"));
    if t.executor && (m * n * k * batch > EXECUTOR_MAX || c.get("type") == "c") {
        return;
    }
    let layout = Layout::of(c);
    let pad = c.usize_or("pad", 0);
    let gap = c.usize_or("extra", 0) + PAD;
    let (ra, ca) = if ta == Operation::N { (m, k) } else { (k, m) };
    let (rb, cb) = if tb == Operation::N { (k, n) } else { (n, k) };
    let (lda, ldb, ldc) = (ra.max(1) + pad, rb.max(1) + pad, m.max(1) + pad);
    let (la, lb, lc) = (mspan(ra, ca, lda), mspan(rb, cb, ldb), mspan(m, n, ldc));
    let mut r = Rng::new(seed);
    let mut a = entries::<T>(&mut r, batch, la, gap);
    let b = entries::<T>(&mut r, batch, lb, gap);
    let mut c0 = entries::<T>(&mut r, batch, lc, gap);
    match c.get_or("nan", "none") {
        "c" => c0.iter_mut().for_each(|v| *v = nan()),
        "a" if ra > 0 && ca > 0 => a[ra / 2 + (ca / 2) * lda] = nan(),
        _ => {}
    }
    // `repeat=a`: every entry reads the first A (inputs may repeat).
    let repeat = c.get_or("repeat", "no") == "a";
    let sc = Scalars::<T>::new(c, t);
    let (sa, sb, scs) = (la + gap, lb + gap, lc + gap);
    let da = Store::new(t, &a, batch, sa, layout);
    let db = Store::new(t, &b, batch, sb, layout);
    let mut dc = Store::new(t, &c0, batch, scs, layout.outputs());
    {
        let mut av = da.views(batch, sa, la);
        if repeat && batch > 0 {
            let first = av[0];
            av.iter_mut().for_each(|v| *v = first);
        }
        let bv = db.views(batch, sb, lb);
        let mut cv = dc.views_mut(batch, scs, lc);
        let (al, be) = sc.args();
        t.handle()
            .gemm_batched(ta, tb, m, n, k, al, &av, lda, &bv, ldb, be, &mut cv, ldc)
            .expect("gemm_batched");
    }
    let mut got = dc.download(t);
    got.truncate(c0.len());
    let label = c.label();
    let (cal, cbe) = (cd(sc.alpha), cd(sc.beta));
    let live = k > 0 && !sc.alpha.is_zero();
    let mut touched = vec![false; c0.len()];
    for z in 0..batch {
        let slot = layout.slot(z, batch);
        let (a, b) = (&a[if repeat { layout.slot(0, batch) * sa } else { slot * sa }..], &b[slot * sb..]);
        for j in 0..n {
            for i in 0..m {
                let ic = layout.outputs().slot(z, batch) * scs + i + j * ldc;
                let (mut sum, mut mag) = (Cd::ZERO, 0.0);
                if live {
                    for l in 0..k {
                        let (x, y) = (elem(a, lda, ta, i, l), elem(b, ldb, tb, l, j));
                        sum = sum + x * y;
                        mag += x.mag() * y.mag();
                    }
                }
                let want = combine(cal, sum, live, cbe, cd(c0[ic]));
                let bound = gamma::<T>(k + 2)
                    * (cal.mag() * mag + if sc.beta.is_zero() { 0.0 } else { cbe.mag() * cd(c0[ic]).mag() });
                close(&label, "c", ic, got[ic], want, finite(bound));
                touched[ic] = true;
            }
        }
    }
    let n_back = got.len();
    untouched(&label, "c", &got, &c0[..n_back], &touched[..n_back]);
}
