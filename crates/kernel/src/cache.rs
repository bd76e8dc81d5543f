//! The compile cache: one [`CompiledKernel`] per kernel and set of compile-time values, holding
//! the IR, the CPU executor's lowering and the PTX for each architecture asked for.
//!
//! `FERROCM_DUMP=ir,ptx` writes each newly generated IR / PTX text to stderr, or to files in
//! `FERROCM_DUMP_DIR` (`<entry>.ir`, `<entry>.<arch>.ptx`) when that is set.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use ferrocm_backend::{BackendKind, CpuKernel, LaunchDims, ModuleImage};
use ferrocm_cpu_exec::{ExecKernel, ExecModule};
use ferrocm_ir::{BuildError, Function};
use ferrocm_runtime::{Device, KernelArgs, LaunchConfig, Stream};

/// Why a kernel could not be built, compiled or run.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum KernelError {
    #[error("kernel `{kernel}` could not be built: {source}")]
    Build { kernel: String, source: BuildError },
    #[error("kernel `{kernel}` is invalid IR: {message}")]
    Invalid { kernel: String, message: String },
    #[error("kernel `{kernel}`: PTX generation failed: {message}")]
    Codegen { kernel: String, message: String },
    #[error("{message}")]
    Launch { kernel: String, message: String },
    #[error("kernel `{kernel}` could not be loaded on device {device}: {message}")]
    Load { kernel: String, device: usize, message: String },
    #[error("kernel `{kernel}`: {source}")]
    Runtime { kernel: String, source: ferrocm_runtime::Error },
}

/// One built instantiation of a kernel.
pub struct CompiledKernel {
    ir: Arc<Function>,
    cpu: OnceLock<Result<Arc<ExecKernel>, KernelError>>,
    ptx: Mutex<HashMap<String, Arc<String>>>,
    /// The loaded function on each device, by `Device::index`.
    loaded: Mutex<HashMap<usize, ferrocm_runtime::Function>>,
}

impl std::fmt::Debug for CompiledKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CompiledKernel({})", self.ir.name)
    }
}

fn dump(kind: &str, file: &str, text: &str) {
    let Ok(what) = std::env::var("FERROCM_DUMP") else { return };
    if !what.split(',').any(|w| w.trim() == kind || w.trim() == "all") {
        return;
    }
    match std::env::var("FERROCM_DUMP_DIR") {
        Ok(dir) => {
            let path = std::path::Path::new(&dir).join(file);
            if let Err(e) = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, text)) {
                eprintln!("ferrocm: could not write {}: {e}", path.display());
            }
        }
        Err(_) => eprintln!("==== ferrocm {kind}: {file}\n{text}"),
    }
}

impl CompiledKernel {
    fn new(ir: Function) -> Result<CompiledKernel, KernelError> {
        if let Err(e) = ferrocm_ir::verify(&ir) {
            return Err(KernelError::Invalid { kernel: ir.name.clone(), message: e.to_string() });
        }
        dump("ir", &format!("{}.ir", ir.name), &ir.to_string());
        Ok(CompiledKernel {
            ir: Arc::new(ir),
            cpu: OnceLock::new(),
            ptx: Mutex::new(HashMap::new()),
            loaded: Mutex::new(HashMap::new()),
        })
    }

    /// The kernel's IR.
    pub fn ir(&self) -> &Function {
        &self.ir
    }

    /// The entry-point name (in PTX and in CPU modules).
    pub fn name(&self) -> &str {
        &self.ir.name
    }

    /// The kernel lowered for the CPU executor (built on first use).
    pub fn cpu(&self) -> Result<Arc<ExecKernel>, KernelError> {
        self.cpu
            .get_or_init(|| {
                ExecKernel::new(self.ir.clone()).map(Arc::new).map_err(|e| KernelError::Invalid {
                    kernel: self.ir.name.clone(),
                    message: e.to_string(),
                })
            })
            .clone()
    }

    /// PTX for `arch` (e.g. "sm_90"), generated on first use.
    pub fn ptx(&self, arch: &str) -> Result<Arc<String>, KernelError> {
        let mut map = self.ptx.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = map.get(arch) {
            return Ok(p.clone());
        }
        let text = ferrocm_ptx::generate(&self.ir, &ferrocm_ptx::Target::from_arch(arch))
            .map_err(|e| KernelError::Codegen { kernel: self.ir.name.clone(), message: e.to_string() })?;
        dump("ptx", &format!("{}.{arch}.ptx", self.ir.name), &text);
        let text = Arc::new(text);
        map.insert(arch.to_string(), text.clone());
        Ok(text)
    }

    /// The kernel loaded on `device` (compiled for its architecture and loaded once per device).
    /// A driver JIT error comes back with the PTX lines its log points at.
    pub fn function(&self, device: &Device) -> Result<ferrocm_runtime::Function, KernelError> {
        let mut map = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = map.get(&device.index()) {
            return Ok(f.clone());
        }
        let name = self.ir.name.clone();
        let (image, ptx) = match device.kind() {
            BackendKind::Cpu => {
                let k = self.cpu()?;
                (ModuleImage::Cpu(Arc::new(ExecModule::new([k]))), None)
            }
            _ => {
                let ptx = self.ptx(&device.properties().arch)?;
                (ModuleImage::Ptx(ptx.to_string()), Some(ptx))
            }
        };
        let module = device.load_module(image).map_err(|e| KernelError::Load {
            kernel: name.clone(),
            device: device.index(),
            message: match &ptx {
                Some(p) => ferrocm_ptx::annotate_jit_log(p, &e.to_string()),
                None => e.to_string(),
            },
        })?;
        let f =
            module.function(&name).map_err(|source| KernelError::Runtime { kernel: name.clone(), source })?;
        map.insert(device.index(), f.clone());
        Ok(f)
    }

    /// Launches on `stream` with raw arguments (the ABI in the crate documentation); the typed
    /// `launch` the macro generates calls this.
    ///
    /// # Safety
    /// `args` must match the kernel's parameters in number, order and type, and every address
    /// must stay valid until the kernel completes.
    pub unsafe fn launch_raw(
        &self,
        stream: &Stream,
        cfg: LaunchConfig,
        args: &KernelArgs,
    ) -> Result<(), KernelError> {
        let f = self.function(stream.device())?;
        // SAFETY: forwarded from this function's contract.
        unsafe { stream.launch(&f, cfg, args) }
            .map_err(|source| KernelError::Runtime { kernel: self.ir.name.clone(), source })
    }

    /// Runs the whole grid on the CPU executor over host memory (the arguments' raw bytes, as
    /// for a device launch; slices as address and length).
    pub fn launch_host(&self, dims: LaunchDims, args: &crate::HostArgs) -> Result<(), KernelError> {
        let k = self.cpu()?;
        k.launch(dims, &args.as_slices())
            .map_err(|message| KernelError::Launch { kernel: self.ir.name.clone(), message })
    }
}

type Cache = Mutex<HashMap<String, Arc<CompiledKernel>>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The cached instantiation for `key`, built with `build` the first time.
pub fn get_or_build(
    key: &str,
    build: impl FnOnce() -> Result<Function, BuildError>,
    name: &str,
) -> Result<Arc<CompiledKernel>, KernelError> {
    if let Some(k) = cache().lock().unwrap_or_else(|p| p.into_inner()).get(key) {
        return Ok(k.clone());
    }
    // Build outside the lock: building runs user code, which may build other kernels.
    let f = build().map_err(|source| KernelError::Build { kernel: name.to_string(), source })?;
    let k = Arc::new(CompiledKernel::new(f)?);
    let mut map = cache().lock().unwrap_or_else(|p| p.into_inner());
    Ok(map.entry(key.to_string()).or_insert(k).clone())
}

/// Number of instantiations built so far (for tests of the cache).
pub fn cached_count() -> usize {
    cache().lock().unwrap_or_else(|p| p.into_inner()).len()
}
