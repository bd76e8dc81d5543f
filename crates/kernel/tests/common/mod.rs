//! The conformance harness: one [`Launch`] per kernel run, executed on every backend present and
//! checked against a host reference by the test.
//!
//! Backends: the CPU executor directly (the reference), then every device the runtime sees
//! (the CPU device and each GPU), through the same launch path the typed `launch` uses; each
//! device's outputs are compared with the reference. With `FERROCM_REQUIRE_GPU=1` and no GPU
//! visible every launch fails, so a GPU run can never pass by skipping.
#![allow(dead_code)]

use std::sync::Arc;

use ferrocm_kernel::dsl::Elem;
use ferrocm_kernel::ir::ScalarType;
use ferrocm_kernel::runtime::{
    BackendKind, Device, DeviceBuffer, KernelArgs, LaunchConfig, Stream, TensorMap, TiledLayout,
};
use ferrocm_kernel::{bf16, f16, CompiledKernel, HostTensorMap, KernelError, LaunchDims};

/// A small, fast generator (xorshift64*), freshly seeded for every test unless
/// `FERROCM_SEED` is set; the seed is printed so a failure can be replayed.
pub struct Rng(u64);

impl Rng {
    pub fn new() -> Rng {
        let seed = std::env::var("FERROCM_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(1);
            (t as u64) ^ 0x9e37_79b9_7f4a_7c15
        });
        eprintln!("rng seed {seed}");
        Rng(seed | 1)
    }
    pub fn u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn u32(&mut self) -> u32 {
        (self.u64() >> 32) as u32
    }
    /// Uniform in [lo, hi).
    pub fn f64_in(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
    pub fn f32s(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f64_in(lo as f64, hi as f64) as f32).collect()
    }
    pub fn f64s(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.f64_in(lo, hi)).collect()
    }
    pub fn u32s(&mut self, n: usize, below: u32) -> Vec<u32> {
        (0..n).map(|_| self.u32() % below.max(1)).collect()
    }
    pub fn i32s(&mut self, n: usize, lo: i32, hi: i32) -> Vec<i32> {
        (0..n).map(|_| lo + (self.u32() % (hi - lo) as u32) as i32).collect()
    }
}

/// Bytes of a host buffer, 8-byte aligned.
#[derive(Clone)]
struct Bytes {
    words: Vec<u64>,
    len: usize,
}

impl Bytes {
    fn of<T: Copy>(v: &[T]) -> Bytes {
        let len = std::mem::size_of_val(v);
        let mut words = vec![0u64; len.div_ceil(8).max(1)];
        // SAFETY: `words` holds at least `len` bytes; `T` is a plain element type.
        unsafe { std::ptr::copy_nonoverlapping(v.as_ptr() as *const u8, words.as_mut_ptr() as *mut u8, len) };
        Bytes { words, len }
    }
    fn as_bytes(&self) -> &[u8] {
        // SAFETY: `words` holds at least `len` initialized bytes.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr() as *const u8, self.len) }
    }
    fn to_vec<T: Copy>(&self) -> Vec<T> {
        let n = self.len / std::mem::size_of::<T>();
        // SAFETY: the buffer was made from `n` elements of an element type of the same size.
        (0..n)
            .map(|i| unsafe { std::ptr::read_unaligned((self.words.as_ptr() as *const T).add(i)) })
            .collect()
    }
}

enum Arg {
    Scalar {
        bytes: Vec<u8>,
        ty: ScalarType,
    },
    Buf {
        data: Bytes,
        ty: ScalarType,
        gpu_compare: bool,
    },
    /// A tensor map over the buffer passed as argument `buf`.
    Map {
        buf: usize,
        layout: TiledLayout,
    },
}

/// A device buffer of the element type a tensor map over it needs.
enum DevBuf {
    U8(DeviceBuffer<u8>),
    U16(DeviceBuffer<u16>),
    F16(DeviceBuffer<f16>),
    BF16(DeviceBuffer<bf16>),
    U32(DeviceBuffer<u32>),
    F32(DeviceBuffer<f32>),
    U64(DeviceBuffer<u64>),
    F64(DeviceBuffer<f64>),
}

/// Reinterprets `b` as elements of `T` (test data is plain numbers of the buffer's type).
fn typed<T: Copy>(b: &Bytes) -> Vec<T> {
    b.to_vec()
}

impl DevBuf {
    fn upload(stream: &Stream, data: &Bytes, ty: ScalarType) -> Result<DevBuf, String> {
        use ScalarType::*;
        let e = |e: ferrocm_kernel::runtime::Error| e.to_string();
        Ok(match ty {
            Bool | U8 | I8 => DevBuf::U8(stream.clone_htod(&typed::<u8>(data)).map_err(e)?),
            U16 | I16 => DevBuf::U16(stream.clone_htod(&typed::<u16>(data)).map_err(e)?),
            F16 => DevBuf::F16(stream.clone_htod(&typed::<f16>(data)).map_err(e)?),
            BF16 => DevBuf::BF16(stream.clone_htod(&typed::<bf16>(data)).map_err(e)?),
            U32 | I32 => DevBuf::U32(stream.clone_htod(&typed::<u32>(data)).map_err(e)?),
            F32 => DevBuf::F32(stream.clone_htod(&typed::<f32>(data)).map_err(e)?),
            U64 | I64 => DevBuf::U64(stream.clone_htod(&typed::<u64>(data)).map_err(e)?),
            F64 => DevBuf::F64(stream.clone_htod(&typed::<f64>(data)).map_err(e)?),
        })
    }

    fn push(&self, args: &mut KernelArgs) {
        match self {
            DevBuf::U8(b) => args.push_buffer(b),
            DevBuf::U16(b) => args.push_buffer(b),
            DevBuf::F16(b) => args.push_buffer(b),
            DevBuf::BF16(b) => args.push_buffer(b),
            DevBuf::U32(b) => args.push_buffer(b),
            DevBuf::F32(b) => args.push_buffer(b),
            DevBuf::U64(b) => args.push_buffer(b),
            DevBuf::F64(b) => args.push_buffer(b),
        };
    }

    fn map<'a>(&'a self, layout: &TiledLayout) -> Result<TensorMap<'a>, String> {
        let r = match self {
            DevBuf::U8(b) => TensorMap::tiled(b, layout),
            DevBuf::U16(b) => TensorMap::tiled(b, layout),
            DevBuf::F16(b) => TensorMap::tiled(b, layout),
            DevBuf::BF16(b) => TensorMap::tiled(b, layout),
            DevBuf::U32(b) => TensorMap::tiled(b, layout),
            DevBuf::F32(b) => TensorMap::tiled(b, layout),
            DevBuf::U64(b) => TensorMap::tiled(b, layout),
            DevBuf::F64(b) => TensorMap::tiled(b, layout),
        };
        r.map_err(|e| e.to_string())
    }

    fn download(&self, stream: &Stream) -> Result<Bytes, String> {
        let e = |e: ferrocm_kernel::runtime::Error| e.to_string();
        Ok(match self {
            DevBuf::U8(b) => Bytes::of(&stream.clone_dtoh(b).map_err(e)?),
            DevBuf::U16(b) => Bytes::of(&stream.clone_dtoh(b).map_err(e)?),
            DevBuf::F16(b) => Bytes::of(&stream.clone_dtoh(b).map_err(e)?),
            DevBuf::BF16(b) => Bytes::of(&stream.clone_dtoh(b).map_err(e)?),
            DevBuf::U32(b) => Bytes::of(&stream.clone_dtoh(b).map_err(e)?),
            DevBuf::F32(b) => Bytes::of(&stream.clone_dtoh(b).map_err(e)?),
            DevBuf::U64(b) => Bytes::of(&stream.clone_dtoh(b).map_err(e)?),
            DevBuf::F64(b) => Bytes::of(&stream.clone_dtoh(b).map_err(e)?),
        })
    }
}

/// The CPU executor's encoding of `layout` over the host bytes at `addr` holding elements of `ty`.
fn host_map(data: &mut Bytes, ty: ScalarType, layout: &TiledLayout) -> Result<Vec<u8>, String> {
    use ScalarType::*;
    let words = data.words.as_mut_ptr();
    let n = data.len / ty.size() as usize;
    // SAFETY: `words` holds `len` initialized bytes, 8-byte aligned, of elements of `ty`; the
    // typed view lives only for this call.
    macro_rules! map {
        ($t:ty) => {{
            let s = unsafe { std::slice::from_raw_parts_mut(words as *mut $t, n) };
            HostTensorMap::new(s, layout).map(|m| m.bytes().to_vec())
        }};
    }
    match ty {
        Bool | U8 | I8 => map!(u8),
        U16 | I16 => map!(u16),
        F16 => map!(f16),
        BF16 => map!(bf16),
        U32 | I32 => map!(u32),
        F32 => map!(f32),
        U64 | I64 => map!(u64),
        F64 => map!(f64),
    }
}

/// One kernel launch with its arguments.
pub struct Launch {
    name: String,
    kernel: Arc<CompiledKernel>,
    dims: LaunchDims,
    args: Vec<Arg>,
    rtol: f64,
    atol: f64,
    /// Use `rtol`/`atol` as given, without the default floors (1e-6; 1e-12 absolute for f64).
    exact_tol: bool,
    /// The arguments passed to the kernel, in order (all by default); the others are buffers
    /// that only tensor maps refer to.
    passed: Option<Vec<usize>>,
}

/// The buffers after a launch.
pub struct Outputs {
    bufs: Vec<Bytes>,
    /// For each argument, its index in `bufs` (scalars have none).
    pos: Vec<Option<usize>>,
}

impl Outputs {
    /// The contents of the buffer passed as argument `arg` (counting scalars too).
    pub fn get<T: Copy>(&self, arg: usize) -> Vec<T> {
        match self.pos[arg] {
            Some(b) => self.bufs[b].to_vec(),
            None => panic!("argument {arg} is a scalar"),
        }
    }
}

impl Launch {
    pub fn new(
        name: &str,
        kernel: Result<Arc<CompiledKernel>, KernelError>,
        grid: impl Into<ferrocm_kernel::Dim3>,
        block: impl Into<ferrocm_kernel::Dim3>,
    ) -> Launch {
        let kernel = kernel.unwrap_or_else(|e| panic!("{name}: {e}"));
        Launch {
            name: name.to_string(),
            kernel,
            dims: ferrocm_kernel::dims(grid, block, 0),
            args: Vec::new(),
            rtol: 0.0,
            atol: 0.0,
            exact_tol: false,
            passed: None,
        }
    }
    pub fn shared(mut self, bytes: u32) -> Self {
        self.dims.shared_mem_bytes = bytes;
        self
    }
    /// Groups blocks into clusters of `cluster` blocks.
    pub fn cluster(mut self, cluster: impl Into<ferrocm_kernel::Dim3>) -> Self {
        self.dims.cluster = cluster.into();
        self
    }
    /// A cooperative launch (every block resident at once).
    pub fn cooperative(mut self) -> Self {
        self.dims.cooperative = true;
        self
    }
    /// Passes only arguments `which` to the kernel, in that order.
    pub fn pass_only(mut self, which: &[usize]) -> Self {
        self.passed = Some(which.to_vec());
        self
    }
    fn order(&self) -> Vec<usize> {
        self.passed.clone().unwrap_or_else(|| (0..self.args.len()).collect())
    }
    /// A tensor map of `layout` over the buffer passed as argument `buf`.
    pub fn tensor_map(mut self, buf: usize, layout: TiledLayout) -> Self {
        assert!(matches!(self.args.get(buf), Some(Arg::Buf { .. })), "argument {buf} is not a buffer");
        self.args.push(Arg::Map { buf, layout });
        self
    }
    pub fn scalar<T: Elem>(mut self, v: T) -> Self {
        let size = T::TY.size() as usize;
        self.args.push(Arg::Scalar { bytes: v.to_bits().to_le_bytes()[..size].to_vec(), ty: T::TY });
        self
    }
    pub fn buf<T: Elem>(mut self, v: &[T]) -> Self {
        self.args.push(Arg::Buf { data: Bytes::of(v), ty: T::TY, gpu_compare: true });
        self
    }
    /// A buffer whose final contents depend on scheduling (not compared between backends).
    pub fn buf_unordered<T: Elem>(mut self, v: &[T]) -> Self {
        self.args.push(Arg::Buf { data: Bytes::of(v), ty: T::TY, gpu_compare: false });
        self
    }
    /// Tolerance of the GPU-versus-CPU comparison (exact by default).
    pub fn gpu_tol(mut self, rtol: f64, atol: f64) -> Self {
        self.rtol = rtol;
        self.atol = atol;
        self
    }
    /// A GPU-versus-CPU tolerance tighter than the default floors (for f64 math held to 1e-14).
    pub fn gpu_tol_exact(mut self, rtol: f64, atol: f64) -> Self {
        self.rtol = rtol;
        self.atol = atol;
        self.exact_tol = true;
        self
    }

    /// The buffer index (among buffers) of each argument.
    fn positions(&self) -> Vec<Option<usize>> {
        let mut next = 0;
        self.args
            .iter()
            .map(|a| match a {
                Arg::Buf { .. } => {
                    next += 1;
                    Some(next - 1)
                }
                _ => None,
            })
            .collect()
    }

    fn host_args(&self, bufs: &mut [Bytes]) -> Result<Vec<Vec<u8>>, String> {
        let pos = self.positions();
        let mut out = Vec::new();
        for ai in self.order() {
            let a = &self.args[ai];
            match a {
                Arg::Scalar { bytes, .. } => out.push(bytes.clone()),
                Arg::Buf { ty, .. } => {
                    let b = &mut bufs[pos[ai].unwrap_or(0)];
                    out.push((b.words.as_mut_ptr() as u64).to_le_bytes().to_vec());
                    out.push(((b.len / ty.size() as usize) as u64).to_le_bytes().to_vec());
                }
                Arg::Map { buf, layout } => {
                    let Arg::Buf { ty, .. } = &self.args[*buf] else { unreachable!("checked when added") };
                    out.push(host_map(&mut bufs[pos[*buf].unwrap_or(0)], *ty, layout)?);
                }
            }
        }
        Ok(out)
    }

    /// Runs on the CPU executor; the error, if any, is the executor's message.
    pub fn try_run(&self) -> Result<Outputs, String> {
        let mut bufs: Vec<Bytes> = self
            .args
            .iter()
            .filter_map(|a| match a {
                Arg::Buf { data, .. } => Some(data.clone()),
                _ => None,
            })
            .collect();
        let raw = self.host_args(&mut bufs)?;
        let slices: Vec<&[u8]> = raw.iter().map(|v| v.as_slice()).collect();
        let k = self.kernel.cpu().map_err(|e| e.to_string())?;
        ferrocm_kernel::ir::verify(self.kernel.ir()).map_err(|e| e.to_string())?;
        use ferrocm_kernel::CpuKernel;
        // SAFETY: the arguments follow the kernel's parameters (the test builds them for it), and
        // every slice points into `bufs`, which outlives the launch.
        unsafe { k.launch(self.dims, &slices)? };
        Ok(Outputs { bufs, pos: self.positions() })
    }

    /// Runs through the runtime on `device` (typed launch's raw path, per-device module cache).
    pub fn run_on(&self, device: &Device) -> Result<Outputs, String> {
        let stream = device.create_stream().map_err(|e| e.to_string())?;
        let mut bufs = Vec::new();
        for a in &self.args {
            if let Arg::Buf { data, ty, .. } = a {
                bufs.push(DevBuf::upload(&stream, data, *ty)?);
            }
        }
        let pos = self.positions();
        let mut maps = Vec::new();
        for a in &self.args {
            if let Arg::Map { buf, layout } = a {
                maps.push(bufs[pos[*buf].unwrap_or(0)].map(layout)?);
            }
        }
        let mut args = KernelArgs::new();
        // The map of each argument, by argument index.
        let mut map_of = std::collections::HashMap::new();
        let mut mi = 0;
        for (ai, a) in self.args.iter().enumerate() {
            if let Arg::Map { .. } = a {
                map_of.insert(ai, mi);
                mi += 1;
            }
        }
        for ai in self.order() {
            let a = &self.args[ai];
            match a {
                Arg::Scalar { bytes, .. } => {
                    let v = u64::from_le_bytes({
                        let mut b = [0u8; 8];
                        b[..bytes.len()].copy_from_slice(bytes);
                        b
                    });
                    match bytes.len() {
                        1 => args.push(v as u8),
                        2 => args.push(v as u16),
                        4 => args.push(v as u32),
                        _ => args.push(v),
                    };
                }
                Arg::Buf { data, ty, .. } => {
                    bufs[pos[ai].unwrap_or(0)].push(&mut args);
                    args.push((data.len / ty.size() as usize) as u64);
                }
                Arg::Map { .. } => {
                    args.push_tensor_map(&maps[map_of[&ai]]);
                }
            }
        }
        let cfg = LaunchConfig::from(self.dims);
        // SAFETY: the arguments follow the kernel's parameters under the slice ABI, and the
        // buffers live until after the synchronize below.
        unsafe { self.kernel.launch_raw(&stream, cfg, &args) }.map_err(|e| e.to_string())?;
        stream.synchronize().map_err(|e| e.to_string())?;
        drop(maps);
        let mut out = Vec::new();
        for b in &bufs {
            out.push(b.download(&stream)?);
        }
        Ok(Outputs { bufs: out, pos })
    }

    /// Compares another backend's outputs with the CPU executor's.
    fn compare(&self, device: &str, reference: &Outputs, got: &Outputs) {
        let mut bi = 0;
        for (ai, a) in self.args.iter().enumerate() {
            let Arg::Buf { ty, gpu_compare, .. } = a else { continue };
            let (r, g) = (&reference.bufs[bi], &got.bufs[bi]);
            bi += 1;
            if !gpu_compare {
                continue;
            }
            let what = format!("{} on {device}: argument {ai}", self.name);
            if !ty.is_float() {
                let (rb, gb) = (r.as_bytes(), g.as_bytes());
                if let Some(i) = (0..rb.len()).find(|&i| rb[i] != gb[i]) {
                    panic!("{what}: byte {i} differs (cpu executor {}, device {})", rb[i], gb[i]);
                }
                continue;
            }
            let (rv, gv) = (decode(r, *ty), decode(g, *ty));
            let (rtol, atol) = if self.exact_tol {
                (self.rtol, self.atol)
            } else {
                (self.rtol.max(1e-6), self.atol.max(if *ty == ScalarType::F64 { 1e-12 } else { 1e-6 }))
            };
            check_close(&what, &gv, &rv, rtol, atol);
        }
    }

    /// Runs on every backend present and returns the CPU executor's outputs.
    pub fn run(self) -> Outputs {
        let out = self.try_run().unwrap_or_else(|e| panic!("{}: {e}", self.name));
        let devices = Device::all().unwrap_or_else(|e| panic!("{}: no devices: {e}", self.name));
        if gpu_required_but_unavailable() {
            panic!(
                "FERROCM_REQUIRE_GPU=1 but no GPU device is visible: {:?}",
                ferrocm_kernel::runtime::report().map(|r| format!("{r:?}"))
            );
        }
        for d in &devices {
            let got = self
                .run_on(d)
                .unwrap_or_else(|e| panic!("{} on device {} ({}): {e}", self.name, d.index(), d.kind()));
            self.compare(&format!("device {} ({})", d.index(), d.properties().name), &out, &got);
        }
        // The IR text must read back to the same function.
        let text = self.kernel.ir().to_string();
        match ferrocm_kernel::ir::parse(&text) {
            Ok(f) => assert!(
                &f == self.kernel.ir(),
                "{}: IR text does not read back to the same function",
                self.name
            ),
            Err(e) => panic!("{}: IR text does not parse: {e}\n{text}", self.name),
        }
        // PTX must generate for every kernel, whether or not a GPU is here to run it.
        self.kernel.ptx("sm_90a").unwrap_or_else(|e| panic!("{}: {e}", self.name));
        out
    }
}

/// Checks `got` against a host reference with a relative and absolute tolerance.
pub fn check_close(what: &str, got: &[f64], want: &[f64], rtol: f64, atol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        // Equal infinities are close (their difference is NaN).
        let ok = g == w || (g - w).abs() <= atol + rtol * w.abs() || (g.is_nan() && w.is_nan());
        assert!(ok, "{what}: element {i}: got {g}, want {w} (rtol {rtol}, atol {atol})");
    }
}

pub fn f64s<T: Into<f64> + Copy>(v: &[T]) -> Vec<f64> {
    v.iter().map(|&x| x.into()).collect()
}

/// Whether `FERROCM_REQUIRE_GPU=1` is set and no GPU is visible (the suite must then fail).
pub fn gpu_required_but_unavailable() -> bool {
    std::env::var("FERROCM_REQUIRE_GPU").map(|v| v == "1").unwrap_or(false)
        && Device::of_kind(BackendKind::Cuda).is_empty()
}

fn decode(b: &Bytes, ty: ScalarType) -> Vec<f64> {
    match ty {
        ScalarType::F16 => b.to_vec::<f16>().iter().map(|x| x.to_f64()).collect(),
        ScalarType::BF16 => b.to_vec::<bf16>().iter().map(|x| x.to_f64()).collect(),
        ScalarType::F32 => b.to_vec::<f32>().iter().map(|&x| x as f64).collect(),
        _ => b.to_vec::<f64>(),
    }
}
