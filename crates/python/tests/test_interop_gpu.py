"""Zero-copy exchange with PyTorch and CuPy on a GPU, both ways, and ferrocm.random filling their
tensors in place. Runs where a GPU and the libraries are present (the GPU machine); with
FERROCM_REQUIRE_GPU=1 a missing GPU, PyTorch or CuPy fails instead of skipping."""

import os

import numpy as np
import pytest

import ferrocm
import ferrocm.random

REQUIRE = os.environ.get("FERROCM_REQUIRE_GPU") == "1"
GPUS = [d for d in ferrocm.devices() if d.is_gpu]


def need(module):
    try:
        return __import__(module)
    except ImportError:
        if REQUIRE:
            raise
        pytest.skip(f"{module} is not installed")


@pytest.fixture
def gpu():
    if not GPUS:
        if REQUIRE:
            pytest.fail("FERROCM_REQUIRE_GPU=1 but ferrocm sees no GPU")
        pytest.skip("no GPU")
    return GPUS[0]


def test_torch_to_ferrocm_and_back_without_copies(gpu):
    torch = need("torch")
    t = torch.arange(1 << 16, dtype=torch.float32, device=f"cuda:{gpu.ordinal}")
    a = ferrocm.from_dlpack(t)
    assert a.device == gpu and a.ptr == t.data_ptr() and a.borrowed
    a[5] = -1.0  # written by ferrocm, read by torch
    torch.cuda.synchronize()
    assert t[5].item() == -1.0
    t[6] = 123.0  # and the other way
    torch.cuda.synchronize()
    assert a[6].item() == 123.0
    b = ferrocm.asarray(np.arange(12, dtype=np.int64).reshape(3, 4), device=gpu)
    tb = torch.from_dlpack(b)
    assert tb.data_ptr() == b.ptr and tb.shape == (3, 4)
    tb.mul_(2)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(b.numpy(), 2 * np.arange(12).reshape(3, 4))
    # A strided view keeps its strides through DLPack.
    v = torch.from_dlpack(b[:, ::2])
    assert v.stride() == (4, 2)


def test_random_fills_a_torch_tensor_in_place(gpu):
    torch = need("torch")
    t = torch.zeros(1 << 20, dtype=torch.float32, device=f"cuda:{gpu.ordinal}")
    ptr = t.data_ptr()
    ferrocm.random.Generator("philox", seed=3, device=gpu).normal(loc=1.0, scale=2.0, out=t)
    torch.cuda.synchronize()
    assert t.data_ptr() == ptr
    assert abs(t.mean().item() - 1.0) < 0.01 and abs(t.std().item() - 2.0) < 0.01
    # The values equal those ferrocm writes into its own array with the same seed.
    mine = ferrocm.random.Generator("philox", seed=3, device=gpu).normal(loc=1.0, scale=2.0, size=1 << 20)
    np.testing.assert_array_equal(t.cpu().numpy(), mine.numpy())


def test_cupy_both_ways(gpu):
    cp = need("cupy")
    with cp.cuda.Device(gpu.ordinal):
        x = cp.arange(1000, dtype=cp.float64)
        a = ferrocm.asarray(x, device=gpu)
        assert a.ptr == x.data.ptr and a.borrowed
        y = cp.asarray(a)  # through __cuda_array_interface__
        assert y.data.ptr == a.ptr
        z = cp.from_dlpack(a)
        assert z.data.ptr == a.ptr
        z += 1
        cp.cuda.runtime.deviceSynchronize()
        np.testing.assert_array_equal(a.numpy(), np.arange(1000) + 1)
        assert float(cp.sum(y)) == float(np.sum(np.arange(1000) + 1))


def test_legacy_philox_equals_curand_through_cupy(gpu):
    cp = need("cupy")
    from cupy.cuda import curand

    n = 1 << 20
    with cp.cuda.Device(gpu.ordinal):
        out = cp.empty(n, dtype=cp.uint32)
        g = curand.createGenerator(curand.CURAND_RNG_PSEUDO_PHILOX4_32_10)
        curand.setPseudoRandomGeneratorSeed(g, 1234)
        curand.generate(g, out.data.ptr, n)
        cp.cuda.runtime.deviceSynchronize()
        ref = out.get()
    mine = ferrocm.random.Generator("philox", seed=1234, device=gpu, ordering="legacy").integers_raw(n).numpy()
    np.testing.assert_array_equal(mine, ref)


def test_fft_equals_cupy_fft_on_the_same_inputs(gpu):
    cp = need("cupy")
    import ferrocm.fft

    rng = np.random.default_rng(5)
    with cp.cuda.Device(gpu.ordinal):
        for shape, axes in [((64, 1000), (-1,)), ((8, 96, 97), (1, 2)), ((33, 4096), (0,))]:
            host = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
            x = cp.asarray(host)
            ours = ferrocm.fft.fftn(x, axes=axes)  # reads the CuPy array in place
            assert ours.device == gpu
            theirs = cp.fft.fftn(x, axes=axes)
            got, want = ours.numpy(), cp.asnumpy(theirs)
            ref = np.fft.fftn(host.astype(np.complex128), axes=axes)
            # Both libraries are single precision: each within rocFFT's bound of the f64 truth,
            # and within twice that of each other.
            scale = np.linalg.norm(ref)
            assert np.linalg.norm(got - ref) / scale < 2e-5
            assert np.linalg.norm(got - want) / scale < 4e-5
            r = rng.standard_normal(shape).astype(np.float64)
            xr = cp.asarray(r)
            np.testing.assert_allclose(
                ferrocm.fft.irfft(ferrocm.fft.rfft(xr)).numpy(),
                cp.asnumpy(cp.fft.irfft(cp.fft.rfft(xr))),
                rtol=1e-10, atol=1e-10,
            )  # fmt: skip


def test_gemm_equals_cupy_matmul_and_fills_torch_in_place(gpu):
    cp = need("cupy")
    torch = need("torch")
    import ferrocm.blas

    rng = np.random.default_rng(6)
    with cp.cuda.Device(gpu.ordinal):
        for dtype in (np.float32, np.float64):
            a = cp.asarray(rng.standard_normal((257, 129)).astype(dtype))
            b = cp.asarray(rng.standard_normal((129, 65)).astype(dtype))
            ours = ferrocm.blas.matmul(a, b).numpy()
            theirs = cp.asnumpy(cp.matmul(a, b))
            ref = cp.asnumpy(a).astype(np.float64) @ cp.asnumpy(b).astype(np.float64)
            eps = 1.2e-7 if dtype == np.float32 else 2.3e-16
            tol = 4 * 129 * eps * (np.abs(ref).max() + 1)
            assert np.abs(ours - ref).max() <= tol and np.abs(ours - theirs).max() <= 2 * tol
    dev = f"cuda:{gpu.ordinal}"
    ta = torch.randn(100, 70, device=dev, dtype=torch.float64)
    tb = torch.randn(70, 30, device=dev, dtype=torch.float64)
    tc = torch.ones(100, 30, device=dev, dtype=torch.float64)
    ptr = tc.data_ptr()
    out = ferrocm.blas.gemm(ta, tb, tc, alpha=2.0, beta=1.0)
    assert out is tc and tc.data_ptr() == ptr
    ferrocm.current_stream(gpu).synchronize()  # ferrocm's work first, then torch reads
    torch.testing.assert_close(tc, 2.0 * ta @ tb + 1.0, rtol=1e-12, atol=1e-12)
    # Transposed torch views (column-major memory) multiply without copies.
    torch.testing.assert_close(
        torch.from_dlpack(ferrocm.blas.matmul(ta.t().contiguous().t(), tb)), ta @ tb, rtol=1e-12, atol=1e-12
    )
    batch = torch.randn(6, 33, 17, device=dev, dtype=torch.complex64)
    other = torch.randn(6, 17, 9, device=dev, dtype=torch.complex64)
    got = torch.from_dlpack(ferrocm.blas.gemm_batched(batch, other))
    torch.testing.assert_close(got, batch @ other, rtol=1e-4, atol=1e-4)


def test_out_into_torch_and_cupy_arrays_in_place(gpu):
    # ferrocm.fft's and ferrocm.blas.matmul's out= write another library's GPU array in place,
    # and equal that library's own results on the same inputs.
    cp = need("cupy")
    torch = need("torch")
    import ferrocm.blas
    import ferrocm.fft

    dev = f"cuda:{gpu.ordinal}"
    x = torch.randn(16, 1000, device=dev, dtype=torch.complex64)
    spec = torch.empty_like(x)
    ptr = spec.data_ptr()
    assert ferrocm.fft.fft(x, out=spec) is spec and spec.data_ptr() == ptr
    ferrocm.current_stream(gpu).synchronize()
    want = torch.fft.fft(x)
    assert (torch.linalg.norm(spec - want) / torch.linalg.norm(want)).item() < 4e-5
    y = x.clone()
    ferrocm.fft.fft(y, out=y)  # in place
    ferrocm.current_stream(gpu).synchronize()
    assert (torch.linalg.norm(y - want) / torch.linalg.norm(want)).item() < 4e-5
    rng = np.random.default_rng(7)
    with cp.cuda.Device(gpu.ordinal):
        a = cp.asarray(rng.standard_normal((2, 1, 3, 40, 50)).astype(np.float32))
        b = cp.asarray(rng.standard_normal((7, 1, 50, 30)).astype(np.float32))
        out = cp.zeros((2, 7, 3, 40, 30), np.float32)
        assert ferrocm.blas.matmul(a, b, out=out) is out
        ferrocm.current_stream(gpu).synchronize()
        ref = np.matmul(cp.asnumpy(a).astype(np.float64), cp.asnumpy(b).astype(np.float64))
        tol = 4 * 50 * 1.2e-7 * (np.abs(ref).max() + 1)
        assert np.abs(cp.asnumpy(out) - ref).max() <= tol
        assert np.abs(cp.asnumpy(out) - cp.asnumpy(cp.matmul(a, b))).max() <= 2 * tol
