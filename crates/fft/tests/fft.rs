//! The FFT accuracy suites as one binary (`c2c`, `real`, `layouts`, `reference`), sharing the
//! reference transforms and runner in `common`: one link of the library instead of four.
//! `misuse` stays a binary of its own (it sets `FERROCM_CPU_DEVICES` for its process).

#[macro_use]
mod common;

mod c2c;
mod layouts;
mod real;
mod reference;
