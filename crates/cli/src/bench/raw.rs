//! The baseline: the same operations issued straight to the CUDA driver through the backend's
//! `result` layer, with no ferrocm runtime code in between, on the device's primary context.

use std::ffi::c_void;

use anyhow::{Context, Result};
use ferrocm::backend::LaunchDims;
use ferrocm_backend_cuda::result;
use ferrocm_backend_cuda::sys::*;

pub struct Raw {
    pub d: Driver,
    pub stream: CUstream,
    pub empty: CUfunction,
}

impl Raw {
    /// Opens the driver on device `ordinal` and loads `ptx`'s `empty` kernel.
    pub fn new(ordinal: u32, ptx: &str) -> Result<Raw> {
        let d = Driver::open().map_err(anyhow::Error::msg)?;
        result::init(&d)?;
        let dev = result::device::get(&d, ordinal as i32)?;
        let ctx = result::context::primary_retain(&d, dev)?;
        // SAFETY: a context just retained.
        unsafe { result::context::set_current(&d, ctx)? };
        let module = result::module::load_ptx(&d, ptx)?;
        // SAFETY: a module just loaded.
        let empty = unsafe { result::module::get_function(&d, module, "empty")? };
        let stream = result::stream::create(&d, CU_STREAM_NON_BLOCKING, 0)?;
        Ok(Raw { d, stream, empty })
    }

    /// Loads another module's kernel into this context.
    pub fn function(&self, ptx: &str, name: &str) -> Result<CUfunction> {
        let module = result::module::load_ptx(&self.d, ptx)?;
        // SAFETY: a module just loaded (kept loaded for the process's life).
        unsafe { result::module::get_function(&self.d, module, name) }.map_err(Into::into)
    }

    pub fn launch_empty(&self) -> Result<()> {
        // SAFETY: `empty` takes no parameters; the stream is live.
        unsafe { self.launch(self.empty, &mut []) }
    }

    /// Launches `f` on one block of 32 threads with the given parameter pointers.
    ///
    /// # Safety
    /// `params` match `f`'s parameters.
    pub unsafe fn launch(&self, f: CUfunction, params: &mut [*mut c_void]) -> Result<()> {
        let dims = LaunchDims::new(1, 32, 0);
        // SAFETY: forwarded from the caller; the stream is live.
        unsafe { result::launch::kernel(&self.d, f, &dims, self.stream, params.as_mut_ptr()) }
            .map_err(Into::into)
    }

    pub fn sync(&self) -> Result<()> {
        // SAFETY: live stream.
        unsafe { result::stream::synchronize(&self.d, self.stream) }.map_err(Into::into)
    }

    pub fn alloc(&self, bytes: usize) -> Result<CUdeviceptr> {
        Ok(result::memory::alloc(&self.d, bytes)?)
    }

    pub fn free(&self, p: CUdeviceptr) -> Result<()> {
        // SAFETY: `p` came from `alloc`, and callers synchronize before freeing.
        unsafe { result::memory::free(&self.d, p) }.map_err(Into::into)
    }

    pub fn host_alloc(&self, bytes: usize) -> Result<*mut u8> {
        Ok(result::memory::host_alloc(&self.d, bytes)?)
    }

    pub fn host_free(&self, p: *mut u8) -> Result<()> {
        // SAFETY: `p` came from `host_alloc`, and callers synchronize before freeing.
        unsafe { result::memory::free_host(&self.d, p) }.map_err(Into::into)
    }

    pub fn htod(&self, dst: CUdeviceptr, src: *const u8, bytes: usize) -> Result<()> {
        // SAFETY: both ranges hold `bytes` bytes and outlive the copy (callers synchronize).
        unsafe { result::memory::copy_htod_async(&self.d, dst, src, bytes, self.stream) }.map_err(Into::into)
    }

    pub fn dtoh(&self, dst: *mut u8, src: CUdeviceptr, bytes: usize) -> Result<()> {
        // SAFETY: as for `htod`.
        unsafe { result::memory::copy_dtoh_async(&self.d, dst, src, bytes, self.stream) }.map_err(Into::into)
    }

    pub fn dtod(&self, dst: CUdeviceptr, src: CUdeviceptr, bytes: usize) -> Result<()> {
        // SAFETY: as for `htod`.
        unsafe { result::memory::copy_dtod_async(&self.d, dst, src, bytes, self.stream) }.map_err(Into::into)
    }
}

/// A graph captured from the raw stream, and its instance.
/// Two words and a second stream for the stream-memory-operation round trip.
pub struct MemopPair {
    other: CUstream,
    a: CUdeviceptr,
    b: CUdeviceptr,
}

impl Raw {
    pub fn memop_pair(&self) -> Result<MemopPair> {
        let other = result::stream::create(&self.d, CU_STREAM_NON_BLOCKING, 0)?;
        let (a, b) = (self.alloc(4)?, self.alloc(4)?);
        let zero = 0u32;
        self.htod(a, &zero as *const u32 as *const u8, 4)?;
        self.htod(b, &zero as *const u32 as *const u8, 4)?;
        self.sync()?;
        Ok(MemopPair { other, a, b })
    }

    /// One round trip: this stream writes `a`, the other waits for it and writes `b`, this
    /// stream waits for `b`.
    pub fn ping_pong(&self, p: &MemopPair, generation: u32) -> Result<()> {
        // SAFETY: live streams; `a` and `b` are 4-byte aligned words of live allocations.
        unsafe {
            result::stream::write_value32(
                &self.d,
                self.stream,
                p.a,
                generation,
                CU_STREAM_WRITE_VALUE_DEFAULT,
            )?;
            result::stream::wait_value32(&self.d, p.other, p.a, generation, CU_STREAM_WAIT_VALUE_GEQ)?;
            result::stream::write_value32(&self.d, p.other, p.b, generation, CU_STREAM_WRITE_VALUE_DEFAULT)?;
            result::stream::wait_value32(&self.d, self.stream, p.b, generation, CU_STREAM_WAIT_VALUE_GEQ)?;
        }
        Ok(())
    }

    pub fn free_memop_pair(&self, p: MemopPair) -> Result<()> {
        self.sync()?;
        // SAFETY: the other stream's work is ordered before this stream's last wait, which has
        // completed; the stream and words are released once.
        unsafe { result::stream::destroy(&self.d, p.other)? };
        self.free(p.a)?;
        self.free(p.b)
    }
}

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
        // parameterless kernel in between.
        unsafe {
            result::graph::begin_capture(&self.d, self.stream)?;
            let launched = (0..n).try_for_each(|_| self.launch_empty());
            let ended = result::graph::end_capture(&self.d, self.stream);
            launched?;
            let graph = ended?;
            let exec = result::graph::instantiate(&self.d, graph)?;
            Ok(RawGraph { raw: self, graph, exec })
        }
    }
}

impl RawGraph<'_> {
    pub fn launch(&self) -> Result<()> {
        // SAFETY: a live instance and stream.
        unsafe { result::graph::launch(&self.raw.d, self.exec, self.raw.stream) }.map_err(Into::into)
    }

    pub fn sync(&self) -> Result<()> {
        self.raw.sync()
    }
}

impl Drop for RawGraph<'_> {
    fn drop(&mut self) {
        // SAFETY: made in `empty_graph`, destroyed once, instance first.
        unsafe {
            let _ = result::graph::exec_destroy(&self.raw.d, self.exec);
            let _ = result::graph::destroy(&self.raw.d, self.graph);
        }
    }
}

pub fn require(ordinal: u32, ptx: &str) -> Result<Raw> {
    Raw::new(ordinal, ptx).context("setting up the raw driver baseline")
}
