//! The communicator: one rank's handle on a group of ranks, made by [`Communicator::init_rank`]
//! (any processes, bootstrapped over TCP), [`Communicator::init_all`] (several devices driven by
//! one process) or [`crate::launcher::LaunchEnv`] (mpirun, srun, torchrun); split, destroyed or
//! aborted; and the operations, which are groups of one ([`crate::group`]).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use ferrocm_runtime::{AsDeviceSlice, AsDeviceSliceMut, BackendKind, Device, Stream};

use crate::bootstrap::local::{LocalBootstrap, LocalShared};
use crate::bootstrap::tcp::{self, TcpBootstrap};
use crate::bootstrap::Bootstrap;
use crate::config::{Config, Engine, TransportKind};
use crate::device::ipc::{self, IpcEngine};
use crate::device::{join, Clique, RankLaunch};
use crate::group::{group, Buffer, Item};
use crate::host::HostEngine;
use crate::id::UniqueId;
use crate::log::Log;
use crate::op::{Op, OpKind};
use crate::state::{lock, Health, RankState};
use crate::transport::{self, Link, SetupCtx, Transport};
use crate::types::{CclType, ReduceOp};
use crate::wire::{Reader, Writer};
use crate::{tuner, CclError, Result};

/// What one rank tells the others at init.
#[derive(Clone, Debug)]
pub(crate) struct PeerInfo {
    pub process: u64,
    pub host: u64,
    pub hostname: String,
    pub pid: u32,
    pub gpu: bool,
    pub device_index: usize,
    pub device_name: String,
    pub forced_transport: Option<TransportKind>,
    pub forced_engine: Option<Engine>,
    /// The staging area of the device engine between processes (`Config::buffsize`).
    pub buffsize: u64,
    pub ucx: bool,
}

fn host_id() -> (u64, String) {
    let hostname =
        std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default().trim().to_string();
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in hostname.bytes().chain(boot.trim().bytes()) {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    (h, hostname)
}

impl PeerInfo {
    fn local(device: &Device, config: &Config) -> PeerInfo {
        let (host, hostname) = host_id();
        PeerInfo {
            process: tcp::process_token(),
            host,
            hostname,
            pid: std::process::id(),
            gpu: device.kind() != BackendKind::Cpu,
            device_index: device.index(),
            device_name: device.properties().name.clone(),
            forced_transport: config.transport,
            forced_engine: config.engine,
            buffsize: config.buffsize as u64,
            ucx: transport::ucx::available().is_ok(),
        }
    }

    fn encode(&self) -> Vec<u8> {
        let code = |t: Option<TransportKind>| {
            t.map_or(0, |t| TransportKind::ALL.iter().position(|&k| k == t).unwrap_or(0) as u8 + 1)
        };
        let mut w = Writer::new();
        w.u64(self.process)
            .u64(self.host)
            .str(&self.hostname)
            .u32(self.pid)
            .u8(self.gpu as u8)
            .u64(self.device_index as u64)
            .str(&self.device_name)
            .u8(code(self.forced_transport))
            .u8(match self.forced_engine {
                None => 0,
                Some(Engine::Host) => 1,
                Some(Engine::Device) => 2,
            })
            .u64(self.buffsize)
            .u8(self.ucx as u8);
        w.finish()
    }

    fn decode(b: &[u8]) -> Option<PeerInfo> {
        let mut r = Reader::new(b);
        Some(PeerInfo {
            process: r.u64().ok()?,
            host: r.u64().ok()?,
            hostname: r.string().ok()?,
            pid: r.u32().ok()?,
            gpu: r.u8().ok()? != 0,
            device_index: r.usize().ok()?,
            device_name: r.string().ok()?,
            forced_transport: match r.u8().ok()? {
                0 => None,
                k => Some(*TransportKind::ALL.get(k as usize - 1)?),
            },
            forced_engine: match r.u8().ok()? {
                0 => None,
                1 => Some(Engine::Host),
                _ => Some(Engine::Device),
            },
            buffsize: r.u64().ok()?,
            ucx: r.u8().ok()? != 0,
        })
    }
}

/// What every part of a communicator shares.
pub(crate) struct Core {
    pub rank: usize,
    pub nranks: usize,
    pub device: Device,
    pub config: Config,
    pub magic: u64,
    pub health: Arc<Health>,
    pub state: Arc<RankState>,
    pub bootstrap: Box<dyn Bootstrap>,
    pub log: Log,
    /// All ranks are in this process with a shared bootstrap (children of a split are too).
    pub local: Option<Arc<LocalShared>>,
    pub peers: Vec<PeerInfo>,
    seq: AtomicU64,
    p2p_sent: Mutex<Vec<u64>>,
    p2p_received: Mutex<Vec<u64>>,
    splits: AtomicU64,
}

enum EngineImpl {
    Host(HostEngine),
    Device(Arc<Clique>),
}

/// One rank of a communicator (NCCL's `ncclComm_t`). Operations take a stream of the
/// communicator's device and are queued on it; a failure anywhere in the communicator (a
/// timeout, a dead rank, mismatched calls, an abort) fails the operation in flight and every
/// later call on every rank with the same error.
pub struct Communicator {
    core: Arc<Core>,
    engine: EngineImpl,
    /// The device engine between processes (ranks of one host in several processes): it runs
    /// the operations it supports, the host engine (set up beside it) the rest.
    ipc: Option<IpcEngine>,
    transports: Vec<Option<TransportKind>>,
    closed: AtomicBool,
}

impl std::fmt::Debug for Communicator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Communicator(rank {} of {}, device {}, {} engine, comm {:016x})",
            self.core.rank,
            self.core.nranks,
            self.core.device.index(),
            self.engine(),
            self.core.magic
        )
    }
}

fn choose_transport(me: &PeerInfo, peer: &PeerInfo, forced: Option<TransportKind>) -> Result<TransportKind> {
    let same_process = me.process == peer.process;
    let same_host = me.host == peer.host;
    if let Some(f) = forced {
        let ok = match f {
            TransportKind::P2p => same_process,
            TransportKind::Shm => same_host,
            TransportKind::Ucx => me.ucx && peer.ucx,
            TransportKind::Tcp => true,
        };
        if !ok {
            return Err(CclError::Unsupported {
                what: format!(
                    "FERROCM_CCL_TRANSPORT={f} between {} (pid {}) and {} (pid {}): {}",
                    me.hostname,
                    me.pid,
                    peer.hostname,
                    peer.pid,
                    match f {
                        TransportKind::P2p => "p2p needs both ranks in one process",
                        TransportKind::Shm => "shm needs both ranks on one host",
                        _ => "UCX (libucp.so.0) is missing on one of the hosts",
                    }
                ),
            });
        }
        return Ok(f);
    }
    Ok(if same_process {
        TransportKind::P2p
    } else if same_host {
        TransportKind::Shm
    } else if me.ucx && peer.ucx {
        TransportKind::Ucx
    } else {
        TransportKind::Tcp
    })
}

fn local_children() -> &'static Mutex<HashMap<u64, Weak<LocalShared>>> {
    static C: OnceLock<Mutex<HashMap<u64, Weak<LocalShared>>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

impl Communicator {
    /// Joins the communicator of `id` as `rank` of `nranks`, on `device`, with the settings of
    /// the environment ([`Config::from_env`]). Every rank calls it (in any processes); it
    /// returns once all have joined and are connected, or fails at the timeout naming the ranks
    /// that did not come.
    pub fn init_rank(id: &UniqueId, nranks: usize, rank: usize, device: &Device) -> Result<Communicator> {
        Communicator::init_rank_with(id, nranks, rank, device, Config::from_env()?)
    }

    /// [`Communicator::init_rank`] with explicit settings.
    pub fn init_rank_with(
        id: &UniqueId,
        nranks: usize,
        rank: usize,
        device: &Device,
        config: Config,
    ) -> Result<Communicator> {
        check_rank(rank, nranks)?;
        Config::check_buffsize(config.buffsize)?;
        let (health, state) = (Arc::new(Health::default()), Arc::new(RankState::default()));
        let timeout = config.timeout;
        let (h, s) = (health.clone(), state.clone());
        init(rank, nranks, device, config, id.magic, None, health, state, move |info| {
            let (b, all) = TcpBootstrap::connect(id, nranks, rank, info, timeout, h, s)?;
            Ok((Box::new(b) as Box<dyn Bootstrap>, all))
        })
    }

    /// One communicator per device, all driven by this process (NCCL's `ncclCommInitAll`):
    /// rank `i` runs on `devices[i]` (a device may appear more than once: its ranks share it).
    pub fn init_all(devices: &[Device]) -> Result<Vec<Communicator>> {
        Communicator::init_all_with(devices, Config::from_env()?)
    }

    /// [`Communicator::init_all`] with explicit settings.
    pub fn init_all_with(devices: &[Device], config: Config) -> Result<Vec<Communicator>> {
        if devices.is_empty() {
            return Err(CclError::invalid("device list", "[]", "init_all needs at least one device"));
        }
        Config::check_buffsize(config.buffsize)?;
        let shared = LocalShared::new(devices.len());
        init_local_ranks(shared, crate::id::random_u64(), devices, &config)
    }

    /// This rank's number, `0..size()`.
    pub fn rank(&self) -> usize {
        self.core.rank
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.core.nranks
    }

    /// The device this rank runs on.
    pub fn device(&self) -> &Device {
        &self.core.device
    }

    /// The communicator's settings.
    pub fn config(&self) -> &Config {
        &self.core.config
    }

    /// Who moves the data: kernels on the devices, or native code on the host.
    pub fn engine(&self) -> Engine {
        match self.engine {
            EngineImpl::Host(_) if self.ipc.is_some() => Engine::Device,
            EngineImpl::Host(_) => Engine::Host,
            EngineImpl::Device(_) => Engine::Device,
        }
    }

    /// The engine whose algorithms the tuner picks from: the host engine's beside the device
    /// engine between processes (which runs rings only, whatever the tuner says).
    fn tuned_engine(&self) -> Engine {
        match self.engine {
            EngineImpl::Host(_) => Engine::Host,
            EngineImpl::Device(_) => Engine::Device,
        }
    }

    /// The transport between this rank and `peer` (`None` for itself, and for every peer
    /// with the device engine, which needs none).
    pub fn transport_to(&self, peer: usize) -> Option<TransportKind> {
        self.transports.get(peer).copied().flatten()
    }

    /// The failure the communicator has suffered, if any (NCCL's `ncclCommGetAsyncError`):
    /// operations queued on streams report theirs through the stream, and every rank of the
    /// communicator sees the same one here.
    pub fn async_error(&self) -> Option<CclError> {
        self.core.health.failure()
    }

    /// Fails the communicator on every rank: operations in flight stop with
    /// [`CclError::Aborted`], and so does every later call (NCCL's `ncclCommAbort`). Drop it
    /// afterwards.
    pub fn abort(&self) {
        let e = CclError::Aborted { reason: format!("rank {} called abort", self.core.rank) };
        self.core.bootstrap.abort(&e);
    }

    /// Leaves the communicator: waits (at most the timeout) for this rank's queued operations to
    /// run, then closes its connections. Dropping it does the same.
    pub fn destroy(self) -> Result<()> {
        self.shutdown();
        Ok(())
    }

    fn shutdown(&self) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        if let EngineImpl::Host(h) = &self.engine {
            h.drain();
        }
        self.core.bootstrap.close();
    }

    /// Splits the communicator (NCCL's `ncclCommSplit`): every rank calls it; ranks with the
    /// same `color` form a new communicator, ranked by `key` (ties by their rank here). A rank
    /// with `color` `None` takes part but gets no communicator.
    pub fn split(&self, color: Option<u32>, key: i32) -> Result<Option<Communicator>> {
        let core = &self.core;
        core.health.check()?;
        let mut w = Writer::new();
        w.u64(color.map_or(0, |c| c as u64 + 1)).u64(key as i64 as u64);
        let all = core.bootstrap.all_gather(w.finish(), core.config.timeout)?;
        let split = core.splits.fetch_add(1, Ordering::AcqRel);
        let mut entries = Vec::new();
        for (r, b) in all.iter().enumerate() {
            let mut rd = Reader::new(b);
            let c = rd.u64().map_err(|e| CclError::bootstrap("splitting", e))?;
            let k = rd.u64().map_err(|e| CclError::bootstrap("splitting", e))? as i64;
            entries.push((c, k, r));
        }
        let my = color.map(|c| c as u64 + 1);
        let mut members: Vec<(i64, usize)> =
            entries.iter().filter(|e| Some(e.0) == my).map(|e| (e.1, e.2)).collect();
        members.sort_unstable();
        let new_rank = members.iter().position(|m| m.1 == core.rank);
        let child_magic = |c: u64| {
            let mut h = core.magic ^ 0x9e37_79b9_7f4a_7c15;
            for v in [split, c] {
                h = (h ^ v).wrapping_mul(0x100_0000_01b3).rotate_left(17);
            }
            h | 1
        };
        if core.local.is_some() {
            let (Some(c), Some(new_rank)) = (my, new_rank) else { return Ok(None) };
            let magic = child_magic(c);
            let shared = {
                let mut map = lock(local_children());
                map.retain(|_, w| w.strong_count() > 0);
                match map.get(&magic).and_then(Weak::upgrade) {
                    Some(s) => s,
                    None => {
                        let s = LocalShared::new(members.len());
                        map.insert(magic, Arc::downgrade(&s));
                        s
                    }
                }
            };
            let c = init_local_rank(shared, magic, new_rank, &core.device, core.config.clone())?;
            return Ok(Some(c));
        }
        // Over TCP: the new rank 0 of each color starts a root and publishes its id.
        let id = if new_rank == Some(0) { Some(UniqueId::new()?) } else { None };
        let published = core
            .bootstrap
            .all_gather(id.map(|i| i.to_bytes().to_vec()).unwrap_or_default(), core.config.timeout)?;
        let (Some(_), Some(new_rank)) = (my, new_rank) else { return Ok(None) };
        let root = members[0].1;
        let id = UniqueId::from_bytes(&published[root])?;
        Communicator::init_rank_with(&id, members.len(), new_rank, &core.device, core.config.clone())
            .map(Some)
    }

    /// [`Communicator::split`] of every rank of a communicator driven by this thread (from
    /// [`Communicator::init_all`]): `colors[i]` and `keys[i]` are rank `i`'s.
    pub fn split_all(
        comms: &[Communicator],
        colors: &[Option<u32>],
        keys: &[i32],
    ) -> Result<Vec<Option<Communicator>>> {
        if colors.len() != comms.len() || keys.len() != comms.len() {
            return Err(CclError::invalid(
                "split_all arguments",
                format!("{} colors and {} keys", colors.len(), keys.len()),
                format!("one color and one key per communicator ({})", comms.len()),
            ));
        }
        std::thread::scope(|s| {
            let handles: Vec<_> = comms
                .iter()
                .zip(colors)
                .zip(keys)
                .map(|((c, &col), &k)| s.spawn(move || c.split(col, k)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| Err(CclError::bootstrap("splitting", "a thread panicked")))
                })
                .collect()
        })
    }

    /// Checks a call before it joins a group.
    pub(crate) fn check_call(
        &self,
        stream: &Stream,
        kind: OpKind,
        root: usize,
        send: Option<&dyn Buffer>,
        recv: Option<&dyn Buffer>,
    ) -> Result<()> {
        let core = &self.core;
        core.health.check()?;
        if stream.device() != &core.device {
            return Err(CclError::DeviceMismatch {
                what: "stream",
                expected: core.device.index(),
                actual: stream.device().index(),
            });
        }
        for (what, b) in [("send buffer", send), ("receive buffer", recv)] {
            if let Some(b) = b {
                if b.device() != &core.device {
                    return Err(CclError::DeviceMismatch {
                        what,
                        expected: core.device.index(),
                        actual: b.device().index(),
                    });
                }
            }
        }
        if (kind.rooted() || kind.is_p2p()) && root >= core.nranks {
            return Err(CclError::invalid(
                if kind.is_p2p() { "peer" } else { "root" },
                root,
                format!("ranks of this communicator are 0..{}", core.nranks),
            ));
        }
        Ok(())
    }

    fn make_op(&self, item: &Item) -> Op {
        let core = &self.core;
        let seq = match item.kind {
            OpKind::Send => {
                let mut v = lock(&core.p2p_sent);
                v[item.root] += 1;
                v[item.root]
            }
            OpKind::Recv => {
                let mut v = lock(&core.p2p_received);
                v[item.root] += 1;
                v[item.root]
            }
            _ => core.seq.fetch_add(1, Ordering::AcqRel) + 1,
        };
        let (send_len, recv_len) = item.kind.buffer_lens(item.count, core.nranks).unwrap_or((0, 0));
        let bytes = send_len.max(recv_len) * item.dtype.size();
        let (algorithm, protocol, ignored) =
            tuner::choose(item.kind, bytes, core.nranks, self.tuned_engine(), &core.config);
        let (send, recv) = item.addresses(core.rank);
        let op = Op {
            kind: item.kind,
            dtype: item.dtype,
            redop: item.redop,
            count: item.count,
            root: item.root,
            seq,
            algorithm,
            protocol,
            in_place: item.in_place,
            send,
            recv,
        };
        if !op.kind.is_p2p() {
            core.state.record(seq, op.describe());
        }
        if ignored {
            core.log.info(|| {
                format!("{}: FERROCM_CCL_ALGO does not apply to it; using {}", op.describe(), algorithm)
            });
        }
        core.log.info(|| {
            format!(
                "{}: sendbuff {:#x} recvbuff {:#x} comm {:016x} [nranks={}] stream {:?} engine {} algorithm {} protocol {}",
                op.describe(),
                op.send,
                op.recv,
                core.magic,
                core.nranks,
                item.stream.handle(),
                self.engine(),
                algorithm,
                protocol
            )
        });
        op
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn check_rank(rank: usize, nranks: usize) -> Result<()> {
    if nranks == 0 {
        return Err(CclError::invalid("nranks", 0, "a communicator has at least one rank"));
    }
    if rank >= nranks {
        return Err(CclError::invalid(
            "rank",
            rank,
            format!("ranks of a {nranks}-rank communicator are 0..{nranks}"),
        ));
    }
    Ok(())
}

fn init_local_rank(
    shared: Arc<LocalShared>,
    magic: u64,
    rank: usize,
    device: &Device,
    config: Config,
) -> Result<Communicator> {
    let (health, state) = (shared.health(rank), shared.state(rank));
    let timeout = config.timeout;
    let s2 = shared.clone();
    let nranks = shared.nranks();
    init(rank, nranks, device, config, magic, Some(shared), health, state, move |info| {
        let b = LocalBootstrap::new(s2, rank);
        let all = b.all_gather(info, timeout)?;
        Ok((Box::new(b) as Box<dyn Bootstrap>, all))
    })
}

fn init_local_ranks(
    shared: Arc<LocalShared>,
    magic: u64,
    devices: &[Device],
    config: &Config,
) -> Result<Vec<Communicator>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = devices
            .iter()
            .enumerate()
            .map(|(r, d)| {
                let shared = shared.clone();
                let config = config.clone();
                s.spawn(move || init_local_rank(shared, magic, r, d, config))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(CclError::bootstrap("initialising", "a rank's thread panicked")))
            })
            .collect()
    })
}

#[allow(clippy::too_many_arguments)]
fn init(
    rank: usize,
    nranks: usize,
    device: &Device,
    config: Config,
    magic: u64,
    local: Option<Arc<LocalShared>>,
    health: Arc<Health>,
    state: Arc<RankState>,
    connect: impl FnOnce(Vec<u8>) -> Result<(Box<dyn Bootstrap>, Vec<Vec<u8>>)>,
) -> Result<Communicator> {
    let log = Log::new(config.debug, rank);
    let mine = PeerInfo::local(device, &config);
    log.info(|| {
        format!(
            "init: ferrocm-ccl {} rank {rank} of {nranks} on device {} ({}), comm {magic:016x}",
            env!("CARGO_PKG_VERSION"),
            device.index(),
            device.properties().name
        )
    });
    let (bootstrap, raw) = connect(mine.encode())?;
    let peers: Vec<PeerInfo> = raw
        .iter()
        .enumerate()
        .map(|(r, b)| {
            PeerInfo::decode(b)
                .ok_or_else(|| CclError::bootstrap("init", format!("rank {r}'s information is malformed")))
        })
        .collect::<Result<_>>()?;
    let core = Arc::new(Core {
        rank,
        nranks,
        device: device.clone(),
        config,
        magic,
        health,
        state,
        bootstrap,
        log,
        local,
        peers,
        seq: AtomicU64::new(0),
        p2p_sent: Mutex::new(vec![0; nranks]),
        p2p_received: Mutex::new(vec![0; nranks]),
        splits: AtomicU64::new(0),
    });
    match setup(&core) {
        Ok(c) => Ok(c),
        Err(e) => {
            core.bootstrap
                .abort(&CclError::Aborted { reason: format!("rank {rank} could not initialise: {e}") });
            core.bootstrap.close();
            Err(e)
        }
    }
}

fn setup(core: &Arc<Core>) -> Result<Communicator> {
    let (rank, nranks) = (core.rank, core.nranks);
    let me = &core.peers[rank];
    for (r, p) in core.peers.iter().enumerate() {
        if p.buffsize != me.buffsize {
            return Err(CclError::Unsupported {
                what: format!(
                    "ranks {rank} and {r} were configured differently (FERROCM_CCL_BUFFSIZE {} / {}); every rank must use the same staging area size",
                    me.buffsize, p.buffsize
                ),
            });
        }
        if p.forced_transport != me.forced_transport || p.forced_engine != me.forced_engine {
            return Err(CclError::Unsupported {
                what: format!(
                    "ranks {rank} and {r} were configured differently (FERROCM_CCL_TRANSPORT {:?} / {:?}, FERROCM_CCL_ENGINE {:?} / {:?}); every rank must use the same settings",
                    me.forced_transport, p.forced_transport, me.forced_engine, p.forced_engine
                ),
            });
        }
    }
    let all_local = core.peers.iter().all(|p| p.process == me.process);
    let all_gpu = core.peers.iter().all(|p| p.gpu);
    let one_host = core.peers.iter().all(|p| p.host == me.host);
    let mut engine = match core.config.engine {
        Some(Engine::Host) => Engine::Host,
        Some(Engine::Device) if !all_local && !one_host => {
            return Err(CclError::Unsupported {
                what: "FERROCM_CCL_ENGINE=device needs every rank on one host (in one process, or in several sharing device memory)".into(),
            })
        }
        Some(Engine::Device) => Engine::Device,
        None if all_local && all_gpu => Engine::Device,
        None if one_host && all_gpu && nranks > 1 => Engine::Device,
        None => Engine::Host,
    };
    // Ranks of one host in several processes: the host engine for every operation, and beside
    // it the device engine between processes for those it runs.
    let cross_process = engine == Engine::Device && !all_local;
    let timeout = core.config.timeout;
    if engine == Engine::Device && all_local {
        let clique = Clique::get(core.magic, nranks);
        clique.register(rank, &core.device, Arc::downgrade(core))?;
        core.bootstrap.all_gather(Vec::new(), timeout)?;
        let ok = clique.enable_peers(rank);
        let flags = core.bootstrap.all_gather(vec![ok.is_ok() as u8], timeout)?;
        if flags.iter().all(|f| f.first() == Some(&1)) {
            core.log.info(|| format!("topology: {nranks} rank(s) in this process; device engine (kernels over peer pointers, ordered by events)"));
            core.bootstrap.all_gather(Vec::new(), timeout)?;
            return Ok(Communicator {
                core: core.clone(),
                engine: EngineImpl::Device(clique),
                ipc: None,
                transports: vec![None; nranks],
                closed: AtomicBool::new(false),
            });
        }
        if core.config.engine == Some(Engine::Device) {
            return Err(ok.err().unwrap_or_else(|| CclError::Unsupported {
                what: "peer access between the ranks' devices".into(),
            }));
        }
        core.log.warn(|| {
            "no peer access between some devices: using the host engine (staged through host memory)".into()
        });
        engine = Engine::Host;
    }
    let _ = engine;
    // Host engine: connect every pair by the transport it chooses.
    let mut kinds: Vec<Option<TransportKind>> = vec![None; nranks];
    for (p, info) in core.peers.iter().enumerate() {
        if p != rank {
            kinds[p] = Some(choose_transport(me, info, core.config.transport)?);
        }
    }
    let ctx = SetupCtx { rank, magic: core.magic, device: &core.device, timeout, health: &core.health };
    let mut transports: Vec<(TransportKind, Box<dyn Transport>, Vec<usize>)> = Vec::new();
    let mut mine = Writer::new();
    for kind in TransportKind::ALL {
        let peers: Vec<usize> = (0..nranks).filter(|&p| kinds[p] == Some(kind)).collect();
        if peers.is_empty() {
            continue;
        }
        let mut t = transport::create(kind)?;
        let bytes = t.prepare(&ctx, &peers)?;
        mine.u8(kind as u8).bytes(&bytes);
        transports.push((kind, t, peers));
    }
    let published = core.bootstrap.all_gather(mine.finish(), timeout)?;
    let mut by_kind: HashMap<u8, Vec<Vec<u8>>> = HashMap::new();
    for (r, b) in published.iter().enumerate() {
        let mut rd = Reader::new(b);
        while let Ok(k) = rd.u8() {
            let bytes = rd.bytes().map_err(|e| CclError::bootstrap("init", e))?.to_vec();
            by_kind.entry(k).or_insert_with(|| vec![Vec::new(); nranks])[r] = bytes;
        }
    }
    let mut links: Vec<Option<Link>> = (0..nranks).map(|_| None).collect();
    for (kind, t, peers) in transports.iter_mut() {
        let empty = vec![Vec::new(); nranks];
        let pubs = by_kind.get(&(*kind as u8)).unwrap_or(&empty);
        for (p, link) in t.connect(&ctx, peers, pubs)? {
            links[p] = Some(link);
        }
    }
    core.bootstrap.all_gather(Vec::new(), timeout)?;
    for (_, t, _) in transports.iter_mut() {
        t.finish(&ctx);
    }
    core.log.info(|| {
        let mut lines = vec![format!("topology: {nranks} rank(s); host engine")];
        for (p, info) in core.peers.iter().enumerate() {
            lines.push(format!(
                "  rank {p}: {} pid {} device {} ({}) via {}",
                info.hostname,
                info.pid,
                info.device_index,
                info.device_name,
                kinds[p].map_or("self".to_string(), |k| k.to_string())
            ));
        }
        lines.join("\n")
    });
    let engine = HostEngine::new(core.clone(), links, transports.into_iter().map(|t| t.1).collect())?;
    let ipc = if cross_process { setup_ipc(core)? } else { None };
    Ok(Communicator {
        core: core.clone(),
        engine: EngineImpl::Host(engine),
        ipc,
        transports: kinds,
        closed: AtomicBool::new(false),
    })
}

/// The device engine between processes, where every rank can make its exportable staging
/// memory (agreed over the bootstrap, so every rank decides alike); `None` with a warning where
/// one cannot and the engine was not forced.
fn setup_ipc(core: &Arc<Core>) -> Result<Option<IpcEngine>> {
    let timeout = core.config.timeout;
    let prepared = IpcEngine::prepare(core);
    let flags = core.bootstrap.all_gather(vec![prepared.is_ok() as u8], timeout)?;
    if flags.iter().all(|f| f.first() == Some(&1)) {
        let engine = IpcEngine::connect(core, prepared.expect("checked by the all-gather"))?;
        core.log.info(|| {
            format!(
                "topology: {} rank(s) of one host in several processes; device engine between processes (rings over exportable device memory ordered by stream memory operations; {} slots of {} KiB per direction) for all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all and send/recv, host engine for mixed groups",
                core.nranks,
                ipc::SLOTS,
                (core.config.buffsize as u64 / ipc::SLOTS) >> 10
            )
        });
        return Ok(Some(engine));
    }
    let why = match &prepared {
        Err(e) => e.to_string(),
        Ok(_) => format!(
            "rank(s) {:?} could not",
            flags
                .iter()
                .enumerate()
                .filter(|(_, f)| f.first() != Some(&1))
                .map(|(r, _)| r)
                .collect::<Vec<_>>()
        ),
    };
    if core.config.engine == Some(Engine::Device) {
        return Err(CclError::Unsupported {
            what: format!("the device engine between processes: exportable staging memory: {why}"),
        });
    }
    core.log.warn(|| format!("no exportable device memory for the device engine between processes ({why}): using the host engine"));
    Ok(None)
}

/// Whether the device engine between processes runs a group: collectives it runs, or sends and
/// receives that fit it ([`ipc::p2p_fits`]); mixed groups go to the host engine.
fn ipc_runs(me: usize, items: &[Item<'_>]) -> bool {
    if items.iter().all(|it| ipc::supports(it.kind)) {
        return true;
    }
    let p2p: Vec<(OpKind, usize)> = items.iter().map(|it| (it.kind, it.root)).collect();
    ipc::p2p_fits(me, &p2p)
}

/// Launches the operations of a group (see [`crate::group`]).
pub(crate) fn launch(items: Vec<Item<'_>>) -> Result<()> {
    // Operations by communicator, in call order.
    let mut per_comm: Vec<(&Communicator, Vec<Item>)> = Vec::new();
    for it in items {
        match per_comm.iter_mut().find(|(c, _)| std::ptr::eq(*c, it.comm)) {
            Some((_, v)) => v.push(it),
            None => per_comm.push((it.comm, vec![it])),
        }
    }
    // Device-engine communicators of one clique launch together (one thread may drive them all).
    type PerComm<'c, 'a> = Vec<(&'c Communicator, Vec<Item<'a>>)>;
    let mut cliques: Vec<(Arc<Clique>, PerComm)> = Vec::new();
    for (comm, items) in per_comm {
        match &comm.engine {
            EngineImpl::Host(_) if comm.ipc.is_some() && ipc_runs(comm.core.rank, &items) => {
                comm.launch_ipc(items)?
            }
            EngineImpl::Host(h) => {
                if comm.ipc.is_some() {
                    comm.core.log.info(|| {
                        let kinds: Vec<&str> = items.iter().map(|it| it.kind.name()).collect();
                        format!(
                            "{}: the device engine between processes does not run this yet; host engine",
                            kinds.join(", ")
                        )
                    });
                }
                comm.launch_host(h, items)?
            }
            EngineImpl::Device(c) => match cliques.iter_mut().find(|(k, _)| Arc::ptr_eq(k, c)) {
                Some((_, v)) => v.push((comm, items)),
                None => cliques.push((c.clone(), vec![(comm, items)])),
            },
        }
    }
    for (clique, comms) in cliques {
        let mut launches = Vec::new();
        let mut streams = Vec::new();
        for (comm, items) in &comms {
            let main = items[0].stream.clone();
            for it in items.iter() {
                join(it.stream, &main)?;
                if let Some(b) = &it.send {
                    b.record_use(&main);
                }
                if let Some(b) = &it.recv {
                    b.as_buffer().record_use(&main);
                }
            }
            let ops: Vec<Op> = items.iter().map(|it| comm.make_op(it)).collect();
            streams.push((main.clone(), items.iter().map(|i| i.stream.clone()).collect::<Vec<_>>()));
            launches.push(RankLaunch { rank: comm.core.rank, core: &comm.core, stream: main, ops });
        }
        let timeout = comms[0].0.core.config.timeout;
        clique.run(&launches, timeout)?;
        for (main, others) in streams {
            for s in others {
                join(&main, &s)?;
            }
        }
    }
    Ok(())
}

impl Communicator {
    /// Queues a group's operations on the device engine between processes, in call order on
    /// the first operation's stream (the others join it before and after).
    fn launch_ipc(&self, items: Vec<Item<'_>>) -> Result<()> {
        let engine = self.ipc.as_ref().expect("launch_ipc is called with the engine");
        let main = items[0].stream.clone();
        for it in &items {
            join(it.stream, &main)?;
            if let Some(b) = &it.send {
                b.record_use(&main);
            }
            if let Some(b) = &it.recv {
                b.as_buffer().record_use(&main);
            }
        }
        if items[0].kind.is_p2p() {
            let ops: Vec<Op> = items.iter().map(|it| self.make_op(it)).collect();
            for op in &ops {
                self.core.log.info(|| {
                    format!("{}: device engine between processes, direct, simple protocol", op.describe())
                });
            }
            engine.run_p2p(&self.core, &main, &ops)?;
        } else {
            for it in &items {
                let op = self.make_op(it);
                self.core.log.info(|| {
                    let algorithm = if op.kind == OpKind::AllToAll { "pairwise" } else { "ring" };
                    format!(
                        "{}: device engine between processes, {algorithm}, simple protocol",
                        op.describe()
                    )
                });
                engine.run(&self.core, &main, &op)?;
            }
        }
        for it in &items {
            join(&main, it.stream)?;
        }
        Ok(())
    }

    fn launch_host(&self, engine: &HostEngine, mut items: Vec<Item<'_>>) -> Result<()> {
        let ops: Vec<Op> = items.iter().map(|it| self.make_op(it)).collect();
        if self.core.device.kind() == BackendKind::Cpu {
            let main = items[0].stream.clone();
            for it in &items {
                join(it.stream, &main)?;
            }
            engine.launch_on_stream(&main, ops, |args| {
                for it in &items {
                    if let Some(b) = &it.send {
                        b.push(args);
                    }
                    if let Some(b) = &it.recv {
                        b.as_buffer().push(args);
                    }
                }
            })?;
            for it in &items {
                join(&main, it.stream)?;
            }
            return Ok(());
        }
        // A GPU with peers in other processes: stage through host memory.
        let mut stages: Vec<(Vec<u64>, Vec<u64>)> = Vec::new();
        let mut staged_ops = Vec::new();
        for (it, op) in items.iter().zip(&ops) {
            let words = |b: &dyn Buffer| (b.elems() * it.dtype.size()).div_ceil(8).max(1);
            let mut recv = match &it.recv {
                Some(b) => vec![0u64; words(b.as_buffer())],
                None => Vec::new(),
            };
            if let Some(b) = &it.recv {
                if it.in_place || op.kind == OpKind::Reduce {
                    b.as_buffer().download(it.stream, &mut recv)?;
                }
            }
            let mut send = Vec::new();
            if let Some(b) = &it.send {
                send = vec![0u64; words(b.as_ref())];
                b.download(it.stream, &mut send)?;
            }
            let mut o = op.clone();
            let recv_base = recv.as_mut_ptr() as u64;
            o.recv = recv_base + (op.recv - it.recv.as_ref().map_or(op.recv, |b| b.as_buffer().addr()));
            o.send = if it.send.is_some() {
                send.as_mut_ptr() as u64
            } else {
                recv_base + (op.send - it.recv.as_ref().map_or(op.send, |b| b.as_buffer().addr()))
            };
            staged_ops.push(o);
            stages.push((send, recv));
        }
        engine.run_now(staged_ops)?;
        for ((it, op), (_, recv)) in items.iter_mut().zip(&ops).zip(&stages) {
            let writes = op.kind != OpKind::Reduce || op.root == self.core.rank;
            if let (Some(b), true) = (&mut it.recv, writes) {
                b.upload(it.stream, recv)?;
            }
        }
        Ok(())
    }
}

macro_rules! single {
    ($(#[$m:meta])* $name:ident ( $($arg:ident : $ty:ty),* ) $(where $($g:ident : $b:path),*)?) => {
        $(#[$m])*
        pub fn $name<T: CclType $(, $($g: $b),*)?>(&self, $($arg: $ty),*) -> Result<()> {
            group(|g| g.$name(self, $($arg),*))
        }
    };
}

impl Communicator {
    single!(
        /// All-reduce: `recv` on every rank becomes the reduction of every rank's `send`.
        all_reduce(send: &S, recv: &mut D, op: ReduceOp, stream: &Stream) where S: AsDeviceSlice<T>, D: AsDeviceSliceMut<T>
    );
    single!(
        /// All-reduce in place.
        all_reduce_in_place(buf: &mut D, op: ReduceOp, stream: &Stream) where D: AsDeviceSliceMut<T>
    );
    single!(
        /// Broadcast from `root` (`send` is read on the root only).
        broadcast(send: &S, recv: &mut D, root: usize, stream: &Stream) where S: AsDeviceSlice<T>, D: AsDeviceSliceMut<T>
    );
    single!(
        /// Broadcast in place from `root`.
        broadcast_in_place(buf: &mut D, root: usize, stream: &Stream) where D: AsDeviceSliceMut<T>
    );
    single!(
        /// Reduce to `root` (other ranks' `recv` is not written).
        reduce(send: &S, recv: &mut D, op: ReduceOp, root: usize, stream: &Stream) where S: AsDeviceSlice<T>, D: AsDeviceSliceMut<T>
    );
    single!(
        /// Reduce in place to `root`.
        reduce_in_place(buf: &mut D, op: ReduceOp, root: usize, stream: &Stream) where D: AsDeviceSliceMut<T>
    );
    single!(
        /// All-gather: `recv` (`size()` times `send`'s length) gets every rank's `send` in rank order.
        all_gather(send: &S, recv: &mut D, stream: &Stream) where S: AsDeviceSlice<T>, D: AsDeviceSliceMut<T>
    );
    single!(
        /// All-gather in place: block `rank()` of `buf` is this rank's contribution.
        all_gather_in_place(buf: &mut D, stream: &Stream) where D: AsDeviceSliceMut<T>
    );
    single!(
        /// Reduce-scatter: `recv` becomes block `rank()` of the reduction of every rank's `send`.
        reduce_scatter(send: &S, recv: &mut D, op: ReduceOp, stream: &Stream) where S: AsDeviceSlice<T>, D: AsDeviceSliceMut<T>
    );
    single!(
        /// Reduce-scatter in place: block `rank()` of `buf` becomes its block of the reduction.
        reduce_scatter_in_place(buf: &mut D, op: ReduceOp, stream: &Stream) where D: AsDeviceSliceMut<T>
    );
    single!(
        /// All-to-all: block `j` of `send` goes to rank `j`; block `j` of `recv` comes from it.
        all_to_all(send: &S, recv: &mut D, stream: &Stream) where S: AsDeviceSlice<T>, D: AsDeviceSliceMut<T>
    );
    single!(
        /// Sends `buf` to `peer` (alone: a send to another rank needs that rank's matching recv;
        /// pair sends and receives that depend on each other in one [`group`]).
        send(buf: &S, peer: usize, stream: &Stream) where S: AsDeviceSlice<T>
    );
    single!(
        /// Receives into `buf` from `peer`.
        recv(buf: &mut D, peer: usize, stream: &Stream) where D: AsDeviceSliceMut<T>
    );
}

#[allow(dead_code)]
fn _assert_send_sync() {
    fn f<T: Send + Sync>() {}
    f::<Communicator>();
    let _ = Duration::ZERO;
}
