"""ferrocm from Python: devices, streams, events, device arrays that exchange memory with NumPy,
PyTorch, CuPy and JAX without copies (DLPack, ``__cuda_array_interface__``), the RAND generators
(:mod:`ferrocm.random`), NumPy's FFT functions (:mod:`ferrocm.fft`), matrix products
(:mod:`ferrocm.blas`), collectives between processes (:mod:`ferrocm.ccl`) and the CUDA-to-HIP
translator (:func:`hipify`).

Importing needs no GPU: where none is present (or ``FERROCM_BACKEND=cpu``), arrays live on
ferrocm's CPU device, which is host memory (DLPack device ``kDLCPU``), so NumPy can view them in
place.

Errors are Python exceptions carrying ferrocm's message: ``ValueError`` for bad arguments,
``MemoryError`` for exhausted memory, :class:`DeviceError` (a :class:`Error`) for device failures,
:class:`CommError` (a :class:`Error`) for failed collectives.
"""

from __future__ import annotations

import json as _json

from . import _native
from ._array import (
    Array,
    asarray,
    empty,
    empty_like,
    from_dlpack,
    full,
    ones,
    zeros,
    zeros_like,
)
from ._native import CommError, DeviceError, Error
from ._native import Device, Event, Stream

__version__ = _native.__version__

__all__ = [
    "Array",
    "blas",
    "ccl",
    "CommError",
    "Device",
    "DeviceError",
    "Error",
    "Event",
    "Stream",
    "asarray",
    "current_stream",
    "default_device",
    "devices",
    "empty",
    "empty_like",
    "fft",
    "from_dlpack",
    "full",
    "hipify",
    "info",
    "ones",
    "random",
    "zeros",
    "zeros_like",
]


def devices() -> list[Device]:
    """Every visible device, GPUs first (the numbering of ``ferrocm info``)."""
    return _native.devices()


def default_device() -> Device:
    """The device used when none is named: the first GPU, else the CPU."""
    return _native.default_device()


def current_stream(device=None) -> Stream:
    """The innermost ``with stream:`` of ``device`` on this thread, else its default stream."""
    return _native.current_stream(device)


def info() -> dict:
    """What ``ferrocm info --json`` prints: the runtime, the drivers found and every device."""
    return _json.loads(_native.info_json())


def hipify(source: str, *, stats: bool = False, **options):
    """Translates CUDA source text to HIP, as ``ferrocm hipify`` does.

    Options (booleans): ``roc``, ``hip_kernel_execution_syntax``, ``amap``. Returns the text, or
    ``(text, statistics)`` with ``stats=True``.
    """
    text, counts = _native.hipify(source, **options)
    return (text, counts) if stats else text


from . import blas, ccl, fft, random  # noqa: E402  (they use the names above)
