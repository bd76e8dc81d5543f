//! The RAND test suite as one binary: each suite is a module, sharing the known-answer vector
//! helpers in `common`. One binary links the library once instead of once per suite;
//! `cargo test -p ferrocm-rand --test rand curand_host::` runs one suite.

mod common;

mod curand_device;
mod curand_host;
mod curand_host_layouts;
mod curand_host_poisson;
mod curand_mt19937;
mod curand_mtgp32;
mod curand_sobol;
mod device_api;
mod device_kernels;
mod errors;
mod generator;
mod generator_layouts;
mod generator_statistics;
mod misuse;
mod mrg32k3a_step_edges;
mod philox_kat;
mod published_kats;
mod rocrand_generators;
mod skip_ahead;
mod sobol64_device;
mod sobol64_host;
mod sobol_properties;
mod special_functions;
mod state_unroll;
mod statistics;
