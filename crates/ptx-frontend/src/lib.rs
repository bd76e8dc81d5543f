//! ferrocm's PTX front end: PTX text, as clang emits it for HIP and CUDA kernels, to ferrocm IR,
//! so that the CPU executor runs the very kernels a GPU runs.
//!
//! Design: parse ([`parse`]) to a syntax tree; per kernel, inline every device function and
//! resolve scopes (`flatten`), cut the code into basic blocks and turn branches into the IR's
//! structured control flow (`control`: Ramsey's algorithm for reducible graphs, blocks as loops
//! that run once, so lanes reconverge where the GPU reconverges them), then translate each
//! instruction (`translate`). PTX addresses memory by pointer, the IR by (memory, index): the
//! translation uses the IR's byte-addressed memories ([`ferrocm_ir::MemSpace::Addressed`]), and
//! the executor checks every access against the allocations the host names, the block's shared
//! memory and the thread's local frame. Module-scope `.global` and `.const` variables live in
//! host memory owned by the loaded module ([`CpuPtxModule`]); their addresses are constants in
//! the IR.
//!
//! Contract: anything outside the supported subset (texture and surface instructions, device
//! malloc, indirect calls, timers, irreducible control flow, ...) is an error naming the
//! instruction and its line, reported when the kernel is launched (other kernels of the module
//! still run). The translation is deterministic and needs no GPU.

mod control;
mod cpu;
mod flatten;
mod parse;
mod translate;

use std::collections::HashMap;

pub use cpu::CpuPtxModule;
pub use parse::PtxType;
pub use translate::ParamPlan;

/// Why PTX could not be read or translated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrontendError {
    /// The text is not PTX this front end can parse.
    #[error("PTX line {line}: {message}")]
    Syntax { line: usize, message: String },
    /// Valid PTX outside the supported subset.
    #[error("PTX line {line}: {what} is not supported on the CPU executor")]
    Unsupported { line: usize, what: String },
    /// PTX that breaks a rule of the language (an unknown register, a bad operand).
    #[error("PTX line {line}: {message}")]
    Invalid { line: usize, message: String },
    /// A module variable could not be laid out or initialised.
    #[error("PTX variable `{name}`: {message}")]
    Variable { name: String, message: String },
}

/// The layout of one kernel parameter, as the launch passes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamLayout {
    pub size: u64,
    pub align: u64,
}

/// A kernel's name, parameters and declared block limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSignature {
    pub name: String,
    pub params: Vec<ParamLayout>,
    /// From `.maxntid`/`.reqntid`, if declared.
    pub max_threads: Option<u32>,
}

/// A module-scope variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalSignature {
    pub name: String,
    pub size: u64,
    /// `.const` (a `__constant__` variable) rather than `.global`.
    pub constant: bool,
}

/// A parsed PTX module.
#[derive(Clone, Debug)]
pub struct PtxModule {
    parsed: parse::Module,
}

impl PtxModule {
    /// Parses PTX text (a syntax error names its line).
    pub fn parse(text: &str) -> Result<PtxModule, FrontendError> {
        Ok(PtxModule { parsed: parse::parse(text)? })
    }

    /// The `.target` architecture, e.g. `sm_80`.
    pub fn target(&self) -> &str {
        &self.parsed.target
    }

    /// Every kernel (`.entry`) the module defines.
    pub fn kernels(&self) -> Vec<KernelSignature> {
        self.parsed
            .functions
            .iter()
            .filter(|f| f.entry && f.body.is_some())
            .map(|f| KernelSignature {
                name: f.name.clone(),
                params: f.params.iter().map(|p| ParamLayout { size: p.size(), align: p.align }).collect(),
                max_threads: f.max_threads,
            })
            .collect()
    }

    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<KernelSignature> {
        self.kernels().into_iter().find(|k| k.name == name)
    }

    /// Every module-scope `.global` and `.const` variable the module defines.
    pub fn globals(&self) -> Vec<GlobalSignature> {
        self.parsed
            .vars
            .iter()
            .filter(|v| matches!(v.space, parse::Space::Global | parse::Space::Const) && !v.external)
            .map(|v| GlobalSignature {
                name: v.name.clone(),
                size: v.size(),
                constant: v.space == parse::Space::Const,
            })
            .collect()
    }

    /// Kernel `name` as IR, with module variables at the addresses `globals` gives (a dump and
    /// test entry point; [`PtxModule::load_cpu`] is what runs kernels).
    pub fn to_ir(
        &self,
        name: &str,
        globals: &HashMap<String, u64>,
    ) -> Result<(ferrocm_ir::Function, ParamPlan), FrontendError> {
        let Some(f) = self.parsed.functions.iter().find(|f| f.name == name && f.entry && f.body.is_some())
        else {
            return Err(FrontendError::Invalid {
                line: 0,
                message: format!("the module has no kernel `{name}`"),
            });
        };
        let flat = flatten::flatten(&self.parsed, f)?;
        let blocks = control::blocks(&flat.items)?;
        let code = control::structure(&blocks)?;
        let t = translate::translate(&self.parsed, f, &flat, &blocks, &code, globals)?;
        Ok((t.func, t.plan))
    }

    /// Loads the module for the CPU executor: lays out and initialises its variables in host
    /// memory and translates every kernel. `host` names the allocations kernels may reach
    /// besides the module's own variables, and takes `printf` output.
    pub fn load_cpu(
        &self,
        host: std::sync::Arc<dyn ferrocm_cpu_exec::HostEnv>,
    ) -> Result<std::sync::Arc<CpuPtxModule>, FrontendError> {
        cpu::load(self, host)
    }

    pub(crate) fn parsed(&self) -> &parse::Module {
        &self.parsed
    }
}
