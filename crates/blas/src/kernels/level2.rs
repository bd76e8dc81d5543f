//! Level 2 kernels.
