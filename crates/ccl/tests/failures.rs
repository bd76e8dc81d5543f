//! Failures you can debug: an operation a rank never joins times out on every rank with an error
//! naming the operation and the missing rank (and whether it never called it or its stream has
//! not reached it); a rank whose process dies fails the others instead of hanging; mismatched
//! calls (count, type, operator, root, operation) are reported on every rank; `abort` stops
//! everyone. In one process (both engines) and across processes, each with its own watchdog.

mod common;

use std::time::{Duration, Instant};

use common::{all_passed, child, config, cpu_devices, each_rank, spawn_ranks};
use ferrocm_ccl::{CclError, Communicator, Engine, ReduceOp};
use ferrocm_runtime::{Device, Stream};

/// Runs a rank's call and then waits for its stream: the host engine reports failures through
/// the stream, the device engine from the call. Returns the error text, if any.
fn outcome(call: ferrocm_ccl::Result<()>, s: &Stream) -> Option<String> {
    if let Err(e) = call {
        return Some(e.to_string());
    }
    s.synchronize().err().map(|e| e.to_string())
}

fn short() -> ferrocm_ccl::Config {
    config().with_timeout(Duration::from_millis(1500))
}

#[test]
fn timeout_names_the_rank_that_did_not_arrive() {
    for engine in [Engine::Host, Engine::Device] {
        let comms = Communicator::init_all_with(&cpu_devices(3), short().with_engine(engine)).unwrap();
        let start = Instant::now();
        let errs = each_rank(&comms, |c| {
            if c.rank() == 2 {
                return None;
            }
            let s = c.device().create_stream().unwrap();
            let mut x = s.clone_htod(&[1.0f32; 100]).unwrap();
            outcome(c.all_reduce_in_place(&mut x, ReduceOp::Sum, &s), &s)
        });
        assert!(start.elapsed() < Duration::from_secs(20), "{engine}: took {:?}", start.elapsed());
        for (r, e) in errs.iter().enumerate().take(2) {
            let e = e.as_ref().unwrap_or_else(|| panic!("{engine}: rank {r} did not fail"));
            assert!(e.contains("all_reduce #1") && e.contains("timed out"), "{engine} rank {r}: {e}");
            assert!(e.contains("rank(s) 2 did not arrive"), "{engine} rank {r}: {e}");
            assert!(e.contains("rank 2 has not called it"), "{engine} rank {r}: {e}");
        }
        // Every rank, the missing one included, holds the same failure, and refuses new calls.
        for c in &comms {
            match c.async_error() {
                Some(CclError::Timeout { missing, .. }) => {
                    assert_eq!(missing, vec![2], "{engine} rank {}", c.rank())
                }
                other => panic!("{engine} rank {}: {other:?}", c.rank()),
            }
        }
        let c2 = &comms[2];
        let s = c2.device().create_stream().unwrap();
        let mut x = s.clone_htod(&[1.0f32; 100]).unwrap();
        let e = c2.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap_err();
        assert!(matches!(e, CclError::Timeout { .. }), "{engine}: {e}");
        assert_eq!(
            s.clone_dtoh(&x).unwrap(),
            vec![1.0f32; 100],
            "{engine}: nothing is written after a failure"
        );
    }
}

/// A rank that called the operation but whose stream is still busy before it is named as such.
#[test]
fn timeout_says_when_a_stream_has_not_reached_the_operation() {
    let comms = Communicator::init_all_with(&cpu_devices(3), short().with_engine(Engine::Host)).unwrap();
    let errs = each_rank(&comms, |c| {
        let s = c.device().create_stream().unwrap();
        let mut x = s.clone_htod(&[1.0f32; 10]).unwrap();
        if c.rank() == 1 {
            s.add_callback(|| std::thread::sleep(Duration::from_secs(4))).unwrap();
        }
        outcome(c.all_reduce_in_place(&mut x, ReduceOp::Sum, &s), &s)
    });
    let e = errs[0].as_ref().expect("rank 0 fails");
    assert!(e.contains("rank(s) 1 did not arrive"), "{e}");
    assert!(e.contains("rank 1 called it but its stream has not reached it"), "{e}");
}

#[derive(Clone, Copy, Debug)]
enum Wrong {
    Count,
    Type,
    Operator,
    Root,
    Operation,
}

/// Rank 1 calls something else than ranks 0 and 2; every rank fails with a mismatch that names
/// what differs. A rank whose part could complete without its partners (a broadcast's root only
/// sends) may finish the call; the communicator's failure reaches it right after.
#[test]
fn mismatched_calls_fail_every_rank() {
    let cases = [
        (Wrong::Count, "count"),
        (Wrong::Type, "type"),
        (Wrong::Operator, "operator"),
        (Wrong::Root, "root"),
        (Wrong::Operation, "called"),
    ];
    for engine in [Engine::Host, Engine::Device] {
        for (wrong, word) in cases {
            let comms = Communicator::init_all_with(&cpu_devices(3), config().with_engine(engine)).unwrap();
            let errs = each_rank(&comms, |c| {
                let s = c.device().create_stream().unwrap();
                let odd = c.rank() == 1;
                let mut x = s.clone_htod(&[2.0f32; 64]).unwrap();
                let mut y = s.clone_htod(&[2i32; 64]).unwrap();
                let mut short = x.slice_mut(..63).unwrap();
                let call = match (wrong, odd) {
                    (Wrong::Count, true) => c.all_reduce_in_place(&mut short, ReduceOp::Sum, &s),
                    (Wrong::Type, true) => c.all_reduce_in_place(&mut y, ReduceOp::Sum, &s),
                    (Wrong::Operator, true) => c.all_reduce_in_place(&mut x, ReduceOp::Max, &s),
                    (Wrong::Root, true) => c.broadcast_in_place(&mut x, 2, &s),
                    (Wrong::Root, false) => c.broadcast_in_place(&mut x, 0, &s),
                    (Wrong::Operation, true) => c.broadcast_in_place(&mut x, 0, &s),
                    _ => c.all_reduce_in_place(&mut x, ReduceOp::Sum, &s),
                };
                outcome(call, &s).or_else(|| {
                    let until = Instant::now() + Duration::from_secs(10);
                    while c.async_error().is_none() && Instant::now() < until {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    c.async_error().map(|e| e.to_string())
                })
            });
            for (r, e) in errs.iter().enumerate() {
                let e = e.as_ref().unwrap_or_else(|| panic!("{engine} {wrong:?}: rank {r} did not fail"));
                assert!(
                    e.contains("mismatched calls") && e.contains(word),
                    "{engine} {wrong:?} rank {r}: {e}"
                );
                assert!(e.contains("rank 1"), "{engine} {wrong:?} rank {r} names the odd rank: {e}");
            }
        }
    }
}

#[test]
fn abort_stops_every_rank() {
    for engine in [Engine::Host, Engine::Device] {
        let comms = Communicator::init_all_with(&cpu_devices(3), config().with_engine(engine)).unwrap();
        let start = Instant::now();
        let errs = each_rank(&comms, |c| {
            if c.rank() == 0 {
                std::thread::sleep(Duration::from_millis(300));
                c.abort();
                return None;
            }
            let s = c.device().create_stream().unwrap();
            let mut x = s.clone_htod(&[1.0f64; 1000]).unwrap();
            outcome(c.all_reduce_in_place(&mut x, ReduceOp::Sum, &s), &s)
        });
        assert!(start.elapsed() < Duration::from_secs(30), "{engine}: abort took {:?}", start.elapsed());
        for e in errs.iter().skip(1) {
            let e = e.as_ref().expect("the others fail");
            assert!(e.contains("aborted") && e.contains("rank 0 called abort"), "{engine}: {e}");
        }
    }
}

// ------------------------------------------------------------------ across processes

const LIMIT: Duration = Duration::from_secs(90);

fn child_comm() -> (Communicator, Stream) {
    let (rank, n, id) = child().unwrap();
    let comm = Communicator::init_rank(&id, n, rank, &Device::cpu().unwrap()).unwrap();
    let s = comm.device().create_stream().unwrap();
    (comm, s)
}

/// Rank 1's process exits while ranks 0 and 2 wait inside an all-reduce: they fail with an
/// error naming rank 1, long before their (60 s) timeout.
#[test]
fn dead_rank_fails_the_others() {
    dead_rank("dead_rank_fails_the_others", "host");
}

/// The same on the device engine between processes (the rendezvous before any stream waits
/// sees the death).
#[test]
fn dead_rank_fails_the_others_device_engine() {
    dead_rank("dead_rank_fails_the_others_device_engine", "device");
}

fn dead_rank(test: &str, engine: &str) {
    if child().is_some() {
        let (comm, s) = child_comm();
        if comm.rank() == 1 {
            std::thread::sleep(Duration::from_millis(500));
            std::process::exit(17);
        }
        let start = Instant::now();
        let mut x = s.clone_htod(&[1.0f32; 4096]).unwrap();
        let e = outcome(comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s), &s).expect("the survivors fail");
        assert!(e.contains("rank(s) 1 died"), "{e}");
        assert!(e.contains("all_reduce #1"), "names the operation: {e}");
        assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());
        return;
    }
    let results = spawn_ranks(test, 3, LIMIT, |_| {
        vec![("FERROCM_CCL_TIMEOUT".into(), "60".into()), ("FERROCM_CCL_ENGINE".into(), engine.into())]
    });
    assert_eq!(results[1].code, Some(17), "rank 1 exits by itself:\n{}", results[1].output);
    all_passed(&results.into_iter().filter(|r| r.rank != 1).collect::<Vec<_>>());
}

/// FERROCM_CCL_TIMEOUT across processes: rank 2 arrives late; ranks 0 and 1 fail naming it,
/// and rank 2's call then fails at once with the same report.
#[test]
fn timeout_across_processes() {
    timeout_between("timeout_across_processes", "host");
}

#[test]
fn timeout_across_processes_device_engine() {
    timeout_between("timeout_across_processes_device_engine", "device");
}

fn timeout_between(test: &str, engine: &str) {
    if child().is_some() {
        let (comm, s) = child_comm();
        let mut x = s.clone_htod(&[1.0f32; 100]).unwrap();
        if comm.rank() == 2 {
            std::thread::sleep(Duration::from_secs(6));
        }
        let e = outcome(comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s), &s).expect("every rank fails");
        assert!(
            e.contains("rank(s) 2 did not arrive") && e.contains("all_reduce #1"),
            "rank {}: {e}",
            comm.rank()
        );
        return;
    }
    let results = spawn_ranks(test, 3, LIMIT, |_| {
        vec![("FERROCM_CCL_TIMEOUT".into(), "1.5".into()), ("FERROCM_CCL_ENGINE".into(), engine.into())]
    });
    all_passed(&results);
}

/// Mismatched counts between processes (shared memory): both ranks fail with a mismatch.
#[test]
fn mismatch_across_processes() {
    mismatch_between("mismatch_across_processes", "host");
}

#[test]
fn mismatch_across_processes_device_engine() {
    mismatch_between("mismatch_across_processes_device_engine", "device");
}

fn mismatch_between(test: &str, engine: &str) {
    if child().is_some() {
        let (comm, s) = child_comm();
        let n = if comm.rank() == 0 { 1000 } else { 999 };
        let mut x = s.clone_htod(&vec![1.0f32; n]).unwrap();
        let e = outcome(comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s), &s).expect("both fail");
        assert!(
            e.contains("mismatched calls") && e.contains("count") && e.contains("1000") && e.contains("999"),
            "{e}"
        );
        return;
    }
    all_passed(&spawn_ranks(test, 2, LIMIT, |_| vec![("FERROCM_CCL_ENGINE".into(), engine.into())]));
}

/// The device engine between processes: rank 1 joins an all-reduce (its rendezvous passes) but
/// its stream is held by a host callback, and its process exits before the stream reaches the
/// operation. Ranks 0 and 2 have queued waits on words rank 1 will never write: the watchdog
/// sees the communicator fail and releases them, so their streams finish (the data is garbage)
/// instead of hanging, the failure names rank 1, and every later call returns it.
#[test]
fn a_rank_dying_while_streams_wait_releases_them() {
    if child().is_some() {
        let (comm, s) = child_comm();
        assert_eq!(comm.engine(), Engine::Device);
        let mut x = s.clone_htod(&[1.0f32; 300_000]).unwrap();
        if comm.rank() == 1 {
            s.add_callback(|| {
                std::thread::sleep(Duration::from_millis(500));
                std::process::exit(17);
            })
            .unwrap();
        }
        let start = Instant::now();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).expect("the operation is queued");
        s.synchronize().expect("the released stream finishes");
        assert!(start.elapsed() < Duration::from_secs(30), "{:?}", start.elapsed());
        let e = comm.async_error().expect("the communicator failed");
        assert!(e.to_string().contains("rank(s) 1 died"), "{e}");
        let e = comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap_err();
        assert!(e.to_string().contains("rank(s) 1 died"), "later calls fail: {e}");
        return;
    }
    let results = spawn_ranks("a_rank_dying_while_streams_wait_releases_them", 3, LIMIT, |_| {
        vec![("FERROCM_CCL_TIMEOUT".into(), "60".into()), ("FERROCM_CCL_ENGINE".into(), "device".into())]
    });
    assert_eq!(results[1].code, Some(17), "rank 1 exits by itself:\n{}", results[1].output);
    all_passed(&results.into_iter().filter(|r| r.rank != 1).collect::<Vec<_>>());
}

/// Ranks given different staging areas (`FERROCM_CCL_BUFFSIZE`) both fail at init, naming the
/// two values and the setting, instead of running a ring whose slots disagree.
#[test]
fn staging_size_mismatch_fails_init() {
    const TEST: &str = "staging_size_mismatch_fails_init";
    if let Some((rank, n, id)) = child() {
        let Err(e) = Communicator::init_rank(&id, n, rank, &Device::cpu().unwrap()) else {
            panic!("rank {rank}: init with a staging area unlike its peer's was accepted")
        };
        let text = e.to_string();
        assert!(matches!(e, CclError::Unsupported { .. }), "{e:?}");
        assert!(
            text.contains("FERROCM_CCL_BUFFSIZE") && text.contains("16384") && text.contains("32768"),
            "rank {rank}: {text}"
        );
        return;
    }
    all_passed(&spawn_ranks(TEST, 2, LIMIT, |r| {
        vec![
            ("FERROCM_CCL_ENGINE".into(), "device".into()),
            ("FERROCM_CCL_BUFFSIZE".into(), (16384 << r).to_string()),
        ]
    }));
}

/// The device engine between processes, three ranks: after an all-reduce they agree on, rank 1
/// calls all-gather where the others call all-reduce; every rank fails with a mismatch naming
/// both operations and their sequence numbers (the headers the ranks post in their mailboxes),
/// and the communicator stays failed.
#[test]
fn operation_mismatch_across_processes_device_engine() {
    const TEST: &str = "operation_mismatch_across_processes_device_engine";
    if child().is_some() {
        let (comm, s) = child_comm();
        let mut x = s.clone_htod(&[1.0f32; 6]).unwrap();
        comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        assert_eq!(s.clone_dtoh(&x).unwrap(), vec![3.0f32; 6]);
        let call = if comm.rank() == 1 {
            let send = s.clone_htod(&[1.0f32; 2]).unwrap();
            comm.all_gather(&send, &mut x, &s)
        } else {
            comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s)
        };
        let e = outcome(call, &s).expect("every rank fails");
        assert!(
            e.contains("mismatched calls") && e.contains("all_reduce #2") && e.contains("all_gather #2"),
            "rank {}: {e}",
            comm.rank()
        );
        let again = comm.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap_err().to_string();
        assert!(again.contains("mismatched calls"), "later calls fail: {again}");
        return;
    }
    all_passed(&spawn_ranks(TEST, 3, LIMIT, |_| vec![("FERROCM_CCL_ENGINE".into(), "device".into())]));
}

/// Send/recv on the device engine between processes: rank 0 sends 10 elements, rank 1
/// receives 9. Both fail with a mismatch naming both counts, before anything is written (rank
/// 1's receive buffer keeps its contents).
#[test]
fn p2p_mismatch_across_processes_device_engine() {
    const TEST: &str = "p2p_mismatch_across_processes_device_engine";
    if child().is_some() {
        let (comm, s) = child_comm();
        let call = if comm.rank() == 0 {
            let x = s.clone_htod(&[1.0f32; 10]).unwrap();
            ferrocm_ccl::group(|g| g.send(&comm, &x, 1, &s))
        } else {
            let mut y = s.clone_htod(&[7.0f32; 9]).unwrap();
            let r = ferrocm_ccl::group(|g| g.recv(&comm, &mut y, 0, &s));
            assert_eq!(s.clone_dtoh(&y).unwrap(), vec![7.0f32; 9], "the receive buffer was written");
            r
        };
        let e = outcome(call, &s).expect("both ranks fail");
        assert!(
            e.contains("mismatched calls")
                && e.contains("rank 0 sends 10")
                && e.contains("rank 1 receives 9"),
            "rank {}: {e}",
            comm.rank()
        );
        return;
    }
    all_passed(&spawn_ranks(TEST, 2, LIMIT, |_| vec![("FERROCM_CCL_ENGINE".into(), "device".into())]));
}
