"""Type stubs of ferrocm's native module (the Rust half of the package)."""

from typing import Any


__version__: str

class Error(Exception):
    """Base class of ferrocm's own exceptions."""

class DeviceError(Error):
    """A device, its driver or a kernel failed."""

class CommError(Error):
    """A collective failed (a rank died or timed out, ranks disagreed, a transport broke)."""

class Device:
    """A compute device: a GPU, or a CPU device of ferrocm's embedded backend."""

    @property
    def index(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def is_gpu(self) -> bool: ...
    @property
    def ordinal(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def arch(self) -> str: ...
    @property
    def target(self) -> str: ...
    @property
    def compute_capability(self) -> tuple[int, int]: ...
    @property
    def compute_units(self) -> int: ...
    @property
    def warp_size(self) -> int: ...
    @property
    def max_threads_per_block(self) -> int: ...
    @property
    def shared_mem_per_block(self) -> int: ...
    @property
    def l2_cache_bytes(self) -> int: ...
    @property
    def total_memory(self) -> int: ...
    @property
    def pci_bus_id(self) -> str: ...
    @property
    def uuid(self) -> str: ...
    def memory_info(self) -> tuple[int, int]:
        """(free, total) memory in bytes."""
    def synchronize(self) -> None:
        """Waits for all work on the device (the GIL is released meanwhile)."""
    def create_stream(self, priority: int = 0, non_blocking: bool = True) -> Stream: ...
    def default_stream(self) -> Stream: ...

class Stream:
    """An in-order queue of device work; ``with stream:`` makes it current on this thread."""

    @property
    def device(self) -> Device: ...
    @property
    def native_handle(self) -> int | None:
        """The CUstream as an integer on a GPU, None on the CPU."""
    def synchronize(self) -> None: ...
    def query(self) -> bool: ...
    def wait_event(self, event: Event) -> None: ...
    def record_event(self) -> Event: ...
    def __enter__(self) -> Stream: ...
    def __exit__(self, *args: Any) -> bool: ...

class Event:
    """A marker in a stream: wait for it, or time the work between two."""

    def __init__(self, device: Device | int | None = None, timing: bool = True) -> None: ...
    def record(self, stream: Stream | None = None) -> None: ...
    def synchronize(self) -> None: ...
    def query(self) -> bool: ...
    def elapsed_time(self, end: Event) -> float:
        """Milliseconds from this event to ``end``."""

class Buffer:
    """A range of device memory (bytes), owned by ferrocm or borrowed through DLPack."""

    @staticmethod
    def alloc(nbytes: int, device: Device | int | None = None, stream: Stream | None = None) -> Buffer: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def ptr(self) -> int: ...
    @property
    def device(self) -> Device: ...
    @property
    def readonly(self) -> bool: ...
    @property
    def borrowed(self) -> bool: ...
    def write(self, offset: int, data: Any, stream: Stream | None = None) -> None: ...
    def read(self, offset: int, out: Any, stream: Stream | None = None) -> None: ...
    def fill(self, value: int, offset: int, nbytes: int, stream: Stream | None = None) -> None: ...
    def copy_from(self, offset: int, src: Buffer, src_offset: int, nbytes: int, stream: Stream | None = None) -> None: ...
    def to_dlpack(
        self, owner: Any, byte_offset: int, shape: list[int], strides: list[int], dtype: tuple[int, int, int], versioned: bool = False
    ) -> Any: ...

class Generator:
    def __init__(
        self,
        name: str = "philox",
        seed: int = 0,
        device: Device | int | None = None,
        stream: Stream | None = None,
        ordering: str = "default",
        offset: int = 0,
        dimensions: int = 1,
    ) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def device(self) -> Device: ...
    def fill_uniform(self, buf: Buffer, offset: int, count: int, dtype: str) -> None: ...
    def fill_normal(self, buf: Buffer, offset: int, count: int, dtype: str, mean: float, stddev: float, log: bool) -> None: ...
    def fill_poisson(self, buf: Buffer, offset: int, count: int, lam: float) -> None: ...
    def fill_integers(self, buf: Buffer, offset: int, count: int, dtype: str) -> None: ...

def devices() -> list[Device]: ...
def default_device() -> Device: ...
def info_json() -> str: ...
def current_stream(device: Device | int | None = None) -> Stream: ...
def push_stream(stream: Stream) -> None: ...
def pop_stream(stream: Stream) -> None: ...
def import_capsule(capsule: Any) -> tuple[Buffer, list[int], list[int], tuple[int, int, int], int]: ...
def hipify(source: str, **options: bool) -> tuple[str, dict[str, Any]]: ...

def fft_exec(
    kind: str,
    precision: str,
    n: list[int],
    outer: int,
    inner: int,
    src: Buffer,
    src_offset: int,
    dst: Buffer,
    dst_offset: int,
    inverse: bool,
    scale: float,
    stream: Stream | None = None,
) -> None:
    """Queues ``outer`` packed transforms (or one block of ``inner`` interleaved ones) of
    sizes ``n`` and kind "c2c", "r2c" or "c2r" in precision "float32"/"float64" from ``src``
    to ``dst`` (byte offsets), then scales the output by ``scale``. ferrocm.fft's engine. A
    C2C transform whose ``src`` and ``dst`` regions start at one address runs in place."""

def gemm_exec(
    dtype: str,
    ops: tuple[str, str],
    mnk: tuple[int, int, int],
    alpha: tuple[float, float],
    a: Buffer,
    a_span: tuple[int, int],
    lda: int,
    stride_a: int,
    b: Buffer,
    b_span: tuple[int, int],
    ldb: int,
    stride_b: int,
    beta: tuple[float, float],
    c: Buffer,
    c_span: tuple[int, int],
    ldc: int,
    stride_c: int,
    batch: int,
    stream: Stream | None = None,
) -> None:
    """Column-major strided-batched GEMM on byte regions (ferrocm.blas's engine)."""

def gemv_exec(
    dtype: str,
    op: str,
    mn: tuple[int, int],
    alpha: tuple[float, float],
    a: Buffer,
    a_span: tuple[int, int],
    lda: int,
    x: Buffer,
    x_span: tuple[int, int],
    incx: int,
    beta: tuple[float, float],
    y: Buffer,
    y_span: tuple[int, int],
    incy: int,
    stream: Stream | None = None,
) -> None:
    """Column-major GEMV on byte regions (ferrocm.blas's engine)."""

def unique_id_new() -> bytes:
    """A new CCL unique id (its bootstrap root listens in this process), as bytes."""

def unique_id_root(data: bytes) -> str:
    """Validates a unique id's bytes (ValueError if malformed); returns its root host:port."""

class Communicator:
    """One rank of a ferrocm-ccl communicator."""

    @staticmethod
    def init_rank(uid: bytes, nranks: int, rank: int, device: Device | int | None = None) -> Communicator: ...
    @staticmethod
    def from_env() -> Communicator: ...
    @staticmethod
    def init_all(devices: list[Device | int]) -> list[Communicator]:
        """One communicator per device, every rank in this process (``ncclCommInitAll``)."""
    def split(self, color: int | None, key: int) -> Communicator | None:
        """``ncclCommSplit``: ranks of one color form a communicator ordered by key; None
        (no color) takes part and gets None. Blocks without the GIL until every rank calls."""
    @staticmethod
    def split_all(comms: list[Communicator], colors: list[int | None], keys: list[int]) -> list[Communicator | None]:
        """``split`` of every rank of ``comms`` (driven by this thread) at once."""
    @property
    def rank(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def device(self) -> Device: ...
    @property
    def destroyed(self) -> bool: ...
    def run(
        self,
        kind: str,
        dtype: str,
        send: tuple[Buffer, int, int] | None,
        recv: tuple[Buffer, int, int],
        op: str = "sum",
        root: int = 0,
        stream: Stream | None = None,
    ) -> None:
        """Runs collective ``kind`` (all_reduce, broadcast, reduce, all_gather, reduce_scatter,
        all_to_all, send, recv) from ``send`` (or in place) into ``recv`` byte regions."""
    def abort(self) -> None: ...
    def destroy(self) -> None: ...

def ccl_group(
    calls: list[
        tuple[Communicator, str, str, tuple[Buffer, int, int] | None, tuple[Buffer, int, int], str, int, Stream | None]
    ],
) -> None:
    """Launches recorded calls (communicator, kind, dtype, send region or None, the other region,
    op, root or peer, stream) as one group (``ncclGroupStart``/``ncclGroupEnd``). For ``send``
    the other region is read, for every other kind written. Checks every call, and that no
    region written overlaps another region of the group, before launching anything."""

def copy_exec(
    dtype: str,
    n: int,
    x: Buffer,
    x_span: tuple[int, int],
    incx: int,
    y: Buffer,
    y_span: tuple[int, int],
    incy: int,
    stream: Stream | None = None,
) -> None:
    """BLAS ``copy`` between byte regions of two buffers of one device (strided device copies)."""
