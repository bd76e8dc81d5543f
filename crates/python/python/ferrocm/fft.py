"""ferrocm.fft: NumPy's ``numpy.fft`` functions computed by ferrocm's FFT on a device.

Every function takes what NumPy 2's takes (``n``/``s``, ``axis``/``axes``, ``norm``, ``out``)
and returns a new :class:`ferrocm.Array` on the input's device, or ``out`` when given. The input is a ferrocm Array, or anything
:func:`ferrocm.asarray` accepts: a DLPack array on a ferrocm device is read in place, anything
else (a NumPy array while a GPU is the default device, a list) is copied to the default device
first.

Dtypes follow NumPy 2: complex64 stays complex64 and float32 (or float16) input gives complex64;
complex128, float64, integer and boolean input give complex128. ``irfft*`` returns float32 for
complex64 (and float32/float16) input and float64 otherwise (NumPy returns float16 for float16
input; ferrocm has no half-precision FFT). ``rfft*`` of complex input is a ``TypeError``, as in
NumPy.

Normalisation (``norm``): ``"backward"`` (default, ``None``) leaves forward transforms
unscaled and divides inverse ones by ``n``; ``"ortho"`` divides both by ``sqrt(n)``;
``"forward"`` divides forward transforms by ``n``.

How the data reaches the plan: a C-contiguous input of the transform's dtype whose transformed
axes are adjacent goes to ferrocm-fft as it is (the plan's layout has the array's strides:
trailing axes are a packed batch, leading or middle axes a strided layout). A change of dtype,
zero-padding or truncation (``n``/``s``), a non-contiguous input, or axes that are not adjacent
first make a C-contiguous copy with the transformed axes in place. That copy runs on the device
(BLAS copies: zero-fill, then the common part; float32/float64 input lands in the real parts of
the complex buffer) when the dtypes are of one precision and it takes at most a few hundred
launches; other conversions (integers, float16, float32 to complex128) go through host memory. Plans are cached per (device, precision,
transform type, sizes, batch, layout).

``out=``: a ferrocm Array or any writable DLPack array (a NumPy array on the CPU device, a
torch tensor or CuPy array on the GPU) on the input's device, of exactly the result's shape and
dtype; the result is written into it and ``out`` itself is returned. A C-contiguous ``out`` is
written by the last transform directly; a strided one receives a copy of the result. ``out``
may share memory with the input when the last transform reads a copy of it (a dtype change,
padding, several axis groups); when it reads the input itself, ``out`` must not overlap it,
except that the complex transforms (``fft``, ``ifft``, ``fft2``, ``ifft2``, ``fftn``,
``ifftn``) run in place with ``out=a`` for a C-contiguous ``a`` of the result's dtype. A wrong
shape, dtype or device, a read-only ``out`` or an overlap no transform can run in is a
``ValueError`` raised before anything is written.

Errors: a bad ``axis`` is :class:`numpy.exceptions.AxisError` (a ``ValueError`` and an
``IndexError``), ``n < 1`` and an unknown ``norm`` are ``ValueError``, an unsupported dtype is
``TypeError``.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from . import _native, _strided
from ._array import Array, _checked_out, _upload, asarray, empty, from_dlpack

__all__ = [
    "fft",
    "ifft",
    "rfft",
    "irfft",
    "fft2",
    "ifft2",
    "rfft2",
    "irfft2",
    "fftn",
    "ifftn",
    "rfftn",
    "irfftn",
]

_NORMS = (None, "backward", "ortho", "forward")
# Above this many plan executions per axis group (arrays with batch axes both before and after
# the transformed ones), the data is moved instead so that one execution does all.
_MAX_CALLS = 64


def _array(a) -> Array:
    return a if isinstance(a, Array) else asarray(a)


def _precision(dtype: np.dtype, real: bool) -> str:
    """The FFT precision for an input dtype ("float32" or "float64"), NumPy 2's rules."""
    if dtype.kind == "c":
        if real:
            raise TypeError(f"rfft needs real input, got {dtype} (NumPy raises TypeError too)")
        return "float32" if dtype == np.complex64 else "float64"
    if dtype.kind == "f":
        return "float32" if dtype.itemsize <= 4 else "float64"
    if dtype.kind in "biu":
        return "float64"
    raise TypeError(f"fft of dtype {dtype} is not supported: use a float, complex, integer or bool array")


def _complex(precision: str) -> np.dtype:
    return np.dtype(np.complex64 if precision == "float32" else np.complex128)


def _scale(norm, n: int, inverse: bool) -> float:
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or "forward".')
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    if (norm == "forward") != inverse:
        return 1.0 / n
    return 1.0


def _axis(axis, ndim: int) -> int:
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"axis must be an integer, not {type(axis).__name__}") from None
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def _points(n) -> int:
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def _axes_sizes(a: Array, s, axes, real_inverse: bool = False):
    """NumPy's ``_cook_nd_args``: the axes (normalised) and the logical size of each."""
    if a.ndim == 0:
        raise np.exceptions.AxisError(0, 0, msg_prefix="the FFT of a 0-d array")
    if axes is None:
        if s is None:
            axes = list(range(a.ndim))
        else:
            axes = list(range(a.ndim - len(s), a.ndim))
            if len(s) > a.ndim:
                raise ValueError(f"s has {len(s)} entries, more than the array's {a.ndim} dimensions")
    else:
        axes = [_axis(ax, a.ndim) for ax in axes]
    if s is None:
        s = [a.shape[ax] for ax in axes]
        if real_inverse and axes:
            s[-1] = 2 * (s[-1] - 1)
    else:
        s = list(s)
        if len(s) != len(axes):
            raise ValueError(f"s has {len(s)} entries but axes has {len(axes)}: give one size per axis")
        s = [a.shape[ax] if n == -1 else n for n, ax in zip(s, axes)]
    return axes, [_points(n) for n in s]


def _prepared(a: Array, shape: tuple[int, ...], dtype: np.dtype) -> Array:
    """``a`` as a C-contiguous array of ``dtype`` and ``shape`` (truncated or zero-padded per
    axis) on ``a``'s device: ``a`` itself when it already is one."""
    if a.shape == shape and a.dtype == dtype and a.is_c_contiguous:
        return a
    on_device = _prepared_on_device(a, shape, dtype)
    if on_device is not None:
        return on_device
    host = a.numpy()
    if host.shape != shape:
        out = np.zeros(shape, dtype)
        common = tuple(slice(0, min(n, m)) for n, m in zip(shape, host.shape))
        out[common] = host[common]
        host = out
    return _upload(np.ascontiguousarray(host, dtype=dtype), a.device)


def _prepared_on_device(a: Array, shape, dtype: np.dtype):
    """:func:`_prepared` by device copies (zero fill, then BLAS copies of the common part; a
    real input lands in the real parts of a complex output), or None where that does not apply
    (other dtype conversions, too many launches)."""
    cast = a.dtype.kind == "f" and dtype.kind == "c" and a.dtype.itemsize * 2 == dtype.itemsize
    if a.dtype != dtype and not cast:
        return None
    out = empty(shape, dtype, device=a.device)
    if out.size == 0:
        return out
    if cast or any(n > m for n, m in zip(shape, a.shape)):
        out.fill(0)
    common = tuple(slice(0, min(n, m)) for n, m in zip(shape, a.shape))
    dst = out[common]
    if _strided.copy(a[common], _strided.real_view(dst) if cast else dst):
        return out
    return None


def _runs(axes: list[int]) -> list[list[int]]:
    """Splits sorted distinct axes into runs of adjacent axes, at most 3 long (a plan's rank)."""
    runs: list[list[int]] = []
    for ax in axes:
        if runs and runs[-1][-1] == ax - 1 and len(runs[-1]) < 3:
            runs[-1].append(ax)
        else:
            runs.append([ax])
    return runs


def _execute(x: Array, run: list[int], kind: str, n: list[int], out_shape, out_dtype, inverse, scale, dest=None) -> Array:
    """One transform of kind ``kind`` over the adjacent axes ``run`` of the C-contiguous ``x``
    into a new C-contiguous array, or into ``dest`` (a checked ``out=``: the array returned is
    then ``dest``, written directly where the plan can, else through a new array)."""
    precision = "float32" if out_dtype in (np.complex64, np.float32) else "float64"
    first, last = run[0], run[-1] + 1
    outer = math.prod(x.shape[:first])
    inner = math.prod(x.shape[last:])
    moved = outer > _MAX_CALLS and inner > 1
    target = None if dest is None or moved else _target(x, dest, kind)
    if dest is not None and target is None:
        return _deliver(_execute(x, run, kind, n, out_shape, out_dtype, inverse, scale), dest)
    out = target if target is not None else empty(out_shape, out_dtype, device=x.device)
    if out.size == 0:
        return out
    if inner == 1 or outer == 1:
        _native.fft_exec(kind, precision, n, outer, inner, x._buf, x._offset, out._buf, out._offset, inverse, scale)
        return out
    if outer > _MAX_CALLS:
        # Move the transformed axes last (a host copy), transform as a packed batch, and return
        # the result as a view with the axes back in place.
        k = len(run)
        order = [i for i in range(x.ndim) if i not in run] + run
        moved = empty(tuple(x.shape[i] for i in order), x.dtype, device=x.device)
        back = [0] * x.ndim
        for pos, ax in enumerate(order):
            back[ax] = moved._estrides[pos]
        if not _strided.copy(x, Array(moved._buf, moved._offset, x.shape, back, x.dtype)):
            moved = _upload(np.ascontiguousarray(np.moveaxis(x.numpy(), run, range(-k, 0))), x.device)
        target = list(out_shape)
        shape_moved = [d for i, d in enumerate(target) if i not in run] + [target[i] for i in run]
        res = _execute(moved, list(range(x.ndim - k, x.ndim)), kind, n, tuple(shape_moved), out_dtype, inverse, scale)
        strides = [0] * x.ndim
        for pos, ax in enumerate(order):
            strides[ax] = res._estrides[pos]
        return Array(res._buf, res._offset, out_shape, strides, out_dtype)
    step_in = x.itemsize * math.prod(x.shape[first:])
    step_out = out.itemsize * math.prod(out.shape[first:])
    for i in range(outer):
        _native.fft_exec(
            kind, precision, n, 1, inner, x._buf, x._offset + i * step_in, out._buf, out._offset + i * step_out,
            inverse, scale,
        )
    return out


def _target(x: Array, dest: Array, kind: str):
    """``dest`` when the plan can write it while reading ``x``, None when the result must go
    through a new array first; a ``ValueError`` when ``dest`` overlaps ``x`` in a way no
    transform can run in."""
    if not dest.is_c_contiguous:
        return None
    if dest._overlaps(x):
        if kind == "c2c" and dest.ptr == x.ptr and dest.nbytes == x.nbytes:
            return dest  # the same elements: the plan runs in place
        raise ValueError(
            f"out overlaps the input of this {'complex' if kind == 'c2c' else 'real'} transform without being it: "
            "in place is possible only for fft/ifft/fft2/ifft2/fftn/ifftn with out=a (a C-contiguous array of "
            "the result's dtype); pass an out that does not share memory with the input"
        )
    if dest._buf is x._buf:
        return None  # disjoint parts of one buffer: the native call takes separate buffers
    return dest


def _deliver(res: Array, dest: Array) -> Array:
    """Copies the result ``res`` into ``dest`` (on the device where the strides allow)."""
    if res is not dest and res.size:
        if not _strided.copy(res, dest):
            dest._assign(res)
    return dest


def _finish(res: Array, o, given):
    """What a function returns: ``given`` (the caller's ``out``) once ``res`` is in it, else
    ``res``."""
    if o is None:
        return res
    _deliver(res, o)
    return given


def _c2c(a, s, axes, norm, inverse: bool, out=None, name="fftn") -> Array:
    a = _array(a)
    axes, sizes = _axes_sizes(a, s, axes)
    _scale(norm, 1, inverse)  # validates norm before any work
    dtype = _complex(_precision(a.dtype, False))
    shape = list(a.shape)
    for ax, n in zip(axes, sizes):
        shape[ax] = n
    if len(set(axes)) != len(axes):
        # Repeated axes transform the data once per mention, as NumPy does (last axis first);
        # out is checked against the result (new arrays only have been written so far).
        res = a
        for ax, n in reversed(list(zip(axes, sizes))):
            res = _c2c(res, [n], [ax], norm, inverse)
        return _finish(res, _checked_out(out, a.device, res.shape, res.dtype, name), out)
    o = _checked_out(out, a.device, shape, dtype, name)
    x = _prepared(a, tuple(shape), dtype)
    if not axes:
        return _finish(x.copy() if x is a else x, o, out)
    size_of = dict(zip(axes, sizes))
    runs = list(reversed(_runs(sorted(axes))))
    for i, run in enumerate(runs):
        n = [size_of[ax] for ax in run]
        x = _contiguous(x)
        last = i == len(runs) - 1
        x = _execute(x, run, "c2c", n, x.shape, dtype, inverse, _scale(norm, math.prod(n), inverse), o if last else None)
    return _finish(x, o, out)


def _contiguous(x: Array) -> Array:
    return x if x.is_c_contiguous else _prepared(x, x.shape, x.dtype)


def _last_run(axes: list[int]) -> list[int]:
    """The adjacent axes ending at ``axes[-1]`` that a multi-dimensional real plan can take."""
    run = [axes[-1]]
    rest = set(axes[:-1])
    while len(run) < 3 and run[0] - 1 in rest:
        run.insert(0, run[0] - 1)
    return run


def _r2c(a, s, axes, norm, out=None, name="rfftn") -> Array:
    a = _array(a)
    axes, sizes = _axes_sizes(a, s, axes)
    if not axes:
        raise ValueError("rfftn needs at least one axis")
    _scale(norm, 1, False)
    precision = _precision(a.dtype, True)
    real = np.dtype(precision)
    shape = list(a.shape)
    for ax, n in zip(axes, sizes):
        shape[ax] = n
    out_shape = list(shape)
    out_shape[axes[-1]] = shape[axes[-1]] // 2 + 1
    if len(set(axes)) != len(axes):
        last = _r2c(a, [sizes[-1]], [axes[-1]], norm)
        res = _c2c(last, sizes[:-1], axes[:-1], norm, False)
        return _finish(res, _checked_out(out, a.device, res.shape, res.dtype, name), out)
    o = _checked_out(out, a.device, out_shape, _complex(precision), name)
    x = _prepared(a, tuple(shape), real)
    size_of = dict(zip(axes, sizes))
    run = _last_run(axes)
    n = [size_of[ax] for ax in run]
    rest = [ax for ax in axes if ax not in run]
    scale = _scale(norm, math.prod(n), False)
    y = _execute(x, run, "r2c", n, tuple(out_shape), _complex(precision), False, scale, None if rest else o)
    if rest:
        y = _c2c(y, None, rest, norm, False, o)
    return _finish(y, o, out)


def _c2r(a, s, axes, norm, out=None, name="irfftn") -> Array:
    a = _array(a)
    axes, sizes = _axes_sizes(a, s, axes, real_inverse=True)
    if not axes:
        raise ValueError("irfftn needs at least one axis")
    _scale(norm, 1, True)
    precision = "float32" if a.dtype in (np.complex64, np.float32, np.float16) else "float64"
    _precision(a.dtype, False)
    cdtype = _complex(precision)
    size_of = dict(zip(axes, sizes))
    shape = list(a.shape)
    for ax, n in zip(axes, sizes):
        shape[ax] = n
    out_shape = list(shape)
    out_shape[axes[-1]] = sizes[-1]
    if len(set(axes)) != len(axes):
        res = _c2r(_c2c(a, sizes[:-1], axes[:-1], norm, True), [sizes[-1]], [axes[-1]], norm)
        return _finish(res, _checked_out(out, a.device, res.shape, res.dtype, name), out)
    o = _checked_out(out, a.device, out_shape, np.dtype(precision), name)
    shape[axes[-1]] = sizes[-1] // 2 + 1
    x = _prepared(a, tuple(shape), cdtype)
    run = _last_run(axes)
    rest = [ax for ax in axes if ax not in run]
    if rest:
        x = _contiguous(_c2c(x, None, rest, norm, True))
    n = [size_of[ax] for ax in run]
    scale = _scale(norm, math.prod(n), True)
    y = _execute(x, run, "c2r", n, tuple(out_shape), np.dtype(precision), True, scale, o)
    return _finish(y, o, out)


def _one(n, axis):
    return None if n is None else [n], [axis]


# ---- the NumPy functions ------------------------------------------------------------------


def fft(a, n=None, axis=-1, norm=None, out=None) -> Array:
    """The 1-D discrete Fourier transform along ``axis`` (``numpy.fft.fft``); ``n`` pads with
    zeros or truncates that axis first."""
    s, axes = _one(n, axis)
    return _c2c(a, s, axes, norm, False, out, "fft")


def ifft(a, n=None, axis=-1, norm=None, out=None) -> Array:
    """The 1-D inverse transform (``numpy.fft.ifft``)."""
    s, axes = _one(n, axis)
    return _c2c(a, s, axes, norm, True, out, "ifft")


def rfft(a, n=None, axis=-1, norm=None, out=None) -> Array:
    """The 1-D transform of real input: ``n // 2 + 1`` values along ``axis``
    (``numpy.fft.rfft``)."""
    s, axes = _one(n, axis)
    return _r2c(a, s, axes, norm, out, "rfft")


def irfft(a, n=None, axis=-1, norm=None, out=None) -> Array:
    """The inverse of :func:`rfft`: ``n`` reals (default ``2 (m - 1)`` for ``m`` input values)
    along ``axis`` (``numpy.fft.irfft``)."""
    s, axes = _one(n, axis)
    return _c2r(a, s, axes, norm, out, "irfft")


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None) -> Array:
    """The 2-D transform over ``axes`` (``numpy.fft.fft2``)."""
    return _c2c(a, s, axes, norm, False, out, "fft2")


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None) -> Array:
    """The 2-D inverse transform (``numpy.fft.ifft2``)."""
    return _c2c(a, s, axes, norm, True, out, "ifft2")


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None) -> Array:
    """The 2-D transform of real input (``numpy.fft.rfft2``)."""
    return _r2c(a, s, axes, norm, out, "rfft2")


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None) -> Array:
    """The inverse of :func:`rfft2` (``numpy.fft.irfft2``)."""
    return _c2r(a, s, axes, norm, out, "irfft2")


def fftn(a, s=None, axes=None, norm=None, out=None) -> Array:
    """The N-D transform over ``axes`` (default: all, or the last ``len(s)``)
    (``numpy.fft.fftn``)."""
    return _c2c(a, s, axes, norm, False, out, "fftn")


def ifftn(a, s=None, axes=None, norm=None, out=None) -> Array:
    """The N-D inverse transform (``numpy.fft.ifftn``)."""
    return _c2c(a, s, axes, norm, True, out, "ifftn")


def rfftn(a, s=None, axes=None, norm=None, out=None) -> Array:
    """The N-D transform of real input, halved along the last axis (``numpy.fft.rfftn``)."""
    return _r2c(a, s, axes, norm, out, "rfftn")


def irfftn(a, s=None, axes=None, norm=None, out=None) -> Array:
    """The inverse of :func:`rfftn` (``numpy.fft.irfftn``); ``s[-1]`` defaults to
    ``2 (m - 1)``."""
    return _c2r(a, s, axes, norm, out, "irfftn")
