//! Plan-time decisions for the kernel engine: how each axis is cut into passes (one block
//! pass, a four-step chain, Bluestein), which radices, how many transforms per block, how
//! threads map to elements, and which tables the kernels read. The result is a list of
//! [`Step`]s with their buffers and layout arguments; [`crate::plan`] compiles and runs them.

use std::collections::HashMap;
use std::fmt::Write as _;

use num_complex::Complex;

use crate::kernels::pointwise::{PointCfg, PointOp};
use crate::kernels::{
    BlockCfg, Bluestein, Cluster, FourStep, Input, Mode, Output, RealTable, RowPairs, Wide,
};
use crate::layout::{Problem, TransformType};
use crate::twiddle;
use crate::FftError;

/// The largest prime a Stockham codelet handles directly; lengths with a larger prime factor
/// go through Bluestein's algorithm.
pub const MAX_PRIME_RADIX: usize = 13;
/// The largest radix of one pass.
const MAX_RADIX: usize = 16;

/// A buffer a step reads or writes: the user's input or output, or the work area at an
/// offset (in reals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Buf {
    Input,
    Output,
    Work(usize),
}

/// One batch dimension of a step: count, input stride, output stride (in the units of each
/// side's buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Dim {
    pub n: usize,
    pub is: usize,
    pub os: usize,
}

#[derive(Clone, Debug)]
pub(crate) enum StepKind {
    Block(BlockCfg),
    Point(PointCfg),
}

/// One launch.
#[derive(Clone, Debug)]
pub(crate) struct Step {
    pub kind: StepKind,
    pub src: Buf,
    pub dst: Buf,
    /// The Stockham table (complex offset and length in the plan's table buffer).
    pub tw: (usize, usize),
    /// The step's other tables (complex offset and length).
    pub aux: (usize, usize),
    pub in_stride: usize,
    pub out_stride: usize,
    pub pair_in: usize,
    pub pair_out: usize,
    pub dims: [Dim; 4],
}

impl Step {
    /// Blocks and threads per block of the launch.
    pub fn launch_shape(&self) -> (u64, u32) {
        match &self.kind {
            StepKind::Block(c) => {
                let blocks = self.dims[0].n.div_ceil(c.per_block) as u64
                    * self.dims[1..].iter().map(|d| d.n as u64).product::<u64>()
                    * c.cluster.as_ref().map_or(1, |cl| cl.q as u64);
                (blocks, c.threads() as u32)
            }
            StepKind::Point(p) => {
                let total = p.positions() as u64 * self.dims.iter().map(|d| d.n as u64).product::<u64>();
                (total.div_ceil(256), 256)
            }
        }
    }
}

/// Bytes of the runs a pass in thread-block clusters moves on its strided sides: its blocks
/// hold this many bytes' worth of transforms (see `Cluster`), or twice as many where a side's
/// runs start off the 32-byte sector boundaries ([`Planner::cluster_run`]).
const CLUSTER_RUN: usize = 64;
/// The most a block of a cluster pass holds, in bytes, per byte of its runs (so several blocks
/// fit a multiprocessor).
const CLUSTER_SHARE_PER_RUN: usize = 512;
/// The rate of a cluster pass against the copy rate, whatever its runs: measured on an H100
/// (`crates/fft/NOTES.md`, s12-r3: the 2D 4096^2 column pass in clusters of 8 took 182.8 us
/// where the row pass moving the same bytes in whole rows took 107.8), so the two cluster
/// barriers and the reads from the other blocks' tiles are priced in.
const CLUSTER_RATE: f64 = 0.6;

/// Device limits the planner works within.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Complex elements one block holds in shared memory.
    pub tile_max: usize,
    pub threads_max: usize,
    /// Bytes of one complex element.
    pub elem_bytes: usize,
    /// The largest thread-block cluster a pass may use (1: no clusters).
    pub cluster_max: usize,
}

impl Limits {
    pub fn new(f64: bool, shared_optin: u64, threads_max: u32) -> Limits {
        let elem_bytes = if f64 { 16 } else { 8 };
        // Each element held in registers at a pass boundary: at most 16 per thread.
        let by_threads = threads_max as usize * 16;
        let padded = |n: usize| (n + (n >> if f64 { 3 } else { 4 }) + 2) * elem_bytes;
        let mut tile = 1usize << 20;
        while tile > 64 && (tile > by_threads || padded(tile) as u64 > shared_optin) {
            tile /= 2;
        }
        Limits { tile_max: tile, threads_max: threads_max as usize, elem_bytes, cluster_max: 1 }
    }

    /// These limits on a device whose launches may group up to `blocks` blocks in a cluster.
    pub fn with_clusters(self, blocks: u32) -> Limits {
        Limits { cluster_max: blocks.max(1) as usize, ..self }
    }

    /// The fewest transforms per block of a pass with a strided side: two, so each piece is at
    /// least 16 bytes (in `f32` two blocks side by side share each 32-byte sector through L2).
    fn c_min_strided(&self) -> usize {
        2
    }

    /// The longest transform a pass with a strided side holds.
    pub fn strided_max(&self) -> usize {
        self.tile_max / self.c_min_strided()
    }
}

/// Of the ascending `divisors`, the ones nearest the cube root of `n` from below and from above
/// (the first factor of a three-pass split).
fn near_cube_root(divisors: &[usize], n: usize) -> impl Iterator<Item = usize> + use<'_> {
    let root = (n as f64).cbrt();
    let below = divisors.iter().rev().find(|&&d| d as f64 <= root);
    let above = divisors.iter().find(|&&d| d as f64 > root);
    [below, above].into_iter().flatten().copied()
}

/// The prime factors of `n`, ascending.
pub(crate) fn factor(mut n: usize) -> Vec<usize> {
    let mut f = Vec::new();
    let mut p = 2;
    while p * p <= n {
        while n % p == 0 {
            f.push(p);
            n /= p;
        }
        p += 1;
    }
    if n > 1 {
        f.push(n);
    }
    f
}

/// Whether `n` factors into primes a codelet handles.
pub(crate) fn smooth(n: usize) -> bool {
    factor(n).iter().all(|&p| p <= MAX_PRIME_RADIX)
}

/// Radices for a smooth `n`: the primes packed first-fit (largest first) into radices of at
/// most 16, in descending order (the first pass has no twiddles).
pub(crate) fn radices(n: usize) -> Vec<usize> {
    let mut primes = factor(n);
    primes.reverse();
    let mut bins: Vec<usize> = Vec::new();
    for p in primes {
        let mut best: Option<usize> = None;
        for (i, &b) in bins.iter().enumerate() {
            if b * p <= MAX_RADIX && best.is_none_or(|j| bins[j] > b) {
                best = Some(i);
            }
        }
        match best {
            Some(i) => bins[i] *= p,
            None => bins.push(p),
        }
    }
    bins.sort_unstable_by(|a, b| b.cmp(a));
    if bins.is_empty() {
        bins.push(1);
    }
    bins
}

/// Bluestein's FFT length for `n`: the smallest power of two at least `2n - 1`.
pub(crate) fn bluestein_len(n: usize) -> usize {
    (2 * n - 1).next_power_of_two()
}

/// Tables shared by the steps of a plan, deduplicated by what they hold.
#[derive(Default)]
pub(crate) struct Tables {
    pub data: Vec<Complex<f64>>,
    regions: HashMap<String, (usize, usize)>,
}

impl Tables {
    fn region(&mut self, key: String, make: impl FnOnce() -> Vec<Complex<f64>>) -> (usize, usize) {
        if let Some(r) = self.regions.get(&key) {
            return *r;
        }
        let t = make();
        let r = (self.data.len(), t.len());
        self.data.extend(t);
        self.regions.insert(key, r);
        r
    }
}

/// Bluestein's filter over `m` for length `n`: the FFT of the conjugate chirp placed
/// circularly, divided by `m` (so the unnormalised inverse gives the convolution).
fn bluestein_filter(n: usize, m: usize) -> Vec<Complex<f64>> {
    let w = twiddle::chirp(n);
    let mut b = vec![Complex::new(0.0, 0.0); m];
    for j in 0..n {
        b[j] = w[j].conj();
        if j > 0 {
            b[m - j] = w[j].conj();
        }
    }
    rustfft::FftPlanner::<f64>::new().plan_fft_forward(m).process(&mut b);
    let s = 1.0 / m as f64;
    b.iter().map(|v| v * s).collect()
}

/// How one side of a step addresses a logical element: buffer units per element and the
/// offset between the reals of a pair (0 if not paired).
#[derive(Clone, Copy, Debug)]
struct Side {
    stride: usize,
    pair: usize,
}

/// One way to plan part of a transform, tried on a copy of the planner (see
/// [`Planner::cheapest`]).
type Candidate<'a> = Box<dyn Fn(&mut Planner) -> Result<(), FftError> + 'a>;

/// The relative rate at which global memory moves in contiguous runs of `bytes` (1.0: the
/// device copy rate). Whole 128-byte lines move at the copy rate; shorter runs waste the rest of
/// the sectors and lines they touch. Fitted to the H100 runs in `crates/fft/NOTES.md` (passes
/// with 256-byte runs at 0.93 of the copy rate, 32-byte runs on both sides at about 0.5);
/// the 16-, 64-byte and 8-byte points are interpolated, not measured.
fn run_rate(bytes: usize) -> f64 {
    match bytes {
        128.. => 1.0,
        64..=127 => 0.75,
        32..=63 => 0.5,
        16..=31 => 0.3,
        _ => 0.15,
    }
}

/// What one more launch costs [`Planner::cheapest`], in bytes at the copy rate: about 1.3 us
/// between back-to-back kernels at 3 TB/s. It decides only between plans of small transforms,
/// where a pass's traffic is about as small (and stays in L2).
const LAUNCH_BYTES: f64 = 4e6;

/// Builds the steps of a plan.
pub(crate) struct Planner {
    pub limits: Limits,
    pub f64: bool,
    pub tables: Tables,
    pub steps: Vec<Step>,
    /// Reals of work area used.
    pub work: usize,
}

/// Merges batch dimensions that are one dimension in both layouts and pads to four.
fn pack_dims(mut dims: Vec<Dim>) -> Result<[Dim; 4], FftError> {
    dims.retain(|d| d.n > 1);
    let mut i = 0;
    while i < dims.len() {
        let mut merged = false;
        for j in 0..dims.len() {
            if i != j && dims[j].is == dims[i].n * dims[i].is && dims[j].os == dims[i].n * dims[i].os {
                let (a, b) = (dims[i], dims[j]);
                dims[i] = Dim { n: a.n * b.n, is: a.is, os: a.os };
                dims.remove(j);
                merged = true;
                break;
            }
        }
        if !merged {
            i += 1;
        }
    }
    if dims.len() > 4 {
        return Err(FftError::Unsupported {
            what: format!("{} independent batch dimensions in one pass (at most 4)", dims.len()),
        });
    }
    let one = Dim { n: 1, is: 0, os: 0 };
    let mut out = [one; 4];
    for (o, d) in out.iter_mut().zip(dims) {
        *o = d;
    }
    Ok(out)
}

impl Planner {
    pub fn new(limits: Limits, f64: bool) -> Planner {
        Planner { limits, f64, tables: Tables::default(), steps: Vec::new(), work: 0 }
    }

    fn alloc_work(&mut self, complex: usize) -> Buf {
        // Regions start on 16 bytes, so 16-byte accesses (`Wide`) hold in the work area.
        self.work = self.work.next_multiple_of(4);
        let b = Buf::Work(self.work);
        self.work += 2 * complex;
        b
    }

    /// Plans a whole problem.
    pub fn plan(&mut self, p: &Problem, inverse: bool) -> Result<(), FftError> {
        let r = p.n.len();
        let last = r - 1;
        match p.kind {
            TransformType::C2C => {
                let mut src = (Buf::Input, &p.input);
                for d in (0..r).rev() {
                    self.c2c_axis(p, d, src.0, src.1, inverse)?;
                    src = (Buf::Output, &p.output);
                }
            }
            TransformType::R2C if self.row_pairs(p) => self.r2c_row_pairs(p)?,
            TransformType::R2C => {
                let dims = other_dims(
                    &p.n,
                    last,
                    &p.input.axes,
                    &p.output.axes,
                    p.batch,
                    p.input.dist,
                    p.output.dist,
                );
                self.real_axis(
                    p.n[last],
                    true,
                    p.input.axes[last],
                    p.output.axes[last],
                    dims,
                    Buf::Input,
                    Buf::Output,
                )?;
                let half = p.output_sizes();
                for d in (0..last).rev() {
                    let dims = other_dims(
                        &half,
                        d,
                        &p.output.axes,
                        &p.output.axes,
                        p.batch,
                        p.output.dist,
                        p.output.dist,
                    );
                    let s = p.output.axes[d];
                    self.complex_axis(
                        half[d],
                        Side { stride: s, pair: 0 },
                        Side { stride: s, pair: 0 },
                        dims,
                        Buf::Output,
                        Buf::Output,
                        false,
                    )?;
                }
            }
            TransformType::C2R => {
                let half = p.input_sizes();
                let (mut src, mut s_axes, mut s_dist) = (Buf::Input, p.input.axes.clone(), p.input.dist);
                if r > 1 {
                    // The other axes first, into a packed half spectrum in the work area, so the
                    // input is never written.
                    let total: usize = half.iter().product::<usize>() * p.batch;
                    let wbuf = self.alloc_work(total);
                    let mut w_axes = vec![1usize; r];
                    for d in (0..last).rev() {
                        w_axes[d] = w_axes[d + 1] * half[d + 1];
                    }
                    let w_dist = w_axes[0] * half[0];
                    for d in (0..last).rev() {
                        let dims = other_dims(&half, d, &s_axes, &w_axes, p.batch, s_dist, w_dist);
                        self.complex_axis(
                            half[d],
                            Side { stride: s_axes[d], pair: 0 },
                            Side { stride: w_axes[d], pair: 0 },
                            dims,
                            src,
                            wbuf,
                            true,
                        )?;
                        src = wbuf;
                        s_axes = w_axes.clone();
                        s_dist = w_dist;
                    }
                }
                let dims = other_dims(&p.n, last, &s_axes, &p.output.axes, p.batch, s_dist, p.output.dist);
                self.real_axis(p.n[last], false, s_axes[last], p.output.axes[last], dims, src, Buf::Output)?;
            }
        }
        Ok(())
    }

    /// Whether a multi-dimensional R2C takes its rows in pairs (`RowPairs`): the last axis
    /// even with its half-length FFT two to a block, and the axis before it even and as long
    /// as one strided pass holds only two of (so its column pass gets four per block instead).
    fn row_pairs(&self, p: &Problem) -> bool {
        let r = p.n.len();
        if r < 2 {
            return false;
        }
        let (n0, n1) = (p.n[r - 2], p.n[r - 1]);
        let tile = self.limits.tile_max;
        n1 % 2 == 0 && smooth(n1 / 2) && n1 <= tile && n0 % 2 == 0 && 4 * n0 > tile && 2 * n0 <= tile
    }

    /// A multi-dimensional R2C with row pairs: pass 1 the rows' half spectra and the radix-2
    /// step of the axis before into a packed work area (rows `2r`, `2r + 1`; out of place, so
    /// in-place execution stays safe), pass 2 that axis as a transform of half its length over
    /// every other row into the output, then the other axes in place.
    fn r2c_row_pairs(&mut self, p: &Problem) -> Result<(), FftError> {
        let r = p.n.len();
        let (last, d) = (r - 1, r - 2);
        let half = p.output_sizes();
        let wbuf = self.alloc_work(half.iter().product::<usize>() * p.batch);
        let mut w_axes = vec![1usize; r];
        for e in (0..last).rev() {
            w_axes[e] = w_axes[e + 1] * half[e + 1];
        }
        let w_dist = w_axes[0] * half[0];
        let dims = other_dims(&p.n, last, &p.input.axes, &w_axes, p.batch, p.input.dist, w_dist);
        let s_in = p.input.axes[last];
        self.block_dim0(
            p.n[last] / 2,
            Input::RealPairs,
            Output::HalfSpectrumPairs,
            Side { stride: 2 * s_in, pair: s_in },
            Side { stride: 1, pair: 0 },
            dims,
            None,
            Some(0),
            Pairing::Rows(p.n[d]),
            Buf::Input,
            wbuf,
            false,
        )?;
        let mut dims = other_dims(&half, d, &w_axes, &p.output.axes, p.batch, w_dist, p.output.dist);
        dims.push(Dim { n: 2, is: w_axes[d], os: p.output.axes[d] });
        let a = Side { stride: 2 * w_axes[d], pair: 0 };
        let b = Side { stride: 2 * p.output.axes[d], pair: 0 };
        self.complex_axis(p.n[d] / 2, a, b, dims, wbuf, Buf::Output, false)?;
        for e in (0..d).rev() {
            let dims =
                other_dims(&half, e, &p.output.axes, &p.output.axes, p.batch, p.output.dist, p.output.dist);
            let s = Side { stride: p.output.axes[e], pair: 0 };
            self.complex_axis(half[e], s, s, dims, Buf::Output, Buf::Output, false)?;
        }
        Ok(())
    }

    fn c2c_axis(
        &mut self,
        p: &Problem,
        d: usize,
        src: Buf,
        src_l: &crate::layout::Strides,
        inverse: bool,
    ) -> Result<(), FftError> {
        let dims = other_dims(&p.n, d, &src_l.axes, &p.output.axes, p.batch, src_l.dist, p.output.dist);
        let a = Side { stride: src_l.axes[d], pair: 0 };
        let b = Side { stride: p.output.axes[d], pair: 0 };
        self.complex_axis(p.n[d], a, b, dims, src, Buf::Output, inverse)
    }

    /// A complex transform of length `n` along one axis.
    #[allow(clippy::too_many_arguments)]
    fn complex_axis(
        &mut self,
        n: usize,
        a: Side,
        b: Side,
        dims: Vec<Dim>,
        src: Buf,
        dst: Buf,
        inverse: bool,
    ) -> Result<(), FftError> {
        self.chain(n, Input::Complex, Output::Complex, a, b, dims, src, dst, inverse)
    }

    /// The last axis of a real transform (`forward`: R2C, else C2R); strides in the real side's
    /// reals and the complex side's complex values.
    #[allow(clippy::too_many_arguments)]
    fn real_axis(
        &mut self,
        n: usize,
        forward: bool,
        s_in: usize,
        s_out: usize,
        dims: Vec<Dim>,
        src: Buf,
        dst: Buf,
    ) -> Result<(), FftError> {
        let even = n % 2 == 0 && n > 1;
        let (logical, input, output, a, b) = match (forward, even) {
            (true, true) => (
                n / 2,
                Input::RealPairs,
                Output::HalfSpectrumPairs,
                Side { stride: 2 * s_in, pair: s_in },
                Side { stride: s_out, pair: 0 },
            ),
            (true, false) => (
                n,
                Input::Real,
                Output::HalfSpectrum,
                Side { stride: s_in, pair: 0 },
                Side { stride: s_out, pair: 0 },
            ),
            (false, true) => (
                n / 2,
                Input::HalfSpectrumPairs,
                Output::RealPairs,
                Side { stride: s_in, pair: 0 },
                Side { stride: 2 * s_out, pair: s_out },
            ),
            (false, false) => (
                n,
                Input::HalfSpectrum,
                Output::Real,
                Side { stride: s_in, pair: 0 },
                Side { stride: s_out, pair: 0 },
            ),
        };
        let inverse = !forward;
        if self.fits_block(logical, a, b, &dims) {
            return self.block(logical, input, output, a, b, dims, None, src, dst, inverse);
        }
        if !smooth(logical) {
            return self.bluestein_multi(logical, input, output, a, b, dims, src, dst, inverse);
        }
        if output == Output::HalfSpectrumPairs && self.unfold_split(logical, a, &dims).is_some() {
            // Two passes with the unfold in the second one's store, or the complex part as a
            // chain of its own (three passes where long) and the unfold as a pointwise step.
            let d2 = dims.clone();
            return self.cheapest(vec![
                Box::new(move |p: &mut Planner| {
                    p.chain(logical, input, output, a, b, dims.clone(), src, dst, false)
                }),
                Box::new(move |p: &mut Planner| {
                    p.real_points(logical, input, output, a, b, d2.clone(), src, dst)
                }),
            ]);
        }
        self.real_points(logical, input, output, a, b, dims, src, dst)
    }

    /// A real transform too long for one block as a complex chain, with the folds as
    /// pointwise steps (or, for an even-length C2R along an axis inner to its batches, the
    /// fold in the first pass's reads).
    #[allow(clippy::too_many_arguments)]
    fn real_points(
        &mut self,
        logical: usize,
        input: Input,
        output: Output,
        a: Side,
        b: Side,
        dims: Vec<Dim>,
        src: Buf,
        dst: Buf,
    ) -> Result<(), FftError> {
        let count: usize = dims.iter().map(|d| d.n).product();
        let wdims = |dims: &Vec<Dim>, len: usize, to_work: bool| -> Vec<Dim> {
            let mut acc = len;
            dims.iter()
                .map(|d| {
                    let w = acc;
                    acc *= d.n;
                    if to_work {
                        Dim { n: d.n, is: d.is, os: w }
                    } else {
                        Dim { n: d.n, is: w, os: d.os }
                    }
                })
                .collect()
        };
        let unit = Side { stride: 1, pair: 0 };
        match (input, output) {
            (Input::RealPairs, _) | (Input::Real, _) => {
                let w = self.alloc_work(logical * count);
                let pre = if input == Input::RealPairs { Input::RealPairs } else { Input::Real };
                self.chain(
                    logical,
                    pre,
                    Output::Complex,
                    a,
                    unit,
                    wdims(&dims, logical, true),
                    src,
                    w,
                    false,
                )?;
                let cfg = PointCfg {
                    op: PointOp::Store { output, n: logical, chirp: None },
                    inverse: false,
                    real: RealTable::default(),
                    dims: 0,
                };
                self.point(cfg, unit, b, wdims(&dims, logical, false), w, dst, logical)
            }
            (Input::HalfSpectrumPairs, _) if dims.iter().all(|d| d.n == 1 || d.is >= a.stride) => {
                // The fold in the first pass's reads (`FourStep`): each half-spectrum value is
                // read twice (as X[j] and as X[n - j]) instead of a separate pass over it.
                self.chain(logical, input, output, a, b, dims, src, dst, true)
            }
            _ => {
                let w = self.alloc_work(logical * count);
                let cfg = PointCfg {
                    op: PointOp::Load { input, n: logical, pad: logical, chirp: None },
                    inverse: true,
                    real: RealTable::default(),
                    dims: 0,
                };
                self.point(cfg, a, unit, wdims(&dims, logical, true), src, w, logical)?;
                let post = if output == Output::RealPairs { Output::RealPairs } else { Output::Real };
                self.chain(
                    logical,
                    Input::Complex,
                    post,
                    unit,
                    b,
                    wdims(&dims, logical, false),
                    w,
                    dst,
                    false,
                )
            }
        }
    }

    /// Whether a length-`n` transform fits one block pass with these strides.
    fn fits_block(&self, n: usize, a: Side, b: Side, dims: &[Dim]) -> bool {
        let len = if smooth(n) { n } else { bluestein_len(n) };
        let (_, lm, sm) = choose_dim0(a.stride, b.stride, dims, None);
        let strided = lm == Mode::Col || sm == Mode::Col;
        let c_min = if strided { self.limits.c_min_strided() } else { 1 };
        len * c_min <= self.limits.tile_max
    }

    /// The four-step split of an even-length R2C whose unfold can be fused into pass B (see
    /// `BlockCfg::mirror`): the axis contiguous in the input (so pass B's transforms `k1` are
    /// batch dimension 0), `n1` even, `n2` within one strided pass. Pass B's blocks hold pairs
    /// of mirrored transforms, so `n2` is taken short enough for two pairs per block if a
    /// split allows it (16-byte pieces on its strided output).
    fn unfold_split(&self, n: usize, a: Side, dims: &[Dim]) -> Option<(usize, usize)> {
        if !smooth(n) || !dims.iter().all(|d| d.n == 1 || d.is >= a.stride) {
            return None;
        }
        let max = self.limits.strided_max();
        let even_n1 = |d: &usize| n % d == 0 && d % 2 == 0;
        let within = |n2_max: usize| {
            (2..=max.min(n / 2))
                .filter(even_n1)
                .filter(|&d| n / d <= n2_max)
                .min_by_key(|&d| d.abs_diff(n / d))
                .map(|d| (d, n / d))
        };
        within(self.limits.tile_max / 4).or_else(|| within(max))
    }

    /// Three-pass splits `n = m1 m2 n2` of an even-length R2C whose unfold is fused into the
    /// last pass (see [`Planner::chain_split`]): `n2` near the cube root of `n` (on either side,
    /// short enough for two mirrored pairs per block), `n1 = n / n2` even and split into two
    /// strided passes `m1 m2`. Only where the axis is innermost in the input, as for
    /// [`Planner::unfold_split`].
    fn unfold_three_pass_candidates(&self, n: usize, a: Side, dims: &[Dim]) -> Vec<(usize, usize, usize)> {
        if !smooth(n) || !dims.iter().all(|d| d.n == 1 || d.is >= a.stride) {
            return Vec::new();
        }
        let max = self.limits.strided_max();
        let n2s: Vec<usize> =
            (2..=(self.limits.tile_max / 4).min(n / 4)).filter(|&d| n % d == 0 && (n / d) % 2 == 0).collect();
        let mut v = Vec::new();
        for n2 in near_cube_root(&n2s, n) {
            let n1 = n / n2;
            let (m1, m2) = self.split(n1);
            if m1 <= max && m2 <= max && m1 > 1 && m2 > 1 {
                v.push((m1, m2, n2));
            }
        }
        v
    }

    /// A transform along one axis as one block pass, a four-step chain or Bluestein. With
    /// `output` `HalfSpectrumPairs` (an even-length R2C, only when [`Planner::unfold_split`]
    /// allows it) the chain is two passes and the second one unfolds. Otherwise the split is
    /// the cheapest of [`Planner::split_candidates`] by [`Planner::traffic`].
    #[allow(clippy::too_many_arguments)]
    fn chain(
        &mut self,
        n: usize,
        input: Input,
        output: Output,
        a: Side,
        b: Side,
        dims: Vec<Dim>,
        src: Buf,
        dst: Buf,
        inverse: bool,
    ) -> Result<(), FftError> {
        let fits = self.fits_block(n, a, b, &dims);
        let plain = input == Input::Complex && output == Output::Complex && smooth(n);
        if fits && (!plain || n < 64) {
            return self.block(n, input, output, a, b, dims, None, src, dst, inverse);
        }
        if !smooth(n) {
            return self.bluestein_multi(n, input, output, a, b, dims, src, dst, inverse);
        }
        if output == Output::HalfSpectrumPairs {
            // Two passes (the unfold in the second), or three where pass A of a shorter second
            // pass is itself split in two.
            let (n1, n2) = self.unfold_split(n, a, &dims).expect("checked by the caller");
            let mut options: Vec<Candidate<'_>> = vec![{
                let dims = dims.clone();
                Box::new(move |p: &mut Planner| {
                    p.chain_split(n1, n2, None, input, output, a, b, dims.clone(), src, dst, inverse)
                })
            }];
            options.extend(self.unfold_three_pass_candidates(n, a, &dims).into_iter().map(|(m1, m2, n2)| {
                let dims = dims.clone();
                Box::new(move |p: &mut Planner| {
                    p.chain_split(m1 * m2, n2, Some(m1), input, output, a, b, dims.clone(), src, dst, inverse)
                }) as Candidate<'_>
            }));
            return self.cheapest(options);
        }
        // The splits; and where the transform fits one block pass, that pass too (its strided
        // sides may move runs so short that a chain of shorter transforms with long runs costs
        // less).
        let mut options: Vec<Candidate<'_>> = Vec::new();
        if fits {
            let dims = dims.clone();
            options.push(Box::new(move |p: &mut Planner| {
                p.block(n, input, output, a, b, dims.clone(), None, src, dst, inverse)
            }));
        }
        if let Some(q) = self.cluster_split(n, a, b, &dims) {
            let dims = dims.clone();
            options.push(Box::new(move |p: &mut Planner| {
                p.cluster_pass(n, q, a, b, dims.clone(), src, dst, inverse)
            }));
        }
        options.extend(self.split_candidates(n).into_iter().map(|(n1, n2)| {
            let dims = dims.clone();
            Box::new(move |p: &mut Planner| {
                p.chain_split(n1, n2, None, input, output, a, b, dims.clone(), src, dst, inverse)
            }) as Candidate<'_>
        }));
        self.cheapest(options)
    }

    /// The cluster size `q` for a complex transform of `n` strided on both sides (a column
    /// axis) too long for a block to hold a whole run's worth of them ([`Planner::cluster_run`]
    /// bytes per element position): the smallest power of two up to the device's cluster limit
    /// for which a block's share (`n / q` of that many transforms) is at most
    /// [`CLUSTER_SHARE_PER_RUN`] times the run's bytes, so several blocks fit a multiprocessor
    /// (see `Cluster`); `None` where one block holds a run, or where no cluster size does.
    fn cluster_split(&self, n: usize, a: Side, b: Side, dims: &[Dim]) -> Option<usize> {
        let (_, lm, sm) = choose_dim0(a.stride, b.stride, dims, None);
        let e = self.limits.elem_bytes;
        let run = self.cluster_run(a, b);
        let per_run = run / e;
        if lm != Mode::Col || sm != Mode::Col || !smooth(n) || n * per_run <= self.limits.tile_max {
            return None;
        }
        let mut q = 2;
        while q <= self.limits.cluster_max && n % q == 0 {
            let m = n / q;
            // Each block takes `m / q` positions of the radix-q step.
            let whole = m % q == 0;
            if whole
                && m * per_run * e <= run * CLUSTER_SHARE_PER_RUN
                && m >= 16 * q
                && m * per_run <= self.limits.tile_max
            {
                return Some(q);
            }
            q *= 2;
        }
        None
    }

    /// The bytes of the runs a cluster pass with sides `a` and `b` moves: [`CLUSTER_RUN`], or
    /// twice that where a side's runs start off the 32-byte sector boundaries (a stride of an
    /// odd number of `f32` complex values, say). Measured on an H100 (`crates/fft/NOTES.md`,
    /// s12-r3 and s13-r1): the 4097-column pass of R2C 8192^2 is 0.03 ms faster with 128-byte
    /// runs, the 4096-column pass of 2D 4096^2 0.024 ms slower. Alignment is the rule that
    /// separates the two, not a proven cause: with the R2C's reads aligned (its work rows padded
    /// to whole sectors) 64-byte runs were no faster.
    fn cluster_run(&self, a: Side, b: Side) -> usize {
        let e = self.limits.elem_bytes;
        let aligned = |s: Side| (s.stride * e) % 32 == 0;
        if aligned(a) && aligned(b) {
            CLUSTER_RUN
        } else {
            2 * CLUSTER_RUN
        }
    }

    /// A complex transform of `n = q m` strided on both sides as one pass of clusters of `q`
    /// blocks (see `Cluster`): the block pass of length `m` over every `q`-th element, of
    /// [`Planner::cluster_run`] bytes' worth of transforms, whose kernel finishes the transform
    /// across the cluster.
    #[allow(clippy::too_many_arguments)]
    fn cluster_pass(
        &mut self,
        n: usize,
        q: usize,
        a: Side,
        b: Side,
        dims: Vec<Dim>,
        src: Buf,
        dst: Buf,
        inverse: bool,
    ) -> Result<(), FftError> {
        let m = n / q;
        self.block_dim0(
            m,
            Input::Complex,
            Output::Complex,
            a,
            b,
            dims,
            None,
            None,
            Pairing::None,
            src,
            dst,
            inverse,
        )?;
        // `W_n^{r k'}` at `(r - 1) m + k'` for `1 <= r < q`, `k' < m` (consecutive threads take
        // consecutive `k'`).
        let table = self.tables.region(format!("cluster {n} {q}"), || {
            (1..q as u64).flat_map(|r| (0..m as u64).map(move |k| twiddle::root(r * k, n as u64))).collect()
        });
        let per_block = self.cluster_run(a, b) / self.limits.elem_bytes;
        let step = self.steps.last_mut().expect("block_dim0 pushed the pass");
        let StepKind::Block(c) = &mut step.kind else { unreachable!("block_dim0 pushes a block pass") };
        debug_assert!(
            c.bluestein.is_none() && c.four_step.is_none() && (c.load, c.store) == (Mode::Col, Mode::Col)
        );
        c.cluster = Some(Cluster { q, off: 0 });
        c.per_block = c.per_block.min(per_block);
        step.aux = table;
        Ok(())
    }

    /// The splits `n = n1 n2` a chain chooses among: the most balanced pair within one strided
    /// pass each (two passes, [`Planner::split`]), and `n1` nearest the cube root of `n` on
    /// either side, whose second part is a chain again (three passes of shorter transforms:
    /// more transforms per block, so longer runs on the strided sides).
    fn split_candidates(&self, n: usize) -> Vec<(usize, usize)> {
        let mut v = vec![self.split(n)];
        let max = self.limits.strided_max();
        let divisors: Vec<usize> = (2..=max.min(n / 2)).filter(|d| n % d == 0).collect();
        for d in near_cube_root(&divisors, n) {
            if !v.contains(&(d, n / d)) {
                v.push((d, n / d));
            }
        }
        v
    }

    /// Plans each option on a scratch planner (same limits, no tables of the plan so far) and
    /// plans the one whose steps move their bytes fastest by [`Planner::traffic`] here (the
    /// first of equals: a later option must be 1% cheaper). Options that fail are skipped; if
    /// all fail, the first one's error is returned.
    fn cheapest(&mut self, options: Vec<Candidate<'_>>) -> Result<(), FftError> {
        let mut best: Option<(f64, usize)> = None;
        for (i, option) in options.iter().enumerate() {
            let mut trial = Planner::new(self.limits, self.f64);
            trial.work = self.work;
            if option(&mut trial).is_ok() {
                let cost: f64 = trial.steps.iter().map(|s| trial.traffic(s) + LAUNCH_BYTES).sum();
                if best.is_none_or(|(c, _)| cost < 0.99 * c) {
                    best = Some((cost, i));
                }
            }
        }
        match options.get(best.map_or(0, |(_, i)| i)) {
            Some(option) => option(self),
            None => Err(FftError::Unsupported { what: "a transform with no plan to choose from".into() }),
        }
    }

    /// A step's global memory traffic in bytes at the copy rate: the bytes of each side over
    /// [`run_rate`] of the contiguous runs that side moves in (a transform's whole length when
    /// its elements are adjacent, `per_block` elements when the block's transforms are adjacent
    /// along a strided axis, else one element).
    pub(crate) fn traffic(&self, s: &Step) -> f64 {
        let e = self.limits.elem_bytes;
        let count: usize = s.dims.iter().map(|d| d.n).product();
        // Bytes of one logical element, and the stride (in the side's buffer units) at which
        // consecutive elements are adjacent.
        let input_unit = |i: Input| match i {
            Input::RealPairs => (e, 2),
            Input::Real => (e / 2, 1),
            _ => (e, 1),
        };
        let output_unit = |o: Output| match o {
            Output::RealPairs => (e, 2),
            Output::Real => (e / 2, 1),
            _ => (e, 1),
        };
        match &s.kind {
            StepKind::Block(c) => {
                let side =
                    |mode: Mode, stride: usize, across: usize, (bytes, unit): (usize, usize), n: usize| {
                        let run = match mode {
                            Mode::Row if stride == unit => n * bytes,
                            // Runs that start off their sector boundary at every other position
                            // (rows of an odd length, say) touch twice the sectors: priced as
                            // runs of half the length.
                            Mode::Col if across == unit => {
                                // A mirrored pass's block holds two runs of transforms.
                                let run =
                                    if c.mirror.is_some() { c.per_block / 2 } else { c.per_block } * bytes;
                                let misaligned = (stride * bytes / unit) % run.min(32) != 0;
                                if misaligned {
                                    run / 2
                                } else {
                                    run
                                }
                            }
                            _ => bytes,
                        };
                        (n * count * bytes) as f64 / run_rate(run)
                    };
                let n = c.logical_len();
                if c.cluster.is_some() {
                    // Both sides complex and strided (see `cluster_split`).
                    return (2 * n * count * e) as f64 / CLUSTER_RATE;
                }
                side(c.load, s.in_stride, s.dims[0].is, input_unit(c.input), n)
                    + side(c.store, s.out_stride, s.dims[0].os, output_unit(c.output), c.output_positions())
            }
            // Contiguous on both sides; what each transform reads and writes.
            StepKind::Point(p) => {
                let elems = match &p.op {
                    PointOp::Load { n, pad, .. } => n + pad,
                    PointOp::Filter { m, .. } => 2 * m,
                    PointOp::Store { output, n, .. } => {
                        n + match output {
                            Output::HalfSpectrum => n / 2 + 1,
                            Output::HalfSpectrumPairs => n + 1,
                            _ => *n,
                        }
                    }
                };
                (elems * count * e) as f64
            }
        }
    }

    /// A four-step chain `n = n1 n2` (see [`Planner::chain`]). With `a_split = Some(m1)` (an
    /// unfolding chain whose axis is innermost in the input) pass A is two passes, `n1 = m1 m2`:
    /// with `j1 = ja m2 + jb`, `k1 = ka + m1 kb` and `c = jb n2 + n2'`, pass A1 transforms along
    /// `ja` for each `c` (the input's `jb` and `n2'` together: one batch dimension) and multiplies
    /// output `ka` by `W_n^{c ka}`; pass A2 transforms along `jb` for each `ka` and `n2'` and
    /// multiplies output `kb` by `W_{n/m1}^{n2' kb}`, writing `k1`. Together that is pass A's
    /// `W_n^{n2' k1} sum_j1 x W_n1^{j1 k1}` (the cross term `W_n1^{jb ka}` is in A1's twiddle), so
    /// pass B, and its unfold, are the two-pass chain's.
    #[allow(clippy::too_many_arguments)]
    fn chain_split(
        &mut self,
        n1: usize,
        n2: usize,
        a_split: Option<usize>,
        input: Input,
        output: Output,
        a: Side,
        b: Side,
        dims: Vec<Dim>,
        src: Buf,
        dst: Buf,
        inverse: bool,
    ) -> Result<(), FftError> {
        let n = n1 * n2;
        // Four-step, n = n1 n2 with element j = n1' n2 + n2': pass A transforms along n1' for
        // each n2' and multiplies output k1 by W_n^{n2' k1}; pass B transforms along n2' for
        // each k1 and writes X[k1 + n1 k2]. The work layout puts innermost whichever batch
        // dimension the input reads with unit stride: n2' when the axis itself is contiguous
        // (a 1D transform), else the contiguous batch dimension (a column axis), so both
        // passes read and write in runs.
        let unfold = output == Output::HalfSpectrumPairs;
        let count: usize = dims.iter().map(|d| d.n).product();
        let w = self.alloc_work(n * count);
        let axis_inner = dims.iter().all(|d| d.n == 1 || d.is >= a.stride);
        // A pass A too long for four transforms per block would write 16-byte pieces into
        // rows of n2': it writes its transforms' outputs k1 contiguously instead, and pass B
        // (four or more k1 per block) reads them in runs.
        let k1_inner = axis_inner && 4 * n1 > self.limits.tile_max && a_split.is_none();
        // Work strides: of k1, of n2', and of each batch dimension.
        let (wk1, wn2, wd): (usize, usize, Vec<usize>) = if axis_inner {
            let mut acc = n;
            (
                if k1_inner { 1 } else { n2 },
                if k1_inner { n1 } else { 1 },
                dims.iter()
                    .map(|d| {
                        let s = acc;
                        acc *= d.n;
                        s
                    })
                    .collect(),
            )
        } else {
            let mut acc = 1;
            let wd = dims
                .iter()
                .map(|d| {
                    let s = acc;
                    acc *= d.n;
                    s
                })
                .collect();
            (n2 * count, count, wd)
        };
        if let Some(m1) = a_split {
            debug_assert!(axis_inner && n1 % m1 == 0 && (wk1, wn2) == (n2, 1));
            let m2 = n1 / m1;
            // A1 into the layout [ka][c] (c contiguous), A2 from it into pass A's [k1][n2'].
            let t = self.alloc_work(n * count);
            let mut dims_a1 = vec![Dim { n: m2 * n2, is: a.stride, os: 1 }];
            dims_a1.extend(dims.iter().zip(&wd).map(|(d, &w)| Dim { n: d.n, is: d.is, os: w }));
            self.block_dim0(
                m1,
                input,
                Output::Complex,
                Side { stride: m2 * n2 * a.stride, pair: a.pair },
                Side { stride: m2 * n2, pair: 0 },
                dims_a1,
                Some((n as u64, 0)),
                Some(0),
                Pairing::None,
                src,
                t,
                inverse,
            )?;
            let mut dims_a2 = vec![Dim { n: n2, is: 1, os: 1 }, Dim { n: m1, is: m2 * n2, os: n2 }];
            dims_a2.extend(dims.iter().zip(&wd).map(|(d, &w)| Dim { n: d.n, is: w, os: w }));
            self.block_dim0(
                m2,
                Input::Complex,
                Output::Complex,
                Side { stride: n2, pair: 0 },
                Side { stride: m1 * n2, pair: 0 },
                dims_a2,
                Some(((n / m1) as u64, 0)),
                Some(0),
                Pairing::None,
                t,
                w,
                inverse,
            )?;
        } else {
            // Pass A.
            let mut dims_a = vec![Dim { n: n2, is: a.stride, os: wn2 }];
            dims_a.extend(dims.iter().zip(&wd).map(|(d, &w)| Dim { n: d.n, is: d.is, os: w }));
            let a_a = Side { stride: n2 * a.stride, pair: a.pair };
            let b_a = Side { stride: wk1, pair: 0 };
            let force = if axis_inner { Some(0) } else { None };
            self.block_dim0(
                n1,
                input,
                Output::Complex,
                a_a,
                b_a,
                dims_a,
                Some((n as u64, 0)),
                force,
                Pairing::None,
                src,
                w,
                inverse,
            )?;
        }
        // Pass B (a chain again if n2 is still too long).
        let mut dims_b = vec![Dim { n: n1, is: wk1, os: b.stride }];
        dims_b.extend(dims.iter().zip(&wd).map(|(d, &w)| Dim { n: d.n, is: w, os: d.os }));
        let a_b = Side { stride: wn2, pair: 0 };
        let b_b = Side { stride: n1 * b.stride, pair: b.pair };
        let c_min = self.limits.c_min_strided();
        if n2 * c_min <= self.limits.tile_max {
            // A block takes several k1 (an unfold's mirrored pairs must be k1), or, as pass B of
            // an outer chain, the transforms whose outputs lie closest together (the outer k1).
            let force = match (axis_inner, unfold) {
                (false, _) => None,
                (true, true) => Some(0),
                (true, false) => dims_b
                    .iter()
                    .enumerate()
                    .filter(|(_, d)| d.n > 1)
                    .min_by_key(|(_, d)| d.os)
                    .map(|(i, _)| i),
            };
            return self.block_dim0(
                n2,
                Input::Complex,
                output,
                a_b,
                b_b,
                dims_b,
                None,
                force,
                if unfold { Pairing::Mirror(n1) } else { Pairing::None },
                w,
                dst,
                inverse,
            );
        }
        self.chain(n2, Input::Complex, output, a_b, b_b, dims_b, w, dst, inverse)
    }

    /// Splits a long smooth `n` into `n1 n2`: both within one strided pass if possible (the
    /// most balanced such pair), else the longest `n1` that fits.
    fn split(&self, n: usize) -> (usize, usize) {
        let max = self.limits.strided_max();
        let divisors: Vec<usize> = (2..=max.min(n / 2)).filter(|d| n % d == 0).collect();
        let both = divisors.iter().copied().filter(|&d| n / d <= max).min_by_key(|&d| d.abs_diff(n / d));
        match both {
            Some(d) => (d, n / d),
            None => {
                let d = divisors.last().copied().unwrap_or(n);
                (d, n / d)
            }
        }
    }

    /// Bluestein over several passes: chirp and pad into the work area, FFT, filter, FFT,
    /// chirp out.
    #[allow(clippy::too_many_arguments)]
    fn bluestein_multi(
        &mut self,
        n: usize,
        input: Input,
        output: Output,
        a: Side,
        b: Side,
        dims: Vec<Dim>,
        src: Buf,
        dst: Buf,
        inverse: bool,
    ) -> Result<(), FftError> {
        let m = bluestein_len(n);
        let count: usize = dims.iter().map(|d| d.n).product();
        let w = self.alloc_work(m * count);
        let unit = Side { stride: 1, pair: 0 };
        let packed = |to_work: bool| -> Vec<Dim> {
            let mut acc = m;
            dims.iter()
                .map(|d| {
                    let wst = acc;
                    acc *= d.n;
                    if to_work {
                        Dim { n: d.n, is: d.is, os: wst }
                    } else {
                        Dim { n: d.n, is: wst, os: d.os }
                    }
                })
                .collect()
        };
        let work_only: Vec<Dim> = {
            let mut acc = m;
            dims.iter()
                .map(|d| {
                    let wst = acc;
                    acc *= d.n;
                    Dim { n: d.n, is: wst, os: wst }
                })
                .collect()
        };
        let chirp = self.tables.region(format!("chirp {n}"), || twiddle::chirp(n));
        let filter = self.tables.region(format!("filter {n} {m}"), || bluestein_filter(n, m));
        let (real, real_bits) = self.real_table(n, input, output);
        let (aux0, ch, fi, re) = self.join_aux(&[Some(chirp), Some(filter), real]);
        let real_t = RealTable { off: re.unwrap_or(0), bits: real_bits };
        let load =
            PointCfg { op: PointOp::Load { input, n, pad: m, chirp: ch }, inverse, real: real_t, dims: 0 };
        self.point_aux(load, a, unit, packed(true), src, w, m, aux0)?;
        self.chain(m, Input::Complex, Output::Complex, unit, unit, work_only.clone(), w, w, false)?;
        let filt = PointCfg {
            op: PointOp::Filter { m, off: fi.unwrap_or(0) },
            inverse: false,
            real: RealTable::default(),
            dims: 0,
        };
        self.point_aux(filt, unit, unit, work_only.clone(), w, w, m, aux0)?;
        self.chain(m, Input::Complex, Output::Complex, unit, unit, work_only, w, w, false)?;
        let store = PointCfg { op: PointOp::Store { output, n, chirp: ch }, inverse, real: real_t, dims: 0 };
        self.point_aux(store, unit, b, packed(false), w, dst, m, aux0)
    }

    /// The real-transform twiddles a step with these kinds needs, and how they are split.
    fn real_table(&mut self, n: usize, input: Input, output: Output) -> (Option<(usize, usize)>, u32) {
        if input != Input::HalfSpectrumPairs && output != Output::HalfSpectrumPairs {
            return (None, 0);
        }
        if n < 1 << 14 {
            let r = self.tables.region(format!("real {n}"), || {
                let mut t = twiddle::real_twiddles(n);
                t.push(Complex::new(-1.0, 0.0));
                t
            });
            return (Some(r), 0);
        }
        let bits = twiddle::four_step_bits(2 * n as u64);
        let r =
            self.tables.region(format!("real split {n} {bits}"), || twiddle::four_step(2 * n as u64, bits));
        (Some(r), bits)
    }

    /// Lays several table regions out as one contiguous aux region (copying them next to each
    /// other); returns its start and each part's offset within it.
    fn join_aux(
        &mut self,
        parts: &[Option<(usize, usize)>],
    ) -> ((usize, usize), Option<usize>, Option<usize>, Option<usize>) {
        let key = format!("aux {parts:?}");
        let data: Vec<Complex<f64>> =
            parts.iter().flatten().flat_map(|&(o, l)| self.tables.data[o..o + l].to_vec()).collect();
        let region = self.tables.region(key, || data);
        let mut offs = [None; 3];
        let mut at = 0;
        for (i, p) in parts.iter().enumerate().take(3) {
            if let Some((_, l)) = p {
                offs[i] = Some(at);
                at += l;
            }
        }
        (region, offs[0], offs[1], offs[2])
    }

    #[allow(clippy::too_many_arguments)]
    fn point(
        &mut self,
        cfg: PointCfg,
        a: Side,
        b: Side,
        dims: Vec<Dim>,
        src: Buf,
        dst: Buf,
        _len: usize,
    ) -> Result<(), FftError> {
        let (real, bits) = match &cfg.op {
            PointOp::Load { input, n, .. } => self.real_table(*n, *input, Output::Complex),
            PointOp::Store { output, n, .. } => self.real_table(*n, Input::Complex, *output),
            PointOp::Filter { .. } => (None, 0),
        };
        let (aux, re, _, _) = self.join_aux(&[real]);
        let mut cfg = cfg;
        cfg.real = RealTable { off: re.unwrap_or(0), bits };
        self.point_aux(cfg, a, b, dims, src, dst, 0, aux)
    }

    #[allow(clippy::too_many_arguments)]
    fn point_aux(
        &mut self,
        mut cfg: PointCfg,
        a: Side,
        b: Side,
        dims: Vec<Dim>,
        src: Buf,
        dst: Buf,
        _len: usize,
        aux: (usize, usize),
    ) -> Result<(), FftError> {
        let dims = pack_dims(dims)?;
        cfg.dims = dims.iter().rposition(|d| d.n > 1).map_or(1, |i| i + 1);
        self.steps.push(Step {
            kind: StepKind::Point(cfg),
            src,
            dst,
            tw: (0, 0),
            aux,
            in_stride: a.stride,
            out_stride: b.stride,
            pair_in: a.pair,
            pair_out: b.pair,
            dims,
        });
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn block(
        &mut self,
        n: usize,
        input: Input,
        output: Output,
        a: Side,
        b: Side,
        dims: Vec<Dim>,
        _unused: Option<u64>,
        src: Buf,
        dst: Buf,
        inverse: bool,
    ) -> Result<(), FftError> {
        self.block_dim0(n, input, output, a, b, dims, None, None, Pairing::None, src, dst, inverse)
    }

    /// Whether a block pass reads real pairs 16 bytes at a time (see [`Wide`]): the side's
    /// stride, its batch strides and the transform pairs' positions all keep each pair of
    /// adjacent transforms in one aligned 16-byte piece, given an aligned buffer.
    fn wide(&self, c: &BlockCfg, a: Side, dims: &[Dim; 4]) -> Wide {
        // The two lanes of a pair trade halves with a shuffle: whole warps only. `unit` is the
        // stride between adjacent transforms in reals, and every stride must be a multiple of 4
        // reals (16 bytes).
        let (unit, quad) = (2, 4);
        let load = !self.f64
            && c.input == Input::RealPairs
            && a.pair == 1
            && c.threads() % 32 == 0
            && c.per_block % 2 == 0
            && dims[0].n % 2 == 0
            && c.bluestein.is_none()
            && c.mirror.is_none()
            && c.rows.is_none()
            && c.load == Mode::Col
            && dims[0].is == unit
            && a.stride % quad == 0
            && dims[1..].iter().all(|d| d.n == 1 || d.is % quad == 0)
            // A single pass maps its threads as its store side is laid out.
            && (c.radices.len() > 1 || c.store == Mode::Col);
        Wide { load }
    }

    /// One block pass. `twiddle`: the four-step twiddle of length `.0` on batch dimension
    /// `.1`; `force`: the batch dimension a block takes several of (else chosen by cost);
    /// `mirror`: see `BlockCfg::mirror` (batch dimension 0 must then be the `n1` transforms).
    #[allow(clippy::too_many_arguments)]
    fn block_dim0(
        &mut self,
        n: usize,
        input: Input,
        output: Output,
        a: Side,
        b: Side,
        dims: Vec<Dim>,
        twiddle: Option<(u64, usize)>,
        force: Option<usize>,
        pairing: Pairing,
        src: Buf,
        dst: Buf,
        inverse: bool,
    ) -> Result<(), FftError> {
        let bluestein = !smooth(n);
        let len = if bluestein { bluestein_len(n) } else { n };
        let (d0, load, store) = choose_dim0(a.stride, b.stride, &dims, force);
        let tw_dim = twiddle.map(|(_, d)| d);
        // Order: dimension 0, then the twiddle's dimension (never merged), then the rest.
        let mut ordered = vec![dims.get(d0).copied().unwrap_or(Dim { n: 1, is: 0, os: 0 })];
        let fs_dim = match tw_dim {
            None => None,
            Some(t) if t == d0 => Some(0),
            Some(t) => {
                ordered.push(dims[t]);
                Some(1)
            }
        };
        let rest: Vec<Dim> = dims
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != d0 && Some(*i) != tw_dim)
            .map(|(_, d)| *d)
            .collect();
        let strided = load == Mode::Col || store == Mode::Col;
        let n0 = ordered[0].n;
        let tile = self.limits.tile_max;
        let mut per_block = if strided {
            // 128-byte runs, or more transforms while the tile stays at about 4096 elements.
            (128 / self.limits.elem_bytes).max(4096 / len).min(tile / len)
        } else {
            let target = if self.f64 { 2048 } else { 4096 };
            (target / len).max(1)
        };
        per_block = prev_pow2(per_block.min(n0.next_power_of_two()).max(1));
        let mirror = match pairing {
            Pairing::Mirror(n1) => Some(n1),
            _ => None,
        };
        if let Pairing::Mirror(m) | Pairing::Rows(m) = pairing {
            // Whole pairs of transforms, and every block full.
            debug_assert!(d0 == 0 && n0 == m && m % 2 == 0 && 2 * len <= tile && twiddle.is_none());
            per_block = per_block.max(2).min(1 << m.trailing_zeros());
        }
        let radices = radices(len);
        let (table, offsets) = twiddle::stockham(&radices);
        let tw = self.tables.region(format!("stockham {radices:?}"), || table);
        let b_min = len / radices[0];
        let threads_per_fft = b_min.min(self.limits.threads_max / per_block).max(1);
        // Tables the step reads besides the Stockham twiddles.
        let mut parts: Vec<Option<(usize, usize)>> = vec![None; 3];
        if bluestein {
            parts[0] = Some(self.tables.region(format!("chirp {n}"), || twiddle::chirp(n)));
            parts[1] = Some(self.tables.region(format!("filter {n} {len}"), || bluestein_filter(n, len)));
        }
        // The real-transform twiddles are those of the whole length when the pass unfolds
        // (`mirror`) or folds (pass A of a four-step) for the whole transform.
        let real_n = match (mirror, twiddle) {
            (Some(n1), _) => n1 * n,
            (None, Some((nn, _))) if input == Input::HalfSpectrumPairs => nn as usize,
            _ => n,
        };
        let (real_part, real_bits) = self.real_table(real_n, input, output);
        parts[2] = real_part;
        let rows_part = match pairing {
            Pairing::Rows(n0) => {
                let bits = twiddle::four_step_bits(n0 as u64);
                Some((
                    n0,
                    bits,
                    self.tables
                        .region(format!("four-step {n0} {bits}"), || twiddle::four_step(n0 as u64, bits)),
                ))
            }
            _ => None,
        };
        let four_step = twiddle.map(|(nn, _)| nn);
        let fs_bits = four_step.map(twiddle::four_step_bits);
        let fs_part = four_step.map(|nn| {
            let bits = twiddle::four_step_bits(nn);
            self.tables.region(format!("four-step {nn} {bits}"), || twiddle::four_step(nn, bits))
        });
        let (mut aux, ch, fi, mut re) = self.join_aux(&parts);
        let mut rows = None;
        if let Some((n0, bits, t)) = rows_part {
            // The row pairs' twiddles with the real-transform ones (never Bluestein).
            let (a, f, _, r) = self.join_aux(&[Some(t), None, real_part]);
            (aux, re) = (a, r);
            rows = Some(RowPairs { n0, off: f.unwrap_or(0), bits });
        }
        let mut fs_off = 0;
        if let Some(fsr) = fs_part {
            // The four-step tables go in their own region, or with the real-transform ones
            // (pass A of a folding C2R); a four-step pass is never Bluestein.
            (aux, fs_off, re) = match real_part {
                None => (fsr, 0, None),
                Some(_) => {
                    let (a, f, _, r) = self.join_aux(&[Some(fsr), None, real_part]);
                    (a, f.unwrap_or(0), r)
                }
            };
        }
        let cfg = BlockCfg {
            len,
            radices,
            tw_offsets: offsets,
            threads_per_fft,
            per_block,
            inverse,
            load,
            store,
            wide: Wide::default(),
            input,
            output,
            four_step: four_step.map(|nn| FourStep {
                n: nn,
                bits: fs_bits.unwrap_or(0),
                off: fs_off,
                dim: fs_dim.unwrap_or(0),
            }),
            bluestein: if bluestein {
                Some(Bluestein { n, chirp_off: ch.unwrap_or(0), filter_off: fi.unwrap_or(0) })
            } else {
                None
            },
            real: RealTable { off: re.unwrap_or(0), bits: real_bits },
            dims: 0,
            mirror,
            rows,
            cluster: None,
            unit_strides: [a.stride == 1, b.stride == 1],
        };
        let dims = pack_ordered(ordered, rest)?;
        let mut cfg = cfg;
        cfg.dims = dims.iter().rposition(|d| d.n > 1).map_or(1, |i| i + 1).max(1 + fs_dim.unwrap_or(0));
        cfg.wide = self.wide(&cfg, a, &dims);
        self.steps.push(Step {
            kind: StepKind::Block(cfg),
            src,
            dst,
            tw,
            aux,
            in_stride: a.stride,
            out_stride: b.stride,
            pair_in: a.pair,
            pair_out: b.pair,
            dims,
        });
        Ok(())
    }
}

/// How a block pass pairs the transforms of batch dimension 0 (see `BlockCfg::mirror` and
/// `BlockCfg::rows`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pairing {
    None,
    /// Mirrored transforms `k1`, `n1 - k1` of this many (an R2C four-step's unfold).
    Mirror(usize),
    /// Rows `r`, `r + n0 / 2` of this many (a multi-dimensional R2C's next axis).
    Rows(usize),
}

/// `fixed` first, in order and unmerged (dimension 0 and the twiddle's), then `rest` merged.
fn pack_ordered(fixed: Vec<Dim>, rest: Vec<Dim>) -> Result<[Dim; 4], FftError> {
    let packed = pack_dims(rest)?;
    let mut all = fixed;
    all.extend(packed.iter().copied().filter(|d| d.n > 1));
    if all.len() > 4 {
        return Err(FftError::Unsupported {
            what: format!("{} independent batch dimensions in one pass (at most 4)", all.len()),
        });
    }
    let one = Dim { n: 1, is: 0, os: 0 };
    let mut out = [one; 4];
    for (o, d) in out.iter_mut().zip(all) {
        *o = d;
    }
    Ok(out)
}

fn prev_pow2(x: usize) -> usize {
    if x == 0 {
        1
    } else {
        1 << (usize::BITS - 1 - x.leading_zeros())
    }
}

/// The batch dimensions of a pass along axis `d`: the other axes and the batch.
pub(crate) fn other_dims(
    n: &[usize],
    d: usize,
    is: &[usize],
    os: &[usize],
    batch: usize,
    idist: usize,
    odist: usize,
) -> Vec<Dim> {
    let mut dims: Vec<Dim> =
        (0..n.len()).rev().filter(|&e| e != d).map(|e| Dim { n: n[e], is: is[e], os: os[e] }).collect();
    dims.push(Dim { n: batch, is: idist, os: odist });
    dims
}

/// Picks batch dimension 0 (the one a block takes several of) and the load and store modes.
fn choose_dim0(a: usize, b: usize, dims: &[Dim], forced: Option<usize>) -> (usize, Mode, Mode) {
    let modes = |d: &Dim| {
        let load = if a <= d.is || a == 1 || d.n == 1 { Mode::Row } else { Mode::Col };
        let store = if b <= d.os || b == 1 || d.n == 1 { Mode::Row } else { Mode::Col };
        (load, store)
    };
    if dims.is_empty() {
        return (0, Mode::Row, Mode::Row);
    }
    if let Some(i) = forced {
        let (l, s) = modes(&dims[i]);
        return (i, l, s);
    }
    let cost = |d: &Dim| {
        let (l, s) = modes(d);
        let ci = if l == Mode::Col { d.is } else { a };
        let co = if s == Mode::Col { d.os } else { b };
        (ci.saturating_add(co), usize::MAX - d.n)
    };
    let (i, d) = dims
        .iter()
        .enumerate()
        .filter(|(_, d)| d.n > 1)
        .min_by_key(|(_, d)| cost(d))
        .unwrap_or((0, &dims[0]));
    let (l, s) = modes(d);
    (i, l, s)
}

/// A human-readable description of the steps.
pub(crate) fn describe(steps: &[Step], work_reals: usize, elem: &str) -> String {
    let mut s = String::new();
    let buf = |b: Buf| match b {
        Buf::Input => "input".to_string(),
        Buf::Output => "output".to_string(),
        Buf::Work(o) => format!("work+{o}"),
    };
    for (i, st) in steps.iter().enumerate() {
        let (blocks, threads) = st.launch_shape();
        let dims: Vec<String> = st.dims.iter().filter(|d| d.n > 1).map(|d| format!("{}", d.n)).collect();
        let _ = write!(s, "pass {}: ", i + 1);
        match &st.kind {
            StepKind::Block(c) => {
                let r: Vec<String> = c.radices.iter().map(|r| r.to_string()).collect();
                let _ = write!(
                    s,
                    "fft_block<{elem}> len {} radices {} ({} threads x {} per block, load {:?}{} / store {:?}, {:?} -> {:?}",
                    c.len,
                    r.join("x"),
                    c.threads_per_fft,
                    c.per_block,
                    c.load,
                    if c.wide.load { " 16-byte" } else { "" },
                    c.store,
                    c.input,
                    c.output
                );
                if let Some(f) = &c.four_step {
                    let _ = write!(s, ", four-step twiddle of {}", f.n);
                }
                if let Some(b) = &c.bluestein {
                    let _ = write!(s, ", Bluestein for {}", b.n);
                }
                if let Some(n1) = c.mirror {
                    let _ = write!(s, ", unfold of {} mirrored", n1);
                }
                if let Some(r) = &c.rows {
                    let _ = write!(s, ", radix-2 across rows of {}", r.n0);
                }
                if let Some(cl) = &c.cluster {
                    let _ = write!(
                        s,
                        ", every {}th element of {} in clusters of {} blocks, radix-{} across them through distributed shared memory",
                        cl.q,
                        cl.q * c.len,
                        cl.q,
                        cl.q
                    );
                }
                if c.inverse {
                    let _ = write!(s, ", inverse");
                }
                let _ = write!(s, ")");
            }
            StepKind::Point(p) => {
                let _ = write!(s, "fft_pointwise<{elem}> {:?}", p.op);
            }
        }
        let _ = writeln!(
            s,
            " {} -> {}, batch [{}], {} blocks of {}",
            buf(st.src),
            buf(st.dst),
            dims.join(", "),
            blocks,
            threads
        );
    }
    if work_reals > 0 {
        let _ = writeln!(s, "work area: {work_reals} {elem}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radices_pack_into_at_most_16() {
        assert_eq!(radices(4096), vec![16, 16, 16]);
        assert_eq!(radices(1024), vec![16, 16, 4]);
        assert_eq!(radices(1000), vec![10, 10, 10]);
        assert_eq!(radices(1001), vec![13, 11, 7]);
        assert_eq!(radices(1), vec![1]);
        for n in 1..3000 {
            if smooth(n) {
                let r = radices(n);
                assert_eq!(r.iter().product::<usize>(), n, "{n}");
                assert!(r.iter().all(|&x| x <= 16 || factor(x).len() == 1), "{n}: {r:?}");
            }
        }
    }

    #[test]
    fn limits_follow_the_device() {
        let l = Limits::new(false, 227 * 1024, 1024);
        assert_eq!(l.tile_max, 16384);
        assert_eq!(l.strided_max(), 8192);
        let l = Limits::new(true, 227 * 1024, 1024);
        assert_eq!(l.tile_max, 8192);
        assert_eq!(l.strided_max(), 4096);
    }

    #[test]
    fn long_even_r2c_unfolds_in_its_second_pass() {
        use crate::layout::Layout;
        let limits = Limits::new(false, 227 * 1024, 1024);
        let plan = |n: usize, input: Layout| {
            let p = Problem::new(TransformType::R2C, &[n], 2, &input, &Layout::default()).unwrap();
            let mut pl = Planner::new(limits, false);
            pl.plan(&p, false).unwrap();
            pl.steps
        };
        // (reals, passes, n1, n2, transforms per block of the last pass): past 2^23 reals the
        // half-length FFT is three passes, n1 = m1 m2 in the first two (see `chain_split`).
        for (n, passes, n1, n2, per_block) in [
            (1usize << 26, 3, 131072, 256, 16),
            (1 << 25, 3, 65536, 256, 16),
            (1 << 24, 3, 65536, 128, 32),
            (1 << 23, 2, 2048, 2048, 8),
            (1 << 16, 2, 128, 256, 16),
            (2 * 17496, 2, 108, 162, 4),
            (2 * 20250, 2, 150, 135, 2),
        ] {
            let steps = plan(n, Layout::default());
            assert_eq!(steps.len(), passes, "{n}");
            let last = steps.last().unwrap();
            let StepKind::Block(c) = &last.kind else { panic!("{n}: the last pass is not a block pass") };
            assert_eq!((c.mirror, c.len, c.per_block), (Some(n1), n2, per_block), "{n}");
            assert_eq!(c.output, Output::HalfSpectrumPairs);
            assert_eq!(last.dims[0].n, n1);
            assert_eq!(n1 % c.per_block, 0);
            if passes == 3 {
                // Passes A1 and A2: m1 m2 = n1, the four-step twiddles of n and n / m1.
                let (StepKind::Block(a1), StepKind::Block(a2)) = (&steps[0].kind, &steps[1].kind) else {
                    panic!("{n}: passes A1 and A2 are block passes")
                };
                assert_eq!(a1.len * a2.len, n1, "{n}");
                assert_eq!(a1.four_step.as_ref().map(|f| f.n as usize), Some(n / 2), "{n}");
                assert_eq!(a2.four_step.as_ref().map(|f| f.n as usize), Some(n / 2 / a1.len), "{n}");
            }
        }
        // Interleaved batches (the axis not innermost in the input): the separate unfold.
        let steps = plan(1 << 16, Layout::new(&[1 << 16], 2, 1));
        assert_eq!(steps.len(), 3);
        assert!(matches!(steps[2].kind, StepKind::Point(_)));
    }

    #[test]
    fn strided_sides_take_16_byte_accesses_where_pairs_stay_whole() {
        use crate::layout::Layout;
        let wide_of = |kind: TransformType, n: &[usize], output: Layout, f64: bool| {
            let p = Problem::new(kind, n, 1, &Layout::default(), &output).unwrap();
            let mut pl = Planner::new(Limits::new(f64, 227 * 1024, 1024), f64);
            pl.plan(&p, false).unwrap();
            let w = |s: &Step| match &s.kind {
                StepKind::Block(c) => c.wide.load,
                StepKind::Point(_) => false,
            };
            pl.steps.iter().map(w).collect::<Vec<_>>()
        };
        let packed = Layout::default;
        let (t, f) = (true, false);
        // Complex sides stay 8-byte (measured slower 16-byte): the four-step c2c 2^24, 2D c2c.
        assert_eq!(wide_of(TransformType::C2C, &[1 << 24], packed(), false), [f, f, f]);
        assert_eq!(wide_of(TransformType::C2C, &[4096, 4096], packed(), false), [f, f]);
        // r2c 2^23 and 2^26: the first pass reads real pairs; the mirrored slots of the fused
        // unfold's pass, and the later passes' complex values, are not.
        assert_eq!(wide_of(TransformType::R2C, &[1 << 23], packed(), false), [t, f]);
        assert_eq!(wide_of(TransformType::R2C, &[1 << 26], packed(), false), [t, f, f]);
        // r2c 8192^2: 4097 columns (an odd count, odd row stride).
        assert_eq!(wide_of(TransformType::R2C, &[8192, 8192], packed(), false), [f, f, f]);
        // f64: one complex value is 16 bytes already.
        assert_eq!(wide_of(TransformType::R2C, &[1 << 25], packed(), true), [f, f, f]);
        // An odd count of transforms in the first pass (2 x 3^14: a power of 3 of them).
        assert_eq!(wide_of(TransformType::R2C, &[2 * 4_782_969], packed(), false), [f, f, f, f]);
    }

    #[test]
    fn r2c_2d_pairs_rows_when_the_column_pass_would_hold_two() {
        use crate::layout::Layout;
        let limits = Limits::new(false, 227 * 1024, 1024);
        let plan = |n: &[usize]| {
            let p = Problem::new(TransformType::R2C, n, 1, &Layout::default(), &Layout::default()).unwrap();
            let mut pl = Planner::new(limits, false);
            pl.plan(&p, false).unwrap();
            pl.steps
        };
        let steps = plan(&[8192, 8192]);
        let StepKind::Block(c1) = &steps[0].kind else { panic!("pass 1 is not a block pass") };
        assert_eq!(c1.rows.as_ref().map(|r| r.n0), Some(8192));
        assert_eq!((c1.len, c1.per_block, steps[0].dims[0].n), (4096, 2, 8192));
        // The column transform is 4096 long (8192 itself without the pairs): one pass of four
        // per block would move runs of 32 bytes off their sectors (rows of 4097), so it is a
        // chain of 64 x 64 with 64 per block.
        let lens: Vec<(usize, usize, Mode, Mode)> = steps[1..]
            .iter()
            .map(|s| match &s.kind {
                StepKind::Block(c) => (c.len, c.per_block, c.load, c.store),
                StepKind::Point(_) => panic!("a pointwise step in the column transform"),
            })
            .collect();
        assert_eq!(lens, [(64, 64, Mode::Col, Mode::Col), (64, 64, Mode::Col, Mode::Col)]);
        // Outside the bounds: the plain plan.
        for n in [[4096usize, 8192], [16384, 8192], [8192, 8193], [8192, 8194]] {
            let paired = plan(&n).iter().any(|s| matches!(&s.kind, StepKind::Block(c) if c.rows.is_some()));
            assert!(!paired, "{n:?}");
        }
    }

    #[test]
    fn long_even_c2r_folds_in_its_first_pass() {
        use crate::layout::Layout;
        let limits = Limits::new(false, 227 * 1024, 1024);
        // (reals, passes): three from 2^25 on (see `three_pass_chains_where_runs_are_longer`).
        for (n, passes) in [(1usize << 24, 2), (1 << 16, 2), (2 * 20250, 2), (1 << 25, 3), (1 << 26, 3)] {
            let p =
                Problem::new(TransformType::C2R, &[n], 2, &Layout::default(), &Layout::default()).unwrap();
            let mut pl = Planner::new(limits, false);
            pl.plan(&p, true).unwrap();
            assert_eq!(pl.steps.len(), passes, "{n}");
            let StepKind::Block(c) = &pl.steps[0].kind else { panic!("{n}: pass A is not a block pass") };
            assert_eq!(c.input, Input::HalfSpectrumPairs);
            let fs = c.four_step.as_ref().expect("pass A of a four-step");
            assert_eq!((fs.n as usize, fs.dim), (n / 2, 0));
            assert_eq!(pl.steps[0].dims[0].n * c.len, n / 2);
        }
    }

    #[test]
    fn clusters_where_a_block_cannot_hold_a_run() {
        use crate::layout::Layout;
        // (shape, f64, cluster size of each pass) on the H100's limits with clusters of up to 8
        // blocks: a column of 4096 (a block holds only four in f32, two in f64) in clusters of
        // 8; 2048 (eight per block in f32), rows, 3D 512^3 and 1D transforms (whose passes are
        // contiguous on one side) stay block passes.
        let cases: [(&[usize], bool, &[usize]); 7] = [
            (&[4096, 4096], false, &[1, 8]),
            (&[4096, 64], true, &[1, 8]),
            (&[3, 4096, 40], false, &[1, 8, 1]),
            (&[2048, 2048], false, &[1, 1]),
            (&[1 << 24], false, &[1, 1, 1]),
            (&[1 << 20], false, &[1, 1]),
            (&[512, 512, 512], false, &[1, 1, 1]),
        ];
        for (n, f64, qs) in cases {
            let p = Problem::new(TransformType::C2C, n, 1, &Layout::default(), &Layout::default()).unwrap();
            let limits = Limits::new(f64, 227 * 1024, 1024);
            let mut pl = Planner::new(limits.with_clusters(8), f64);
            pl.plan(&p, false).unwrap();
            let text = describe(&pl.steps, 0, "");
            let got: Vec<usize> = pl
                .steps
                .iter()
                .map(|s| match &s.kind {
                    StepKind::Block(c) => c.cluster.as_ref().map_or(1, |cl| cl.q),
                    StepKind::Point(_) => 0,
                })
                .collect();
            assert_eq!(got, qs, "{n:?} f64={f64}: {text}");
            for s in &pl.steps {
                let StepKind::Block(c) = &s.kind else { unreachable!() };
                if let Some(cl) = &c.cluster {
                    // Whole runs, and several blocks' tiles fit a multiprocessor.
                    assert!(c.per_block * pl.limits.elem_bytes >= CLUSTER_RUN, "{n:?}: {text}");
                    let shared_bytes =
                        crate::kernels::block::shared_elems(c, f64) * (pl.limits.elem_bytes / 2);
                    assert!(2 * shared_bytes <= 227 * 1024, "{n:?}: {shared_bytes} bytes of shared memory");
                    assert_eq!(c.logical_len(), cl.q * c.len);
                    let (blocks, _) = s.launch_shape();
                    assert_eq!(blocks % cl.q as u64, 0, "{n:?}: whole clusters");
                }
            }
            // Without clusters (before sm_90) no pass asks for one.
            let mut plain = Planner::new(limits, f64);
            plain.plan(&p, false).unwrap();
            assert!(plain
                .steps
                .iter()
                .all(|s| !matches!(&s.kind, StepKind::Block(c) if c.cluster.is_some())));
        }
    }

    #[test]
    fn three_pass_chains_where_runs_are_longer() {
        use crate::layout::Layout;
        // (n, f64, the transforms' lengths pass by pass) on the H100's limits: two passes while
        // their strided sides move runs of 64 bytes or more, three of 128 bytes or more beyond.
        for (n, f64, lens) in [
            (1usize << 20, false, vec![1024, 1024]),
            (1 << 22, false, vec![2048, 2048]),
            (1 << 23, false, vec![2048, 4096]),
            (1 << 24, false, vec![256, 256, 256]),
            (1 << 24, true, vec![256, 256, 256]),
            (1 << 27, false, vec![512, 512, 512]),
        ] {
            let p =
                Problem::new(TransformType::C2C, &[n], 1, &Layout::default(), &Layout::default()).unwrap();
            let mut pl = Planner::new(Limits::new(f64, 227 * 1024, 1024), f64);
            pl.plan(&p, false).unwrap();
            let got: Vec<usize> = pl
                .steps
                .iter()
                .map(|s| match &s.kind {
                    StepKind::Block(c) => c.len,
                    StepKind::Point(_) => 0,
                })
                .collect();
            assert_eq!(got, lens, "{n} f64={f64}");
            // Pass B of the outer chain takes the outer k1 (outputs 1 apart), not its own k1'.
            let last = pl.steps.last().unwrap();
            assert_eq!(last.dims[0].os, 1, "{n}: the last pass's store runs");
            // The three-pass plans' strided sides move at least 128 bytes at a time.
            if lens.len() == 3 {
                for s in &pl.steps {
                    let StepKind::Block(c) = &s.kind else { unreachable!() };
                    assert!(c.per_block * pl.limits.elem_bytes >= 128, "{n}: {}", describe(&pl.steps, 0, ""));
                }
            }
        }
        // 3^14 and 10^7: three passes (81 to 729, 200 to 250), each of at least 16 transforms per
        // block.
        for n in [4_782_969usize, 10_000_000] {
            let p =
                Problem::new(TransformType::C2C, &[n], 1, &Layout::default(), &Layout::default()).unwrap();
            let mut pl = Planner::new(Limits::new(false, 227 * 1024, 1024), false);
            pl.plan(&p, false).unwrap();
            assert_eq!(pl.steps.len(), 3, "{n}");
            assert!(
                pl.steps.iter().all(|s| matches!(&s.kind, StepKind::Block(c) if c.per_block >= 16)),
                "{n}"
            );
        }
        // A 2D 4096^2 keeps its column pass in one block (aligned 32-byte runs, but a third pass
        // costs more).
        let p = Problem::new(TransformType::C2C, &[4096, 4096], 1, &Layout::default(), &Layout::default())
            .unwrap();
        let mut pl = Planner::new(Limits::new(false, 227 * 1024, 1024), false);
        pl.plan(&p, false).unwrap();
        assert_eq!(pl.steps.len(), 2);
    }

    #[test]
    fn pack_dims_merges_nested_dimensions() {
        let d = pack_dims(vec![
            Dim { n: 4, is: 10, os: 10 },
            Dim { n: 3, is: 40, os: 40 },
            Dim { n: 1, is: 0, os: 0 },
        ])
        .unwrap();
        assert_eq!(d[0], Dim { n: 12, is: 10, os: 10 });
        assert_eq!(d[1].n, 1);
    }
}

/// Development aid, not a test of behaviour: writes the PTX of every kernel the benchmark's GPU
/// transforms compile (planned for an H100's limits) to `$FERROCM_FFT_PTX_DIR`, so `ptxas -v`
/// can report registers and spills without a device:
/// `FERROCM_FFT_PTX_DIR=/tmp/ptx cargo test -p ferrocm-fft --lib -- --ignored ptx_of_bench_cases`.
#[cfg(test)]
mod ptx_dump {
    use super::*;
    use crate::kernels::{fft_block, fft_pointwise};
    use crate::layout::Layout;

    fn write<T: crate::FftFloat>(
        dir: &std::path::Path,
        name: &str,
        kind: TransformType,
        n: &[usize],
        batch: usize,
    ) {
        let p = Problem::new(kind, n, batch, &Layout::default(), &Layout::default()).unwrap();
        let is64 = T::NAME == "f64";
        let mut planner = Planner::new(Limits::new(is64, 227 * 1024, 1024).with_clusters(8), is64);
        planner.plan(&p, kind == TransformType::C2R).unwrap();
        let mut text = describe(&planner.steps, planner.work, T::NAME);
        for (i, st) in planner.steps.iter().enumerate() {
            let ptx = match &st.kind {
                StepKind::Block(c) => fft_block::kernel::<T>(c.clone()).unwrap().ptx("sm_90").unwrap(),
                StepKind::Point(c) => fft_pointwise::kernel::<T>(c.clone()).unwrap().ptx("sm_90").unwrap(),
            };
            std::fs::write(dir.join(format!("{name}.p{}.ptx", i + 1)), ptx.as_str()).unwrap();
        }
        text.insert_str(0, &format!("{name}\n"));
        std::fs::write(dir.join(format!("{name}.plan.txt")), text).unwrap();
    }

    #[test]
    #[ignore = "writes PTX for inspection; needs FERROCM_FFT_PTX_DIR"]
    fn ptx_of_bench_cases() {
        let Ok(dir) = std::env::var("FERROCM_FFT_PTX_DIR") else { return };
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        let only = std::env::var("FERROCM_FFT_PTX_CASE").unwrap_or_default();
        let cases: [(&str, TransformType, &[usize], usize, bool); 10] = [
            ("c2c_2p24", TransformType::C2C, &[1 << 24], 1, false),
            ("c2c_1024x16384", TransformType::C2C, &[1024], 16384, false),
            ("c2c_4096x4096", TransformType::C2C, &[4096], 4096, false),
            ("c2c_1000x16384", TransformType::C2C, &[1000], 16384, false),
            ("c2c_1021x16384", TransformType::C2C, &[1021], 16384, false),
            ("c2c_2d_4096", TransformType::C2C, &[4096, 4096], 1, false),
            ("c2c_3d_512", TransformType::C2C, &[512, 512, 512], 1, false),
            ("r2c_2p26", TransformType::R2C, &[1 << 26], 1, false),
            ("r2c_2d_8192", TransformType::R2C, &[8192, 8192], 1, false),
            ("z2z_2p24", TransformType::C2C, &[1 << 24], 1, true),
        ];
        for (name, kind, n, batch, f64) in cases {
            if !only.is_empty() && !name.contains(&only) {
                continue;
            }
            if f64 {
                write::<f64>(&dir, name, kind, n, batch);
            } else {
                write::<f32>(&dir, name, kind, n, batch);
            }
        }
    }
}
