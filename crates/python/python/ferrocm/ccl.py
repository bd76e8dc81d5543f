"""ferrocm.ccl: collective communication between processes (NCCL/RCCL's role) on ferrocm arrays.

A :class:`Communicator` is one rank of a group, on one device. Make it from a launcher's
environment (``Communicator.from_env()``: torchrun, mpirun or srun variables), or from a
:class:`UniqueId` made by one rank and shared with the others (``init_rank``)::

    import ferrocm, ferrocm.ccl as ccl
    with ccl.Communicator.from_env() as comm:          # torchrun --nproc-per-node 4 script.py
        x = ferrocm.ones(1024, device=comm.device)
        comm.all_reduce(x, out=x, op="sum")            # in place

Collectives take ferrocm Arrays or any DLPack array on the communicator's device (viewed in
place), C-contiguous. Without ``out`` the result is a new array; ``out=x`` (the input itself)
runs in place. Reduction operators: ``"sum"``, ``"prod"``, ``"min"``, ``"max"``, ``"avg"``.
Types: int8, uint8, int32, uint32, int64, uint64, float16, float32, float64 (bool for the
operations that move data without reducing; complex64/complex128 for everything but
prod/min/max, as pairs of reals).

One process may also drive several ranks (NCCL's single-process, multi-device use):
:func:`init_all` makes one communicator per device, and a :func:`group` block fuses the calls
issued inside it into one launch, so one thread can drive every rank::

    comms = ccl.init_all([0, 1])                       # ranks 0 and 1 on devices 0 and 1
    streams = [c.device.create_stream() for c in comms]
    with ccl.group():
        for c, s, x in zip(comms, streams, xs):
            c.all_reduce(x, out=x, stream=s)

:meth:`Communicator.split` (``ncclCommSplit``) makes sub-communicators by color and key.

Operations are queued on ``stream=`` when given, else on the device's current stream (the GIL
is released while a call waits for its peers). Ranks driven by threads of one process on one
device need a stream each (``with device.create_stream():``): two ranks' collectives on one
stream wait for each other forever, as in NCCL. Errors: ``ValueError`` for bad arguments (shapes, dtypes, ranks, operators),
:class:`ferrocm.CommError` when the group fails (a rank died or timed out, ranks called
different things, a transport broke): the communicator is unusable afterwards on every rank.
"""

from __future__ import annotations

import operator
import threading

import numpy as np

from . import _native
from ._array import Array, empty, from_dlpack
from ._native import CommError

__all__ = ["CommError", "Communicator", "UniqueId", "group", "init_all", "init_rank"]

_OPS = ("sum", "prod", "min", "max", "avg")
_TYPES = {
    np.dtype(t): np.dtype(t).name
    for t in (np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64, np.float16, np.float32, np.float64)
}


class UniqueId:
    """Identifies one communicator being made: rank 0 creates it (which starts its bootstrap
    root in that process) and passes ``bytes(uid)`` to the other ranks, which rebuild it with
    ``UniqueId(data)``."""

    __slots__ = ("_data",)

    def __init__(self, data: bytes | None = None):
        if data is None:
            self._data = bytes(_native.unique_id_new())
        else:
            data = bytes(data)
            _native.unique_id_root(data)  # validates: ValueError naming what is wrong
            self._data = data

    def __bytes__(self) -> bytes:
        return self._data

    @classmethod
    def from_bytes(cls, data: bytes) -> UniqueId:
        return cls(data)

    @property
    def root(self) -> str:
        """The bootstrap root's address, ``host:port``."""
        return _native.unique_id_root(self._data)

    def __eq__(self, other) -> bool:
        return isinstance(other, UniqueId) and other._data == self._data

    def __hash__(self) -> int:
        return hash(self._data)

    def __repr__(self) -> str:
        return f"ferrocm.ccl.UniqueId(root={self.root})"


def _wire(x: Array, op: str | None) -> tuple[str, int]:
    """(CCL dtype name, elements per array element) for ``x``'s dtype."""
    d = x.dtype
    if d in _TYPES:
        return _TYPES[d], 1
    if d.kind == "c":
        if op in ("prod", "min", "max"):
            raise ValueError(f"op {op!r} is not defined for complex arrays ({d}); sum and avg are")
        return ("float32" if d == np.complex64 else "float64"), 2
    if d == np.bool_ and op is None:
        return "uint8", 1
    raise ValueError(
        f"dtype {d} is not supported by ferrocm.ccl"
        + (" for reductions" if d == np.bool_ else "")
        + f"; use one of {', '.join(sorted(_TYPES.values()))}"
    )


def _region(x: Array) -> tuple:
    return (x._buf, x._offset, x.nbytes)


def _same_memory(a: Array, b: Array) -> bool:
    return a._buf.ptr + a._offset == b._buf.ptr + b._offset and a.nbytes == b.nbytes


def _check_disjoint(x: Array, out: Array) -> None:
    """Out of place, the input and the output must not overlap (in place, they are one array)."""
    if x._overlaps(out):
        raise ValueError("out overlaps the input without being it: pass out=x for in place, or a separate array")


def _color(color):
    if color is None:
        return None
    c = operator.index(color)
    if not 0 <= c < 2**31:
        raise ValueError(f"color {c} is not allowed: pass an integer in 0..2**31-1, or None for no communicator")
    return c


def _key(key):
    k = operator.index(key)
    if not -(2**31) <= k < 2**31:
        raise ValueError(f"key {k} does not fit a 32-bit signed integer")
    return k


def _wrap(native):
    return None if native is None else Communicator(native)


_local = threading.local()


def _group_calls():
    """The calls recorded by the innermost open :func:`group` on this thread, or None."""
    return getattr(_local, "calls", None)


class group:
    """Fuses the collectives issued inside a ``with`` block into one launch (NCCL's
    ``ncclGroupStart``/``ncclGroupEnd``, ``torch.distributed``'s ``batch_isend_irecv``)::

        with ccl.group():                      # one thread driving every rank of init_all
            for comm, s, x in zip(comms, streams, xs):
                comm.all_reduce(x, out=x, stream=s)

    Calls inside the block are checked (shapes, dtypes, devices, operators raise at once) and
    recorded; nothing runs until the block ends, so results returned inside the block (``out``
    arrays, new arrays) hold their values only after it. At the end the whole group is
    launched: sends and receives of the group progress together (any pattern of matching calls
    completes, e.g. every rank sending to and receiving from every other), the calls of one
    communicator become one launch on its stream, and one thread may drive several ranks of
    :func:`init_all` (each rank needs a stream of its own when ranks share a device). Groups
    nest: only the outermost launches. If the block raises, nothing is launched. The launch
    checks that no region written by one call overlaps a region another call reads or writes
    (``ValueError``, nothing launched); regions read may be shared. A call's stream is the one
    passed as ``stream=``, else the current stream when the call was made. A group belongs to
    the thread that opened it: calls made on other threads meanwhile run at once, as outside a
    group.
    """

    def __enter__(self) -> group:
        depth = getattr(_local, "depth", 0)
        if depth == 0:
            _local.calls = []
        _local.depth = depth + 1
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        _local.depth -= 1
        if _local.depth == 0:
            calls, _local.calls = _local.calls, None
            if exc_type is None and calls:
                _native.ccl_group(calls)
        return False


class Communicator:
    """One rank of a communicator. Use ``Communicator.from_env()`` or :func:`init_rank`; a
    ``with`` block destroys it at the end."""

    def __init__(self, native):
        self._c = native

    @classmethod
    def from_env(cls) -> Communicator:
        """Joins the job's communicator from the launcher's variables, as ferrocm-ccl reads them:
        torchrun's ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``MASTER_ADDR``/``MASTER_PORT``
        (the bootstrap root listens on ``MASTER_PORT + 1``), mpirun's ``OMPI_COMM_WORLD_*``, srun's
        ``SLURM_*``; ``FERROCM_CCL_ROOT=host:port`` overrides the root. The device is GPU
        ``LOCAL_RANK`` (modulo the GPUs), else a CPU device. Blocks until every rank has
        joined (``FERROCM_CCL_TIMEOUT`` seconds at most)."""
        return cls(_native.Communicator.from_env())

    @classmethod
    def init_all(cls, devices) -> list[Communicator]:
        """One communicator per device, every rank in this process (NCCL's ``ncclCommInitAll``,
        ``cupy.cuda.nccl.NcclCommunicator.initAll``): rank ``i`` runs on ``devices[i]`` (a
        :class:`ferrocm.Device` or an index; one device may appear several times). Returns the
        ranks in order. Drive them from one thread with :func:`group`, or from a thread each;
        ranks sharing a device need a stream each."""
        devices = list(devices)
        if not devices:
            raise ValueError("init_all needs at least one device, got an empty list")
        return [cls(c) for c in _native.Communicator.init_all(devices)]

    def split(self, color, key=None) -> Communicator | None:
        """Splits the communicator (NCCL's ``ncclCommSplit``): every rank calls it; ranks with the
        same ``color`` (an integer ``>= 0``) form a new communicator, numbered by ``key``
        (default: this rank; ties by rank). ``color=None`` is ``NCCL_SPLIT_NOCOLOR``: the rank
        takes part but gets no communicator, and None is returned. Blocks until every rank has
        called it; ranks of :func:`init_all` driven by one thread use :meth:`split_all`."""
        return _wrap(self._c.split(_color(color), _key(self.rank if key is None else key)))

    @staticmethod
    def split_all(comms, colors, keys=None) -> list[Communicator | None]:
        """:meth:`split` of every rank of ``comms`` (the ranks of one communicator this thread
        drives, e.g. from :func:`init_all`) at once: ``colors[i]`` and ``keys[i]`` are
        ``comms[i]``'s (``keys`` default: each rank's number)."""
        comms = list(comms)
        for c in comms:
            if not isinstance(c, Communicator):
                raise ValueError(f"split_all takes Communicators, not {type(c).__name__}")
        colors = [_color(c) for c in colors]
        keys = [c.rank for c in comms] if keys is None else [_key(k) for k in keys]
        return [_wrap(c) for c in _native.Communicator.split_all([c._c for c in comms], colors, keys)]

    @property
    def rank(self) -> int:
        return self._c.rank

    @property
    def size(self) -> int:
        return self._c.size

    @property
    def device(self):
        return self._c.device

    # ---- helpers --------------------------------------------------------------------------
    def _array(self, x, name: str) -> Array:
        a = x if isinstance(x, Array) else from_dlpack(x) if hasattr(x, "__dlpack__") else None
        if a is None:
            raise ValueError(f"{name} must be a ferrocm Array or a DLPack array, not {type(x).__name__}")
        if a.device != self.device:
            raise ValueError(
                f"{name} is on device {a.device.index}, the communicator's rank runs on device {self.device.index}"
            )
        if not a.is_c_contiguous:
            raise ValueError(f"{name} must be C-contiguous (call .copy() first)")
        return a

    def _out(self, out, shape, dtype) -> tuple[Array, object]:
        if out is None:
            a = empty(shape, dtype, device=self.device)
            return a, a
        a = self._array(out, "out")
        if a.dtype != dtype:
            raise ValueError(f"out has dtype {a.dtype}, the input {dtype}: they must match")
        if a.shape != tuple(shape) and a.size != int(np.prod(shape)):
            raise ValueError(f"out has shape {a.shape}; this operation writes {tuple(shape)}")
        return a, out

    def _op(self, op: str) -> str:
        if op not in _OPS:
            raise ValueError(f"op {op!r} is not one of {', '.join(repr(o) for o in _OPS)}")
        return op

    def _root(self, root, what="root") -> int:
        root = operator.index(root)
        if not 0 <= root < self.size:
            raise ValueError(f"{what} {root} is not a rank of this communicator (0..{self.size - 1})")
        return root

    def _blocks(self, n: int, name: str) -> int:
        if n % self.size:
            raise ValueError(f"{name} has {n} rows along axis 0, not a multiple of the {self.size} ranks")
        return n // self.size

    def _run(self, kind, x, out, op=None, root=0, stream=None):
        wire, _ = _wire(x, op)
        if out is not None:
            _check_disjoint(x, out)
        send = None if out is None else _region(x)
        target = x if out is None else out
        self._launch(kind, wire, send, _region(target), op or "sum", root, stream)

    def _launch(self, kind, wire, send, other, op="sum", root=0, stream=None):
        """Runs one call now, or records it for the enclosing :func:`group` on this thread."""
        if stream is not None and not isinstance(stream, _native.Stream):
            raise ValueError(f"stream must be a ferrocm.Stream or None, not {type(stream).__name__}")
        if stream is not None and stream.device != self.device:
            raise ValueError(
                f"stream is on device {stream.device.index}, the communicator's rank runs on device {self.device.index}"
            )
        pending = _group_calls()
        if pending is None:
            self._c.run(kind, wire, send, other, op, root, stream)
            return
        if self._c.destroyed:
            raise ValueError("the communicator has been destroyed")
        pending.append((self._c, kind, wire, send, other, op, root, stream or _native.current_stream(self.device)))

    # ---- collectives ----------------------------------------------------------------------
    def all_reduce(self, x, out=None, op: str = "sum", *, stream=None):
        """Every rank's ``out`` becomes the reduction (``op``) of every rank's ``x``."""
        a, op = self._array(x, "x"), self._op(op)
        o, ret = self._out(out, a.shape, a.dtype)
        self._run("all_reduce", a, None if _same_memory(a, o) else o, op, stream=stream)
        return ret

    def broadcast(self, x, out=None, root: int = 0, *, stream=None):
        """``out`` on every rank becomes root's ``x`` (``x`` is read on the root only)."""
        a, root = self._array(x, "x"), self._root(root)
        o, ret = self._out(out, a.shape, a.dtype)
        self._run("broadcast", a, None if _same_memory(a, o) else o, None, root, stream)
        return ret

    def reduce(self, x, out=None, op: str = "sum", root: int = 0, *, stream=None):
        """Root's ``out`` becomes the reduction of every rank's ``x``; other ranks' ``out`` is
        not written."""
        a, op, root = self._array(x, "x"), self._op(op), self._root(root)
        o, ret = self._out(out, a.shape, a.dtype)
        self._run("reduce", a, None if _same_memory(a, o) else o, op, root, stream)
        return ret

    def all_gather(self, x, out=None, *, stream=None):
        """``out`` (shape ``(size, *x.shape)``) holds every rank's ``x`` in rank order. In place
        when ``x`` is ``out[rank]``."""
        a = self._array(x, "x")
        o, ret = self._out(out, (self.size, *a.shape), a.dtype)
        wire, _ = _wire(a, None)
        own = o._buf.ptr + o._offset + self.rank * a.nbytes == a._buf.ptr + a._offset
        if not own:
            _check_disjoint(a, o)
        self._launch("all_gather", wire, None if own else _region(a), _region(o), stream=stream)
        return ret

    def reduce_scatter(self, x, out=None, op: str = "sum", *, stream=None):
        """Rank ``r``'s ``out`` becomes block ``r`` (along axis 0, ``x.shape[0] // size`` rows)
        of the reduction of every rank's ``x``. In place when ``out`` is block ``rank`` of
        ``x``."""
        a, op = self._array(x, "x"), self._op(op)
        if a.ndim == 0:
            raise ValueError("reduce_scatter needs at least one axis to split")
        rows = self._blocks(a.shape[0], "x")
        o, ret = self._out(out, (rows, *a.shape[1:]), a.dtype)
        wire, _ = _wire(a, op)
        own = a._buf.ptr + a._offset + self.rank * o.nbytes == o._buf.ptr + o._offset
        if not own:
            _check_disjoint(a, o)
        self._launch("reduce_scatter", wire, None if own else _region(a), _region(a if own else o), op, stream=stream)
        return ret

    def all_to_all(self, x, out=None, *, stream=None):
        """Block ``j`` of ``x`` (along axis 0) goes to rank ``j``; block ``j`` of ``out`` comes
        from rank ``j``."""
        a = self._array(x, "x")
        if a.ndim == 0:
            raise ValueError("all_to_all needs at least one axis to split")
        self._blocks(a.shape[0], "x")
        o, ret = self._out(out, a.shape, a.dtype)
        if _same_memory(a, o):
            raise ValueError("all_to_all cannot run in place: pass an out array other than x")
        self._run("all_to_all", a, o, stream=stream)
        return ret

    def send(self, x, peer: int, *, stream=None) -> None:
        """Sends ``x`` to rank ``peer`` (which calls :meth:`recv` with the same shape)."""
        a, peer = self._array(x, "x"), self._root(peer, "peer")
        wire, _ = _wire(a, None)
        self._launch("send", wire, None, _region(a), "sum", peer, stream)

    def recv(self, out, peer: int, *, stream=None):
        """Receives into ``out`` from rank ``peer``; returns ``out``."""
        a, peer = self._array(out, "out"), self._root(peer, "peer")
        wire, _ = _wire(a, None)
        self._launch("recv", wire, None, _region(a), "sum", peer, stream)
        return out

    # ---- lifetime -------------------------------------------------------------------------
    def abort(self) -> None:
        """Fails the communicator on every rank (NCCL's ``ncclCommAbort``): operations in flight
        stop and every later call raises :class:`CommError`, on every rank. Call
        :meth:`destroy` (or leave the ``with`` block) afterwards."""
        self._c.abort()

    def destroy(self) -> None:
        """Leaves the communicator once this rank's queued operations ran; later calls raise
        ``ValueError``."""
        self._c.destroy()

    @property
    def destroyed(self) -> bool:
        return self._c.destroyed

    def __enter__(self) -> Communicator:
        return self

    def __exit__(self, *exc) -> None:
        self.destroy()

    def __repr__(self) -> str:
        return repr(self._c)


def init_all(devices) -> list[Communicator]:
    """:meth:`Communicator.init_all`: one communicator per device, every rank in this process."""
    return Communicator.init_all(devices)


def init_rank(uid: UniqueId | bytes, nranks: int, rank: int, device=None) -> Communicator:
    """Joins the communicator of ``uid`` as ``rank`` of ``nranks`` on ``device`` (default: the
    default device). Every rank calls it; it returns once all have joined."""
    data = bytes(uid)
    return Communicator(_native.Communicator.init_rank(data, nranks, rank, device))
