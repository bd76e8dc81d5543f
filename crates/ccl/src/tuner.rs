//! Which algorithm and protocol an operation uses, by its kind, size and the number of ranks,
//! unless the communicator's configuration forces one (`FERROCM_CCL_ALGO`,
//! `FERROCM_CCL_PROTO`). Every rank computes the same choice from the same inputs; the
//! operation header checks that they did.
//!
//! | operation | host engine | device engine |
//! |---|---|---|
//! | all-reduce | one-shot to 16 KiB (up to 16 ranks), two-shot to 1 MiB, tree for more than 16 ranks to 8 MiB, ring above | one-shot to 256 KiB (up to 8 ranks), two-shot above |
//! | broadcast, reduce | one-shot (direct) to 64 KiB, ring (chain) above | one-shot; broadcast ring above 1 MiB |
//! | all-gather, reduce-scatter | one-shot (direct) to 256 KiB in all, ring above | direct |
//! | all-to-all, send/recv | direct | direct |
//!
//! The low-latency protocol is used on shared-memory connections for operations up to 64 KiB
//! (above that, on CPU memory, its doubled bytes cost more than the bulk protocol's counter);
//! network connections always carry bulk messages.

use crate::config::{Algorithm, Config, Engine, Protocol};
use crate::op::OpKind;

/// Whether `alg` is implemented for `kind` on `engine`.
pub(crate) fn supports(kind: OpKind, alg: Algorithm, engine: Engine) -> bool {
    use Algorithm::*;
    match (engine, kind) {
        (_, OpKind::AllReduce) => true,
        (Engine::Host, OpKind::Broadcast | OpKind::Reduce) => matches!(alg, Ring | Tree | OneShot),
        (Engine::Device, OpKind::Broadcast) => matches!(alg, Ring | OneShot),
        (Engine::Host, OpKind::AllGather | OpKind::ReduceScatter) => matches!(alg, Ring | OneShot),
        _ => alg == OneShot,
    }
}

/// The algorithm and protocol for an operation of `bytes` (the larger of its buffers) on
/// `nranks` ranks.
pub(crate) fn choose(
    kind: OpKind,
    bytes: usize,
    nranks: usize,
    engine: Engine,
    config: &Config,
) -> (Algorithm, Protocol, bool) {
    const KIB: usize = 1 << 10;
    const MIB: usize = 1 << 20;
    let default = match (engine, kind) {
        (Engine::Host, OpKind::AllReduce) => {
            if bytes <= 16 * KIB && nranks <= 16 {
                Algorithm::OneShot
            } else if bytes <= MIB {
                Algorithm::TwoShot
            } else if nranks > 16 && bytes <= 8 * MIB {
                Algorithm::Tree
            } else {
                Algorithm::Ring
            }
        }
        (Engine::Device, OpKind::AllReduce) => {
            if bytes <= 256 * KIB && nranks <= 8 {
                Algorithm::OneShot
            } else {
                Algorithm::TwoShot
            }
        }
        (Engine::Host, OpKind::Broadcast | OpKind::Reduce) => {
            if bytes <= 64 * KIB {
                Algorithm::OneShot
            } else {
                Algorithm::Ring
            }
        }
        (Engine::Device, OpKind::Broadcast) if bytes > MIB => Algorithm::Ring,
        (Engine::Host, OpKind::AllGather | OpKind::ReduceScatter) => {
            if bytes <= 256 * KIB {
                Algorithm::OneShot
            } else {
                Algorithm::Ring
            }
        }
        _ => Algorithm::OneShot,
    };
    let (algorithm, forced_ignored) = match config.algorithm {
        Some(a) if supports(kind, a, engine) => (a, false),
        Some(_) => (default, true),
        None => (default, false),
    };
    let protocol =
        config.protocol.unwrap_or(if bytes <= 64 * KIB { Protocol::LowLatency } else { Protocol::Simple });
    (algorithm, protocol, forced_ignored)
}
