//! Every operation, type, reduction and in-place/out-of-place form, on 2, 3, 4 and 8 ranks,
//! sizes from 0 and 1 element through unaligned ones to several pipelined rounds, on both
//! engines (the host engine's native code over the p2p transport, and the device engine's
//! kernels on the CPU executor), each result checked against the host reference.

use crate::common::{config, cpu_devices, run_case, Case, Kind};
use ferrocm_ccl::{Communicator, DataType, Engine, ReduceOp};

/// Sizes that cross every boundary the engines have: none, one element, a few (not a multiple of
/// any vector width or of the rank count), a low-latency chunk and a bit (4 KiB of data is 4096
/// i8 or 1024 f32), and for the large case several bulk chunks (128 KiB) and ring rounds.
const SIZES: [usize; 4] = [0, 1, 7, 1_037];

fn large(dt: DataType, n: usize) -> usize {
    // Two ring rounds of full bulk chunks plus an unaligned tail.
    2 * n * (128 << 10) / dt.size() + 13
}

fn matrix(engine: Engine, n: usize, kind: Kind) {
    let comms = Communicator::init_all_with(&cpu_devices(n), config().with_engine(engine)).expect("init_all");
    let ops: &[ReduceOp] = if kind.reduces() { &ReduceOp::ALL } else { &[ReduceOp::Sum] };
    let places: &[bool] = if kind.has_in_place() { &[false, true] } else { &[false] };
    for dt in DataType::ALL {
        for &op in ops {
            for &in_place in places {
                for (i, &count) in SIZES.iter().enumerate() {
                    let root = (i + dt.size()) % n;
                    run_case(&comms, &Case { kind, dtype: dt, op, in_place, count, root });
                }
            }
        }
    }
    // Large: every type once (sum or copy), both forms; the device engine on the CPU executor
    // is slower, so it takes the 4-byte and 1-byte types.
    for dt in DataType::ALL {
        if engine == Engine::Device && !matches!(dt, DataType::F32 | DataType::U8) {
            continue;
        }
        for &in_place in places {
            run_case(
                &comms,
                &Case { kind, dtype: dt, op: ReduceOp::Sum, in_place, count: large(dt, n), root: n - 1 },
            );
        }
    }
    for c in comms {
        c.destroy().expect("destroy");
    }
}

macro_rules! matrix_tests {
    ($($engine:ident: $($name:ident => $kind:ident),*;)*) => {$(
        mod $engine {
            use super::*;
            $(
                mod $name {
                    use super::*;
                    #[test] fn ranks2() { matrix(Engine::$engine, 2, Kind::$kind) }
                    #[test] fn ranks3() { matrix(Engine::$engine, 3, Kind::$kind) }
                    #[test] fn ranks4() { matrix(Engine::$engine, 4, Kind::$kind) }
                    #[test] fn ranks8() { matrix(Engine::$engine, 8, Kind::$kind) }
                }
            )*
        }
    )*};
}

#[allow(non_snake_case)]
mod engines {
    use super::*;
    matrix_tests! {
        Host: all_reduce => AllReduce, broadcast => Broadcast, reduce => Reduce, all_gather => AllGather,
            reduce_scatter => ReduceScatter, all_to_all => AllToAll, send_recv => SendRecv;
        Device: all_reduce => AllReduce, broadcast => Broadcast, reduce => Reduce, all_gather => AllGather,
            reduce_scatter => ReduceScatter, all_to_all => AllToAll, send_recv => SendRecv;
    }
}
