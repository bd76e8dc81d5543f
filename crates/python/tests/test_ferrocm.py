"""The Python package on every device present: the CPU device everywhere, GPUs where present
(FERROCM_REQUIRE_GPU=1 makes a missing GPU a failure). NumPy is the reference and the DLPack
partner; PyTorch and CuPy are checked on GPU machines (test_interop_gpu.py)."""

import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import ferrocm
import ferrocm.random

DTYPES = [
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128,
]


def _devices():
    devs = ferrocm.devices()
    gpus = [d for d in devs if d.is_gpu]
    if os.environ.get("FERROCM_REQUIRE_GPU") == "1":
        assert gpus, "FERROCM_REQUIRE_GPU=1 but ferrocm sees no GPU"
    return devs


DEVICES = _devices()


@pytest.fixture(params=DEVICES, ids=lambda d: f"{d.kind}{d.index}")
def device(request):
    return request.param


def rand(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        x = rng.random(shape) < 0.5
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    elif dtype.kind == "c":
        x = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    else:
        x = rng.standard_normal(shape)
    return np.asarray(x, dtype=dtype)


# ---- devices, streams, events, info --------------------------------------------------------


def test_devices_and_properties():
    devs = ferrocm.devices()
    assert devs and [d.index for d in devs] == list(range(len(devs)))
    assert any(d.kind == "cpu" for d in devs)
    d = ferrocm.default_device()
    assert d.is_gpu == any(x.is_gpu for x in devs)
    for d in devs:
        assert d.warp_size == 32 and d.total_memory > 0 and d.compute_units >= 1
        free, total = d.memory_info()
        assert 0 <= free <= total
        assert repr(d).startswith("<ferrocm.Device")
    assert len({d for d in devs}) == len(devs)


def test_info_matches_the_cli():
    info = ferrocm.info()
    assert info["runtime_version"] == ferrocm.__version__
    assert [d["index"] for d in info["devices"]] == [d.index for d in ferrocm.devices()]
    cli = os.environ.get("FERROCM_CLI")
    if cli:
        out = json.loads(subprocess.run([cli, "info", "--json"], check=True, capture_output=True).stdout)
        assert [d["uuid"] for d in out["devices"]] == [d["uuid"] for d in info["devices"]]


def test_streams_events_and_the_current_stream(device):
    s = device.create_stream()
    assert ferrocm.current_stream(device) == device.default_stream()
    with s:
        assert ferrocm.current_stream(device) == s
        a = ferrocm.zeros(1024, device=device)
        a[:] = 3.0
    assert ferrocm.current_stream(device) == device.default_stream()
    e0, e1 = ferrocm.Event(device), ferrocm.Event(device)
    e0.record(s)
    b = ferrocm.ones(1 << 16, device=device, stream=s)
    e1.record(s)
    e1.synchronize()
    assert e0.query() and e1.query() and s.query()
    assert e0.elapsed_time(e1) >= 0.0
    assert np.all(b.numpy() == 1.0) and np.all(a.numpy() == 3.0)
    assert (s.native_handle is not None) == device.is_gpu


# ---- arrays: round trips, views, assignment ------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (3, 5), (2, 3, 4), (0, 3), (1000, 13)])
def test_round_trip_every_dtype_and_shape(device, dtype, shape):
    rng = np.random.default_rng(abs(hash((np.dtype(dtype).name, shape))) % 2**32)
    host = rand(rng, shape, dtype)
    a = ferrocm.asarray(host, device=device)
    assert a.shape == host.shape and a.dtype == host.dtype and a.device == device
    assert a.strides == host.strides and a.nbytes == host.nbytes
    np.testing.assert_array_equal(a.numpy(), host)
    np.testing.assert_array_equal(np.asarray(a), host)


KEYS = [
    np.s_[:], np.s_[1:], np.s_[::2], np.s_[::-1], np.s_[3], np.s_[-1], np.s_[2:9:3],
    np.s_[:, 1], np.s_[1, :], np.s_[..., 2], np.s_[None, 1:3], np.s_[::-2, ::3], np.s_[4:4],
    np.s_[1:5, None, ::-1], np.s_[..., None],
]


@pytest.mark.parametrize("key", KEYS, ids=str)
def test_views_index_like_numpy(device, key):
    host = np.arange(10 * 7, dtype=np.float32).reshape(10, 7)
    a = ferrocm.asarray(host, device=device)
    v = a[key]
    np.testing.assert_array_equal(v.numpy(), host[key])
    assert v.shape == host[key].shape
    # Writing through a view changes the base, as in NumPy.
    expect = host.copy()
    expect[key] = -1.0
    v[...] = -1.0
    np.testing.assert_array_equal(a.numpy(), expect)


def test_strided_and_broadcast_assignment(device):
    host = np.zeros((6, 8), np.int32)
    a = ferrocm.zeros((6, 8), np.int32, device=device)
    a[::2, 1::3] = np.arange(3, dtype=np.int32)
    host[::2, 1::3] = np.arange(3, dtype=np.int32)
    a[5] = 9
    host[5] = 9
    np.testing.assert_array_equal(a.numpy(), host)
    b = ferrocm.empty((6, 8), np.int32, device=device)
    b[...] = a
    np.testing.assert_array_equal(b.numpy(), host)
    c = a.copy()
    a.fill(0)
    np.testing.assert_array_equal(c.numpy(), host)
    assert not a.numpy().any()
    f = ferrocm.full((3, 3), 2.5, "float64", device=device)
    np.testing.assert_array_equal(f.numpy(), np.full((3, 3), 2.5))
    assert f.reshape(9).shape == (9,) and f.reshape(-1, 3).shape == (3, 3)
    with pytest.raises(ValueError, match="C-contiguous"):
        a[:, ::2].reshape(-1)


# ---- zero-copy exchange with NumPy ---------------------------------------------------------


def cpu_device():
    return next(d for d in ferrocm.devices() if not d.is_gpu)


def test_numpy_to_ferrocm_without_a_copy():
    host = np.arange(16, dtype=np.float64)
    a = ferrocm.asarray(host, device=cpu_device())
    assert a.borrowed and a.ptr == host.ctypes.data
    a[3] = 100.0  # written through ferrocm, read through NumPy
    assert host[3] == 100.0
    host[4] = -7.0  # and the other way
    assert a[4].item() == -7.0
    # A dtype change or copy=True copies.
    assert not ferrocm.asarray(host, dtype="float32", device=cpu_device()).borrowed
    assert ferrocm.asarray(host, device=cpu_device(), copy=True).ptr != host.ctypes.data


def test_ferrocm_to_numpy_without_a_copy():
    a = ferrocm.asarray(np.arange(12, dtype=np.int64).reshape(3, 4), device=cpu_device())
    n = np.from_dlpack(a)
    assert n.ctypes.data == a.ptr and n.flags.writeable
    n[1, 2] = 77
    assert a[1, 2].item() == 77
    # Views export with their strides; the exporter stays alive while NumPy holds the view.
    v = a[:, ::-2]
    nv = np.from_dlpack(v)
    del a, v
    np.testing.assert_array_equal(nv, np.array([[3, 1], [7, 5], [11, 9]]))


def test_read_only_arrays_stay_read_only():
    host = np.arange(4.0)
    host.flags.writeable = False
    a = ferrocm.asarray(host, device=cpu_device())
    assert a.readonly
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 1.0
    frozen = np.zeros(4, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ferrocm.random.Generator(device=cpu_device()).uniform(out=frozen)
    assert not frozen.any()
    assert host[0] == 0.0


def test_from_dlpack_keeps_the_producer_alive():
    host = np.arange(1 << 20, dtype=np.float32)
    a = ferrocm.from_dlpack(host)
    ptr = host.ctypes.data
    del host
    assert a.ptr == ptr and a[-1].item() == float((1 << 20) - 1)


# ---- RAND ----------------------------------------------------------------------------------

# cuRAND's host API, Philox4x32-10, seed 1234, offset 0, legacy ordering (recorded from the real
# library on the GPU machine: crates/rand/tests/data/curand_host_vectors.txt).
CURAND_PHILOX_U32 = [546353992, 3665621163, 1140953199, 3419031310, 3507855656, 1392278645, 3354607383, 253049307]
CURAND_PHILOX_UNIFORM_BITS = [1040335565, 1062894833, 1049101089, 1061931591, 1062278561, 1051064569, 1061679935, 1030837150]
CURAND_PHILOX_POISSON_4 = [7, 2, 5, 2, 2, 5, 3, 9]


def test_legacy_ordering_reproduces_curand(device):
    g = ferrocm.random.Generator("philox", seed=1234, device=device, ordering="legacy")
    assert g.integers_raw(8).numpy().tolist() == CURAND_PHILOX_U32
    g = ferrocm.random.Generator("philox", seed=1234, device=device, ordering="legacy")
    assert g.uniform(8).numpy().view(np.uint32).tolist() == CURAND_PHILOX_UNIFORM_BITS
    g = ferrocm.random.Generator("philox", seed=1234, device=device, ordering="legacy")
    assert g.poisson(4.0, size=8).numpy().tolist() == CURAND_PHILOX_POISSON_4


@pytest.mark.parametrize(
    "kind", ["philox", "xorwow", "mrg32k3a", "lfsr113", "threefry2x32_20", "threefry4x32_20", "threefry2x64_20",
             "threefry4x64_20"]
)
def test_distributions_against_numpy_statistics(device, kind):
    g = ferrocm.random.Generator(kind, seed=42, device=device)
    n = 1 << 18
    u = g.uniform(n).numpy()
    assert u.dtype == np.float32 and u.min() > 0.0 and u.max() <= 1.0
    assert abs(u.mean() - 0.5) < 4e-3 and abs(u.var() - 1 / 12) < 2e-3
    z = g.normal(loc=2.0, scale=3.0, size=(512, 513), dtype="float64").numpy()
    assert z.shape == (512, 513) and z.dtype == np.float64
    ref = np.random.default_rng(0).normal(2.0, 3.0, size=z.size)
    assert abs(z.mean() - ref.mean()) < 0.05 and abs(z.std() - ref.std()) < 0.05
    p = g.poisson(7.5, size=n).numpy()
    assert p.dtype == np.uint32 and abs(p.mean() - 7.5) < 0.05 and abs(p.var() - 7.5) < 0.15
    ln = g.lognormal(0.0, 0.5, size=1001).numpy()
    assert ln.shape == (1001,) and (ln > 0).all()


def test_mtgp32_gives_every_distribution(device):
    g = ferrocm.random.Generator("MTGP32", seed=42, device=device)
    u = g.uniform(1 << 18).numpy()
    assert u.min() > 0.0 and u.max() <= 1.0 and abs(u.mean() - 0.5) < 4e-3 and abs(u.var() - 1 / 12) < 2e-3
    w = g.integers_raw(1 << 16).numpy()
    assert w.dtype == np.uint32 and abs(w.astype(np.float64).mean() / 2**32 - 0.5) < 1e-2
    # Odd lengths too (cuRAND's MTGP32 normals are one inverse-CDF value each, not pairs).
    z = g.normal(loc=2.0, scale=3.0, size=(1 << 16) + 1, dtype="float64").numpy()
    assert abs(z.mean() - 2.0) < 0.05 and abs(z.std() - 3.0) < 0.05
    p = g.poisson(40.0, size=1 << 16).numpy()
    assert abs(p.mean() - 40.0) < 0.2 and abs(p.var() - 40.0) < 1.5


def test_mt19937_gives_uniforms(device):
    g = ferrocm.random.Generator("mt19937", seed=5489, device=device)
    u = g.uniform(1 << 16).numpy()
    assert u.min() > 0.0 and u.max() <= 1.0 and abs(u.mean() - 0.5) < 1e-2


def test_unknown_generator_names_the_choices():
    with pytest.raises(ValueError, match="threefry4x64_20"):
        ferrocm.random.Generator("mt19938", device=cpu_device())


def test_generators_are_reproducible_and_write_in_place(device):
    a = ferrocm.random.Generator("philox", seed=7, device=device).normal(size=1000).numpy()
    b = ferrocm.random.Generator("philox", seed=7, device=device).normal(size=1000).numpy()
    c = ferrocm.random.Generator("philox", seed=8, device=device).normal(size=1000).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    out = ferrocm.zeros((10, 10), device=device)
    r = ferrocm.random.Generator(seed=3, device=device).uniform(out=out)
    assert r is out and (out.numpy() > 0).all()


def test_random_fills_a_numpy_array_in_place():
    host = np.zeros(4096, np.float32)
    ferrocm.random.Generator("xorwow", seed=5, device=cpu_device()).normal(out=host)
    assert host.std() > 0.9 and abs(host.mean()) < 0.1


# ---- errors --------------------------------------------------------------------------------


def test_bad_arguments_are_value_errors(device):
    with pytest.raises(ValueError, match="negative"):
        ferrocm.empty((-1, 3), device=device)
    with pytest.raises(ValueError, match="not supported"):
        ferrocm.empty(3, dtype="U4", device=device)
    a = ferrocm.zeros((4, 4), device=device)
    with pytest.raises(IndexError, match="out of bounds"):
        a[4]
    with pytest.raises(IndexError, match="too many indices"):
        a[0, 0, 0]
    with pytest.raises(IndexError, match="advanced indexing"):
        a[[0, 1]]
    with pytest.raises(ValueError, match="unknown generator"):
        ferrocm.random.Generator("mersenne", device=device)
    with pytest.raises(ValueError, match="lambda"):
        ferrocm.random.Generator(device=device).poisson(-1.0, size=4)
    with pytest.raises(ValueError, match="even"):
        ferrocm.random.Generator(device=device).normal(out=ferrocm.zeros(3, device=device))
    with pytest.raises(ValueError, match="dtype"):
        ferrocm.random.Generator(device=device).uniform(out=ferrocm.zeros(4, "int32", device=device))
    with pytest.raises(ValueError, match="invalid device index"):
        ferrocm.zeros(1, device=10_000)


def test_exhausted_memory_is_a_memory_error(device):
    with pytest.raises(MemoryError):
        ferrocm.empty(device.total_memory + 1, "uint8", device=device)


def test_device_errors_are_ferrocm_errors():
    assert issubclass(ferrocm.DeviceError, ferrocm.Error) and issubclass(ferrocm.Error, Exception)


# ---- hipify --------------------------------------------------------------------------------


def test_hipify_translates_and_counts():
    src = "#include <cuda_runtime.h>\n__global__ void k(float* x) {}\nint main() { float* p; cudaMalloc(&p, 4); k<<<1, 1>>>(p); cudaFree(p); }\n"
    out = ferrocm.hipify(src)
    assert "hipMalloc" in out and "hipFree" in out and "cudaMalloc" not in out
    text, stats = ferrocm.hipify(src, stats=True, hip_kernel_execution_syntax=True)
    assert "hipLaunchKernelGGL" in text and stats["converted"] >= 3 and stats["kernel_launches"] == 1
    assert ferrocm.hipify("int x = 1;\n") == "int x = 1;\n"
    with pytest.raises(TypeError, match="unknown hipify option"):
        ferrocm.hipify(src, no_such_option=True)


# ---- the GIL --------------------------------------------------------------------------------


def test_waiting_for_a_device_releases_the_gil(device):
    g = ferrocm.random.Generator(seed=1, device=device)
    big = ferrocm.empty(1 << 22, device=device)
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)

    t = threading.Thread(target=count)
    t.start()
    for _ in range(4):
        g.uniform(out=big)
        device.synchronize()
    stop.set()
    t.join()
    assert ticks, "the other Python thread never ran while the device worked"


def test_imports_without_a_gpu():
    env = dict(os.environ, FERROCM_BACKEND="cpu")
    code = "import ferrocm; print(all(not d.is_gpu for d in ferrocm.devices()))"
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "True"
