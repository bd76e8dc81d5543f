//! `ferrocm.blas`'s native half: ferrocm-blas's GEMM (strided batched) and GEMV on buffer
//! regions, column-major as in BLAS. The Python half (`python/ferrocm/blas.py`) maps NumPy's
//! row-major and column-major arrays onto these calls without copies where BLAS can express
//! the layout.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock};

use ferrocm::blas::{Handle, Operation, Scalar, C32, C64};
use ferrocm::{DeviceSlice, DeviceSliceMut, Stream};
use pyo3::prelude::*;

use crate::buffer::{read_write, Buffer};
use crate::device::{current, PyStream};
use crate::errors::{blas, runtime, value};

/// One BLAS handle per device, moved to the caller's stream; the map stays locked while the
/// caller uses it.
pub fn blas_handle(stream: &Stream) -> PyResult<MutexGuard<'static, HashMap<usize, Handle>>> {
    static H: OnceLock<Mutex<HashMap<usize, Handle>>> = OnceLock::new();
    let mut map = H.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    let d = stream.device().index();
    if let Entry::Vacant(e) = map.entry(d) {
        e.insert(Handle::new(stream).map_err(blas)?);
    }
    map.get_mut(&d).expect("inserted above").set_stream(stream).map_err(blas)?;
    Ok(map)
}

/// A scalar of the routine's type from Python's (real, imaginary) pair.
trait FromParts: Scalar {
    fn from_f64(re: f64, im: f64) -> Self;
}

impl FromParts for f32 {
    fn from_f64(re: f64, _: f64) -> f32 {
        re as f32
    }
}
impl FromParts for f64 {
    fn from_f64(re: f64, _: f64) -> f64 {
        re
    }
}
impl FromParts for C32 {
    fn from_f64(re: f64, im: f64) -> C32 {
        C32::new(re as f32, im as f32)
    }
}
impl FromParts for C64 {
    fn from_f64(re: f64, im: f64) -> C64 {
        C64::new(re, im)
    }
}

fn operation(op: &str, what: &str) -> PyResult<Operation> {
    match op {
        "N" => Ok(Operation::N),
        "T" => Ok(Operation::T),
        "C" => Ok(Operation::C),
        o => Err(value(format!("{what} is {o:?}; expected \"N\", \"T\" or \"C\""))),
    }
}

fn scalar<T: FromParts>(v: (f64, f64), what: &str) -> PyResult<T> {
    if !<T as Scalar>::COMPLEX && v.1 != 0.0 {
        return Err(value(format!("{what} is complex ({} + {}j) but the arrays are real", v.0, v.1)));
    }
    Ok(T::from_f64(v.0, v.1))
}

fn same_device(bufs: &[(&Buffer, &str)]) -> PyResult<()> {
    let (first, name) = bufs[0];
    for &(b, n) in &bufs[1..] {
        if b.device() != first.device() {
            return Err(value(format!(
                "{n} is on device {}, {name} on device {}: every operand must be on one device",
                b.device().index(),
                first.device().index()
            )));
        }
    }
    Ok(())
}

fn stream_of(buf: &Buffer, stream: Option<&PyStream>) -> PyResult<Stream> {
    match stream {
        Some(s) => Ok(s.stream.clone()),
        None => current(buf.device()),
    }
}

/// A byte region (offset, length) of a buffer.
type Span = (usize, usize);

#[allow(clippy::too_many_arguments)]
fn gemm_typed<T: FromParts>(
    stream: &Stream,
    ops: (Operation, Operation),
    mnk: (usize, usize, usize),
    alpha: (f64, f64),
    beta: (f64, f64),
    views: &[DeviceSlice<'_, u8>],
    c: &mut DeviceSliceMut<'_, u8>,
    ld: (usize, usize, usize),
    strides: (usize, usize, usize),
    batch: usize,
) -> PyResult<()> {
    let (alpha, beta) = (scalar::<T>(alpha, "alpha")?, scalar::<T>(beta, "beta")?);
    let a = views[0].reinterpret::<T>().map_err(runtime)?;
    let b = views[1].reinterpret::<T>().map_err(runtime)?;
    let mut c = ferrocm::AsDeviceSliceMut::as_device_slice_mut(c).reinterpret::<T>().map_err(runtime)?;
    stream.record_use(&a);
    stream.record_use(&b);
    stream.record_use(&c);
    let map = blas_handle(stream)?;
    let h = &map[&stream.device().index()];
    let (m, n, k) = mnk;
    h.gemm_strided_batched(
        ops.0, ops.1, m, n, k, alpha, &a, ld.0, strides.0, &b, ld.1, strides.1, beta, &mut c, ld.2,
        strides.2, batch,
    )
    .map_err(blas)
}

/// `C = alpha op_a(A) op_b(B) + beta C` for `batch` column-major matrices `stride_*` elements
/// apart (`gemm_strided_batched`), `dtype` one of float32, float64, complex64, complex128;
/// `ops` two of "N", "T", "C"; each operand a byte region of a buffer. Queued on `stream`
/// (default: the current stream of the operands' device).
#[pyfunction]
#[pyo3(signature = (dtype, ops, mnk, alpha, a, a_span, lda, stride_a, b, b_span, ldb, stride_b, beta, c, c_span, ldc, stride_c, batch, stream = None))]
#[allow(clippy::too_many_arguments)]
pub fn gemm_exec(
    py: Python<'_>,
    dtype: &str,
    ops: (String, String),
    mnk: (usize, usize, usize),
    alpha: (f64, f64),
    a: &Buffer,
    a_span: Span,
    lda: usize,
    stride_a: usize,
    b: &Buffer,
    b_span: Span,
    ldb: usize,
    stride_b: usize,
    beta: (f64, f64),
    c: &Buffer,
    c_span: Span,
    ldc: usize,
    stride_c: usize,
    batch: usize,
    stream: Option<&PyStream>,
) -> PyResult<()> {
    let ops = (operation(&ops.0, "trans_a")?, operation(&ops.1, "trans_b")?);
    same_device(&[(c, "c"), (a, "a"), (b, "b")])?;
    let s = stream_of(c, stream)?;
    let inputs = [(a, a_span.0, a_span.1), (b, b_span.0, b_span.1)];
    let (ld, st) = ((lda, ldb, ldc), (stride_a, stride_b, stride_c));
    py.detach(|| {
        read_write(&inputs, &["a", "b"], (c, c_span.0, c_span.1), "c", |v, o| match dtype {
            "float32" => gemm_typed::<f32>(&s, ops, mnk, alpha, beta, v, o, ld, st, batch),
            "float64" => gemm_typed::<f64>(&s, ops, mnk, alpha, beta, v, o, ld, st, batch),
            "complex64" => gemm_typed::<C32>(&s, ops, mnk, alpha, beta, v, o, ld, st, batch),
            "complex128" => gemm_typed::<C64>(&s, ops, mnk, alpha, beta, v, o, ld, st, batch),
            d => Err(value(format!("BLAS dtype {d} is not float32, float64, complex64 or complex128"))),
        })?
    })
}

#[allow(clippy::too_many_arguments)]
fn gemv_typed<T: FromParts>(
    stream: &Stream,
    op: Operation,
    mn: (usize, usize),
    alpha: (f64, f64),
    beta: (f64, f64),
    views: &[DeviceSlice<'_, u8>],
    y: &mut DeviceSliceMut<'_, u8>,
    lda: usize,
    inc: (isize, isize),
) -> PyResult<()> {
    let (alpha, beta) = (scalar::<T>(alpha, "alpha")?, scalar::<T>(beta, "beta")?);
    let a = views[0].reinterpret::<T>().map_err(runtime)?;
    let x = views[1].reinterpret::<T>().map_err(runtime)?;
    let mut y = ferrocm::AsDeviceSliceMut::as_device_slice_mut(y).reinterpret::<T>().map_err(runtime)?;
    stream.record_use(&a);
    stream.record_use(&x);
    stream.record_use(&y);
    let map = blas_handle(stream)?;
    let h = &map[&stream.device().index()];
    h.gemv(op, mn.0, mn.1, alpha, &a, lda, &x, inc.0, beta, &mut y, inc.1).map_err(blas)
}

/// `y = alpha op(A) x + beta y` (`gemv`), `A` column-major `m x n` with leading dimension
/// `lda`; the vectors byte regions read at increments `incx`/`incy` (negative increments
/// start from the region's end, as in BLAS).
#[pyfunction]
#[pyo3(signature = (dtype, op, mn, alpha, a, a_span, lda, x, x_span, incx, beta, y, y_span, incy, stream = None))]
#[allow(clippy::too_many_arguments)]
pub fn gemv_exec(
    py: Python<'_>,
    dtype: &str,
    op: &str,
    mn: (usize, usize),
    alpha: (f64, f64),
    a: &Buffer,
    a_span: Span,
    lda: usize,
    x: &Buffer,
    x_span: Span,
    incx: isize,
    beta: (f64, f64),
    y: &Buffer,
    y_span: Span,
    incy: isize,
    stream: Option<&PyStream>,
) -> PyResult<()> {
    let op = operation(op, "trans")?;
    same_device(&[(y, "y"), (a, "a"), (x, "x")])?;
    let s = stream_of(y, stream)?;
    let inputs = [(a, a_span.0, a_span.1), (x, x_span.0, x_span.1)];
    let inc = (incx, incy);
    py.detach(|| {
        read_write(&inputs, &["a", "x"], (y, y_span.0, y_span.1), "y", |v, o| match dtype {
            "float32" => gemv_typed::<f32>(&s, op, mn, alpha, beta, v, o, lda, inc),
            "float64" => gemv_typed::<f64>(&s, op, mn, alpha, beta, v, o, lda, inc),
            "complex64" => gemv_typed::<C32>(&s, op, mn, alpha, beta, v, o, lda, inc),
            "complex128" => gemv_typed::<C64>(&s, op, mn, alpha, beta, v, o, lda, inc),
            d => Err(value(format!("BLAS dtype {d} is not float32, float64, complex64 or complex128"))),
        })?
    })
}

fn copy_typed<T: FromParts>(
    stream: &Stream,
    n: usize,
    x: DeviceSlice<'_, u8>,
    incx: isize,
    y: &mut DeviceSliceMut<'_, u8>,
    incy: isize,
) -> PyResult<()> {
    let x = x.reinterpret::<T>().map_err(runtime)?;
    let mut y = ferrocm::AsDeviceSliceMut::as_device_slice_mut(y).reinterpret::<T>().map_err(runtime)?;
    stream.record_use(&x);
    stream.record_use(&y);
    let map = blas_handle(stream)?;
    map[&stream.device().index()].copy(n, &x, incx, &mut y, incy).map_err(blas)
}

/// `y = x` for `n` elements at increments `incx`/`incy` (BLAS `copy`) between byte regions of
/// two buffers of one device: the package's strided device copy.
#[pyfunction]
#[pyo3(signature = (dtype, n, x, x_span, incx, y, y_span, incy, stream = None))]
#[allow(clippy::too_many_arguments)]
pub fn copy_exec(
    py: Python<'_>,
    dtype: &str,
    n: usize,
    x: &Buffer,
    x_span: Span,
    incx: isize,
    y: &Buffer,
    y_span: Span,
    incy: isize,
    stream: Option<&PyStream>,
) -> PyResult<()> {
    same_device(&[(y, "y"), (x, "x")])?;
    let s = stream_of(y, stream)?;
    let inputs = [(x, x_span.0, x_span.1)];
    py.detach(|| {
        read_write(&inputs, &["x"], (y, y_span.0, y_span.1), "y", |v, o| match dtype {
            "float32" => copy_typed::<f32>(&s, n, v[0], incx, o, incy),
            "float64" => copy_typed::<f64>(&s, n, v[0], incx, o, incy),
            "complex64" => copy_typed::<C32>(&s, n, v[0], incx, o, incy),
            "complex128" => copy_typed::<C64>(&s, n, v[0], incx, o, incy),
            d => Err(value(format!("BLAS dtype {d} is not float32, float64, complex64 or complex128"))),
        })?
    })
}
