//! The crate's error type.

use crate::plan::{ElemType, Layout};

/// What went wrong planning or running a GEMM. Nothing is written to C when an error is
/// returned before the launch (every check runs first).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GemmError {
    /// The element types are not a supported combination.
    #[error("unsupported types: A {a:?}, B {b:?}, C {c:?}; supported: A and B both F16, BF16, TF32 (f32 data), E4M3 or E5M2 (the same type), C F32, F16 or BF16")]
    UnsupportedTypes { a: ElemType, b: ElemType, c: ElemType },
    /// The operand layouts are not ones the kernel reads for this input type.
    #[error("{ty:?} inputs with A {a:?} and B {b:?}: 8-bit and TF32 inputs must both be K-major, A RowMajor and B ColMajor (\"TN\", as torch._scaled_mm): wgmma has no transpose for 8-bit and tf32 types")]
    UnsupportedLayouts { ty: ElemType, a: Layout, b: Layout },
    /// The device cannot run any GEMM kernel of this crate.
    #[error("device {device} ({target}) has no GEMM kernel: {why}")]
    UnsupportedDevice { device: usize, target: String, why: String },
    /// A dimension or leading dimension is out of range.
    #[error("invalid {what} = {value}: {allowed}")]
    InvalidShape { what: &'static str, value: usize, allowed: String },
    /// A buffer's element type differs from the plan's.
    #[error("{operand} holds {got:?} elements but the plan says {want:?}")]
    WrongType { operand: &'static str, want: ElemType, got: ElemType },
    /// A buffer is too short for the matrix the plan describes.
    #[error("{operand} holds {len} elements but the plan needs {need}")]
    BufferTooSmall { operand: &'static str, len: usize, need: usize },
    /// A buffer lives on another device than the plan's.
    #[error("{operand} is on device {got} but the plan is for device {want}")]
    WrongDevice { operand: &'static str, want: usize, got: usize },
    /// C overlaps A or B.
    #[error("C overlaps {operand}: the output must not alias an input")]
    Aliasing { operand: &'static str },
    /// The kernel could not be built or launched.
    #[error(transparent)]
    Kernel(#[from] ferrocm_kernel::KernelError),
    /// The runtime refused an operation (a tensor map, the launch).
    #[error(transparent)]
    Runtime(#[from] ferrocm_kernel::runtime::Error),
}

/// `Result` with [`GemmError`].
pub type Result<T> = std::result::Result<T, GemmError>;
