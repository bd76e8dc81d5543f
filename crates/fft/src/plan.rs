//! Plans: made once for a shape and layout (cached per device), bound to a stream, executed
//! any number of times.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use ferrocm_kernel::runtime::backend::{BackendKind, DevicePtr, ModuleImage};
use ferrocm_kernel::runtime::{
    AsDeviceSlice, AsDeviceSliceMut, Device, DeviceBuffer, Function, KernelArgs, LaunchConfig, Stream,
};
use num_complex::Complex;

use crate::kernels::{block, fft_block, fft_pointwise, BlockCfg, Wide};
use crate::layout::{Direction, Layout, Problem, TransformType};
use crate::native::{NativeFft, NativeModule};
use crate::planner::{self, Buf, Limits, Planner, Step, StepKind};
use crate::precision::FftFloat;
use crate::FftError;

/// Which code computes the transforms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Engine {
    /// The kernel-language kernels on GPUs, `rustfft`/`realfft` on the CPU device.
    #[default]
    Auto,
    /// The kernel-language kernels on every device (on the CPU device, the CPU executor runs
    /// them: slow, and meant for testing the kernels and for comparisons).
    Kernels,
}

/// Everything `cufftPlanMany`/`rocfft_plan_create` takes: transform type, sizes, batch and
/// both layouts, plus the engine.
#[derive(Clone, Debug)]
pub struct PlanBuilder {
    kind: TransformType,
    n: Vec<usize>,
    batch: usize,
    input: Layout,
    output: Layout,
    engine: Engine,
}

impl PlanBuilder {
    /// A transform of `kind` over sizes `n` (1 to 3 axes, the last one contiguous), batch 1,
    /// packed layouts.
    pub fn new(kind: TransformType, n: &[usize]) -> PlanBuilder {
        PlanBuilder {
            kind,
            n: n.to_vec(),
            batch: 1,
            input: Layout::packed(),
            output: Layout::packed(),
            engine: Engine::Auto,
        }
    }

    /// The number of transforms.
    pub fn batch(mut self, batch: usize) -> PlanBuilder {
        self.batch = batch;
        self
    }

    /// The input layout (`inembed`, `istride`, `idist`).
    pub fn input_layout(mut self, layout: Layout) -> PlanBuilder {
        self.input = layout;
        self
    }

    /// The output layout (`onembed`, `ostride`, `odist`).
    pub fn output_layout(mut self, layout: Layout) -> PlanBuilder {
        self.output = layout;
        self
    }

    /// Which code computes the transforms.
    pub fn engine(mut self, engine: Engine) -> PlanBuilder {
        self.engine = engine;
        self
    }

    /// Makes the plan on `stream` (its device's kernels are compiled and loaded now; a second
    /// plan of the same shape on the same device reuses them).
    pub fn build<T: FftFloat>(&self, stream: &Stream) -> Result<Plan<T>, FftError> {
        let problem = Problem::new(self.kind, &self.n, self.batch, &self.input, &self.output)?;
        let device = stream.device();
        let engine = match (self.engine, device.kind()) {
            (Engine::Auto, BackendKind::Cpu) => EngineKind::Native,
            _ => EngineKind::Kernels,
        };
        let key = CacheKey { device: device.index(), elem: T::NAME, engine, problem: problem.clone() };
        let compiled = match cache_get(&key) {
            Some(c) => c.downcast::<Compiled<T>>().map_err(|_| FftError::Unsupported {
                what: "plan cache entry of another precision".into(),
            })?,
            None => {
                let c = Arc::new(Compiled::<T>::new(device, problem, engine)?);
                cache_put(key, c.clone());
                c
            }
        };
        Ok(Plan { stream: stream.clone(), compiled, work: None })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum EngineKind {
    Native,
    Kernels,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct CacheKey {
    device: usize,
    elem: &'static str,
    engine: EngineKind,
    problem: Problem,
}

type Cache = Mutex<HashMap<CacheKey, Arc<dyn Any + Send + Sync>>>;

fn cache() -> &'static Cache {
    static C: OnceLock<Cache> = OnceLock::new();
    C.get_or_init(Default::default)
}

fn cache_get(key: &CacheKey) -> Option<Arc<dyn Any + Send + Sync>> {
    cache().lock().unwrap_or_else(|p| p.into_inner()).get(key).cloned()
}

fn cache_put(key: CacheKey, value: Arc<dyn Any + Send + Sync>) {
    cache().lock().unwrap_or_else(|p| p.into_inner()).insert(key, value);
}

/// Drops every cached plan (their kernels stay in the kernel language's compile cache). Plans
/// already made keep working.
pub fn clear_plan_cache() {
    cache().lock().unwrap_or_else(|p| p.into_inner()).clear();
}

/// Number of cached plans.
pub fn cached_plans() -> usize {
    cache().lock().unwrap_or_else(|p| p.into_inner()).len()
}

/// One prepared launch: the loaded function, its grid and its scalar arguments.
struct Launch {
    step: Step,
    function: Function,
    /// For a step with 16-byte accesses (`Wide`): the same kernel without them, compiled the
    /// first time a buffer on such a side does not start on 16 bytes.
    narrow: OnceLock<Result<Function, FftError>>,
    cfg: LaunchConfig,
    scalars: [u64; 16],
}

impl Launch {
    /// The function to launch on this input buffer.
    fn function<T: FftFloat>(&self, device: &Device, src: Raw) -> Result<&Function, FftError> {
        let StepKind::Block(c) = &self.step.kind else {
            return Ok(&self.function);
        };
        let aligned = |r: Raw| r.ptr.0 % 16 == 0;
        if !c.wide.load || aligned(src) {
            return Ok(&self.function);
        }
        let narrow = self.narrow.get_or_init(|| {
            let cfg = BlockCfg { wide: Wide::default(), ..c.clone() };
            let f = fft_block::kernel::<T>(cfg)?.function(device)?;
            let (max, threads) = (f.attributes().max_threads_per_block as usize, c.threads());
            if max != 0 && threads > max {
                return Err(FftError::Unsupported {
                    what: format!(
                        "buffers not on 16 bytes for this plan's pass of {threads} threads (the kernel \
                         for them allows {max})"
                    ),
                });
            }
            Ok(f)
        });
        narrow.as_ref().map_err(|e| e.clone())
    }
}

/// One direction's launches: planned when the plan is made, compiled then for the direction
/// the transform type runs first (forward, or inverse for C2R), and for the other direction
/// of a C2C plan on its first execution (once per plan shape and device).
struct Launches {
    steps: Vec<Step>,
    compiled: OnceLock<Result<Vec<Launch>, FftError>>,
}

impl Launches {
    fn new(steps: Vec<Step>) -> Launches {
        Launches { steps, compiled: OnceLock::new() }
    }

    fn get<T: FftFloat>(&self, device: &Device) -> Result<&[Launch], FftError> {
        let r = self
            .compiled
            .get_or_init(|| self.steps.iter().map(|s| prepare::<T>(device, s.clone())).collect());
        r.as_ref().map(|v| v.as_slice()).map_err(|e| e.clone())
    }
}

/// The device-side part of a plan, shared by every plan of the same shape on a device.
struct Compiled<T: FftFloat> {
    problem: Problem,
    device: usize,
    forward: Launches,
    inverse: Launches,
    tables: Option<DeviceBuffer<T>>,
    work_reals: usize,
    native: Option<(Function, Function)>,
    description: String,
}

fn scalars(s: &Step) -> [u64; 16] {
    let mut v = [0u64; 16];
    v[0] = s.in_stride as u64;
    v[1] = s.out_stride as u64;
    v[2] = s.pair_in as u64;
    v[3] = s.pair_out as u64;
    for (i, d) in s.dims.iter().enumerate() {
        v[4 + 3 * i] = d.n as u64;
        v[5 + 3 * i] = d.is as u64;
        v[6 + 3 * i] = d.os as u64;
    }
    v
}

impl<T: FftFloat> Compiled<T> {
    fn new(device: &Device, problem: Problem, engine: EngineKind) -> Result<Compiled<T>, FftError> {
        let kind = problem.kind;
        let (fwd, inv) = match kind {
            TransformType::C2C => (true, true),
            TransformType::R2C => (true, false),
            TransformType::C2R => (false, true),
        };
        if engine == EngineKind::Native {
            let load = |inverse: bool| -> Result<Function, FftError> {
                let k: Arc<dyn ferrocm_kernel::CpuKernel> = Arc::new(NativeFft::<T>::new(&problem, inverse));
                let module = device.load_module(ModuleImage::Cpu(Arc::new(NativeModule(k))))?;
                Ok(module.function("fft")?)
            };
            let f = if fwd { load(false)? } else { load(true)? };
            let i = if inv { load(true)? } else { f.clone() };
            let description = format!(
                "{} {:?} batch {} in {} on the CPU device: rustfft/realfft (native), lines gathered in \
                 cache-sized chunks across the CPU's threads\n",
                kind.name(),
                problem.n,
                problem.batch,
                T::NAME
            );
            return Ok(Compiled {
                problem,
                device: device.index(),
                forward: Launches::new(vec![]),
                inverse: Launches::new(vec![]),
                tables: None,
                work_reals: 0,
                native: Some((f, i)),
                description,
            });
        }
        let p = device.properties();
        let is64 = T::NAME == "f64";
        let limits = Limits::new(
            is64,
            p.shared_mem_per_block_optin.max(p.shared_mem_per_block),
            p.max_threads_per_block,
        )
        .with_clusters(p.target.max_cluster_blocks);
        let mut planner = Planner::new(limits, is64);
        let mut fwd_steps = vec![];
        let mut inv_steps = vec![];
        if fwd {
            planner.plan(&problem, false)?;
            fwd_steps = std::mem::take(&mut planner.steps);
        }
        let work_fwd = planner.work;
        if inv {
            planner.work = 0;
            planner.plan(&problem, true)?;
            inv_steps = std::mem::take(&mut planner.steps);
        }
        let work_reals = work_fwd.max(planner.work);
        let mut data: Vec<T> =
            planner.tables.data.iter().flat_map(|c| [T::lit(c.re), T::lit(c.im)]).collect();
        if data.is_empty() {
            data.push(T::lit(0.0));
        }
        let stream = device.default_stream()?;
        let tables = stream.clone_htod(&data)?;
        let forward = Launches::new(fwd_steps);
        let inverse = Launches::new(inv_steps);
        // The direction the transform type runs first is compiled now, so errors surface here.
        if fwd {
            forward.get::<T>(device)?;
        } else {
            inverse.get::<T>(device)?;
        }
        let mut description = format!(
            "{} {:?} batch {} in {} (kernel language, {} on {})\n",
            kind.name(),
            problem.n,
            problem.batch,
            T::NAME,
            p.arch,
            p.name
        );
        for (name, l) in [("forward", &forward), ("inverse", &inverse)] {
            if !l.steps.is_empty() {
                description.push_str(&format!("{name}:\n"));
                description.push_str(&planner::describe(&l.steps, 0, T::NAME));
            }
        }
        if work_reals > 0 {
            description.push_str(&format!("work area: {} bytes\n", work_reals * std::mem::size_of::<T>()));
        }
        Ok(Compiled {
            problem,
            device: device.index(),
            forward,
            inverse,
            tables: Some(tables),
            work_reals,
            native: None,
            description,
        })
    }
}

/// Compiles and loads one step's kernel; if the compiled kernel allows fewer threads per block
/// than the step asks for (register use), each thread takes more butterflies instead.
fn prepare<T: FftFloat>(device: &Device, mut step: Step) -> Result<Launch, FftError> {
    loop {
        let (function, threads) = match &step.kind {
            StepKind::Block(c) => (fft_block::kernel::<T>(c.clone())?.function(device)?, c.threads()),
            StepKind::Point(c) => (fft_pointwise::kernel::<T>(c.clone())?.function(device)?, 256),
        };
        let max = function.attributes().max_threads_per_block as usize;
        if max == 0 || threads <= max {
            let (blocks, threads) = step.launch_shape();
            let grid_max = device.properties().max_grid_dim[0] as u64;
            if blocks > grid_max {
                return Err(FftError::Unsupported {
                    what: format!("{blocks} thread blocks in one pass (at most {grid_max})"),
                });
            }
            let shared = match &step.kind {
                StepKind::Block(c) => block::shared_elems(c, T::NAME == "f64") * std::mem::size_of::<T>(),
                StepKind::Point(_) => 0,
            };
            let mut cfg = LaunchConfig::new(blocks.max(1) as u32, threads).with_shared_mem(shared as u32);
            if let StepKind::Block(BlockCfg { cluster: Some(cl), .. }) = &step.kind {
                cfg = cfg.with_cluster((cl.q as u32, 1, 1));
            }
            let scalars = scalars(&step);
            return Ok(Launch { step, function, narrow: OnceLock::new(), cfg, scalars });
        }
        match &mut step.kind {
            StepKind::Block(c) if c.threads_per_fft > 1 => c.threads_per_fft = c.threads_per_fft.div_ceil(2),
            // Mirrored pairs (`BlockCfg::mirror`) need two transforms per block.
            StepKind::Block(c) if c.per_block > 1 + usize::from(c.mirror.is_some()) => c.per_block /= 2,
            _ => {
                return Err(FftError::Unsupported {
                    what: format!("a kernel that allows only {max} threads per block"),
                })
            }
        }
    }
}

/// A buffer as a kernel sees it: its address and its length in reals.
#[derive(Clone, Copy)]
struct Raw {
    ptr: DevicePtr,
    reals: usize,
}

/// An FFT plan bound to a stream: `hipfftHandle`/`cufftHandle`.
///
/// Executions are asynchronous on the plan's stream and validate every argument first;
/// nothing is written when one returns an error.
pub struct Plan<T: FftFloat> {
    stream: Stream,
    compiled: Arc<Compiled<T>>,
    work: Option<DeviceBuffer<T>>,
}

impl<T: FftFloat> std::fmt::Debug for Plan<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Plan<{}>({} {:?} batch {})",
            T::NAME,
            self.compiled.problem.kind.name(),
            self.compiled.problem.n,
            self.compiled.problem.batch
        )
    }
}

impl<T: FftFloat> Plan<T> {
    /// `hipfftPlan1d`: `batch` transforms of length `n`, packed.
    pub fn new_1d(stream: &Stream, n: usize, kind: TransformType, batch: usize) -> Result<Plan<T>, FftError> {
        PlanBuilder::new(kind, &[n]).batch(batch).build(stream)
    }

    /// `hipfftPlan2d`: one `nx` by `ny` transform (`ny` contiguous), packed.
    pub fn new_2d(stream: &Stream, nx: usize, ny: usize, kind: TransformType) -> Result<Plan<T>, FftError> {
        PlanBuilder::new(kind, &[nx, ny]).build(stream)
    }

    /// `hipfftPlan3d`: one `nx` by `ny` by `nz` transform (`nz` contiguous), packed.
    pub fn new_3d(
        stream: &Stream,
        nx: usize,
        ny: usize,
        nz: usize,
        kind: TransformType,
    ) -> Result<Plan<T>, FftError> {
        PlanBuilder::new(kind, &[nx, ny, nz]).build(stream)
    }

    /// `hipfftPlanMany`: see [`PlanBuilder`] for every option.
    pub fn builder(kind: TransformType, n: &[usize]) -> PlanBuilder {
        PlanBuilder::new(kind, n)
    }

    /// The transform type.
    pub fn transform_type(&self) -> TransformType {
        self.compiled.problem.kind
    }

    /// The stream executions are queued on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// `hipfftSetStream`: queues later executions on `stream`, which must be on the plan's
    /// device.
    pub fn set_stream(&mut self, stream: &Stream) -> Result<(), FftError> {
        let d = stream.device().index();
        if d != self.compiled.device {
            return Err(FftError::WrongDevice {
                what: "stream",
                device: d,
                plan_device: self.compiled.device,
            });
        }
        self.stream = stream.clone();
        Ok(())
    }

    /// `hipfftGetSize`: bytes of work area an execution needs (0 if none). Without a work area
    /// of the plan's own ([`Plan::set_work_area`]), each execution takes it from the stream's
    /// memory pool and gives it back in stream order.
    pub fn work_size(&self) -> usize {
        self.compiled.work_reals * std::mem::size_of::<T>()
    }

    /// `hipfftSetWorkArea`: a work area for executions to use (at least
    /// [`Plan::work_size`] bytes, on the plan's device). Returns the previous one.
    pub fn set_work_area(&mut self, work: DeviceBuffer<T>) -> Result<Option<DeviceBuffer<T>>, FftError> {
        let d = work.device().index();
        if d != self.compiled.device {
            return Err(FftError::WrongDevice {
                what: "work area",
                device: d,
                plan_device: self.compiled.device,
            });
        }
        if work.len() < self.compiled.work_reals {
            return Err(FftError::BufferTooShort {
                what: "work area",
                len: work.len(),
                required: self.compiled.work_reals,
            });
        }
        Ok(self.work.replace(work))
    }

    /// Takes back the work area given with [`Plan::set_work_area`].
    pub fn take_work_area(&mut self) -> Option<DeviceBuffer<T>> {
        self.work.take()
    }

    /// What the plan runs: each pass with its kernel, radices, threads and buffers.
    pub fn describe(&self) -> String {
        self.compiled.description.clone()
    }

    /// `hipfftExecC2C` (`hipfftExecZ2Z` in `f64`), out of place: the input is not written.
    pub fn exec_c2c(
        &self,
        input: &impl AsDeviceSlice<Complex<T>>,
        output: &mut impl AsDeviceSliceMut<Complex<T>>,
        direction: Direction,
    ) -> Result<(), FftError> {
        self.expect(TransformType::C2C, "exec_c2c")?;
        let i = self.side(input, "input", self.compiled.problem.input.required, 2)?;
        let o = self.side(output, "output", self.compiled.problem.output.required, 2)?;
        self.run(i, o, direction == Direction::Inverse)
    }

    /// `hipfftExecC2C` in place: input and output layouts must be the same.
    pub fn exec_c2c_inplace(
        &self,
        data: &mut impl AsDeviceSliceMut<Complex<T>>,
        direction: Direction,
    ) -> Result<(), FftError> {
        self.expect(TransformType::C2C, "exec_c2c_inplace")?;
        self.compiled.problem.check_in_place()?;
        let need = self.compiled.problem.input.required.max(self.compiled.problem.output.required);
        let d = self.side(data, "input", need, 2)?;
        self.run(d, d, direction == Direction::Inverse)
    }

    /// `hipfftExecR2C` (`D2Z`), out of place: the input is not written.
    pub fn exec_r2c(
        &self,
        input: &impl AsDeviceSlice<T>,
        output: &mut impl AsDeviceSliceMut<Complex<T>>,
    ) -> Result<(), FftError> {
        self.expect(TransformType::R2C, "exec_r2c")?;
        let i = self.side(input, "input", self.compiled.problem.input.required, 1)?;
        let o = self.side(output, "output", self.compiled.problem.output.required, 2)?;
        self.run(i, o, false)
    }

    /// `hipfftExecR2C` in place: `data` holds the reals in the padded layout (see
    /// [`TransformType::R2C`]) and receives the half spectrum.
    pub fn exec_r2c_inplace(&self, data: &mut impl AsDeviceSliceMut<T>) -> Result<(), FftError> {
        self.expect(TransformType::R2C, "exec_r2c_inplace")?;
        self.compiled.problem.check_in_place()?;
        let p = &self.compiled.problem;
        let need = p.input.required.max(2 * p.output.required);
        let d = self.side(data, "input", need, 1)?;
        self.run(d, d, false)
    }

    /// `hipfftExecC2R` (`Z2D`), out of place: the input is not written (multi-dimensional
    /// transforms go through the work area).
    pub fn exec_c2r(
        &self,
        input: &impl AsDeviceSlice<Complex<T>>,
        output: &mut impl AsDeviceSliceMut<T>,
    ) -> Result<(), FftError> {
        self.expect(TransformType::C2R, "exec_c2r")?;
        let i = self.side(input, "input", self.compiled.problem.input.required, 2)?;
        let o = self.side(output, "output", self.compiled.problem.output.required, 1)?;
        self.run(i, o, true)
    }

    /// `hipfftExecC2R` in place: `data` holds the half spectrum and receives the reals in the
    /// padded layout.
    pub fn exec_c2r_inplace(&self, data: &mut impl AsDeviceSliceMut<T>) -> Result<(), FftError> {
        self.expect(TransformType::C2R, "exec_c2r_inplace")?;
        self.compiled.problem.check_in_place()?;
        let p = &self.compiled.problem;
        let need = p.output.required.max(2 * p.input.required);
        let d = self.side(data, "input", need, 1)?;
        self.run(d, d, true)
    }

    fn expect(&self, kind: TransformType, called: &'static str) -> Result<(), FftError> {
        let plan = self.compiled.problem.kind;
        if plan != kind {
            return Err(FftError::WrongTransformType { called, plan: plan.name() });
        }
        Ok(())
    }

    /// Checks one buffer (device and length, `required` in its own elements of `per` reals).
    fn side<U: ferrocm_kernel::runtime::DeviceRepr>(
        &self,
        buf: &impl AsDeviceSlice<U>,
        what: &'static str,
        required: usize,
        per: usize,
    ) -> Result<Raw, FftError> {
        let d = buf.device().index();
        if d != self.compiled.device {
            return Err(FftError::WrongDevice { what, device: d, plan_device: self.compiled.device });
        }
        if buf.len() < required {
            return Err(FftError::BufferTooShort { what, len: buf.len(), required });
        }
        // The launches take raw addresses, so tell the runtime this stream uses the buffer: its
        // memory (a pooled buffer, or an imported one such as a DLPack array) is then not
        // reused or released before the transform has run.
        self.stream.record_use(buf);
        Ok(Raw { ptr: buf.device_ptr(), reals: buf.len() * per })
    }

    fn run(&self, input: Raw, output: Raw, inverse: bool) -> Result<(), FftError> {
        let c = &*self.compiled;
        if let Some((f, i)) = &c.native {
            let f = if inverse { i } else { f };
            let mut args = KernelArgs::new();
            let (per_in, per_out) = match c.problem.kind {
                TransformType::C2C => (2, 2),
                TransformType::R2C => (1, 2),
                TransformType::C2R => (2, 1),
            };
            args.push(input.ptr.0).push((input.reals / per_in) as u64);
            args.push(output.ptr.0).push((output.reals / per_out) as u64);
            // SAFETY: the native kernel takes (input, length, output, length) as pushed here;
            // both buffers were checked against the layouts and live on this device, and the
            // runtime frees no memory before queued work on it completes.
            unsafe { self.stream.launch(f, LaunchConfig::new(1, 1), &args)? };
            return Ok(());
        }
        let launches = (if inverse { &c.inverse } else { &c.forward }).get::<T>(self.stream.device())?;
        let pooled;
        let work = if c.work_reals == 0 {
            None
        } else if let Some(w) = &self.work {
            // As for the input and output (`side`): the launches take raw addresses, so the
            // stream's use of the plan's work area (which may come from another stream's pool,
            // and be handed back by `set_work_area` while this runs) is recorded here.
            self.stream.record_use(w);
            Some(Raw { ptr: w.device_ptr(), reals: w.len() })
        } else {
            pooled = self.stream.alloc::<T>(c.work_reals)?;
            Some(Raw { ptr: pooled.device_ptr(), reals: pooled.len() })
        };
        let tables = c.tables.as_ref().expect("kernel plans have tables");
        // The tables were uploaded on the device's default stream; dropping the last plan of a
        // shape frees them while this stream may still read them.
        self.stream.record_use(tables);
        let elem = std::mem::size_of::<T>() as u64;
        let resolve = |b: Buf| -> Raw {
            match b {
                Buf::Input => input,
                Buf::Output => output,
                Buf::Work(off) => {
                    // The planner sized the work area to hold every region it uses.
                    let w = work.expect("a plan with work regions has a work area");
                    Raw { ptr: w.ptr.offset(off as u64 * elem), reals: w.reals - off }
                }
            }
        };
        let table = |(off, len): (usize, usize)| Raw {
            ptr: tables.device_ptr().offset(2 * off as u64 * elem),
            reals: 2 * len,
        };
        for l in launches {
            let (src, dst) = (resolve(l.step.src), resolve(l.step.dst));
            let mut args = KernelArgs::new();
            args.push(src.ptr.0).push(src.reals as u64);
            args.push(dst.ptr.0).push(dst.reals as u64);
            if let StepKind::Block(_) = l.step.kind {
                let t = table(l.step.tw);
                args.push(t.ptr.0).push(t.reals as u64);
            }
            let a = table(l.step.aux);
            args.push(a.ptr.0).push(a.reals as u64);
            for s in l.scalars {
                args.push(s);
            }
            // SAFETY: the arguments follow `fft_block`/`fft_pointwise`'s parameters under the
            // slice ABI (address, length in reals, then the scalars); every buffer is on this
            // device and was checked against the layouts the planner derived the steps from.
            let function = l.function::<T>(self.stream.device(), src)?;
            unsafe { self.stream.launch(function, l.cfg, &args)? };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Wide;

    #[test]
    fn buffers_off_16_bytes_take_the_8_byte_kernel() {
        // A misaligned 16-byte access faults on GPUs (the CPU executor does not check vector
        // alignment), so which kernel a launch picks is checked here.
        let device = Device::cpu().unwrap();
        let problem =
            Problem::new(TransformType::R2C, &[2 * 17496], 1, &Layout::packed(), &Layout::packed()).unwrap();
        let c = Compiled::<f32>::new(&device, problem, EngineKind::Kernels).unwrap();
        let launches = c.forward.get::<f32>(&device).unwrap();
        let wide = launches
            .iter()
            .find(|l| matches!(&l.step.kind, StepKind::Block(b) if b.wide == Wide { load: true }))
            .expect("the four-step R2C's pass A reads real pairs 16 bytes at a time");
        let at = |a: u64| Raw { ptr: DevicePtr(a), reals: 1 << 20 };
        let pick = |src: u64| wide.function::<f32>(&device, at(src)).unwrap() as *const Function;
        let own = &wide.function as *const Function;
        assert_eq!(pick(0x1000), own);
        assert_eq!(pick(0x1010), own);
        assert_ne!(pick(0x1008), own);
        // The row pass has no 16-byte side: its kernel whatever the address.
        let row = launches.iter().find(|l| !std::ptr::eq(*l, wide)).unwrap();
        assert!(std::ptr::eq(row.function::<f32>(&device, at(0x1008)).unwrap(), &row.function));
    }
}
