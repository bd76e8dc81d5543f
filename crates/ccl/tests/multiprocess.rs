//! Ranks in separate processes on one machine: two and four processes over shared memory
//! (memfd FIFOs passed as file descriptors over Unix sockets), TCP over loopback and UCX, and
//! initialisation from each launcher's environment (torchrun, mpirun, srun). The test binary
//! re-executes itself for each rank (`FERROCM_CCL_TEST_ROLE`), with a watchdog.

mod common;

use std::time::Duration;

use common::{all_passed, child, spawn_ranks, ucx_or_skip, Rng};
use ferrocm_ccl::{group, Communicator, ReduceOp, TransportKind};
use ferrocm_runtime::Device;

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

fn run_child(transport: TransportKind) {
    let (rank, n, id) = child().expect("child");
    let device = Device::cpu().unwrap();
    let comm = Communicator::init_rank(&id, n, rank, &device).unwrap();
    workload(&comm, transport);
    comm.destroy().unwrap();
}

fn parent(test: &str, n: usize, transport: Option<TransportKind>) {
    let results = spawn_ranks(test, n, LIMIT, |_| {
        transport.map(|t| vec![("FERROCM_CCL_TRANSPORT".to_string(), t.to_string())]).unwrap_or_default()
    });
    all_passed(&results);
}

macro_rules! process_tests {
    ($($name:ident: $n:expr, $transport:expr, $expect:expr $(, $gate:expr)?;)*) => {$(
        #[test]
        fn $name() {
            if child().is_some() {
                return run_child($expect);
            }
            $(if !$gate() { return; })?
            parent(stringify!($name), $n, $transport);
        }
    )*};
}

process_tests! {
    two_processes_shm: 2, None, TransportKind::Shm;
    four_processes_shm: 4, None, TransportKind::Shm;
    two_processes_tcp: 2, Some(TransportKind::Tcp), TransportKind::Tcp;
    four_processes_tcp: 4, Some(TransportKind::Tcp), TransportKind::Tcp;
    two_processes_ucx: 2, Some(TransportKind::Ucx), TransportKind::Ucx, ucx_or_skip;
    four_processes_ucx: 4, Some(TransportKind::Ucx), TransportKind::Ucx, ucx_or_skip;
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
