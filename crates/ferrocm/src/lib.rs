//! ferrocm: an open GPU compute platform in Rust, after AMD's ROCm.
//!
//! This facade re-exports what applications use: the runtime (devices, memory, streams,
//! events, modules and launch) and the libraries as they land ([`fft`], and the collectives,
//! [`ccl`], RCCL/NCCL's role).
//!
//! ```
//! use ferrocm::{Device, Result};
//! fn main() -> Result<()> {
//!     let device = Device::default_device()?; // a GPU where present, else the CPU
//!     let stream = device.create_stream()?;
//!     let x = stream.clone_htod(&[1.0f32, 2.0, 3.0])?;
//!     assert_eq!(stream.clone_dtoh(&x)?, vec![1.0, 2.0, 3.0]);
//!     Ok(())
//! }
//! ```

pub use ferrocm_runtime::*;

/// BLAS (rocBLAS/hipBLAS's role): see [`ferrocm_blas`].
pub use ferrocm_blas as blas;
/// Collective communication: communicators, all-reduce and the other collectives, send/recv
/// (`ferrocm-ccl`).
pub use ferrocm_ccl as ccl;

/// FFT (rocFFT/hipFFT/cuFFT): plans for 1D/2D/3D, complex and real transforms.
pub use ferrocm_fft as fft;

pub mod info;

/// ferrocm's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
