//! The collectives on a GPU, ranks sharing it: every operation, type, reduction and in-place
//! and out-of-place form on 2, 3 and 4 ranks of one process (the device engine: the
//! kernel-language kernels compiled to PTX, peer pointers within one device, events between the
//! ranks' streams), sizes from 0 and 1 element through unaligned ones to several pipelined
//! rounds, each checked against the host reference. Several processes sharing the GPU are in
//! `multiprocess.rs`. Without a CUDA device these tests pass by skipping, unless
//! `FERROCM_REQUIRE_GPU=1` (the GPU machine's runner sets it), which makes a missing GPU a
//! failure.

use crate::common::{config, run_case, Case, Kind};
use ferrocm_ccl::{Algorithm, Communicator, DataType, Engine, ReduceOp};
use ferrocm_runtime::{BackendKind, Device};

/// The first CUDA device, or `None` (a skip) where there is none and none is required.
pub fn gpu() -> Option<Device> {
    crate::common::setup();
    let gpu = Device::of_kind(BackendKind::Cuda).into_iter().next();
    if gpu.is_none() {
        let report =
            ferrocm_runtime::report().map(|r| format!("{:?}", r.cuda)).unwrap_or_else(|e| e.to_string());
        assert!(
            std::env::var("FERROCM_REQUIRE_GPU").map_or(true, |v| v != "1"),
            "FERROCM_REQUIRE_GPU=1 but no CUDA device: {report}"
        );
        eprintln!("skipping: no CUDA device ({report})");
    }
    gpu
}

/// As in `collectives.rs`: none, one, a few (unaligned for every vector width and rank count),
/// past a low-latency chunk.
const SIZES: [usize; 4] = [0, 1, 7, 1_037];

fn large(dt: DataType, n: usize) -> usize {
    2 * n * (128 << 10) / dt.size() + 13
}

fn matrix(n: usize, kind: Kind) {
    let Some(gpu) = gpu() else { return };
    let devices = vec![gpu; n];
    let comms = Communicator::init_all_with(&devices, config()).expect("init_all on one GPU");
    assert_eq!(comms[0].engine(), Engine::Device, "ranks of one process on a GPU use the device engine");
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
        for &in_place in places {
            let count = large(dt, n);
            run_case(&comms, &Case { kind, dtype: dt, op: ReduceOp::Sum, in_place, count, root: n - 1 });
        }
    }
    for c in comms {
        c.destroy().expect("destroy");
    }
}

macro_rules! gpu_tests {
    ($($name:ident => $kind:ident),*) => {$(
        mod $name {
            use super::*;
            #[test] fn ranks2() { matrix(2, Kind::$kind) }
            #[test] fn ranks3() { matrix(3, Kind::$kind) }
            #[test] fn ranks4() { matrix(4, Kind::$kind) }
        }
    )*};
}

gpu_tests! {
    all_reduce => AllReduce, broadcast => Broadcast, reduce => Reduce, all_gather => AllGather,
    reduce_scatter => ReduceScatter, all_to_all => AllToAll, send_recv => SendRecv
}

/// Every all-reduce algorithm forced, on f32 and f16 sums and a bf16 max, at sizes around the
/// tuner's switch points.
#[test]
fn all_reduce_every_algorithm() {
    let Some(gpu) = gpu() else { return };
    for algo in [Algorithm::Ring, Algorithm::Tree, Algorithm::OneShot, Algorithm::TwoShot] {
        let comms = Communicator::init_all_with(&vec![gpu.clone(); 4], config().with_algorithm(algo))
            .expect("init_all on one GPU");
        for (dtype, op) in
            [(DataType::F32, ReduceOp::Sum), (DataType::F16, ReduceOp::Sum), (DataType::Bf16, ReduceOp::Max)]
        {
            for count in [1usize, 1_037, 65_543, 1 << 20] {
                for in_place in [false, true] {
                    run_case(&comms, &Case { kind: Kind::AllReduce, dtype, op, in_place, count, root: 0 });
                }
            }
        }
        for c in comms {
            c.destroy().expect("destroy");
        }
    }
}
