//! Group calls (one thread driving every rank; several operations fused into one launch;
//! send/recv patterns that only complete together; operations of one communicator on several
//! streams), communicators made by `init_rank` from threads of one process over the TCP
//! bootstrap (with each transport), and splits.

use std::time::Duration;

use crate::common::{config, cpu_devices, each_rank, Rng};
use ferrocm_ccl::{group, Communicator, Engine, ReduceOp, TransportKind, UniqueId};
use ferrocm_runtime::{DeviceBuffer, Stream};

fn data(rank: usize, n: usize, salt: u64) -> Vec<f32> {
    let mut r = Rng::new(rank as u64 * 1000 + salt);
    (0..n).map(|_| r.uniform(-1.0, 1.0) as f32).collect()
}

fn sum_of(inputs: &[Vec<f32>]) -> Vec<f64> {
    (0..inputs[0].len()).map(|i| inputs.iter().map(|v| v[i] as f64).sum()).collect()
}

fn close(got: &[f32], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((*g as f64 - w).abs() <= 1e-5 * (1.0 + w.abs()), "{what} element {i}: {g} vs {w}");
    }
}

/// One thread enqueues every rank's all-reduce, broadcast and all-gather in one group (NCCL's
/// single-process, multi-device pattern); the results match the reference on every rank.
#[test]
fn one_thread_drives_every_rank() {
    for engine in [Engine::Host, Engine::Device] {
        let n = 4;
        let comms = Communicator::init_all_with(&cpu_devices(n), config().with_engine(engine)).unwrap();
        let streams: Vec<Stream> = comms.iter().map(|c| c.device().create_stream().unwrap()).collect();
        let len = 3_001;
        let inputs: Vec<Vec<f32>> = (0..n).map(|r| data(r, len, 1)).collect();
        let mut reduced: Vec<DeviceBuffer<f32>> =
            (0..n).map(|r| streams[r].clone_htod(&inputs[r]).unwrap()).collect();
        let mut bcast: Vec<DeviceBuffer<f32>> =
            (0..n).map(|r| streams[r].clone_htod(&inputs[r]).unwrap()).collect();
        let sends: Vec<DeviceBuffer<f32>> =
            (0..n).map(|r| streams[r].clone_htod(&inputs[r][..100]).unwrap()).collect();
        let mut gathered: Vec<DeviceBuffer<f32>> =
            (0..n).map(|r| streams[r].alloc_zeroed(100 * n).unwrap()).collect();
        group(|g| {
            for ((((c, s), red), bc), (snd, gat)) in comms
                .iter()
                .zip(&streams)
                .zip(reduced.iter_mut())
                .zip(bcast.iter_mut())
                .zip(sends.iter().zip(gathered.iter_mut()))
            {
                g.all_reduce_in_place(c, red, ReduceOp::Sum, s)?;
                g.broadcast_in_place(c, bc, 2, s)?;
                g.all_gather(c, snd, gat, s)?;
            }
            Ok(())
        })
        .unwrap();
        let want = sum_of(&inputs);
        let all_first: Vec<f32> = inputs.iter().flat_map(|v| v[..100].to_vec()).collect();
        for r in 0..n {
            close(
                &streams[r].clone_dtoh(&reduced[r]).unwrap(),
                &want,
                &format!("{engine} all_reduce rank {r}"),
            );
            assert_eq!(streams[r].clone_dtoh(&bcast[r]).unwrap(), inputs[2], "{engine} broadcast rank {r}");
            assert_eq!(
                streams[r].clone_dtoh(&gathered[r]).unwrap(),
                all_first,
                "{engine} all_gather rank {r}"
            );
        }
    }
}

/// Every rank sends to every rank (itself included) in one group, several messages to each
/// peer with sizes from 0 to several chunks: only progressing them together completes it.
#[test]
fn send_recv_all_pairs_in_one_group() {
    for engine in [Engine::Host, Engine::Device] {
        let n = 3;
        let comms = Communicator::init_all_with(&cpu_devices(n), config().with_engine(engine)).unwrap();
        let sizes = [0usize, 1, 4_097, 70_001, 5, 200_003];
        let msg = |from: usize, to: usize, k: usize| data(from * 10 + to, sizes[k], k as u64);
        let results = each_rank(&comms, |c| {
            let r = c.rank();
            let s = c.device().create_stream().unwrap();
            let alloc =
                |v: &[f32]| if v.is_empty() { s.alloc::<f32>(1).unwrap() } else { s.clone_htod(v).unwrap() };
            let sends: Vec<Vec<DeviceBuffer<f32>>> =
                (0..n).map(|to| (0..sizes.len()).map(|k| alloc(&msg(r, to, k))).collect()).collect();
            let mut recvs: Vec<Vec<DeviceBuffer<f32>>> =
                (0..n).map(|_| sizes.iter().map(|&l| s.alloc_zeroed(l.max(1)).unwrap()).collect()).collect();
            {
                let send_views: Vec<Vec<_>> = sends
                    .iter()
                    .map(|bs| bs.iter().zip(sizes).map(|(b, l)| b.slice(..l).unwrap()).collect())
                    .collect();
                let mut recv_views: Vec<Vec<_>> = recvs
                    .iter_mut()
                    .map(|bs| bs.iter_mut().zip(sizes).map(|(b, l)| b.slice_mut(..l).unwrap()).collect())
                    .collect();
                group(|g| {
                    for (to, views) in send_views.iter().enumerate() {
                        for v in views {
                            g.send(c, v, to, &s)?;
                        }
                    }
                    for (from, views) in recv_views.iter_mut().enumerate() {
                        for v in views.iter_mut() {
                            g.recv(c, v, from, &s)?;
                        }
                    }
                    Ok(())
                })
                .unwrap();
            }
            recvs
                .iter()
                .map(|bs| {
                    bs.iter()
                        .zip(sizes)
                        .map(|(b, l)| s.clone_dtoh(b).unwrap()[..l].to_vec())
                        .collect::<Vec<_>>()
                })
                .collect::<Vec<_>>()
        });
        for (r, got) in results.iter().enumerate() {
            for (from, msgs) in got.iter().enumerate() {
                for (k, m) in msgs.iter().enumerate() {
                    assert_eq!(m, &msg(from, r, k), "{engine}: rank {r}, message {k} from rank {from}");
                }
            }
        }
    }
}

/// Operations of one communicator on two streams in one group: each stream's later work sees
/// the results.
#[test]
fn operations_on_several_streams_join() {
    let n = 2;
    for engine in [Engine::Host, Engine::Device] {
        let comms = Communicator::init_all_with(&cpu_devices(n), config().with_engine(engine)).unwrap();
        let out = each_rank(&comms, |c| {
            let (a, b) = (c.device().create_stream().unwrap(), c.device().create_stream().unwrap());
            let mut x = a.clone_htod(&data(c.rank(), 5_000, 3)).unwrap();
            let mut y = b.clone_htod(&data(c.rank(), 700, 4)).unwrap();
            group(|g| {
                g.all_reduce_in_place(c, &mut x, ReduceOp::Sum, &a)?;
                g.all_reduce_in_place(c, &mut y, ReduceOp::Max, &b)
            })
            .unwrap();
            (b.clone_dtoh(&x).unwrap(), a.clone_dtoh(&y).unwrap())
        });
        let want_x = sum_of(&(0..n).map(|r| data(r, 5_000, 3)).collect::<Vec<_>>());
        let ys: Vec<Vec<f32>> = (0..n).map(|r| data(r, 700, 4)).collect();
        let want_y: Vec<f32> = (0..700).map(|i| ys.iter().map(|v| v[i]).fold(f32::MIN, f32::max)).collect();
        for (r, (x, y)) in out.iter().enumerate() {
            close(x, &want_x, &format!("{engine} rank {r} x"));
            assert_eq!(y, &want_y, "{engine} rank {r} y");
        }
    }
}

fn init_threads(n: usize, transport: Option<TransportKind>) -> Vec<Communicator> {
    let id = UniqueId::new().unwrap();
    let devices = cpu_devices(n);
    let mut cfg = config().with_timeout(Duration::from_secs(60));
    if let Some(t) = transport {
        cfg = cfg.with_transport(t);
    }
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..n)
            .map(|r| {
                let (d, cfg) = (devices[r].clone(), cfg.clone());
                s.spawn(move || Communicator::init_rank_with(&id, n, r, &d, cfg))
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap().unwrap()).collect()
    })
}

fn all_reduce_check(comms: &[Communicator], len: usize, what: &str) {
    let n = comms.len();
    let out = each_rank(comms, |c| {
        let s = c.device().create_stream().unwrap();
        let mut x = s.clone_htod(&data(c.rank(), len, 9)).unwrap();
        c.all_reduce_in_place(&mut x, ReduceOp::Sum, &s).unwrap();
        s.clone_dtoh(&x).unwrap()
    });
    let want = sum_of(&(0..n).map(|r| data(r, len, 9)).collect::<Vec<_>>());
    for (r, o) in out.iter().enumerate() {
        close(o, &want, &format!("{what} rank {r}"));
    }
}

/// `init_rank` from threads of one process: the TCP bootstrap, the p2p transport by default,
/// and TCP or UCX when forced (those are tested between processes too).
#[test]
fn init_rank_from_threads_with_each_transport() {
    let mut transports = vec![None, Some(TransportKind::Tcp)];
    if ferrocm_ccl::ucx_available().is_ok() {
        transports.push(Some(TransportKind::Ucx));
    } else {
        assert!(
            std::env::var("FERROCM_REQUIRE_UCX").is_err(),
            "FERROCM_REQUIRE_UCX is set but UCX is missing"
        );
    }
    for t in transports {
        let comms = init_threads(3, t);
        let want = t.unwrap_or(TransportKind::P2p);
        for c in &comms {
            for p in (0..3).filter(|&p| p != c.rank()) {
                assert_eq!(c.transport_to(p), Some(want), "rank {} to {p}", c.rank());
            }
        }
        all_reduce_check(&comms, 1, &format!("{want}"));
        all_reduce_check(&comms, 300_007, &format!("{want}"));
    }
}

/// Splitting: colors group ranks, keys order them, `None` leaves a rank out; children work.
#[test]
fn split_by_color_and_key() {
    let n = 4;
    for comms in [Communicator::init_all_with(&cpu_devices(n), config()).unwrap(), init_threads(n, None)] {
        let colors = [Some(7), Some(3), Some(7), None];
        let keys = [5, 0, -1, 0];
        let mut children = Communicator::split_all(&comms, &colors, &keys).unwrap();
        assert!(children[3].is_none());
        let sizes: Vec<usize> = children.iter().flatten().map(|c| c.size()).collect();
        assert_eq!(sizes, [2, 1, 2]);
        // Color 7 holds old ranks 0 (key 5) and 2 (key -1): old rank 2 ranks first.
        let (first, second) = (children[2].take().unwrap(), children[0].take().unwrap());
        assert_eq!((first.rank(), second.rank()), (0, 1));
        assert_eq!(children[1].as_ref().unwrap().rank(), 0);
        all_reduce_check(&[first, second], 10_001, "split child");
        let alone = children[1].take().unwrap();
        all_reduce_check(std::slice::from_ref(&alone), 33, "split child of one");
    }
}
