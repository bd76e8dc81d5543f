//! The library's state: HIP's devices (the GPUs, or the CPU where there is none), the handle
//! tables behind the opaque C handles, the allocations, the code objects (registered fat
//! binaries and loaded modules) and the calling thread's current device.
//!
//! Handles are numbers from one counter, never pointers this library dereferences, so a bad
//! handle from C is an error (`hipErrorInvalidHandle`), not a crash. The registration hooks run
//! before `main` and touch only the registry (no device is opened until the first API call).

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use ferrocm_ptx_frontend::{CpuPtxModule, ParamLayout, PtxModule};
use ferrocm_runtime::{
    timed_ptx, BackendKind, Device, DeviceBuffer, Event, Function, HostBuffer, Module, ModuleImage, Stream,
};

use crate::error::{Failure, HipError, HipResult};

pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A stream created through the API.
pub struct StreamEntry {
    pub stream: Stream,
    pub device: usize,
    pub flags: u32,
    pub priority: i32,
}

/// An event created through the API.
pub struct EventEntry {
    pub event: Event,
    pub device: usize,
    pub flags: u32,
    pub recorded: std::sync::atomic::AtomicBool,
}

/// Memory the API allocated (the buffers are held for their `Drop`, which frees them).
pub enum Alloc {
    Device { _buffer: DeviceBuffer<u8>, device: usize },
    Pinned { _buffer: HostBuffer<u8>, device: usize, flags: u32 },
}

impl Alloc {
    pub fn device(&self) -> usize {
        match self {
            Alloc::Device { device, .. } | Alloc::Pinned { device, .. } => *device,
        }
    }
}

/// A module loaded through `hipModuleLoad*`.
pub struct ModuleEntry {
    pub code: Arc<Code>,
    pub device: usize,
}

/// A kernel looked up with `hipModuleGetFunction`.
pub struct FunctionEntry {
    pub kernel: Kernel,
    pub device: usize,
    /// The module handle it came from (unloading the module invalidates it).
    pub module: u64,
}

/// A kernel loaded on one device, with its parameter layout from the PTX.
#[derive(Clone)]
pub struct Kernel {
    pub function: Function,
    pub params: Arc<[ParamLayout]>,
    pub name: Arc<str>,
}

/// Where a module loaded on one device lives.
#[derive(Clone)]
struct Loaded {
    module: Module,
    cpu: Option<Arc<CpuPtxModule>>,
}

/// Device code: PTX from a fat binary or `hipModuleLoadData`, loaded lazily per device.
pub struct Code {
    ptx: Result<Arc<str>, String>,
    parsed: OnceLock<Result<PtxModule, String>>,
    loaded: Mutex<HashMap<usize, Loaded>>,
    kernels: Mutex<HashMap<(usize, String), Kernel>>,
    /// Features of the code this library cannot provide (e.g. `__managed__` variables).
    pub unsupported: Mutex<Vec<String>>,
}

impl Code {
    pub fn new(ptx: Result<Arc<str>, String>) -> Code {
        Code {
            ptx,
            parsed: OnceLock::new(),
            loaded: Mutex::default(),
            kernels: Mutex::default(),
            unsupported: Mutex::default(),
        }
    }

    fn text(&self) -> HipResult<&Arc<str>> {
        self.ptx.as_ref().map_err(|m| Failure::new(HipError::hipErrorNoBinaryForGpu, m.clone()))
    }

    pub fn parsed(&self) -> HipResult<&PtxModule> {
        let text = self.text()?;
        self.parsed
            .get_or_init(|| PtxModule::parse(text).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|m| Failure::new(HipError::hipErrorInvalidImage, m.clone()))
    }

    fn load(&self, hip_device: usize) -> HipResult<Loaded> {
        if let Some(l) = lock(&self.loaded).get(&hip_device) {
            return Ok(l.clone());
        }
        if let Some(what) = lock(&self.unsupported).first() {
            return Err(Failure::new(HipError::hipErrorNotSupported, what.clone()));
        }
        let device = hip()?.device(hip_device)?;
        let l = match device.kind() {
            BackendKind::Cpu => match self.load_cpu_timed(&device) {
                Some(l) => l,
                None => {
                    let m = self
                        .parsed()?
                        .load_cpu(Arc::new(crate::cpu::HostMemory))
                        .map_err(|e| Failure::new(HipError::hipErrorInvalidImage, e.to_string()))?;
                    Loaded { module: device.load_module(ModuleImage::Cpu(m.clone()))?, cpu: Some(m) }
                }
            },
            // The runtime adds the timed copies to PTX it loads while kernels are traced.
            _ => {
                Loaded { module: device.load_module(ModuleImage::Ptx(self.text()?.to_string()))?, cpu: None }
            }
        };
        Ok(lock(&self.loaded).entry(hip_device).or_insert(l).clone())
    }

    /// While kernels are traced, the module on the CPU device from its text with timed copies of
    /// its kernels added (`timed_ptx`), so the CPU runs the very PTX a GPU would JIT for a traced
    /// launch; `None` when nothing is traced or the rewritten text does not load (the text as
    /// given is loaded then, and its kernels are timed by events). A copy the front end cannot
    /// translate leaves its kernel timed by events.
    fn load_cpu_timed(&self, device: &Device) -> Option<Loaded> {
        if !ferrocm_runtime::trace::kernels_traced() {
            return None;
        }
        let t = timed_ptx::instrument(self.text().ok()?).ok()?;
        if t.entries.is_empty() {
            return None;
        }
        let m = PtxModule::parse(&t.text).ok()?.load_cpu(Arc::new(crate::cpu::HostMemory)).ok()?;
        let entries = t.entries.into_iter().filter(|e| m.kernel_error(&e.timed).is_none()).collect();
        let module = device.load_module_with_timed(ModuleImage::Cpu(m.clone()), entries).ok()?;
        Some(Loaded { module, cpu: Some(m) })
    }

    /// Kernel `name` on HIP device `hip_device`.
    pub fn kernel(&self, hip_device: usize, name: &str) -> HipResult<Kernel> {
        let key = (hip_device, name.to_string());
        if let Some(k) = lock(&self.kernels).get(&key) {
            return Ok(k.clone());
        }
        let Some(sig) = self.parsed()?.kernel(name) else {
            return Err(Failure::new(
                HipError::hipErrorNotFound,
                format!("the module has no kernel `{name}`"),
            ));
        };
        let loaded = self.load(hip_device)?;
        if let Some(e) = loaded.cpu.as_ref().and_then(|c| c.kernel_error(name)) {
            return Err(Failure::new(HipError::hipErrorInvalidDeviceFunction, e));
        }
        let function = loaded.module.function(name)?;
        let k = Kernel { function, params: sig.params.into(), name: name.into() };
        Ok(lock(&self.kernels).entry(key).or_insert(k).clone())
    }

    /// The device address and size of module variable `name` on HIP device `hip_device`.
    pub fn global(&self, hip_device: usize, name: &str) -> HipResult<(u64, u64)> {
        let loaded = self.load(hip_device)?;
        let (ptr, size) = loaded.module.global(name)?;
        Ok((ptr.0, size))
    }

    /// Forgets the modules loaded on one device (after a device reset).
    pub fn unload(&self, hip_device: usize) {
        GENERATION.fetch_add(1, Ordering::AcqRel);
        lock(&self.loaded).remove(&hip_device);
        lock(&self.kernels).retain(|k, _| k.0 != hip_device);
    }
}

/// The state of the API.
pub struct Hip {
    pub devices: Vec<Device>,
    pub streams: Mutex<HashMap<u64, Arc<StreamEntry>>>,
    pub events: Mutex<HashMap<u64, Arc<EventEntry>>>,
    pub modules: Mutex<HashMap<u64, Arc<ModuleEntry>>>,
    pub functions: Mutex<HashMap<u64, Arc<FunctionEntry>>>,
    pub allocs: Mutex<BTreeMap<u64, Alloc>>,
    /// (device, peer) pairs enabled through the API (the runtime cannot disable access).
    pub peers: Mutex<HashSet<(usize, usize)>>,
    pub device_flags: Mutex<HashMap<usize, u32>>,
}

/// The next handle value. Small values are reserved (0, 1 and 2 are HIP's special streams).
pub fn new_handle() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0x100);
    NEXT.fetch_add(0x10, Ordering::Relaxed)
}

static HIP: OnceLock<Result<Hip, (HipError, String)>> = OnceLock::new();

/// The API's state, initialised on first use (which opens the devices).
pub fn hip() -> HipResult<&'static Hip> {
    HIP.get_or_init(|| {
        let fail = |e: ferrocm_runtime::Error| (crate::error::code_of(&e), e.to_string());
        // The default device decides (a GPU where present; FERROCM_BACKEND=cuda without one is
        // an error, not a quiet fall-back to the CPU).
        let default = Device::default_device().map_err(fail)?;
        let all = Device::all().map_err(fail)?;
        let devices: Vec<Device> = if default.kind() == BackendKind::Cpu {
            all.into_iter().filter(|d| d.kind() == BackendKind::Cpu).collect()
        } else {
            all.into_iter().filter(|d| d.kind() != BackendKind::Cpu).collect()
        };
        if devices.is_empty() {
            return Err((HipError::hipErrorNoDevice, "no device is visible".into()));
        }
        Ok(Hip {
            devices,
            streams: Mutex::default(),
            events: Mutex::default(),
            modules: Mutex::default(),
            functions: Mutex::default(),
            allocs: Mutex::default(),
            peers: Mutex::default(),
            device_flags: Mutex::default(),
        })
    })
    .as_ref()
    .map_err(|(c, m)| Failure::new(*c, m.clone()))
}

thread_local! {
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

impl Hip {
    pub fn device(&self, index: usize) -> HipResult<Device> {
        self.devices.get(index).cloned().ok_or_else(|| {
            Failure::new(
                HipError::hipErrorInvalidDevice,
                format!("device {index} does not exist ({} device(s))", self.devices.len()),
            )
        })
    }

    /// HIP's index of a runtime device.
    pub fn index_of(&self, d: &Device) -> Option<usize> {
        self.devices.iter().position(|x| x == d)
    }

    pub fn current(&self) -> usize {
        CURRENT.get()
    }

    pub fn set_current(&self, index: usize) -> HipResult<()> {
        self.device(index)?;
        CURRENT.set(index);
        Ok(())
    }

    pub fn current_device(&self) -> HipResult<Device> {
        self.device(self.current())
    }

    /// The stream a handle names: 0 and `hipStreamLegacy` are the current device's legacy
    /// default stream, `hipStreamPerThread` its per-thread stream.
    pub fn stream(&self, handle: u64) -> HipResult<Stream> {
        match handle {
            0 | 1 => Ok(self.current_device()?.legacy_default_stream()?),
            2 => Ok(self.current_device()?.per_thread_default_stream()?),
            h => lock(&self.streams).get(&h).map(|e| e.stream.clone()).ok_or_else(|| {
                Failure::new(HipError::hipErrorInvalidHandle, format!("unknown stream {h:#x}"))
            }),
        }
    }

    /// The null stream of HIP device `index`.
    pub fn null_stream(&self, index: usize) -> HipResult<Stream> {
        Ok(self.device(index)?.legacy_default_stream()?)
    }

    pub fn event(&self, handle: u64) -> HipResult<Arc<EventEntry>> {
        lock(&self.events).get(&handle).cloned().ok_or_else(|| {
            Failure::new(HipError::hipErrorInvalidHandle, format!("unknown event {handle:#x}"))
        })
    }
}

// ---- registration of fat binaries (before main; no device is touched) ----

/// What the compiler's generated code registered.
#[derive(Default)]
pub struct Registry {
    pub binaries: HashMap<u64, Arc<Code>>,
    /// Host stub address -> (code, kernel name).
    pub functions: HashMap<usize, (Arc<Code>, String)>,
    /// Host shadow address -> (code, variable name, size).
    pub vars: HashMap<usize, (Arc<Code>, String, u64)>,
}

pub fn registry() -> &'static Mutex<Registry> {
    static R: OnceLock<Mutex<Registry>> = OnceLock::new();
    R.get_or_init(Mutex::default)
}

/// The kernel a host stub (`hipLaunchKernel`'s function address) names, on HIP device `dev`.
pub fn registered_kernel(stub: usize, dev: usize) -> HipResult<Kernel> {
    // Launch loops name the same few kernels: a per-thread cache spares the registry's lock and
    // the code object's name lookup (cleared whenever code is unloaded or unregistered).
    /// (generation, [(stub, device, kernel)]).
    type LaunchCache = (u64, Vec<(usize, usize, Kernel)>);
    thread_local! {
        static CACHE: std::cell::RefCell<LaunchCache> = const { std::cell::RefCell::new((0, Vec::new())) };
    }
    let generation = GENERATION.load(Ordering::Acquire);
    let hit = CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.0 != generation {
            *c = (generation, Vec::new());
        }
        c.1.iter().find(|e| e.0 == stub && e.1 == dev).map(|e| e.2.clone())
    });
    if let Some(k) = hit {
        return Ok(k);
    }
    let k = lookup_kernel(stub, dev)?;
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.0 == generation && c.1.len() < 64 {
            c.1.push((stub, dev, k.clone()));
        }
    });
    Ok(k)
}

/// Bumped whenever loaded code or registrations go away, which empties the launch caches.
pub static GENERATION: AtomicU64 = AtomicU64::new(1);

fn lookup_kernel(stub: usize, dev: usize) -> HipResult<Kernel> {
    let entry = lock(registry()).functions.get(&stub).cloned();
    let Some((code, name)) = entry else {
        return Err(Failure::new(
            HipError::hipErrorInvalidDeviceFunction,
            format!("{stub:#x} is not a registered kernel (a __global__ function compiled by ferrocm hipcc)"),
        ));
    };
    code.kernel(dev, &name)
}

/// The variable a host shadow address names: its device address and size on HIP device `dev`.
pub fn registered_var(shadow: usize, dev: usize) -> HipResult<(u64, u64)> {
    let entry = lock(registry()).vars.get(&shadow).cloned();
    let Some((code, name, _)) = entry else {
        return Err(Failure::new(
            HipError::hipErrorInvalidSymbol,
            format!("{shadow:#x} is not a registered __device__ or __constant__ variable"),
        ));
    };
    code.global(dev, &name)
}
