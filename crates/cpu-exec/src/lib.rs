//! ferrocm's CPU executor: runs kernel IR on the host with GPU semantics. It is the reference
//! every GPU result is checked against.
//!
//! Design: SIMT interpretation. The IR is lowered once to a flat, register-based program
//! ([`compile::Program`]). A block's threads run as 32-lane warps; each instruction is
//! interpreted for all 32 lanes at once under an execution mask, so shuffles and votes see
//! their neighbours exactly as on a GPU. Structured control flow keeps masks simple: `if` narrows
//! the mask, `break`/`continue`/`return` move lanes to a `gone` set until the loop latch, the loop
//! exit or the end of the kernel gives them back. Intrinsics run the semantics of their row in
//! [`ferrocm_ir::intrinsics`] against this executor's services (registers, bounds-checked memory,
//! barriers), so the row is the definition GPU results are checked against.
//!
//! Scheduling: blocks that must run at the same time form a group (one block; the blocks of a
//! thread-block cluster; every block of a cooperative launch). A group's warps run round-robin on
//! one host thread, each until it finishes or waits (block barriers, named barriers, the cluster
//! and grid barriers, `mbarrier` phases), so producer/consumer kernels make progress; groups run
//! in parallel on rayon's pool. Global-memory accesses are relaxed atomics and atomics are real
//! atomics, so concurrently running groups never make undefined behaviour on the host. Async
//! copies, TMA and `wgmma` complete when they are issued, which is one valid schedule.
//!
//! Errors (never UB, never a panic): an out-of-range index names the kernel, the buffer, the
//! index and the thread; a barrier reached by part of a block or at different `sync_threads`
//! calls, an intrinsic that needs a converged warp executed by part of one, a wrong `mbarrier`
//! protocol, and a group in which no thread can go on (a hang on the GPU) name the kernel, the
//! barrier and the warps. Kernels over the GPU's memory limits are refused when loaded. A launch
//! that runs longer than `FERROCM_CPU_KERNEL_TIMEOUT` seconds (when set) is stopped with an error
//! naming the kernel: checked at loop back-edges and between a group's scheduling rounds.
//!
//! Byte-addressed memory ([`MemSpace::Addressed`], made by the PTX front end) is checked access
//! by access: global addresses against the allocations the kernel's [`HostEnv`] names (cached per
//! warp), shared and local offsets against the block's and thread's sizes, every access against
//! its alignment. Device `printf` formats with the C library's `snprintf`, one conversion at a
//! time, and hands the text to the [`HostEnv`]. A warp lets the other warps of its group run when
//! it sleeps (`nanosleep`) and every 1024 loop trips, so spin-waits on memory another block
//! writes, such as a grid barrier built from atomics, make progress in a cooperative launch's
//! group.
//!
//! Shared-memory bank accounting: [`ExecKernel::launch_counting_banks`] (or
//! [`BANKS_VAR`]`=1`, which reports every launch on standard error) counts the wavefronts each
//! warp-wide load and store of a shared array would take on a GPU's 32 four-byte banks
//! ([`SharedBankStats`] describes the model), a check of a kernel's shared-memory layout that
//! needs no GPU.

// Lane loops index several parallel register arrays by lane number; iterators would hide that.
#![allow(clippy::needless_range_loop)]

mod addressed;
mod banks;
mod compile;
mod lanes;
mod launch;
mod memory;
mod printf;
mod sched;
mod warp;

use std::collections::HashMap;
use std::sync::Arc;

use ferrocm_backend::{CpuKernel, CpuModule, FunctionAttributes, LaunchDims};
use ferrocm_ir::*;

pub use banks::{SharedBankStats, BANKS_VAR};
pub use compile::{lower, Code, IntrinsicCode, Program};
pub use launch::TIMEOUT_VAR;

/// Why a kernel could not be prepared for the executor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    #[error("kernel `{kernel}` failed verification: {source}")]
    Invalid { kernel: String, source: VerifyError },
    #[error(transparent)]
    Limit(#[from] LimitError),
}

/// The most shared memory (static plus dynamic) a block may use: the opt-in limit of the
/// GPUs the executor stands in for (227 KiB on compute capability 9.0), which the CPU device
/// also reports as `shared_mem_per_block_optin`.
pub const MAX_SHARED_BYTES_OPTIN: u64 = 227 * 1024;

/// Shared memory per multiprocessor of the GPUs the executor stands in for (228 KiB), which
/// bounds how many blocks of a cooperative launch are resident at once.
pub const SHARED_BYTES_PER_CU: u64 = 228 * 1024;

/// The largest cluster without opting in (the portable size on compute capability 9.0).
pub const MAX_CLUSTER_BLOCKS: u32 = 8;

/// What a kernel that uses byte-addressed global memory or device `printf` needs from the host
/// that runs it (the PTX front end's modules provide one).
pub trait HostEnv: Send + Sync {
    /// The allocation containing `addr` that kernels may access, as (first address, size in
    /// bytes), or `None` when no such allocation exists.
    fn global_range(&self, addr: u64) -> Option<(u64, u64)>;

    /// Writes the output of device `printf`.
    fn print(&self, text: &[u8]) {
        use std::io::Write;
        let _ = std::io::stdout().lock().write_all(text);
    }
}

/// A kernel ready to run on the CPU.
pub struct ExecKernel {
    func: Arc<Function>,
    prog: Program,
    shared_offsets: Vec<Option<u64>>,
    static_shared: u64,
    dyn_shared_align: u64,
    local_offsets: Vec<u64>,
    local_bytes: u64,
    /// Multiprocessors of the device it stands in for (the CPU device's compute units), which
    /// with the GPU's per-multiprocessor limits bounds a cooperative launch.
    compute_units: u32,
    /// Answers which global addresses byte-addressed accesses may reach, and takes `printf`
    /// output.
    env: Option<Arc<dyn HostEnv>>,
}

impl std::fmt::Debug for ExecKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecKernel")
            .field("func", &self.func.name)
            .field("prog", &self.prog)
            .field("host_env", &self.env.is_some())
            .finish()
    }
}

impl ExecKernel {
    /// Verifies and lowers `func`, refusing what a GPU would refuse to load (over 48 KiB of
    /// static shared memory, over 512 KiB of local memory per thread).
    pub fn new(func: Arc<Function>) -> Result<ExecKernel, ExecError> {
        verify(&func).map_err(|source| ExecError::Invalid { kernel: func.name.clone(), source })?;
        // The GPU's limits, so the executor refuses what a GPU would (and sizes stay small).
        func.check_limits(&Limits::GPU)?;
        let prog = lower(&func);
        let (shared_offsets, static_shared) = func.shared_layout();
        let (local_offsets, local_bytes) = func.local_layout();
        let dyn_shared_align = func.dyn_shared_align();
        let compute_units = std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(1);
        Ok(ExecKernel {
            func,
            prog,
            shared_offsets,
            static_shared,
            dyn_shared_align,
            local_offsets,
            local_bytes,
            compute_units,
            env: None,
        })
    }

    /// The same kernel, with `env` answering which global addresses it may access and taking its
    /// `printf` output. Without one, every byte-addressed global access is an error and `printf`
    /// writes to standard output.
    pub fn with_host(mut self, env: Arc<dyn HostEnv>) -> ExecKernel {
        self.env = Some(env);
        self
    }

    /// Writes device `printf` output to the host environment (standard output without one).
    pub(crate) fn print(&self, text: &[u8]) {
        match &self.env {
            Some(env) => env.print(text),
            None => {
                use std::io::Write;
                let _ = std::io::stdout().lock().write_all(text);
            }
        }
    }

    pub fn name(&self) -> &str {
        &self.func.name
    }

    pub fn function(&self) -> &Function {
        &self.func
    }

    /// Runs the grid as [`CpuKernel::launch`] does and returns the wavefronts its warp-wide
    /// accesses to shared arrays would take on a GPU with 32 four-byte banks (the model is on
    /// [`SharedBankStats`]).
    ///
    /// # Safety
    /// As [`CpuKernel::launch`].
    pub unsafe fn launch_counting_banks(
        &self,
        dims: LaunchDims,
        args: &[&[u8]],
    ) -> Result<SharedBankStats, String> {
        // SAFETY: passed on from this function's contract.
        let stats = unsafe { self.run_launch(dims, args, true) }?;
        Ok(stats.unwrap_or_default())
    }

    /// Runs the grid, counting shared-memory wavefronts when `count_banks` or [`BANKS_VAR`]
    /// asks for them.
    ///
    /// # Safety
    /// As [`CpuKernel::launch`].
    unsafe fn run_launch(
        &self,
        dims: LaunchDims,
        args: &[&[u8]],
        count_banks: bool,
    ) -> Result<Option<SharedBankStats>, String> {
        let mut l = launch::Launch::new(self, dims, args)?;
        if count_banks {
            l.banks.get_or_insert_with(Default::default);
        }
        l.run()?;
        Ok(l.banks.as_ref().map(|c| c.stats()))
    }

    /// Blocks of `threads` threads and `shared_bytes` of shared memory that can be resident at
    /// once, by the GPU's per-multiprocessor limits (2048 threads, 32 blocks, 228 KiB of shared
    /// memory) times the multiprocessors.
    pub fn resident_blocks(&self, threads: u32, shared_bytes: u64) -> u64 {
        let warps = threads.div_ceil(32).max(1) as u64;
        let by_threads = 64 / warps;
        let by_shared = SHARED_BYTES_PER_CU / shared_bytes.max(1);
        by_threads.min(32).min(by_shared) * self.compute_units as u64
    }
}

/// A set of kernels, loadable by the CPU backend as a module.
#[derive(Default)]
pub struct ExecModule {
    kernels: HashMap<String, Arc<ExecKernel>>,
}

impl ExecModule {
    pub fn new(kernels: impl IntoIterator<Item = Arc<ExecKernel>>) -> ExecModule {
        ExecModule { kernels: kernels.into_iter().map(|k| (k.func.name.clone(), k)).collect() }
    }
}

impl CpuModule for ExecModule {
    fn function(&self, name: &str) -> Option<Arc<dyn CpuKernel>> {
        self.kernels.get(name).map(|k| k.clone() as Arc<dyn CpuKernel>)
    }
}

impl CpuKernel for ExecKernel {
    /// Runs the grid on the executor.
    ///
    /// # Safety
    /// As [`CpuKernel::launch`] says: the slice and tensor-map addresses in `args` must describe
    /// live host memory of at least the lengths given (the executor bounds-checks every access
    /// against those lengths, not against the memory itself).
    unsafe fn launch(&self, dims: LaunchDims, args: &[&[u8]]) -> Result<(), String> {
        // SAFETY: passed on from this function's contract.
        if let Some(s) = unsafe { self.run_launch(dims, args, false) }? {
            eprintln!(
                "{BANKS_VAR}: kernel `{}`: shared loads {} requests, {:.2} wavefronts each; stores {} requests, \
                 {:.2} wavefronts each",
                self.func.name,
                s.load_requests,
                s.load_ratio(),
                s.store_requests,
                s.store_ratio()
            );
        }
        Ok(())
    }

    fn attributes(&self) -> FunctionAttributes {
        FunctionAttributes {
            max_threads_per_block: self.func.attrs.max_threads.unwrap_or(1024).min(1024),
            // Both were checked against the GPU limits (48 KiB, 512 KiB) in `new`.
            static_shared_bytes: self.static_shared as u32,
            registers_per_thread: 0,
            local_bytes_per_thread: self.local_bytes as u32,
        }
    }
}
