//! Graphs (hipGraph / cudaGraph): work captured from a stream, instantiated once and launched
//! many times, with kernel nodes whose arguments and shape can be changed between launches.
//!
//! Capture. [`Stream::begin_capture`] puts a stream in capture mode: kernel launches, memsets and
//! device-to-device copies queued on it are recorded instead of run, and
//! [`Stream::end_capture`] returns them as a [`Graph`]. Everything else on a capturing stream is
//! refused with [`Error::NotPermitted`] before it reaches the backend, as CUDA refuses what it
//! cannot capture: synchronizing or querying the stream, events, host callbacks, copies to or
//! from host memory (their host buffers would be read or written at replay, after the call has
//! returned), and allocating from the stream-ordered pool (the pool's blocks are reused in
//! stream order, which a graph replayed later does not follow; allocate before beginning the
//! capture). [`Device::synchronize`] is refused while one of the device's streams captures.
//! Beginning or ending a capture waits for operations in flight on the stream in other threads,
//! so an operation is either wholly captured or wholly not.
//!
//! Safety: a graph replays the addresses it captured, long after the calls that queued the work
//! returned. Rather than make launching a graph `unsafe`, the graph keeps alive what it uses:
//! every buffer a captured operation touches (its use tracker records the capturing stream) is
//! pinned by the graph, and dropping such a buffer defers its free (or its return to the pool)
//! until the graph is dropped; each launch of the graph records its stream on those buffers, so
//! the deferred free also waits for the launches. Captured kernels' functions (and so their
//! modules) are held by the graph, and dropping the graph waits for its launches before letting
//! them go. Raw addresses passed to [`Stream::launch`] are the caller's promise, as for any
//! launch (its safety contract covers every replay).
//!
//! Internally, a capturing stream's pre-capture work is represented by an event recorded just
//! before the capture began ([`Stream::completion_event`]), so frees and pool reuse that must
//! wait for that stream never record an event into the capture.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};

use ferrocm_backend::{EventFlags, GraphExecHandle, GraphHandle, GraphNodeHandle, LaunchDims, StreamHandle};

use crate::device::Device;
use crate::event::Event;
use crate::memory::UseTracker;
use crate::module::{Function, KernelArgs, LaunchConfig};
use crate::stream::Stream;
use crate::{lock, Error, Result};

/// Whether an operation can be recorded into a graph while its stream captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum InCapture {
    /// Recorded as a graph node.
    Recorded,
    /// Refused with [`Error::NotPermitted`].
    Refused,
}

const REFUSED: &str = "on a stream that is capturing a graph (only kernel launches, memsets and \
                       device-to-device copies are captured; end the capture first)";

/// A stream's capture state.
#[derive(Default)]
pub(crate) struct Capture {
    /// Operations hold it shared; beginning and ending a capture hold it exclusively.
    gate: RwLock<()>,
    /// A capture is in progress (read inside operations, where it cannot change).
    active: AtomicBool,
    state: Mutex<Option<Recording>>,
}

/// What a capture in progress has recorded.
struct Recording {
    /// Completes when the work queued on the stream before the capture has.
    before: Event,
    kernels: Vec<KernelNode>,
    keep: KeepAlive,
}

/// One captured kernel launch.
#[derive(Clone)]
struct KernelNode {
    node: GraphNodeHandle,
    function: Function,
    config: LaunchConfig,
    arg_sizes: Vec<u32>,
}

/// Allocations pinned by a graph; dropping it unpins them.
#[derive(Default)]
struct KeepAlive {
    trackers: Vec<Arc<UseTracker>>,
    seen: HashSet<usize>,
}

impl KeepAlive {
    fn add(&mut self, tracker: &Arc<UseTracker>) {
        if self.seen.insert(Arc::as_ptr(tracker) as usize) {
            tracker.pin();
            self.trackers.push(Arc::clone(tracker));
        }
    }

    fn record(&self, stream: &Stream) {
        for t in &self.trackers {
            t.record(stream);
        }
    }
}

impl Drop for KeepAlive {
    fn drop(&mut self) {
        for t in &self.trackers {
            t.unpin();
        }
    }
}

thread_local! {
    /// Streams (by identity) on which this thread is inside an operation, so a nested
    /// operation on the same stream does not take the gate again.
    static INSIDE: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Held for the duration of one operation on a stream.
pub(crate) struct OpGuard<'a> {
    stream: &'a Stream,
    /// `None` for an operation nested in another on the same stream.
    gate: Option<RwLockReadGuard<'a, ()>>,
}

impl Drop for OpGuard<'_> {
    fn drop(&mut self) {
        if self.gate.is_some() {
            let id = self.stream.id();
            INSIDE.with(|v| {
                let mut v = v.borrow_mut();
                if let Some(i) = v.iter().rposition(|&s| s == id) {
                    v.swap_remove(i);
                }
            });
        }
    }
}

impl OpGuard<'_> {
    /// Records the kernel launch just queued as a graph node, if the stream is capturing.
    pub(crate) fn captured_launch(
        &self,
        f: &Function,
        config: LaunchConfig,
        args: &KernelArgs,
    ) -> Result<()> {
        let capture = &self.stream.capture_state();
        if !capture.active.load(Ordering::Acquire) {
            return Ok(());
        }
        let device = self.stream.device();
        // SAFETY: the stream is live and capturing (the gate keeps it so), and a launch was just
        // captured on it.
        let node = unsafe { device.inner.backend.stream_capture_last_node(self.stream.handle()) }
            .map_err(|e| device.error(e))?;
        let arg_sizes = args.spans.iter().map(|&(_, n)| n).collect();
        if let Some(r) = lock(&capture.state).as_mut() {
            r.kernels.push(KernelNode { node, function: f.clone(), config, arg_sizes });
        }
        Ok(())
    }
}

/// Pins `tracker` into the capture of `stream` (called while an operation on it is in flight).
pub(crate) fn keep_alive(stream: &Stream, tracker: &Arc<UseTracker>) {
    if let Some(r) = lock(&stream.capture_state().state).as_mut() {
        r.keep.add(tracker);
    }
}

type Deferred = Box<dyn FnOnce() + Send>;

/// Captures in progress per device index (so a device synchronize can be refused), and the
/// releases deferred until a device's captures have ended.
#[derive(Default)]
struct Captures {
    active: HashMap<usize, usize>,
    deferred: HashMap<usize, Vec<Deferred>>,
}

fn captures() -> &'static Mutex<Captures> {
    static CAPTURES_STATE: std::sync::OnceLock<Mutex<Captures>> = std::sync::OnceLock::new();
    CAPTURES_STATE.get_or_init(Default::default)
}
/// The number of captures in progress on all devices (the fast path when there are none).
static CAPTURES: AtomicUsize = AtomicUsize::new(0);

fn begin_counted(device: &Device) {
    *lock(captures()).active.entry(device.index()).or_default() += 1;
    CAPTURES.fetch_add(1, Ordering::AcqRel);
}

/// Counts a capture of `device` as ended; its last capture hands back the deferred releases,
/// which the caller runs once it holds no capture lock.
#[must_use]
fn end_counted(device: &Device) -> Vec<Deferred> {
    let mut c = lock(captures());
    CAPTURES.fetch_sub(1, Ordering::AcqRel);
    let n = c.active.entry(device.index()).or_default();
    *n = n.saturating_sub(1);
    if *n > 0 {
        return Vec::new();
    }
    c.deferred.remove(&device.index()).unwrap_or_default()
}

fn run_deferred(jobs: Vec<Deferred>) {
    for job in jobs {
        crate::callback::now_or_later(job);
    }
}

/// Runs `release` (a driver call that may synchronize the device: freeing memory, unloading a
/// module, unmapping) now, or, while a stream of `device` captures a graph, once the device's
/// last capture has ended: a synchronizing call during a capture can invalidate it, so, as
/// PyTorch's allocator does with `cudaFree`, such calls wait. Returns `release`'s result when it
/// ran now.
pub(crate) fn release_outside_captures(
    device: &Device,
    release: impl FnOnce() -> Result<()> + Send + 'static,
) -> Result<()> {
    if CAPTURES.load(Ordering::Acquire) > 0 {
        let mut c = lock(captures());
        if c.active.get(&device.index()).is_some_and(|&n| n > 0) {
            c.deferred.entry(device.index()).or_default().push(Box::new(move || {
                // An error cannot reach anyone here; the memory stays allocated.
                let _ = release();
            }));
            return Ok(());
        }
    }
    release()
}

/// Refuses `what` on `device` while one of its streams captures a graph.
pub(crate) fn forbid_while_capturing(device: &Device, what: &'static str) -> Result<()> {
    if CAPTURES.load(Ordering::Acquire) > 0
        && lock(captures()).active.get(&device.index()).is_some_and(|&n| n > 0)
    {
        return Err(Error::NotPermitted {
            what,
            reason: "while one of the device's streams is capturing a graph (end the capture first)",
        });
    }
    Ok(())
}

impl Capture {
    /// Ends a capture that its stream's last owner abandoned: the partial graph is destroyed
    /// and its pins released.
    pub(crate) fn abandon(&mut self, device: &Device, handle: StreamHandle) {
        let recording = self.state.get_mut().unwrap_or_else(|e| e.into_inner()).take();
        if recording.is_none() {
            return;
        }
        self.active.store(false, Ordering::Release);
        // SAFETY: the stream is live (this runs before it is destroyed) and capturing.
        if let Ok(graph) = unsafe { device.inner.backend.stream_end_capture(handle) } {
            // SAFETY: a graph just made, never instantiated.
            let _ = unsafe { device.inner.backend.graph_destroy(graph) };
        }
        let deferred = end_counted(device);
        drop(recording);
        run_deferred(deferred);
    }
}

impl Stream {
    /// Enters an operation named `what`: refused inside host callbacks, and on a capturing
    /// stream unless it is `Recorded`. The guard keeps a capture from beginning or ending until
    /// the operation has been queued.
    pub(crate) fn op(&self, what: &'static str, in_capture: InCapture) -> Result<OpGuard<'_>> {
        crate::callback::forbid(what)?;
        let id = self.id();
        if INSIDE.with(|v| v.borrow().contains(&id)) {
            return Ok(OpGuard { stream: self, gate: None });
        }
        let gate = self.capture_state().gate.read().unwrap_or_else(|e| e.into_inner());
        if in_capture == InCapture::Refused && self.capture_state().active.load(Ordering::Acquire) {
            return Err(Error::NotPermitted { what, reason: REFUSED });
        }
        INSIDE.with(|v| v.borrow_mut().push(id));
        Ok(OpGuard { stream: self, gate: Some(gate) })
    }

    /// Whether the stream is capturing a graph.
    pub fn is_capturing(&self) -> bool {
        self.capture_state().active.load(Ordering::Acquire)
    }

    /// An event that completes once the work queued on this stream so far has completed: a new
    /// record, or while the stream captures, the record made just before the capture began (the
    /// captured work runs only when the graph is launched, and graph launches are recorded on
    /// the memory they use).
    ///
    /// It takes the capture's state lock, not the gate: a capture begins and ends under that lock
    /// too, so the record cannot land in a capture, and an operation on another stream (a free,
    /// a pool reuse) never waits for this stream's gate while holding its own.
    pub(crate) fn completion_event(&self) -> Result<Event> {
        crate::callback::forbid("waiting for a stream's work")?;
        let state = lock(&self.capture_state().state);
        if let Some(r) = state.as_ref() {
            return Ok(r.before.clone());
        }
        let e = Event::with_flags(self.device(), EventFlags { timing: false, blocking_sync: false })?;
        let backend = &self.device().inner.backend;
        // SAFETY: event and stream are live and of the same device; the stream is not capturing
        // (the state lock keeps it so).
        unsafe { backend.event_record(e.handle(), self.handle()) }.map_err(|err| self.device().error(err))?;
        drop(state);
        Ok(e)
    }

    /// Begins capturing this stream into a graph (`hipStreamBeginCapture`): until
    /// [`Stream::end_capture`], kernel launches, memsets and device-to-device copies queued on
    /// it are recorded instead of run, and other operations on it are refused (see the module
    /// documentation). The legacy default stream cannot be captured.
    pub fn begin_capture(&self) -> Result<()> {
        crate::callback::forbid("beginning a capture")?;
        let device = self.device();
        if device.is_legacy_stream(self) {
            return Err(Error::NotPermitted {
                what: "capturing the legacy default stream",
                reason: "(it synchronizes with the device's other streams); capture a stream from \
                         Device::create_stream",
            });
        }
        let capture = self.capture_state();
        let _gate = capture.gate.write().unwrap_or_else(|e| e.into_inner());
        let mut state = lock(&capture.state);
        if state.is_some() {
            return Err(Error::NotPermitted {
                what: "beginning a capture",
                reason: "on a stream that is already capturing a graph",
            });
        }
        let before = Event::with_flags(device, EventFlags { timing: false, blocking_sync: false })?;
        let backend = &device.inner.backend;
        // SAFETY: event and stream are live and of the same device; nothing else is queued on
        // the stream while the gate is held.
        unsafe { backend.event_record(before.handle(), self.handle()) }.map_err(|e| device.error(e))?;
        // SAFETY: a live stream, not capturing, not the legacy default stream.
        unsafe { backend.stream_begin_capture(self.handle()) }.map_err(|e| device.error(e))?;
        *state = Some(Recording { before, kernels: Vec::new(), keep: KeepAlive::default() });
        capture.active.store(true, Ordering::Release);
        begin_counted(device);
        Ok(())
    }

    /// Ends the capture begun by [`Stream::begin_capture`] and returns the recorded work as a
    /// graph (`hipStreamEndCapture`).
    pub fn end_capture(&self) -> Result<Graph> {
        crate::callback::forbid("ending a capture")?;
        let device = self.device();
        let capture = self.capture_state();
        let _gate = capture.gate.write().unwrap_or_else(|e| e.into_inner());
        let mut state = lock(&capture.state);
        let recording = state.take().ok_or(Error::NotPermitted {
            what: "ending a capture",
            reason: "on a stream that is not capturing (call Stream::begin_capture first)",
        })?;
        capture.active.store(false, Ordering::Release);
        // SAFETY: a live stream that is capturing.
        let ended = unsafe { device.inner.backend.stream_end_capture(self.handle()) };
        let deferred = end_counted(device);
        drop(state);
        drop(_gate);
        run_deferred(deferred);
        let handle = ended.map_err(|e| device.error(e))?;
        let Recording { kernels, keep, .. } = recording;
        Ok(Graph {
            inner: Arc::new(GraphInner {
                device: device.clone(),
                handle,
                kernels,
                keep,
                launched: Mutex::default(),
            }),
        })
    }

    /// Captures what `work` queues on this stream into a graph: [`Stream::begin_capture`],
    /// `work(self)`, [`Stream::end_capture`]. If `work` fails, the capture is ended, its graph
    /// dropped, and the error returned.
    pub fn capture(&self, work: impl FnOnce(&Stream) -> Result<()>) -> Result<Graph> {
        self.begin_capture()?;
        let outcome = work(self);
        let graph = self.end_capture();
        outcome?;
        graph
    }
}

struct GraphInner {
    device: Device,
    handle: GraphHandle,
    kernels: Vec<KernelNode>,
    keep: KeepAlive,
    /// Streams the graph's instantiations were launched on.
    launched: Mutex<Vec<Stream>>,
}

impl Drop for GraphInner {
    fn drop(&mut self) {
        let (device, handle) = (self.device.clone(), self.handle);
        let launched = std::mem::take(&mut *lock(&self.launched));
        let kernels = std::mem::take(&mut self.kernels);
        crate::callback::now_or_later(move || {
            // The captured kernels' modules must stay loaded until the launches are done.
            for s in &launched {
                if let Ok(e) = s.completion_event() {
                    let _ = e.synchronize();
                }
            }
            // SAFETY: the last owner of the graph; its instantiations were destroyed before
            // their references to it were dropped.
            let _ = unsafe { device.inner.backend.graph_destroy(handle) };
            drop(kernels);
        });
    }
}

/// Work captured from a stream ([`Stream::end_capture`]). Instantiate it to launch it. The
/// graph keeps alive the buffers, kernels and modules its work uses.
#[derive(Clone)]
pub struct Graph {
    inner: Arc<GraphInner>,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Graph({} kernel nodes on device {})", self.inner.kernels.len(), self.inner.device.index())
    }
}

impl Graph {
    /// The device the graph's work runs on.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// The number of kernel launches captured, in capture order.
    pub fn kernel_node_count(&self) -> usize {
        self.inner.kernels.len()
    }

    /// Makes a launchable instance of the graph (`hipGraphInstantiate`). Each instance has its
    /// own kernel-node parameters.
    pub fn instantiate(&self) -> Result<GraphExec> {
        crate::callback::forbid("instantiating a graph")?;
        let device = &self.inner.device;
        // SAFETY: the graph is live while `self` is.
        let handle = unsafe { device.inner.backend.graph_instantiate(self.inner.handle) }
            .map_err(|e| device.error(e))?;
        Ok(GraphExec {
            graph: Arc::clone(&self.inner),
            handle,
            kernels: self.inner.kernels.clone(),
            keep: KeepAlive::default(),
        })
    }
}

/// An instantiated graph (`hipGraphExec_t`): launch it on any stream of its device, as often as
/// wanted; change a kernel node's arguments or shape between launches.
pub struct GraphExec {
    graph: Arc<GraphInner>,
    handle: GraphExecHandle,
    kernels: Vec<KernelNode>,
    /// Buffers that kernel-node updates passed (the graph pins what was captured).
    keep: KeepAlive,
}

impl std::fmt::Debug for GraphExec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GraphExec({} kernel nodes on device {})", self.kernels.len(), self.graph.device.index())
    }
}

impl Drop for GraphExec {
    fn drop(&mut self) {
        let (device, handle) = (self.graph.device.clone(), self.handle);
        crate::callback::now_or_later(move || {
            // SAFETY: the instance is destroyed once; launches still queued finish first (the
            // driver frees it when they complete; the CPU backend's launches hold its nodes).
            let _ = unsafe { device.inner.backend.graph_exec_destroy(handle) };
        });
    }
}

impl GraphExec {
    /// The device the graph runs on.
    pub fn device(&self) -> &Device {
        &self.graph.device
    }

    /// The number of kernel nodes, in capture order.
    pub fn kernel_node_count(&self) -> usize {
        self.kernels.len()
    }

    /// The kernel that node `node` launches.
    pub fn kernel_node_function(&self, node: usize) -> Option<&Function> {
        self.kernels.get(node).map(|k| &k.function)
    }

    /// The launch shape of kernel node `node`.
    pub fn kernel_node_config(&self, node: usize) -> Option<LaunchConfig> {
        self.kernels.get(node).map(|k| k.config)
    }

    /// Queues a launch of the whole graph on `stream` (`hipGraphLaunch`), after the stream's
    /// earlier work.
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        let _op = stream.op("launching a graph", InCapture::Refused)?;
        stream.same_device("graph", self.device())?;
        {
            let mut launched = lock(&self.graph.launched);
            if !launched.contains(stream) {
                launched.push(stream.clone());
            }
        }
        // Later frees of the pinned buffers wait for this launch.
        self.graph.keep.record(stream);
        self.keep.record(stream);
        let device = self.device();
        // SAFETY: the instance and stream are live and of one device; every buffer the graph
        // uses is pinned (and records this launch), and raw addresses were promised valid for
        // every replay by the launches that captured them.
        unsafe { device.inner.backend.graph_launch(self.handle, stream.handle()) }
            .map_err(|e| device.error(e))
    }

    /// Replaces the arguments of kernel node `node` for later launches, keeping its shape.
    ///
    /// # Safety
    /// As for [`Stream::launch`]: the arguments match the kernel's parameters, and raw
    /// addresses stay valid for every later launch of the graph.
    pub unsafe fn set_kernel_args(&mut self, node: usize, args: &KernelArgs) -> Result<()> {
        let config = self.kernels.get(node).map(|k| k.config).ok_or(Error::OutOfRange {
            start: node,
            end: node + 1,
            len: self.kernels.len(),
        })?;
        // SAFETY: forwarded from the caller.
        unsafe { self.set_kernel_node(node, config, args) }
    }

    /// Replaces the launch shape and arguments of kernel node `node` for later launches
    /// (`hipGraphExecKernelNodeSetParams`); launches already queued keep what they had. The
    /// arguments must have the captured launch's count and sizes, the shape is validated as a
    /// launch's, and the cluster shape and cooperative mode cannot change. On error nothing
    /// changes.
    ///
    /// # Safety
    /// As for [`Stream::launch`]: the arguments match the kernel's parameters, and raw
    /// addresses stay valid for every later launch of the graph.
    pub unsafe fn set_kernel_node(
        &mut self,
        node: usize,
        config: LaunchConfig,
        args: &KernelArgs,
    ) -> Result<()> {
        crate::callback::forbid("updating a graph")?;
        let len = self.kernels.len();
        let k = self.kernels.get(node).ok_or(Error::OutOfRange { start: node, end: node + 1, len })?;
        let refuse = |reason: String| Error::GraphUpdate { node, kernel: k.function.name().into(), reason };
        let sizes: Vec<u32> = args.spans.iter().map(|&(_, n)| n).collect();
        if sizes.len() != k.arg_sizes.len() {
            return Err(refuse(format!(
                "the launch was captured with {} argument(s) ({} bytes), the update passes {} ({} bytes)",
                k.arg_sizes.len(),
                list(&k.arg_sizes),
                sizes.len(),
                list(&sizes)
            )));
        }
        if let Some(i) = (0..sizes.len()).find(|&i| sizes[i] != k.arg_sizes[i]) {
            return Err(refuse(format!(
                "argument {i} was captured as {} bytes, the update passes {} bytes",
                k.arg_sizes[i], sizes[i]
            )));
        }
        if config.cluster != k.config.cluster || config.cooperative != k.config.cooperative {
            return Err(refuse(
                "the cluster shape and cooperative mode of a captured launch cannot be changed".into(),
            ));
        }
        let device = self.graph.device.clone();
        for other in &args.devices {
            if other.kind() != device.kind() || !device.has_peer_access(other) {
                return Err(Error::NoPeerAccess { device: device.index(), peer: other.index() });
            }
        }
        let f = k.function.clone();
        crate::module::validate(&device, &f, &config)?;
        f.allow_dynamic_shared(config.shared_mem_bytes)?;
        let dims = LaunchDims::from(config);
        // SAFETY: a live instance; the node is a kernel node of its graph launching `f`; the
        // shape was validated and the arguments are the caller's promise.
        args.with_slices(|slices| unsafe {
            device.inner.backend.graph_exec_set_kernel_params(self.handle, k.node, f.handle, dims, slices)
        })
        .map_err(|e| device.error(e))?;
        for u in &args.uses {
            self.keep.add(u);
        }
        self.kernels[node].config = config;
        Ok(())
    }
}

fn list(sizes: &[u32]) -> String {
    sizes.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}
