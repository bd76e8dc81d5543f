//! A PTX module loaded for the CPU executor: its variables in host memory it owns, and each
//! kernel translated to IR behind the launch ABI of the original PTX (one argument per PTX
//! parameter, its bytes), which the wrapper cuts into the IR's chunks.

use std::collections::HashMap;
use std::sync::Arc;

use ferrocm_backend::{CpuKernel, CpuModule, FunctionAttributes, LaunchDims};
use ferrocm_cpu_exec::{ExecKernel, HostEnv};

use crate::parse::{Init, Space};
use crate::translate::ParamPlan;
use crate::{FrontendError, PtxModule};

/// Aligned, zero-initialised host memory for a module's variables.
struct Storage {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

// SAFETY: the storage is plain memory owned by this value; kernels access it through the
// executor's relaxed atomics, and the host through copies the runtime orders after them.
unsafe impl Send for Storage {}
unsafe impl Sync for Storage {}

impl Storage {
    fn new(bytes: u64) -> Result<Storage, FrontendError> {
        let bad = |m: &str| FrontendError::Variable { name: "(module)".into(), message: m.into() };
        let size = usize::try_from(bytes.max(1)).map_err(|_| bad("module variables do not fit in memory"))?;
        let layout =
            std::alloc::Layout::from_size_align(size, 256).map_err(|_| bad("bad variable layout"))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(bad("out of host memory for module variables"));
        }
        Ok(Storage { ptr, layout })
    }

    fn base(&self) -> u64 {
        self.ptr as u64
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout, freed once.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) };
    }
}

/// What kernels of one module may reach: the module's variables, then the host's allocations.
struct ModuleEnv {
    range: (u64, u64),
    host: Arc<dyn HostEnv>,
}

impl HostEnv for ModuleEnv {
    fn global_range(&self, addr: u64) -> Option<(u64, u64)> {
        let (base, size) = self.range;
        if addr >= base && addr - base < size {
            return Some(self.range);
        }
        self.host.global_range(addr)
    }

    fn print(&self, text: &[u8]) {
        self.host.print(text)
    }
}

/// A kernel translated for the executor, or the reason it could not be.
struct PtxCpuKernel {
    name: String,
    exec: Result<Arc<ExecKernel>, String>,
    plan: ParamPlan,
    max_threads: u32,
    /// Keeps the module's variables alive while the kernel can run.
    _storage: Arc<Storage>,
}

impl CpuKernel for PtxCpuKernel {
    /// Runs the kernel on the executor. Every parameter is passed by value (the IR has no slice
    /// parameters: memory is reached through byte addresses the executor checks against the
    /// module's host environment).
    ///
    /// # Safety
    /// None beyond the trait's: no argument is trusted as an address.
    unsafe fn launch(&self, dims: LaunchDims, args: &[&[u8]]) -> Result<(), String> {
        let exec = self.exec.as_ref().map_err(Clone::clone)?;
        if args.len() != self.plan.params.len() {
            return Err(format!(
                "kernel `{}` takes {} parameters, got {}",
                self.name,
                self.plan.params.len(),
                args.len()
            ));
        }
        let mut chunks: Vec<&[u8]> = Vec::new();
        for (k, ((size, parts), arg)) in self.plan.params.iter().zip(args).enumerate() {
            if arg.len() as u64 != *size {
                return Err(format!(
                    "kernel `{}`: parameter {k} is {size} bytes, got {}",
                    self.name,
                    arg.len()
                ));
            }
            let mut at = 0usize;
            for &c in parts {
                chunks.push(&arg[at..at + c as usize]);
                at += c as usize;
            }
        }
        let smem = dims.shared_mem_bytes.to_le_bytes();
        chunks.push(&smem);
        // SAFETY: the translated kernel has only scalar parameters (no slices or tensor maps
        // whose addresses the executor would trust); byte-addressed accesses are checked.
        unsafe { exec.launch(dims, &chunks) }
    }

    fn attributes(&self) -> FunctionAttributes {
        let mut a = match &self.exec {
            Ok(e) => e.attributes(),
            Err(_) => FunctionAttributes { max_threads_per_block: 1024, ..Default::default() },
        };
        a.max_threads_per_block = a.max_threads_per_block.min(self.max_threads);
        a
    }
}

/// A PTX module loaded for the CPU executor.
pub struct CpuPtxModule {
    kernels: HashMap<String, Arc<PtxCpuKernel>>,
    globals: HashMap<String, (u64, u64)>,
    _storage: Arc<Storage>,
}

impl CpuPtxModule {
    /// The address and size of module variable `name`.
    pub fn global(&self, name: &str) -> Option<(u64, u64)> {
        self.globals.get(name).copied()
    }

    /// Why kernel `name` cannot run, if it cannot (an unsupported instruction, with its line).
    pub fn kernel_error(&self, name: &str) -> Option<String> {
        self.kernels.get(name).and_then(|k| k.exec.as_ref().err().cloned())
    }
}

impl CpuModule for CpuPtxModule {
    fn function(&self, name: &str) -> Option<Arc<dyn CpuKernel>> {
        self.kernels.get(name).map(|k| k.clone() as Arc<dyn CpuKernel>)
    }

    fn global(&self, name: &str) -> Option<(u64, u64)> {
        CpuPtxModule::global(self, name)
    }
}

pub(crate) fn load(m: &PtxModule, host: Arc<dyn HostEnv>) -> Result<Arc<CpuPtxModule>, FrontendError> {
    let parsed = m.parsed();
    // Lay out every defined .global/.const variable.
    let mut offset = 0u64;
    let mut at = HashMap::new();
    for v in parsed.vars.iter().filter(|v| matches!(v.space, Space::Global | Space::Const)) {
        if v.external {
            continue;
        }
        offset = offset.next_multiple_of(v.align.clamp(1, 256));
        at.insert(v.name.clone(), (offset, v.size()));
        offset = offset.checked_add(v.size()).ok_or_else(|| FrontendError::Variable {
            name: v.name.clone(),
            message: "size overflows".into(),
        })?;
    }
    let storage = Arc::new(Storage::new(offset)?);
    let base = storage.base();
    let globals: HashMap<String, (u64, u64)> =
        at.iter().map(|(n, &(o, s))| (n.clone(), (base + o, s))).collect();
    // Initialisers, with the addresses of other variables resolved.
    for v in parsed.vars.iter().filter(|v| at.contains_key(&v.name) && !v.init.is_empty()) {
        let (addr, size) = globals[&v.name];
        let elem = v.ty.size();
        if v.init.len() as u64 * elem > size {
            return Err(FrontendError::Variable {
                name: v.name.clone(),
                message: format!("{} initial values for {} elements", v.init.len(), size / elem.max(1)),
            });
        }
        for (k, init) in v.init.iter().enumerate() {
            let bits = match init {
                Init::Bits(b) => *b,
                Init::Symbol(s, off) => match globals.get(s) {
                    Some((a, _)) => a.wrapping_add(*off as u64),
                    None => {
                        return Err(FrontendError::Variable {
                            name: v.name.clone(),
                            message: format!("its initialiser names `{s}`, which is not a module variable"),
                        })
                    }
                },
            };
            let bytes = bits.to_le_bytes();
            // SAFETY: element `k` lies inside the variable (checked above), inside the storage;
            // no kernel runs yet.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    (addr + k as u64 * elem) as *mut u8,
                    elem as usize,
                );
            }
        }
    }
    let env: Arc<dyn HostEnv> = Arc::new(ModuleEnv { range: (base, offset.max(1)), host });
    let addrs: HashMap<String, u64> = globals.iter().map(|(n, (a, _))| (n.clone(), *a)).collect();
    let mut kernels = HashMap::new();
    for sig in m.kernels() {
        let exec = m.to_ir(&sig.name, &addrs).map_err(|e| e.to_string()).and_then(|(func, plan)| {
            let k = ExecKernel::new(Arc::new(func)).map_err(|e| e.to_string())?;
            Ok((Arc::new(k.with_host(env.clone())), plan))
        });
        let (exec, plan) = match exec {
            Ok((k, plan)) => (Ok(k), plan),
            Err(e) => {
                let f = parsed.functions.iter().find(|f| f.name == sig.name);
                let plan = f.map(ParamPlan::new).unwrap_or(ParamPlan { params: Vec::new() });
                (Err(format!("kernel `{}` cannot run on the CPU executor: {e}", sig.name)), plan)
            }
        };
        kernels.insert(
            sig.name.clone(),
            Arc::new(PtxCpuKernel {
                name: sig.name.clone(),
                exec,
                plan,
                max_threads: sig.max_threads.unwrap_or(1024).min(1024),
                _storage: storage.clone(),
            }),
        );
    }
    Ok(Arc::new(CpuPtxModule { kernels, globals, _storage: storage }))
}
