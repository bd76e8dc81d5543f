//! Compiling and caching: one [`CompiledKernel`] per kernel and set of compile-time values,
//! holding the IR, the code generated for each target, and the function loaded on each device.
//!
//! Code generation follows the device's [`Target`]: a small registry of [`CodeGenerator`]s keyed
//! by instruction set ([`Isa`]) turns the IR into a module image (PTX text for NVIDIA, the
//! executor's program for the CPU). A new backend adds a target and registers a generator; this
//! crate's dispatch does not change.
//!
//! The steady-state typed launch takes no lock and allocates nothing here: each kernel's
//! instantiations live in a per-kernel [`InstanceCache`] (a lock-free list keyed by a hash of the
//! compile-time values, checked against their text without formatting it), and each
//! instantiation keeps its loaded function per device in a `OnceLock` slot.
//!
//! `FERROCM_DUMP=ir,ptx` writes each newly generated IR / PTX text to stderr, or to files in
//! `FERROCM_DUMP_DIR` (`<entry>.ir`, `<entry>.<arch>.ptx`) when that is set.

use std::any::Any;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher as _};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use ferrocm_backend::{CpuKernel, Feature, Isa, LaunchDims, ModuleImage, Target};
use ferrocm_cpu_exec::{ExecError, ExecKernel, ExecModule};
use ferrocm_ir::{BuildError, Function, LimitError, ParamKind};
use ferrocm_ptx::PtxError;
use ferrocm_runtime::{Device, KernelArgs, LaunchConfig, Stream};

/// Why a kernel could not be built, compiled or run.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum KernelError {
    #[error("kernel `{kernel}` could not be built: {source}")]
    Build { kernel: String, source: BuildError },
    #[error("kernel `{kernel}` is invalid IR: {message}")]
    Invalid { kernel: String, message: String },
    #[error(transparent)]
    Limit(#[from] LimitError),
    #[error("kernel `{kernel}`: {what} needs {feature} ({min_arch} or newer), but the device's target is {target}")]
    MissingFeature { kernel: String, what: String, feature: Feature, min_arch: &'static str, target: String },
    #[error("kernel `{kernel}`: code generation for {target} failed: {message}")]
    Codegen { kernel: String, target: String, message: String },
    #[error("kernel `{kernel}`: no code generator produces {isa} code")]
    NoCodeGenerator { kernel: String, isa: Isa },
    #[error("{message}")]
    Launch { kernel: String, message: String },
    #[error("kernel `{kernel}`: host argument {index}: {message}")]
    HostArg { kernel: String, index: usize, message: String },
    #[error("kernel `{kernel}` could not be loaded on device {device}: {message}")]
    Load { kernel: String, device: usize, message: String },
    #[error("kernel `{kernel}`: {source}")]
    Runtime { kernel: String, source: Box<ferrocm_runtime::Error> },
}

impl KernelError {
    fn from_exec(e: ExecError) -> KernelError {
        match e {
            ExecError::Limit(l) => KernelError::Limit(l),
            ExecError::Invalid { kernel, source } => {
                KernelError::Invalid { kernel, message: source.to_string() }
            }
            e => KernelError::Invalid { kernel: String::new(), message: e.to_string() },
        }
    }

    fn from_ptx(kernel: &str, target: &Target, e: PtxError) -> KernelError {
        match e {
            PtxError::MissingFeature { kernel, what, feature, min_arch, target } => {
                KernelError::MissingFeature { kernel, what, feature, min_arch, target }
            }
            PtxError::Limit(l) => KernelError::Limit(l),
            e => KernelError::Codegen {
                kernel: kernel.into(),
                target: target.to_string(),
                message: e.to_string(),
            },
        }
    }
}

/// What a code generator made for one target: the image a backend loads, and its text where it
/// has one (for dumps and for annotating a JIT log).
#[derive(Clone)]
pub struct Artifact {
    pub image: ModuleImage,
    pub text: Option<Arc<String>>,
}

/// Turns a kernel's IR into a module image for one instruction set.
pub trait CodeGenerator: Send + Sync {
    /// The instruction set this generator produces.
    fn isa(&self) -> Isa;
    /// Generates `kernel` for `target`; an instruction the target lacks is an error naming both.
    fn generate(&self, kernel: &CompiledKernel, target: &Target) -> Result<Artifact, KernelError>;
}

/// PTX for NVIDIA GPUs (`ferrocm-ptx`).
struct PtxGenerator;

impl CodeGenerator for PtxGenerator {
    fn isa(&self) -> Isa {
        Isa::Ptx
    }
    fn generate(&self, kernel: &CompiledKernel, target: &Target) -> Result<Artifact, KernelError> {
        let text = kernel.ptx_for(target)?;
        Ok(Artifact { image: ModuleImage::Ptx(text.to_string()), text: Some(text) })
    }
}

/// The CPU executor's program (`ferrocm-cpu-exec`).
struct CpuExecGenerator;

impl CodeGenerator for CpuExecGenerator {
    fn isa(&self) -> Isa {
        Isa::CpuExec
    }
    fn generate(&self, kernel: &CompiledKernel, _: &Target) -> Result<Artifact, KernelError> {
        let k = kernel.cpu()?;
        Ok(Artifact { image: ModuleImage::Cpu(Arc::new(ExecModule::new([k]))), text: None })
    }
}

static BUILT_IN: [&dyn CodeGenerator; 2] = [&PtxGenerator, &CpuExecGenerator];

fn registered() -> &'static RwLock<Vec<&'static dyn CodeGenerator>> {
    static EXTRA: OnceLock<RwLock<Vec<&'static dyn CodeGenerator>>> = OnceLock::new();
    EXTRA.get_or_init(Default::default)
}

/// Adds a code generator for an instruction set the built-in ones do not produce (or replaces
/// the one for its instruction set: the latest registration wins).
pub fn register_code_generator(generator: &'static dyn CodeGenerator) {
    registered().write().unwrap_or_else(|p| p.into_inner()).push(generator);
}

/// The code generator for `isa`.
pub fn code_generator(isa: Isa) -> Option<&'static dyn CodeGenerator> {
    let extra = registered().read().unwrap_or_else(|p| p.into_inner());
    extra
        .iter()
        .rev()
        .copied()
        .find(|g| g.isa() == isa)
        .or_else(|| BUILT_IN.iter().copied().find(|g| g.isa() == isa))
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

/// Devices whose loaded function is kept in a lock-free slot; later ones share a map.
const DEVICE_SLOTS: usize = 64;

/// One built instantiation of a kernel.
pub struct CompiledKernel {
    ir: Arc<Function>,
    cpu: OnceLock<Result<Arc<ExecKernel>, KernelError>>,
    ptx: Mutex<HashMap<Target, Arc<String>>>,
    /// The timed variant kernel tracing launches (built on first traced launch).
    timed: OnceLock<Result<Arc<CompiledKernel>, KernelError>>,
    /// The loaded function on each device, by `Device::index`.
    loaded: [OnceLock<ferrocm_runtime::Function>; DEVICE_SLOTS],
    loaded_more: Mutex<HashMap<usize, ferrocm_runtime::Function>>,
}

impl std::fmt::Debug for CompiledKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CompiledKernel({})", self.ir.name)
    }
}

impl CompiledKernel {
    /// Wraps a built function, checking the IR's invariants.
    pub fn new(ir: Function) -> Result<CompiledKernel, KernelError> {
        if let Err(e) = ferrocm_ir::verify(&ir) {
            return Err(KernelError::Invalid { kernel: ir.name.clone(), message: e.to_string() });
        }
        dump("ir", &format!("{}.ir", ir.name), &ir.to_string());
        Ok(CompiledKernel {
            ir: Arc::new(ir),
            cpu: OnceLock::new(),
            ptx: Mutex::new(HashMap::new()),
            timed: OnceLock::new(),
            loaded: [const { OnceLock::new() }; DEVICE_SLOTS],
            loaded_more: Mutex::new(HashMap::new()),
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

    /// The timed variant of this kernel ([`ferrocm_ir::timed`]), which kernel tracing launches
    /// in its place: the same computation, with a trailing `u64` slice parameter (a timing slot)
    /// where the first thread of each block folds in the device timer at entry and exit.
    pub fn timed(&self) -> Result<Arc<CompiledKernel>, KernelError> {
        self.timed_variant().clone()
    }

    fn timed_variant(&self) -> &Result<Arc<CompiledKernel>, KernelError> {
        self.timed.get_or_init(|| CompiledKernel::new(ferrocm_ir::timed(&self.ir)).map(Arc::new))
    }

    /// The kernel lowered for the CPU executor (built on first use). Launching it directly is
    /// `unsafe` ([`CpuKernel::launch`]); [`CompiledKernel::launch_host`] is the safe way.
    pub fn cpu(&self) -> Result<Arc<ExecKernel>, KernelError> {
        self.cpu
            .get_or_init(|| ExecKernel::new(self.ir.clone()).map(Arc::new).map_err(KernelError::from_exec))
            .clone()
    }

    /// PTX for `target` (generated on first use).
    pub fn ptx_for(&self, target: &Target) -> Result<Arc<String>, KernelError> {
        let mut map = self.ptx.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = map.get(target) {
            return Ok(p.clone());
        }
        let text = ferrocm_ptx::generate(&self.ir, target)
            .map_err(|e| KernelError::from_ptx(&self.ir.name, target, e))?;
        dump("ptx", &format!("{}.{}.ptx", self.ir.name, target.arch), &text);
        let text = Arc::new(text);
        map.insert(target.clone(), text.clone());
        Ok(text)
    }

    /// PTX for an architecture name such as `"sm_80"`, `"sm_90"` or `"sm_90a"` (the features of
    /// that architecture, the newest PTX version), for inspecting code without a device.
    pub fn ptx(&self, arch: &str) -> Result<Arc<String>, KernelError> {
        self.ptx_for(&ferrocm_ptx::target_for_arch(arch))
    }

    /// The module image for `target`, from the code generator of its instruction set.
    pub fn generate(&self, target: &Target) -> Result<Artifact, KernelError> {
        let g = code_generator(target.isa)
            .ok_or_else(|| KernelError::NoCodeGenerator { kernel: self.ir.name.clone(), isa: target.isa })?;
        g.generate(self, target)
    }

    /// The kernel loaded on `device` (generated for its target and loaded once per device). A
    /// driver JIT error comes back with the generated lines its log points at.
    pub fn function(&self, device: &Device) -> Result<ferrocm_runtime::Function, KernelError> {
        let index = device.index();
        if let Some(f) = self.loaded.get(index).and_then(OnceLock::get) {
            return Ok(f.clone());
        }
        if index >= DEVICE_SLOTS {
            if let Some(f) = self.loaded_more.lock().unwrap_or_else(|p| p.into_inner()).get(&index) {
                return Ok(f.clone());
            }
        }
        let name = self.ir.name.clone();
        let artifact = self.generate(device.target())?;
        let module = device.load_module(artifact.image).map_err(|e| KernelError::Load {
            kernel: name.clone(),
            device: index,
            message: match &artifact.text {
                Some(p) => ferrocm_ptx::annotate_jit_log(p, &e.to_string()),
                None => e.to_string(),
            },
        })?;
        let f = module
            .function(&name)
            .map_err(|source| KernelError::Runtime { kernel: name.clone(), source: Box::new(source) })?;
        // Two threads may load at once; the first one stored wins and the other module is dropped.
        Ok(match self.loaded.get(index) {
            Some(slot) => slot.get_or_init(|| f).clone(),
            None => {
                self.loaded_more.lock().unwrap_or_else(|p| p.into_inner()).entry(index).or_insert(f).clone()
            }
        })
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
        let loaded;
        // The common case borrows the loaded function (no reference counts change per launch).
        let f = match self.loaded.get(stream.device().index()).and_then(OnceLock::get) {
            Some(f) => f,
            None => {
                loaded = self.function(stream.device())?;
                &loaded
            }
        };
        let result = match self.timed_function(stream) {
            // SAFETY: forwarded from this function's contract; the timed variant takes the same
            // arguments and the slot the runtime appends.
            Some(t) => unsafe { stream.launch_timed(f, &t, cfg, args) },
            // SAFETY: forwarded from this function's contract.
            None => unsafe { stream.launch(f, cfg, args) },
        };
        result
            .map_err(|source| KernelError::Runtime { kernel: self.ir.name.clone(), source: Box::new(source) })
    }

    /// The timed variant loaded on the stream's device, while kernels are traced (`None`: not
    /// traced, or the variant cannot be built or loaded, and the kernel is timed by events).
    /// Borrowed once loaded, as the kernel itself is: a traced launch changes no reference
    /// count.
    #[inline]
    fn timed_function(&self, stream: &Stream) -> Option<Cow<'_, ferrocm_runtime::Function>> {
        if !ferrocm_runtime::trace::kernels_traced() {
            return None;
        }
        let timed = self.timed_variant().as_ref().ok()?;
        if let Some(f) = timed.loaded.get(stream.device().index()).and_then(OnceLock::get) {
            return Some(Cow::Borrowed(f));
        }
        timed.function(stream.device()).ok().map(Cow::Owned)
    }

    /// Runs the whole grid on the CPU executor over host memory. Safe: the arguments were made
    /// from live host values ([`crate::HostArg`]) and are checked against the kernel's
    /// parameters (number, element type, and writability of each slice) before anything runs.
    pub fn launch_host(&self, dims: LaunchDims, args: &crate::HostArgs) -> Result<(), KernelError> {
        let name = &self.ir.name;
        let bad =
            |index: usize, message: String| KernelError::HostArg { kernel: name.clone(), index, message };
        if args.kinds.len() != self.ir.params.len() {
            return Err(bad(
                args.kinds.len().min(self.ir.params.len()),
                format!("the kernel takes {} arguments, got {}", self.ir.params.len(), args.kinds.len()),
            ));
        }
        for (i, (p, got)) in self.ir.params.iter().zip(&args.kinds).enumerate() {
            let ok = match (p.kind, got) {
                (ParamKind::Scalar(t), crate::HostKind::Scalar(g)) => t == *g,
                (ParamKind::Slice { elem, mutable }, crate::HostKind::Slice { elem: g, mutable: m }) => {
                    elem == *g && (*m || !mutable)
                }
                (ParamKind::TensorMap, crate::HostKind::TensorMap) => true,
                _ => false,
            };
            if !ok {
                return Err(bad(i, format!("`{}` is {}, got {}", p.name, param_text(p.kind), got)));
            }
        }
        let k = self.cpu()?;
        // SAFETY: every address in `args` comes from a host slice or tensor map borrowed for the
        // `HostArgs`' lifetime, with its length in elements of the element type the kernel
        // expects (checked above), and slices the kernel writes came from `&mut` borrows.
        unsafe { k.launch(dims, &args.as_slices()) }
            .map_err(|message| KernelError::Launch { kernel: name.clone(), message })
    }
}

fn param_text(k: ParamKind) -> String {
    match k {
        ParamKind::Scalar(t) => t.to_string(),
        ParamKind::Slice { elem, mutable: false } => format!("&[{elem}]"),
        ParamKind::Slice { elem, mutable: true } => format!("&mut [{elem}]"),
        ParamKind::TensorMap => "a tensor map".into(),
    }
}

impl fmt::Display for crate::HostKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            crate::HostKind::Scalar(t) => write!(f, "{t}"),
            crate::HostKind::Slice { elem, mutable: false } => write!(f, "&[{elem}]"),
            crate::HostKind::Slice { elem, mutable: true } => write!(f, "&mut [{elem}]"),
            crate::HostKind::TensorMap => f.write_str("a tensor map"),
        }
    }
}

/// Instantiations built so far, over every kernel.
static BUILT: AtomicUsize = AtomicUsize::new(0);

/// Number of instantiations built so far (for tests of the cache).
pub fn cached_count() -> usize {
    BUILT.load(Ordering::Relaxed)
}

/// Writes a key's text (the compile-time values) to a sink, so it can be hashed and compared
/// without allocating.
pub type KeyWriter<'a> = &'a dyn Fn(&mut dyn fmt::Write) -> fmt::Result;

/// Two FNV-1a hashes of what is written (128 bits, so distinct keys essentially never share one;
/// a shared one is still told apart by comparing the text).
struct Hasher(u64, u64);

impl fmt::Write for Hasher {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for b in s.bytes() {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
            self.1 = (self.1 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(5);
        }
        Ok(())
    }
}

fn key_hash(key: KeyWriter) -> u128 {
    let mut h = Hasher(0xcbf2_9ce4_8422_2325, 0x6c62_272e_07bb_0142);
    // Writing to the hasher cannot fail; a `Debug` impl that fails hashes what it wrote.
    let _ = key(&mut h);
    (h.0 as u128) << 64 | h.1 as u128
}

/// Compares what is written with `expected`, without allocating.
struct Compare<'a> {
    rest: &'a str,
    equal: bool,
}

impl fmt::Write for Compare<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        match self.rest.strip_prefix(s) {
            Some(r) if self.equal => self.rest = r,
            _ => self.equal = false,
        }
        Ok(())
    }
}

fn key_equals(key: KeyWriter, text: &str) -> bool {
    let mut c = Compare { rest: text, equal: true };
    let _ = key(&mut c);
    c.equal && c.rest.is_empty()
}

struct Entry {
    hash: u128,
    key: String,
    kernel: Arc<CompiledKernel>,
    next: *mut Entry,
}

/// A multiply-rotate hash of a few words (the compile-time values of one launch): a miss is
/// only a list walk, so it needs speed, not resistance to chosen collisions.
struct ValueHasher(u64);

impl std::hash::Hasher for ValueHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_u8(&mut self, v: u8) {
        self.write_u64(v.into());
    }

    fn write_u32(&mut self, v: u32) {
        self.write_u64(v.into());
    }

    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// An instantiation found by the compile-time values themselves (see [`ByValue`]).
struct ValueEntry {
    hash: u64,
    key: Box<dyn Any + Send + Sync>,
    kernel: Arc<CompiledKernel>,
    next: *mut ValueEntry,
}

/// The instantiations of one kernel, by compile-time values: lock-free lists that only grow
/// (entries live as long as the process, like the kernels they hold).
///
/// Every instantiation is keyed by the text of its compile-time values (their `Debug` form,
/// which also names its PTX entry): a lookup hashes the text, walks the list and compares the
/// text, with no lock and no allocation. When the values can be hashed and compared as values
/// ([`ByValue`]: `Hash + Eq`), a second list finds them without formatting them at all, which
/// is what a launch pays on every call; formatting a plan of a few fields costs thousands of
/// instructions.
pub struct InstanceCache {
    head: AtomicPtr<Entry>,
    by_value: AtomicPtr<ValueEntry>,
}

// SAFETY: entries are immutable once published and never freed, and hold only `Send + Sync`
// data (`String`, `Box<dyn Any + Send + Sync>`, `Arc<CompiledKernel>`); the lists are
// published through atomic pointers.
unsafe impl Sync for InstanceCache {}
unsafe impl Send for InstanceCache {}

/// The builder an instantiation is made with on a miss (given the key's text).
pub type Build<'a> = &'a mut dyn FnMut(&str) -> Result<Function, BuildError>;

/// The compile-time values of one launch, for [`ByValue`] / [`ByText`] to choose the lookup.
/// Generated code calls `(&Probe(&values)).instance(...)`: the by-value lookup applies when the
/// values are `Hash + Eq` (method resolution picks it before the by-text one, which takes one
/// more reference), and the text lookup otherwise.
pub struct Probe<'a, K>(pub &'a K);

/// The lookup by the values themselves (the fast path).
pub trait ByValue {
    fn instance(
        &self,
        cache: &InstanceCache,
        text: KeyWriter,
        build: Build,
        name: &str,
    ) -> Result<Arc<CompiledKernel>, KernelError>;
}

/// The lookup by the text of the values (for values that cannot be hashed as values).
pub trait ByText {
    fn instance(
        &self,
        cache: &InstanceCache,
        text: KeyWriter,
        build: Build,
        name: &str,
    ) -> Result<Arc<CompiledKernel>, KernelError>;
}

impl<K: Hash + Eq + Clone + Send + Sync + 'static> ByValue for Probe<'_, K> {
    fn instance(
        &self,
        cache: &InstanceCache,
        text: KeyWriter,
        build: Build,
        name: &str,
    ) -> Result<Arc<CompiledKernel>, KernelError> {
        cache.get_or_build_by_value(self.0, text, build, name)
    }
}

impl<K> ByText for &Probe<'_, K> {
    fn instance(
        &self,
        cache: &InstanceCache,
        text: KeyWriter,
        build: Build,
        name: &str,
    ) -> Result<Arc<CompiledKernel>, KernelError> {
        cache.get_or_build(text, build, name)
    }
}

impl Default for InstanceCache {
    fn default() -> Self {
        InstanceCache::new()
    }
}

impl InstanceCache {
    pub const fn new() -> InstanceCache {
        InstanceCache {
            head: AtomicPtr::new(std::ptr::null_mut()),
            by_value: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// [`get_or_build`](Self::get_or_build) for values that are their own key: found by hash
    /// and equality of the values; a miss goes through the text (so the instantiation is the
    /// one its text names, built once) and is then remembered by value.
    pub fn get_or_build_by_value<K: Hash + Eq + Clone + Send + Sync + 'static>(
        &self,
        key: &K,
        text: KeyWriter,
        build: impl FnOnce(&str) -> Result<Function, BuildError>,
        name: &str,
    ) -> Result<Arc<CompiledKernel>, KernelError> {
        let hash = {
            let mut h = ValueHasher(0);
            key.hash(&mut h);
            h.finish()
        };
        let head = self.by_value.load(Ordering::Acquire);
        let mut p = head;
        while !p.is_null() {
            // SAFETY: entries are published fully built (release/acquire on `by_value`) and
            // never freed or changed.
            let e = unsafe { &*p };
            if e.hash == hash && e.key.downcast_ref::<K>() == Some(key) {
                return Ok(e.kernel.clone());
            }
            p = e.next;
        }
        let kernel = self.get_or_build(text, build, name)?;
        let entry = Box::into_raw(Box::new(ValueEntry {
            hash,
            key: Box::new(key.clone()),
            kernel: kernel.clone(),
            next: head,
        }));
        // Two threads that missed the same values may both publish an entry; both hold the
        // same kernel, so either serves.
        let mut seen = head;
        while let Err(now) = self.by_value.compare_exchange(seen, entry, Ordering::AcqRel, Ordering::Acquire)
        {
            // SAFETY: `entry` is ours until published.
            unsafe { (*entry).next = now };
            seen = now;
        }
        Ok(kernel)
    }

    fn find(&self, hash: u128, key: KeyWriter, from: *mut Entry) -> Option<Arc<CompiledKernel>> {
        let mut p = from;
        while !p.is_null() {
            // SAFETY: entries are published fully built (release/acquire on `head`) and never
            // freed or changed.
            let e = unsafe { &*p };
            if e.hash == hash && key_equals(key, &e.key) {
                return Some(e.kernel.clone());
            }
            p = e.next;
        }
        None
    }

    /// The instantiation whose compile-time values `key` writes, built by `build` (given the
    /// key's text) the first time.
    pub fn get_or_build(
        &self,
        key: KeyWriter,
        build: impl FnOnce(&str) -> Result<Function, BuildError>,
        name: &str,
    ) -> Result<Arc<CompiledKernel>, KernelError> {
        let hash = key_hash(key);
        let head = self.head.load(Ordering::Acquire);
        if let Some(k) = self.find(hash, key, head) {
            return Ok(k);
        }
        let mut text = String::new();
        let _ = key(&mut text);
        // Build outside any lock: building runs user code, which may build other kernels.
        let f = build(&text).map_err(|source| KernelError::Build { kernel: name.to_string(), source })?;
        let kernel = Arc::new(CompiledKernel::new(f)?);
        let entry = Box::into_raw(Box::new(Entry { hash, key: text, kernel: kernel.clone(), next: head }));
        let mut seen = head;
        loop {
            // SAFETY: `entry` is ours until published.
            match self.head.compare_exchange(seen, entry, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    BUILT.fetch_add(1, Ordering::Relaxed);
                    return Ok(kernel);
                }
                Err(now) => {
                    // Another thread published first; if it built the same instantiation, use it.
                    let newer = self.find_between(hash, key, now, seen);
                    if let Some(k) = newer {
                        // SAFETY: `entry` was never published; reclaim it.
                        drop(unsafe { Box::from_raw(entry) });
                        return Ok(k);
                    }
                    // SAFETY: as above.
                    unsafe { (*entry).next = now };
                    seen = now;
                }
            }
        }
    }

    /// Looks for `key` among the entries from `from` up to (not including) `stop`.
    fn find_between(
        &self,
        hash: u128,
        key: KeyWriter,
        from: *mut Entry,
        stop: *mut Entry,
    ) -> Option<Arc<CompiledKernel>> {
        let mut p = from;
        while !p.is_null() && p != stop {
            // SAFETY: as in `find`.
            let e = unsafe { &*p };
            if e.hash == hash && key_equals(key, &e.key) {
                return Some(e.kernel.clone());
            }
            p = e.next;
        }
        None
    }

    /// Number of instantiations in this cache.
    pub fn len(&self) -> usize {
        let mut n = 0;
        let mut p = self.head.load(Ordering::Acquire);
        while !p.is_null() {
            n += 1;
            // SAFETY: as in `find`.
            p = unsafe { (*p).next };
        }
        n
    }

    pub fn is_empty(&self) -> bool {
        self.head.load(Ordering::Acquire).is_null()
    }
}

/// The cached instantiation for `key` in a process-wide cache, built with `build` the first
/// time (for code that has no per-kernel [`InstanceCache`]).
pub fn get_or_build(
    key: &str,
    build: impl FnOnce() -> Result<Function, BuildError>,
    name: &str,
) -> Result<Arc<CompiledKernel>, KernelError> {
    static GLOBAL: InstanceCache = InstanceCache::new();
    GLOBAL.get_or_build(&|w: &mut dyn fmt::Write| w.write_str(key), |_| build(), name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty(name: &str) -> Result<Function, BuildError> {
        crate::dsl::build_kernel(name, || {})
    }

    fn by_value_entries(cache: &InstanceCache) -> usize {
        let mut n = 0;
        let mut p = cache.by_value.load(Ordering::Acquire);
        while !p.is_null() {
            n += 1;
            // SAFETY: as in `InstanceCache::get_or_build_by_value`.
            p = unsafe { (*p).next };
        }
        n
    }

    type Lookup<'a> = &'a dyn Fn(&InstanceCache, Build) -> Result<Arc<CompiledKernel>, KernelError>;

    // `(&Probe(..)).instance` is written as the generated code writes it: the borrow is what
    // lets values that are not `Hash` fall back to the text lookup.
    #[allow(clippy::needless_borrow)]
    #[test]
    fn values_that_hash_are_found_by_value_and_others_by_text() {
        let cache = InstanceCache::new();
        let mut built = Vec::new();
        let mut lookup = |values: Lookup| {
            values(&cache, &mut |text: &str| {
                built.push(text.to_string());
                empty(&format!("k{}", built.len()))
            })
            .unwrap()
        };
        let hashable = |v: (&'static str, u32, bool)| {
            move |cache: &InstanceCache, build: Build| {
                let text = |w: &mut dyn fmt::Write| write!(w, "{v:?}");
                (&Probe(&v)).instance(cache, &text, build, "k")
            }
        };
        let a = lookup(&hashable(("f32", 3, true)));
        let b = lookup(&hashable(("f32", 3, true)));
        let c = lookup(&hashable(("f32", 4, true)));
        assert!(Arc::ptr_eq(&a, &b), "the same values must find the same instantiation");
        assert!(!Arc::ptr_eq(&a, &c), "other values are another instantiation");
        // f32 is not `Hash`: such values go by their text only.
        let float = |v: (f32,)| {
            move |cache: &InstanceCache, build: Build| {
                let text = |w: &mut dyn fmt::Write| write!(w, "{v:?}");
                (&Probe(&v)).instance(cache, &text, build, "k")
            }
        };
        let d = lookup(&float((1.5,)));
        let e = lookup(&float((1.5,)));
        assert!(Arc::ptr_eq(&d, &e));
        assert_eq!(
            built,
            ["(\"f32\", 3, true)", "(\"f32\", 4, true)", "(1.5,)"],
            "each instantiation is built once"
        );
        assert_eq!(by_value_entries(&cache), 2, "hashable values are remembered by value, floats are not");
        assert_eq!(cache.len(), 3, "every instantiation is keyed by its text");
    }
}
