//! `ferrocm.fft`'s native half: executes ferrocm-fft plans on buffer regions. The Python half
//! (`python/ferrocm/fft.py`) maps NumPy's `fft` module (axes, `n`/`s`, `norm`, dtypes) onto
//! one call here per group of up to three adjacent axes.
//!
//! The data of one call is C-contiguous: either `outer` packed transforms one after another
//! (the transformed axes are the array's last ones), or one block of the transformed axes
//! followed by `inner` interleaved transforms (the axes of the array after the transformed
//! ones: the plan's layout has stride `inner` and distance 1). The Python half calls once per
//! outer index for arrays that have both.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock};

use ferrocm::fft::{Complex, Direction, FftFloat, Layout, Plan, PlanBuilder, TransformType};
use ferrocm::{AsDeviceSliceMut, DeviceSlice, DeviceSliceMut, Stream};
use pyo3::prelude::*;

use crate::blas::blas_handle;
use crate::buffer::{read_write, write_one, Buffer};
use crate::device::{current, PyStream};
use crate::errors::{blas, fft, value};

/// The most plans kept; the cache is emptied when it is full (plans are cheap to remake: the
/// compiled kernels stay in ferrocm-fft's own per-device cache).
const MAX_PLANS: usize = 64;

#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    device: usize,
    kind: Kind,
    n: Vec<usize>,
    batch: usize,
    inner: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    C2C,
    R2C,
    C2R,
}

impl Kind {
    fn transform(self) -> TransformType {
        match self {
            Kind::C2C => TransformType::C2C,
            Kind::R2C => TransformType::R2C,
            Kind::C2R => TransformType::C2R,
        }
    }
}

type Plans<T> = Mutex<HashMap<Key, Plan<T>>>;

fn plans32() -> &'static Plans<f32> {
    static P: OnceLock<Plans<f32>> = OnceLock::new();
    P.get_or_init(Default::default)
}

fn plans64() -> &'static Plans<f64> {
    static P: OnceLock<Plans<f64>> = OnceLock::new();
    P.get_or_init(Default::default)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The shapes (in elements of each side's type) of one transform's input and output.
fn sides(kind: Kind, n: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let mut half = n.to_vec();
    if let Some(l) = half.last_mut() {
        *l = *l / 2 + 1;
    }
    match kind {
        Kind::C2C => (n.to_vec(), n.to_vec()),
        Kind::R2C => (n.to_vec(), half),
        Kind::C2R => (half, n.to_vec()),
    }
}

/// Runs the transform on typed views (`T` the real type).
fn execute<T: FftFloat>(
    plans: &Plans<T>,
    stream: &Stream,
    key: Key,
    src: Option<&DeviceSlice<'_, u8>>,
    dst: &mut DeviceSliceMut<'_, u8>,
    inverse: bool,
) -> PyResult<()> {
    let mut map = lock(plans);
    if !map.contains_key(&key) {
        let (ins, outs) = sides(key.kind, &key.n);
        let mut b = PlanBuilder::new(key.kind.transform(), &key.n).batch(key.batch);
        if key.inner > 1 {
            b = b
                .input_layout(Layout::new(&ins, key.inner, 1))
                .output_layout(Layout::new(&outs, key.inner, 1));
        }
        let plan = b.build::<T>(stream).map_err(fft)?;
        if map.len() >= MAX_PLANS {
            map.clear();
        }
        map.insert(key.clone(), plan);
    }
    let plan = map.get_mut(&key).expect("inserted above");
    plan.set_stream(stream).map_err(fft)?;
    let rt = crate::errors::runtime;
    // ferrocm-fft launches with raw addresses, so the runtime does not know the buffers are in
    // use: record it, so that dropping a borrowed (DLPack) buffer waits for the transform.
    stream.record_use(dst);
    let dir = if inverse { Direction::Inverse } else { Direction::Forward };
    let mut o = dst.as_device_slice_mut().reinterpret::<T>().map_err(rt)?;
    let Some(src) = src else {
        // In place (C2C only: the caller checked): one buffer, the same layout on both sides.
        let mut o = o.reinterpret::<Complex<T>>().map_err(rt)?;
        return plan.exec_c2c_inplace(&mut o, dir).map_err(fft);
    };
    stream.record_use(src);
    let i = src.reinterpret::<T>().map_err(rt)?;
    match key.kind {
        Kind::C2C => {
            let i = i.reinterpret::<Complex<T>>().map_err(rt)?;
            let mut o = o.reinterpret::<Complex<T>>().map_err(rt)?;
            plan.exec_c2c(&i, &mut o, dir)
        }
        Kind::R2C => {
            let mut o = o.reinterpret::<Complex<T>>().map_err(rt)?;
            plan.exec_r2c(&i, &mut o)
        }
        Kind::C2R => {
            let i = i.reinterpret::<Complex<T>>().map_err(rt)?;
            plan.exec_c2r(&i, &mut o)
        }
    }
    .map_err(fft)?;
    Ok(())
}

/// Transforms `outer * inner` transforms of sizes `n` (1 to 3 axes) read from `src` at
/// `src_offset` (bytes) into `dst` at `dst_offset`, in precision `precision` ("float32" or
/// "float64"), of kind "c2c", "r2c" or "c2r", then multiplies the output by `scale` (skipped
/// when 1). Queued on `stream` (default: the device's current stream); the call returns once
/// the work is queued.
#[pyfunction]
#[pyo3(signature = (kind, precision, n, outer, inner, src, src_offset, dst, dst_offset, inverse, scale, stream = None))]
#[allow(clippy::too_many_arguments)]
pub fn fft_exec(
    py: Python<'_>,
    kind: &str,
    precision: &str,
    n: Vec<usize>,
    outer: usize,
    inner: usize,
    src: &Buffer,
    src_offset: usize,
    dst: &Buffer,
    dst_offset: usize,
    inverse: bool,
    scale: f64,
    stream: Option<&PyStream>,
) -> PyResult<()> {
    let kind = match kind {
        "c2c" => Kind::C2C,
        "r2c" => Kind::R2C,
        "c2r" => Kind::C2R,
        k => return Err(value(format!("fft kind {k:?} is not \"c2c\", \"r2c\" or \"c2r\""))),
    };
    let real_bytes = match precision {
        "float32" => 4,
        "float64" => 8,
        p => return Err(value(format!("fft precision {p:?} is not \"float32\" or \"float64\""))),
    };
    if src.device() != dst.device() {
        return Err(value(format!(
            "the input is on device {}, the output on device {}",
            src.device().index(),
            dst.device().index()
        )));
    }
    if outer == 0 || inner == 0 || (inner > 1 && outer > 1) {
        return Err(value("fft_exec: outer and inner must be at least 1, and one of them 1"));
    }
    let stream = match stream {
        Some(s) => s.stream.clone(),
        None => current(dst.device())?,
    };
    let (ins, outs) = sides(kind, &n);
    let count = |shape: &[usize]| -> PyResult<usize> {
        shape
            .iter()
            .chain([&inner])
            .try_fold(1usize, |acc, &x| acc.checked_mul(x))
            .ok_or_else(|| value("fft sizes overflow"))
    };
    let (in_block, out_block) = (count(&ins)?, count(&outs)?);
    let (in_elem, out_elem) = match kind {
        Kind::C2C => (2 * real_bytes, 2 * real_bytes),
        Kind::R2C => (real_bytes, 2 * real_bytes),
        Kind::C2R => (2 * real_bytes, real_bytes),
    };
    let bytes = |block: usize, elem: usize| {
        block.checked_mul(outer).and_then(|x| x.checked_mul(elem)).ok_or_else(|| value("fft sizes overflow"))
    };
    let (in_bytes, out_bytes) = (bytes(in_block, in_elem)?, bytes(out_block, out_elem)?);
    let key =
        Key { device: dst.device().index(), kind, n, batch: if inner > 1 { inner } else { outer }, inner };
    let out_count = out_block * outer;
    // The same bytes on both sides: a C2C transform runs in place (another kind, or a partial
    // overlap, is refused by `read_write` when the buffers are one, and by the Python half
    // otherwise).
    let in_place = kind == Kind::C2C
        && in_bytes == out_bytes
        && src.device_address() + src_offset as u64 == dst.device_address() + dst_offset as u64;
    let body = |i: Option<&DeviceSlice<'_, u8>>, o: &mut DeviceSliceMut<'_, u8>| -> PyResult<()> {
        if real_bytes == 4 {
            execute::<f32>(plans32(), &stream, key, i, o, inverse)?;
            if scale != 1.0 {
                let h = blas_handle(&stream)?;
                let h = &h[&stream.device().index()];
                let mut v = o.as_device_slice_mut().reinterpret::<f32>().map_err(crate::errors::runtime)?;
                let reals = out_count * out_elem / 4;
                h.scal::<f32>(reals, scale as f32, &mut v, 1).map_err(blas)?;
            }
        } else {
            execute::<f64>(plans64(), &stream, key, i, o, inverse)?;
            if scale != 1.0 {
                let h = blas_handle(&stream)?;
                let h = &h[&stream.device().index()];
                let mut v = o.as_device_slice_mut().reinterpret::<f64>().map_err(crate::errors::runtime)?;
                let reals = out_count * out_elem / 8;
                h.scal::<f64>(reals, scale, &mut v, 1).map_err(blas)?;
            }
        }
        Ok(())
    };
    py.detach(|| {
        if in_place {
            return write_one((dst, dst_offset, out_bytes), "output", |o| body(None, o))?;
        }
        read_write(
            &[(src, src_offset, in_bytes)],
            &["input"],
            (dst, dst_offset, out_bytes),
            "output",
            |i, o| body(Some(&i[0]), o),
        )?
    })
}
