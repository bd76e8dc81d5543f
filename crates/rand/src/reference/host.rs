//! Host-API-shaped generation (`curandGenerate*`) on top of the device-API states.
//!
//! These functions validate their arguments the way cuRAND's host API does and fill whole
//! buffers. Quasi-random output is laid out dimension-major, as cuRAND's default ordering:
//! `out[d * n + j]` is point `offset + j` of dimension `d`, with `n = out.len() / dimensions`.

use super::distributions::{self as d, Normal};
use super::sobol::{direction_vectors32, direction_vectors64, Sobol32, Sobol64, SOBOL_MAX_DIMENSIONS};
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
        self.offset += n as u64;
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
