"""Strided copies between arrays on one device, by BLAS ``copy`` (one launch per vector).

Dimensions contiguous in both arrays are merged first, the longest remaining dimension is the
vector each launch copies, and the others are looped over; when that would take more than
``MAX_LAUNCHES`` launches (or the dtype is not a BLAS type), :func:`copy` returns False and the
caller copies through the host instead.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from . import _native
from ._array import Array, _dtype_name

MAX_LAUNCHES = 256
_BLAS = {np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128)}


def _merged(shape, s1, s2):
    """Merges adjacent dimensions that are contiguous in both stride sets; drops size-1 ones."""
    dims = [(n, a, b) for n, a, b in zip(shape, s1, s2) if n != 1]
    out: list[list[int]] = []
    for n, a, b in dims:
        if out and out[-1][1] == a * n and out[-1][2] == b * n:
            out[-1][0] *= n
            out[-1][1], out[-1][2] = a, b
        else:
            out.append([n, a, b])
    return out or [[1, 1, 1]]


def copy(src: Array, dst: Array) -> bool:
    """Copies ``src`` into ``dst`` (same shape and dtype, one device) on the device, in stream
    order. Returns False, having done nothing, when it cannot do so in few launches."""
    if src.shape != dst.shape or src.dtype != dst.dtype or src.device != dst.device:
        raise ValueError("strided copy: the arrays differ in shape, dtype or device")
    if src.dtype not in _BLAS or src._buf is dst._buf:
        return False
    if src.size == 0:
        return True
    dims = _merged(src.shape, src._estrides, dst._estrides)
    v = max(range(len(dims)), key=lambda i: dims[i][0])
    n, incx, incy = dims[v]
    loops = [d for i, d in enumerate(dims) if i != v]
    if math.prod(d[0] for d in loops) > MAX_LAUNCHES:
        return False
    if incx == 0 or incy == 0:
        return False
    item = src.itemsize
    for idx in itertools.product(*(range(d[0]) for d in loops)):
        xo = src._offset + item * sum(i * d[1] for i, d in zip(idx, loops))
        yo = dst._offset + item * sum(i * d[2] for i, d in zip(idx, loops))
        # BLAS reads a negative increment from the lowest address up (element 0 last).
        xs = xo + (item * (n - 1) * incx if incx < 0 else 0)
        ys = yo + (item * (n - 1) * incy if incy < 0 else 0)
        xl = item * ((n - 1) * abs(incx) + 1)
        yl = item * ((n - 1) * abs(incy) + 1)
        _native.copy_exec(_dtype_name(src.dtype), n, src._buf, (xs, xl), incx, dst._buf, (ys, yl), incy)
    return True


def real_view(z: Array) -> Array:
    """The real parts of the complex array ``z``, as a strided float view of its memory."""
    real = np.dtype(np.float32 if z.dtype == np.complex64 else np.float64)
    return Array(z._buf, z._offset, z.shape, [2 * s for s in z._estrides], real)
