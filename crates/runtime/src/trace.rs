//! The one instrumentation point: every runtime API call, allocation, copy, memset and kernel
//! launch passes through this module, which hands a [`Record`] to the [`Tracer`] installed at
//! start-up (a profiler, or the built-in one that `ferrocm prof` turns on through
//! `FERROCM_PROF`, see [`ferrocm_prof::session`]).
//!
//! **Cost.** With no tracer installed each hook is one `OnceLock::get` (an acquire load) and a
//! branch. With one installed, an API call costs two clock reads and a record. A traced
//! kernel-language kernel costs no driver call of its own: it runs its *timed variant*
//! ([`ferrocm_ir::timed`](mod@ferrocm_ir::timed)), which times itself into a slot of a pooled device buffer (see
//! "Timed kernels"), and so does a kernel of a PTX module loaded while kernels are traced (its
//! timed copy, [`ferrocm_ir::timed_ptx`], added to the module at load). A traced copy, memset or
//! other raw-module kernel (a CPU module, or a PTX kernel the rewriter refused) costs one timing
//! event recorded
//! after it on its stream, plus one before it when the stream is idle (see below), taken from a
//! per-device pool that a collector thread refills as the events complete.
//!
//! **Timed kernels.** While kernels are traced, the kernel language launches each kernel's
//! timed variant through [`Stream::launch_timed`], and [`Stream::launch`] the timed copy of a PTX
//! module's kernel (see [`crate::Device::load_module`]): the same code with one more slice parameter,
//! a 256-byte slot of a per-device ring of 8192 (device memory, zeroed), in which the first
//! thread of each block folds `%globaltimer` read at entry and at exit with 64-bit atomic
//! maxima, spread over 16 lanes by `%smid`. Taking a slot is a compare-and-swap of a counter.
//! The launches queued one after another on a stream form a batch that one event ends,
//! recorded before the 257th launch, before event-timed work on the stream (whose start it
//! then is), when the stream is destroyed, or by the collector once the batch is a millisecond
//! old. Once that event has completed, the collector copies the slots of the completed
//! launches to the host in one copy per device and pass, zeroes them and hands them back. Device timer nanoseconds are mapped onto the
//! host clock by an offset measured by the first timed launch and then by the collector, at
//! most once a second while kernels are traced (a launch reads it without a clock read), with
//! the built-in `clock` kernel launched on the device's private stream between two host clock
//! reads (the read is placed at the middle of a short round trip and 5 us before the end of a
//! long one, whose length is the kernel waiting in a shared hardware queue). A launch finds no
//! timed variant (it could not be built or loaded), no free slot, or a capturing stream: it
//! runs the kernel itself, timed by events. The end recorded is when the first thread of the
//! last block left (`ferrocm_ir::timed`); on NVIDIA `%globaltimer` advances about every
//! microsecond, so durations of the shortest kernels are that coarse.
//!
//! **Exit.** The built-in tracer writes its files from an `atexit` handler, so they are written
//! when `main` returns (with or without an error), on `std::process::exit`, and after a panic
//! in `main` has unwound. It waits up to ten seconds for queued device work to finish; records
//! of work that does not finish by then are counted as dropped. `abort`, a fatal signal
//! (SIGKILL, SIGSEGV, an unhandled SIGINT or SIGTERM) or `_exit` run no handler and write
//! nothing.
//!
//! **Declared work.** Libraries declare what a launch does with [`annotate_next_launch`] just
//! before it: `trace::annotate_next_launch(Work::new(2 * m * n * k, bytes).on_matrix_units())`.
//! It is taken by the next `Stream::launch` on the same thread (whether or not that launch is
//! valid) and costs one load when nothing is traced.

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock, Weak};
use std::time::Duration;

use ferrocm_backend::{
    CopyOp, DevicePtr, EventFlags, EventHandle, FunctionHandle, LaunchDims, ModuleHandle, StreamFlags,
    StreamHandle,
};
use ferrocm_ir::timed::{read_timing_slot, TIMING_SLOT_WORDS};
pub use ferrocm_prof::record::{
    Agent, AgentKind, AllocOp, Allocation, ApiCall, CopyDirection, DeviceActivity, DeviceOp, Kernel,
    MathUnit, MemoryKind, Record, TimedBy, Trace, Work, MEMSET_KERNEL_NAME,
};

use crate::device::Device;
use crate::stream::Stream;
use crate::{lock, Result};

/// Receives the records of a traced process. Called from the thread that made an API call
/// (API and allocation records) and from the collector thread (device activities, once their
/// events have completed). Must not call the runtime.
pub trait Tracer: Send + Sync + 'static {
    /// One finished record.
    fn record(&self, record: Record);
    /// Called by [`flush`] after every queued device activity has been delivered.
    fn flush(&self) {}
}

/// What to record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceConfig {
    pub api: bool,
    pub kernels: bool,
    pub copies: bool,
    pub allocations: bool,
}

impl TraceConfig {
    /// Everything.
    pub fn all() -> TraceConfig {
        TraceConfig { api: true, kernels: true, copies: true, allocations: true }
    }
}

/// A tracer was already installed (a process has one, for its whole life).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a tracer is already installed; a process has one tracer, installed once at start-up")]
pub struct AlreadyInstalled;

struct State {
    tracer: Box<dyn Tracer>,
    config: TraceConfig,
    correlation: AtomicU64,
    dispatch: AtomicU64,
    streams: AtomicU64,
    pending: Mutex<VecDeque<Pending>>,
    wake: Condvar,
}

static STATE: OnceLock<State> = OnceLock::new();

/// Installs `tracer` for the rest of the process. Install it before the first runtime call
/// whose records it needs.
pub fn install(tracer: Box<dyn Tracer>, config: TraceConfig) -> std::result::Result<(), AlreadyInstalled> {
    let mut fresh = false;
    STATE.get_or_init(|| {
        fresh = true;
        State {
            tracer,
            config,
            correlation: AtomicU64::new(0),
            dispatch: AtomicU64::new(0),
            streams: AtomicU64::new(0),
            pending: Mutex::new(VecDeque::new()),
            wake: Condvar::new(),
        }
    });
    if !fresh {
        return Err(AlreadyInstalled);
    }
    if config.kernels || config.copies {
        // Without the collector, events are still resolved by `flush`; the pool just grows.
        let _ = std::thread::Builder::new().name("ferrocm-trace".into()).spawn(collector);
    }
    Ok(())
}

/// Whether a tracer is installed.
pub fn enabled() -> bool {
    STATE.get().is_some()
}

/// Whether kernel launches are traced. The kernel language then launches the timed variant of
/// its kernels ([`Stream::launch_timed`]), which time themselves instead of being timed by
/// events.
#[inline]
pub fn kernels_traced() -> bool {
    STATE.get().is_some_and(|st| st.config.kernels)
}

/// Waits for every queued device activity to complete and delivers it, then calls the
/// tracer's [`Tracer::flush`]. Waits at most `timeout` for device work; what is still running
/// then is dropped (and counted in the built-in tracer's `dropped`).
pub fn flush(timeout: Duration) {
    let Some(st) = STATE.get() else { return };
    let deadline = std::time::Instant::now() + timeout;
    loop {
        if drain(st) {
            break;
        }
        if std::time::Instant::now() >= deadline {
            let n = std::mem::take(&mut *lock(&st.pending)).len() as u64;
            DROPPED.fetch_add(n, Ordering::Relaxed);
            break;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    st.tracer.flush();
}

/// Device activities whose times could not be read.
static DROPPED: AtomicU64 = AtomicU64::new(0);
/// Device activities delivered, timed by their own timing slot and by events.
static SLOT_TIMED: AtomicU64 = AtomicU64::new(0);
static EVENT_TIMED: AtomicU64 = AtomicU64::new(0);

/// How the device activities delivered so far were timed (for tests and summaries).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceCounts {
    /// Kernels that timed themselves (a kernel-language kernel's timed variant, or a PTX
    /// kernel's timed copy).
    pub slot_timed: u64,
    /// Work timed by events: copies, memsets, kernels without a timed variant or copy, and
    /// kernels without a free slot.
    pub event_timed: u64,
    /// Activities whose times could not be read (not delivered).
    pub dropped: u64,
}

/// The counts so far.
pub fn counts() -> TraceCounts {
    TraceCounts {
        slot_timed: SLOT_TIMED.load(Ordering::Relaxed),
        event_timed: EVENT_TIMED.load(Ordering::Relaxed),
        dropped: DROPPED.load(Ordering::Relaxed),
    }
}

/// Declares the work of the next kernel launch on this thread (for the roofline).
pub fn annotate_next_launch(work: Work) {
    if STATE.get().is_some() {
        NEXT_WORK.set(Some(work));
    }
}

thread_local! {
    static NEXT_WORK: Cell<Option<Work>> = const { Cell::new(None) };
    /// (depth of traced API calls on this thread, correlation id of the outermost).
    static CURRENT: Cell<(u32, u64)> = const { Cell::new((0, 0)) };
    static TID: Cell<u64> = const { Cell::new(0) };
}

/// Host time in nanoseconds of `CLOCK_MONOTONIC` (rocprofv3's clock; `Instant`'s on Linux).
pub fn now_ns() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid out-pointer; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// The calling thread's operating-system id.
pub fn thread_id() -> u64 {
    let t = TID.get();
    if t != 0 {
        return t;
    }
    // SAFETY: gettid takes no arguments and cannot fail.
    let t = unsafe { libc::syscall(libc::SYS_gettid) } as u64;
    TID.set(t);
    t
}

fn agent_of(device: &Device) -> u32 {
    device.index() as u32 + 1
}

/// A traced API call in progress: created first thing in the call, recorded when dropped.
#[must_use]
pub(crate) struct ApiGuard(Option<(&'static str, u64, u64)>);

/// Starts tracing the API call `name` (nothing when no tracer is installed).
#[inline]
pub(crate) fn api(name: &'static str) -> ApiGuard {
    match STATE.get() {
        None => ApiGuard(None),
        Some(st) => api_slow(st, name),
    }
}

/// [`api`] for `Stream::launch`, which also takes the work declared for it.
#[inline]
pub(crate) fn api_launch() -> (ApiGuard, Option<Work>) {
    match STATE.get() {
        None => (ApiGuard(None), None),
        Some(st) => (api_slow(st, "Stream::launch"), NEXT_WORK.take()),
    }
}

#[cold]
fn api_slow(st: &State, name: &'static str) -> ApiGuard {
    let (depth, corr) = CURRENT.get();
    if depth > 0 {
        CURRENT.set((depth + 1, corr));
        return ApiGuard(Some((name, corr, 0)));
    }
    let corr = st.correlation.fetch_add(1, Ordering::Relaxed) + 1;
    CURRENT.set((1, corr));
    // The call's times are read only when API calls are recorded.
    ApiGuard(Some((name, corr, if st.config.api { now_ns() } else { 0 })))
}

impl Drop for ApiGuard {
    fn drop(&mut self) {
        let Some((name, correlation, start_ns)) = self.0 else { return };
        let (depth, corr) = CURRENT.get();
        CURRENT.set((depth - 1, corr));
        if depth > 1 {
            return;
        }
        if let Some(st) = STATE.get().filter(|st| st.config.api) {
            st.tracer.record(Record::Api(ApiCall {
                name,
                thread: thread_id(),
                correlation,
                start_ns,
                end_ns: now_ns(),
            }));
        }
    }
}

/// Records an allocation or a free (host-side, an instant).
#[inline]
pub(crate) fn allocation(op: AllocOp, kind: MemoryKind, device: &Device, bytes: u64, address: u64) {
    if let Some(st) = STATE.get().filter(|st| st.config.allocations) {
        let t = now_ns();
        st.tracer.record(Record::Allocation(Allocation {
            op,
            kind,
            agent: agent_of(device),
            bytes,
            address,
            thread: thread_id(),
            correlation: CURRENT.get().1,
            start_ns: t,
            end_ns: t,
        }));
    }
}

/// Per-device tracing state, made on first use (lives in the device).
#[derive(Default)]
pub(crate) struct DeviceTrace {
    /// Timing events ready for reuse.
    pool: Mutex<Vec<EventHandle>>,
    clock: Mutex<Clock>,
    /// Host time of the last anchor (0: none yet).
    last_anchor_ns: AtomicU64,
    /// Timing slots of timed kernels (`None`: they could not be set up; kernels use events).
    timing: OnceLock<Option<DeviceTiming>>,
}

#[derive(Default)]
struct Clock {
    stream: Option<StreamHandle>,
    /// The latest anchor and its time on the host clock.
    anchor: Option<(Arc<Stamp>, u64)>,
}

/// Per-stream tracing state (lives in the stream).
#[derive(Default)]
pub(crate) struct StreamTrace {
    /// The stream's number in the trace (0: not yet used while tracing).
    number: AtomicU64,
    chain: Arc<Mutex<Chain>>,
}

/// What traced work on a stream left behind. Locked across the queuing of traced work, so
/// work queued on the stream by other threads cannot come between its stamps.
#[derive(Default)]
struct Chain {
    /// The event after the last traced work, while nothing else was queued behind it.
    last_end: Option<Arc<Stamp>>,
    /// The batch of timed kernels queued since the last event on the stream.
    batch: Option<Arc<Batch>>,
    /// Launches in `batch`.
    launches: u32,
    /// The stream, for closing a batch from the collector (`None` once it is destroyed).
    stream: Option<(Device, StreamHandle)>,
    /// The records of `batch`'s launches after its first, handed to the collector's queue
    /// together when the batch closes (one queue lock per batch, not per launch: the queue's
    /// lock was one of the costs every traced launch paid). The first launch's record goes to
    /// the queue at once, so the collector sees the batch and can close it when it is old.
    held: Vec<Pending>,
}

impl Drop for Chain {
    fn drop(&mut self) {
        // A stream's open batch is closed before the stream goes; records still held then have
        // no end event: the collector counts them dropped instead of losing them silently.
        hand_over(&mut self.held);
    }
}

impl StreamTrace {
    /// For a stream about to be destroyed: what closes its open batch of timed kernels (to be
    /// called before the stream is destroyed, and not inside a host callback). `None` when
    /// nothing is traced.
    pub(crate) fn closer(&self) -> Option<impl FnOnce() + Send + 'static> {
        STATE.get()?;
        let chain = self.chain.clone();
        Some(move || {
            let mut chain = lock(&chain);
            close_batch(&mut chain);
            chain.stream = None;
        })
    }
}

/// Timed kernels queued one after another on a stream: their times are in their slots, and one
/// event recorded after the last tells when all of them have completed.
struct Batch {
    opened_ns: u64,
    /// The event after the batch (`None` inside: it could not be recorded).
    end: OnceLock<Option<Arc<Stamp>>>,
    /// Set once `end` has completed.
    done: std::sync::atomic::AtomicBool,
    chain: Weak<Mutex<Chain>>,
    /// The device whose timing slots the batch's kernels write (kept here once, not per launch).
    device: Device,
}

impl Batch {
    /// Whether every kernel of the batch has completed (`Some(false)`: its end event was lost).
    fn complete(&self) -> Option<bool> {
        if self.done.load(Ordering::Relaxed) {
            return Some(true);
        }
        let end = self.end.get()?;
        let done = end.as_ref().is_none_or(|e| e.complete());
        if !done {
            return None;
        }
        self.done.store(true, Ordering::Relaxed);
        Some(end.is_some())
    }
}

/// A batch is closed after this many launches, or by the collector once it is this old (a
/// launch reads no clock: that was a quarter of the launching thread's tracing cost).
const BATCH_LAUNCHES: u32 = 256;
const BATCH_NS: u64 = 1_000_000;

/// Records the event that ends `chain`'s open batch of timed kernels; returns it (read against
/// an anchor, so it can also start the next event-timed work).
fn close_batch(chain: &mut Chain) -> Option<Arc<Stamp>> {
    let batch = chain.batch.take()?;
    chain.launches = 0;
    let end = chain.stream.as_ref().and_then(|(device, handle)| {
        let dt = device.inner.trace.get()?;
        let a = anchor(device, dt)?;
        stamp(device, dt, *handle, Some(a))
    });
    let _ = batch.end.set(end.clone());
    hand_over(&mut chain.held);
    end
}

/// Moves a closed batch's held records to the collector's queue, after everything queued
/// before them (a stream's records stay in order: its next work closes the batch first).
fn hand_over(held: &mut Vec<Pending>) {
    if held.is_empty() {
        return;
    }
    let Some(st) = STATE.get() else {
        held.clear();
        return;
    };
    let mut q = lock(&st.pending);
    q.extend(held.drain(..));
    if q.len() >= 4096 {
        st.wake.notify_one();
    }
}

/// Slots in a device's ring of timing slots.
const RING_SLOTS: u64 = 8192;
const SLOT_BYTES: u64 = TIMING_SLOT_WORDS as u64 * 8;

/// A device's timing slots (device memory, zeroed), its clock kernel and the offset from the
/// device timer to the host clock.
struct DeviceTiming {
    /// `RING_SLOTS` slots, then 8 bytes the clock kernel writes.
    base: DevicePtr,
    /// Sequence number of the next slot to hand out (a slot is `seq % RING_SLOTS`): launching
    /// threads take slots without a lock.
    next: AtomicU64,
    /// Slots before this one are free (read and zeroed); stored by `release`.
    released: AtomicU64,
    /// Whether each slot's launch has been read (or was never queued).
    done: Mutex<Vec<bool>>,
    _module: ModuleHandle,
    clock: FunctionHandle,
    /// Host clock minus device timer, read without a lock by every timed launch.
    offset: AtomicI64,
    /// The host time `offset` was measured at (0: not yet); stored after `offset`.
    offset_at: AtomicU64,
    /// Held while the offset is measured again, so one thread measures it.
    offset_refresh: Mutex<()>,
}

impl DeviceTiming {
    fn new(device: &Device, dt: &DeviceTrace) -> Option<DeviceTiming> {
        let backend = &device.inner.backend;
        let bytes = RING_SLOTS * SLOT_BYTES + 64;
        let base = backend.alloc(device.ordinal(), bytes).ok()?;
        let ready = (|| {
            let module = backend.module_load(device.ordinal(), &crate::builtin::image(device.kind())).ok()?;
            // SAFETY: a module just loaded (unloaded below only if this fails).
            let clock = unsafe { backend.module_function(module, "clock") }.ok();
            let zeroed = clock.and_then(|_| clock_stream(device, &mut lock(&dt.clock))).and_then(|stream| {
                // SAFETY: `base` holds `bytes` bytes; the stream is the device's private one.
                unsafe { backend.memset_async(stream, base, 0, bytes) }.ok()?;
                // SAFETY: a live stream.
                unsafe { backend.stream_synchronize(stream) }.ok()
            });
            match (clock, zeroed) {
                (Some(clock), Some(())) => Some((module, clock)),
                _ => {
                    // SAFETY: loaded above; nothing from it is in use.
                    let _ = unsafe { backend.module_unload(module) };
                    None
                }
            }
        })();
        match ready {
            Some((module, clock)) => Some({
                // Device memory for the pointer table too: timed copies of PTX kernels address
                // their slots by pointer, which the CPU executor checks against the table.
                crate::pointer::register(base.0, bytes, device.index(), crate::pointer::MemoryKind::Device);
                DeviceTiming {
                    base,
                    next: AtomicU64::new(0),
                    released: AtomicU64::new(0),
                    done: Mutex::new(vec![false; RING_SLOTS as usize]),
                    _module: module,
                    clock,
                    offset: AtomicI64::new(0),
                    offset_at: AtomicU64::new(0),
                    offset_refresh: Mutex::new(()),
                }
            }),
            None => {
                // SAFETY: allocated above and not used.
                let _ = unsafe { backend.free(device.ordinal(), base) };
                None
            }
        }
    }

    fn slot_address(&self, seq: u64) -> DevicePtr {
        DevicePtr(self.base.0 + (seq % RING_SLOTS) * SLOT_BYTES)
    }

    /// A free slot (`None` when all are in use): a compare-and-swap, no lock (a lock here was
    /// one of the costs every traced launch paid).
    fn take(&self) -> Option<u64> {
        let mut seq = self.next.load(Ordering::Relaxed);
        loop {
            // `released` only grows, so a stale read can only refuse a slot, never hand out one
            // still in use.
            if seq - self.released.load(Ordering::Acquire) >= RING_SLOTS {
                return None;
            }
            match self.next.compare_exchange_weak(seq, seq + 1, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(seq),
                Err(now) => seq = now,
            }
        }
    }

    /// Marks slot `seq` read (or unused).
    fn done(&self, seq: u64) {
        self.done_all(&[seq]);
    }

    /// Marks slots `seqs` read, under one lock (the launching threads take slots under it).
    fn done_all(&self, seqs: &[u64]) {
        let mut done = lock(&self.done);
        for seq in seqs {
            done[(seq % RING_SLOTS) as usize] = true;
        }
    }

    /// Zeroes the slots read since the last call and hands them back.
    fn release(&self, device: &Device, dt: &DeviceTrace) {
        // One releaser at a time: the collector or `flush`, both under the drainers' lock.
        let (from, to) = {
            let mut done = lock(&self.done);
            let from = self.released.load(Ordering::Relaxed);
            let next = self.next.load(Ordering::Relaxed);
            let mut to = from;
            while to < next && done[(to % RING_SLOTS) as usize] {
                done[(to % RING_SLOTS) as usize] = false;
                to += 1;
            }
            (from, to)
        };
        if from == to {
            return;
        }
        let backend = &device.inner.backend;
        let zeroed = (|| {
            let stream = clock_stream(device, &mut lock(&dt.clock))?;
            for (first, n) in ring_pieces(from, to) {
                // SAFETY: slots inside the ring; none is in use by a launch (all were read).
                unsafe { backend.memset_async(stream, self.slot_address(first), 0, n * SLOT_BYTES) }.ok()?;
            }
            // SAFETY: a live stream.
            unsafe { backend.stream_synchronize(stream) }.ok()
        })();
        // Slots that could not be zeroed are never handed out again.
        if zeroed.is_some() {
            self.released.store(to, Ordering::Release);
        }
    }

    /// The offset a timed launch uses: the last measured (the collector measures it again
    /// when a second old, see [`drain`]), or measured now the first time.
    fn current_offset(&self, device: &Device, dt: &DeviceTrace) -> Option<i64> {
        if self.offset_at.load(Ordering::Acquire) != 0 {
            return Some(self.offset.load(Ordering::Relaxed));
        }
        self.offset(device, dt, now_ns())
    }

    /// Host clock minus device timer, measured again when a second old (`now` is the host
    /// clock).
    fn offset(&self, device: &Device, dt: &DeviceTrace, now: u64) -> Option<i64> {
        // `offset_at` is stored after `offset` (release), so a fresh time is read with the
        // offset measured then or a newer one.
        let fresh = || {
            let at = self.offset_at.load(Ordering::Acquire);
            (at != 0 && now < at + ANCHOR_EVERY_NS).then(|| self.offset.load(Ordering::Relaxed))
        };
        if let Some(o) = fresh() {
            return Some(o);
        }
        let _one = lock(&self.offset_refresh);
        if let Some(o) = fresh() {
            return Some(o);
        }
        let backend = &device.inner.backend;
        let mut clock = lock(&dt.clock);
        let stream = clock_stream(device, &mut clock)?;
        let out = DevicePtr(self.base.0 + RING_SLOTS * SLOT_BYTES);
        let before = now_ns();
        let arg = out.0.to_ne_bytes();
        // SAFETY: the clock kernel takes one address, of 8 writable bytes here.
        unsafe { backend.launch(self.clock, LaunchDims::new(1, 1, 0), stream, &[&arg]) }.ok()?;
        // SAFETY: a live stream.
        unsafe { backend.stream_synchronize(stream) }.ok()?;
        let after = now_ns();
        let mut timer = [0u8; 8];
        // SAFETY: 8 bytes from the device into `timer`, waited for before it is read.
        unsafe {
            backend.copy_async(stream, CopyOp::DeviceToHost { src: out, dst: timer.as_mut_ptr() }, 8).ok()?;
            backend.stream_synchronize(stream).ok()?;
        }
        // The kernel read the timer somewhere between the two host reads. Most of a long round
        // trip is the kernel waiting in a queue (behind other streams' work sharing its hardware
        // queue) before it runs, not the completion reaching the host, so the read is taken
        // at the middle of a short round trip and near the end of a long one.
        let host = after - ((after - before) / 2).min(OFFSET_TAIL_NS);
        let offset = host as i64 - u64::from_ne_bytes(timer) as i64;
        self.offset.store(offset, Ordering::Relaxed);
        self.offset_at.store(after, Ordering::Release);
        Some(offset)
    }

    /// Reads slots `from..=to` (sequence numbers) into host memory.
    fn read(&self, device: &Device, dt: &DeviceTrace, from: u64, to: u64) -> Option<Vec<u64>> {
        let mut words = vec![0u64; ((to + 1 - from) * TIMING_SLOT_WORDS as u64) as usize];
        let backend = &device.inner.backend;
        let stream = clock_stream(device, &mut lock(&dt.clock))?;
        let mut at = 0usize;
        let mut queued = true;
        for (first, n) in ring_pieces(from, to + 1) {
            let dst = words[at..].as_mut_ptr() as *mut u8;
            // SAFETY: `n` slots inside the ring into the rest of `words` (large enough), waited
            // for below before `words` is read or dropped.
            queued = unsafe {
                backend.copy_async(
                    stream,
                    CopyOp::DeviceToHost { src: self.slot_address(first), dst },
                    n * SLOT_BYTES,
                )
            }
            .is_ok();
            if !queued {
                break;
            }
            at += (n * TIMING_SLOT_WORDS as u64) as usize;
        }
        // Waited for even when a later copy could not be queued: the earlier ones write into
        // `words`, which must outlive them.
        // SAFETY: a live stream.
        let synced = unsafe { backend.stream_synchronize(stream) }.is_ok();
        (queued && synced).then_some(words)
    }
}

/// A device's trace state and its timing slots, once both are set up.
fn timing_of(device: &Device) -> Option<(&DeviceTrace, &DeviceTiming)> {
    let dt = device.inner.trace.get()?;
    Some((dt, dt.timing.get()?.as_ref()?))
}

/// The ring's contiguous pieces of sequence numbers `from..to`: (first, count).
fn ring_pieces(from: u64, to: u64) -> impl Iterator<Item = (u64, u64)> {
    let mut at = from;
    std::iter::from_fn(move || {
        if at >= to {
            return None;
        }
        let n = (to - at).min(RING_SLOTS - at % RING_SLOTS);
        let piece = (at, n);
        at += n;
        Some(piece)
    })
}

/// The device's private stream for anchors and timing reads (made on first use).
fn clock_stream(device: &Device, clock: &mut Clock) -> Option<StreamHandle> {
    if let Some(s) = clock.stream {
        return Some(s);
    }
    let s = device
        .inner
        .backend
        .stream_create(device.ordinal(), StreamFlags { non_blocking: true, priority: 0 })
        .ok()?;
    clock.stream = Some(s);
    Some(s)
}

/// One pooled timing event, recorded once; returns to its device's pool when dropped.
struct Stamp {
    device: Device,
    handle: EventHandle,
    /// The anchor it is read against (`None` for an anchor) and that anchor's host time.
    anchor: Option<(Arc<Stamp>, u64)>,
    time: OnceLock<Option<u64>>,
}

impl Drop for Stamp {
    fn drop(&mut self) {
        if let Some(t) = self.device.inner.trace.get() {
            lock(&t.pool).push(self.handle);
        }
    }
}

impl Stamp {
    /// The host-clock time of the event, once it has completed (`None` if it cannot be read).
    fn time(&self) -> Option<u64> {
        *self.time.get_or_init(|| {
            let (anchor, t0) = self.anchor.as_ref()?;
            // SAFETY: both events are live (pooled events are never destroyed) and recorded.
            let ms =
                unsafe { self.device.inner.backend.event_elapsed_ms(anchor.handle, self.handle) }.ok()?;
            Some(t0.saturating_add_signed((ms as f64 * 1e6).round() as i64))
        })
    }

    fn complete(&self) -> bool {
        // SAFETY: a live pooled event.
        unsafe { self.device.inner.backend.event_query(self.handle) }.unwrap_or(true)
    }
}

/// Takes a pooled event of `device` (creating one when the pool is empty).
fn pooled_event(device: &Device, dt: &DeviceTrace) -> Option<EventHandle> {
    if let Some(h) = lock(&dt.pool).pop() {
        return Some(h);
    }
    device
        .inner
        .backend
        .event_create(device.ordinal(), EventFlags { timing: true, blocking_sync: false })
        .ok()
}

/// Records a stamp at the current end of `stream` (`None` when the backend refuses).
fn stamp(
    device: &Device,
    dt: &DeviceTrace,
    stream: StreamHandle,
    anchor: Option<(Arc<Stamp>, u64)>,
) -> Option<Arc<Stamp>> {
    let handle = pooled_event(device, dt)?;
    // SAFETY: a live event of this device and a live stream of this device.
    if unsafe { device.inner.backend.event_record(handle, stream) }.is_err() {
        lock(&dt.pool).push(handle);
        return None;
    }
    Some(Arc::new(Stamp { device: device.clone(), handle, anchor, time: OnceLock::new() }))
}

const ANCHOR_EVERY_NS: u64 = 1_000_000_000;
/// How long after the clock kernel's timer read the host sees the kernel complete, at most
/// (a stream synchronisation's wake-up).
const OFFSET_TAIL_NS: u64 = 5_000;

/// The anchor new stamps of `device` are read against, renewed when a second old.
fn anchor(device: &Device, dt: &DeviceTrace) -> Option<(Arc<Stamp>, u64)> {
    let now = now_ns();
    let mut clock = lock(&dt.clock);
    if let Some(a) =
        clock.anchor.as_ref().filter(|_| now < dt.last_anchor_ns.load(Ordering::Relaxed) + ANCHOR_EVERY_NS)
    {
        return Some(a.clone());
    }
    let backend = &device.inner.backend;
    let stream = clock_stream(device, &mut clock)?;
    let before = now_ns();
    let s = stamp(device, dt, stream, None)?;
    // SAFETY: a live event, just recorded.
    unsafe { backend.event_synchronize(s.handle) }.ok()?;
    let after = now_ns();
    let t = match &clock.anchor {
        // Chained by the device's own clock, so consecutive anchors never disagree.
        Some((prev, t0)) => {
            // SAFETY: both events are live and complete.
            let ms = unsafe { backend.event_elapsed_ms(prev.handle, s.handle) }.ok()?;
            t0 + (ms as f64 * 1e6).round().max(0.0) as u64
        }
        None => before + (after - before) / 2,
    };
    let _ = s.time.set(Some(t));
    clock.anchor = Some((s, t));
    dt.last_anchor_ns.store(after, Ordering::Relaxed);
    clock.anchor.clone()
}

/// A device activity whose times are not known yet.
struct Pending {
    activity: DeviceActivity,
    timing: Timing,
}

enum Timing {
    /// Between two events.
    Events { start: Arc<Stamp>, end: Arc<Stamp> },
    /// A timed kernel: its slot, the device-timer offset at its launch, and its batch (which
    /// names the device).
    Slot { seq: u64, offset: i64, batch: Arc<Batch> },
}

impl Pending {
    /// Whether the work has completed (or its times are lost); a batch left open too long is
    /// closed here.
    fn ready(&self) -> bool {
        match &self.timing {
            Timing::Events { end, .. } => end.complete(),
            Timing::Slot { batch, .. } => {
                if batch.end.get().is_none() && now_ns() > batch.opened_ns + BATCH_NS {
                    if let Some(chain) = batch.chain.upgrade() {
                        let mut c = lock(&chain);
                        if c.batch.as_ref().is_some_and(|b| Arc::ptr_eq(b, batch)) {
                            close_batch(&mut c);
                        }
                    }
                    // A batch is closed before its stream goes; one that was not has no end.
                    let _ = batch.end.set(None);
                }
                batch.complete().is_some()
            }
        }
    }
}

fn stream_number(st: &State, stream: &Stream) -> u64 {
    let t = stream.trace_state();
    match t.number.load(Ordering::Relaxed) {
        0 => {
            let n = st.streams.fetch_add(1, Ordering::Relaxed) + 1;
            match t.number.compare_exchange(0, n, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => n,
                Err(other) => other,
            }
        }
        n => n,
    }
}

/// Which kind of device work is queued (each is traced when its kind is asked for).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Kernels and memsets.
    Kernel,
    Copy,
}

/// Queues device work through `queue`, with timing events around it when its kind is traced;
/// `describe` is called only then. Tracing never changes what is queued or the result: when an
/// event cannot be recorded, the work is queued untraced and counted as dropped.
#[inline]
pub(crate) fn device_work(
    stream: &Stream,
    kind: Kind,
    describe: impl FnOnce() -> (DeviceOp, Option<Work>),
    queue: impl FnOnce() -> Result<()>,
) -> Result<()> {
    match STATE.get() {
        None => queue(),
        Some(st) => device_work_slow(st, stream, kind, describe, queue),
    }
}

#[cold]
fn device_work_slow(
    st: &State,
    stream: &Stream,
    kind: Kind,
    describe: impl FnOnce() -> (DeviceOp, Option<Work>),
    queue: impl FnOnce() -> Result<()>,
) -> Result<()> {
    let traced = match kind {
        Kind::Kernel => st.config.kernels,
        Kind::Copy => st.config.copies,
    };
    // Work captured into a graph runs when the graph is launched, not now; an event recorded
    // into the capture would become a node of the graph.
    if !traced || stream.is_capturing() {
        return queue();
    }
    let device = stream.device();
    let dt = device.inner.trace.get_or_init(DeviceTrace::default);
    let Some(anchor) = anchor(device, dt) else {
        DROPPED.fetch_add(1, Ordering::Relaxed);
        return queue();
    };
    // Held across start, work and end so that work queued on this stream by other threads
    // cannot come between them.
    let mut chain = lock(&stream.trace_state().chain);
    if chain.stream.is_none() {
        chain.stream = Some((device.clone(), stream.handle()));
    }
    // The end of a batch of timed kernels is the start of what follows them.
    let last = close_batch(&mut chain).or_else(|| chain.last_end.take());
    let start = match last {
        Some(e) if !e.complete() => Some(e),
        _ => stamp(device, dt, stream.handle(), Some(anchor.clone())),
    };
    if let Err(e) = queue() {
        // Nothing was queued: the start event still marks the end of the stream's work.
        chain.last_end = start;
        return Err(e);
    }
    let end = stamp(device, dt, stream.handle(), Some(anchor));
    chain.last_end.clone_from(&end);
    drop(chain);
    let (Some(start), Some(end)) = (start, end) else {
        DROPPED.fetch_add(1, Ordering::Relaxed);
        return Ok(());
    };
    push_pending(st, stream, describe(), Timing::Events { start, end });
    Ok(())
}

/// Hands the collector a device activity queued on `stream`, to be timed by `timing`.
fn push_pending(st: &State, stream: &Stream, described: (DeviceOp, Option<Work>), timing: Timing) {
    let p = pending(st, stream, described, timing);
    let mut q = lock(&st.pending);
    q.push_back(p);
    if q.len() >= 4096 {
        st.wake.notify_one();
    }
}

/// The record of a device activity queued on `stream` (its dispatch number taken now), to be
/// timed by `timing`.
fn pending(st: &State, stream: &Stream, (op, work): (DeviceOp, Option<Work>), timing: Timing) -> Pending {
    let device = stream.device();
    let activity = DeviceActivity {
        op,
        agent: agent_of(device),
        stream: stream_number(st, stream),
        thread: thread_id(),
        correlation: CURRENT.get().1,
        dispatch: st.dispatch.fetch_add(1, Ordering::Relaxed) + 1,
        start_ns: 0,
        end_ns: 0,
        work,
        timed_by: match timing {
            Timing::Slot { .. } => TimedBy::KernelTimer,
            Timing::Events { .. } => TimedBy::Events,
        },
    };
    Pending { activity, timing }
}

/// Queues a kernel-language launch through `queue_timed` (its timed variant, given the address
/// and length in `u64`s of a timing slot) when kernels are traced and a slot is free, else
/// through `queue` (the kernel itself, timed by events when traced). No event and no driver
/// call is added per timed launch: one event after each batch of them says when they have
/// completed, and the collector reads their slots in one copy per pass.
pub(crate) fn timed_kernel(
    stream: &Stream,
    describe: impl FnOnce(bool) -> (DeviceOp, Option<Work>),
    queue_timed: impl FnOnce(DevicePtr, u64) -> Result<()>,
    queue: impl FnOnce() -> Result<()>,
) -> Result<()> {
    let Some(st) = STATE.get().filter(|st| st.config.kernels) else { return queue() };
    let device = stream.device();
    let dt = device.inner.trace.get_or_init(DeviceTrace::default);
    let timing = dt.timing.get_or_init(|| DeviceTiming::new(device, dt)).as_ref();
    let Some((timing, offset, seq)) =
        timing.and_then(|t| Some((t, t.current_offset(device, dt)?, t.take()?)))
    else {
        return device_work(stream, Kind::Kernel, || describe(false), queue);
    };
    let chain_lock = &stream.trace_state().chain;
    let mut chain = lock(chain_lock);
    if chain.stream.is_none() {
        chain.stream = Some((device.clone(), stream.handle()));
    }
    if chain.batch.is_some() && chain.launches >= BATCH_LAUNCHES {
        close_batch(&mut chain);
    }
    if let Err(e) = queue_timed(timing.slot_address(seq), TIMING_SLOT_WORDS as u64) {
        timing.done(seq);
        return Err(e);
    }
    let first = chain.batch.is_none();
    let batch = chain
        .batch
        .get_or_insert_with(|| {
            Arc::new(Batch {
                opened_ns: now_ns(),
                end: OnceLock::new(),
                done: Default::default(),
                chain: Arc::downgrade(chain_lock),
                device: device.clone(),
            })
        })
        .clone();
    chain.launches += 1;
    // Work timed by events next starts at the batch's end, not at an older event.
    chain.last_end = None;
    // Queued or held under the chain's lock, so a stream's launches stay in order.
    let timing = Timing::Slot { seq, offset, batch };
    if first {
        push_pending(st, stream, describe(true), timing);
    } else {
        let p = pending(st, stream, describe(true), timing);
        chain.held.push(p);
    }
    Ok(())
}

/// The record of a kernel launch.
pub(crate) fn kernel(
    f: &crate::Function,
    cfg: &crate::LaunchConfig,
    work: Option<Work>,
) -> (DeviceOp, Option<Work>) {
    let a = f.attributes();
    let d = |d: crate::Dim3| [d.x, d.y, d.z];
    let k = Kernel {
        name: f.name_arc(),
        grid: d(cfg.grid),
        block: d(cfg.block),
        dynamic_shared_bytes: cfg.shared_mem_bytes,
        static_shared_bytes: a.static_shared_bytes,
        registers_per_thread: a.registers_per_thread,
        local_bytes_per_thread: a.local_bytes_per_thread,
    };
    (DeviceOp::Kernel(k), work)
}

/// The record of a copy queued on a stream of `device`.
pub(crate) fn copy(device: &Device, op: &CopyOp, bytes: u64) -> (DeviceOp, Option<Work>) {
    let here = agent_of(device);
    let peer = |ordinal: u32| {
        crate::platform::platform()
            .ok()
            .and_then(|p| {
                p.devices.iter().find(|d| d.kind() == device.kind() && d.ordinal() == ordinal).map(agent_of)
            })
            .unwrap_or(here)
    };
    let (direction, src_agent, dst_agent) = match *op {
        CopyOp::HostToDevice { .. } => (CopyDirection::HostToDevice, 0, here),
        CopyOp::DeviceToHost { .. } => (CopyDirection::DeviceToHost, here, 0),
        CopyOp::DeviceToDevice { .. } => (CopyDirection::DeviceToDevice, here, here),
        CopyOp::Peer { src_device, dst_device, .. } => {
            (CopyDirection::Peer, peer(src_device), peer(dst_device))
        }
    };
    (DeviceOp::Copy { direction, bytes, src_agent, dst_agent }, Some(Work::bytes(bytes)))
}

/// Ends the chain of shared start/end events on `stream` (work queued next may start later
/// than the end of the work before it).
#[inline]
pub(crate) fn break_chain(stream: &Stream) {
    if STATE.get().is_some() {
        lock(&stream.trace_state().chain).last_end = None;
    }
}

/// Delivers pending activities in the order they were queued, up to the first that has not
/// completed (work completes in order on each stream; a busy stream holds back the others only
/// until it completes). Completion is queried outside the lock, one not-ready query per pass,
/// so the collector does not compete with the threads queuing work; the timing slots of the
/// completed timed kernels are read in one copy per device and pass.
///
/// Returns whether nothing is left pending, judged while no other drainer holds activities it
/// has taken off the queue but not yet delivered (so `flush` cannot return before them).
fn drain(st: &State) -> bool {
    static LAST_END: OnceLock<Mutex<HashMap<u64, u64>>> = OnceLock::new();
    // One drainer at a time (the collector and `flush`), so records keep their order.
    static DRAINING: Mutex<()> = Mutex::new(());
    const PASS: usize = 4096;
    let _one = lock(&DRAINING);
    loop {
        let ready = take_ready(st, PASS);
        if ready.is_empty() {
            return lock(&st.pending).is_empty();
        }
        let full = ready.len() == PASS;
        // The slots of each device's completed timed kernels: (device, first, last, words).
        let mut slots: Vec<(Device, u64, u64, Option<Vec<u64>>)> = Vec::new();
        let mut touched: Vec<Device> = Vec::new();
        for p in &ready {
            if let Timing::Slot { seq, batch, .. } = &p.timing {
                let device = &batch.device;
                if !touched.contains(device) {
                    touched.push(device.clone());
                }
                if batch.complete() != Some(true) {
                    continue;
                }
                match slots.iter_mut().find(|s| s.0 == *device) {
                    Some(s) => {
                        s.1 = s.1.min(*seq);
                        s.2 = s.2.max(*seq);
                    }
                    None => slots.push((device.clone(), *seq, *seq, None)),
                }
            }
        }
        for (device, first, last, words) in &mut slots {
            *words = timing_of(device).and_then(|(dt, t)| t.read(device, dt, *first, *last));
        }
        // Slots read in this pass, per device: handed back under one lock each.
        let mut done: Vec<(Device, Vec<u64>)> = Vec::new();
        let mut last = lock(LAST_END.get_or_init(Mutex::default));
        for p in ready {
            let times = match &p.timing {
                Timing::Events { start, end } => start.time().zip(end.time()),
                Timing::Slot { seq, offset, batch } => {
                    let device = &batch.device;
                    let s = slots.iter().find(|s| s.0 == *device);
                    let times = s
                        .filter(|_| batch.complete() == Some(true))
                        .and_then(|(_, first, _, words)| {
                            let words = words.as_ref()?;
                            let at = ((seq - first) * TIMING_SLOT_WORDS as u64) as usize;
                            read_timing_slot(words.get(at..at + TIMING_SLOT_WORDS)?)
                        })
                        .map(|(s, e)| {
                            let host = |t: u64| (t as i64).saturating_add(*offset).max(0) as u64;
                            (host(s), host(e))
                        });
                    if let Some(d) = done.iter_mut().find(|d| d.0 == *device) {
                        d.1.push(*seq);
                    } else {
                        done.push((device.clone(), vec![*seq]));
                    }
                    times
                }
            };
            let Some((s, e)) = times else {
                DROPPED.fetch_add(1, Ordering::Relaxed);
                continue;
            };
            let by_slot = matches!(p.timing, Timing::Slot { .. });
            let mut a = p.activity;
            let floor = last.get(&a.stream).copied().unwrap_or(0);
            if by_slot {
                // The device measured the duration; only the placement carries the anchor's
                // error, so a kernel placed before the end of its stream's previous work moves.
                let shift = floor.saturating_sub(s);
                a.start_ns = s + shift;
                a.end_ns = e.max(s) + shift;
                SLOT_TIMED.fetch_add(1, Ordering::Relaxed);
            } else {
                a.start_ns = s.max(floor);
                a.end_ns = e.max(a.start_ns);
                EVENT_TIMED.fetch_add(1, Ordering::Relaxed);
            }
            last.insert(a.stream, a.end_ns);
            st.tracer.record(Record::Device(a));
        }
        drop(last);
        for (device, seqs) in &done {
            if let Some((_, t)) = timing_of(device) {
                t.done_all(seqs);
            }
        }
        for device in &touched {
            if let Some((dt, t)) = timing_of(device) {
                t.release(device, dt);
                // Timed launches read the offset without a clock read; it is kept fresh here.
                let _ = t.offset(device, dt, now_ns());
            }
        }
        if !full {
            return lock(&st.pending).is_empty();
        }
    }
}

/// Takes the completed activities at the head of the queue, up to `max`, in queue order.
/// Activities come off the queue a chunk at a time under one lock (a lock per activity made the
/// collector contend with every launch), and are checked outside it (a check may query an event
/// or close a batch, which takes a stream's chain lock: never under the queue's). The chunk's
/// tail from the first activity not yet complete goes back to the head of the queue. Chunks
/// start small and double while every activity in them is complete, so a pass that finds the
/// head still running moves only a few.
fn take_ready(st: &State, max: usize) -> Vec<Pending> {
    const FIRST_CHUNK: usize = 8;
    const MAX_CHUNK: usize = 512;
    let mut ready = Vec::new();
    let mut size = FIRST_CHUNK;
    while ready.len() < max {
        let mut chunk: VecDeque<Pending> = {
            let mut q = lock(&st.pending);
            let n = q.len().min(size).min(max - ready.len());
            q.drain(..n).collect()
        };
        if chunk.is_empty() {
            break;
        }
        let taken = chunk.len();
        while let Some(p) = chunk.pop_front() {
            if !p.ready() {
                chunk.push_front(p);
                break;
            }
            ready.push(p);
        }
        if !chunk.is_empty() {
            let mut q = lock(&st.pending);
            while let Some(p) = chunk.pop_back() {
                q.push_front(p);
            }
            break;
        }
        if taken < size {
            break;
        }
        size = (size * 2).min(MAX_CHUNK);
    }
    ready
}

fn collector() {
    let Some(st) = STATE.get() else { return };
    loop {
        {
            let q = lock(&st.pending);
            let _ = st.wake.wait_timeout(q, Duration::from_millis(5));
        }
        let _ = drain(st);
    }
}

/// The tracer `FERROCM_PROF` installs: records kept in memory, the session's files written
/// at exit.
struct FileTracer {
    session: ferrocm_prof::Session,
    trace: Mutex<Trace>,
}

impl Tracer for FileTracer {
    fn record(&self, record: Record) {
        lock(&self.trace).push(record);
    }

    fn flush(&self) {
        let mut trace = lock(&self.trace).clone();
        trace.dropped = DROPPED.load(Ordering::Relaxed);
        trace.sort();
        let prefix = self.session.prefix(trace.process_id);
        if let Err(e) = ferrocm_prof::write(&trace, &self.session, &prefix) {
            eprintln!("ferrocm prof: the trace was not written: {e}");
        }
        if trace.dropped > 0 {
            eprintln!(
                "ferrocm prof: {} device activities are missing from the trace (their times could not be read)",
                trace.dropped
            );
        }
    }
}

/// Installs the built-in tracer when `FERROCM_PROF` asks for one (called once, when the
/// platform starts). A tracer the program installed itself takes precedence.
pub(crate) fn install_from_env(devices: &[Device]) -> Result<()> {
    let session = match ferrocm_prof::Session::from_env() {
        Ok(None) => return Ok(()),
        Ok(Some(s)) => s,
        Err(ferrocm_prof::ProfError::InvalidEnvironment { var, value, allowed }) => {
            return Err(crate::Error::InvalidEnvironment { var, value, allowed })
        }
        Err(e) => {
            return Err(crate::Error::InvalidEnvironment {
                var: ferrocm_prof::session::ENV_WHAT,
                value: String::new(),
                allowed: e.to_string(),
            })
        }
    };
    let mut agents =
        vec![Agent { id: 0, kind: AgentKind::Host, name: "host".into(), backend: String::new() }];
    for d in devices {
        agents.push(Agent {
            id: agent_of(d),
            kind: if d.kind() == crate::BackendKind::Cpu { AgentKind::CpuDevice } else { AgentKind::Gpu },
            name: d.properties().name.clone(),
            backend: d.kind().to_string(),
        });
    }
    let config = TraceConfig {
        api: session.api_trace,
        kernels: session.kernel_trace,
        copies: session.memory_copy_trace,
        allocations: session.memory_allocation_trace,
    };
    let trace = Trace { process_id: std::process::id(), agents, ..Trace::default() };
    if install(Box::new(FileTracer { session, trace: Mutex::new(trace) }), config).is_err() {
        return Ok(());
    }
    // Registered after the backends started (and registered theirs), so it runs before the
    // driver tears down.
    // SAFETY: a plain `extern "C"` function that never unwinds.
    unsafe { libc::atexit(write_at_exit) };
    Ok(())
}

extern "C" fn write_at_exit() {
    let _ = std::panic::catch_unwind(|| flush(Duration::from_secs(10)));
}
