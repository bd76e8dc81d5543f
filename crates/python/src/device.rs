//! Devices, streams and events.

use std::cell::RefCell;
use std::collections::HashMap;

use ferrocm::{BackendKind, Device, Event, EventFlags, Stream, StreamFlags};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::{runtime, value};

/// A compute device: a GPU, or a CPU device of ferrocm's embedded backend.
#[pyclass(name = "Device", module = "ferrocm", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyDevice {
    pub device: DeviceKey,
}

/// `Device` compared and hashed by its index (unique per process).
#[derive(Clone)]
pub struct DeviceKey(pub Device);

impl PartialEq for DeviceKey {
    fn eq(&self, other: &Self) -> bool {
        self.0.index() == other.0.index()
    }
}
impl Eq for DeviceKey {}
impl std::hash::Hash for DeviceKey {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.index().hash(h)
    }
}

impl PyDevice {
    pub fn new(device: Device) -> PyDevice {
        PyDevice { device: DeviceKey(device) }
    }

    pub fn get(&self) -> &Device {
        &self.device.0
    }
}

/// Resolves a `device=` argument: `None` (the default device), an index, or a `Device`.
pub fn resolve(device: Option<&Bound<'_, PyAny>>) -> PyResult<Device> {
    match device {
        None => Device::default_device().map_err(runtime),
        Some(d) if d.is_none() => Device::default_device().map_err(runtime),
        Some(d) => {
            if let Ok(dev) = d.cast::<PyDevice>() {
                return Ok(dev.get().get().clone());
            }
            if let Ok(i) = d.extract::<usize>() {
                return Device::get(i).map_err(runtime);
            }
            Err(value(format!(
                "device must be a ferrocm.Device, an index or None, not {}",
                d.get_type().name()?
            )))
        }
    }
}

#[pymethods]
impl PyDevice {
    /// Position in `ferrocm.devices()`.
    #[getter]
    fn index(&self) -> usize {
        self.get().index()
    }
    /// "cuda" or "cpu".
    #[getter]
    fn kind(&self) -> &'static str {
        self.get().kind().name()
    }
    /// Whether this is a GPU.
    #[getter]
    fn is_gpu(&self) -> bool {
        self.get().kind() != BackendKind::Cpu
    }
    /// The backend's device number (the CUDA ordinal on NVIDIA).
    #[getter]
    fn ordinal(&self) -> u32 {
        self.get().ordinal()
    }
    #[getter]
    fn name(&self) -> String {
        self.get().properties().name.clone()
    }
    #[getter]
    fn arch(&self) -> String {
        self.get().properties().arch.clone()
    }
    /// The code target: "sm_90a", ...
    #[getter]
    fn target(&self) -> String {
        self.get().target().arch.clone()
    }
    #[getter]
    fn compute_capability(&self) -> (u32, u32) {
        self.get().properties().compute_capability
    }
    #[getter]
    fn compute_units(&self) -> u32 {
        self.get().properties().compute_units
    }
    #[getter]
    fn warp_size(&self) -> u32 {
        self.get().properties().warp_size
    }
    #[getter]
    fn max_threads_per_block(&self) -> u32 {
        self.get().properties().max_threads_per_block
    }
    #[getter]
    fn shared_mem_per_block(&self) -> u64 {
        self.get().properties().shared_mem_per_block
    }
    #[getter]
    fn l2_cache_bytes(&self) -> u64 {
        self.get().properties().l2_cache_bytes
    }
    #[getter]
    fn total_memory(&self) -> u64 {
        self.get().properties().total_memory
    }
    #[getter]
    fn pci_bus_id(&self) -> String {
        self.get().properties().pci_bus_id.clone()
    }
    #[getter]
    fn uuid(&self) -> String {
        self.get().properties().uuid.clone()
    }

    /// (free, total) memory in bytes.
    fn memory_info(&self) -> PyResult<(u64, u64)> {
        self.get().memory_info().map_err(runtime)
    }

    /// Waits for all work on the device (the GIL is released meanwhile).
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        let d = self.get().clone();
        py.detach(move || d.synchronize()).map_err(runtime)
    }

    /// A new stream. `non_blocking=False` makes a stream that synchronizes with the legacy
    /// default stream; lower `priority` numbers run first.
    #[pyo3(signature = (priority = 0, non_blocking = true))]
    fn create_stream(&self, priority: i32, non_blocking: bool) -> PyResult<PyStream> {
        let s = self.get().create_stream_with(StreamFlags { non_blocking, priority }).map_err(runtime)?;
        Ok(PyStream { stream: s })
    }

    /// The device's default stream.
    fn default_stream(&self) -> PyResult<PyStream> {
        Ok(PyStream { stream: self.get().default_stream().map_err(runtime)? })
    }

    fn __repr__(&self) -> String {
        format!("<ferrocm.Device {}: {} ({})>", self.index(), self.name(), self.kind())
    }
}

/// Every visible device, GPUs first.
#[pyfunction]
pub fn devices() -> PyResult<Vec<PyDevice>> {
    Ok(Device::all().map_err(runtime)?.into_iter().map(PyDevice::new).collect())
}

/// The device used when none is named: the first GPU, else the CPU.
#[pyfunction]
pub fn default_device() -> PyResult<PyDevice> {
    Ok(PyDevice::new(Device::default_device().map_err(runtime)?))
}

/// What `ferrocm info --json` prints.
#[pyfunction]
pub fn info_json() -> PyResult<String> {
    let info = ferrocm::info::info().map_err(runtime)?;
    serde_json::to_string(&info).map_err(|e| value(e.to_string()))
}

/// An in-order queue of device work. Use `with stream:` to make it the current stream of its
/// device on this thread: array operations and generators without an explicit stream use it.
#[pyclass(name = "Stream", module = "ferrocm", frozen)]
#[derive(Clone)]
pub struct PyStream {
    pub stream: Stream,
}

#[pymethods]
impl PyStream {
    #[getter]
    fn device(&self) -> PyDevice {
        PyDevice::new(self.stream.device().clone())
    }

    /// The vendor's stream handle (`CUstream` as an integer) on a GPU, `None` on the CPU.
    #[getter]
    fn native_handle(&self) -> Option<u64> {
        self.stream.native_handle()
    }

    /// Waits for the stream's work (the GIL is released meanwhile).
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        let s = self.stream.clone();
        py.detach(move || s.synchronize()).map_err(runtime)
    }

    /// Whether all queued work has completed.
    fn query(&self) -> PyResult<bool> {
        self.stream.query().map_err(runtime)
    }

    /// Makes later work on this stream wait for `event`.
    fn wait_event(&self, event: &PyEvent) -> PyResult<()> {
        self.stream.wait_event(&event.event).map_err(runtime)
    }

    /// Records a new event at the end of the stream.
    fn record_event(&self) -> PyResult<PyEvent> {
        let e = Event::new(self.stream.device()).map_err(runtime)?;
        e.record(&self.stream).map_err(runtime)?;
        Ok(PyEvent { event: e })
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        push(&slf.stream);
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, PyTuple>) -> bool {
        pop(self.stream.device());
        false
    }

    fn __eq__(&self, other: &PyStream) -> bool {
        self.stream == other.stream
    }

    fn __repr__(&self) -> String {
        format!("<ferrocm.Stream on device {}>", self.stream.device().index())
    }
}

thread_local! {
    /// Per device index, the stack of streams entered with `with`.
    static CURRENT: RefCell<HashMap<usize, Vec<Stream>>> = RefCell::default();
}

fn push(s: &Stream) {
    CURRENT.with(|c| c.borrow_mut().entry(s.device().index()).or_default().push(s.clone()));
}

fn pop(d: &Device) {
    CURRENT.with(|c| {
        if let Some(v) = c.borrow_mut().get_mut(&d.index()) {
            v.pop();
        }
    });
}

/// The current stream of `device` on this thread: the innermost `with stream:`, else the
/// device's default stream.
pub fn current(device: &Device) -> PyResult<Stream> {
    if let Some(s) = CURRENT.with(|c| c.borrow().get(&device.index()).and_then(|v| v.last().cloned())) {
        return Ok(s);
    }
    device.default_stream().map_err(runtime)
}

/// The current stream of a device (`None`: the default device).
#[pyfunction]
#[pyo3(signature = (device = None))]
pub fn current_stream(device: Option<&Bound<'_, PyAny>>) -> PyResult<PyStream> {
    Ok(PyStream { stream: current(&resolve(device)?)? })
}

/// Makes `stream` current (what `with stream:` does on entry).
#[pyfunction]
pub fn push_stream(stream: &PyStream) {
    push(&stream.stream)
}

/// Undoes `push_stream` for the stream's device.
#[pyfunction]
pub fn pop_stream(stream: &PyStream) {
    pop(stream.stream.device())
}

/// A marker in a stream: wait for it, or time the work between two.
#[pyclass(name = "Event", module = "ferrocm", frozen)]
pub struct PyEvent {
    pub event: Event,
}

#[pymethods]
impl PyEvent {
    /// A new event on `device`; `timing=False` events are cheaper and cannot be timed.
    #[new]
    #[pyo3(signature = (device = None, timing = true))]
    fn new(device: Option<&Bound<'_, PyAny>>, timing: bool) -> PyResult<PyEvent> {
        let d = resolve(device)?;
        let e = Event::with_flags(&d, EventFlags { timing, blocking_sync: false }).map_err(runtime)?;
        Ok(PyEvent { event: e })
    }

    /// Records the event at the end of `stream` (default: the device's current stream).
    #[pyo3(signature = (stream = None))]
    fn record(&self, stream: Option<&PyStream>) -> PyResult<()> {
        let s = match stream {
            Some(s) => s.stream.clone(),
            None => current(self.event.device())?,
        };
        self.event.record(&s).map_err(runtime)
    }

    /// Waits until the recorded work has completed (the GIL is released meanwhile).
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        let e = self.event.clone();
        py.detach(move || e.synchronize()).map_err(runtime)
    }

    /// Whether the recorded work has completed.
    fn query(&self) -> PyResult<bool> {
        self.event.query().map_err(runtime)
    }

    /// Milliseconds from this event to `end` (both recorded and completed).
    fn elapsed_time(&self, end: &PyEvent) -> PyResult<f32> {
        self.event.elapsed_ms(&end.event).map_err(runtime)
    }
}
