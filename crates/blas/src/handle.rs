//! The handle: a stream, a math mode, an engine choice, a workspace limit and an optional
//! forced GEMM family
//! (`rocblas_handle`).

use std::sync::Arc;

use ferrocm_kernel::runtime::{BackendKind, DeviceBuffer, DeviceRepr, Stream};

use crate::error::{BlasError, Result};
use crate::level3::GemmFamily;
use crate::types::{Engine, MathMode};

/// A BLAS handle bound to a stream: every routine queues its work on that stream, in order,
/// and returns without waiting (except those that return a value to the host: `dot`, `nrm2`,
/// `asum`, `iamax`, `iamin` with host results synchronize the stream).
///
/// Matrices are column-major, as in BLAS: element `(i, j)` of a matrix with leading dimension
/// `ld` is at `i + j * ld`. The `*_row_major` helpers take row-major operands.
///
/// Scalars (`alpha`, `beta`, ...) are [`ScalarArg`](crate::ScalarArg)s: a host value, or an
/// element of device memory read when the routine runs (rocBLAS's pointer mode, chosen per
/// argument). Reductions have a host form returning the value and a `_device` form writing it
/// to device memory without synchronizing.
pub struct Handle {
    stream: Stream,
    math_mode: MathMode,
    engine: Engine,
    workspace_limit: Option<u64>,
    gemm_family: Option<GemmFamily>,
    /// Stands in for the device-scalar view of kernels called with host scalars.
    pub(crate) dummy: Arc<DeviceBuffer<f64>>,
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handle")
            .field("device", &self.stream.device().index())
            .field("math_mode", &self.math_mode)
            .field("engine", &self.engine)
            .field("workspace_limit", &self.workspace_limit)
            .field("gemm_family", &self.gemm_family)
            .finish()
    }
}

impl Handle {
    /// A handle queuing on `stream`, default math mode, [`Engine::Auto`], no workspace limit.
    pub fn new(stream: &Stream) -> Result<Handle> {
        let dummy = Arc::new(stream.alloc_zeroed::<f64>(4)?);
        Ok(Handle {
            stream: stream.clone(),
            math_mode: MathMode::Default,
            engine: Engine::Auto,
            workspace_limit: None,
            gemm_family: None,
            dummy,
        })
    }

    /// The stream work is queued on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Queues later work on `stream` (`rocblas_set_stream`); it must be on the same device.
    pub fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        let (device, handle_device) = (stream.device().index(), self.stream.device().index());
        if device != handle_device {
            return Err(BlasError::DeviceMismatch { arg: "stream", device, handle_device });
        }
        self.stream = stream.clone();
        Ok(())
    }

    /// The math mode.
    pub fn math_mode(&self) -> MathMode {
        self.math_mode
    }

    /// Sets the math mode (`rocblas_set_math_mode`).
    pub fn set_math_mode(&mut self, mode: MathMode) {
        self.math_mode = mode;
    }

    /// Which code computes the routines.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Chooses which code computes the routines (see [`Engine`]).
    pub fn set_engine(&mut self, engine: Engine) {
        self.engine = engine;
    }

    /// The most temporary device memory one call may take, if limited.
    pub fn workspace_limit(&self) -> Option<u64> {
        self.workspace_limit
    }

    /// Limits the temporary device memory one call may take (hipBLASLt's workspace size):
    /// a call that needs more returns [`BlasError::WorkspaceTooSmall`]; the GEMM planner
    /// picks algorithms that fit. Temporary memory comes from the stream-ordered pool.
    pub fn set_workspace_limit(&mut self, bytes: Option<u64>) {
        self.workspace_limit = bytes;
    }

    /// Forces every GEMM of this handle onto `family` (`None`: the planner chooses, see
    /// [`Handle::gemm_family`]), as hipBLASLt lets a caller pick an algorithm: to compare two
    /// kernels on one device, or to run a family on a device that would pick another (the CPU
    /// executor runs every kernel family). A GEMM the family cannot compute there (another
    /// element type, a target without its instructions) returns [`BlasError::Unsupported`]
    /// naming the family and its rule, and writes nothing.
    pub fn set_gemm_family(&mut self, family: Option<GemmFamily>) {
        self.gemm_family = family;
    }

    /// The family [`Handle::set_gemm_family`] forces, if any.
    pub fn gemm_family_forced(&self) -> Option<GemmFamily> {
        self.gemm_family
    }

    /// Whether this call runs kernel-language kernels (a GPU, or [`Engine::Kernels`]).
    pub(crate) fn use_kernels(&self) -> bool {
        self.engine == Engine::Kernels || self.stream.device().kind() != BackendKind::Cpu
    }

    /// Temporary memory for one call, from the pool, within the workspace limit.
    pub(crate) fn workspace<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = (len as u64).saturating_mul(size_of::<T>() as u64);
        if let Some(available) = self.workspace_limit.filter(|&l| bytes > l) {
            return Err(BlasError::WorkspaceTooSmall { required: bytes, available });
        }
        Ok(self.stream.alloc::<T>(len.max(1))?)
    }
}
