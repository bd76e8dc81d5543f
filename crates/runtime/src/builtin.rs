//! A few built-in kernels, for every backend: the runtime's own conformance tests, the launch
//! and copy benchmarks, and `ferrocm info --check` use them before (and independently of) the
//! kernel language. On CUDA devices they are hand-written PTX; on CPU devices native Rust.
//!
//! | kernel     | parameters                      | effect                                    |
//! |------------|---------------------------------|-------------------------------------------|
//! | `empty`    | none                            | nothing (launch-latency measurements)     |
//! | `axpy_f32` | x: *f32, y: *mut f32, n: u64, a: f32 | `y[i] += a * x[i]` for `i < n`       |
//! | `spin`     | ns: u64                         | busy-waits `ns` nanoseconds per block     |
//! | `clock`    | out: *mut u64                   | `*out = %globaltimer` (tracing's anchor)  |

use std::sync::Arc;

use ferrocm_backend::{BackendKind, CpuKernel, CpuModule, LaunchDims, ModuleImage};

use crate::device::Device;
use crate::module::Module;
use crate::Result;

/// PTX of the built-in kernels (ISA 7.0, runs on sm_70 and newer).
pub const PTX: &str = r#"
.version 7.0
.target sm_70
.address_size 64

.visible .entry empty()
{
    ret;
}

.visible .entry axpy_f32(.param .u64 x, .param .u64 y, .param .u64 n, .param .f32 a)
{
    .reg .pred %p;
    .reg .b32 %r<4>;
    .reg .b64 %rd<9>;
    .reg .f32 %f<4>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    ld.param.u64 %rd3, [n];
    ld.param.f32 %f1, [a];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd4, %r1, %r2;
    cvt.u64.u32 %rd5, %r3;
    add.u64 %rd4, %rd4, %rd5;
    setp.ge.u64 %p, %rd4, %rd3;
    @%p bra DONE;
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    shl.b64 %rd6, %rd4, 2;
    add.u64 %rd7, %rd1, %rd6;
    add.u64 %rd8, %rd2, %rd6;
    ld.global.f32 %f2, [%rd7];
    ld.global.f32 %f3, [%rd8];
    fma.rn.f32 %f3, %f1, %f2, %f3;
    st.global.f32 [%rd8], %f3;
DONE:
    ret;
}

.visible .entry spin(.param .u64 ns)
{
    .reg .pred %p;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [ns];
    mov.u64 %rd2, %globaltimer;
LOOP:
    mov.u64 %rd3, %globaltimer;
    sub.u64 %rd4, %rd3, %rd2;
    setp.lt.u64 %p, %rd4, %rd1;
    @%p bra LOOP;
    ret;
}

.visible .entry clock(.param .u64 out)
{
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u64 %rd2, %globaltimer;
    st.global.u64 [%rd1], %rd2;
    ret;
}
"#;

fn arg<const N: usize>(args: &[&[u8]], i: usize) -> std::result::Result<[u8; N], String> {
    args.get(i)
        .and_then(|a| <[u8; N]>::try_from(*a).ok())
        .ok_or_else(|| format!("parameter {i} must be {N} bytes, got {:?}", args.get(i).map(|a| a.len())))
}

struct Empty;
impl CpuKernel for Empty {
    unsafe fn launch(&self, _: LaunchDims, args: &[&[u8]]) -> std::result::Result<(), String> {
        if !args.is_empty() {
            return Err(format!("takes no parameters, got {}", args.len()));
        }
        Ok(())
    }
}

struct Axpy;
impl CpuKernel for Axpy {
    /// # Safety
    /// `x` and `y` hold `n` elements (the launch contract).
    unsafe fn launch(&self, dims: LaunchDims, args: &[&[u8]]) -> std::result::Result<(), String> {
        let x = u64::from_ne_bytes(arg(args, 0)?) as *const f32;
        let y = u64::from_ne_bytes(arg(args, 1)?) as *mut f32;
        let n = u64::from_ne_bytes(arg(args, 2)?);
        let a = f32::from_ne_bytes(arg(args, 3)?);
        let threads = dims.grid.x as u64 * dims.block.x as u64;
        for i in 0..n.min(threads) {
            // SAFETY: this function's contract: x and y hold n elements.
            unsafe { *y.add(i as usize) = a.mul_add(*x.add(i as usize), *y.add(i as usize)) };
        }
        Ok(())
    }
}

struct Spin;
impl CpuKernel for Spin {
    unsafe fn launch(&self, _: LaunchDims, args: &[&[u8]]) -> std::result::Result<(), String> {
        std::thread::sleep(std::time::Duration::from_nanos(u64::from_ne_bytes(arg(args, 0)?)));
        Ok(())
    }
}

/// The executor's `%globaltimer` is the host's `CLOCK_MONOTONIC` (see `ferrocm_ir`'s timer
/// intrinsic), so the anchor reads that clock.
struct Clock;
impl CpuKernel for Clock {
    /// # Safety
    /// `out` is the address of a writable, aligned `u64` (the launch contract).
    unsafe fn launch(&self, _: LaunchDims, args: &[&[u8]]) -> std::result::Result<(), String> {
        let out = u64::from_ne_bytes(arg(args, 0)?) as *mut u64;
        // SAFETY: this function's contract.
        unsafe { out.write(crate::trace::now_ns()) };
        Ok(())
    }
}

struct Builtins;
impl CpuModule for Builtins {
    fn function(&self, name: &str) -> Option<Arc<dyn CpuKernel>> {
        match name {
            "empty" => Some(Arc::new(Empty)),
            "axpy_f32" => Some(Arc::new(Axpy)),
            "spin" => Some(Arc::new(Spin)),
            "clock" => Some(Arc::new(Clock)),
            _ => None,
        }
    }
}

/// The built-in module image for a backend.
pub fn image(kind: BackendKind) -> ModuleImage {
    match kind {
        BackendKind::Cpu => ModuleImage::Cpu(Arc::new(Builtins)),
        BackendKind::Cuda => ModuleImage::Ptx(PTX.to_string()),
    }
}

/// Loads the built-in kernels on `device`.
pub fn load(device: &Device) -> Result<Module> {
    device.load_module(image(device.kind()))
}
