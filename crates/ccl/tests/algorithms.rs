//! Every algorithm and protocol forced on every operation that has it (`FERROCM_CCL_ALGO`,
//! `FERROCM_CCL_PROTO` through the configuration), on 3 and 4 ranks (odd and even rings and
//! trees), for sizes below, across and well past the chunk boundaries, against the host
//! reference; plus ranks that share a device.

use crate::common::{config, cpu_devices, run_case, Case, Kind};
use ferrocm_ccl::{Algorithm, Communicator, Config, DataType, Engine, Protocol, ReduceOp};

fn check_all(comms: &[Communicator], kinds: &[Kind], sizes: &[usize]) {
    let n = comms.len();
    for &kind in kinds {
        let places: &[bool] = if kind.has_in_place() { &[false, true] } else { &[false] };
        for dt in [DataType::F32, DataType::I8, DataType::F64, DataType::Bf16] {
            for &in_place in places {
                for (i, &count) in sizes.iter().enumerate() {
                    let op = if kind.reduces() { ReduceOp::ALL[(i + dt.size()) % 5] } else { ReduceOp::Sum };
                    run_case(comms, &Case { kind, dtype: dt, op, in_place, count, root: (i + 1) % n });
                }
            }
        }
    }
}

fn forced(engine: Engine, algorithm: Algorithm, protocol: Protocol, n: usize) {
    let cfg: Config = config().with_engine(engine).with_algorithm(algorithm).with_protocol(protocol);
    let comms = Communicator::init_all_with(&cpu_devices(n), cfg).expect("init_all");
    // 70_001 bytes of f32 is over half a bulk chunk per rank; 40_000 elements of f64 spans
    // several chunks; LL chunks are 4 KiB.
    let sizes: &[usize] =
        if engine == Engine::Host { &[1, 5, 1_037, 17_501, 100_003] } else { &[1, 5, 1_037, 20_011] };
    check_all(&comms, &Kind::ALL, sizes);
}

macro_rules! forced_tests {
    ($($name:ident: $engine:ident $alg:ident $proto:ident;)*) => {$(
        mod $name {
            use super::*;
            #[test] fn ranks3() { forced(Engine::$engine, Algorithm::$alg, Protocol::$proto, 3) }
            #[test] fn ranks4() { forced(Engine::$engine, Algorithm::$alg, Protocol::$proto, 4) }
        }
    )*};
}

forced_tests! {
    host_ring_ll: Host Ring LowLatency;
    host_ring_simple: Host Ring Simple;
    host_tree_ll: Host Tree LowLatency;
    host_tree_simple: Host Tree Simple;
    host_oneshot_ll: Host OneShot LowLatency;
    host_oneshot_simple: Host OneShot Simple;
    host_twoshot_ll: Host TwoShot LowLatency;
    host_twoshot_simple: Host TwoShot Simple;
    device_ring: Device Ring Simple;
    device_tree: Device Tree Simple;
    device_oneshot: Device OneShot Simple;
    device_twoshot: Device TwoShot Simple;
}

/// Ranks sharing devices (as ranks share one GPU on a single-GPU machine): four ranks on two
/// devices, and three ranks on one.
#[test]
fn ranks_share_devices() {
    let two = cpu_devices(2);
    for engine in [Engine::Host, Engine::Device] {
        for devices in
            [vec![two[0].clone(), two[0].clone(), two[1].clone(), two[1].clone()], vec![two[1].clone(); 3]]
        {
            let comms =
                Communicator::init_all_with(&devices, config().with_engine(engine)).expect("init_all");
            check_all(&comms, &Kind::ALL, &[1, 1_037, 30_007]);
        }
    }
}

/// A one-rank communicator copies (out of place) or leaves the data (in place), and `avg` of
/// one value is the value.
#[test]
fn one_rank() {
    for engine in [Engine::Host, Engine::Device] {
        let comms =
            Communicator::init_all_with(&cpu_devices(1), config().with_engine(engine)).expect("init_all");
        check_all(&comms, &Kind::ALL, &[0, 1, 1_037]);
        for op in ReduceOp::ALL {
            run_case(
                &comms,
                &Case { kind: Kind::AllReduce, dtype: DataType::I32, op, in_place: false, count: 9, root: 0 },
            );
        }
    }
}
