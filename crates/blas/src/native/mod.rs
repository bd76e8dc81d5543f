//! The CPU device's engine: routines computed by native code (the `gemm` crate for Level 3,
//! Rust loops for Level 1 and 2), packaged as CPU kernels so they run in stream order like any
//! launch and follow the launch ABI: each argument is its bytes, buffers are device addresses
//! (host addresses on the CPU device) pushed with `KernelArgs::push_buffer`, so the runtime
//! records the stream on every buffer and a graph capture replays them.
//!
//! One module per device holds every native function, by name (`"axpy.f32"`, ...); each
//! function decodes its arguments with [`Args`] in the order the caller pushed them.

pub(crate) mod batched;
pub(crate) mod gemm_ex;
pub(crate) mod l2mv;
pub(crate) mod l2rank;
pub(crate) mod l3;
pub(crate) mod level1;
pub(crate) mod level2;
pub(crate) mod level3;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use ferrocm_kernel::runtime::backend::{CpuKernel, CpuModule, LaunchDims, ModuleImage};
use ferrocm_kernel::runtime::{
    AsDeviceSlice, DeviceRepr, Function, KernelArgs, LaunchConfig, Module, Stream,
};

use crate::error::Result;
use crate::types::{DataType, ScalarArg};

/// A native routine: decodes its arguments and computes.
pub(crate) type NativeFn = fn(&mut Args<'_>) -> std::result::Result<(), String>;

/// Decodes a launch's arguments in order.
pub(crate) struct Args<'a> {
    args: &'a [&'a [u8]],
    next: usize,
}

impl<'a> Args<'a> {
    fn take(&mut self) -> std::result::Result<&'a [u8], String> {
        let a = self.args.get(self.next).ok_or_else(|| format!("missing argument {}", self.next))?;
        self.next += 1;
        Ok(a)
    }

    /// A plain value pushed with `KernelArgs::push`.
    pub fn value<T: DeviceRepr>(&mut self) -> std::result::Result<T, String> {
        let a = self.take()?;
        if a.len() != size_of::<T>() {
            return Err(format!(
                "argument {} has {} bytes, expected {}",
                self.next - 1,
                a.len(),
                size_of::<T>()
            ));
        }
        // SAFETY: `a` holds exactly the bytes of one `T`, which is plain data (every bit
        // pattern valid); the read is unaligned-safe.
        Ok(unsafe { std::ptr::read_unaligned(a.as_ptr() as *const T) })
    }

    /// A `usize` pushed as `u64`.
    pub fn usize(&mut self) -> std::result::Result<usize, String> {
        Ok(self.value::<u64>()? as usize)
    }

    /// An `isize` pushed as `i64`.
    pub fn isize(&mut self) -> std::result::Result<isize, String> {
        Ok(self.value::<i64>()? as isize)
    }

    /// A device address pushed with `push_buffer` (or 0).
    pub fn ptr<T>(&mut self) -> std::result::Result<*mut T, String> {
        Ok(self.value::<u64>()? as usize as *mut T)
    }

    /// A scalar pushed with [`push_scalar`]: the host value, or the device element read now.
    pub fn scalar<T: DeviceRepr>(&mut self) -> std::result::Result<T, String> {
        let v = self.value::<T>()?;
        let p = self.ptr::<T>()?;
        if p.is_null() {
            Ok(v)
        } else {
            // SAFETY: a device scalar's view was checked to hold an element; on the CPU device
            // device memory is host memory, and the launch keeps the buffer alive.
            Ok(unsafe { p.read() })
        }
    }
}

/// Pushes a scalar for [`Args::scalar`]: the host value (or zero bits) and the device
/// address (or 0).
pub(crate) fn push_scalar<T: DeviceRepr + Default>(args: &mut KernelArgs, s: &ScalarArg<'_, T>) {
    match s {
        ScalarArg::Host(v) => {
            args.push(*v).push(0u64);
        }
        ScalarArg::Device(d) => {
            args.push(T::default()).push_buffer(d);
        }
    }
}

/// Pushes a buffer's address.
pub(crate) fn push_buf<T: DeviceRepr>(args: &mut KernelArgs, b: &impl AsDeviceSlice<T>) {
    args.push_buffer(b);
}

struct NativeKernel(NativeFn);

impl CpuKernel for NativeKernel {
    // SAFETY (the trait's contract): the runtime passes the buffers the caller checked; each
    // native function touches only the elements its checked arguments span.
    unsafe fn launch(&self, _dims: LaunchDims, args: &[&[u8]]) -> std::result::Result<(), String> {
        (self.0)(&mut Args { args, next: 0 })
    }
}

/// Every native function, by name.
fn registry() -> &'static HashMap<(&'static str, DataType), NativeFn> {
    static R: OnceLock<HashMap<(&'static str, DataType), NativeFn>> = OnceLock::new();
    R.get_or_init(|| {
        let mut m = HashMap::new();
        batched::register(&mut m);
        l2rank::register(&mut m);
        l2mv::register(&mut m);
        level1::register(&mut m);
        level2::register(&mut m);
        level3::register(&mut m);
        l3::register(&mut m);
        gemm_ex::register(&mut m);
        m
    })
}

struct NativeModule;

impl CpuModule for NativeModule {
    fn function(&self, name: &str) -> Option<Arc<dyn CpuKernel>> {
        let (routine, ty) = name.split_once('.')?;
        let ty = DataType::from_name(ty)?;
        // Looked up once per device and function (the caller caches the loaded function).
        let (_, &f) = registry().iter().find(|((r, t), _)| *r == routine && *t == ty)?;
        Some(Arc::new(NativeKernel(f)))
    }
}

/// The loaded native function `name` on `stream`'s device (the module is loaded once per
/// device, each function looked up once).
fn function(stream: &Stream, routine: &'static str, ty: DataType) -> Result<Function> {
    type Cache = Mutex<HashMap<(usize, &'static str, DataType), Function>>;
    static MODULES: OnceLock<Mutex<HashMap<usize, Module>>> = OnceLock::new();
    static FUNCTIONS: OnceLock<Cache> = OnceLock::new();
    let device = stream.device();
    let key = (device.index(), routine, ty);
    let functions = FUNCTIONS.get_or_init(Default::default);
    if let Some(f) = functions.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(f.clone());
    }
    let module = {
        let mut modules = MODULES.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        match modules.get(&device.index()) {
            Some(m) => m.clone(),
            None => {
                let m = device.load_module(ModuleImage::Cpu(Arc::new(NativeModule)))?;
                modules.insert(device.index(), m.clone());
                m
            }
        }
    };
    let f = module.function(&format!("{routine}.{}", ty.name()))?;
    functions.lock().unwrap_or_else(|p| p.into_inner()).insert(key, f.clone());
    Ok(f)
}

/// Queues native function `routine` for element type `ty` on `stream` with `args`.
///
/// The caller pushes the arguments the function decodes, in its order, every buffer with
/// [`push_buf`] after checking it holds what the routine touches.
pub(crate) fn launch(stream: &Stream, routine: &'static str, ty: DataType, args: &KernelArgs) -> Result<()> {
    let f = function(stream, routine, ty)?;
    // SAFETY: the native function decodes exactly the arguments its caller pushed (each
    // routine's caller and function are written together); every buffer was checked to hold
    // the elements the routine touches and lives on this device, and the runtime records the
    // launch on each so none is freed before it runs.
    unsafe { stream.launch(&f, LaunchConfig::new(1, 1), args)? };
    Ok(())
}

/// A raw pointer that may cross to rayon's threads (each task touches disjoint elements, and
/// the launch waits for all of them).
#[derive(Clone, Copy)]
pub(crate) struct SendPtr<T>(pub *mut T);
// SAFETY: see the type's doc: tasks sharing a `SendPtr` touch disjoint elements.
unsafe impl<T> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SendPtr<T> {}

/// The offset of element `i` of `n` strided values at increment `inc`, as reference BLAS
/// walks them: forward from the start for `inc > 0`, from the far end for `inc < 0`.
#[inline(always)]
pub(crate) fn at(i: usize, n: usize, inc: isize) -> usize {
    if inc > 0 {
        i * inc as usize
    } else {
        (n - 1 - i) * inc.unsigned_abs()
    }
}
