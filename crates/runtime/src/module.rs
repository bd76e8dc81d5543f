use std::sync::atomic::{AtomicU32, Ordering};

use smallvec::SmallVec;
use std::sync::{Arc, Mutex};

use ferrocm_backend::{
    DevicePtr, Dim3, Feature, FunctionAttribute, FunctionAttributes, FunctionHandle, LaunchDims, ModuleHandle,
};

use ferrocm_ir::timed_ptx::TimedEntry;

use crate::callback::forbid;
use crate::device::Device;
use crate::memory::{AsDeviceSlice, DeviceRepr, UseTracker};
use crate::stream::Stream;
use crate::{lock, Error, Result};

/// Static shared memory a kernel may declare (the GPU's limit; dynamic shared memory beyond
/// it needs the opt-in attribute).
pub const MAX_STATIC_SHARED_BYTES: u64 = 48 * 1024;
/// Local memory a thread may use (the GPU's limit).
pub const MAX_LOCAL_BYTES_PER_THREAD: u64 = 512 * 1024;

struct ModuleInner {
    device: Device,
    handle: ModuleHandle,
    /// Kernels with a timed copy in the module (`ferrocm_ir::timed_ptx`): kernel -> copy.
    timed: Vec<TimedEntry>,
    /// Module variables looked up so far (registered as device memory in the pointer table).
    globals: Mutex<Vec<(String, DevicePtr, u64)>>,
}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        for (_, ptr, _) in lock(&self.globals).drain(..) {
            crate::pointer::unregister(ptr.0);
        }
        let (device, handle) = (self.device.clone(), self.handle);
        crate::callback::now_or_later(move || {
            let d = device.clone();
            let _ = crate::graph::release_outside_captures(&device, move || {
                // SAFETY: the last owner of the module (functions hold clones), so no launch of
                // its functions can be queued any more.
                unsafe { d.inner.backend.module_unload(handle) }.map_err(|e| d.error(e))
            });
        });
    }
}

/// A compiled module loaded on one device. Functions taken from it keep it loaded.
#[derive(Clone)]
pub struct Module {
    inner: Arc<ModuleInner>,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Module({:#x} on device {})", self.inner.handle.0, self.inner.device.index())
    }
}

impl Module {
    pub(crate) fn new(device: Device, handle: ModuleHandle, timed: Vec<TimedEntry>) -> Module {
        Module { inner: Arc::new(ModuleInner { device, handle, timed, globals: Mutex::default() }) }
    }

    /// The kernels of this module that launch a timed copy of themselves while kernels are
    /// traced (see [`Device::load_module`]), and their copies' names.
    pub fn timed_entries(&self) -> &[TimedEntry] {
        &self.inner.timed
    }

    /// The device address and size in bytes of module variable `name` (a `__device__` or
    /// `__constant__` variable). The variable is device memory of the module's device for
    /// [`crate::pointer_attributes`] and raw copies while the module is loaded.
    pub fn global(&self, name: &str) -> Result<(DevicePtr, u64)> {
        forbid("looking up a module variable")?;
        if let Some(g) = lock(&self.inner.globals).iter().find(|g| g.0 == name) {
            return Ok((g.1, g.2));
        }
        let d = &self.inner.device;
        // SAFETY: the module is live while `self` is.
        let (ptr, size) =
            unsafe { d.inner.backend.module_global(self.inner.handle, name) }.map_err(|e| d.error(e))?;
        let mut globals = lock(&self.inner.globals);
        if !globals.iter().any(|g| g.0 == name) {
            if size > 0 {
                crate::pointer::register(ptr.0, size, d.index(), crate::pointer::MemoryKind::Device);
            }
            globals.push((name.to_string(), ptr, size));
        }
        Ok((ptr, size))
    }

    /// The device the module is loaded on.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// The kernel called `name`. A kernel that declares more static shared memory or local
    /// memory per thread than a GPU allows is refused here on every backend, with the size and
    /// the limit.
    pub fn function(&self, name: &str) -> Result<Function> {
        let _t = crate::trace::api("Module::function");
        forbid("looking up a kernel")?;
        let mut f = self.lookup(name, name)?;
        // The timed copy launches in its place while kernels are traced; a copy the runtime
        // cannot take leaves the kernel timed by events.
        if let Some(e) = self.inner.timed.iter().find(|e| e.kernel == name) {
            f.timed = self.lookup(&e.timed, name).ok().map(Arc::new);
        }
        Ok(f)
    }

    /// Entry `entry`, named `name` in errors and trace records.
    fn lookup(&self, entry: &str, name: &str) -> Result<Function> {
        let d = &self.inner.device;
        // SAFETY: the module is live while `self` is.
        let handle =
            unsafe { d.inner.backend.module_function(self.inner.handle, entry) }.map_err(|e| d.error(e))?;
        // SAFETY: the function's module is live.
        let attributes = unsafe { d.inner.backend.function_attributes(handle) }.map_err(|e| d.error(e))?;
        let limits = [
            ("static shared memory bytes", attributes.static_shared_bytes as u64, MAX_STATIC_SHARED_BYTES),
            (
                "local memory bytes per thread",
                attributes.local_bytes_per_thread as u64,
                MAX_LOCAL_BYTES_PER_THREAD,
            ),
        ];
        for (what, requested, max) in limits {
            if requested > max {
                return Err(Error::KernelTooLarge { kernel: name.into(), what, requested, max });
            }
        }
        Ok(Function {
            module: self.clone(),
            handle,
            attributes,
            name: name.into(),
            state: Arc::new(FunctionState {
                // Without the attribute a launch may use 48 KiB of shared memory in all, static
                // included (static is at most 48 KiB, checked above).
                dynamic_shared_limit: AtomicU32::new(
                    (MAX_STATIC_SHARED_BYTES - attributes.static_shared_bytes as u64) as u32,
                ),
                set: Mutex::new(()),
            }),
            timed: None,
        })
    }
}

/// What the runtime set on a function, so each attribute is set once, not on every launch.
struct FunctionState {
    /// The largest dynamic shared memory a launch may use without setting the attribute again.
    dynamic_shared_limit: AtomicU32,
    /// Serialises setting attributes (the driver call and the cached value change together).
    set: Mutex<()>,
}

/// A kernel entry point, ready to launch.
#[derive(Clone)]
pub struct Function {
    module: Module,
    pub(crate) handle: FunctionHandle,
    attributes: FunctionAttributes,
    name: Arc<str>,
    state: Arc<FunctionState>,
    /// Its timed copy in the same module (PTX modules loaded while kernels are traced), which
    /// [`Stream::launch`] runs in its place while kernels are traced.
    pub(crate) timed: Option<Arc<Function>>,
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Function({} on device {})", self.name, self.module.device().index())
    }
}

impl Function {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn name_arc(&self) -> Arc<str> {
        Arc::clone(&self.name)
    }

    /// The device the kernel is loaded on.
    pub fn device(&self) -> &Device {
        self.module.device()
    }

    /// Registers, static shared memory and the largest block the kernel allows.
    pub fn attributes(&self) -> FunctionAttributes {
        self.attributes
    }

    /// How many blocks of `block_threads` threads with `dynamic_shared_bytes` of dynamic shared
    /// memory fit on one compute unit at once (`cuOccupancyMaxActiveBlocksPerMultiprocessor`).
    pub fn max_active_blocks_per_cu(&self, block_threads: u32, dynamic_shared_bytes: u32) -> Result<u32> {
        let _t = crate::trace::api("Function::max_active_blocks_per_cu");
        forbid("computing occupancy")?;
        let d = self.device();
        // SAFETY: the function's module is live while `self` is.
        unsafe { d.inner.backend.max_active_blocks_per_cu(self.handle, block_threads, dynamic_shared_bytes) }
            .map_err(|e| d.error(e))
    }

    /// Raises the function's dynamic shared memory limit to allow `bytes`, once: later launches
    /// that need no more than what was set skip the driver call.
    pub(crate) fn allow_dynamic_shared(&self, bytes: u32) -> Result<()> {
        if bytes <= self.state.dynamic_shared_limit.load(Ordering::Acquire) {
            return Ok(());
        }
        let _set = lock(&self.state.set);
        if bytes <= self.state.dynamic_shared_limit.load(Ordering::Acquire) {
            return Ok(());
        }
        let d = self.device();
        let p = d.properties();
        // Allow the most the kernel can ever use, so this is set once per function.
        let max = p.shared_mem_per_block_optin.max(p.shared_mem_per_block)
            - self.attributes.static_shared_bytes as u64;
        // SAFETY: the function's module is live while `self` is; the value is within the
        // device's opt-in limit.
        unsafe {
            d.inner.backend.function_set_attribute(
                self.handle,
                FunctionAttribute::MaxDynamicSharedBytes,
                max as i32,
            )
        }
        .map_err(|e| d.error(e))?;
        self.state.dynamic_shared_limit.store(max as u32, Ordering::Release);
        Ok(())
    }
}

/// The shape of a launch: grid, block, dynamic shared memory, thread-block cluster and whether
/// it is cooperative. Build it with [`LaunchConfig::new`] or [`LaunchConfig::for_num_elems`]
/// and the `with_*` methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: Dim3,
    pub block: Dim3,
    pub shared_mem_bytes: u32,
    /// Blocks per cluster in each dimension; (1, 1, 1) is no cluster.
    pub cluster: Dim3,
    /// Whether all blocks must be resident at once (grid-wide synchronization).
    pub cooperative: bool,
}

impl LaunchConfig {
    /// A one-dimensional launch of 256-thread blocks covering `n` elements (at least one block).
    pub fn for_num_elems(n: u32) -> LaunchConfig {
        LaunchConfig::new(n.div_ceil(256).max(1), 256)
    }

    /// A launch with the given grid and block, no dynamic shared memory and no cluster.
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> LaunchConfig {
        LaunchDims::new(grid, block, 0).into()
    }

    /// The same launch with `bytes` of dynamic shared memory.
    pub fn with_shared_mem(self, bytes: u32) -> LaunchConfig {
        LaunchConfig { shared_mem_bytes: bytes, ..self }
    }

    /// The same launch grouped into clusters of `cluster` blocks (each grid dimension must be a
    /// multiple of the cluster's).
    pub fn with_cluster(self, cluster: impl Into<Dim3>) -> LaunchConfig {
        LaunchConfig { cluster: cluster.into(), ..self }
    }

    /// The same launch as a cooperative launch: every block is resident at once, so the grid
    /// may synchronize as a whole.
    pub fn cooperative(self) -> LaunchConfig {
        LaunchConfig { cooperative: true, ..self }
    }
}

impl From<LaunchDims> for LaunchConfig {
    fn from(d: LaunchDims) -> LaunchConfig {
        LaunchConfig {
            grid: d.grid,
            block: d.block,
            shared_mem_bytes: d.shared_mem_bytes,
            cluster: d.cluster,
            cooperative: d.cooperative,
        }
    }
}

impl From<LaunchConfig> for LaunchDims {
    fn from(c: LaunchConfig) -> LaunchDims {
        LaunchDims {
            grid: c.grid,
            block: c.block,
            shared_mem_bytes: c.shared_mem_bytes,
            cluster: c.cluster,
            cooperative: c.cooperative,
        }
    }
}

/// The parameters of one launch, each kept as its bytes (the layout `cuLaunchKernel` takes).
#[derive(Clone, Debug, Default)]
///
/// Held inline up to typical sizes (256 bytes of parameters, 16 parameters, 2 devices, 8
/// buffers), so building the arguments of a launch allocates nothing.
pub struct KernelArgs {
    bytes: SmallVec<[u8; 256]>,
    pub(crate) spans: SmallVec<[(u32, u32); 16]>,
    /// Devices whose memory the arguments point into (checked against peer access).
    pub(crate) devices: SmallVec<[Device; 2]>,
    /// The allocations the arguments point into: the launch records its stream on each.
    pub(crate) uses: SmallVec<[Arc<UseTracker>; 8]>,
}

impl KernelArgs {
    pub fn new() -> KernelArgs {
        KernelArgs::default()
    }

    /// Appends one parameter by value.
    pub fn push<T: DeviceRepr>(&mut self, value: T) -> &mut Self {
        let start = self.bytes.len();
        let size = std::mem::size_of::<T>();
        // SAFETY: DeviceRepr types are plain data without padding, so all `size` bytes are
        // initialised.
        let raw = unsafe { std::slice::from_raw_parts(&value as *const T as *const u8, size) };
        self.bytes.extend_from_slice(raw);
        self.spans.push((start as u32, size as u32));
        self
    }

    /// Appends one parameter given as its bytes (a structure passed by value, or a parameter
    /// whose type only the caller knows, as the HIP C ABI passes them).
    pub fn push_bytes(&mut self, bytes: &[u8]) -> &mut Self {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(bytes);
        self.spans.push((start as u32, bytes.len() as u32));
        self
    }

    /// Appends a raw device address.
    pub fn push_ptr(&mut self, ptr: ferrocm_backend::DevicePtr) -> &mut Self {
        self.push(ptr.0)
    }

    /// Appends the address of a buffer's first element, remembering its device so the launch
    /// can check access.
    pub fn push_buffer<T: DeviceRepr>(&mut self, buffer: &impl AsDeviceSlice<T>) -> &mut Self {
        if !self.devices.contains(buffer.device()) {
            self.devices.push(buffer.device().clone());
        }
        if !self.uses.iter().any(|u| Arc::ptr_eq(u, buffer.uses())) {
            self.uses.push(buffer.uses().clone());
        }
        self.push(buffer.device_ptr().0)
    }

    /// Appends a tensor map by value (128 bytes), remembering its device and the buffer it
    /// describes (whose use the launch records, as for [`KernelArgs::push_buffer`]).
    pub fn push_tensor_map(&mut self, map: &crate::TensorMap<'_>) -> &mut Self {
        if !self.devices.contains(map.device()) {
            self.devices.push(map.device().clone());
        }
        if !self.uses.iter().any(|u| Arc::ptr_eq(u, map.uses())) {
            self.uses.push(map.uses().clone());
        }
        let start = self.bytes.len();
        self.bytes.extend_from_slice(&map.bytes().0);
        self.spans.push((start as u32, map.bytes().0.len() as u32));
        self
    }

    /// The number of parameters.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there are no parameters.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub(crate) fn with_slices<R>(&self, f: impl FnOnce(&[&[u8]]) -> R) -> R {
        self.with_slices_and(&[], f)
    }

    /// The parameters' bytes followed by `extra` parameters.
    pub(crate) fn with_slices_and<R>(&self, extra: &[&[u8]], f: impl FnOnce(&[&[u8]]) -> R) -> R {
        const INLINE: usize = 16;
        let slice = |&(s, n): &(u32, u32)| &self.bytes[s as usize..(s + n) as usize];
        let n = self.spans.len() + extra.len();
        if n <= INLINE {
            let mut arr: [&[u8]; INLINE] = [&[]; INLINE];
            for (slot, bytes) in arr.iter_mut().zip(self.spans.iter().map(slice).chain(extra.iter().copied()))
            {
                *slot = bytes;
            }
            f(&arr[..n])
        } else {
            let v: Vec<&[u8]> = self.spans.iter().map(slice).chain(extra.iter().copied()).collect();
            f(&v)
        }
    }
}

fn check_dim(what: [&'static str; 3], requested: Dim3, max: [u32; 3]) -> Result<()> {
    for ((name, r), m) in what.into_iter().zip([requested.x, requested.y, requested.z]).zip(max) {
        if r == 0 {
            return Err(Error::EmptyLaunch { what: name });
        }
        if r > m {
            return Err(Error::LaunchTooLarge { what: name, requested: r as u64, max: m as u64 });
        }
    }
    Ok(())
}

/// Checks a launch against the device and kernel limits, with the GPU's rules on every backend.
pub(crate) fn validate(device: &Device, f: &Function, cfg: &LaunchConfig) -> Result<()> {
    let p = device.properties();
    check_dim(["grid.x", "grid.y", "grid.z"], cfg.grid, p.max_grid_dim)?;
    check_dim(["block.x", "block.y", "block.z"], cfg.block, p.max_block_dim)?;
    let max_threads = match f.attributes.max_threads_per_block {
        0 => p.max_threads_per_block,
        k => k.min(p.max_threads_per_block),
    };
    if cfg.block.volume() > max_threads as u64 {
        return Err(Error::LaunchTooLarge {
            what: "threads per block",
            requested: cfg.block.volume(),
            max: max_threads as u64,
        });
    }
    let max_shared = p
        .shared_mem_per_block_optin
        .max(p.shared_mem_per_block)
        .saturating_sub(f.attributes.static_shared_bytes as u64);
    if cfg.shared_mem_bytes as u64 > max_shared {
        return Err(Error::LaunchTooLarge {
            what: "dynamic shared memory bytes",
            requested: cfg.shared_mem_bytes as u64,
            max: max_shared,
        });
    }
    if cfg.cluster != Dim3::new(1, 1, 1) {
        validate_cluster(device, cfg)?;
    }
    if cfg.cooperative {
        let per_cu = f.max_active_blocks_per_cu(cfg.block.volume() as u32, cfg.shared_mem_bytes)?;
        let max = per_cu as u64 * p.compute_units as u64;
        if cfg.grid.volume() > max {
            return Err(Error::InvalidLaunch {
                rule: format!(
                    "a cooperative grid of {} blocks cannot be resident at once: at most {max} blocks of this \
                     shape fit ({per_cu} per compute unit x {} compute units)",
                    cfg.grid.volume(),
                    p.compute_units
                ),
            });
        }
    }
    Ok(())
}

fn validate_cluster(device: &Device, cfg: &LaunchConfig) -> Result<()> {
    let t = device.target();
    if !t.has(Feature::Clusters) {
        return Err(Error::Unsupported {
            device: device.index(),
            what: format!(
                "thread-block clusters need {} ({}); this device's target is {}",
                Feature::Clusters,
                Feature::Clusters.min_nvidia_arch(),
                t.arch
            ),
        });
    }
    let (c, g) = (cfg.cluster, cfg.grid);
    for (name, c, g) in [("x", c.x, g.x), ("y", c.y, g.y), ("z", c.z, g.z)] {
        if c == 0 {
            return Err(Error::EmptyLaunch { what: "cluster dimension" });
        }
        if g % c != 0 {
            return Err(Error::InvalidLaunch {
                rule: format!("grid.{name} = {g} is not a multiple of cluster.{name} = {c}"),
            });
        }
    }
    if c.volume() > t.max_cluster_blocks as u64 {
        return Err(Error::LaunchTooLarge {
            what: "blocks per cluster",
            requested: c.volume(),
            max: t.max_cluster_blocks as u64,
        });
    }
    if cfg.cooperative {
        return Err(Error::InvalidLaunch {
            rule: "a launch cannot be both cooperative and clustered".into(),
        });
    }
    Ok(())
}

impl Stream {
    /// Queues a kernel launch after validating it against the device and kernel limits: grid,
    /// block, shared memory, cluster shape and cooperative residency. Dynamic shared memory over
    /// 48 KiB is opted into once per function. While kernels are traced, a kernel with a timed
    /// copy (PTX loaded while they were, see [`Device::load_module`]) runs the copy, as
    /// [`Stream::launch_timed`] does.
    ///
    /// # Safety
    /// The arguments must match the kernel's parameters in number, order and type, and every
    /// address must point to memory the kernel may access for as long as it runs (for a launch
    /// captured into a graph, every launch of the graph; buffers passed with
    /// [`KernelArgs::push_buffer`] are kept alive by the graph, raw addresses are not). The
    /// kernel language's typed launches uphold this; raw modules are the caller's promise.
    pub unsafe fn launch(&self, f: &Function, cfg: LaunchConfig, args: &KernelArgs) -> Result<()> {
        // SAFETY: forwarded from this function's contract (a timed copy takes the kernel's
        // parameters and the slot `launch_inner` appends).
        unsafe { self.launch_inner(f, f.timed.as_deref(), cfg, args) }
    }

    /// Launches `f`, or while kernels are traced, `timed`: `f`'s timed variant, which takes one
    /// more slice parameter (a `u64` slot address and its length, appended to `args`) and
    /// records its own device start and end there (`ferrocm_ir::timed`). The kernel language
    /// launches its kernels this way; `f` runs when nothing is traced, while the stream captures
    /// a graph, or when no timing slot is free (then timed by events, like any kernel).
    ///
    /// # Safety
    /// As for [`Stream::launch`], for `f` and for `timed` (with the slot appended).
    pub unsafe fn launch_timed(
        &self,
        f: &Function,
        timed: &Function,
        cfg: LaunchConfig,
        args: &KernelArgs,
    ) -> Result<()> {
        // SAFETY: forwarded from this function's contract.
        unsafe { self.launch_inner(f, Some(timed), cfg, args) }
    }

    /// # Safety
    /// As for [`Stream::launch_timed`].
    unsafe fn launch_inner(
        &self,
        f: &Function,
        timed: Option<&Function>,
        cfg: LaunchConfig,
        args: &KernelArgs,
    ) -> Result<()> {
        let (_t, work) = crate::trace::api_launch();
        let op = self.op("launching a kernel", crate::graph::InCapture::Recorded)?;
        let device = self.device();
        self.same_device("kernel", f.device())?;
        for other in &args.devices {
            if other.kind() != device.kind() || !device.has_peer_access(other) {
                return Err(Error::NoPeerAccess { device: device.index(), peer: other.index() });
            }
        }
        validate(device, f, &cfg)?;
        f.allow_dynamic_shared(cfg.shared_mem_bytes)?;
        // A captured launch runs again with every launch of its graph: it is never timed. Nor
        // is a launch the timed variant cannot make (its few more registers may, say, leave a
        // cooperative grid unable to be resident): tracing never turns a valid launch into an
        // error.
        let timed = timed.filter(|t| {
            crate::trace::kernels_traced()
                && !self.is_capturing()
                && self.same_device("kernel", t.device()).is_ok()
                && validate(device, t, &cfg).is_ok()
                && t.allow_dynamic_shared(cfg.shared_mem_bytes).is_ok()
        });
        for u in &args.uses {
            u.record(self);
        }
        let dims = LaunchDims::from(cfg);
        let plain = || {
            // SAFETY: function and stream are live and of this device; the shape was validated;
            // the arguments are the caller's promise (this function's contract).
            args.with_slices(|slices| unsafe {
                device.inner.backend.launch(f.handle, dims, self.handle(), slices)
            })
            .map_err(|e| device.error(e))
        };
        match timed {
            None => crate::trace::device_work(
                self,
                crate::trace::Kind::Kernel,
                || crate::trace::kernel(f, &cfg, work),
                plain,
            )?,
            Some(t) => crate::trace::timed_kernel(
                self,
                // The record is the kernel's own (its name and attributes), timed either way.
                |_| crate::trace::kernel(f, &cfg, work),
                |slot, len| {
                    let (slot, len) = (slot.0.to_ne_bytes(), len.to_ne_bytes());
                    // SAFETY: as above, and the timed variant's last parameter is the slot the
                    // tracer handed out for this launch (writable, `len` u64s).
                    args.with_slices_and(&[&slot, &len], |slices| unsafe {
                        device.inner.backend.launch(t.handle, dims, self.handle(), slices)
                    })
                    .map_err(|e| device.error(e))
                },
                plain,
            )?,
        }
        op.captured_launch(f, cfg, args)
    }
}
