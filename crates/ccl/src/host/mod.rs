//! The host engine: operations run by native code in stream order. On a CPU device the rank's
//! stream runs a native kernel (a `CpuModule` loaded per communicator) that executes the
//! launch's operations over the links, reading and writing the buffers in place (a CPU device's
//! memory is host memory). On a GPU whose peers are in other processes the operations are staged:
//! the call copies the inputs to host memory (waiting for the stream), runs the same code, and
//! copies the results back, so it returns only once the data has moved.
//!
//! Launches run in the order the program made them, whatever streams they were queued on (a
//! launch waits for its turn); a failure fails the communicator on every rank.

pub(crate) mod algo;
pub(crate) mod reduce;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use ferrocm_runtime::{
    BackendKind, CpuKernel, CpuModule, Function, KernelArgs, LaunchConfig, LaunchDims, ModuleImage, Stream,
};

use crate::bootstrap::TimeoutReport;
use crate::comm::Core;
use crate::op::Op;
use crate::state::{lock, Waiter};
use crate::transport::{Link, Transport};
use crate::{CclError, Result};
use algo::{Exec, ExecError};

pub(crate) struct HostShared {
    pub core: Arc<Core>,
    links: Mutex<Vec<Option<Link>>>,
    /// The transports, kept for their proxies and listeners.
    _transports: Mutex<Vec<Box<dyn Transport>>>,
    pending: Mutex<HashMap<u64, Vec<Op>>>,
    skipped: Mutex<HashSet<u64>>,
    next: AtomicU64,
    turn: AtomicU64,
}

pub(crate) struct HostEngine {
    pub shared: Arc<HostShared>,
    function: Option<Function>,
}

struct HostKernel(Weak<HostShared>);

impl CpuKernel for HostKernel {
    /// # Safety
    /// The argument bytes carry a launch id (and buffer addresses pushed only so the runtime
    /// tracks their use); the operations the id names own their buffers' validity.
    unsafe fn launch(&self, _dims: LaunchDims, args: &[&[u8]]) -> std::result::Result<(), String> {
        let id = args
            .first()
            .and_then(|a| <[u8; 8]>::try_from(*a).ok())
            .map(u64::from_ne_bytes)
            .ok_or("the collective launch carries no launch id")?;
        let shared = self.0.upgrade().ok_or("the communicator was destroyed before its operation ran")?;
        shared.execute(id).map_err(|e| e.to_string())
    }
}

struct HostModule(Arc<HostKernel>);

impl CpuModule for HostModule {
    fn function(&self, name: &str) -> Option<Arc<dyn CpuKernel>> {
        (name == "ferrocm_ccl").then(|| self.0.clone() as Arc<dyn CpuKernel>)
    }
}

impl HostEngine {
    pub fn new(
        core: Arc<Core>,
        links: Vec<Option<Link>>,
        transports: Vec<Box<dyn Transport>>,
    ) -> Result<HostEngine> {
        let shared = Arc::new(HostShared {
            core: core.clone(),
            links: Mutex::new(links),
            _transports: Mutex::new(transports),
            pending: Mutex::default(),
            skipped: Mutex::default(),
            next: AtomicU64::new(0),
            turn: AtomicU64::new(0),
        });
        let function = if core.device.kind() == BackendKind::Cpu {
            let module = HostModule(Arc::new(HostKernel(Arc::downgrade(&shared))));
            let m = core.device.load_module(ModuleImage::Cpu(Arc::new(module)))?;
            Some(m.function("ferrocm_ccl")?)
        } else {
            None
        };
        Ok(HostEngine { shared, function })
    }

    /// Queues `ops` on `stream` as one launch (CPU devices), keeping `push` buffers alive.
    pub fn launch_on_stream(
        &self,
        stream: &Stream,
        ops: Vec<Op>,
        push: impl FnOnce(&mut KernelArgs),
    ) -> Result<()> {
        let f = self
            .function
            .as_ref()
            .ok_or_else(|| CclError::Unsupported { what: "stream launch on a GPU".into() })?;
        let id = self.shared.next.fetch_add(1, Ordering::AcqRel);
        lock(&self.shared.pending).insert(id, ops);
        let mut args = KernelArgs::new();
        args.push(id);
        push(&mut args);
        // SAFETY: the native kernel takes the launch id, then ignores the buffer addresses
        // (pushed so the runtime tracks their use by this stream); it reads and writes only the
        // buffers of the operations, which stay alive until the stream passes the launch.
        let r = unsafe { stream.launch(f, LaunchConfig::new(1, 1), &args) };
        if let Err(e) = r {
            lock(&self.shared.pending).remove(&id);
            lock(&self.shared.skipped).insert(id);
            return Err(e.into());
        }
        Ok(())
    }

    /// Runs `ops` now, on the calling thread (staged GPU operations).
    pub fn run_now(&self, ops: Vec<Op>) -> Result<()> {
        let id = self.shared.next.fetch_add(1, Ordering::AcqRel);
        lock(&self.shared.pending).insert(id, ops);
        self.shared.execute(id)
    }

    /// Waits (at most the timeout) for every launch made so far to have run.
    pub fn drain(&self) {
        let s = &self.shared;
        let end = s.next.load(Ordering::Acquire);
        let w = Waiter::new(&s.core.health, &s.core.state, s.core.config.timeout);
        let _ = w.wait_for(None, || {
            (s.turn.load(Ordering::Acquire) >= end || s.core.health.is_failed()).then_some(())
        });
    }
}

impl HostShared {
    fn wait_turn(&self, id: u64, w: &Waiter) -> Result<(), ExecError> {
        loop {
            let t = self.turn.load(Ordering::Acquire);
            if t == id {
                return Ok(());
            }
            if lock(&self.skipped).remove(&t) {
                self.turn.fetch_add(1, Ordering::AcqRel);
                continue;
            }
            w.wait_for(None, || (self.turn.load(Ordering::Acquire) != t).then_some(()))?;
        }
    }

    fn execute(&self, id: u64) -> Result<()> {
        let core = &self.core;
        let w = Waiter::new(&core.health, &core.state, core.config.timeout);
        let r = self.wait_turn(id, &w);
        let ops = lock(&self.pending).remove(&id).unwrap_or_default();
        let result = match r {
            Ok(()) => self.run_ops(&ops, &w),
            Err(e) => Err(Box::new((e, ops.first().cloned()))),
        };
        self.turn.fetch_add(1, Ordering::AcqRel);
        result.map_err(|b| {
            let (e, op) = *b;
            self.fail(e, op.as_ref(), &w)
        })
    }

    /// Runs a launch's operations; on failure, says which operation failed and how.
    fn run_ops(&self, ops: &[Op], w: &Waiter) -> std::result::Result<(), Box<(ExecError, Option<Op>)>> {
        let core = &self.core;
        if let Err(e) = core.health.check() {
            return Err(Box::new((ExecError::Failed(e), ops.first().cloned())));
        }
        let mut links = lock(&self.links);
        let mut exec = Exec { rank: core.rank, nranks: core.nranks, links: &mut links, w };
        for op in ops.iter().filter(|o| !o.kind.is_p2p()) {
            core.state.started.fetch_max(op.seq, Ordering::AcqRel);
            let t = std::time::Instant::now();
            exec.run(op).map_err(|e| Box::new((e, Some(op.clone()))))?;
            core.state.completed.fetch_max(op.seq, Ordering::AcqRel);
            core.log
                .trace(|| format!("{}: done in {:.1} us", op.describe(), t.elapsed().as_secs_f64() * 1e6));
        }
        let p2p: Vec<Op> = ops.iter().filter(|o| o.kind.is_p2p()).cloned().collect();
        if !p2p.is_empty() {
            exec.p2p(&p2p).map_err(|e| Box::new((e, p2p.first().cloned())))?;
        }
        Ok(())
    }

    /// Turns a failed operation into the communicator's failure, telling every rank.
    fn fail(&self, e: ExecError, op: Option<&Op>, w: &Waiter) -> CclError {
        let core = &self.core;
        let describe = || op.map(Op::describe).unwrap_or_else(|| "an operation".into());
        match e {
            ExecError::TimedOut => {
                let waiting_on = core.state.waiting_on.load(Ordering::Relaxed).checked_sub(1);
                let seq = op.filter(|o| !o.kind.is_p2p()).map_or(0, |o| o.seq);
                let waiting_on = match op {
                    Some(o) if o.kind.is_p2p() => waiting_on.or(Some(o.root)),
                    _ => waiting_on,
                };
                core.bootstrap.report_timeout(TimeoutReport {
                    seq,
                    operation: describe(),
                    waited: w.start.elapsed(),
                    rank: core.rank,
                    waiting_on,
                })
            }
            ExecError::Failed(e) => {
                if let Some(f) = core.health.failure() {
                    return match f {
                        CclError::RankDied { ranks, operation: None, detail } => {
                            CclError::RankDied { ranks, operation: Some(describe()), detail }
                        }
                        f => f,
                    };
                }
                let e = match e {
                    CclError::Mismatch { operation, rank, peer, detail } if operation.is_empty() => {
                        CclError::Mismatch { operation: describe(), rank, peer, detail }
                    }
                    e => e,
                };
                core.bootstrap.abort(&e);
                e
            }
        }
    }
}
