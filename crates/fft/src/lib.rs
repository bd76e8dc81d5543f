//! ferrocm FFT: what rocFFT/hipFFT (and cuFFT) are to their users, on every ferrocm device.
//!
//! ```ignore
//! use ferrocm_fft::{Direction, Plan, TransformType};
//! let stream = Device::default_device()?.create_stream()?;
//! let plan = Plan::<f32>::new_1d(&stream, 1024, TransformType::C2C, 16384)?; // hipfftPlan1d
//! plan.exec_c2c(&input, &mut output, Direction::Forward)?;                  // hipfftExecC2C
//! println!("{}", plan.describe());
//! ```
//!
//! # What a plan does
//! - Transforms: complex-to-complex forward and inverse (`C2C`, `Z2Z` in `f64`), real-to-
//!   complex (`R2C`/`D2Z`: `n` reals to `n/2 + 1` values along the last axis) and complex-to-
//!   real (`C2R`/`Z2D`); 1, 2 or 3 axes (the last contiguous, as `hipfftPlan2d/3d`); `f32` and
//!   `f64`; any length from 1 to 2^31 per axis; batched; in place or out of place; the advanced
//!   layout of `cufftPlanMany` ([`Layout`]: embedded sizes, stride, distance).
//! - Inverse transforms are unnormalised, as in cuFFT and rocFFT: forward then inverse
//!   multiplies by the number of elements of one transform.
//! - Complex data is `num_complex::Complex<T>` (the layout of `cufftComplex`); real data `T`.
//!   An in-place real transform uses the padded layout: each row of `n` reals is stored in
//!   `2 (n/2 + 1)` (the default layouts do this when the real side's strides are twice the
//!   complex side's; [`Plan::exec_r2c_inplace`] checks it).
//! - C2R does not write its input (multi-dimensional C2R works through the work area).
//! - Plans are bound to a stream ([`Plan::set_stream`] changes it on the same device) and say
//!   how much work area they need ([`Plan::work_size`]); without one of their own
//!   ([`Plan::set_work_area`]) each execution takes it from the stream's memory pool. A plan's
//!   kernels are compiled and its tables uploaded when it is made; the result is cached per
//!   device, so a second plan of the same shape costs a table look-up.
//! - Bad arguments are an [`FftError`] naming the argument and the rule, and nothing is written:
//!   zero or overflowing sizes, output strides that overlap, buffers too short for the layout,
//!   in-place layouts that do not match (a real transform without its padding), buffers,
//!   streams or work areas on another device, the wrong execution function for the plan.
//!
//! # How it computes
//! On GPUs (and on any device with [`Engine::Kernels`]) plans run kernels written in the
//! kernel language, specialised at plan time ([`Plan::describe`] prints the passes):
//! - A block pass (`fft_block`) holds `C` transforms in shared memory and runs mixed-radix
//!   Stockham passes (radices up to 16 built from codelets for 2, 3, 4, 5, 7, 8, 11, 13, 16 and
//!   their products), twiddles from tables computed in `f64` on the host. Loads and stores map
//!   threads to elements for coalescing along whichever axis is contiguous, so passes along
//!   strided axes read and write in runs; transposes are fused into these phases.
//! - One pass per axis while the axis fits a block (16384 points in `f32`, 8192 in `f64` with
//!   unit stride; 8192 and 4096 along a strided axis); longer axes are split four-step style
//!   into two or three passes, with the twiddle multiplication and the transposition fused
//!   into the passes' loads and stores. The planner chooses among splits (the most balanced
//!   two-pass one, three passes of lengths near the cube root) by a model of the global memory
//!   traffic: each side's bytes over the rate of the contiguous runs it moves in (a block of
//!   `C` transforms along a strided axis moves runs of `C` elements), plus a cost per launch.
//!   So 2^24 points are three passes of 256 (runs of 128 bytes) rather than two of 4096 (four
//!   transforms per block: 32-byte runs).
//! - On devices with thread-block clusters (sm_90), a column pass (strided on both sides)
//!   whose transforms are too long for a block to hold 64-byte runs of them can run in
//!   clusters: each of `q` blocks transforms every `q`-th element of 64 bytes' worth of
//!   transforms (8 in `f32`, 4 in `f64`; twice that where the runs start off 32-byte sectors,
//!   as in an R2C's half-spectrum rows) in its shared memory, pushes each result into the
//!   tile of the block that takes the radix-`q` step for its position (distributed shared
//!   memory stores), and that block finishes the transform from its own tile. The 4096-point
//!   columns of 2D 4096^2 and of R2C 8192^2 run in clusters of 8 (the planner prices such
//!   passes at their measured rate).
//! - Codelets of coprime factors (radix 6, 10, 12, 14, 15) are Good-Thomas: no twiddles
//!   between the factors.
//! - Lengths with a prime factor above 13 use Bluestein's algorithm (a power-of-two FFT of at
//!   least `2n - 1`): inside one block pass when that fits, else as pointwise and FFT passes.
//! - Real transforms of even length run a half-length complex FFT on the pairs of reals and
//!   unfold it in the same pass (odd lengths use a full complex FFT). Past one block the
//!   unfold is in the four-step's last pass (its blocks hold mirrored transforms `k1`,
//!   `n1 - k1`; long transforms split the first of two passes in two, so three passes), or,
//!   where the same model prefers it, in a pointwise step after the complex FFT; the C2R fold
//!   is in the first pass's reads; a multi-dimensional R2C whose
//!   second-last axis is as long as a strided pass holds only two of pairs its rows so the
//!   first pass also does that axis's radix-2 step.
//!
//! On the CPU device the default engine ([`Engine::Auto`]) calls `rustfft` and `realfft`
//! (inside a native CPU kernel, so it runs in stream order and across the CPU's threads); the
//! kernel-language kernels are tested on the CPU executor with [`Engine::Kernels`].
//!
//! # Accuracy
//! Measured in the tests as rocFFT does, against a higher-precision reference on random
//! input: relative L2 error at most `eps sqrt(log2 n)` and relative max error at most
//! `eps ln(n)`, with `eps = 3.75e-5` for `f32` and `1e-15` for `f64` (rocFFT's constants);
//! `docs/benchmarks.md` and `NOTES.md` say what runs where.

mod error;
mod kernels;
mod layout;
mod native;
mod plan;
mod planner;
mod precision;
pub mod twiddle;

pub use error::FftError;
pub use layout::{Direction, Layout, TransformType};
pub use num_complex::Complex;
pub use plan::{cached_plans, clear_plan_cache, Engine, Plan, PlanBuilder};
pub use precision::FftFloat;
