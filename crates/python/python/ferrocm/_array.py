"""ferrocm.Array: an n-dimensional view (shape, dtype, strides) of a device buffer."""

from __future__ import annotations

import math
import operator

import numpy as np

from . import _native

# DLPack type codes.
_KDL_INT, _KDL_UINT, _KDL_FLOAT, _KDL_COMPLEX, _KDL_BOOL = 0, 1, 2, 5, 6
_KDL_CPU, _KDL_CUDA = 1, 2

_SUPPORTED = {
    np.dtype(t)
    for t in (
        np.bool_,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    )
}


# NumPy computes `dtype.name` in Python (about 2 us a call): the names library calls pass to the
# native layer are looked up here instead.
_NAMES = {d: d.name for d in _SUPPORTED}


def _dtype_name(d: np.dtype) -> str:
    """`d.name` for the supported dtypes, without NumPy's per-call cost."""
    name = _NAMES.get(d)
    return d.name if name is None else name


_DTYPE_OF: dict = {}


def _dtype(dtype) -> np.dtype:
    """The supported NumPy dtype ``dtype`` names (remembered per hashable argument: `np.dtype`
    of a string costs more than the rest of a small library call's Python layer)."""
    try:
        d = _DTYPE_OF.get(dtype)
    except TypeError:  # an unhashable dtype-like (a list of fields): not supported anyway
        d = None
    if d is not None:
        return d
    d = np.dtype(dtype)
    if d not in _SUPPORTED:
        raise ValueError(f"dtype {d} is not supported; use one of {sorted(str(t) for t in _SUPPORTED)}")
    try:
        _DTYPE_OF[dtype] = d
    except TypeError:
        pass
    return d


def _dl_dtype(d: np.dtype) -> tuple[int, int, int]:
    code = {"b": _KDL_BOOL, "i": _KDL_INT, "u": _KDL_UINT, "f": _KDL_FLOAT, "c": _KDL_COMPLEX}[d.kind]
    return (code, d.itemsize * 8, 1)


def _np_dtype(code: int, bits: int, lanes: int) -> np.dtype:
    kinds = {_KDL_BOOL: "b", _KDL_INT: "i", _KDL_UINT: "u", _KDL_FLOAT: "f", _KDL_COMPLEX: "c"}
    if lanes != 1 or code not in kinds:
        raise ValueError(f"DLPack dtype (code {code}, bits {bits}, lanes {lanes}) has no ferrocm equivalent")
    if code == _KDL_BOOL:
        return np.dtype(np.bool_)
    return _dtype(f"{kinds[code]}{bits // 8}")


def _shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(operator.index(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


def _c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


class Array:
    """An n-dimensional array in a device's memory.

    ``shape``, ``dtype``, ``strides`` (bytes, as NumPy) and ``device`` describe it; slicing gives
    views that share the memory. ``numpy()`` copies to the host; ``__dlpack__`` and
    ``__cuda_array_interface__`` hand the memory to other libraries without a copy.
    """

    __slots__ = ("_buf", "_offset", "_shape", "_estrides", "_dtype", "__weakref__")

    def __init__(self, buf, offset: int, shape, elem_strides, dtype):
        self._buf = buf
        self._offset = int(offset)
        self._shape = tuple(int(n) for n in shape)
        self._estrides = tuple(int(s) for s in elem_strides)
        self._dtype = np.dtype(dtype)

    # ---- description -------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        return math.prod(self._shape)

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        """Bytes between consecutive elements along each dimension (as NumPy)."""
        return tuple(s * self.itemsize for s in self._estrides)

    @property
    def device(self) -> _native.Device:
        return self._buf.device

    @property
    def ptr(self) -> int:
        """Address of element 0 (device address on a GPU, host address on the CPU)."""
        return self._buf.ptr + self._offset

    @property
    def is_c_contiguous(self) -> bool:
        if len(self._shape) == 1:
            return self._estrides[0] == 1 or self._shape[0] <= 1
        if self.size <= 1:
            return True
        return all(s == c for n, s, c in zip(self._shape, self._estrides, _c_strides(self._shape)) if n != 1)

    @property
    def readonly(self) -> bool:
        """Whether writes are refused (imported from a producer that exported it read-only)."""
        return self._buf.readonly

    @property
    def borrowed(self) -> bool:
        """Whether the memory belongs to another library (imported through DLPack)."""
        return self._buf.borrowed

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d array")
        return self._shape[0]

    def __repr__(self) -> str:
        return f"ferrocm.Array(shape={self._shape}, dtype={self._dtype}, device={self.device.index})"

    # ---- the span of memory the view covers ---------------------------------------------
    def _span(self) -> tuple[int, int]:
        """(first byte offset in the buffer, byte length) covering every element."""
        if self.size == 0:
            return self._offset, 0
        lo = hi = 0
        for n, s in zip(self._shape, self._estrides):
            reach = (n - 1) * s
            if reach < 0:
                lo += reach
            else:
                hi += reach
        return self._offset + lo * self.itemsize, (hi - lo + 1) * self.itemsize

    def _overlaps(self, other: Array) -> bool:
        """Whether the memory spans of the two arrays share a byte (empty arrays share none)."""
        start, length = self._span()
        o_start, o_length = other._span()
        lo, o_lo = self._buf.ptr + start, other._buf.ptr + o_start
        return bool(length and o_length and lo < o_lo + o_length and o_lo < lo + length)

    # ---- host copies --------------------------------------------------------------------
    def numpy(self, stream=None) -> np.ndarray:
        """A host copy as a NumPy array (waits for pending work on the stream)."""
        start, length = self._span()
        raw = np.empty(length, dtype=np.uint8)
        if length:
            self._buf.read(start, raw, stream)
        if self.size == 0:
            return np.empty(self._shape, dtype=self._dtype)
        base = start
        # Offset of element 0 within the span.
        first = (self._offset - base) // self.itemsize
        flat = raw.view(self._dtype)
        view = np.lib.stride_tricks.as_strided(
            flat[first:], shape=self._shape, strides=self.strides, writeable=False
        )
        return np.array(view, copy=True)

    get = numpy

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def tolist(self):
        return self.numpy().tolist()

    def item(self):
        if self.size != 1:
            raise ValueError("item(): the array has more than one element")
        return self.numpy().reshape(()).item()

    # ---- indexing -----------------------------------------------------------------------
    def _view(self, key) -> Array:
        if not isinstance(key, tuple):
            key = (key,)
        if sum(k is Ellipsis for k in key) > 1:
            raise IndexError("an index can only have a single ellipsis")
        n_index = sum(1 for k in key if k is not None and k is not Ellipsis)
        if n_index > self.ndim:
            raise IndexError(f"too many indices: {n_index} for a {self.ndim}-d array")
        expanded = []
        for k in key:
            if k is Ellipsis:
                expanded.extend([slice(None)] * (self.ndim - n_index))
            else:
                expanded.append(k)
        expanded.extend([slice(None)] * (self.ndim - sum(1 for k in expanded if k is not None)))
        offset, shape, strides, dim = self._offset, [], [], 0
        for k in expanded:
            if k is None:
                shape.append(1)
                strides.append(0)
                continue
            n, s = self._shape[dim], self._estrides[dim]
            if isinstance(k, slice):
                start, stop, step = k.indices(n)
                length = len(range(start, stop, step))
                offset += start * s * self.itemsize if length else 0
                shape.append(length)
                strides.append(s * step)
            else:
                try:
                    i = operator.index(k)
                except TypeError:
                    raise IndexError(
                        "only integers, slices, Ellipsis and None are valid indices (no advanced indexing)"
                    ) from None
                if not -n <= i < n:
                    raise IndexError(f"index {i} is out of bounds for axis {dim} with size {n}")
                offset += (i % n) * s * self.itemsize
            dim += 1
        return Array(self._buf, offset, shape, strides, self._dtype)

    def __getitem__(self, key) -> Array:
        return self._view(key)

    def __setitem__(self, key, value) -> None:
        self._view(key)._assign(value)

    def _assign(self, value, stream=None) -> None:
        if isinstance(value, Array) and value.shape == self.shape and value.dtype == self.dtype:
            if value.device == self.device and value.is_c_contiguous and self.is_c_contiguous:
                self._buf.copy_from(self._offset, value._buf, value._offset, self.nbytes, stream)
                return
            value = value.numpy()
        host = np.broadcast_to(np.asarray(value, dtype=self._dtype), self._shape)
        if self.is_c_contiguous:
            data = np.ascontiguousarray(host)
            if data.nbytes:
                self._buf.write(self._offset, memoryview(data).cast("B"), stream)
            return
        # A strided view: read the span, assign on the host, write the span back.
        start, length = self._span()
        raw = np.empty(length, dtype=np.uint8)
        self._buf.read(start, raw, stream)
        first = (self._offset - start) // self.itemsize
        view = np.lib.stride_tricks.as_strided(
            raw.view(self._dtype)[first:], shape=self._shape, strides=self.strides
        )
        view[...] = host
        self._buf.write(start, raw, stream)

    def fill(self, value, stream=None) -> None:
        """Sets every element to `value` (a memset when the value's bytes are all equal)."""
        pattern = np.asarray(value, dtype=self._dtype).tobytes()
        if self.is_c_contiguous and len(set(pattern)) <= 1:
            self._buf.fill(pattern[0] if pattern else 0, self._offset, self.nbytes, stream)
        else:
            self._assign(value, stream)

    def copy(self, stream=None) -> Array:
        """A new C-contiguous array with the same contents, on the same device."""
        out = empty(self._shape, self._dtype, device=self.device)
        out._assign(self, stream)
        return out

    def reshape(self, *shape) -> Array:
        """A view with another shape (C-contiguous arrays only; one dimension may be -1)."""
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = tuple(shape[0])
        if sum(1 for n in shape if n == -1) > 1:
            raise ValueError("only one dimension can be -1")
        if -1 in shape:
            known = math.prod(n for n in shape if n != -1)
            if known == 0 or self.size % known:
                raise ValueError(f"cannot reshape {self.size} elements into {shape}")
            shape = tuple(self.size // known if n == -1 else n for n in shape)
        shape = _shape(shape)
        if math.prod(shape) != self.size:
            raise ValueError(f"cannot reshape an array of {self.size} elements into {shape}")
        if not self.is_c_contiguous:
            raise ValueError("reshape needs a C-contiguous array; call copy() first")
        return Array(self._buf, self._offset, shape, _c_strides(shape), self._dtype)

    def ravel(self) -> Array:
        return (self if self.is_c_contiguous else self.copy()).reshape(-1)

    # ---- exchange with other libraries --------------------------------------------------
    def __dlpack_device__(self) -> tuple[int, int]:
        d = self.device
        return (_KDL_CUDA, d.ordinal) if d.is_gpu else (_KDL_CPU, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of this array (no copy). ferrocm's pending work on the device is
        completed first, so the consumer may read on any stream."""
        if copy:
            return self.copy().__dlpack__(stream=stream)
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"the array is on DLPack device {self.__dlpack_device__()}, not {tuple(dl_device)}")
        if not self.device.is_gpu and stream not in (None, -1):
            raise BufferError("a CPU array takes no stream")
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        return self._buf.to_dlpack(
            self, self._offset, list(self._shape), list(self._estrides), _dl_dtype(self._dtype), versioned
        )

    @property
    def __cuda_array_interface__(self) -> dict:
        if not self.device.is_gpu:
            raise AttributeError("__cuda_array_interface__ exists only for arrays on a GPU")
        return {
            "shape": self._shape,
            "typestr": self._dtype.str,
            "data": (self.ptr, False),
            "version": 3,
            "strides": None if self.is_c_contiguous else self.strides,
            "stream": _native.current_stream(self.device).native_handle,
        }


def _device(device):
    """Resolves ``device=``: None (the default device), a Device, or an index."""
    if device is None:
        return _native.default_device()
    if isinstance(device, _native.Device):
        return device
    i, devs = operator.index(device), _native.devices()
    if not 0 <= i < len(devs):
        raise ValueError(f"invalid device index {i}: {len(devs)} device(s) are visible (valid indices 0..{len(devs)})")
    return devs[i]


def empty(shape, dtype="float32", device=None, stream=None) -> Array:
    """An array with unspecified contents (from the device's stream-ordered pool)."""
    shape, dtype = _shape(shape), _dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    buf = _native.Buffer.alloc(nbytes, _device(device) if stream is None else None, stream)
    return Array(buf, 0, shape, _c_strides(shape), dtype)


def zeros(shape, dtype="float32", device=None, stream=None) -> Array:
    a = empty(shape, dtype, device, stream)
    if a.nbytes:
        a._buf.fill(0, 0, a.nbytes, stream)
    return a


def ones(shape, dtype="float32", device=None, stream=None) -> Array:
    return full(shape, 1, dtype, device, stream)


def full(shape, value, dtype="float32", device=None, stream=None) -> Array:
    a = empty(shape, dtype, device, stream)
    a.fill(value, stream)
    return a


def empty_like(a, dtype=None, device=None) -> Array:
    return empty(a.shape, a.dtype if dtype is None else dtype, a.device if device is None else device)


def zeros_like(a, dtype=None, device=None) -> Array:
    return zeros(a.shape, a.dtype if dtype is None else dtype, a.device if device is None else device)


def from_dlpack(x, device=None, copy=None) -> Array:
    """Views another library's array (anything with ``__dlpack__``) as a ferrocm Array without a
    copy. For a GPU producer, ferrocm's current stream on that device is passed as DLPack's
    ``stream``, so the producer's pending work is ordered before ferrocm's."""
    if isinstance(x, Array):
        return x.copy() if copy else x
    dev_type, dev_id = x.__dlpack_device__()
    if dev_type == _KDL_CUDA:
        kwargs = {"stream": _native.current_stream(_cuda_device(dev_id)).native_handle}
    elif dev_type == _KDL_CPU:
        kwargs = {}
    else:
        raise ValueError(f"DLPack device type {dev_type} is not one ferrocm can use (CPU 1, CUDA 2)")
    try:
        capsule = x.__dlpack__(max_version=(1, 0), **kwargs)
    except TypeError:
        # A producer that predates DLPack 1.0 takes no max_version.
        capsule = x.__dlpack__(**kwargs)
    buf, shape, strides, (code, bits, lanes), offset = _native.import_capsule(capsule)
    dtype = _np_dtype(code, bits, lanes)
    a = Array(buf, offset * (bits // 8), shape, strides, dtype)
    if device is not None and _device(device) != a.device:
        return asarray(a, device=device)
    return a.copy() if copy else a


def _cuda_device(ordinal: int):
    for d in _native.devices():
        if d.is_gpu and d.ordinal == ordinal:
            return d
    raise ValueError(f"no visible ferrocm GPU has CUDA ordinal {ordinal}")


def asarray(obj, dtype=None, device=None, copy=None) -> Array:
    """An Array from ``obj``: a ferrocm Array, anything speaking DLPack (viewed in place when it
    is already on the target device and no dtype change is asked), or anything NumPy accepts
    (copied to the device). ``copy=True`` always copies; ``copy=False`` refuses to."""
    target = _device(device)
    want = None if dtype is None else _dtype(dtype)
    if isinstance(obj, Array):
        if obj.device == target and (want is None or want == obj.dtype):
            return obj.copy() if copy else obj
        if copy is False:
            raise ValueError("asarray(copy=False): a copy is needed (other device or dtype)")
        host = obj.numpy()
    else:
        if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__") and copy is not True:
            dev_type, dev_id = obj.__dlpack_device__()
            same = (dev_type == _KDL_CPU and not target.is_gpu) or (
                dev_type == _KDL_CUDA and target.is_gpu and target.ordinal == dev_id
            )
            if same:
                try:
                    a = from_dlpack(obj)
                except (BufferError, TypeError):
                    a = None  # e.g. a read-only NumPy array: copy instead
                if a is not None and (want is None or want == a.dtype):
                    return a
        if copy is False:
            raise ValueError("asarray(copy=False): the object cannot be used in place")
        host = np.asarray(obj)
    host = np.ascontiguousarray(host, dtype=want if want is not None else _dtype(host.dtype))
    out = empty(host.shape, host.dtype, device=target)
    if host.nbytes:
        out._buf.write(0, memoryview(host).cast("B"))
    return out


def _upload(host: np.ndarray, device) -> Array:
    """A new ferrocm-owned copy of the C-contiguous ``host`` on ``device`` (never a borrowed
    view, so work queued on it may run after the host array is gone)."""
    out = empty(host.shape, host.dtype, device=device)
    if host.nbytes:
        out._buf.write(out._offset, memoryview(host).cast("B"))
    return out


def _checked_out(out, device, shape, dtype, name: str):
    """The ferrocm view of an ``out=`` argument (None when not given), checked against what
    ``name`` returns (shape, dtype, the device of its input) and for writability, before any
    work is queued."""
    if out is None:
        return None
    if isinstance(out, Array):
        o = out
    elif hasattr(out, "__dlpack__") and hasattr(out, "__dlpack_device__"):
        try:
            o = from_dlpack(out)
        except BufferError as e:
            raise ValueError(f"out cannot be written through DLPack ({e}); pass a writable array") from None
    else:
        raise ValueError(f"out must be a ferrocm Array or a DLPack array (NumPy, torch, CuPy), not {type(out).__name__}")
    shape = tuple(shape)
    dtype = np.dtype(dtype)
    if o.device != device:
        raise ValueError(
            f"out is on device {o.device.index} but the input on device {device.index}: "
            f"{name} writes out on the input's device"
        )
    if o.shape != shape:
        raise ValueError(f"out has shape {o.shape} but {name} returns shape {shape}: pass an out of that shape")
    if o.dtype != dtype:
        raise ValueError(f"out has dtype {o.dtype} but {name} returns {dtype}: pass an out of dtype {dtype}")
    if o.readonly:
        raise ValueError("out is read-only (its producer exported it so): pass a writable array")
    return o
