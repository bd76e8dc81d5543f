//! ferrocm's BLAS (rocBLAS/hipBLAS's role): Level 1, 2 and 3 routines for `f32`, `f64`,
//! [`C32`] and [`C64`] on every ferrocm device, through a [`Handle`] bound to a stream;
//! `gemm_ex` with f16/bf16/i8 inputs ([`gemm_ex`]), row-major helpers ([`row_major`]) and
//! hipBLASLt's matmul with epilogues and fp8 inputs ([`matmul`]).

mod batched;
mod check;
pub mod error;
pub mod gemm_ex;
mod handle;
pub mod kernels;
mod l2mv;
mod l2rank;
mod l3;
pub mod level1;
pub mod level2;
pub mod level3;
pub mod matmul;
mod native;
pub mod row_major;
pub mod types;

pub use error::{BlasError, Result};
pub use gemm_ex::GemmExType;
pub use handle::Handle;
pub use l2mv::ComplexScalar;
pub use level1::{rotg, rotmg};
pub use level3::GemmFamily;
pub use matmul::{Epilogue, MatmulAlgo, MatmulDesc, MatmulType, MatrixLayout, E4M3, E5M2};
pub use num_complex::Complex;
pub use types::{
    ComputeType, DataType, Diagonal, Engine, Fill, HalfScalar, MathMode, Operation, RealScalar, Scalar,
    ScalarArg, Side, C32, C64,
};
