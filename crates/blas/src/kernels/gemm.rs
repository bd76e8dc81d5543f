//! GEMM kernels.
