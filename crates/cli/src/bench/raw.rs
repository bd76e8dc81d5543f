//! The baseline: the same operations issued straight to the CUDA driver, with no ferrocm code
//! in between, on the device's primary context.

use std::ffi::{c_void, CString};

use anyhow::{bail, Context, Result};
use ferrocm_backend_cuda::sys::*;

pub struct Raw {
    pub d: Driver,
    pub stream: CUstream,
    pub empty: CUfunction,
}

pub fn ok(call: &str, r: std::result::Result<CUresult, &'static str>) -> Result<()> {
    match r {
        Ok(CUDA_SUCCESS) => Ok(()),
        Ok(code) => bail!("{call} failed with CUDA error {code}"),
        Err(sym) => bail!("driver does not export {sym}"),
    }
}

impl Raw {
    /// Opens the driver on device `ordinal` and loads `ptx`'s `empty` kernel.
    pub fn new(ordinal: u32, ptx: &str) -> Result<Raw> {
        let d = Driver::open().map_err(anyhow::Error::msg)?;
        let src = CString::new(ptx)?;
        // SAFETY: standard driver initialisation with live out-pointers.
        unsafe {
            ok("cuInit", d.init(0))?;
            let mut dev = 0;
            ok("cuDeviceGet", d.device_get(&mut dev, ordinal as i32))?;
            let mut ctx = std::ptr::null_mut();
            ok("cuDevicePrimaryCtxRetain", d.primary_ctx_retain(&mut ctx, dev))?;
            ok("cuCtxSetCurrent", d.ctx_set_current(ctx))?;
            let mut module = std::ptr::null_mut();
            ok(
                "cuModuleLoadDataEx",
                d.module_load_data_ex(
                    &mut module,
                    src.as_ptr() as *const c_void,
                    0,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                ),
            )?;
            let mut empty = std::ptr::null_mut();
            let name = CString::new("empty")?;
            ok("cuModuleGetFunction", d.module_get_function(&mut empty, module, name.as_ptr()))?;
            let mut stream = std::ptr::null_mut();
            ok("cuStreamCreateWithPriority", d.stream_create(&mut stream, CU_STREAM_NON_BLOCKING, 0))?;
            Ok(Raw { d, stream, empty })
        }
    }

    pub fn launch_empty(&self) -> Result<()> {
        // SAFETY: `empty` takes no parameters; the stream is live.
        ok("cuLaunchKernel", unsafe {
            self.d.launch_kernel(
                self.empty,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                self.stream,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        })
    }

    pub fn sync(&self) -> Result<()> {
        // SAFETY: live stream.
        ok("cuStreamSynchronize", unsafe { self.d.stream_synchronize(self.stream) })
    }

    pub fn alloc(&self, bytes: usize) -> Result<CUdeviceptr> {
        let mut p = 0;
        // SAFETY: live out-pointer, context current.
        ok("cuMemAlloc_v2", unsafe { self.d.mem_alloc(&mut p, bytes) })?;
        Ok(p)
    }

    pub fn free(&self, p: CUdeviceptr) -> Result<()> {
        // SAFETY: `p` came from `alloc`.
        ok("cuMemFree_v2", unsafe { self.d.mem_free(p) })
    }

    pub fn host_alloc(&self, bytes: usize) -> Result<*mut u8> {
        let mut p = std::ptr::null_mut();
        // SAFETY: live out-pointer.
        ok("cuMemHostAlloc", unsafe { self.d.mem_host_alloc(&mut p, bytes, CU_MEMHOSTALLOC_PORTABLE) })?;
        Ok(p as *mut u8)
    }

    pub fn host_free(&self, p: *mut u8) -> Result<()> {
        // SAFETY: `p` came from `host_alloc`.
        ok("cuMemFreeHost", unsafe { self.d.mem_free_host(p as *mut c_void) })
    }

    pub fn htod(&self, dst: CUdeviceptr, src: *const u8, bytes: usize) -> Result<()> {
        // SAFETY: both ranges hold `bytes` bytes.
        ok("cuMemcpyHtoDAsync_v2", unsafe {
            self.d.memcpy_htod_async(dst, src as *const c_void, bytes, self.stream)
        })
    }

    pub fn dtoh(&self, dst: *mut u8, src: CUdeviceptr, bytes: usize) -> Result<()> {
        // SAFETY: both ranges hold `bytes` bytes.
        ok("cuMemcpyDtoHAsync_v2", unsafe {
            self.d.memcpy_dtoh_async(dst as *mut c_void, src, bytes, self.stream)
        })
    }

    pub fn dtod(&self, dst: CUdeviceptr, src: CUdeviceptr, bytes: usize) -> Result<()> {
        // SAFETY: both ranges hold `bytes` bytes.
        ok("cuMemcpyDtoDAsync_v2", unsafe { self.d.memcpy_dtod_async(dst, src, bytes, self.stream) })
    }
}

/// A graph captured from the raw stream, and its instance.
pub struct RawGraph<'a> {
    raw: &'a Raw,
    graph: CUgraph,
    exec: CUgraphExec,
}

impl Raw {
    /// Captures `n` launches of the empty kernel on the raw stream into a graph and instantiates
    /// it, as an application using the driver directly would.
    pub fn empty_graph(&self, n: usize) -> Result<RawGraph<'_>> {
        // SAFETY: a live stream; capture begins and ends on this thread with only launches of a
        // parameterless kernel in between; live out-pointers.
        unsafe {
            ok(
                "cuStreamBeginCapture_v2",
                self.d.stream_begin_capture(self.stream, CU_STREAM_CAPTURE_MODE_RELAXED),
            )?;
            let launched = (0..n).try_for_each(|_| self.launch_empty());
            let mut graph = std::ptr::null_mut();
            let ended = ok("cuStreamEndCapture", self.d.stream_end_capture(self.stream, &mut graph));
            launched?;
            ended?;
            let mut exec = std::ptr::null_mut();
            ok("cuGraphInstantiateWithFlags", self.d.graph_instantiate(&mut exec, graph, 0))?;
            Ok(RawGraph { raw: self, graph, exec })
        }
    }
}

impl RawGraph<'_> {
    pub fn launch(&self) -> Result<()> {
        // SAFETY: a live instance and stream.
        ok("cuGraphLaunch", unsafe { self.raw.d.graph_launch(self.exec, self.raw.stream) })
    }

    pub fn sync(&self) -> Result<()> {
        self.raw.sync()
    }
}

impl Drop for RawGraph<'_> {
    fn drop(&mut self) {
        // SAFETY: made in `empty_graph`, destroyed once, instance first.
        unsafe {
            let _ = self.raw.d.graph_exec_destroy(self.exec);
            let _ = self.raw.d.graph_destroy(self.graph);
        }
    }
}

pub fn require(ordinal: u32, ptx: &str) -> Result<Raw> {
    Raw::new(ordinal, ptx).context("setting up the raw driver baseline")
}
