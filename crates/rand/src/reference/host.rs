//! Host-API-shaped generation (`curandGenerate*`) on top of the device-API states.
//!
//! These functions validate their arguments the way cuRAND's host API does and fill whole
//! buffers. Quasi-random output is laid out dimension-major, as cuRAND's default ordering:
//! `out[d * n + j]` is point `offset + j` of dimension `d`, with `n = out.len() / dimensions`.

use super::distributions::{self as d, Normal};
use super::host_poisson::{self, PoissonTable, QuasiPoisson};
use super::sobol::{direction_vectors32, direction_vectors64, Sobol32, Sobol64, SOBOL_MAX_DIMENSIONS};
use std::collections::HashMap;

use super::CurandDevice;
use crate::RandError;

/// Which Sobol sequence a [`QuasiGenerator`] produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuasiKind {
    /// `CURAND_RNG_QUASI_SOBOL32`: 32-bit points.
    Sobol32,
    /// `CURAND_RNG_QUASI_SOBOL64`: 64-bit points.
    Sobol64,
}

/// A host-API quasi-random generator: a Sobol sequence over `dimensions` dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuasiGenerator {
    kind: QuasiKind,
    dimensions: u32,
    offset: u64,
}

impl QuasiGenerator {
    /// `curandCreateGenerator` + `curandSetQuasiRandomGeneratorDimensions(dimensions)`.
    pub fn new(kind: QuasiKind, dimensions: u32) -> Result<Self, RandError> {
        if dimensions == 0 || dimensions > SOBOL_MAX_DIMENSIONS {
            return Err(RandError::UnsupportedDimensions { dimensions, max: SOBOL_MAX_DIMENSIONS });
        }
        Ok(Self { kind, dimensions, offset: 0 })
    }

    /// `curandSetGeneratorOffset`: the index of the first point of the next call.
    pub fn set_offset(&mut self, offset: u64) {
        self.offset = offset;
    }

    /// The number of dimensions.
    pub fn dimensions(&self) -> u32 {
        self.dimensions
    }

    /// Points per dimension for an output of `len` values.
    fn points(&self, len: usize) -> Result<usize, RandError> {
        if len == 0 {
            return Err(RandError::Empty { what: "output" });
        }
        if len % self.dimensions as usize != 0 {
            return Err(RandError::LengthNotMultipleOfDimensions { len, dimensions: self.dimensions });
        }
        Ok(len / self.dimensions as usize)
    }

    /// Fills `out` dimension-major with `f(raw point)`, raw points widened to `u64`
    /// (Sobol32 points occupy the low 32 bits).
    fn fill<T>(&mut self, out: &mut [T], f: impl Fn(u64) -> T) -> Result<(), RandError> {
        let n = self.points(out.len())?;
        for (dim, chunk) in out.chunks_mut(n).enumerate() {
            let dim = dim as u32;
            match self.kind {
                QuasiKind::Sobol32 => {
                    let mut s = Sobol32::from_vectors(direction_vectors32(dim)?, self.offset as u32);
                    for o in chunk.iter_mut() {
                        *o = f(s.next_u32() as u64);
                    }
                }
                QuasiKind::Sobol64 => {
                    let mut s = Sobol64::from_vectors(direction_vectors64(dim)?, self.offset);
                    for o in chunk.iter_mut() {
                        *o = f(s.next_u64());
                    }
                }
            }
        }
        self.offset = self.offset.wrapping_add(n as u64);
        Ok(())
    }

    /// `curandGenerate` (Sobol32) or `curandGenerateLongLong` (Sobol64) as raw points;
    /// Sobol32 points are widened.
    pub fn generate(&mut self, out: &mut [u64]) -> Result<(), RandError> {
        self.fill(out, |x| x)
    }

    /// `curandGenerate` for Sobol32 (32-bit points). Sobol64 points are truncated to their
    /// upper 32 bits.
    pub fn generate_u32(&mut self, out: &mut [u32]) -> Result<(), RandError> {
        let kind = self.kind;
        self.fill(out, |x| top32(kind, x))
    }

    /// `curandGenerateUniform`: floats in (0, 1].
    pub fn generate_uniform(&mut self, out: &mut [f32]) -> Result<(), RandError> {
        let kind = self.kind;
        self.fill(out, |x| d::uniform_f32(top32(kind, x)))
    }

    /// `curandGenerateUniformDouble`: doubles in (0, 1].
    pub fn generate_uniform_double(&mut self, out: &mut [f64]) -> Result<(), RandError> {
        match self.kind {
            QuasiKind::Sobol32 => self.fill(out, |x| d::uniform_f64_from_u32(x as u32)),
            QuasiKind::Sobol64 => self.fill(out, d::uniform_f64_from_u64),
        }
    }

    /// `curandGeneratePoisson` (Sobol32 only): each point mapped by [`QuasiPoisson`] (square
    /// histogram, inverse CDF or Gaussian map, by lambda).
    pub fn generate_poisson(&mut self, out: &mut [u32], lambda: f64) -> Result<(), RandError> {
        if self.kind != QuasiKind::Sobol32 {
            return Err(RandError::Unsupported { what: "Poisson outputs of Sobol64".into() });
        }
        let map = QuasiPoisson::new(lambda)?;
        self.fill(out, |x| map.sample_bits(x as u32))
    }

    /// `curandGenerateNormal`: inverse-CDF normals (quasi-random generators cannot pair
    /// points for Box-Muller without spoiling their structure).
    pub fn generate_normal(&mut self, out: &mut [f32], mean: f32, stddev: f32) -> Result<(), RandError> {
        Normal::new(mean as f64, stddev as f64)?;
        let kind = self.kind;
        self.fill(out, |x| {
            let u = d::uniform_f32(top32(kind, x)) as f64;
            (mean as f64 + stddev as f64 * d::normal_icdf(u)) as f32
        })
    }

    /// `curandGenerateNormalDouble`.
    pub fn generate_normal_double(
        &mut self,
        out: &mut [f64],
        mean: f64,
        stddev: f64,
    ) -> Result<(), RandError> {
        Normal::new(mean, stddev)?;
        match self.kind {
            QuasiKind::Sobol32 => {
                self.fill(out, |x| mean + stddev * d::normal_icdf(d::uniform_f64_from_u32(x as u32)))
            }
            QuasiKind::Sobol64 => {
                self.fill(out, |x| mean + stddev * d::normal_icdf(d::uniform_f64_from_u64(x)))
            }
        }
    }
}

fn top32(kind: QuasiKind, x: u64) -> u32 {
    match kind {
        QuasiKind::Sobol32 => x as u32,
        QuasiKind::Sobol64 => (x >> 32) as u32,
    }
}

/// Which pseudo-random generator a [`PseudoGenerator`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PseudoKind {
    /// `CURAND_RNG_PSEUDO_XORWOW`.
    Xorwow,
    /// `CURAND_RNG_PSEUDO_MRG32K3A`.
    Mrg32k3a,
    /// `CURAND_RNG_PSEUDO_PHILOX4_32_10`.
    Philox4x32_10,
}

impl PseudoKind {
    /// Subsequences the host API interleaves (`T` in [`PseudoGenerator`]): 4096 for XORWOW,
    /// 81,920 for MRG32k3a and 65,536 Philox blocks, read off cuRAND 10.4 by locating its
    /// outputs among the subsequences' draws (`tools/curand_host_layout.py`).
    pub fn host_threads(self) -> u64 {
        match self {
            PseudoKind::Xorwow => 4096,
            PseudoKind::Mrg32k3a => 81_920,
            PseudoKind::Philox4x32_10 => 65_536,
        }
    }
}

/// A host-API pseudo-random generator (`curandCreateGenerator` with the default ordering).
///
/// cuRAND runs `T` device states ([`PseudoKind::host_threads`]), state `t` being
/// `curand_init(seed, t, 0)`, and interleaves them. The layouts, read off cuRAND 10.4 and
/// checked to 2^24 values and at offsets 0, 1, odd, even and large (`tests/data/`):
///
/// - Philox: the stream is a function of the absolute index `a = offset + j`: element `a` is
///   value `a % E` of unit `u = a / E` of state `u % T`, unit row `u / T`, where a unit is one
///   block (`E = 4` 32-bit values, uniforms or normals, pairs from words (0, 1) and (2, 3)) or
///   two consecutive blocks (`E = 4` doubles: uniforms from word pairs, or two
///   double-precision normal pairs).
/// - XORWOW and MRG32k3a: every state first skips to where the 32-bit stream has it at the
///   offset `o` (state `t` at row `r0(t) = o / T + [t < o % T]`), then output groups (one value,
///   or one normal pair) go round-robin over the states starting at state `o % T`: group `g` of
///   a call is slot `s = o + g`, drawn by state `s % T` at its row `s / T`, after
///   `r0 + c (s / T - r0)` draws (`c` the draws per group). For 32-bit outputs this is draw
///   `a / T` of state `a % T`, a function of the absolute index; for pairs and multi-draw
///   values the offset counts groups, not draws.
///
/// Every call starts at the generator offset and advances it by the number of values written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PseudoGenerator {
    kind: PseudoKind,
    seed: u64,
    offset: u64,
    threads: u64,
}

/// Draw source for one device state.
#[derive(Clone, Copy)]
enum State {
    Xorwow(super::Xorwow),
    Mrg(super::Mrg32k3a),
    Philox(super::Philox4x32_10),
}

impl PseudoGenerator {
    /// `curandCreateGenerator(kind)`; the seed defaults to 0 as in cuRAND.
    pub fn new(kind: PseudoKind) -> Self {
        Self { kind, seed: 0, offset: 0, threads: kind.host_threads() }
    }

    /// `curandSetPseudoRandomGeneratorSeed`.
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
    }

    /// `curandSetGeneratorOffset`: the first value of the next `generate` call.
    pub fn set_offset(&mut self, offset: u64) {
        self.offset = offset;
    }

    fn state(&self, t: u64) -> State {
        match self.kind {
            PseudoKind::Xorwow => State::Xorwow(super::Xorwow::new(self.seed, t, 0)),
            PseudoKind::Mrg32k3a => State::Mrg(super::Mrg32k3a::new(self.seed, t, 0)),
            PseudoKind::Philox4x32_10 => State::Philox(super::Philox4x32_10::new(self.seed, t, 0)),
        }
    }

    /// The device state (subsequence) and first draw behind output group `j` of a call
    /// (a group is one value or one normal pair) spending `draws` draws per group, with
    /// `per_unit` groups per Philox unit.
    ///
    /// Philox: group `j` is absolute group `base + j` (`base` the offset in groups, see
    /// [`PseudoGenerator::pairs`]). XORWOW and MRG32k3a: slot `o + j` of the layout described on
    /// [`PseudoGenerator`], `o` the generator offset.
    fn locate(&self, j: u64, base: u64, draws: u64, per_unit: u64) -> (u64, u64) {
        // `check_end` keeps every position below 2^64.
        let t = self.threads;
        match self.kind {
            PseudoKind::Philox4x32_10 => {
                let g = base + j;
                let (u, within) = (g / per_unit, g % per_unit);
                let (state, row) = (u % t, u / t);
                // The state starts where the 32-bit stream has it at the offset (one block of
                // four values per unit there), then spends `per_unit * draws` per unit row.
                let o = self.offset / 4;
                let r0 = o / t + u64::from(state < o % t);
                (state, 4 * r0 + per_unit * draws * (row - r0) + within * draws)
            }
            _ => {
                let o = self.offset;
                let s = o + j;
                let (state, row) = (s % t, s / t);
                let r0 = o / t + u64::from(state < o % t);
                (state, r0 + draws * (row - r0))
            }
        }
    }

    /// Refuses a call whose values would pass the end of the 64-bit offset range (cuRAND
    /// continues Philox's and MRG32k3a's layouts there and wraps XORWOW's; ferrocm keeps every
    /// position below 2^64).
    fn check_end(&self, len: usize) -> Result<(), RandError> {
        if self.offset as u128 + len as u128 > 1u128 << 64 {
            return Err(RandError::OffsetOverflow { offset: self.offset, count: len as u64 });
        }
        Ok(())
    }

    /// Calls `f` with a state positioned at the first draw of each output group; `f`
    /// spends exactly `draws` draws. States are kept between groups so that each is
    /// initialised once per call.
    fn fill<T>(
        &mut self,
        out: &mut [T],
        (draws, per_unit): (u64, u64),
        base: u64,
        mut f: impl FnMut(&mut State) -> T,
    ) -> Result<(), RandError> {
        if out.is_empty() {
            return Err(RandError::Empty { what: "output" });
        }
        let mut states: HashMap<u64, (State, u64)> = HashMap::new();
        // States are first touched in subsequence order, so each fresh state is the previous
        // one moved on by one subsequence (one matrix-vector product instead of a full skip).
        let mut last: Option<(u64, State)> = None;
        for (j, o) in out.iter_mut().enumerate() {
            let (t, first) = self.locate(j as u64, base, draws, per_unit);
            let (s, at) = states.entry(t).or_insert_with(|| {
                let fresh = match last {
                    Some((lt, mut s)) if lt + 1 == t => {
                        match &mut s {
                            State::Xorwow(g) => g.skip_subsequence(1),
                            State::Mrg(g) => g.skip_subsequence(1),
                            State::Philox(g) => g.skip_subsequence(1),
                        }
                        s
                    }
                    _ => self.state(t),
                };
                last = Some((t, fresh));
                (fresh, 0)
            });
            if *at > first {
                *s = self.state(t);
                *at = 0;
            }
            let gap = first - *at;
            match s {
                State::Xorwow(g) => g.skip(gap),
                State::Mrg(g) => g.skip(gap),
                State::Philox(g) => g.skip(gap),
            }
            *o = f(s);
            *at = first.wrapping_add(draws);
        }
        Ok(())
    }

    /// `curandGenerate`: 32-bit values.
    pub fn generate(&mut self, out: &mut [u32]) -> Result<(), RandError> {
        self.check_end(out.len())?;
        let base = self.offset;
        self.fill(out, (1, 4), base, |s| dev(s).next_u32())?;
        self.offset = self.offset.wrapping_add(out.len() as u64);
        Ok(())
    }

    /// `curandGenerateUniform`.
    pub fn generate_uniform(&mut self, out: &mut [f32]) -> Result<(), RandError> {
        self.check_end(out.len())?;
        self.fill(out, (1, 4), self.offset, |s| dev(s).uniform())?;
        self.offset = self.offset.wrapping_add(out.len() as u64);
        Ok(())
    }

    /// `curandGenerateUniformDouble`: XORWOW and Philox spend two 32-bit draws per value.
    pub fn generate_uniform_double(&mut self, out: &mut [f64]) -> Result<(), RandError> {
        self.check_end(out.len())?;
        let draws = if self.kind == PseudoKind::Mrg32k3a { 1 } else { 2 };
        self.fill(out, (draws, 4), self.offset, |s| match s {
            State::Philox(g) => {
                let x = g.next_u32();
                let y = g.next_u32();
                d::uniform_f64_hq(x, y)
            }
            other => dev(other).uniform_double(),
        })?;
        self.offset = self.offset.wrapping_add(out.len() as u64);
        Ok(())
    }

    /// `curandGenerateNormal`: `out.len()` must be even (values come in Box-Muller pairs).
    pub fn generate_normal(&mut self, out: &mut [f32], mean: f32, stddev: f32) -> Result<(), RandError> {
        Normal::new(mean as f64, stddev as f64)?;
        self.pairs(out, "generate_normal", (2, 2), |s| dev(s).box_muller().map(|z| stddev.mul_add(z, mean)))
    }

    /// `curandGenerateNormalDouble`.
    pub fn generate_normal_double(
        &mut self,
        out: &mut [f64],
        mean: f64,
        stddev: f64,
    ) -> Result<(), RandError> {
        self.normal_double_pairs(out, "generate_normal_double", mean, stddev, |z| z)
    }

    /// `curandGenerateLogNormalDouble`: the normal doubles' layout, exponentiated.
    pub fn generate_log_normal_double(
        &mut self,
        out: &mut [f64],
        mean: f64,
        stddev: f64,
    ) -> Result<(), RandError> {
        self.normal_double_pairs(out, "generate_log_normal_double", mean, stddev, f64::exp)
    }

    fn normal_double_pairs(
        &mut self,
        out: &mut [f64],
        what: &'static str,
        mean: f64,
        stddev: f64,
        map: fn(f64) -> f64,
    ) -> Result<(), RandError> {
        Normal::new(mean, stddev)?;
        let draws = if self.kind == PseudoKind::Mrg32k3a { 2 } else { 4 };
        self.pairs(out, what, (draws, 2), |s| match s {
            State::Philox(g) => {
                let x: [u32; 4] = core::array::from_fn(|_| g.next_u32());
                d::box_muller_double(x[0], x[1], x[2], x[3]).map(|z| map(stddev.mul_add(z, mean)))
            }
            other => dev(other).box_muller_double().map(|z| map(stddev.mul_add(z, mean))),
        })
    }

    /// `curandGeneratePoisson` (see [`super::host_poisson`]): the square histogram maps the
    /// `generate` stream; the Gaussian method rounds float normals, Philox's in the
    /// `generate_normal` layout (value `e % 2` of pair `e / 2` for element `e`), XORWOW's and
    /// MRG32k3a's one per element from state `e % T`, started at draw `e0 / T` for the call's
    /// first element `e0` of that state and calling `curand_normal` (with its cache) after.
    pub fn generate_poisson(&mut self, out: &mut [u32], lambda: f64) -> Result<(), RandError> {
        self.check_end(out.len())?;
        if out.is_empty() {
            return Err(RandError::Empty { what: "output" });
        }
        let (mean, stddev) = match PoissonTable::new(lambda)? {
            table @ PoissonTable::SquareHistogram { .. } => {
                self.generate(out)?;
                for o in out.iter_mut() {
                    *o = table.sample_bits(*o);
                }
                return Ok(());
            }
            PoissonTable::Gauss { mean, stddev } => (mean, stddev),
        };
        let n = out.len() as u64;
        let start = self.offset;
        if self.kind == PseudoKind::Philox4x32_10 {
            let lead = start % 2;
            let mut z = vec![0f32; (n + lead).next_multiple_of(2) as usize];
            self.offset = start - lead;
            self.generate_normal(&mut z, 0.0, 1.0)?;
            for (o, &z) in out.iter_mut().zip(&z[lead as usize..]) {
                *o = host_poisson::gauss(mean, stddev, z as f64);
            }
        } else {
            let t = self.threads;
            let mut states: HashMap<u64, State> = HashMap::new();
            for (j, o) in out.iter_mut().enumerate() {
                let e = start.wrapping_add(j as u64);
                let s = states.entry(e % t).or_insert_with(|| {
                    let mut s = self.state(e % t);
                    match &mut s {
                        State::Xorwow(g) => g.skip(e / t),
                        State::Mrg(g) => g.skip(e / t),
                        State::Philox(g) => g.skip(e / t),
                    }
                    s
                });
                *o = host_poisson::gauss(mean, stddev, dev(s).normal() as f64);
            }
        }
        self.offset = start.wrapping_add(n);
        Ok(())
    }

    /// `curandGenerateLogNormal`.
    pub fn generate_log_normal(&mut self, out: &mut [f32], mean: f32, stddev: f32) -> Result<(), RandError> {
        Normal::new(mean as f64, stddev as f64)?;
        self.pairs(out, "generate_log_normal", (2, 2), |s| {
            dev(s).box_muller().map(|z| stddev.mul_add(z, mean).exp())
        })
    }

    /// Normal pairs: Philox's element `a = offset + j` is value `a % 2` of absolute pair
    /// `a / 2` (an odd offset starts inside a pair); XORWOW's and MRG32k3a's pair `j` is slot
    /// `offset + j`.
    fn pairs<T: Copy + Default>(
        &mut self,
        out: &mut [T],
        what: &'static str,
        draws: (u64, u64),
        mut f: impl FnMut(&mut State) -> [T; 2],
    ) -> Result<(), RandError> {
        if out.is_empty() {
            return Err(RandError::Empty { what: "output" });
        }
        if out.len() % 2 != 0 {
            return Err(RandError::OddLength { what, len: out.len() });
        }
        self.check_end(out.len())?;
        let lead = if self.kind == PseudoKind::Philox4x32_10 { (self.offset % 2) as usize } else { 0 };
        let mut pairs = vec![[T::default(); 2]; (out.len() + lead).div_ceil(2)];
        self.fill(&mut pairs, draws, self.offset / 2, &mut f)?;
        for (o, v) in out.iter_mut().zip(pairs.iter().flatten().skip(lead)) {
            *o = *v;
        }
        self.offset = self.offset.wrapping_add(out.len() as u64);
        Ok(())
    }
}

fn dev(s: &mut State) -> &mut dyn super::CurandDevice {
    match s {
        State::Xorwow(g) => g,
        State::Mrg(g) => g,
        State::Philox(g) => g,
    }
}
