//! Ranks in separate processes on one machine: two and four processes over shared memory
//! (FIFOs in the runtime's exportable memory, passed as file descriptors over Unix sockets),
//! TCP over loopback and UCX, the same with every rank on one GPU (where there is one; required
//! with `FERROCM_REQUIRE_GPU=1`), and
//! initialisation from each launcher's environment (torchrun, mpirun, srun). The test binary
//! re-executes itself for each rank (`FERROCM_CCL_TEST_ROLE`), with a watchdog.

mod common;

use std::time::Duration;

use common::{all_passed, child, run_case_on, spawn_ranks, ucx_or_skip, Case, Kind, Rng};
use ferrocm_ccl::{group, Communicator, DataType, ReduceOp, TransportKind};
use ferrocm_runtime::{BackendKind, Device};

const LIMIT: Duration = Duration::from_secs(120);

fn input(rank: usize, len: usize, salt: u64) -> Vec<f64> {
    let mut r = Rng::new(rank as u64 * 7919 + salt);
    (0..len).map(|_| r.uniform(-1.0, 1.0)).collect()
}

/// What every child rank runs: each operation, checked against the reference every rank can
/// compute (inputs are a function of rank and size).
fn workload(comm: &Communicator, transport: TransportKind) {
    let (r, n) = (comm.rank(), comm.size());
    for p in (0..n).filter(|&p| p != r) {
        assert_eq!(comm.transport_to(p), Some(transport), "rank {r} to {p}");
    }
    let s = comm.device().create_stream().unwrap();
    for len in [1usize, 1_037, 300_011] {
        let all: Vec<Vec<f64>> = (0..n).map(|j| input(j, len, 1)).collect();
        let sum: Vec<f64> = (0..len).map(|i| all.iter().map(|v| v[i]).sum()).collect();
        let mut x = s.clone_htod(&all[r]).unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        let got = s.clone_dtoh(&x).unwrap();
        for i in 0..len {
            assert!((got[i] - sum[i]).abs() < 1e-12 * n as f64, "all_reduce {len} element {i}");
        }
        let mut b = s.clone_htod(&all[r]).unwrap();
        comm.broadcast_in_place(&mut b, n - 1, &s).unwrap();
        assert_eq!(s.clone_dtoh(&b).unwrap(), all[n - 1], "broadcast {len}");
        let send = s.clone_htod(&all[r]).unwrap();
        let mut gathered = s.alloc_zeroed::<f64>(n * len).unwrap();
        comm.all_gather(&send, &mut gathered, &s).unwrap();
        assert_eq!(s.clone_dtoh(&gathered).unwrap(), all.concat(), "all_gather {len}");
        if len >= n {
            let mut scattered = s.alloc_zeroed::<f64>(len / n).unwrap();
            let full = s.clone_htod(&input(r, len / n * n, 2)).unwrap();
            comm.reduce_scatter(&full, &mut scattered, ReduceOp::Max, &s).unwrap();
            let blocks: Vec<Vec<f64>> = (0..n).map(|j| input(j, len / n * n, 2)).collect();
            let c = len / n;
            let got = s.clone_dtoh(&scattered).unwrap();
            for i in 0..c {
                let want = blocks.iter().map(|v| v[r * c + i]).fold(f64::MIN, f64::max);
                assert_eq!(got[i], want, "reduce_scatter {len} element {i}");
            }
            let mut out = s.alloc_zeroed::<f64>(c * n).unwrap();
            comm.all_to_all(&full, &mut out, &s).unwrap();
            let got = s.clone_dtoh(&out).unwrap();
            for j in 0..n {
                assert_eq!(
                    &got[j * c..(j + 1) * c],
                    &blocks[j][r * c..(r + 1) * c],
                    "all_to_all {len} block {j}"
                );
            }
        }
        let mut from_prev = s.alloc_zeroed::<f64>(len).unwrap();
        group(|g| {
            g.send(comm, &send, (r + 1) % n, &s)?;
            g.recv(comm, &mut from_prev, (r + n - 1) % n, &s)
        })
        .unwrap();
        assert_eq!(s.clone_dtoh(&from_prev).unwrap(), all[(r + n - 1) % n], "send/recv {len}");
    }
}

/// What every child rank of the device engine between processes runs: each operation it runs
/// (all-reduce with every operator, all-gather, reduce-scatter, broadcast and reduce to each
/// end), in place and out of place, on sizes 0, 1, unaligned and larger than the staging ring
/// (so its slots are reused), on f64, i32 and f32, against the host reference every rank
/// computes; send/recv groups, the largest it runs (four sends and four receives per peer)
/// and one past it that goes to the host engine, on the same stream.
fn device_workload(comm: &Communicator) {
    let (r, n) = (comm.rank(), comm.size());
    assert_eq!(comm.engine(), ferrocm_ccl::Engine::Device, "rank {r}: the device engine between processes");
    let s = comm.device().create_stream().unwrap();
    // 300_011 f64 on each rank: 2.4 MB, more than the ring's 4 MiB staging per direction once
    // gathered (and a count that no rank count divides).
    for len in [0usize, 1, 7, 1_037, 300_011] {
        let all: Vec<Vec<f64>> = (0..n).map(|j| input(j, len, 3)).collect();
        let ints: Vec<Vec<i32>> =
            all.iter().map(|v| v.iter().map(|x| (x * 1000.0) as i32).collect()).collect();
        // All-reduce, f64 sum out of place and i32 max / min / prod in place.
        let sum: Vec<f64> = (0..len).map(|i| all.iter().map(|v| v[i]).sum()).collect();
        // Buffers hold at least one element; the operations see views of `len`.
        let mut x = s.alloc_zeroed::<f64>(len.max(1)).unwrap();
        if len > 0 {
            s.copy_htod(&all[r], &mut x).unwrap();
        }
        let mut y = s.alloc_zeroed::<f64>(len.max(1)).unwrap();
        let mut yv = y.slice_mut(0..len).unwrap();
        comm.all_reduce(&x.slice(0..len).unwrap(), &mut yv, ReduceOp::Sum, &s).unwrap();
        let got = s.clone_dtoh(&y).unwrap();
        for i in 0..len {
            assert!(
                (got[i] - sum[i]).abs() < 1e-12 * n as f64,
                "all_reduce sum {len} element {i}: {} vs {}",
                got[i],
                sum[i]
            );
        }
        for (op, f) in [
            (ReduceOp::Max, (|a: i32, b: i32| a.max(b)) as fn(i32, i32) -> i32),
            (ReduceOp::Min, |a: i32, b: i32| a.min(b)),
            (ReduceOp::Prod, |a: i32, b: i32| a.wrapping_mul(b)),
        ] {
            let want: Vec<i32> = (0..len).map(|i| ints.iter().map(|v| v[i]).reduce(f).unwrap()).collect();
            let mut b = s.clone_htod(&ints[r]).unwrap_or_else(|_| s.alloc_zeroed::<i32>(1).unwrap());
            if len > 0 {
                comm.all_reduce_in_place(&mut b, op, &s).unwrap();
                assert_eq!(s.clone_dtoh(&b).unwrap(), want, "all_reduce {op} {len}");
            } else {
                let mut empty = b.slice_mut(0..0).unwrap();
                comm.all_reduce_in_place(&mut empty, op, &s).unwrap();
            }
        }
        // Average of f32, out of place.
        let xf: Vec<f32> = all[r].iter().map(|&v| v as f32).collect();
        let avg: Vec<f64> =
            (0..len).map(|i| all.iter().map(|v| v[i] as f32 as f64).sum::<f64>() / n as f64).collect();
        let xd = s.clone_htod(&xf).unwrap_or_else(|_| s.alloc_zeroed::<f32>(1).unwrap());
        let mut yd = s.alloc_zeroed::<f32>(len.max(1)).unwrap();
        let (xs, mut ys) = (xd.slice(0..len).unwrap(), yd.slice_mut(0..len).unwrap());
        comm.all_reduce(&xs, &mut ys, ReduceOp::Avg, &s).unwrap();
        let got = s.clone_dtoh(&yd).unwrap();
        for i in 0..len {
            assert!((got[i] as f64 - avg[i]).abs() < 1e-5, "all_reduce avg {len} element {i}");
        }
        // All-gather out of place and in place.
        let mut gathered = s.alloc_zeroed::<f64>((n * len).max(1)).unwrap();
        let xs = x.slice(0..len).unwrap();
        let mut gv = gathered.slice_mut(0..n * len).unwrap();
        comm.all_gather(&xs, &mut gv, &s).unwrap();
        assert_eq!(&s.clone_dtoh(&gathered).unwrap()[..n * len], &all.concat()[..], "all_gather {len}");
        if len > 0 {
            let mut buf = vec![0.0; n * len];
            buf[r * len..(r + 1) * len].copy_from_slice(&all[r]);
            let mut g = s.clone_htod(&buf).unwrap();
            comm.all_gather_in_place(&mut g, &s).unwrap();
            assert_eq!(s.clone_dtoh(&g).unwrap(), all.concat(), "all_gather in place {len}");
        }
        // Reduce-scatter (sum of f64 blocks), out of place and in place.
        if len > 0 {
            let full: Vec<Vec<f64>> = (0..n).map(|j| input(j, n * len, 4)).collect();
            let want: Vec<f64> = (0..len).map(|i| full.iter().map(|v| v[r * len + i]).sum()).collect();
            let src = s.clone_htod(&full[r]).unwrap();
            let mut out = s.alloc_zeroed::<f64>(len).unwrap();
            comm.reduce_scatter(&src, &mut out, ReduceOp::Sum, &s).unwrap();
            let got = s.clone_dtoh(&out).unwrap();
            let mut inplace = s.clone_htod(&full[r]).unwrap();
            comm.reduce_scatter_in_place(&mut inplace, ReduceOp::Sum, &s).unwrap();
            let got2 = s.clone_dtoh(&inplace).unwrap();
            for i in 0..len {
                assert!((got[i] - want[i]).abs() < 1e-12 * n as f64, "reduce_scatter {len} element {i}");
                assert_eq!(got2[r * len + i], got[i], "reduce_scatter in place {len} element {i}");
            }
        }
        // Broadcast from the last rank (out of place) and rank 0 (in place), reduce to rank 0
        // (in place, sum) and to the last rank (out of place, average); then the host engine's
        // operations on the same stream (a send/recv ring).
        if len > 0 {
            let mut dst = s.alloc_zeroed::<f64>(len).unwrap();
            comm.broadcast(&x, &mut dst, n - 1, &s).unwrap();
            assert_eq!(s.clone_dtoh(&dst).unwrap(), all[n - 1], "broadcast {len}");
            let mut b = s.clone_htod(&all[r]).unwrap();
            comm.broadcast_in_place(&mut b, 0, &s).unwrap();
            assert_eq!(s.clone_dtoh(&b).unwrap(), all[0], "broadcast in place {len}");
            let mut red = s.clone_htod(&all[r]).unwrap();
            comm.reduce_in_place(&mut red, ReduceOp::Sum, 0, &s).unwrap();
            let mut mean = s.alloc_zeroed::<f64>(len).unwrap();
            comm.reduce(&x, &mut mean, ReduceOp::Avg, n - 1, &s).unwrap();
            let got = s.clone_dtoh(&mean).unwrap();
            for i in 0..len {
                let want = if r == n - 1 { sum[i] / n as f64 } else { 0.0 };
                assert!(
                    (got[i] - want).abs() < 1e-12 * n as f64,
                    "reduce avg {len} element {i} on rank {r}: {}",
                    got[i]
                );
            }
            let mut from_prev = s.alloc_zeroed::<f64>(len).unwrap();
            group(|g| {
                g.send(comm, &x, (r + 1) % n, &s)?;
                g.recv(comm, &mut from_prev, (r + n - 1) % n, &s)
            })
            .unwrap();
            assert_eq!(s.clone_dtoh(&from_prev).unwrap(), all[(r + n - 1) % n], "send/recv {len}");
            // Messages each way with both neighbours in one group (slices of the input, in
            // order): four per peer and direction, the device engine's largest group, then one
            // more (the host engine's). With two ranks both neighbours are one peer.
            let (right, left) = ((r + 1) % n, (r + n - 1) % n);
            for k in if n == 2 { [2usize, 3] } else { [4, 5] } {
                let parts: Vec<(usize, usize)> = (0..k).map(|i| (i * len / k, (i + 1) * len / k)).collect();
                let mut from_left: Vec<_> =
                    parts.iter().map(|_| s.alloc_zeroed::<f64>(len).unwrap()).collect();
                let mut from_right: Vec<_> =
                    parts.iter().map(|_| s.alloc_zeroed::<f64>(len).unwrap()).collect();
                let sends: Vec<_> = parts.iter().map(|&(a, b)| x.slice(a..b).unwrap()).collect();
                let mut lv: Vec<_> =
                    from_left.iter_mut().zip(&parts).map(|(v, &(a, b))| v.slice_mut(a..b).unwrap()).collect();
                let mut rv: Vec<_> = from_right
                    .iter_mut()
                    .zip(&parts)
                    .map(|(v, &(a, b))| v.slice_mut(a..b).unwrap())
                    .collect();
                group(|g| {
                    for ((send, l), rr) in sends.iter().zip(lv.iter_mut()).zip(rv.iter_mut()) {
                        g.send(comm, send, right, &s)?;
                        g.send(comm, send, left, &s)?;
                        g.recv(comm, l, left, &s)?;
                        g.recv(comm, rr, right, &s)?;
                    }
                    Ok(())
                })
                .unwrap();
                drop((lv, rv));
                for (i, &(a, b)) in parts.iter().enumerate() {
                    let got = s.clone_dtoh(&from_left[i]).unwrap();
                    assert_eq!(&got[a..b], &all[left][a..b], "group of {k}: part {i} from the left");
                    let got = s.clone_dtoh(&from_right[i]).unwrap();
                    assert_eq!(&got[a..b], &all[right][a..b], "group of {k}: part {i} from the right");
                }
            }
            if r == 0 {
                let got = s.clone_dtoh(&red).unwrap();
                for i in 0..len {
                    assert!((got[i] - sum[i]).abs() < 1e-12 * n as f64, "reduce {len} element {i}");
                }
            }
        }
    }
}

/// The staging area the `*_past_staging` tests give the device engine between processes
/// (`FERROCM_CCL_BUFFSIZE`): the smallest allowed, four slots of 4 KiB, so crossing it is cheap.
const SMALL_STAGING: usize = 16 << 10;
/// Pieces a rank may have in flight towards a neighbour (the engine's slots).
const SLOTS: usize = 4;

/// The cases of the `*_past_staging` tests: every operation of the device engine between
/// processes, for f64, f32, i32, f16 and u8, in and out of place, at counts below, at and well
/// above a staging area's worth of elements per ring block (where enqueuing a block's pieces
/// step by step deadlocked), counts no rank count divides and odd byte sizes, with every
/// reduction operator on all-reduce and reduce-scatter.
fn past_staging_cases(n: usize) -> Vec<Case> {
    let mut cases = Vec::new();
    for dtype in [DataType::F64, DataType::F32, DataType::I32, DataType::F16, DataType::U8] {
        // Elements that fill the staging area (every slot) once.
        let unit = SMALL_STAGING / dtype.size();
        let slot = unit / SLOTS;
        for kind in [
            Kind::AllReduce,
            Kind::AllGather,
            Kind::ReduceScatter,
            Kind::Broadcast,
            Kind::Reduce,
            Kind::AllToAll,
            Kind::SendRecv,
        ] {
            // The ring operations' blocks are count / n elements (all-reduce) or count (the
            // others); the chains (broadcast, reduce) pipeline the whole count.
            let per_block = if kind == Kind::AllReduce { n } else { 1 };
            let mut counts = vec![1, 7, slot + 1];
            for b in [unit - 1, unit, unit + 1, 5 * unit + 3] {
                counts.push(b * per_block);
            }
            // The last block takes the remainder: one rank's block longer by n - 1.
            counts.push(unit * per_block + per_block - 1);
            for (i, &count) in counts.iter().enumerate() {
                for in_place in [false, true].into_iter().filter(|&i| !i || kind.has_in_place()) {
                    let mut ops = vec![ReduceOp::Sum];
                    if matches!(kind, Kind::AllReduce | Kind::ReduceScatter) && i == 6 {
                        ops.extend([ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod, ReduceOp::Avg]);
                    }
                    for op in ops {
                        let root = (i + 1) % n;
                        cases.push(Case { kind, dtype, op, in_place, count, root });
                    }
                }
            }
        }
    }
    cases
}

fn past_staging_child() {
    let (rank, n, id) = child().expect("child");
    let device = if std::env::var_os(ON_GPU).is_some() {
        Device::of_kind(BackendKind::Cuda).into_iter().next().expect("a child rank found no GPU")
    } else {
        Device::cpu().unwrap()
    };
    let comm = Communicator::init_rank(&id, n, rank, &device).unwrap();
    assert_eq!(
        comm.engine(),
        ferrocm_ccl::Engine::Device,
        "rank {rank}: the device engine between processes"
    );
    for case in past_staging_cases(n) {
        run_case_on(&comm, &case);
    }
    comm.destroy().unwrap();
}

macro_rules! past_staging_tests {
    ($($name:ident: $n:expr, $on_gpu:expr $(, $gate:expr)*;)*) => {$(
        #[test]
        fn $name() {
            if child().is_some() {
                return past_staging_child();
            }
            $(if !$gate() { return; })*
            let results = spawn_ranks(stringify!($name), $n, LIMIT, |_| {
                let mut env = vec![
                    ("FERROCM_CCL_ENGINE".to_string(), "device".to_string()),
                    ("FERROCM_CCL_BUFFSIZE".to_string(), SMALL_STAGING.to_string()),
                ];
                if $on_gpu {
                    env.push((ON_GPU.to_string(), "1".to_string()));
                }
                env
            });
            all_passed(&results);
        }
    )*};
}

past_staging_tests! {
    two_processes_device_engine_past_staging: 2, false;
    three_processes_device_engine_past_staging: 3, false;
    four_processes_device_engine_past_staging: 4, false;
    gpu_two_processes_device_engine_past_staging: 2, true, gpu_or_skip;
    gpu_three_processes_device_engine_past_staging: 3, true, gpu_or_skip;
}

/// The variable that puts a child rank on the first GPU instead of the CPU device.
const ON_GPU: &str = "FERROCM_CCL_TEST_GPU";

fn run_child(transport: TransportKind) {
    let (rank, n, id) = child().expect("child");
    let device = if std::env::var_os(ON_GPU).is_some() {
        Device::of_kind(BackendKind::Cuda).into_iter().next().expect("a child rank found no GPU")
    } else {
        Device::cpu().unwrap()
    };
    let comm = Communicator::init_rank(&id, n, rank, &device).unwrap();
    if std::env::var("FERROCM_CCL_ENGINE").is_ok_and(|e| e == "device") {
        device_workload(&comm);
    }
    workload(&comm, transport);
    comm.destroy().unwrap();
}

fn parent(test: &str, n: usize, transport: Option<TransportKind>, on_gpu: bool) {
    let results = spawn_ranks(test, n, LIMIT, |_| {
        let mut env: Vec<(String, String)> =
            transport.map(|t| vec![("FERROCM_CCL_TRANSPORT".to_string(), t.to_string())]).unwrap_or_default();
        if on_gpu {
            env.push((ON_GPU.to_string(), "1".to_string()));
        }
        if test.contains("device_engine") {
            env.push(("FERROCM_CCL_ENGINE".to_string(), "device".to_string()));
        }
        env
    });
    all_passed(&results);
}

/// Whether the GPU variants run: a CUDA device is present, or its absence is an error
/// (`FERROCM_REQUIRE_GPU=1`).
fn gpu_or_skip() -> bool {
    if !Device::of_kind(BackendKind::Cuda).is_empty() {
        return true;
    }
    assert!(
        std::env::var("FERROCM_REQUIRE_GPU").map_or(true, |v| v != "1"),
        "FERROCM_REQUIRE_GPU=1 but there is no CUDA device"
    );
    eprintln!("skipping: no CUDA device");
    false
}

macro_rules! process_tests {
    ($($name:ident: $n:expr, $transport:expr, $expect:expr, $on_gpu:expr $(, $gate:expr)*;)*) => {$(
        #[test]
        fn $name() {
            if child().is_some() {
                return run_child($expect);
            }
            $(if !$gate() { return; })*
            parent(stringify!($name), $n, $transport, $on_gpu);
        }
    )*};
}

process_tests! {
    two_processes_shm: 2, None, TransportKind::Shm, false;
    four_processes_shm: 4, None, TransportKind::Shm, false;
    two_processes_tcp: 2, Some(TransportKind::Tcp), TransportKind::Tcp, false;
    four_processes_tcp: 4, Some(TransportKind::Tcp), TransportKind::Tcp, false;
    two_processes_ucx: 2, Some(TransportKind::Ucx), TransportKind::Ucx, false, ucx_or_skip;
    four_processes_ucx: 4, Some(TransportKind::Ucx), TransportKind::Ucx, false, ucx_or_skip;
    two_processes_device_engine: 2, None, TransportKind::Shm, false;
    three_processes_device_engine: 3, None, TransportKind::Shm, false;
    four_processes_device_engine: 4, None, TransportKind::Shm, false;
    gpu_two_processes_device_engine: 2, None, TransportKind::Shm, true, gpu_or_skip;
    gpu_four_processes_device_engine: 4, None, TransportKind::Shm, true, gpu_or_skip;
    gpu_two_processes_shm: 2, None, TransportKind::Shm, true, gpu_or_skip;
    gpu_four_processes_shm: 4, None, TransportKind::Shm, true, gpu_or_skip;
    gpu_two_processes_tcp: 2, Some(TransportKind::Tcp), TransportKind::Tcp, true, gpu_or_skip;
    gpu_two_processes_ucx: 2, Some(TransportKind::Ucx), TransportKind::Ucx, true, gpu_or_skip, ucx_or_skip;
}

fn free_port() -> u16 {
    // The kernel hands out a port that is free now; rank 0 binds it a moment later.
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn launcher_child() {
    let env = ferrocm_ccl::LaunchEnv::detect().unwrap();
    let comm = env.init().unwrap();
    assert_eq!((comm.rank(), comm.size()), (env.rank, env.size));
    workload(&comm, TransportKind::Shm);
    comm.destroy().unwrap();
}

fn launcher_parent(test: &str, vars: impl Fn(usize) -> Vec<(&'static str, String)>) {
    let results =
        spawn_ranks(test, 2, LIMIT, |r| vars(r).into_iter().map(|(k, v)| (k.to_string(), v)).collect());
    all_passed(&results);
}

/// torchrun: RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT (rank 0 starts the root).
#[test]
fn torchrun_environment() {
    if child().is_some() {
        return launcher_child();
    }
    let port = free_port() - 1;
    launcher_parent("torchrun_environment", |r| {
        vec![
            ("RANK", r.to_string()),
            ("WORLD_SIZE", "2".into()),
            ("LOCAL_RANK", r.to_string()),
            ("MASTER_ADDR", "127.0.0.1".into()),
            ("MASTER_PORT", port.to_string()),
        ]
    });
}

/// mpirun (Open MPI): OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK/LOCAL_SIZE and the job namespace.
#[test]
fn mpirun_environment() {
    if child().is_some() {
        return launcher_child();
    }
    let job = format!("prterun-test-{}@1", std::process::id());
    launcher_parent("mpirun_environment", |r| {
        vec![
            ("OMPI_COMM_WORLD_RANK", r.to_string()),
            ("OMPI_COMM_WORLD_SIZE", "2".into()),
            ("OMPI_COMM_WORLD_LOCAL_RANK", r.to_string()),
            ("OMPI_COMM_WORLD_LOCAL_SIZE", "2".into()),
            ("PMIX_NAMESPACE", job.clone()),
        ]
    });
}

/// srun (Slurm): SLURM_PROCID/NTASKS/LOCALID and the step's node list, with the root's port
/// given explicitly (FERROCM_CCL_ROOT) so parallel test runs cannot collide.
#[test]
fn srun_environment() {
    if child().is_some() {
        return launcher_child();
    }
    let root = format!("localhost:{}", free_port());
    launcher_parent("srun_environment", |r| {
        vec![
            ("SLURM_PROCID", r.to_string()),
            ("SLURM_NTASKS", "2".into()),
            ("SLURM_LOCALID", r.to_string()),
            ("SLURM_STEP_NODELIST", "localhost".into()),
            ("SLURM_JOB_ID", std::process::id().to_string()),
            ("FERROCM_CCL_ROOT", root.clone()),
        ]
    });
}

/// `FERROCM_CCL_DEBUG=INFO`: each rank logs its initialisation, the topology (the transport to
/// each peer) and one line per operation naming its algorithm and protocol, in NCCL's shape
/// (`host:pid:tid [rank] ferrocm-ccl INFO ...`).
#[test]
fn debug_info_logs_init_topology_and_calls() {
    const TEST: &str = "debug_info_logs_init_topology_and_calls";
    if let Some((rank, n, id)) = child() {
        let comm = Communicator::init_rank(&id, n, rank, &Device::cpu().unwrap()).unwrap();
        let s = comm.device().create_stream().unwrap();
        // 4000 bytes: the tuner's one-shot all-reduce with the low-latency protocol.
        let mut x = s.clone_htod(&[1.0f32; 1000]).unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        assert_eq!(s.clone_dtoh(&x).unwrap(), vec![n as f32; 1000]);
        comm.destroy().unwrap();
        return;
    }
    let results =
        spawn_ranks(TEST, 2, LIMIT, |_| vec![("FERROCM_CCL_DEBUG".to_string(), "INFO".to_string())]);
    all_passed(&results);
    for r in &results {
        let (me, peer) = (r.rank, 1 - r.rank);
        let info: Vec<&str> = r.output.lines().filter(|l| l.contains(" ferrocm-ccl INFO ")).collect();
        let has = |f: &dyn Fn(&str) -> bool| info.iter().any(|l| f(l));
        assert!(
            has(&|l| l.contains(&format!("[{me}] ferrocm-ccl INFO init: "))
                && l.contains(&format!("rank {me} of 2"))),
            "rank {me} logged no init line:\n{}",
            r.output
        );
        assert!(has(&|l| l.contains("topology: 2 rank(s)")), "rank {me} logged no topology:\n{}", r.output);
        assert!(
            r.output.lines().any(|l| l.contains(&format!("rank {peer}: ")) && l.ends_with("via shm")),
            "rank {me}'s topology does not name shm to rank {peer}:\n{}",
            r.output
        );
        assert!(
            has(&|l| l.contains("all_reduce #")
                && l.contains("algorithm oneshot")
                && l.contains("protocol LL")),
            "rank {me} logged no per-call line with algorithm and protocol:\n{}",
            r.output
        );
    }
}

/// Per-operation latency of an 8-byte all-reduce (two f32, in place, then a stream
/// synchronize) between two processes on CPU devices, on the host engine and the device
/// engine: median and 90th percentile of 2000 calls after 200 warm-ups, printed for
/// `NOTES.md` (`cargo test -p ferrocm-ccl --release --test multiprocess latency -- --ignored
/// --nocapture`). Every call's result is checked.
#[test]
#[ignore = "a measurement: run on demand, in release, on an idle machine"]
fn latency_two_processes() {
    const TEST: &str = "latency_two_processes";
    if let Some((rank, n, id)) = child() {
        let comm = Communicator::init_rank(&id, n, rank, &Device::cpu().unwrap()).unwrap();
        let s = comm.device().create_stream().unwrap();
        let mut x = s.clone_htod(&[1.0f32, 2.0]).unwrap();
        let mut times = Vec::new();
        for i in 0..2200 {
            s.copy_htod(&[rank as f32, i as f32], &mut x).unwrap();
            s.synchronize().unwrap();
            let t = std::time::Instant::now();
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
            s.synchronize().unwrap();
            let dt = t.elapsed();
            let got = s.clone_dtoh(&x).unwrap();
            let want = [(0..n).sum::<usize>() as f32, (n * i) as f32];
            assert_eq!(got, want, "call {i}");
            if i >= 200 {
                times.push(dt);
            }
        }
        times.sort();
        let q = |f: f64| times[((times.len() - 1) as f64 * f) as usize].as_secs_f64() * 1e6;
        println!("LATENCY engine={} rank={rank} median_us={:.1} p90_us={:.1}", comm.engine(), q(0.5), q(0.9));
        comm.destroy().unwrap();
        return;
    }
    for engine in ["host", "device"] {
        let results =
            spawn_ranks(TEST, 2, LIMIT, |_| vec![("FERROCM_CCL_ENGINE".to_string(), engine.to_string())]);
        all_passed(&results);
        for r in &results {
            let line = r.output.lines().find_map(|l| l.find("LATENCY").map(|i| &l[i..]));
            println!("{}", line.expect("a child rank printed its latency"));
        }
    }
}
