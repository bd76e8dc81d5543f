//! The BLAS test suite as one binary: each family's suite is a module (`level1`, `level23`,
//! `l2mv`, `l2rank`, `l3`, `batched`, `gemm_ex`, `misuse`), sharing the data-driven harness in
//! `common`. One binary links and monomorphises the library once instead of once per suite;
//! `cargo test -p ferrocm-blas --test blas l3::` runs one family.

mod common;

mod batched;
mod gemm_ex;
mod l2mv;
mod l2rank;
mod l3;
mod level1;
mod level23;
mod misuse;
