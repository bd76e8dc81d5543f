//! The host API: a [`Generator`] fills device buffers asynchronously on a [`Stream`]
//! (`curandGenerate*` / `rocrand_generate*`).
//!
//! # Orderings
//!
//! [`Ordering::Legacy`] reproduces cuRAND's host API (its default ordering) bit for bit, the
//! layouts of [`crate::reference::host::PseudoGenerator`]: Philox interleaves 65,536
//! subsequences, XORWOW 4,096 and MRG32k3a 81,920; checked against cuRAND 10.4's streams up to
//! 2^24 values and at offsets up to the end of the 64-bit range. A call whose values would pass
//! 2^64 (offset + count > 2^64) is [`RandError::OffsetOverflow`] in this ordering and for
//! Philox (cuRAND continues or wraps there).
//!
//! [`Ordering::Default`] is laid out for speed:
//! - Philox4x32-10: value `4k + w` of the stream is word `w` of `philox(counter k, key seed)`,
//!   so one thread computes one block and writes it with one 16-byte store, grid-stride;
//!   doubles take one block per two values, normal pairs come from words (0,1) and (2,3). The
//!   offset counts values of this stream, so splitting a request over calls changes nothing.
//! - XORWOW and MRG32k3a: the generator keeps [`DEFAULT_STATES`] per-thread states in device
//!   memory, state `t` initialised once (on first use) as `curand_init(seed, t, offset)`.
//!   Each call hands unit `q` (4 values, or 2 doubles) to state `q % S`, which draws the unit's
//!   values in order and is stored back advanced; the result depends on how a request is split
//!   over calls, as with cuRAND's own persistent states.
//! - Sobol32 (both orderings): dimension-major as cuRAND, `out[d * n + j]` is point
//!   `offset + j` of dimension `d`. When the first index is a multiple of 4096 and rows are
//!   16-byte aligned, each warp writes 4096 consecutive points of one dimension with
//!   whole-warp 16-byte stores (`kernels::sobol_warp_body`); otherwise each thread writes
//!   16 consecutive points. Both give the same bits.
//! - Discrete outputs map the 32-bit stream of `generate_u32` (one draw each); Poisson
//!   outputs are described on [`Generator::generate_poisson`] (in the legacy ordering and for
//!   Sobol32 they are cuRAND's host-API Poisson, [`crate::reference::host_poisson`]).

mod kernels;
mod quasi_cdf;

use ferrocm_kernel::dsl::Elem;
use ferrocm_kernel::runtime::trace::{self, Work};
use ferrocm_kernel::runtime::{
    AsDeviceSlice, AsDeviceSliceMut, BackendKind, DeviceBuffer, LaunchConfig, Stream,
};

use crate::reference::host::PseudoKind;
use crate::reference::sobol::{direction_vectors32, direction_vectors64, SOBOL_MAX_DIMENSIONS};
use crate::RandError;
use kernels::{Dist, Plan, Rng};

/// States the default ordering keeps for XORWOW and MRG32k3a.
pub const DEFAULT_STATES: u64 = 1 << 17;

/// Which generator (`curandRngType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RngType {
    /// `CURAND_RNG_PSEUDO_PHILOX4_32_10`.
    Philox4x32_10,
    /// `CURAND_RNG_PSEUDO_XORWOW`.
    Xorwow,
    /// `CURAND_RNG_PSEUDO_MRG32K3A`.
    Mrg32k3a,
    /// `CURAND_RNG_QUASI_SOBOL32`.
    Sobol32,
    /// `CURAND_RNG_QUASI_SOBOL64`: raw points through [`Generator::generate_u64`], f64
    /// uniforms and f64 inverse-CDF normals; dimension-major as Sobol32.
    Sobol64,
    /// `CURAND_RNG_PSEUDO_MTGP32`: bit-identical to cuRAND's host API for 32-bit values,
    /// uniforms and half uniforms ([`crate::reference::mtgp32`]; one ordering). The offset
    /// (which cuRAND refuses for MTGP32) is honoured by computing the rounds before it, up to
    /// 2^18 rounds of 49,152 values ([`RandError::OffsetTooFar`] beyond). Other
    /// distributions are [`RandError::Unsupported`] (cuRAND's MTGP32 normal layout is not
    /// reproduced yet).
    Mtgp32,
    /// `CURAND_RNG_PSEUDO_MT19937`: bit-identical to cuRAND's host API for 32-bit values,
    /// uniforms, doubles and Poisson outputs below lambda 2000; inverse-CDF normals within
    /// stated tolerances ([`crate::reference::mt19937`]; one ordering). Calls continue one
    /// stream as cuRAND's do; the offset (which cuRAND refuses for MT19937) is honoured. Setting
    /// the seed computes the 8192 engines on the host (8191 jumps of 2^2048 steps). A call may
    /// start at most 2^16 blocks of 5,111,808 values ahead of where the engines stand
    /// ([`RandError::OffsetTooFar`]: the values in between are computed).
    Mt19937,
    /// `ROCRAND_RNG_PSEUDO_LFSR113` (L'Ecuyer's LFSR113, [`crate::reference::Lfsr113`]): laid out
    /// as XORWOW's default ordering (one ordering: the legacy one is the same).
    Lfsr113,
    /// `ROCRAND_RNG_PSEUDO_THREEFRY2_32_20`: value `i` is word `i % 2` of block `i / 2`
    /// ([`crate::reference::ThreefryKind::value`]), in both orderings.
    Threefry2x32_20,
    /// `ROCRAND_RNG_PSEUDO_THREEFRY4_32_20` (4 words per block).
    Threefry4x32_20,
    /// `ROCRAND_RNG_PSEUDO_THREEFRY2_64_20` (2 64-bit words per block, low half first).
    Threefry2x64_20,
    /// `ROCRAND_RNG_PSEUDO_THREEFRY4_64_20` (4 64-bit words per block, low half first).
    Threefry4x64_20,
}

/// Output ordering (`curandOrdering`); see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ordering {
    /// Laid out for speed.
    #[default]
    Default,
    /// Bit-identical to cuRAND's host API.
    Legacy,
}

/// A discrete distribution's table in device memory (`curandDiscreteDistribution_t`), built
/// from user weights with [`crate::reference::DiscreteDistribution`].
pub struct DiscreteTable {
    thresholds: DeviceBuffer<f64>,
    aliases: DeviceBuffer<u32>,
}

impl DiscreteTable {
    /// Validates `weights` (finite, non-negative, not all 0) and uploads the table.
    pub fn new(stream: &Stream, weights: &[f64]) -> Result<DiscreteTable, RandError> {
        let d = crate::reference::DiscreteDistribution::new(weights)?;
        Ok(DiscreteTable {
            thresholds: stream.clone_htod(d.thresholds())?,
            aliases: stream.clone_htod(d.aliases())?,
        })
    }

    /// Number of outcomes.
    pub fn len(&self) -> usize {
        self.aliases.len()
    }

    /// Always false: construction rejects empty tables.
    pub fn is_empty(&self) -> bool {
        self.aliases.is_empty()
    }
}

/// A host-API generator bound to one stream.
pub struct Generator {
    stream: Stream,
    rng: RngType,
    ordering: Ordering,
    seed: u64,
    offset: u64,
    dimensions: u32,
    table: Option<DeviceBuffer<u32>>,
    states: Option<(DeviceBuffer<u32>, u64)>,
    directions: Option<(DeviceBuffer<u32>, u32)>,
    directions64: Option<(DeviceBuffer<u64>, u32)>,
    poisson: Option<(PoissonKey, PoissonDeviceTable)>,
    mtgp: Option<MtgpDevice>,
    mt19937: Option<Mt19937Device>,
}

/// How many twisted blocks of 5,111,808 values an MT19937 call may skip (an offset set ahead):
/// 2^16 blocks, about 3.3e11 values, some 80 ms of an H100's time.
const MT19937_MAX_SKIP_BLOCKS: u64 = 1 << 16;

/// How many rounds of each generator an MTGP32 call may compute before its first value (an
/// offset set ahead): 2^18, about 1.3e10 values, some 0.1 s of an H100's time.
const MTGP32_MAX_SKIP_ROUNDS: u64 = 1 << 18;

/// MT19937's device state: the 8192 engines (slot-major, as the kernel's threads hold them)
/// and how many blocks the engines have twisted.
struct Mt19937Device {
    states: DeviceBuffer<u32>,
    done: u64,
}

/// MTGP32's device state: parameters, the 192 generators' state arrays, and the stream
/// position they stand at (each generator has kept every round that ends by it).
struct MtgpDevice {
    params: DeviceBuffer<u32>,
    states: DeviceBuffer<u32>,
    at: u64,
}

/// Which host-API Poisson table is uploaded: lambda's bits and the generator family's maps.
type PoissonKey = (u64, PoissonMaps);

/// Whose host-API Poisson maps (see [`crate::reference::host_poisson`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum PoissonMaps {
    /// The pseudo-random generators': the square histogram, then the Gaussian method.
    Pseudo,
    /// Sobol32's: histogram, inverse CDF from lambda 10, Gaussian map above 8000.
    Sobol32,
    /// MTGP32's: Sobol32's with the inverse CDF from lambda 32.
    Mtgp32,
}

/// A host-API Poisson map in device memory (see [`crate::reference::host_poisson`]).
enum PoissonDeviceTable {
    Histogram {
        shift: u32,
        thresholds: DeviceBuffer<f64>,
        aliases: DeviceBuffer<u32>,
    },
    /// Sobol32's inverse CDF as a lookup table of scale `bits` ([`quasi_cdf::CdfLookup`]).
    Cdf {
        shift: u32,
        bits: u32,
        table: DeviceBuffer<u32>,
    },
    Gauss {
        mean: f64,
        stddev: f64,
    },
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generator")
            .field("rng", &self.rng)
            .field("ordering", &self.ordering)
            .field("seed", &self.seed)
            .field("offset", &self.offset)
            .field("dimensions", &self.dimensions)
            .finish()
    }
}

/// Philox blocks each thread computes per loop trip (independent, for instruction-level
/// parallelism; results never depend on it). Measurements behind it are in `NOTES.md`.
const PHILOX_UNROLL: u64 = 2;

/// Most blocks of 256 threads per launch on GPUs (the grid-stride kernels' results never
/// depend on it).
const GRID_CAP: u64 = 8192;

fn kerr(e: ferrocm_kernel::KernelError) -> RandError {
    RandError::Kernel { message: e.to_string() }
}

impl Generator {
    /// `curandCreateGenerator(rng)`: seed 0, offset 0, the default ordering, one dimension.
    pub fn new(stream: &Stream, rng: RngType) -> Result<Generator, RandError> {
        Ok(Generator {
            stream: stream.clone(),
            rng,
            ordering: Ordering::Default,
            seed: 0,
            offset: 0,
            dimensions: 1,
            table: None,
            states: None,
            directions: None,
            directions64: None,
            poisson: None,
            mtgp: None,
            mt19937: None,
        })
    }

    /// The generator type.
    pub fn rng_type(&self) -> RngType {
        self.rng
    }

    /// `curandSetPseudoRandomGeneratorSeed`; resets kept states.
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
        self.states = None;
        self.mtgp = None;
        self.mt19937 = None;
    }

    /// `curandSetGeneratorOffset`; resets kept states.
    pub fn set_offset(&mut self, offset: u64) {
        self.offset = offset;
        self.states = None;
        self.mtgp = None;
        self.mt19937 = None;
    }

    /// `curandSetGeneratorOrdering`; resets kept states.
    pub fn set_ordering(&mut self, ordering: Ordering) {
        self.ordering = ordering;
        self.states = None;
    }

    /// `curandSetQuasiRandomGeneratorDimensions` (Sobol only; 1 to 20,000).
    pub fn set_dimensions(&mut self, dimensions: u32) -> Result<(), RandError> {
        if !matches!(self.rng, RngType::Sobol32 | RngType::Sobol64) {
            return Err(RandError::Unsupported { what: "dimensions of a pseudo-random generator".into() });
        }
        if dimensions == 0 || dimensions > SOBOL_MAX_DIMENSIONS {
            return Err(RandError::UnsupportedDimensions { dimensions, max: SOBOL_MAX_DIMENSIONS });
        }
        self.dimensions = dimensions;
        Ok(())
    }

    /// The offset of the next call's first value (legacy and Philox default streams).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// `curandGenerate`: 32-bit values.
    pub fn generate_u32(&mut self, out: &mut impl AsDeviceSliceMut<u32>) -> Result<(), RandError> {
        self.fill(out, Dist::Bits, 0.0, 1.0)
    }

    /// `curandGenerateLongLong`: raw 64-bit Sobol64 points, `out[d * n + j]` point
    /// `offset + j` of dimension `d` (Sobol64 only).
    pub fn generate_u64(&mut self, out: &mut impl AsDeviceSliceMut<u64>) -> Result<(), RandError> {
        if self.rng != RngType::Sobol64 {
            return Err(RandError::Unsupported { what: "64-bit outputs of a 32-bit generator".into() });
        }
        self.fill(out, Dist::Bits, 0.0, 1.0)
    }

    /// `curandGenerateUniform`: floats in (0, 1].
    pub fn generate_uniform(&mut self, out: &mut impl AsDeviceSliceMut<f32>) -> Result<(), RandError> {
        self.fill(out, Dist::Uniform, 0.0, 1.0)
    }

    /// Half-precision uniforms (rocRAND's `rocrand_generate_uniform_half`): the float uniform
    /// of the same draw, rounded to nearest even (so in (0, 1]).
    pub fn generate_uniform_half(
        &mut self,
        out: &mut impl AsDeviceSliceMut<ferrocm_kernel::f16>,
    ) -> Result<(), RandError> {
        self.fill(out, Dist::UniformHalf, 0.0, 1.0)
    }

    /// `curandGeneratePoisson`.
    ///
    /// In the default ordering, cuRAND's host-API methods (below) on this ordering's own
    /// streams, fused into the generating kernel: below lambda 2000 value `e` is the square
    /// histogram's outcome for element `e` of the [`generate_u32`](Self::generate_u32) stream,
    /// from 2000 element `e` of the [`generate_normal`](Self::generate_normal) stream rounded
    /// (same seed and offset). (The device API's `curand_poisson` methods, one state per
    /// value, cost 10 to 100 times more per value on a GPU.)
    ///
    /// In the legacy ordering, and always for Sobol32, cuRAND's host-API Poisson
    /// ([`crate::reference::host_poisson`]): the `generate_u32` stream mapped through the
    /// square histogram of `curandCreatePoissonDistribution` (lambda below 2000; bit for bit),
    /// or from lambda 2000 up to 400,000 float normals rounded (`curand_normal`'s layout
    /// described there; equal unless a normal's last bits straddle a rounding boundary).
    /// Sobol32 uses the histogram below lambda 10, the inverse CDF from 10 to 8000 and the
    /// Gaussian map of each point above. Lambdas above 400,000 (cuRAND's limit) are
    /// [`RandError::LambdaOutOfRange`]. The uploaded table of the last lambda is kept.
    pub fn generate_poisson(
        &mut self,
        out: &mut impl AsDeviceSliceMut<u32>,
        lambda: f64,
    ) -> Result<(), RandError> {
        if self.rng == RngType::Sobol64 {
            return Err(RandError::Unsupported { what: "Poisson outputs of Sobol64".into() });
        }
        let maps = match self.rng {
            RngType::Sobol32 => PoissonMaps::Sobol32,
            RngType::Mtgp32 => PoissonMaps::Mtgp32,
            _ => PoissonMaps::Pseudo,
        };
        let quasi = maps == PoissonMaps::Sobol32;
        let gauss = match self.poisson_table(lambda, maps)? {
            PoissonDeviceTable::Gauss { mean, stddev } => Some((*mean, *stddev)),
            _ => None,
        };
        // The legacy XORWOW layout has only 4096 states, each drawing its elements in
        // sequence, where the table lookups in that sequence cost more than a second, parallel
        // pass (an H200 measured 30 against 77 GSample/s at lambda 4).
        let legacy_xorwow = self.ordering == Ordering::Legacy && self.rng == RngType::Xorwow;
        // MT19937 maps its 32-bit stream in a second pass (cuRAND's histogram below lambda
        // 2000, the inverse normal CDF of `x 2^-32 + 2^-33` rounded from it above).
        // MTGP32 too, with its maps (Sobol32's, the inverse CDF from lambda 32).
        if matches!(self.rng, RngType::Mt19937 | RngType::Mtgp32) {
            return self.poisson_map(out);
        }
        match gauss {
            // Rounded float normals, generated in the same kernel: in the legacy ordering
            // Philox's `generate_normal` layout (element `e` is value `e % 2` of pair `e / 2`),
            // XORWOW's and MRG32k3a's one normal per element from state `e % T`.
            Some((mean, stddev)) if !quasi => self.fill(out, Dist::PoissonGauss, mean, stddev),
            // The square histogram of the 32-bit stream, fused into the generating kernel.
            None if !quasi && !legacy_xorwow => self.fill(out, Dist::PoissonHistogram, 0.0, 1.0),
            _ if quasi => self.sobol_poisson(out),
            _ => self.poisson_map(out),
        }
    }

    /// Sobol32's host-API Poisson fused into the Sobol32 kernels: each point mapped by the
    /// uploaded table (histogram, inverse CDF or Gaussian map) before its one store.
    fn sobol_poisson(&mut self, out: &mut impl AsDeviceSliceMut<u32>) -> Result<(), RandError> {
        let n = out.len() as u64;
        if n == 0 {
            return Err(RandError::Empty { what: "output" });
        }
        let dims = self.dimensions as u64;
        if n % dims != 0 {
            return Err(RandError::LengthNotMultipleOfDimensions {
                len: n as usize,
                dimensions: self.dimensions,
            });
        }
        let points = n / dims;
        if points > 1 << 32 {
            return Err(RandError::TooLong { what: "Sobol32 request", len: points as usize, max: 1 << 32 });
        }
        self.upload_directions32()?;
        let stream = self.stream.clone();
        let dummy = stream.alloc_zeroed::<f64>(1)?;
        let (Some((dirs, _)), Some((_, table))) = (self.directions.as_ref(), self.poisson.as_ref()) else {
            unreachable!("directions and the Poisson table were uploaded first")
        };
        // (map, shift, the lookup table's scale, mean, stddev, tables, shared-memory bytes)
        let (dist, shift, bits, mean, stddev, a, b, smem) = match table {
            PoissonDeviceTable::Histogram { shift, thresholds, aliases } => {
                (Dist::PoissonHistogram, *shift, 0, 0.0, 1.0, thresholds, aliases, 0)
            }
            PoissonDeviceTable::Cdf { shift, bits, table } => {
                (Dist::PoissonCdf, *shift, *bits, 0.0, 1.0, &dummy, table, 4 * table.len() as u32)
            }
            PoissonDeviceTable::Gauss { mean, stddev } => {
                (Dist::PoissonIcdf, 0, 0, *mean, *stddev, &dummy, dirs, 0)
            }
        };
        let aligned = out.device_ptr().0 % 16 == 0;
        let plan = Plan {
            dist,
            rng: Rng::Philox,
            legacy: false,
            vector: aligned && points % 4 == 0,
            unroll: 1,
            narrow: false,
        };
        let offset = self.offset as u32;
        if plan.vector && offset as u64 % kernels::SOBOL_WARP_POINTS == 0 {
            let tasks = dims * points.div_ceil(kernels::SOBOL_WARP_POINTS);
            let cfg = self.staged_cfg(tasks * 32, smem);
            kernels::sobol32_poisson_warp_fill::launch(
                &stream, cfg, plan, points, offset, tasks, shift, bits, mean, stddev, a, b, dirs, out,
            )
        } else {
            let units = dims * points.div_ceil(kernels::SOBOL_CHUNK);
            let cfg = self.staged_cfg(units, smem);
            kernels::sobol32_poisson_fill::launch(
                &stream, cfg, plan, points, offset, units, shift, bits, mean, stddev, a, b, dirs, out,
            )
        }
        .map_err(kerr)?;
        self.offset = self.offset.wrapping_add(points);
        Ok(())
    }

    /// Uploads the direction vectors of the configured Sobol32 dimensions (kept while they
    /// stay the same).
    fn upload_directions32(&mut self) -> Result<(), RandError> {
        if self.directions.as_ref().map(|d| d.1) != Some(self.dimensions) {
            let mut v = Vec::with_capacity(32 * self.dimensions as usize);
            for d in 0..self.dimensions {
                v.extend_from_slice(&direction_vectors32(d)?);
            }
            self.directions = Some((self.stream.clone_htod(&v)?, self.dimensions));
        }
        Ok(())
    }

    /// The uploaded host-API Poisson table for `lambda` under `maps`.
    fn poisson_table(&mut self, lambda: f64, maps: PoissonMaps) -> Result<&PoissonDeviceTable, RandError> {
        use crate::reference::host_poisson::{PoissonTable, QuasiPoisson};
        let key = (lambda.to_bits(), maps);
        if self.poisson.as_ref().map(|p| p.0) != Some(key) {
            let histogram = |t: PoissonTable| -> Result<PoissonDeviceTable, RandError> {
                Ok(match t {
                    PoissonTable::SquareHistogram { shift, histogram } => PoissonDeviceTable::Histogram {
                        shift,
                        thresholds: self.stream.clone_htod(histogram.thresholds())?,
                        aliases: self.stream.clone_htod(histogram.aliases())?,
                    },
                    PoissonTable::Gauss { mean, stddev } => PoissonDeviceTable::Gauss { mean, stddev },
                })
            };
            let quasi = match maps {
                PoissonMaps::Pseudo => None,
                PoissonMaps::Sobol32 => Some(QuasiPoisson::new(lambda)?),
                PoissonMaps::Mtgp32 => Some(QuasiPoisson::mtgp32(lambda)?),
            };
            let table = match quasi {
                None => histogram(PoissonTable::new(lambda)?)?,
                Some(QuasiPoisson::SquareHistogram(t)) => histogram(t)?,
                Some(QuasiPoisson::InverseCdf { shift, cdf }) => {
                    // Every lambda of the inverse-CDF range has a table (see the tests of
                    // `quasi_cdf`).
                    let t = quasi_cdf::CdfLookup::new(&cdf).ok_or_else(|| RandError::Unsupported {
                        what: format!("{maps:?} Poisson at lambda {lambda} (no lookup table fits)"),
                    })?;
                    PoissonDeviceTable::Cdf { shift, bits: t.bits, table: self.stream.clone_htod(&t.words)? }
                }
                Some(QuasiPoisson::Gauss { mean, stddev }) => PoissonDeviceTable::Gauss { mean, stddev },
            };
            self.poisson = Some((key, table));
        }
        // Set just above.
        Ok(&self.poisson.as_ref().expect("poisson table uploaded").1)
    }

    /// The uploaded Poisson map applied to the `generate_u32` stream in a second pass
    /// (Sobol32's maps, legacy XORWOW's histogram, MT19937's and MTGP32's maps).
    fn poisson_map(&mut self, out: &mut impl AsDeviceSliceMut<u32>) -> Result<(), RandError> {
        self.generate_u32(out)?;
        let n = out.len() as u64;
        let Some((_, table)) = self.poisson.as_ref() else { unreachable!("poisson table uploaded first") };
        let smem = match table {
            PoissonDeviceTable::Cdf { table, .. } => 4 * table.len() as u32,
            _ => 0,
        };
        let cfg = self.staged_cfg(n, smem);
        let stream = &self.stream;
        match table {
            PoissonDeviceTable::Histogram { shift, thresholds, aliases } => {
                kernels::discrete_map::launch(stream, cfg, *shift, thresholds, aliases, out)
            }
            PoissonDeviceTable::Cdf { shift, bits, table } => {
                kernels::poisson_cdf_map::launch(stream, cfg, *shift, *bits, table, out)
            }
            PoissonDeviceTable::Gauss { mean, stddev } => {
                kernels::poisson_icdf_map::launch(stream, cfg, *mean, *stddev, out)
            }
        }
        .map_err(kerr)
    }

    /// `curand_discrete` over a whole buffer: one 32-bit draw per value (as
    /// [`generate_u32`](Self::generate_u32) lays them out) mapped through `table`.
    pub fn generate_discrete(
        &mut self,
        out: &mut impl AsDeviceSliceMut<u32>,
        table: &DiscreteTable,
    ) -> Result<(), RandError> {
        if matches!(self.rng, RngType::Sobol32 | RngType::Sobol64) {
            return Err(RandError::Unsupported { what: "discrete outputs from Sobol".into() });
        }
        self.generate_u32(out)?;
        let cfg = self.cfg(out.len() as u64);
        kernels::discrete_map::launch(&self.stream, cfg, 0, &table.thresholds, &table.aliases, out)
            .map_err(kerr)
    }

    /// `curandGenerateUniformDouble`: doubles in (0, 1].
    pub fn generate_uniform_double(&mut self, out: &mut impl AsDeviceSliceMut<f64>) -> Result<(), RandError> {
        self.fill(out, Dist::UniformDouble, 0.0, 1.0)
    }

    /// `curandGenerateNormal`: Box-Muller pairs, so `out.len()` must be even.
    pub fn generate_normal(
        &mut self,
        out: &mut impl AsDeviceSliceMut<f32>,
        mean: f32,
        stddev: f32,
    ) -> Result<(), RandError> {
        self.fill(out, Dist::Normal, mean as f64, stddev as f64)
    }

    /// `curandGenerateNormalDouble`.
    pub fn generate_normal_double(
        &mut self,
        out: &mut impl AsDeviceSliceMut<f64>,
        mean: f64,
        stddev: f64,
    ) -> Result<(), RandError> {
        self.fill(out, Dist::NormalDouble, mean, stddev)
    }

    /// `curandGenerateLogNormal`.
    pub fn generate_log_normal(
        &mut self,
        out: &mut impl AsDeviceSliceMut<f32>,
        mean: f32,
        stddev: f32,
    ) -> Result<(), RandError> {
        self.fill(out, Dist::LogNormal, mean as f64, stddev as f64)
    }

    /// `curandGenerateLogNormalDouble`.
    pub fn generate_log_normal_double(
        &mut self,
        out: &mut impl AsDeviceSliceMut<f64>,
        mean: f64,
        stddev: f64,
    ) -> Result<(), RandError> {
        self.fill(out, Dist::LogNormalDouble, mean, stddev)
    }

    fn cfg(&self, work: u64) -> LaunchConfig {
        // Grid-stride kernels: the grid only bounds parallelism, never changes results.
        let cap: u64 = if self.stream.device().kind() == BackendKind::Cpu { 16 } else { GRID_CAP };
        let blocks = work.div_ceil(256).clamp(1, cap) as u32;
        LaunchConfig::new(blocks, 256)
    }

    /// [`cfg`](Self::cfg) for a kernel whose blocks each stage `smem` bytes of tables in shared
    /// memory: on a GPU at most one wave of resident blocks, so the tables are copied once per
    /// block slot rather than once per 256 work items.
    fn staged_cfg(&self, work: u64, smem: u32) -> LaunchConfig {
        let cfg = self.cfg(work);
        if smem == 0 {
            return cfg;
        }
        let mut cfg = cfg.with_shared_mem(smem);
        if self.stream.device().kind() != BackendKind::Cpu {
            let p = self.stream.device().properties();
            // About 1 KiB of each block's shared memory is reserved by the hardware.
            let per_cu =
                (p.shared_mem_per_cu / (u64::from(smem) + 1024)).min(u64::from(p.max_threads_per_cu / 256));
            let wave = (u64::from(p.compute_units) * per_cu.max(1)).clamp(1, GRID_CAP) as u32;
            cfg.grid.x = cfg.grid.x.min(wave);
        }
        cfg
    }

    fn table(&mut self) -> Result<&DeviceBuffer<u32>, RandError> {
        if self.table.is_none() {
            let t = match self.rng {
                RngType::Xorwow => crate::device::xorwow_skip_table(),
                RngType::Lfsr113 => crate::device::lfsr113_skip_table(),
                _ => crate::device::mrg32k3a_skip_table(),
            };
            self.table = Some(self.stream.clone_htod(&t)?);
        }
        // Set just above.
        Ok(self.table.as_ref().expect("table uploaded"))
    }

    fn fill<T: Elem<Repr = T> + ferrocm_kernel::runtime::DeviceRepr>(
        &mut self,
        out: &mut impl AsDeviceSliceMut<T>,
        dist: Dist,
        mean: f64,
        stddev: f64,
    ) -> Result<(), RandError> {
        let n = out.len() as u64;
        if n == 0 {
            return Err(RandError::Empty { what: "output" });
        }
        if dist.pairs() {
            // Quasi-random normals come one per point (inverse CDF), not in pairs.
            if n % 2 != 0
                && !matches!(
                    self.rng,
                    RngType::Sobol32 | RngType::Sobol64 | RngType::Mt19937 | RngType::Mtgp32
                )
            {
                return Err(RandError::OddLength {
                    what: "normal and log-normal generation",
                    len: n as usize,
                });
            }
            if !mean.is_finite() {
                return Err(RandError::InvalidMean { mean });
            }
            if !(stddev.is_finite() && stddev > 0.0) {
                return Err(RandError::InvalidStddev { stddev });
            }
        }
        if out.device() != self.stream.device() {
            return Err(RandError::Unsupported {
                what: "an output buffer on another device than the stream".into(),
            });
        }
        if self.rng == RngType::Sobol64 {
            return self.sobol64(out, dist, mean, stddev);
        }
        if self.rng == RngType::Mtgp32 {
            return self.mtgp32(out, dist, mean, stddev);
        }
        if self.rng == RngType::Mt19937 {
            return self.mt19937(out, dist, mean, stddev);
        }
        // The histogram's kernels read the table `generate_poisson` uploaded.
        let histogram_ready = matches!(self.poisson, Some((_, PoissonDeviceTable::Histogram { .. })));
        if dist == Dist::PoissonHistogram && !histogram_ready {
            return Err(RandError::Unsupported { what: "a Poisson histogram fill without its table".into() });
        }
        let e = dist.per_unit();
        let aligned = out.device_ptr().0 % (e * T::TY.size() as u64) == 0;
        use crate::reference::ThreefryKind as K;
        let rng = match self.rng {
            RngType::Philox4x32_10 => Rng::Philox,
            RngType::Xorwow => Rng::Xorwow,
            RngType::Mrg32k3a => Rng::Mrg32k3a,
            RngType::Lfsr113 => Rng::Lfsr113,
            RngType::Threefry2x32_20 => Rng::Threefry(K::X2x32),
            RngType::Threefry4x32_20 => Rng::Threefry(K::X4x32),
            RngType::Threefry2x64_20 => Rng::Threefry(K::X2x64),
            RngType::Threefry4x64_20 => Rng::Threefry(K::X4x64),
            RngType::Sobol32 => return self.sobol(out, dist, aligned, mean, stddev),
            RngType::Sobol64 | RngType::Mtgp32 | RngType::Mt19937 => unreachable!("returned above"),
        };
        // LFSR113 and ThreeFry have one ordering each (no cuRAND layout to follow).
        let legacy =
            self.ordering == Ordering::Legacy && matches!(rng, Rng::Philox | Rng::Xorwow | Rng::Mrg32k3a);
        // Stream positions stay below 2^64 (see `reference::host::PseudoGenerator`).
        let counter = matches!(rng, Rng::Philox | Rng::Threefry(_));
        if (legacy || counter) && self.offset as u128 + n as u128 > 1u128 << 64 {
            return Err(RandError::OffsetOverflow { offset: self.offset, count: n });
        }
        let stream = self.stream.clone();
        match (rng, legacy) {
            (Rng::Philox | Rng::Threefry(_), _) => {
                let lead = self.offset % e;
                let units = (lead + n).div_ceil(e);
                let cfg = self.cfg(units);
                let unroll = PHILOX_UNROLL;
                let threads = cfg.grid.x as u64 * cfg.block.x as u64;
                let (key_lo, key_hi, u_first) = (self.seed as u32, (self.seed >> 32) as u32, self.offset / e);
                let narrow = u_first % (1 << 31) + units + threads * unroll < 1 << 31 && n < 1 << 32;
                let plan = Plan { dist, rng, legacy, vector: aligned && lead == 0, unroll, narrow };
                // For the profiler's roofline: the output is written once (no other traffic).
                trace::annotate_next_launch(Work::bytes(n * T::TY.size() as u64));
                match (dist, self.poisson.as_ref()) {
                    (
                        Dist::PoissonHistogram,
                        Some((_, PoissonDeviceTable::Histogram { shift, thresholds, aliases })),
                    ) => kernels::philox_histogram_fill::launch::<T>(
                        &stream, cfg, plan, key_lo, key_hi, u_first, lead, units, *shift, thresholds,
                        aliases, out,
                    ),
                    _ => kernels::philox_fill::launch::<T>(
                        &stream, cfg, plan, key_lo, key_hi, u_first, lead, units, mean, stddev, out,
                    ),
                }
                .map_err(kerr)?;
            }
            (_, false) => {
                let units = n.div_ceil(e);
                let total = DEFAULT_STATES;
                let need = units.min(total);
                let (seed, offset) = (self.seed, self.offset);
                if self.states.is_none() {
                    self.states = Some((stream.alloc_zeroed::<u32>(6 * total as usize)?, 0));
                }
                let ready = self.states.as_ref().map(|s| s.1).unwrap_or(0);
                if ready < need {
                    let cfg = self.cfg(need - ready);
                    self.table()?;
                    let (Some(table), Some((states, _))) = (self.table.as_ref(), self.states.as_mut()) else {
                        unreachable!("table and states were created above")
                    };
                    kernels::state_init::launch(
                        &stream,
                        cfg,
                        rng,
                        seed,
                        offset,
                        ready,
                        need - ready,
                        table,
                        states,
                    )
                    .map_err(kerr)?;
                    if let Some(s) = self.states.as_mut() {
                        s.1 = need;
                    }
                }
                // Two units per loop trip: one unit's float work overlaps the next unit's steps.
                let unroll = 2;
                let plan = Plan { dist, rng, legacy, vector: aligned, unroll, narrow: false };
                let cfg = self.cfg(need);
                let Some((states, _)) = self.states.as_mut() else {
                    unreachable!("states were created above")
                };
                let [m1, m2, m1_inv, m2_inv, norm, bits_norm] = crate::device::MrgConstants::VALUES;
                // For the profiler's roofline: the output written, each state read and written.
                trace::annotate_next_launch(Work::bytes(n * T::TY.size() as u64 + 2 * 24 * need));
                match (dist, self.poisson.as_ref()) {
                    (
                        Dist::PoissonHistogram,
                        Some((_, PoissonDeviceTable::Histogram { shift, thresholds, aliases })),
                    ) => kernels::stateful_histogram_fill::launch::<T>(
                        &stream, cfg, plan, units, *shift, thresholds, aliases, m1, m2, m1_inv, m2_inv, norm,
                        bits_norm, states, out,
                    ),
                    _ => kernels::stateful_fill::launch::<T>(
                        &stream, cfg, plan, units, mean, stddev, m1, m2, m1_inv, m2_inv, norm, bits_norm,
                        states, out,
                    ),
                }
                .map_err(kerr)?;
            }
            (_, true) => {
                let s = match rng {
                    Rng::Xorwow => PseudoKind::Xorwow.host_threads(),
                    _ => PseudoKind::Mrg32k3a.host_threads(),
                };
                let items = if dist.pairs() { n / 2 } else { n };
                let plan = Plan { dist, rng, legacy, vector: false, unroll: 1, narrow: false };
                let cfg = self.cfg(s);
                let (seed, offset) = (self.seed, self.offset);
                self.table()?;
                let Some(table) = self.table.as_ref() else { unreachable!("table uploaded above") };
                match (dist, self.poisson.as_ref()) {
                    (
                        Dist::PoissonHistogram,
                        Some((_, PoissonDeviceTable::Histogram { shift, thresholds, aliases })),
                    ) => kernels::legacy_histogram_fill::launch::<T>(
                        &stream, cfg, plan, seed, offset, items, s, *shift, thresholds, aliases, table, out,
                    ),
                    _ => kernels::legacy_fill::launch::<T>(
                        &stream, cfg, plan, seed, offset, items, s, mean, stddev, table, out,
                    ),
                }
                .map_err(kerr)?;
            }
        }
        self.offset = self.offset.wrapping_add(n);
        Ok(())
    }

    fn sobol<T: Elem<Repr = T> + ferrocm_kernel::runtime::DeviceRepr>(
        &mut self,
        out: &mut impl AsDeviceSliceMut<T>,
        dist: Dist,
        aligned: bool,
        mean: f64,
        stddev: f64,
    ) -> Result<(), RandError> {
        let n = out.len() as u64;
        let dims = self.dimensions as u64;
        if n % dims != 0 {
            return Err(RandError::LengthNotMultipleOfDimensions {
                len: n as usize,
                dimensions: self.dimensions,
            });
        }
        let points = n / dims;
        // Point indices are 32-bit and wrap, as cuRAND's Sobol32 state index does; one call
        // cannot ask for more points than the sequence has.
        if points > 1 << 32 {
            return Err(RandError::TooLong { what: "Sobol32 request", len: points as usize, max: 1 << 32 });
        }
        self.upload_directions32()?;
        let plan = Plan {
            dist,
            rng: Rng::Philox,
            legacy: false,
            vector: aligned && points % 4 == 0 && dist.per_unit() == 4,
            unroll: 1,
            narrow: false,
        };
        let stream = self.stream.clone();
        let Some((dirs, _)) = self.directions.as_ref() else {
            unreachable!("directions were uploaded above")
        };
        let offset = self.offset as u32;
        if plan.vector && offset as u64 % kernels::SOBOL_WARP_POINTS == 0 {
            let tasks = dims * points.div_ceil(kernels::SOBOL_WARP_POINTS);
            let cfg = self.cfg(tasks * 32);
            kernels::sobol32_warp_fill::launch::<T>(
                &stream, cfg, plan, points, offset, tasks, mean, stddev, dirs, out,
            )
            .map_err(kerr)?;
        } else {
            let units = dims * points.div_ceil(kernels::SOBOL_CHUNK);
            let cfg = self.cfg(units);
            kernels::sobol32_fill::launch::<T>(
                &stream, cfg, plan, points, offset, units, mean, stddev, dirs, out,
            )
            .map_err(kerr)?;
        }
        self.offset = self.offset.wrapping_add(points);
        Ok(())
    }

    /// MTGP32 in cuRAND's host layout ([`crate::reference::mtgp32`]): one block of 256 threads
    /// per generator, states kept in device memory between calls; each value maps one 32-bit
    /// value (see `kernels::mtgp32_value`).
    fn mtgp32<T: Elem<Repr = T> + ferrocm_kernel::runtime::DeviceRepr>(
        &mut self,
        out: &mut impl AsDeviceSliceMut<T>,
        dist: Dist,
        mean: f64,
        stddev: f64,
    ) -> Result<(), RandError> {
        use crate::reference::mtgp32::{params, Mtgp32, MTGP32_HOST_GENERATORS, MTGP32_ROUND};
        // Poisson goes through `generate_u32` and a second pass (`poisson_map`).
        if matches!(dist, Dist::PoissonCdf | Dist::PoissonIcdf | Dist::PoissonHistogram | Dist::PoissonGauss)
        {
            return Err(RandError::Unsupported { what: format!("MTGP32 fills of {dist:?}") });
        }
        let n = out.len() as u64;
        if self.offset as u128 + n as u128 > 1u128 << 64 {
            return Err(RandError::OffsetOverflow { offset: self.offset, count: n });
        }
        // The kernel computes every round before the first value (the kept states stand where
        // the previous call ended; a set offset drops them).
        let max = MTGP32_MAX_SKIP_ROUNDS * (MTGP32_HOST_GENERATORS * MTGP32_ROUND) as u64;
        if self.mtgp.is_none() && self.offset > max {
            return Err(RandError::OffsetTooFar { generator: "MTGP32", offset: self.offset, max });
        }
        if self.mtgp.is_none() {
            let mut p = Vec::with_capacity(MTGP32_HOST_GENERATORS * kernels::MTGP32_PARAM_WORDS as usize);
            let mut states = Vec::with_capacity(MTGP32_HOST_GENERATORS * 1024);
            for (g, q) in params().iter().take(MTGP32_HOST_GENERATORS).enumerate() {
                // The kernel's one barrier per round needs it (all 192 sets have it).
                debug_assert!(q.pos <= kernels::MTGP32_MAX_POS, "MTGP32 set {g}: pos {}", q.pos);
                p.extend([q.pos, q.sh1, q.sh2]);
                p.extend(q.tbl);
                p.extend(q.tmp_tbl);
                states.extend(Mtgp32::new(self.seed, g).s);
            }
            self.mtgp = Some(MtgpDevice {
                params: self.stream.clone_htod(&p)?,
                states: self.stream.clone_htod(&states)?,
                at: 0,
            });
        }
        let mask = params()[0].mask;
        let plan = Plan { dist, rng: Rng::Philox, legacy: false, vector: false, unroll: 1, narrow: false };
        let cfg = LaunchConfig::new(MTGP32_HOST_GENERATORS as u32, 256);
        let stream = self.stream.clone();
        let first = self.offset;
        let Some(m) = self.mtgp.as_mut() else { unreachable!("MTGP32 state uploaded above") };
        kernels::mtgp32_fill::launch::<T>(
            &stream,
            cfg,
            plan,
            m.at,
            first,
            mask,
            mean,
            stddev,
            &m.params,
            &mut m.states,
            out,
        )
        .map_err(kerr)?;
        m.at = first.wrapping_add(n);
        self.offset = self.offset.wrapping_add(n);
        Ok(())
    }

    /// MT19937 in cuRAND's host layout ([`crate::reference::mt19937`]): eight threads per
    /// engine, 65,536 in all, the engines kept in device memory between calls (computed on the
    /// host when the seed is set: engine 0 is `init_genrand(seed)`, the others 2^2048 steps
    /// apart).
    fn mt19937<T: Elem<Repr = T> + ferrocm_kernel::runtime::DeviceRepr>(
        &mut self,
        out: &mut impl AsDeviceSliceMut<T>,
        dist: Dist,
        mean: f64,
        stddev: f64,
    ) -> Result<(), RandError> {
        use crate::reference::mt19937::{element, Mt19937, MT19937_ENGINES, MT19937_N, MT19937_THREADS};
        let n = out.len() as u64;
        if self.offset as u128 + n as u128 > 1u128 << 64 {
            return Err(RandError::OffsetOverflow { offset: self.offset, count: n });
        }
        // The kernel twists every block between the engines and the call's first value.
        let block_values = crate::reference::mt19937::MT19937_LANES * crate::reference::mt19937::MT19937_ROWS;
        let reach = self.mt19937.as_ref().map_or(0, |m| m.done) + MT19937_MAX_SKIP_BLOCKS;
        if self.offset / block_values > reach {
            let max = (reach + 1) * block_values - 1;
            return Err(RandError::OffsetTooFar { generator: "MT19937", offset: self.offset, max });
        }
        if self.mt19937.is_none() {
            let engines = Mt19937::engines(self.seed);
            // Slot-major: word `element(t, l)` of engine `g` at `l * 65536 + 8 g + t`, the
            // register slot `l` of thread `8 g + t` (see `kernels::mt19937_fill`).
            let lanes = MT19937_ENGINES * MT19937_THREADS;
            let mut words = vec![0u32; MT19937_N * MT19937_ENGINES];
            for (g, e) in engines.iter().enumerate() {
                for t in 0..MT19937_THREADS {
                    for l in 0..MT19937_N / MT19937_THREADS {
                        words[l * lanes + g * MT19937_THREADS + t] = e.mt[element(t, l)];
                    }
                }
            }
            self.mt19937 = Some(Mt19937Device { states: self.stream.clone_htod(&words)?, done: 0 });
        }
        let plan = Plan { dist, rng: Rng::Philox, legacy: true, vector: false, unroll: 1, narrow: false };
        let cfg =
            LaunchConfig::new(kernels::MT19937_LANES / kernels::MT19937_THREADS, kernels::MT19937_THREADS);
        let stream = self.stream.clone();
        let first = self.offset;
        let Some(m) = self.mt19937.as_mut() else { unreachable!("MT19937 engines uploaded above") };
        kernels::mt19937_fill::launch::<T>(
            &stream,
            cfg,
            plan,
            first,
            m.done,
            mean,
            stddev,
            &mut m.states,
            out,
        )
        .map_err(kerr)?;
        m.done = m.done.max((first + n - 1) / block_values + 1);
        self.offset = self.offset.wrapping_add(n);
        Ok(())
    }

    /// Sobol64: dimension-major as Sobol32: raw points (as `u64`), f64 uniforms and
    /// (log-)normals from all 64 bits (Acklam's inverse CDF,
    /// [`crate::device::normal_icdf_acklam`]), float and half outputs from the upper 32 bits as
    /// Sobol32's ([`crate::device::normal_icdf_f32`] for normals).
    fn sobol64<T: Elem<Repr = T> + ferrocm_kernel::runtime::DeviceRepr>(
        &mut self,
        out: &mut impl AsDeviceSliceMut<T>,
        dist: Dist,
        mean: f64,
        stddev: f64,
    ) -> Result<(), RandError> {
        // `Dist::Bits` reaches here with `u64` from `generate_u64`; `generate_u32` is refused
        // (cuRAND's Sobol64 has no 32-bit output), as are Poisson outputs.
        let narrow_bits = dist == Dist::Bits && T::TY.size() != 8;
        if narrow_bits || matches!(dist, Dist::PoissonGauss | Dist::PoissonHistogram) {
            return Err(RandError::Unsupported {
                what: "32-bit integer and Poisson outputs of Sobol64 (it has u64 points)".into(),
            });
        }
        let n = out.len() as u64;
        let dims = self.dimensions as u64;
        if n % dims != 0 {
            return Err(RandError::LengthNotMultipleOfDimensions {
                len: n as usize,
                dimensions: self.dimensions,
            });
        }
        let points = n / dims;
        if self.directions64.as_ref().map(|d| d.1) != Some(self.dimensions) {
            let mut v = Vec::with_capacity(64 * self.dimensions as usize);
            for d in 0..self.dimensions {
                v.extend_from_slice(&direction_vectors64(d)?);
            }
            self.directions64 = Some((self.stream.clone_htod(&v)?, self.dimensions));
        }
        let plan = Plan { dist, rng: Rng::Philox, legacy: false, vector: false, unroll: 1, narrow: false };
        let units = dims * points.div_ceil(kernels::SOBOL_CHUNK);
        let cfg = self.cfg(units);
        let stream = self.stream.clone();
        let Some((dirs, _)) = self.directions64.as_ref() else {
            unreachable!("directions were uploaded above")
        };
        kernels::sobol64_fill::launch::<T>(
            &stream,
            cfg,
            plan,
            points,
            self.offset,
            units,
            mean,
            stddev,
            dirs,
            out,
        )
        .map_err(kerr)?;
        self.offset = self.offset.wrapping_add(points);
        Ok(())
    }
}
