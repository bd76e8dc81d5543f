//! Host-API-shaped generation (`curandGenerate*`) on top of the device-API states.
//!
//! These functions validate their arguments the way cuRAND's host API does and fill whole
//! buffers. Quasi-random output is laid out dimension-major, as cuRAND's default ordering:
//! `out[d * n + j]` is point `offset + j` of dimension `d`, with `n = out.len() / dimensions`.
