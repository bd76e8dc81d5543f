//! ferrocm's RAND library (rocRAND/hipRAND/cuRAND's role), in three layers:
//!
//! - [`reference`](mod@reference): the *definition* of what is computed, a bit-exact plain-Rust model of
//!   cuRAND's Philox4x32-10, XORWOW, MRG32k3a, Sobol32 and Sobol64 with `curand_init` seeding,
//!   subsequence and offset semantics, its distributions and its host-API layouts.
//! - [`device`]: the device API in ferrocm's kernel language, callable from any `#[kernel]`:
//!   per-thread states [`device::Philox`], [`device::Xorwow`], [`device::Mrg32k3a`] with
//!   `init(seed, subsequence, offset)`, `next_u32`, `uniform`, `uniform_double`, `normal`,
//!   `normal2`, Philox's `next4`/`uniform4`/`normal4`, log-normals, Poisson by
//!   cuRAND's three methods (Knuth's below 64, the incomplete-gamma rejection sampler up to
//!   4000, the rounded normal approximation above; the caller picks by lambda as cuRAND
//!   does), discrete tables and skip-ahead
//!   ([`device::DeviceGenerator`]); Sobol32 points ([`device::sobol32_point`]) and Sobol64
//!   points and steps ([`device::sobol64_point`], [`device::sobol64_next`]). Skip-ahead
//!   and discrete tables are device buffers passed to kernels as slices.
//! - [`Generator`]: the host API (`curandGenerate*`): create by [`RngType`], set seed, offset,
//!   [`Ordering`] and Sobol dimensions, then `generate_*` into any device buffer or view,
//!   asynchronously on the generator's stream. The orderings are documented in [`generator`].
//!
//! rocRAND's further generators: MTGP32 ([`reference::mtgp32`], host API bit-identical to
//! cuRAND's `CURAND_RNG_PSEUDO_MTGP32` for 32-bit values, uniforms, doubles and Poisson up to
//! lambda 8000 (above it within one), checked against cuRAND 10.4's streams up to 2^20 values
//! and across calls; its normals and log-normals are cuRAND's inverse-CDF maps of the 32-bit
//! stream, within 4e-5 (float, and double normals, which cuRAND computes in float) of
//! cuRAND's),
//! LFSR113 and ThreeFry 2x32/4x32/2x64/4x64-20 ([`reference::Lfsr113`],
//! [`reference::threefry`]: the published known answers of L'Ecuyer and of Random123; device
//! states [`device::Lfsr113`], [`device::Threefry`]; every distribution in the host API, laid
//! out by ferrocm since cuRAND has no such generators). MT19937 ([`reference::mt19937`]):
//! host API bit-identical to cuRAND's `CURAND_RNG_PSEUDO_MT19937` for 32-bit values, uniforms,
//! doubles and Poisson below lambda 2000 (checked against cuRAND 10.4's streams past the first
//! twisted block of every engine and across calls); its normals and log-normals are inverse-CDF
//! values within 1e-6 (reference) / 4e-5 (device, float) and 1e-14 / 1e-8 (double) of cuRAND's,
//! Poisson from lambda 2000 within one. No device-API MT19937 state.
//!
//! What matches cuRAND, on every back end (CPU executor and NVIDIA GPUs, checked by the tests
//! against the cuRAND vectors in `tests/data/`):
//! - bit for bit: device-API integers, uniforms and doubles of Philox4x32-10, XORWOW and
//!   MRG32k3a at any seed, subsequence and offset; the legacy host ordering's `generate`,
//!   `generate_uniform` and `generate_uniform_double`, and its Poisson below lambda 2000, at
//!   any length and offset (checked against cuRAND's own streams up to 2^24 values, offsets
//!   0, 1, odd, even, above 2^32 and up to 2^64; normals of that ordering within the tolerances
//!   below);
//!   Sobol32 points, uniforms and Poisson outputs (see below); device-API
//!   Poisson for lambda below 64 (given the host's `expf(lambda)`) and discrete draws;
//!   device-API Poisson for lambda above 4000 (an integer rounded from the f64 normal, so
//!   equal unless that normal's last bits straddle an integer) and from 64 to 4000 on the CPU
//!   executor (on NVIDIA its f32 `exp`/`ln` are the `.approx` instructions, so a trial near
//!   its acceptance bound can go the other way; the tests require 90% of cuRAND's draws
//!   there); these tests and the host-API Poisson and Sobol64 tests passed on an H200 on
//!   2026-11-22;
//! - within a tolerance, relative to max(1, |x|): float normals and log-normals (CPU executor
//!   4e-6, as the reference; NVIDIA 2e-5, because the kernel language lowers `ln`, `sin`,
//!   `cos`, `exp` to the `.approx` instructions as cuRAND's `__sincosf` does, and the radius
//!   uses `sqrt.approx`; worst seen on an H200 3.3e-7); double normals 2e-15 on every back
//!   end (f64 `ln`/`sin`/`cos` are f64 polynomials; worst seen on an H200 3.3e-16).
//!
//! Integer and uniform outputs are bitwise equal across back ends; normals within the sum of
//! those tolerances.
//!
//! Kernel-language features and limits met here:
//! - Philox's 32x32->64 multiply is `mul_hi` and a 32-bit multiply, as cuRAND's `__umulhi`
//!   (on an H200 this took the default-ordering Philox uniform from 884 to 1059 GSample/s
//!   against the former 64-bit multiply of zero-extended operands); Sobol's `ctz` is
//!   `trailing_zeros`;
//! - the fast f32 `ln` has an absolute error that would ruin Box-Muller radii near `u = 1`,
//!   so `-2 ln u` uses a series there ([`device::neg2_ln_f32`]), and the radius takes the
//!   fast square root ([`device::box_muller_radius`]); every ordering uses this one
//!   Box-Muller, whose tolerance against the reference is the one stated above;
//! - MRG32k3a's step is exact integer arithmetic in f64 (as L'Ecuyer's reference code): the
//!   quotient by the rounding-constant trick, the canonical-residue corrections as predicated
//!   adds decided by an integer test of the high word, and the moduli passed to the host
//!   API's kernels as parameters ([`device::MrgConstants`]) so `ptxas` keeps them in
//!   registers; on an H200 these took the default-ordering MRG32k3a normal from 441 to 612
//!   GSample/s;
//! - struct literals are rejected inside kernel bodies: kernels are thin entry points calling
//!   plain Rust functions written against the DSL.
//!
//! Sobol32 float normals use an f32 inverse CDF ([`device::normal_icdf_f32`]: Giles' erfinv
//! structure with coefficients fitted by `tools/fit_normal_icdf.py`), within 1e-5 of the
//! reference's refined double-precision one (3e-5 on GPUs); double normals use Acklam's
//! formula in f64 ([`device::normal_icdf_acklam`], within 2e-9).
//!
//! The host API's Poisson ([`Generator::generate_poisson`]) uses cuRAND's host-API methods in
//! both orderings: in the default one on that ordering's own `u32` and normal streams, fused
//! into the generating kernels. The legacy ordering and Sobol32 follow cuRAND's host-API Poisson
//! ([`reference::host_poisson`], read off cuRAND 10.4 on an H200, method switches bisected to
//! adjacent doubles): the `curandGenerate` stream mapped through the square histogram
//! `curandCreatePoissonDistribution` builds (lambda below 2000; tables and outputs bit for
//! bit), float `curand_normal`s rounded from lambda 2000 to 400,000 (a value differs by one
//! where the float normal's last bits straddle a rounding boundary: 18 of 737,280 probed
//! values in the reference); Sobol32 maps each point by the histogram (lambda below 10), the
//! inverse CDF (10 to 8000) or the inverse normal CDF (above 8000), bit for bit in the
//! reference and on the CPU executor (on devices the last uses Acklam's unrefined inverse
//! CDF, so a value can differ by one, rarely). Lambdas above 400,000 (cuRAND's limit) are
//! [`RandError::LambdaOutOfRange`].
//!
//! Sobol64 in the host API ([`RngType::Sobol64`]): raw `u64` points
//! ([`Generator::generate_u64`]), f64 uniforms and float uniforms (from the upper 32 bits)
//! bit-identical to cuRAND, f64 normals by Acklam's inverse CDF
//! ([`device::normal_icdf_acklam`]) within 1e-8 of cuRAND's (relative to max(1, |x|)), float
//! normals as Sobol32's from the upper 32 bits, dimension-major as Sobol32; 32-bit integer
//! outputs (cuRAND's `curandGenerate` refuses 64-bit generators too) and Poisson outputs of
//! Sobol64 are [`RandError::Unsupported`].
//!
//! Design choices (of the reference; the device layers keep its state layouts):
//! - Per-thread state is a small `Copy` struct with plain `u32`/`u64` fields and step functions
//!   that neither allocate nor panic, so each one can become a device function with little
//!   change. Skip-ahead uses tables of matrix powers: MRG32k3a's are `static` data computed by
//!   `const fn` at compile time; XORWOW's 160x160 GF(2) powers are computed once at first use
//!   (a `OnceLock`) because const evaluation of them would cost minutes of compile time.
//! - Sobol direction numbers (Joe and Kuo, new-joe-kuo-6.21201) are kept as a packed data file
//!   under `data/` (see its README for provenance) and expanded at first use.
//! - Known-answer vectors under `tests/data/` were produced by the real cuRAND on an NVIDIA GPU
//!   with `tools/curand_vectors.py`.
//!
//! The reference's invariants, checked against cuRAND 10.4 (CUDA 13) by the tests:
//! - bit-identical: `curand`, `curand4`, uniform and uniform-double outputs of Philox4x32-10,
//!   XORWOW and MRG32k3a at any seed, subsequence and offset; `curand_poisson` (all three
//!   methods); `curandCreatePoissonDistribution`'s square histograms and the host API's
//!   Poisson but for its rounded float normals; Sobol32/Sobol64 points, direction vectors
//!   and uniforms; the host API's `curandGenerate`, `GenerateUniform` and
//!   `GenerateUniformDouble` layouts;
//! - within a stated tolerance: Box-Muller normals and log-normals (float: 4e-6 of
//!   max(1, |x|), worst seen 1.4e-6, because the GPU uses the approximate `__sincosf`; double:
//!   2e-15, worst seen 4.5e-16) and the inverse-CDF normals of the Sobol generators;
//! - functions that take user input validate it and return [`RandError`]; none panics.
//!
//! # Porting to device kernels
//!
//! - States: [`reference::Philox4x32_10`] (counter, key, four buffered outputs, index),
//!   [`reference::Xorwow`] (`d`, `v[5]`), [`reference::Mrg32k3a`] (`s1[3]`, `s2[3]`), each with
//!   the [`reference::BoxMullerCache`] cuRAND keeps per state; [`reference::Sobol32`] and
//!   [`reference::Sobol64`] copy their dimension's direction vectors into the state as cuRAND
//!   does (a port may keep a dimension index into a global table instead).
//! - Step functions use only 32-bit and 64-bit integer multiply, add, shift and XOR: Philox
//!   needs a 32x32->64 multiply (`mul.hi`/`mul.lo`), MRG32k3a reduces modulo `2^32 - c` with
//!   the constants 209 and 22853 instead of dividing, Sobol needs count-trailing-zeros of `!i`.
//! - Skip-ahead tables: MRG32k3a's `M1_OFFSET`, `M2_OFFSET`, `M1_SUBSEQUENCE`, `M2_SUBSEQUENCE`
//!   (4 x 64 3x3 matrices, 9 KiB) are `static` and fit constant memory. XORWOW's tables
//!   ([`reference::xorwow::skip_tables`], 2 x 64 matrices of 160 x 5 words, 400 KiB) belong in
//!   global memory; one subsequence skip costs up to 64 matrix-vector products, so kernels
//!   that initialise many states should expect `curand_init` to dominate, as it does in cuRAND.
//! - Floating point: keep each formula's precision and its one fused multiply-add (the
//!   Box-Muller angle). cuRAND's device code uses `__sincosf` for float normals and
//!   `ex2.approx`/`lg2.approx`/`rsqrt.approx`/`rcp.approx` in the Poisson rejection sampler;
//!   a port that uses the same intrinsics reproduces cuRAND more closely than this reference
//!   can. MRG32k3a's `curand()` goes through a double multiply by `1.000000048662`.
//! - cuRAND quirks reproduced on purpose: Philox's `curand_uniform_double` spends one 32-bit
//!   draw while XORWOW's spends two; `curand_normal` and `curand_log_normal` share one cache
//!   slot under different flags; Philox's counter increment drops a carry in one corner case.
//! - The host API ([`reference::host`]) runs one state per subsequence and interleaves them;
//!   the layouts are documented on [`reference::host::PseudoGenerator`].

pub mod device;
mod error;
pub mod generator;
pub mod reference;

pub use error::RandError;
pub use generator::{DiscreteTable, Generator, Ordering, RngType, DEFAULT_STATES};
