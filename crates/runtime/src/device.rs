use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use ferrocm_backend::{
    Backend, BackendError, BackendKind, DefaultStream, DeviceProperties, DevicePtr, ModuleImage, StreamFlags,
    Target,
};

use crate::memory::{DeviceBuffer, DeviceRepr, Origin};
use crate::module::Module;
use crate::platform::platform;
use crate::pointer::MemoryKind;
use crate::pool::Pool;
use crate::stream::Stream;
use crate::{lock, Error, Result};

pub(crate) struct DeviceInner {
    pub(crate) index: usize,
    pub(crate) backend: Arc<dyn Backend>,
    pub(crate) ordinal: u32,
    pub(crate) properties: DeviceProperties,
    default_stream: OnceLock<Stream>,
    legacy_stream: OnceLock<Stream>,
    pub(crate) pool: Pool,
    /// Devices (by index) whose memory this device may access.
    peers: Mutex<HashSet<usize>>,
    pub(crate) trace: OnceLock<crate::trace::DeviceTrace>,
}

impl DeviceInner {
    pub(crate) fn new(index: usize, backend: Arc<dyn Backend>, ordinal: u32) -> Result<DeviceInner> {
        let properties = backend.device_properties(ordinal).map_err(|source| Error::Backend {
            device: index,
            backend: backend.kind(),
            source,
        })?;
        Ok(DeviceInner {
            index,
            backend,
            ordinal,
            properties,
            default_stream: OnceLock::new(),
            legacy_stream: OnceLock::new(),
            pool: Pool::default(),
            peers: Mutex::default(),
            trace: OnceLock::new(),
        })
    }
}

/// A compute device: a GPU, or a CPU device of the embedded backend. Cheap to clone; shared
/// freely across threads.
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<DeviceInner>,
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({}: {} {})", self.inner.index, self.kind(), self.inner.properties.name)
    }
}

impl PartialEq for Device {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for Device {}

impl Device {
    pub(crate) fn from_inner(inner: DeviceInner) -> Device {
        Device { inner: Arc::new(inner) }
    }

    /// Every visible device: GPUs first (in visible-devices order), then CPU devices.
    pub fn all() -> Result<Vec<Device>> {
        let p = platform()?;
        let _t = crate::trace::api("Device::all");
        Ok(p.devices.clone())
    }

    /// The number of visible devices.
    pub fn count() -> Result<usize> {
        let p = platform()?;
        let _t = crate::trace::api("Device::count");
        Ok(p.devices.len())
    }

    /// The device at `index` in [`Device::all`].
    pub fn get(index: usize) -> Result<Device> {
        let devices = &platform()?.devices;
        let _t = crate::trace::api("Device::get");
        devices.get(index).cloned().ok_or(Error::InvalidDevice { index, count: devices.len() })
    }

    /// The device code should use when it does not choose: the first GPU where one is visible,
    /// the CPU otherwise. With `FERROCM_BACKEND=cuda` and no GPU this is an error.
    pub fn default_device() -> Result<Device> {
        let p = platform()?;
        let _t = crate::trace::api("Device::default_device");
        if let Some(gpu) = p.devices.iter().find(|d| d.kind() != BackendKind::Cpu) {
            return Ok(gpu.clone());
        }
        if p.prefer == Some(BackendKind::Cuda) {
            return Err(Error::NoDevice { backend: BackendKind::Cuda, reason: p.cuda_status.clone().err() });
        }
        Device::cpu()
    }

    /// The first CPU device; always present.
    pub fn cpu() -> Result<Device> {
        Device::of_kind(BackendKind::Cpu)
            .into_iter()
            .next()
            .ok_or(Error::NoDevice { backend: BackendKind::Cpu, reason: None })
    }

    /// All visible devices of one backend.
    pub fn of_kind(kind: BackendKind) -> Vec<Device> {
        platform()
            .map(|p| p.devices.iter().filter(|d| d.kind() == kind).cloned().collect())
            .unwrap_or_default()
    }

    /// The position of this device in [`Device::all`]; unique for the process.
    pub fn index(&self) -> usize {
        self.inner.index
    }

    /// The backend that drives this device.
    pub fn kind(&self) -> BackendKind {
        self.inner.backend.kind()
    }

    /// The device's ordinal within its backend (the driver's device number).
    pub fn ordinal(&self) -> u32 {
        self.inner.ordinal
    }

    /// Name, architecture and limits.
    pub fn properties(&self) -> &DeviceProperties {
        &self.inner.properties
    }

    /// What code the device runs and which features that code may use; the kernel compiler
    /// chooses its code generator by it.
    pub fn target(&self) -> &Target {
        &self.inner.properties.target
    }

    /// Free and total memory in bytes.
    pub fn memory_info(&self) -> Result<(u64, u64)> {
        let _t = crate::trace::api("Device::memory_info");
        self.inner.backend.mem_info(self.inner.ordinal).map_err(|e| self.error(e))
    }

    /// Blocks until all work on the device has completed. Not permitted inside a host callback.
    pub fn synchronize(&self) -> Result<()> {
        let _t = crate::trace::api("Device::synchronize");
        crate::callback::forbid("synchronizing a device")?;
        crate::graph::forbid_while_capturing(self, "synchronizing a device")?;
        self.inner.backend.device_synchronize(self.inner.ordinal).map_err(|e| self.error(e))?;
        self.inner.pool.release_over_threshold(self, None);
        Ok(())
    }

    /// The device's default stream, created on first use: an ordinary stream that, unlike
    /// CUDA's legacy default stream, does not synchronize with other streams (ferrocm's choice:
    /// implicit synchronization costs concurrency; order work explicitly with events).
    pub fn default_stream(&self) -> Result<Stream> {
        if let Some(s) = self.inner.default_stream.get() {
            return Ok(s.clone());
        }
        let s = self.create_stream()?;
        Ok(self.inner.default_stream.get_or_init(|| s).clone())
    }

    /// CUDA's legacy default stream (HIP's null stream, `hipStreamLegacy`): work queued on it
    /// waits for all earlier work of the device's blocking streams, and their later work waits
    /// for it. Streams made by [`Device::create_stream`] are non-blocking and unaffected; create
    /// blocking ones with [`Device::create_stream_with`] and `non_blocking: false`.
    pub fn legacy_default_stream(&self) -> Result<Stream> {
        if let Some(s) = self.inner.legacy_stream.get() {
            return Ok(s.clone());
        }
        let h = self
            .inner
            .backend
            .default_stream(self.inner.ordinal, DefaultStream::Legacy)
            .map_err(|e| self.error(e))?;
        let s = Stream::from_default(self.clone(), h);
        Ok(self.inner.legacy_stream.get_or_init(|| s).clone())
    }

    /// The calling thread's per-thread default stream (`hipStreamPerThread`): a blocking stream
    /// of its own for each host thread.
    pub fn per_thread_default_stream(&self) -> Result<Stream> {
        thread_local! {
            static STREAMS: std::cell::RefCell<Vec<Stream>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        if let Some(s) = STREAMS.with(|v| v.borrow().iter().find(|s| s.device() == self).cloned()) {
            return Ok(s);
        }
        let h = self
            .inner
            .backend
            .default_stream(self.inner.ordinal, DefaultStream::PerThread)
            .map_err(|e| self.error(e))?;
        let s = Stream::from_default(self.clone(), h);
        STREAMS.with(|v| v.borrow_mut().push(s.clone()));
        Ok(s)
    }

    /// A new stream with default options.
    pub fn create_stream(&self) -> Result<Stream> {
        self.create_stream_with(StreamFlags { non_blocking: true, priority: 0 })
    }

    /// A new stream with the given options (priority: lower is higher, clamped by the driver).
    pub fn create_stream_with(&self, flags: StreamFlags) -> Result<Stream> {
        let _t = crate::trace::api("Device::create_stream");
        let handle =
            self.inner.backend.stream_create(self.inner.ordinal, flags).map_err(|e| self.error(e))?;
        Ok(Stream::from_handle(self.clone(), handle))
    }

    /// Allocates `len` elements of device memory directly from the driver (not pooled). The
    /// contents are unspecified; see [`Stream::alloc_zeroed`].
    pub fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let _t = crate::trace::api("Device::alloc");
        crate::callback::forbid("allocating device memory")?;
        let bytes = self.checked_bytes::<T>(len)?;
        let ptr = self.backend_alloc(bytes, false)?;
        Ok(DeviceBuffer::from_raw(self.clone(), ptr, len, Origin::Direct))
    }

    /// Allocates managed (unified) memory, reachable from host and device.
    pub fn alloc_managed<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let _t = crate::trace::api("Device::alloc_managed");
        if !self.properties().managed_memory {
            return Err(
                self.error(BackendError::Unsupported { backend: self.kind(), what: "managed memory" })
            );
        }
        crate::callback::forbid("allocating managed memory")?;
        let bytes = self.checked_bytes::<T>(len)?;
        let ptr = self.backend_alloc(bytes, true)?;
        Ok(DeviceBuffer::from_raw(self.clone(), ptr, len, Origin::Direct))
    }

    /// Loads a compiled module (PTX for CUDA devices, a CPU module for CPU devices).
    ///
    /// While kernels are traced ([`crate::trace::kernels_traced`]), PTX text is loaded with a
    /// timed copy of each kernel added (`ferrocm_ir::timed_ptx`), which its launches run instead
    /// so they time themselves as kernel-language kernels do (no timing events); kernels the
    /// rewriter refuses, and every kernel of a module whose rewritten text the driver does not
    /// take (then the text as given is loaded), are timed by events. With nothing traced the
    /// text is loaded as given.
    pub fn load_module(&self, image: ModuleImage) -> Result<Module> {
        let _t = crate::trace::api("Device::load_module");
        self.check_image(&image)?;
        if let ModuleImage::Ptx(text) = &image {
            if crate::trace::kernels_traced() {
                if let Ok(t) = ferrocm_ir::timed_ptx::instrument(text) {
                    if !t.entries.is_empty() {
                        if let Ok(m) = self.load(&ModuleImage::Ptx(t.text), t.entries) {
                            return Ok(m);
                        }
                    }
                }
            }
        }
        self.load(&image, Vec::new())
    }

    /// Loads a module built from PTX text that [`ferrocm_ir::timed_ptx::instrument`] rewrote
    /// (a CPU module the PTX front end made of it, say), whose kernels `timed` name their timed
    /// copies in it: while kernels are traced, launches of those kernels run their copies.
    /// A copy the module does not hold leaves its kernel timed by events.
    pub fn load_module_with_timed(
        &self,
        image: ModuleImage,
        timed: Vec<ferrocm_ir::timed_ptx::TimedEntry>,
    ) -> Result<Module> {
        let _t = crate::trace::api("Device::load_module");
        self.check_image(&image)?;
        self.load(&image, timed)
    }

    fn check_image(&self, image: &ModuleImage) -> Result<()> {
        if image.target() != self.kind() {
            return Err(Error::ModuleTarget {
                device: self.index(),
                image: image.target(),
                backend: self.kind(),
            });
        }
        Ok(())
    }

    fn load(&self, image: &ModuleImage, timed: Vec<ferrocm_ir::timed_ptx::TimedEntry>) -> Result<Module> {
        let handle = self.inner.backend.module_load(self.inner.ordinal, image).map_err(|e| self.error(e))?;
        Ok(Module::new(self.clone(), handle, timed))
    }

    /// Whether this device can be given direct access to `peer`'s memory.
    pub fn can_access_peer(&self, peer: &Device) -> Result<bool> {
        if !Arc::ptr_eq(&self.inner.backend, &peer.inner.backend) || self == peer {
            return Ok(false);
        }
        self.inner.backend.can_access_peer(self.inner.ordinal, peer.inner.ordinal).map_err(|e| self.error(e))
    }

    /// Lets this device read and write `peer`'s memory (copies and kernels).
    pub fn enable_peer_access(&self, peer: &Device) -> Result<()> {
        let _t = crate::trace::api("Device::enable_peer_access");
        let unsupported =
            |reason| Error::PeerAccessUnsupported { device: self.index(), peer: peer.index(), reason };
        if self == peer {
            return Err(unsupported("a device always accesses its own memory"));
        }
        if !Arc::ptr_eq(&self.inner.backend, &peer.inner.backend) {
            return Err(unsupported("the devices belong to different backends"));
        }
        if !self.can_access_peer(peer)? {
            return Err(unsupported("the hardware reports no peer path between them"));
        }
        self.inner
            .backend
            .enable_peer_access(self.inner.ordinal, peer.inner.ordinal)
            .map_err(|e| self.error(e))?;
        lock(&self.inner.peers).insert(peer.index());
        Ok(())
    }

    /// Whether [`Device::enable_peer_access`] has given this device access to `peer`.
    pub fn has_peer_access(&self, peer: &Device) -> bool {
        self == peer || lock(&self.inner.peers).contains(&peer.index())
    }

    /// Frees the memory the stream-ordered pool keeps cached for reuse.
    pub fn trim_pool(&self) -> Result<()> {
        let _t = crate::trace::api("Device::trim_pool");
        self.inner.pool.trim(self)
    }

    /// Bytes the pool holds cached (not in use).
    pub fn pool_cached_bytes(&self) -> u64 {
        self.inner.pool.cached_bytes()
    }

    /// How many cached bytes the pool may keep across a synchronize (as
    /// `cudaMemPoolAttrReleaseThreshold`): after [`Device::synchronize`] or
    /// [`Stream::synchronize`], cached blocks whose work is done are given back to the driver
    /// until at most `bytes` remain. `None` (the default) keeps everything; the cache is still
    /// given back whenever an allocation would otherwise run out of memory.
    pub fn set_pool_release_threshold(&self, bytes: Option<u64>) {
        self.inner.pool.set_release_threshold(bytes.unwrap_or(u64::MAX));
    }

    /// Whether `stream` is this device's legacy default stream.
    pub(crate) fn is_legacy_stream(&self, stream: &Stream) -> bool {
        self.inner.legacy_stream.get() == Some(stream)
    }

    pub(crate) fn error(&self, source: BackendError) -> Error {
        match source {
            BackendError::OutOfMemory { requested, free, .. } => {
                Error::OutOfMemory { device: self.index(), requested, free }
            }
            source => Error::Backend { device: self.index(), backend: self.kind(), source },
        }
    }

    /// The byte size of `len` elements, refusing zero and sizes over the device's memory.
    pub(crate) fn checked_bytes<T>(&self, len: usize) -> Result<u64> {
        let bytes = len as u128 * std::mem::size_of::<T>() as u128;
        if bytes == 0 {
            return Err(Error::ZeroSizedAllocation);
        }
        let total = self.properties().total_memory;
        if bytes > total as u128 {
            return Err(Error::AllocationTooLarge { device: self.index(), requested: bytes, total });
        }
        Ok(bytes as u64)
    }

    /// Allocates from the driver; on out-of-memory, frees the pool's cache and tries once more.
    pub(crate) fn backend_alloc(&self, bytes: u64, managed: bool) -> Result<DevicePtr> {
        let b = &self.inner.backend;
        let alloc = || {
            if managed {
                b.alloc_managed(self.inner.ordinal, bytes)
            } else {
                b.alloc(self.inner.ordinal, bytes)
            }
        };
        let ptr = match alloc() {
            Err(BackendError::OutOfMemory { .. })
                if self.inner.pool.cached_bytes() > 0 && !crate::callback::active() =>
            {
                self.inner.pool.trim(self)?;
                alloc().map_err(|e| self.error(e))
            }
            r => r.map_err(|e| self.error(e)),
        }?;
        let kind = if managed { MemoryKind::Managed } else { MemoryKind::Device };
        crate::pointer::register(ptr.0, bytes, self.index(), kind);
        Ok(ptr)
    }
}

/// Frees driver memory once the work that `streams` queued on it has completed (waiting on an
/// event per stream, so errors stay with the stream for its next synchronize).
pub(crate) fn free_now(device: &Device, ptr: DevicePtr, streams: &[Stream]) -> Result<()> {
    for s in streams {
        s.completion_event()?.synchronize()?;
    }
    let d = device.clone();
    crate::graph::release_outside_captures(device, move || {
        crate::pointer::unregister(ptr.0);
        // SAFETY: `ptr` is a live allocation of this device made by `backend_alloc`, freed once,
        // and the work of every stream that used it has completed (waited for above).
        unsafe { d.inner.backend.free(d.inner.ordinal, ptr) }.map_err(|e| d.error(e))
    })
}

/// [`free_now`], deferred off a host callback (where waiting could wait for itself).
pub(crate) fn free_after(device: &Device, ptr: DevicePtr, streams: Vec<Stream>) {
    let device = device.clone();
    crate::callback::now_or_later(move || {
        // An error here cannot be returned from `drop`: the memory stays allocated.
        let _ = free_now(&device, ptr, &streams);
    });
}
