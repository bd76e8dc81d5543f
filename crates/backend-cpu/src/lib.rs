//! ferrocm's CPU backend: the embedded default device that exists on every machine, and the
//! reference every GPU result is checked against.
//!
//! Device memory is host memory (a [`DevicePtr`] is a host address), so copies are `memcpy`s.
//! Large allocations are mapped lazily (see `memory`), and the memory a device reports is the
//! machine's or, where smaller, the container's cgroup limit, so allocations that cannot fit
//! fail with an error instead of the process being killed. Each stream is an ordered queue whose
//! worker thread exists only while it has work: work really runs in the background, in order,
//! and events carry the time at which the stream reached them. Kernels are [`CpuKernel`]s (the
//! kernel language's CPU executor, or native Rust) run on the stream's worker; a kernel's error
//! is kept and reported by the next synchronize, as a GPU reports a fault. Blocking streams and
//! the legacy default stream order against each other as CUDA's do. Several CPU devices can be
//! created so that multi-device code can be tested anywhere; they share the address space, so
//! every pair can access each other as peers.
//!
//! Virtual memory (`vmm`) maps sealed `memfd`s into reserved address ranges, so exported memory
//! is really shared with another process that maps the same descriptor; stream capture
//! (`graph`) records work as plain-data nodes that a graph launch replays in order.

mod graph;
mod memop;
mod memory;
mod stream;
mod vmm;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use ferrocm_backend::tensor_map::{TensorMapDesc, TENSOR_MAP_BYTES};
use ferrocm_backend::{
    Backend, BackendError, BackendInfo, BackendKind, CopyOp, CpuKernel, CpuModule, DefaultStream,
    DeviceProperties, DevicePtr, EventFlags, EventHandle, FunctionAttribute, FunctionAttributes,
    FunctionHandle, GraphExecHandle, GraphHandle, GraphNodeHandle, HostCallback, LaunchDims, MemCreateFlags,
    MemHandle, ModuleHandle, ModuleImage, Result, StreamFlags, StreamHandle, StreamWord, Target,
    VmmProperties, WaitCondition,
};
use graph::Node;
use memory::Block;
use stream::{CpuEvent, CpuStream, Job};

/// Alignment of every device allocation, as on GPUs (256 bytes).
const DEVICE_ALIGN: usize = 256;
/// Alignment of page-locked host allocations.
const HOST_ALIGN: usize = 4096;

/// A loaded module and the device it was loaded on.
type ModuleEntry = (u32, Arc<dyn CpuModule>);

struct Function {
    kernel: Arc<dyn CpuKernel>,
    name: String,
    device: u32,
}

/// Per-device state for the legacy default stream's ordering.
#[derive(Default)]
struct DeviceState {
    /// The legacy default stream's handle, created on first use.
    legacy: OnceLock<u64>,
    /// Set once the legacy stream exists: only then do blocking streams order against it.
    legacy_used: AtomicBool,
    /// Serialises the capture of other streams' progress with the push that depends on it, so
    /// two pushes cannot each wait for the other.
    order: Mutex<()>,
    /// Bytes allocated on the device.
    used: AtomicU64,
}

/// The CPU backend with `n` devices.
pub struct CpuBackend {
    /// Distinguishes backend instances in per-thread tables.
    id: u64,
    properties: Vec<DeviceProperties>,
    next_handle: AtomicU64,
    /// Live allocations per address: (device, how it was made); `u32::MAX` marks host memory.
    allocations: Mutex<HashMap<u64, (u32, Block)>>,
    devices: Vec<DeviceState>,
    streams: Mutex<HashMap<u64, Arc<CpuStream>>>,
    events: Mutex<HashMap<u64, Arc<CpuEvent>>>,
    modules: Mutex<HashMap<u64, ModuleEntry>>,
    functions: Mutex<HashMap<u64, Arc<Function>>>,
    vmm: vmm::Vmm,
    graphs: graph::Graphs,
}

const HOST_DEVICE: u32 = u32::MAX;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The tables are only mutated by whole inserts and removes, so a panic elsewhere while
    // holding the lock cannot leave them half-updated.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

thread_local! {
    /// Each thread's per-thread default streams: (backend id, device) -> stream handle.
    static PER_THREAD: std::cell::RefCell<HashMap<(u64, u32), u64>> = std::cell::RefCell::default();
}

impl CpuBackend {
    /// Creates a CPU backend with `devices` devices (at least one).
    pub fn new(devices: u32) -> CpuBackend {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let devices = devices.max(1);
        CpuBackend {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            properties: (0..devices).map(host_properties).collect(),
            next_handle: AtomicU64::new(1),
            allocations: Mutex::default(),
            devices: (0..devices).map(|_| DeviceState::default()).collect(),
            streams: Mutex::default(),
            events: Mutex::default(),
            modules: Mutex::default(),
            functions: Mutex::default(),
            vmm: vmm::Vmm::default(),
            graphs: graph::Graphs::default(),
        }
    }

    fn handle(&self) -> u64 {
        self.next_handle.fetch_add(1, Ordering::Relaxed)
    }

    fn check_device(&self, device: u32) -> Result<&DeviceState> {
        self.devices
            .get(device as usize)
            .ok_or(BackendError::InvalidDevice { device, count: self.devices.len() as u32 })
    }

    fn stream(&self, h: StreamHandle) -> Result<Arc<CpuStream>> {
        lock(&self.streams)
            .get(&h.0)
            .cloned()
            .ok_or(BackendError::InvalidHandle { what: "stream", handle: h.0 })
    }

    fn event(&self, h: EventHandle) -> Result<Arc<CpuEvent>> {
        lock(&self.events)
            .get(&h.0)
            .cloned()
            .ok_or(BackendError::InvalidHandle { what: "event", handle: h.0 })
    }

    fn function(&self, h: FunctionHandle) -> Result<Arc<Function>> {
        lock(&self.functions)
            .get(&h.0)
            .cloned()
            .ok_or(BackendError::InvalidHandle { what: "function", handle: h.0 })
    }

    fn raw_alloc(&self, owner: u32, device: u32, bytes: u64, align: usize) -> Result<u64> {
        let state = self.check_device(device)?;
        let host = memory::host_memory();
        let oom = || BackendError::OutOfMemory { device, requested: bytes, free: host.available };
        if bytes > host.available {
            return Err(oom());
        }
        let size = usize::try_from(bytes).map_err(|_| oom())?;
        let (ptr, block) = memory::allocate(size, align).ok_or_else(oom)?;
        lock(&self.allocations).insert(ptr as u64, (owner, block));
        if owner != HOST_DEVICE {
            state.used.fetch_add(block.size() as u64, Ordering::Relaxed);
        }
        Ok(ptr as u64)
    }

    fn raw_free(&self, owner: u32, addr: u64) -> Result<()> {
        let mut allocations = lock(&self.allocations);
        match allocations.get(&addr) {
            Some(&(o, block)) if o == owner => {
                allocations.remove(&addr);
                drop(allocations);
                if owner != HOST_DEVICE {
                    self.devices[owner as usize].used.fetch_sub(block.size() as u64, Ordering::Relaxed);
                }
                // SAFETY: `addr` was returned by `memory::allocate` with exactly this block and
                // has just been removed from the table, so it is released once.
                unsafe { memory::release(addr as *mut u8, block) };
                Ok(())
            }
            _ => Err(BackendError::InvalidHandle { what: "allocation", handle: addr }),
        }
    }

    fn new_stream(&self, device: u32, blocking: bool) -> u64 {
        let id = self.handle();
        lock(&self.streams).insert(id, Arc::new(CpuStream::new(device, id, blocking)));
        id
    }

    /// Queues work on `stream`, first making it wait where CUDA's legacy default stream
    /// semantics require: work on the legacy stream waits for the device's blocking streams,
    /// and work on a blocking stream waits for the legacy stream.
    fn enqueue(&self, stream: &Arc<CpuStream>, job: Job) -> Result<()> {
        let state = &self.devices[stream.device as usize];
        if !state.legacy_used.load(Ordering::Acquire) {
            return stream.push(job);
        }
        let legacy_id = *state.legacy.get().expect("legacy_used is set after the stream exists");
        let _order = lock(&state.order);
        let waits: Vec<(Arc<CpuStream>, u64)> = if self.is_legacy(stream, legacy_id) {
            lock(&self.streams)
                .iter()
                .filter(|(&id, s)| id != legacy_id && s.device == stream.device && s.blocking)
                .map(|(_, s)| (Arc::clone(s), s.submitted()))
                .filter(|(s, g)| !s.reached(*g))
                .collect()
        } else if stream.blocking {
            let legacy = self.stream(StreamHandle(legacy_id))?;
            let g = legacy.submitted();
            if legacy.reached(g) {
                vec![]
            } else {
                vec![(legacy, g)]
            }
        } else {
            vec![]
        };
        if !waits.is_empty() {
            stream.push(Box::new(move || {
                for (s, g) in waits {
                    s.wait_for(g);
                }
                Ok(())
            }))?;
        }
        stream.push(job)
    }

    fn is_legacy(&self, stream: &Arc<CpuStream>, legacy_id: u64) -> bool {
        lock(&self.streams).get(&legacy_id).is_some_and(|l| Arc::ptr_eq(l, stream))
    }

    fn queue(&self, stream: StreamHandle, job: Job) -> Result<()> {
        let s = self.stream(stream)?;
        self.enqueue(&s, job)
    }
}

impl Default for CpuBackend {
    fn default() -> Self {
        CpuBackend::new(1)
    }
}

impl Drop for CpuBackend {
    fn drop(&mut self) {
        let streams: Vec<_> = lock(&self.streams).drain().map(|(_, s)| s).collect();
        for s in &streams {
            // Queued work may use the memory released below: let it finish first. Destroying
            // first makes a memory wait that can no longer be satisfied give up instead of
            // holding the drop forever.
            s.destroy();
            let _ = s.synchronize();
        }
        for (addr, (_, block)) in lock(&self.allocations).drain() {
            // SAFETY: every table entry is a live allocation made with this block.
            unsafe { memory::release(addr as *mut u8, block) };
        }
    }
}

impl Backend for CpuBackend {
    fn info(&self) -> BackendInfo {
        BackendInfo { name: "cpu".into(), driver_version: 0, library: None }
    }

    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }

    fn device_count(&self) -> u32 {
        self.properties.len() as u32
    }

    fn device_properties(&self, device: u32) -> Result<DeviceProperties> {
        self.check_device(device)?;
        Ok(self.properties[device as usize].clone())
    }

    fn mem_info(&self, device: u32) -> Result<(u64, u64)> {
        let state = self.check_device(device)?;
        let host = memory::host_memory();
        let used = state.used.load(Ordering::Relaxed);
        Ok((host.available.min(host.total.saturating_sub(used)), host.total))
    }

    fn device_synchronize(&self, device: u32) -> Result<()> {
        self.check_device(device)?;
        let streams: Vec<_> = lock(&self.streams).values().filter(|s| s.device == device).cloned().collect();
        if streams.iter().any(|s| s.is_current_worker()) {
            return Err(BackendError::NotPermitted {
                what: "synchronizing a device",
                reason: "called from a host callback of one of its streams, which would wait for itself",
            });
        }
        let mut first = Ok(());
        for s in streams {
            let r = s.synchronize();
            if first.is_ok() {
                first = r;
            }
        }
        first
    }

    fn alloc(&self, device: u32, bytes: u64) -> Result<DevicePtr> {
        self.raw_alloc(device, device, bytes, DEVICE_ALIGN).map(DevicePtr)
    }

    fn alloc_managed(&self, device: u32, bytes: u64) -> Result<DevicePtr> {
        self.alloc(device, bytes)
    }

    unsafe fn free(&self, device: u32, ptr: DevicePtr) -> Result<()> {
        self.check_device(device)?;
        self.raw_free(device, ptr.0)
    }

    fn alloc_host(&self, device: u32, bytes: u64) -> Result<*mut u8> {
        self.raw_alloc(HOST_DEVICE, device, bytes, HOST_ALIGN).map(|a| a as *mut u8)
    }

    unsafe fn free_host(&self, _device: u32, ptr: *mut u8) -> Result<()> {
        self.raw_free(HOST_DEVICE, ptr as u64)
    }

    unsafe fn memset_async(&self, stream: StreamHandle, dst: DevicePtr, value: u8, bytes: u64) -> Result<()> {
        // The caller guarantees [dst, dst + bytes) lies in a live allocation that outlives the
        // queued work.
        self.submit(stream, Node::Memset { dst: dst.0, value, bytes })
    }

    unsafe fn copy_async(&self, stream: StreamHandle, copy: CopyOp, bytes: u64) -> Result<()> {
        let (src, dst) = match copy {
            CopyOp::HostToDevice { src, dst } => (src as u64, dst.0),
            CopyOp::DeviceToHost { src, dst } => (src.0, dst as u64),
            CopyOp::DeviceToDevice { src, dst } => (src.0, dst.0),
            CopyOp::Peer { src, dst, .. } => (src.0, dst.0),
        };
        // The caller guarantees both ranges lie in live allocations (or host memory kept valid
        // until the copy completes).
        self.submit(stream, Node::Copy { src, dst, bytes })
    }

    fn can_access_peer(&self, device: u32, peer: u32) -> Result<bool> {
        self.check_device(device)?;
        self.check_device(peer)?;
        Ok(device != peer)
    }

    fn enable_peer_access(&self, device: u32, peer: u32) -> Result<()> {
        // CPU devices share one address space: access needs no set-up.
        self.can_access_peer(device, peer).map(|_| ())
    }

    fn stream_create(&self, device: u32, flags: StreamFlags) -> Result<StreamHandle> {
        self.check_device(device)?;
        Ok(StreamHandle(self.new_stream(device, !flags.non_blocking)))
    }

    fn default_stream(&self, device: u32, which: DefaultStream) -> Result<StreamHandle> {
        let state = self.check_device(device)?;
        match which {
            DefaultStream::Legacy => {
                let id = *state.legacy.get_or_init(|| self.new_stream(device, false));
                state.legacy_used.store(true, Ordering::Release);
                Ok(StreamHandle(id))
            }
            DefaultStream::PerThread => {
                let key = (self.id, device);
                let id = PER_THREAD
                    .with(|m| *m.borrow_mut().entry(key).or_insert_with(|| self.new_stream(device, true)));
                Ok(StreamHandle(id))
            }
        }
    }

    unsafe fn stream_destroy(&self, stream: StreamHandle) -> Result<()> {
        let s = lock(&self.streams)
            .remove(&stream.0)
            .ok_or(BackendError::InvalidHandle { what: "stream", handle: stream.0 })?;
        s.destroy();
        Ok(())
    }

    unsafe fn stream_synchronize(&self, stream: StreamHandle) -> Result<()> {
        self.refuse_if_capturing(stream, "synchronizing a stream")?;
        self.stream(stream)?.synchronize()
    }

    unsafe fn stream_query(&self, stream: StreamHandle) -> Result<bool> {
        self.refuse_if_capturing(stream, "querying a stream")?;
        Ok(self.stream(stream)?.idle())
    }

    unsafe fn stream_wait_event(&self, stream: StreamHandle, event: EventHandle) -> Result<()> {
        self.refuse_if_capturing(stream, "waiting on an event")?;
        let event = self.event(event)?;
        let generation = event.last_record();
        self.queue(
            stream,
            Box::new(move || {
                event.wait_for(generation);
                Ok(())
            }),
        )
    }

    unsafe fn stream_add_callback(&self, stream: StreamHandle, callback: HostCallback) -> Result<()> {
        self.refuse_if_capturing(stream, "adding a host callback")?;
        self.queue(
            stream,
            Box::new(move || {
                callback();
                Ok(())
            }),
        )
    }

    unsafe fn stream_wait_value(
        &self,
        stream: StreamHandle,
        addr: DevicePtr,
        value: StreamWord,
        condition: WaitCondition,
    ) -> Result<()> {
        // The caller guarantees the word is aligned and stays mapped until the wait completes.
        self.submit(stream, Node::WaitValue { addr: addr.0, value, condition })
    }

    unsafe fn stream_write_value(
        &self,
        stream: StreamHandle,
        addr: DevicePtr,
        value: StreamWord,
    ) -> Result<()> {
        // The caller guarantees the word is aligned and stays mapped until the write completes.
        self.submit(stream, Node::WriteValue { addr: addr.0, value })
    }

    fn event_create(&self, device: u32, flags: EventFlags) -> Result<EventHandle> {
        self.check_device(device)?;
        let id = self.handle();
        lock(&self.events).insert(id, Arc::new(CpuEvent::new(flags.timing)));
        Ok(EventHandle(id))
    }

    unsafe fn event_destroy(&self, event: EventHandle) -> Result<()> {
        lock(&self.events)
            .remove(&event.0)
            .map(|_| ())
            .ok_or(BackendError::InvalidHandle { what: "event", handle: event.0 })
    }

    unsafe fn event_record(&self, event: EventHandle, stream: StreamHandle) -> Result<()> {
        self.refuse_if_capturing(stream, "recording an event")?;
        let e = self.event(event)?;
        let s = self.stream(stream)?;
        let generation = e.begin_record();
        let state = &self.devices[s.device as usize];
        if state.legacy_used.load(Ordering::Acquire) {
            // The record must also follow what the legacy ordering makes the stream wait for.
            self.enqueue(&s, Box::new(|| Ok(())))?;
        }
        s.push_marker(e, generation)
    }

    unsafe fn event_synchronize(&self, event: EventHandle) -> Result<()> {
        let e = self.event(event)?;
        e.wait_for(e.last_record());
        Ok(())
    }

    unsafe fn event_query(&self, event: EventHandle) -> Result<bool> {
        Ok(self.event(event)?.query())
    }

    unsafe fn event_elapsed_ms(&self, start: EventHandle, end: EventHandle) -> Result<f32> {
        let (a, b) = (self.event(start)?, self.event(end)?);
        if !a.timing || !b.timing {
            return Err(BackendError::EventNotReady { reason: "an event was created without timing" });
        }
        match (a.timestamp(), b.timestamp()) {
            (Some(t0), Some(t1)) => {
                let ms = if t1 >= t0 {
                    t1.duration_since(t0).as_secs_f64() * 1e3
                } else {
                    -(t0.duration_since(t1).as_secs_f64() * 1e3)
                };
                Ok(ms as f32)
            }
            _ => Err(BackendError::EventNotReady {
                reason: "an event has not been recorded or has not completed",
            }),
        }
    }

    fn module_load(&self, device: u32, image: &ModuleImage) -> Result<ModuleHandle> {
        self.check_device(device)?;
        match image {
            ModuleImage::Cpu(module) => {
                let id = self.handle();
                lock(&self.modules).insert(id, (device, Arc::clone(module)));
                Ok(ModuleHandle(id))
            }
            ModuleImage::Ptx(_) => {
                Err(BackendError::Unsupported { backend: BackendKind::Cpu, what: "PTX modules" })
            }
        }
    }

    unsafe fn module_unload(&self, module: ModuleHandle) -> Result<()> {
        lock(&self.modules)
            .remove(&module.0)
            .map(|_| ())
            .ok_or(BackendError::InvalidHandle { what: "module", handle: module.0 })
    }

    unsafe fn module_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle> {
        let (device, m) = lock(&self.modules)
            .get(&module.0)
            .cloned()
            .ok_or(BackendError::InvalidHandle { what: "module", handle: module.0 })?;
        let kernel = m.function(name).ok_or_else(|| BackendError::FunctionNotFound { name: name.into() })?;
        let id = self.handle();
        lock(&self.functions).insert(id, Arc::new(Function { kernel, name: name.into(), device }));
        Ok(FunctionHandle(id))
    }

    unsafe fn module_global(&self, module: ModuleHandle, name: &str) -> Result<(DevicePtr, u64)> {
        let (_, m) = lock(&self.modules)
            .get(&module.0)
            .cloned()
            .ok_or(BackendError::InvalidHandle { what: "module", handle: module.0 })?;
        m.global(name)
            .map(|(addr, size)| (DevicePtr(addr), size))
            .ok_or_else(|| BackendError::FunctionNotFound { name: name.into() })
    }

    unsafe fn function_attributes(&self, function: FunctionHandle) -> Result<FunctionAttributes> {
        Ok(self.function(function)?.kernel.attributes())
    }

    unsafe fn function_set_attribute(
        &self,
        function: FunctionHandle,
        _attribute: FunctionAttribute,
        _value: i32,
    ) -> Result<()> {
        // The executor has no per-function limits to raise; the runtime validated the value.
        self.function(function).map(|_| ())
    }

    unsafe fn max_active_blocks_per_cu(
        &self,
        function: FunctionHandle,
        block_threads: u32,
        dynamic_shared_bytes: u32,
    ) -> Result<u32> {
        let f = self.function(function)?;
        let p = &self.properties[f.device as usize];
        // The GPU's occupancy rules, so a launch the CPU accepts would also run on a GPU.
        let by_threads = p.max_threads_per_cu / block_threads.max(1);
        let shared = f.kernel.attributes().static_shared_bytes as u64 + dynamic_shared_bytes as u64;
        let by_shared = p.shared_mem_per_cu.checked_div(shared).map_or(u32::MAX, |n| n as u32);
        Ok(by_threads.min(by_shared).min(32))
    }

    fn tensor_map_encode(&self, device: u32, desc: &TensorMapDesc) -> Result<[u8; TENSOR_MAP_BYTES]> {
        self.check_device(device)?;
        desc.to_cpu_bytes().map_err(|rule| BackendError::InvalidValue {
            call: "tensor_map_encode",
            message: rule.to_string(),
        })
    }

    unsafe fn launch(
        &self,
        function: FunctionHandle,
        dims: LaunchDims,
        stream: StreamHandle,
        args: &[&[u8]],
    ) -> Result<()> {
        let f = self.function(function)?;
        debug_assert_eq!(
            Some(f.device),
            self.stream(stream).ok().map(|s| s.device),
            "the runtime checks that function and stream share a device"
        );
        // The caller guaranteed that the arguments match the kernel and that every address in
        // them stays valid until the kernel completes.
        let args = args.iter().map(|a| a.to_vec()).collect();
        self.submit(stream, Node::Kernel { function: f, dims, args })
    }

    fn vmm_properties(&self, device: u32) -> Result<VmmProperties> {
        self.vmm_properties_impl(device)
    }

    fn mem_create(&self, device: u32, bytes: u64, flags: MemCreateFlags) -> Result<MemHandle> {
        self.vmm_create(device, bytes, flags)
    }

    unsafe fn mem_release(&self, device: u32, memory: MemHandle) -> Result<()> {
        self.vmm_release(device, memory)
    }

    fn mem_reserve(&self, device: u32, bytes: u64) -> Result<DevicePtr> {
        self.vmm_reserve(device, bytes)
    }

    unsafe fn mem_unreserve(&self, device: u32, ptr: DevicePtr, bytes: u64) -> Result<()> {
        self.vmm_unreserve(device, ptr, bytes)
    }

    unsafe fn mem_map(&self, device: u32, ptr: DevicePtr, bytes: u64, memory: MemHandle) -> Result<()> {
        self.vmm_map(device, ptr, bytes, memory)
    }

    unsafe fn mem_unmap(&self, device: u32, ptr: DevicePtr, bytes: u64) -> Result<()> {
        self.vmm_unmap(device, ptr, bytes)
    }

    unsafe fn mem_set_access(&self, device: u32, ptr: DevicePtr, bytes: u64, devices: &[u32]) -> Result<()> {
        self.vmm_set_access(device, ptr, bytes, devices)
    }

    unsafe fn mem_export(&self, device: u32, memory: MemHandle) -> Result<std::os::fd::OwnedFd> {
        self.vmm_export(device, memory)
    }

    fn mem_import(&self, device: u32, fd: std::os::fd::BorrowedFd<'_>, bytes: u64) -> Result<MemHandle> {
        self.vmm_import(device, fd, bytes)
    }

    unsafe fn stream_begin_capture(&self, stream: StreamHandle) -> Result<()> {
        self.begin_capture(stream)
    }

    unsafe fn stream_end_capture(&self, stream: StreamHandle) -> Result<GraphHandle> {
        self.end_capture(stream)
    }

    unsafe fn stream_capture_last_node(&self, stream: StreamHandle) -> Result<GraphNodeHandle> {
        self.capture_last_node(stream)
    }

    unsafe fn graph_destroy(&self, graph: GraphHandle) -> Result<()> {
        self.destroy_graph(graph)
    }

    unsafe fn graph_instantiate(&self, graph: GraphHandle) -> Result<GraphExecHandle> {
        self.instantiate(graph)
    }

    unsafe fn graph_exec_destroy(&self, exec: GraphExecHandle) -> Result<()> {
        self.destroy_exec(exec)
    }

    unsafe fn graph_launch(&self, exec: GraphExecHandle, stream: StreamHandle) -> Result<()> {
        self.launch_graph(exec, stream)
    }

    unsafe fn graph_exec_set_kernel_params(
        &self,
        exec: GraphExecHandle,
        node: GraphNodeHandle,
        function: FunctionHandle,
        dims: LaunchDims,
        args: &[&[u8]],
    ) -> Result<()> {
        self.set_kernel_node(exec, node, function, dims, args)
    }
}

fn cpuinfo(field: &str) -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    Some(line.split_once(':')?.1.trim().to_string())
}

fn cache_bytes(level_index: u32) -> u64 {
    let path = format!("/sys/devices/system/cpu/cpu0/cache/index{level_index}/size");
    let Ok(text) = std::fs::read_to_string(path) else { return 0 };
    let t = text.trim();
    let (num, mult) = match t.strip_suffix('K') {
        Some(n) => (n, 1024),
        None => match t.strip_suffix('M') {
            Some(n) => (n, 1 << 20),
            None => (t, 1),
        },
    };
    num.parse::<u64>().map(|n| n * mult).unwrap_or(0)
}

/// A stable UUID-shaped identifier for CPU device `index` on this machine.
fn cpu_uuid(index: u32) -> String {
    let seed = std::fs::read_to_string("/etc/machine-id").unwrap_or_default();
    // FNV-1a over the machine id and the index: stable across runs, distinct per device.
    let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
    for b in seed.trim().bytes().chain(index.to_le_bytes()) {
        h ^= b as u128;
        h = h.wrapping_mul(0x0000000001000000000000000000013B);
    }
    let x = format!("{h:032x}");
    format!("{}-{}-{}-{}-{}", &x[0..8], &x[8..12], &x[12..16], &x[16..20], &x[20..32])
}

fn host_properties(index: u32) -> DeviceProperties {
    let threads = std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(1);
    let model = cpuinfo("model name").unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let mhz: f64 = cpuinfo("cpu MHz").and_then(|m| m.parse().ok()).unwrap_or(0.0);
    DeviceProperties {
        name: format!("CPU {index}: {model}"),
        arch: std::env::consts::ARCH.to_string(),
        compute_capability: (0, 0),
        compute_units: threads,
        warp_size: 32,
        max_threads_per_block: 1024,
        max_block_dim: [1024, 1024, 64],
        max_grid_dim: [i32::MAX as u32, 65535, 65535],
        shared_mem_per_block: 48 * 1024,
        shared_mem_per_block_optin: 227 * 1024,
        shared_mem_per_cu: 228 * 1024,
        registers_per_block: 65536,
        registers_per_cu: 65536,
        max_threads_per_cu: 2048,
        clock_khz: (mhz * 1000.0) as u32,
        memory_clock_khz: 0,
        memory_bus_width: 0,
        l2_cache_bytes: cache_bytes(2),
        total_memory: memory::host_memory().total,
        pci_bus_id: String::new(),
        uuid: cpu_uuid(index),
        managed_memory: true,
        concurrent_kernels: true,
        async_engines: 1,
        target: Target::cpu_exec(),
    }
}
