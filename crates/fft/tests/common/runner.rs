//! Runs one transform described by a [`Spec`] on a backend and checks it: fresh random input
//! placed in the input layout (gaps filled with noise), the output buffer filled with a
//! pattern first; afterwards every transformed element must match the reference within
//! rocFFT's bounds, every output element outside the layout must still hold the pattern, and
//! an out-of-place input must be unchanged.

use ferrocm_fft::{Complex, Direction, FftFloat, Layout, Plan, PlanBuilder, TransformType};

use super::{check_accuracy, dd, eps_of, fft64, nd_ref, Backend, Rng};

#[derive(Clone, Debug)]
pub struct Spec {
    pub kind: TransformType,
    pub n: Vec<usize>,
    pub batch: usize,
    pub input: Layout,
    pub output: Layout,
    pub in_place: bool,
    pub direction: Direction,
    /// Out of place: both buffers are views starting this many elements into an allocation
    /// (an address that is not a multiple of 16 bytes for odd shifts).
    pub shift: usize,
}

impl Spec {
    pub fn c2c(n: &[usize], batch: usize) -> Spec {
        Spec {
            kind: TransformType::C2C,
            n: n.to_vec(),
            batch,
            input: Layout::packed(),
            output: Layout::packed(),
            in_place: false,
            direction: Direction::Forward,
            shift: 0,
        }
    }
    pub fn real(kind: TransformType, n: &[usize], batch: usize) -> Spec {
        let direction = if kind == TransformType::C2R { Direction::Inverse } else { Direction::Forward };
        Spec { kind, direction, ..Spec::c2c(n, batch) }
    }
    pub fn inverse(mut self) -> Spec {
        self.direction = Direction::Inverse;
        self
    }
    pub fn layouts(mut self, input: Layout, output: Layout) -> Spec {
        self.input = input;
        self.output = output;
        self
    }
    pub fn in_place(mut self) -> Spec {
        self.in_place = true;
        self
    }
    pub fn shifted(mut self, shift: usize) -> Spec {
        self.shift = shift;
        self
    }
}

/// One side's strides as the library resolves them (recomputed here independently).
struct Side {
    sizes: Vec<usize>,
    axes: Vec<usize>,
    dist: usize,
    required: usize,
}

fn side(l: &Layout, sizes: &[usize], batch: usize) -> Side {
    let r = sizes.len();
    let embed = l.embed.clone().unwrap_or_else(|| sizes.to_vec());
    let mut axes = vec![if l.stride == 0 { 1 } else { l.stride }; r];
    for d in (0..r - 1).rev() {
        axes[d] = axes[d + 1] * embed[d + 1];
    }
    let dist = l.distance.unwrap_or(axes[0] * embed[0]);
    let required = (batch - 1) * dist + sizes.iter().zip(&axes).map(|(n, s)| (n - 1) * s).sum::<usize>() + 1;
    Side { sizes: sizes.to_vec(), axes, dist, required }
}

impl Side {
    /// The buffer offset of every logical element, batch-major then row-major.
    fn offsets(&self, batch: usize) -> Vec<usize> {
        let mut v = vec![0usize];
        for (&n, &s) in self.sizes.iter().zip(&self.axes) {
            v = v.iter().flat_map(|&o| (0..n).map(move |i| o + i * s)).collect();
        }
        (0..batch).flat_map(|b| v.iter().map(move |&o| o + b * self.dist)).collect()
    }
}

/// Whether half-spectrum element `i` (batches one after another, last axis `n/2 + 1`) is one
/// of those a Hermitian spectrum holds real: every index 0 or, on an even axis, half its length.
fn must_be_real(i: usize, n: &[usize]) -> bool {
    let r = n.len();
    let mut rem = i;
    (0..r).rev().all(|d| {
        let len = if d == r - 1 { n[d] / 2 + 1 } else { n[d] };
        let k = rem % len;
        rem /= len;
        k == 0 || (n[d] % 2 == 0 && k == n[d] / 2)
    })
}

/// Expands half spectra (last axis `n/2 + 1`) to full spectra by Hermitian symmetry.
fn expand(half: &[Complex<f64>], n: &[usize], batch: usize) -> Vec<Complex<f64>> {
    let r = n.len();
    let h = n[r - 1] / 2 + 1;
    let total: usize = n.iter().product();
    let htotal = total / n[r - 1] * h;
    let mut out = vec![Complex::new(0.0, 0.0); total * batch];
    for b in 0..batch {
        for idx in 0..total {
            // Multi-index of idx.
            let mut rem = idx;
            let mut k = vec![0usize; r];
            for d in (0..r).rev() {
                k[d] = rem % n[d];
                rem /= n[d];
            }
            let (src, conj) = if k[r - 1] < h {
                (k.clone(), false)
            } else {
                (k.iter().zip(n).map(|(&x, &m)| (m - x) % m).collect(), true)
            };
            let mut off = 0;
            for d in 0..r {
                off = off * if d == r - 1 { h } else { n[d] } + src[d];
            }
            let v = half[b * htotal + off];
            out[b * total + idx] = if conj { v.conj() } else { v };
        }
    }
    out
}

fn take_half(full: &[Complex<f64>], n: &[usize], batch: usize) -> Vec<Complex<f64>> {
    let r = n.len();
    let last = n[r - 1];
    let h = last / 2 + 1;
    let _ = batch;
    full.chunks(last).flat_map(|row| row[..h].to_vec()).collect()
}

/// Runs and checks `spec` in precision `T`.
pub fn run<T: FftFloat>(b: &Backend, spec: &Spec, rng: &mut Rng) -> Result<(), String> {
    let what = format!("{T:?}{spec:?}", T = T::NAME);
    let e = |x: ferrocm_fft::FftError| format!("{what}: {x}");
    let stream = b.device.create_stream().map_err(|x| x.to_string())?;
    let plan: Plan<T> = PlanBuilder::new(spec.kind, &spec.n)
        .batch(spec.batch)
        .input_layout(spec.input.clone())
        .output_layout(spec.output.clone())
        .engine(b.engine)
        .build(&stream)
        .map_err(e)?;
    // `FERROCM_FFT_TEST_DESCRIBE=1 cargo test ... -- --nocapture` prints each case's plan.
    if std::env::var("FERROCM_FFT_TEST_DESCRIBE").is_ok() {
        eprintln!("{what}\n{}", plan.describe());
    }
    let n = &spec.n;
    let r = n.len();
    let mut half = n.clone();
    half[r - 1] = n[r - 1] / 2 + 1;
    let (in_sizes, out_sizes) = match spec.kind {
        TransformType::C2C => (n.clone(), n.clone()),
        TransformType::R2C => (n.clone(), half.clone()),
        TransformType::C2R => (half.clone(), n.clone()),
    };
    let si = side(&spec.input, &in_sizes, spec.batch);
    let so = side(&spec.output, &out_sizes, spec.batch);
    let (ioff, ooff) = (si.offsets(spec.batch), so.offsets(spec.batch));
    let total: usize = n.iter().product();
    let inverse = spec.direction == Direction::Inverse;
    let line64 = |x: &mut [Complex<f64>], inv: bool| fft64(x, x.len(), inv);
    let line_dd = |x: &mut [Complex<f64>], inv: bool| dd::fft_line(x, inv);
    let line: &dyn Fn(&mut [Complex<f64>], bool) = if T::NAME == "f64" { &line_dd } else { &line64 };

    // Logical input (f64 copies of the values actually stored) and the reference output.
    let (logical_in, reference): (Vec<Complex<f64>>, Vec<Complex<f64>>) = match spec.kind {
        TransformType::C2C => {
            let x: Vec<Complex<f64>> = (0..ioff.len())
                .map(|_| Complex::new(T::lit(rng.f64()).as_f64(), T::lit(rng.f64()).as_f64()))
                .collect();
            let y = nd_ref(&x, n, spec.batch, inverse, line);
            (x, y)
        }
        TransformType::R2C => {
            let x: Vec<Complex<f64>> =
                (0..ioff.len()).map(|_| Complex::new(T::lit(rng.f64()).as_f64(), 0.0)).collect();
            let y = nd_ref(&x, n, spec.batch, false, line);
            (x, take_half(&y, n, spec.batch))
        }
        TransformType::C2R => {
            let reals: Vec<Complex<f64>> =
                (0..total * spec.batch).map(|_| Complex::new(rng.f64(), 0.0)).collect();
            let spec_full = nd_ref(&reals, n, spec.batch, false, &line64);
            let mut h: Vec<Complex<f64>> = take_half(&spec_full, n, spec.batch)
                .iter()
                .map(|c| Complex::new(T::lit(c.re).as_f64(), T::lit(c.im).as_f64()))
                .collect();
            // The values a Hermitian spectrum holds real (every index 0 or, on an even axis,
            // half its length) get imaginary parts, which must not enter the result (NumPy's,
            // rocFFT's and cuFFT's reading): the reference's inverse of the expanded spectrum
            // moves them into imaginary parts of its output, which it drops.
            for (i, v) in h.iter_mut().enumerate() {
                if must_be_real(i, n) {
                    v.im = T::lit(rng.f64() * 2.0 - 1.0).as_f64();
                }
            }
            let full = expand(&h, n, spec.batch);
            let y = nd_ref(&full, n, spec.batch, true, line);
            (h, y.iter().map(|c| Complex::new(c.re, 0.0)).collect())
        }
    };

    let real_in = spec.kind == TransformType::R2C;
    let real_out = spec.kind == TransformType::C2R;
    // Buffers in reals; complex sides use pairs.
    let in_reals = if real_in { si.required } else { 2 * si.required };
    let out_reals = if real_out { so.required } else { 2 * so.required };
    let mut inbuf: Vec<T> = (0..in_reals + 3).map(|_| T::lit(rng.f64() * 1e3)).collect();
    for (v, &o) in logical_in.iter().zip(&ioff) {
        if real_in {
            inbuf[o] = T::lit(v.re);
        } else {
            inbuf[2 * o] = T::lit(v.re);
            inbuf[2 * o + 1] = T::lit(v.im);
        }
    }
    let pattern: Vec<T> = (0..out_reals + 3).map(|_| T::lit(rng.f64() * 7e3)).collect();

    let got: Vec<T>;
    if spec.in_place {
        let len = in_reals.max(out_reals) + 3;
        let mut buf = inbuf.clone();
        buf.resize(len, T::lit(0.0));
        let mut d = stream.clone_htod(&buf).map_err(|x| x.to_string())?;
        match spec.kind {
            TransformType::C2C => {
                let mut dc = stream.clone_htod(&to_complex(&buf)).map_err(|x| x.to_string())?;
                plan.exec_c2c_inplace(&mut dc, spec.direction).map_err(e)?;
                got = from_complex(&stream.clone_dtoh(&dc).map_err(|x| x.to_string())?);
            }
            TransformType::R2C => {
                plan.exec_r2c_inplace(&mut d).map_err(e)?;
                got = stream.clone_dtoh(&d).map_err(|x| x.to_string())?;
            }
            TransformType::C2R => {
                plan.exec_c2r_inplace(&mut d).map_err(e)?;
                got = stream.clone_dtoh(&d).map_err(|x| x.to_string())?;
            }
        }
    } else {
        let dout_c;
        let dout_r;
        match spec.kind {
            TransformType::C2C => {
                let sh = spec.shift;
                let lead =
                    |v: Vec<Complex<T>>| [vec![Complex::new(T::lit(0.0), T::lit(0.0)); sh], v].concat();
                let din = stream.clone_htod(&lead(to_complex(&inbuf))).map_err(|x| x.to_string())?;
                let mut dout = stream.clone_htod(&lead(to_complex(&pattern))).map_err(|x| x.to_string())?;
                {
                    let din = din.slice(sh..).map_err(|x| x.to_string())?;
                    let mut dout = dout.slice_mut(sh..).map_err(|x| x.to_string())?;
                    plan.exec_c2c(&din, &mut dout, spec.direction).map_err(e)?;
                }
                check_unchanged(
                    &what,
                    &from_complex(&stream.clone_dtoh(&din).map_err(|x| x.to_string())?[sh..]),
                    &inbuf[..2 * ((in_reals + 3) / 2)],
                )?;
                dout_c = stream.clone_dtoh(&dout).map_err(|x| x.to_string())?[sh..].to_vec();
                got = from_complex(&dout_c);
            }
            TransformType::R2C => {
                let din = stream.clone_htod(&inbuf).map_err(|x| x.to_string())?;
                let mut dout = stream.clone_htod(&to_complex(&pattern)).map_err(|x| x.to_string())?;
                plan.exec_r2c(&din, &mut dout).map_err(e)?;
                check_unchanged(&what, &stream.clone_dtoh(&din).map_err(|x| x.to_string())?, &inbuf)?;
                dout_c = stream.clone_dtoh(&dout).map_err(|x| x.to_string())?;
                got = from_complex(&dout_c);
            }
            TransformType::C2R => {
                let din = stream.clone_htod(&to_complex(&inbuf)).map_err(|x| x.to_string())?;
                let mut dout = stream.clone_htod(&pattern).map_err(|x| x.to_string())?;
                plan.exec_c2r(&din, &mut dout).map_err(e)?;
                check_unchanged(
                    &what,
                    &from_complex(&stream.clone_dtoh(&din).map_err(|x| x.to_string())?),
                    &inbuf[..2 * ((in_reals + 3) / 2)],
                )?;
                dout_r = stream.clone_dtoh(&dout).map_err(|x| x.to_string())?;
                got = dout_r;
            }
        }
        // Untouched outside the output layout.
        let mut inside = vec![false; got.len()];
        for &o in &ooff {
            if real_out {
                inside[o] = true;
            } else {
                inside[2 * o] = true;
                inside[2 * o + 1] = true;
            }
        }
        for (i, (g, p)) in got.iter().zip(&pattern).enumerate() {
            if !inside[i] && g.as_f64().to_bits() != p.as_f64().to_bits() {
                return Err(format!("{what}: element {i} outside the output layout was written"));
            }
        }
    }
    let out: Vec<Complex<f64>> = ooff
        .iter()
        .map(|&o| {
            if real_out {
                Complex::new(got[o].as_f64(), 0.0)
            } else {
                Complex::new(got[2 * o].as_f64(), got[2 * o + 1].as_f64())
            }
        })
        .collect();
    let eps = eps_of(T::NAME);
    for bi in 0..spec.batch {
        let per = ooff.len() / spec.batch;
        let s = bi * per..(bi + 1) * per;
        check_accuracy(&format!("{what} batch {bi}"), &out[s.clone()], &reference[s], total, eps)?;
    }
    Ok(())
}

fn check_unchanged<T: FftFloat>(what: &str, now: &[T], before: &[T]) -> Result<(), String> {
    for (i, (a, b)) in now.iter().zip(before).enumerate() {
        if a.as_f64().to_bits() != b.as_f64().to_bits() {
            return Err(format!("{what}: input element {i} was written by an out-of-place transform"));
        }
    }
    Ok(())
}

fn to_complex<T: FftFloat>(r: &[T]) -> Vec<Complex<T>> {
    r.chunks_exact(2).map(|p| Complex::new(p[0], p[1])).collect()
}

fn from_complex<T: FftFloat>(c: &[Complex<T>]) -> Vec<T> {
    c.iter().flat_map(|v| [v.re, v.im]).collect()
}
