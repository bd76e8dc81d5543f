"""ferrocm.blas: matrix products by ferrocm's BLAS on any DLPack arrays.

Operands are ferrocm Arrays or anything speaking DLPack (NumPy, PyTorch, CuPy, JAX), viewed in
place through :func:`ferrocm.from_dlpack` (other objects, e.g. lists, go through
:func:`ferrocm.asarray`); every operand must be on one device, where the work runs. Types:
float32, float64, complex64 and complex128, the same for every operand (no conversion).

Layouts: BLAS is column-major and NumPy row-major. A C-contiguous matrix is the transpose of a
column-major one with the same memory, so ``C = A B`` on row-major arrays runs as
``C^T = B^T A^T`` in column-major, with no copy; F-contiguous operands run as they are, and any
matrix whose elements are unit-stride along one axis (slices of rows or columns included) is used
in place with its leading dimension. An operand is copied only where BLAS cannot express it: a
matrix strided along both axes or with negative strides, a zero-stride vector, or a conjugate
transpose (``"C"``) of a matrix stored the other way round from the output. Those copies (and an
output BLAS cannot write in place, written back afterwards) run on the device as BLAS copies
where that takes a few hundred launches at most, else through host memory.

Results are written in place into ``c``/``y`` when given (a ferrocm Array or another library's
writable array, e.g. a ``torch.Tensor`` on the same GPU), which is then returned; otherwise
into a new C-contiguous ferrocm Array. An output sharing memory with an input is refused. Work
is queued on the device's current stream and the call returns without waiting.
"""

from __future__ import annotations

import itertools

import numpy as np

from . import _native, _strided
from ._array import Array, _checked_out, _dtype_name, _upload, asarray, empty, from_dlpack

__all__ = ["gemm", "gemm_batched", "gemv", "matmul"]

_DTYPES = {np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128)}


def _operand(x, name: str) -> Array:
    if isinstance(x, Array):
        return x
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        try:
            return from_dlpack(x)
        except BufferError as e:
            raise ValueError(f"{name} cannot be viewed through DLPack: {e}") from None
    return asarray(x)


def _check(named: dict[str, Array]) -> np.dtype:
    items = list(named.items())
    first_name, first = items[0]
    if first.dtype not in _DTYPES:
        raise TypeError(f"{first_name} has dtype {first.dtype}; BLAS takes float32, float64, complex64 or complex128")
    for name, x in items[1:]:
        if x.dtype != first.dtype:
            raise ValueError(
                f"dtype mix: {first_name} is {first.dtype} but {name} is {x.dtype}; "
                "ferrocm.blas does not convert: pass one dtype"
            )
        if x.device != first.device:
            raise ValueError(
                f"{name} is on device {x.device.index} but {first_name} on device {first.device.index}: "
                "every operand must be on one device"
            )
    return first.dtype


def _op(trans, name: str) -> str:
    if trans is False or trans is None:
        return "N"
    if trans is True:
        return "T"
    if isinstance(trans, str) and trans.upper() in ("N", "T", "C", "H"):
        return "C" if trans.upper() == "H" else trans.upper()
    raise ValueError(f"{name} is {trans!r}; expected False/True or one of 'N', 'T', 'C' (conjugate transpose)")


def _scalar(v, name: str) -> tuple[float, float]:
    try:
        z = complex(v)
    except TypeError:
        raise TypeError(f"{name} must be a number, not {type(v).__name__}") from None
    return (z.real, z.imag)


def _form(x: Array):
    """How BLAS can read the matrix formed by ``x``'s last two axes in place:
    ``("col", ld)`` (column-major), ``("row", ld)`` (row-major: the column-major transpose),
    or None."""
    r, c = x.shape[-2:]
    sr, sc = x._estrides[-2:]
    if (r <= 1 or sr == 1) and (c <= 1 or sc >= max(1, r)):
        return "col", (sc if c > 1 else max(1, r))
    if (c <= 1 or sc == 1) and (r <= 1 or sr >= max(1, c)):
        return "row", (sr if r > 1 else max(1, c))
    return None


def _batch_stride(x: Array):
    if x.ndim < 3 or x.shape[0] <= 1:
        return 0
    return x._estrides[0] if x._estrides[0] >= 0 else None


def _materialise(x: Array, form: str) -> Array:
    """A copy of ``x`` whose matrices are stored ``form``-major (by device copies where they
    take few launches, else through the host)."""
    if form == "row":
        t = empty(x.shape, x.dtype, device=x.device)
        view = t
    else:
        swapped = (*x.shape[:-2], x.shape[-1], x.shape[-2])
        t = empty(swapped, x.dtype, device=x.device)
        st = list(t._estrides)
        st[-2], st[-1] = st[-1], st[-2]
        view = Array(t._buf, t._offset, x.shape, st, x.dtype)
    if _strided.copy(x, view):
        return view
    host = x.numpy()
    if form == "row":
        host = np.ascontiguousarray(host)
        return _upload(host, x.device)
    t = _upload(np.ascontiguousarray(np.swapaxes(host, -1, -2)), x.device)
    shape = list(t.shape)
    shape[-2], shape[-1] = shape[-1], shape[-2]
    strides = list(t._estrides)
    strides[-2], strides[-1] = strides[-1], strides[-2]
    return Array(t._buf, t._offset, shape, strides, t.dtype)


def _overlap(out: Array, out_name: str, inputs: dict[str, Array]) -> None:
    """Refuses an output whose memory overlaps an input's (BLAS would read what it writes)."""
    for name, x in inputs.items():
        if out._overlaps(x):
            raise ValueError(f"{out_name} overlaps {name}: pass an output that does not share memory with the inputs")


# op applied to a stored-transposed (row-major) matrix, for the product computed directly
# (C column-major): N -> T, T -> N; C has no equivalent.
_FLIP = {"N": "T", "T": "N"}


def _plan_operand(x: Array, op: str, want_transposed: bool):
    """(array, BLAS op, ld) reading ``op(x)`` (or ``op(x)^T`` when ``want_transposed``) from
    the column-major matrix BLAS sees."""
    form = _form(x)
    if _batch_stride(x) is None:
        form = None
    if not want_transposed:
        if form is not None and form[0] == "col":
            return x, op, form[1]
        if form is not None and op in _FLIP:
            return x, _FLIP[op], form[1]
        x = _materialise(x, "col")
        return x, op, _form(x)[1]
    # op(x)^T: for a row-major x (stored x^T), N -> N, T -> T, C -> C; for a column-major x,
    # N -> T, T -> N, C (conj(x)) cannot be expressed.
    if form is not None and form[0] == "row":
        return x, op, form[1]
    if form is not None and op in _FLIP:
        return x, _FLIP[op], form[1]
    x = _materialise(x, "row")
    return x, op, _form(x)[1]


def _gemm(a, b, c, alpha, beta, trans_a, trans_b, batched: bool):
    names = ("a", "b", "c")
    a, b = _operand(a, "a"), _operand(b, "b")
    given = c
    want_nd = 3 if batched else 2
    for name, x in zip(names, (a, b)):
        if x.ndim != want_nd:
            raise ValueError(f"{name} has {x.ndim} dimensions; {'gemm_batched' if batched else 'gemm'} takes {want_nd}-D arrays")
    op_a, op_b = _op(trans_a, "trans_a"), _op(trans_b, "trans_b")
    dtype = _check({"a": a, "b": b})
    m, k = a.shape[-2:] if op_a == "N" else a.shape[:-3:-1]
    k2, n = b.shape[-2:] if op_b == "N" else b.shape[:-3:-1]
    if k != k2:
        raise ValueError(
            f"shape mismatch: op(a) is {m} x {k} (a {a.shape}, trans_a={op_a}) but op(b) is {k2} x {n} "
            f"(b {b.shape}, trans_b={op_b}); the inner dimensions must agree"
        )
    batch = 1
    if batched:
        counts = {a.shape[0], b.shape[0]} - {1}
        if len(counts) > 1:
            raise ValueError(f"batch mismatch: a has {a.shape[0]} matrices, b {b.shape[0]}; give equal counts or 1 to reuse one")
        batch = counts.pop() if counts else 1
    out_shape = (batch, m, n) if batched else (m, n)
    alpha_, beta_ = _scalar(alpha, "alpha"), _scalar(beta, "beta")
    if c is None:
        if beta_ != (0.0, 0.0):
            raise ValueError("beta is not 0 but no c was given: pass c to accumulate into")
        c = empty(out_shape, dtype, device=a.device)
    else:
        c = _operand(c, "c")
        _check({"a": a, "c": c})
        if c.shape != out_shape:
            raise ValueError(f"shape mismatch: c has shape {c.shape}, the product has shape {out_shape}")
    if c.readonly:
        raise ValueError("c is read-only (its producer exported it so)")
    if m == 0 or n == 0 or batch == 0:
        return given if given is not None else c
    _overlap(c, "c", {"a": a, "b": b})
    target, form = c, _form(c)
    cb = _batch_stride(c)
    if form is None or cb is None or (batched and batch > 1 and cb == 0):
        target = _materialise(c, "row") if beta_ != (0.0, 0.0) else empty(out_shape, dtype, device=c.device)
        form, cb = _form(target), _batch_stride(target)
    if form[0] == "col":
        (x, opx, ldx), (y, opy, ldy) = _plan_operand(a, op_a, False), _plan_operand(b, op_b, False)
        dims = (m, n, k)
    else:
        # C^T = op(b)^T op(a)^T, column-major.
        (x, opx, ldx), (y, opy, ldy) = _plan_operand(b, op_b, True), _plan_operand(a, op_a, True)
        dims = (n, m, k)
    if k == 0:
        # Nothing to multiply: C = beta C (BLAS reads no A or B).
        if beta_ == (0.0, 0.0):
            target.fill(0)
        else:
            target._assign(target.numpy() * complex(*beta_) if dtype.kind == "c" else target.numpy() * beta_[0])
    else:
        _native.gemm_exec(
            _dtype_name(dtype), (opx, opy), dims, alpha_,
            x._buf, x._span(), ldx, _batch_stride(x) or 0,
            y._buf, y._span(), ldy, _batch_stride(y) or 0,
            beta_, target._buf, target._span(), form[1], cb or 0, batch,
        )  # fmt: skip
    if target is not c and not _strided.copy(target, c):
        c._assign(target)
    return given if given is not None else c


def gemm(a, b, c=None, *, alpha=1, beta=0, trans_a=False, trans_b=False):
    """``c = alpha op(a) @ op(b) + beta c`` for 2-D arrays (BLAS ``gemm``).

    ``trans_a``/``trans_b``: False (``"N"``), True (``"T"``, transpose) or ``"C"`` (conjugate
    transpose). Without ``c`` a new array is returned (``beta`` must then be 0); with ``c``
    (a ferrocm Array or a writable DLPack array) the result is written into it in place and
    ``c`` is returned. ``beta = 0`` does not read ``c``. Raises ``ValueError`` for shapes
    that do not multiply, mixed dtypes or devices, and an output sharing memory with an input;
    ``TypeError`` for dtypes BLAS does not take.
    """
    return _gemm(a, b, c, alpha, beta, trans_a, trans_b, batched=False)


def gemm_batched(a, b, c=None, *, alpha=1, beta=0, trans_a=False, trans_b=False):
    """:func:`gemm` on stacks of matrices: 3-D arrays ``(batch, rows, cols)`` (BLAS
    ``gemm_strided_batched``), one launch for the batch. A batch of 1 in ``a`` or ``b`` is
    reused for every product (stride 0)."""
    return _gemm(a, b, c, alpha, beta, trans_a, trans_b, batched=True)


def gemv(a, x, y=None, *, alpha=1, beta=0, trans=False):
    """``y = alpha op(a) @ x + beta y`` for a 2-D ``a`` and 1-D ``x``, ``y`` (BLAS ``gemv``);
    ``trans`` as ``trans_a`` in :func:`gemm`. Vectors may have any non-zero stride (negative
    ones included)."""
    a, x = _operand(a, "a"), _operand(x, "x")
    given = y
    if a.ndim != 2 or x.ndim != 1:
        raise ValueError(f"gemv takes a 2-D a and a 1-D x, got {a.ndim}-D and {x.ndim}-D")
    op = _op(trans, "trans")
    dtype = _check({"a": a, "x": x})
    rows, cols = a.shape
    m, n = (rows, cols) if op == "N" else (cols, rows)
    if x.shape[0] != n:
        raise ValueError(f"shape mismatch: op(a) is {m} x {n} (a {a.shape}, trans={op}) but x has {x.shape[0]} elements")
    alpha_, beta_ = _scalar(alpha, "alpha"), _scalar(beta, "beta")
    if y is None:
        if beta_ != (0.0, 0.0):
            raise ValueError("beta is not 0 but no y was given: pass y to accumulate into")
        y = empty((m,), dtype, device=a.device)
    else:
        y = _operand(y, "y")
        _check({"a": a, "y": y})
        if y.shape != (m,):
            raise ValueError(f"shape mismatch: y has shape {y.shape}, op(a) @ x has shape {(m,)}")
    if y.readonly:
        raise ValueError("y is read-only (its producer exported it so)")
    if m == 0:
        return given if given is not None else y
    _overlap(y, "y", {"a": a, "x": x})
    if n == 0:
        y.fill(0) if beta_ == (0.0, 0.0) else y._assign(y.numpy() * (complex(*beta_) if dtype.kind == "c" else beta_[0]))
        return given if given is not None else y
    form = _form(a)
    if form is None or (form[0] == "row" and op == "C"):
        a = _materialise(a, "col")
        form = _form(a)
    if form[0] == "col":
        blas_op, mn = op, (rows, cols)
    else:
        blas_op, mn = _FLIP[op], (cols, rows)
    if x._estrides[0] == 0 and x.shape[0] > 1:
        x = _upload(np.ascontiguousarray(x.numpy()), x.device)
    target = y
    if y._estrides[0] == 0 and m > 1:
        target = _upload(np.ascontiguousarray(y.numpy()), y.device)
    incx = x._estrides[0] if x.shape[0] > 1 else 1
    incy = target._estrides[0] if m > 1 else 1
    _native.gemv_exec(
        _dtype_name(dtype), blas_op, mn, alpha_, a._buf, a._span(), form[1], x._buf, x._span(), incx,
        beta_, target._buf, target._span(), incy,
    )  # fmt: skip
    if target is not y and not _strided.copy(target, y):
        y._assign(target)
    return given if given is not None else y


def matmul(a, b, out=None):
    """``a @ b`` with NumPy's ``matmul`` semantics, on any number of dimensions.

    A 1-D ``a`` is a row vector (a dimension of 1 is prepended) and a 1-D ``b`` a column vector
    (one is appended); the added dimension is removed from the result. The dimensions before the
    last two are batch dimensions and broadcast as NumPy broadcasts them:
    ``(2, 1, 3, 4, 5) @ (7, 1, 5, 6)`` is ``(2, 7, 3, 4, 6)``. Scalars (0-D operands) are a
    ``ValueError``, as in NumPy. Types: float32, float64, complex64, complex128 (one for both).

    ``out``: a ferrocm Array or a writable DLPack array on the operands' device, of exactly the
    result's shape and dtype, not sharing memory with ``a`` or ``b``; the product is written
    into it and ``out`` is returned. Without it the result is a new C-contiguous Array.

    How it runs: ``2-D @ 1-D`` is one ``gemv``. Otherwise the batch dimensions of the three
    arrays are merged where their strides allow (dimensions a broadcast operand repeats have
    stride 0); the longest merged dimension is batched in one strided-batched GEMM launch, one
    launch per index of the other merged dimensions (a C-contiguous batch merges into one
    launch; ``(2, 1)`` against ``(1, 3)`` batches take 2 launches of 3). An operand that is a
    strided view of one buffer (a slice, a transpose of the last two axes, a broadcast) is read
    in place, with no copy. Copies are made only where BLAS cannot address the data: a matrix strided along both
    of its last two axes, a negative batch stride, or an ``out`` whose matrices BLAS cannot
    write (those are written to a new array and copied into ``out``); a copy runs on the device
    where the strides allow a few hundred launches, else through host memory. ``k = 0`` fills
    the result with zeros.
    """
    given = out
    a, b = _operand(a, "a"), _operand(b, "b")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(
            f"matmul: {'a' if a.ndim == 0 else 'b'} is a scalar (0-D); operands need at least one dimension (use * for scalars)"
        )
    dtype = _check({"a": a, "b": b})
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    (m, k), (k2, n) = a2.shape[-2:], b2.shape[-2:]
    if k != k2:
        where = "first" if b.ndim == 1 else "second-to-last"
        raise ValueError(
            f"matmul: shape mismatch: a {a.shape} has {k} columns but the {where} axis of b {b.shape} has {k2}; they must agree"
        )
    try:
        batch = tuple(np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]))
    except ValueError:
        raise ValueError(
            f"matmul: the batch dimensions of a {a.shape} and b {b.shape} do not broadcast "
            f"({a2.shape[:-2]} against {b2.shape[:-2]}): each pair must be equal or one of them 1"
        ) from None
    shape = (*batch, m, n)
    result = tuple(d for i, d in enumerate(shape) if not (i == len(shape) - 2 and a.ndim == 1 or i == len(shape) - 1 and b.ndim == 1))
    if out is None:
        c = empty(shape, dtype, device=a.device)
        res = c.reshape(result)
    else:
        res = _checked_out(out, a.device, result, dtype, "matmul")
        _overlap(res, "out", {"a": a, "b": b})
        key = (Ellipsis, *([None] if a.ndim == 1 else [slice(None)]), *([None] if b.ndim == 1 else [slice(None)]))
        c = res[key]
    if c.size:
        if a.ndim == 2 and b.ndim == 1:
            gemv(a, b, res)
        elif k == 0:
            c.fill(0)
        else:
            _matmul_batched(a2, b2, c, batch)
    return given if given is not None else res


def _batch_strides(x: Array, batch: tuple[int, ...]) -> list[int]:
    """``x``'s batch strides (elements) broadcast to ``batch``: 0 where ``x`` repeats."""
    nb, own = len(batch), x.shape[:-2]
    st = [0] * nb
    for i in range(1, len(own) + 1):
        if own[-i] != 1:
            st[nb - i] = x._estrides[-2 - i]
    return st


def _readable(x: Array, batch) -> Array:
    """``x`` when BLAS can read its matrices in place at non-negative batch strides, else a copy."""
    if _form(x) is None or min(_batch_strides(x, batch), default=0) < 0:
        return _materialise(x, "row")
    return x


def _matmul_batched(a: Array, b: Array, c: Array, batch) -> None:
    """``c = a @ b`` for operands with 2 or more dimensions whose batch dimensions broadcast to
    ``batch`` (``c`` has them all): strided-batched GEMMs, one per index of the batch
    dimensions that do not merge, over the longest merged one."""
    a, b = _readable(a, batch), _readable(b, batch)
    target = c
    sc = list(c._estrides[:-2])
    if _form(c) is None or any(s <= 0 and d > 1 for s, d in zip(sc, batch)):
        target = empty(c.shape, c.dtype, device=c.device)
        sc = list(target._estrides[:-2])
    sa, sb = _batch_strides(a, batch), _batch_strides(b, batch)
    dims: list[list[int]] = []
    for d, x, y, z in zip(batch, sa, sb, sc):
        if d == 1:
            continue
        if dims and all(prev == cur * d for prev, cur in zip(dims[-1][1:], (x, y, z))):
            dims[-1] = [dims[-1][0] * d, x, y, z]
        else:
            dims.append([d, x, y, z])
    dims = dims or [[1, 0, 0, 0]]
    v = max(range(len(dims)), key=lambda i: dims[i][0])
    count, va, vb, vc = dims[v]
    loops = [d for i, d in enumerate(dims) if i != v]

    def view(x: Array, offset: int, stride: int) -> Array:
        return Array(x._buf, x._offset + offset * x.itemsize, (count, *x.shape[-2:]), (stride, *x._estrides[-2:]), x.dtype)

    for idx in itertools.product(*(range(d[0]) for d in loops)):
        off = [sum(i * d[j] for i, d in zip(idx, loops)) for j in (1, 2, 3)]
        _gemm(view(a, off[0], va), view(b, off[1], vb), view(target, off[2], vc), 1, 0, False, False, batched=True)
    if target is not c and not _strided.copy(target, c):
        c._assign(target)
