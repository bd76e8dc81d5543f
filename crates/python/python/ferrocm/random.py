"""ferrocm.random: cuRAND's generators (ferrocm's RAND) with NumPy-like calls.

Each call fills a new :class:`ferrocm.Array`, or, with ``out=``, any array on the generator's
device in place: a ferrocm Array or another library's tensor (through DLPack, no copy), e.g. a
``torch.Tensor`` on the same GPU or a NumPy array on the CPU device. ``out`` must be
C-contiguous and of the distribution's dtype.
"""

from __future__ import annotations

import math

import numpy as np

from . import _native
from ._array import Array, _dtype, _dtype_name, _shape, empty, from_dlpack

__all__ = ["Generator", "default_rng"]


def _target(out, shape, dtype, device, min_count=None):
    """(array to fill, array to return, element count)."""
    if out is not None:
        # The native fill checks that out is on the generator's device (and says which).
        a = out if isinstance(out, Array) else from_dlpack(out)
        if a.dtype != dtype:
            raise ValueError(f"out has dtype {a.dtype}, this distribution writes {dtype}")
        if not a.is_c_contiguous:
            raise ValueError("out must be C-contiguous")
        return a, (out if isinstance(out, Array) else a), a.size
    shape = () if shape is None else _shape(shape)
    n = math.prod(shape)
    count = n if min_count is None else min_count(n)
    buf = empty((count,), dtype, device=device)
    return buf, buf[:n].reshape(shape) if count != n or shape != (count,) else buf, n


class Generator:
    """A generator of kind ``philox`` (default), ``xorwow``, ``mrg32k3a``, ``sobol32``,
    ``sobol64``, ``mtgp32`` (raw words and uniforms), ``mt19937``, ``lfsr113``, ``threefry2x32_20``,
    ``threefry4x32_20``, ``threefry2x64_20`` or ``threefry4x64_20`` on ``device`` (default: the default device), seeded with ``seed``.
    ``ordering="legacy"`` reproduces cuRAND's host API bit for bit."""

    def __init__(self, kind="philox", seed=0, device=None, stream=None, ordering="default", offset=0, dimensions=1):
        self._g = _native.Generator(kind, seed, device, stream, ordering, offset, dimensions)
        self.device = self._g.device

    @property
    def kind(self) -> str:
        return self._g.name

    def __repr__(self) -> str:
        return repr(self._g)

    def uniform(self, size=None, dtype="float32", out=None) -> Array:
        """Uniform values in (0, 1] (float32, float64 or float16)."""
        dtype = _dtype(dtype)
        fill, result, n = _target(out, size, dtype, self.device)
        if n:
            self._g.fill_uniform(fill._buf, fill._offset, n, _dtype_name(dtype))
        return result

    def random(self, size=None, dtype="float32", out=None) -> Array:
        """NumPy's name for uniform values."""
        return self.uniform(size, dtype, out)

    def _normal(self, loc, scale, size, dtype, out, log):
        dtype = _dtype(dtype)
        if out is not None:
            fill, result, n = _target(out, size, dtype, self.device)
        else:
            # Values come in Box-Muller pairs: generate an even count, return the first n.
            fill, result, n = _target(None, size, dtype, self.device, min_count=lambda k: k + (k & 1))
            n = fill.size
        if n:
            self._g.fill_normal(fill._buf, fill._offset, n, _dtype_name(dtype), float(loc), float(scale), log)
        return result

    def normal(self, loc=0.0, scale=1.0, size=None, dtype="float32", out=None) -> Array:
        """Normal values with mean ``loc`` and standard deviation ``scale``."""
        return self._normal(loc, scale, size, dtype, out, False)

    def standard_normal(self, size=None, dtype="float32", out=None) -> Array:
        return self._normal(0.0, 1.0, size, dtype, out, False)

    def lognormal(self, mean=0.0, sigma=1.0, size=None, dtype="float32", out=None) -> Array:
        """exp of normal values of mean ``mean`` and standard deviation ``sigma``."""
        return self._normal(mean, sigma, size, dtype, out, True)

    def poisson(self, lam=1.0, size=None, out=None) -> Array:
        """Poisson values of mean ``lam`` (uint32, cuRAND's host-API method)."""
        fill, result, n = _target(out, size, np.dtype(np.uint32), self.device)
        if n:
            self._g.fill_poisson(fill._buf, fill._offset, n, float(lam))
        return result

    def integers_raw(self, size=None, dtype="uint32", out=None) -> Array:
        """The generator's raw output words (uint32; uint64 for sobol64)."""
        dtype = _dtype(dtype)
        fill, result, n = _target(out, size, dtype, self.device)
        if n:
            self._g.fill_integers(fill._buf, fill._offset, n, _dtype_name(dtype))
        return result


def default_rng(seed=0, device=None) -> Generator:
    """A Philox generator, as NumPy's ``default_rng`` (a different algorithm from NumPy's)."""
    return Generator("philox", seed, device)
