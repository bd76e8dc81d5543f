//! The in-process collectives suites as one binary (`algorithms`, `collectives`, `groups`,
//! `gpu`), sharing `common`: one link instead of four. `failures` and `multiprocess` stay
//! binaries of their own (they re-execute themselves per rank, by test name), and so does
//! `misuse` (it sets `FERROCM_CCL_*` variables for its process).

#[macro_use]
mod common;

mod algorithms;
mod collectives;
mod gpu;
mod groups;
