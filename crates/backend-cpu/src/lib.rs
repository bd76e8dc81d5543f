//! ferrocm's CPU backend: the embedded default device that exists on every machine, and the
//! reference every GPU result is checked against.
//!
//! Device memory is host memory (a [`DevicePtr`] is a host address), so copies are `memcpy`s.
//! Each stream is an ordered queue drained by its own worker thread: work really runs in the
//! background, in order, and events carry the time at which the stream reached them. Kernels
//! are [`CpuKernel`]s (the kernel language's CPU executor, or native Rust) run on the stream's
//! worker; a kernel's error is kept and reported by the next synchronize, as a GPU reports a
//! fault. Several CPU devices can be created so that multi-device code can be tested anywhere;
//! they share the address space, so every pair can access each other as peers.

mod stream;

use std::alloc::Layout;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use ferrocm_backend::{
    Backend, BackendError, BackendInfo, BackendKind, CopyOp, CpuKernel, CpuModule, DeviceProperties,
    DevicePtr, EventFlags, EventHandle, FunctionAttributes, FunctionHandle, HostCallback, LaunchDims,
    ModuleHandle, ModuleImage, Result, StreamFlags, StreamHandle, Target,
};
use stream::{CpuEvent, CpuStream};

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

/// The CPU backend with `n` devices.
pub struct CpuBackend {
    properties: Vec<DeviceProperties>,
    next_handle: AtomicU64,
    /// Live allocations per address: (device, layout); `u32::MAX` marks host allocations.
    allocations: Mutex<HashMap<u64, (u32, Layout)>>,
    used: Vec<AtomicU64>,
    streams: Mutex<HashMap<u64, Arc<CpuStream>>>,
    events: Mutex<HashMap<u64, Arc<CpuEvent>>>,
    modules: Mutex<HashMap<u64, ModuleEntry>>,
    functions: Mutex<HashMap<u64, Arc<Function>>>,
}

const HOST_DEVICE: u32 = u32::MAX;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The tables are only mutated by whole inserts and removes, so a panic elsewhere while
    // holding the lock cannot leave them half-updated.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl CpuBackend {
    /// Creates a CPU backend with `devices` devices (at least one).
    pub fn new(devices: u32) -> CpuBackend {
        let devices = devices.max(1);
        let properties = (0..devices).map(host_properties).collect();
        CpuBackend {
            properties,
            next_handle: AtomicU64::new(1),
            allocations: Mutex::default(),
            used: (0..devices).map(|_| AtomicU64::new(0)).collect(),
            streams: Mutex::default(),
            events: Mutex::default(),
            modules: Mutex::default(),
            functions: Mutex::default(),
        }
    }

    fn handle(&self) -> u64 {
        self.next_handle.fetch_add(1, Ordering::Relaxed)
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

    fn raw_alloc(&self, owner: u32, bytes: u64, align: usize) -> Result<u64> {
        let device = if owner == HOST_DEVICE { 0 } else { owner };
        let free = available_memory();
        let oom = || BackendError::OutOfMemory { device, requested: bytes, free };
        if bytes > free {
            return Err(oom());
        }
        let size = usize::try_from(bytes).map_err(|_| oom())?;
        let layout = Layout::from_size_align(size.max(1), align).map_err(|_| oom())?;
        // SAFETY: the layout has a non-zero size. Zeroed memory keeps every later read of the
        // allocation (copies back to the host) a read of initialised bytes.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(oom());
        }
        lock(&self.allocations).insert(ptr as u64, (owner, layout));
        if owner != HOST_DEVICE {
            self.used[owner as usize].fetch_add(layout.size() as u64, Ordering::Relaxed);
        }
        Ok(ptr as u64)
    }

    fn raw_free(&self, owner: u32, addr: u64) -> Result<()> {
        // As cudaFree does, freeing waits for queued work that may still use the memory.
        let streams: Vec<_> = lock(&self.streams)
            .values()
            .filter(|s| owner == HOST_DEVICE || s.device == owner)
            .cloned()
            .collect();
        for s in streams {
            s.wait_idle();
        }
        let mut allocations = lock(&self.allocations);
        match allocations.get(&addr) {
            Some(&(o, layout)) if o == owner => {
                allocations.remove(&addr);
                drop(allocations);
                if owner != HOST_DEVICE {
                    self.used[owner as usize].fetch_sub(layout.size() as u64, Ordering::Relaxed);
                }
                // SAFETY: `addr` was returned by `alloc_zeroed` with exactly this layout and has
                // just been removed from the table, so it is freed once.
                unsafe { std::alloc::dealloc(addr as *mut u8, layout) };
                Ok(())
            }
            _ => Err(BackendError::InvalidHandle { what: "allocation", handle: addr }),
        }
    }

    fn queue(&self, stream: StreamHandle, job: stream::Job) -> Result<()> {
        self.stream(stream)?.push(job);
        Ok(())
    }
}

impl Default for CpuBackend {
    fn default() -> Self {
        CpuBackend::new(1)
    }
}

impl Drop for CpuBackend {
    fn drop(&mut self) {
        for (_, stream) in lock(&self.streams).drain() {
            stream.shutdown();
        }
        for (addr, (_, layout)) in lock(&self.allocations).drain() {
            // SAFETY: every table entry is a live allocation made with this layout.
            unsafe { std::alloc::dealloc(addr as *mut u8, layout) };
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
        Ok(self.properties[device as usize].clone())
    }

    fn mem_info(&self, device: u32) -> Result<(u64, u64)> {
        let total = self.properties[device as usize].total_memory;
        let used = self.used[device as usize].load(Ordering::Relaxed);
        Ok((available_memory().min(total.saturating_sub(used)), total))
    }

    fn device_synchronize(&self, device: u32) -> Result<()> {
        let streams: Vec<_> = lock(&self.streams).values().filter(|s| s.device == device).cloned().collect();
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
        self.raw_alloc(device, bytes, DEVICE_ALIGN).map(DevicePtr)
    }

    fn alloc_managed(&self, device: u32, bytes: u64) -> Result<DevicePtr> {
        self.alloc(device, bytes)
    }

    fn free(&self, device: u32, ptr: DevicePtr) -> Result<()> {
        self.raw_free(device, ptr.0)
    }

    fn alloc_host(&self, bytes: u64) -> Result<*mut u8> {
        self.raw_alloc(HOST_DEVICE, bytes, HOST_ALIGN).map(|a| a as *mut u8)
    }

    fn free_host(&self, ptr: *mut u8) -> Result<()> {
        self.raw_free(HOST_DEVICE, ptr as u64)
    }

    fn memset_async(&self, stream: StreamHandle, dst: DevicePtr, value: u8, bytes: u64) -> Result<()> {
        self.queue(
            stream,
            Box::new(move || {
                // SAFETY: the runtime checked that [dst, dst + bytes) lies in a live allocation
                // that outlives the queued work.
                unsafe { std::ptr::write_bytes(dst.0 as *mut u8, value, bytes as usize) };
                Ok(())
            }),
        )
    }

    fn copy_async(&self, stream: StreamHandle, copy: CopyOp, bytes: u64) -> Result<()> {
        let (src, dst) = match copy {
            CopyOp::HostToDevice { src, dst } => (src as u64, dst.0),
            CopyOp::DeviceToHost { src, dst } => (src.0, dst as u64),
            CopyOp::DeviceToDevice { src, dst } => (src.0, dst.0),
            CopyOp::Peer { src, dst, .. } => (src.0, dst.0),
        };
        self.queue(
            stream,
            Box::new(move || {
                // SAFETY: the runtime checked both ranges against live allocations (or borrowed
                // host slices it keeps alive until the copy completes); `copy` allows overlap.
                unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes as usize) };
                Ok(())
            }),
        )
    }

    fn can_access_peer(&self, device: u32, peer: u32) -> Result<bool> {
        Ok(device != peer)
    }

    fn enable_peer_access(&self, _device: u32, _peer: u32) -> Result<()> {
        // CPU devices share one address space: access needs no set-up.
        Ok(())
    }

    fn stream_create(&self, device: u32, _flags: StreamFlags) -> Result<StreamHandle> {
        let id = self.handle();
        let stream = CpuStream::new(device, format!("ferrocm-cpu{device}-stream{id}"))
            .map_err(|e| BackendError::Os { what: "a stream worker thread", message: e.to_string() })?;
        lock(&self.streams).insert(id, Arc::new(stream));
        Ok(StreamHandle(id))
    }

    fn stream_destroy(&self, stream: StreamHandle) -> Result<()> {
        let s = lock(&self.streams)
            .remove(&stream.0)
            .ok_or(BackendError::InvalidHandle { what: "stream", handle: stream.0 })?;
        s.shutdown();
        Ok(())
    }

    fn stream_synchronize(&self, stream: StreamHandle) -> Result<()> {
        self.stream(stream)?.synchronize()
    }

    fn stream_query(&self, stream: StreamHandle) -> Result<bool> {
        Ok(self.stream(stream)?.idle())
    }

    fn stream_wait_event(&self, stream: StreamHandle, event: EventHandle) -> Result<()> {
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

    fn stream_add_callback(&self, stream: StreamHandle, callback: HostCallback) -> Result<()> {
        self.queue(
            stream,
            Box::new(move || {
                callback();
                Ok(())
            }),
        )
    }

    fn event_create(&self, _device: u32, flags: EventFlags) -> Result<EventHandle> {
        let id = self.handle();
        lock(&self.events).insert(id, Arc::new(CpuEvent::new(flags.timing)));
        Ok(EventHandle(id))
    }

    fn event_destroy(&self, event: EventHandle) -> Result<()> {
        lock(&self.events)
            .remove(&event.0)
            .map(|_| ())
            .ok_or(BackendError::InvalidHandle { what: "event", handle: event.0 })
    }

    fn event_record(&self, event: EventHandle, stream: StreamHandle) -> Result<()> {
        let e = self.event(event)?;
        let s = self.stream(stream)?;
        let generation = e.begin_record();
        s.push_marker(e, generation);
        Ok(())
    }

    fn event_synchronize(&self, event: EventHandle) -> Result<()> {
        let e = self.event(event)?;
        e.wait_for(e.last_record());
        Ok(())
    }

    fn event_query(&self, event: EventHandle) -> Result<bool> {
        Ok(self.event(event)?.query())
    }

    fn event_elapsed_ms(&self, start: EventHandle, end: EventHandle) -> Result<f32> {
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

    fn module_unload(&self, module: ModuleHandle) -> Result<()> {
        lock(&self.modules)
            .remove(&module.0)
            .map(|_| ())
            .ok_or(BackendError::InvalidHandle { what: "module", handle: module.0 })
    }

    fn module_function(&self, module: ModuleHandle, name: &str) -> Result<FunctionHandle> {
        let (device, m) = lock(&self.modules)
            .get(&module.0)
            .cloned()
            .ok_or(BackendError::InvalidHandle { what: "module", handle: module.0 })?;
        let kernel = m.function(name).ok_or_else(|| BackendError::FunctionNotFound { name: name.into() })?;
        let id = self.handle();
        lock(&self.functions).insert(id, Arc::new(Function { kernel, name: name.into(), device }));
        Ok(FunctionHandle(id))
    }

    fn function_attributes(&self, function: FunctionHandle) -> Result<FunctionAttributes> {
        let f = lock(&self.functions)
            .get(&function.0)
            .cloned()
            .ok_or(BackendError::InvalidHandle { what: "function", handle: function.0 })?;
        Ok(f.kernel.attributes())
    }

    fn tensor_map_encode(
        &self,
        _device: u32,
        desc: &ferrocm_backend::tensor_map::TensorMapDesc,
    ) -> Result<[u8; ferrocm_backend::tensor_map::TENSOR_MAP_BYTES]> {
        desc.to_cpu_bytes().map_err(|rule| BackendError::InvalidValue {
            call: "tensor_map_encode",
            message: rule.to_string(),
        })
    }

    fn launch(
        &self,
        function: FunctionHandle,
        dims: LaunchDims,
        stream: StreamHandle,
        args: &[&[u8]],
    ) -> Result<()> {
        let f = lock(&self.functions)
            .get(&function.0)
            .cloned()
            .ok_or(BackendError::InvalidHandle { what: "function", handle: function.0 })?;
        let s = self.stream(stream)?;
        debug_assert_eq!(f.device, s.device, "the runtime checks that function and stream share a device");
        let owned: Vec<Vec<u8>> = args.iter().map(|a| a.to_vec()).collect();
        s.push(Box::new(move || {
            let views: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
            // SAFETY: the runtime validated the arguments against the live allocations they point
            // into and keeps them alive until the stream has run the launch (the backend's
            // contract for `launch`).
            unsafe { f.kernel.launch(dims, &views) }
                .map_err(|message| BackendError::KernelFailed { kernel: f.name.clone(), message })
        }));
        Ok(())
    }
}

/// Reads a `/proc/meminfo` field in bytes.
fn meminfo(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn available_memory() -> u64 {
    meminfo("MemAvailable:").unwrap_or(8 << 30)
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
        total_memory: meminfo("MemTotal:").unwrap_or(8 << 30),
        pci_bus_id: String::new(),
        uuid: cpu_uuid(index),
        managed_memory: true,
        concurrent_kernels: true,
        async_engines: 1,
        target: Target::cpu_exec(),
    }
}
