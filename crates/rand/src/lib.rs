//! Reference implementation of cuRAND's random number generators and distributions.
//!
//! This crate owns the *definition* of what ferrocm's RAND library computes: Philox4x32-10,
//! XORWOW, MRG32k3a, Sobol32 and Sobol64 with cuRAND's `curand_init` seeding, subsequence and
//! offset semantics, and cuRAND's formulas for uniform, normal, log-normal, Poisson and
//! discrete outputs. The device library, written later in ferrocm's `#[kernel]` language, is
//! checked against it the way tinygrad checks its backends against its Python emulator.
//!
//! Design choices:
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
//! Invariants: integer and uniform outputs are bit-identical to cuRAND's device API; normal
//! and log-normal outputs match to a documented tolerance because cuRAND's device code uses
//! fast approximate sine/cosine (`__sincosf`) that the host cannot reproduce bit for bit.
//! Functions that take user input validate it and return [`RandError`]; none panics.

mod error;
pub mod reference;

pub use error::RandError;
