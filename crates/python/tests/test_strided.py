"""The package's device-side strided copy (BLAS copies, used by ferrocm.fft and ferrocm.blas to
pad, cast and re-lay out data without a host round trip) against NumPy's assignment, on every
device present; and the FFT/BLAS paths that must not go through the host."""

import numpy as np
import pytest

import ferrocm
import ferrocm.blas
import ferrocm.fft
from ferrocm import _strided

DEVICES = ferrocm.devices()


@pytest.fixture(params=DEVICES, ids=lambda d: f"{d.kind}{d.index}")
def device(request):
    return request.param


VIEWS = [
    (slice(None), slice(None)),
    (slice(None, None, 2), slice(1, None)),
    (slice(None, None, -1), slice(None)),
    (slice(None), slice(None, None, -3)),
    (slice(2, 14), slice(None, None, 2)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("src_key", range(len(VIEWS)))
@pytest.mark.parametrize("dst_key", range(len(VIEWS)))
def test_strided_copy_matches_numpy_assignment(device, dtype, src_key, dst_key):
    rng = np.random.default_rng(src_key * 7 + dst_key)
    src_host = rng.standard_normal((10, 12)).astype(dtype)
    dst_host = rng.standard_normal((30, 40)).astype(dtype)
    s = ferrocm.asarray(src_host.copy(), device=device)[VIEWS[src_key]]
    want_src = src_host[VIEWS[src_key]]
    # A destination view of the same shape inside a bigger array (everything else untouched).
    rows, cols = want_src.shape
    dkey = VIEWS[dst_key]
    big = ferrocm.asarray(dst_host.copy(), device=device)
    dview_full = big[dkey]
    dst = dview_full[:rows, :cols]
    expect = dst_host.copy()
    expect[dkey][:rows, :cols] = want_src
    assert _strided.copy(s, dst)
    np.testing.assert_array_equal(big.numpy(), expect)


def test_strided_copy_declines_what_it_cannot_do(device):
    ints = ferrocm.asarray(np.arange(6, dtype=np.int32), device=device)
    assert not _strided.copy(ints, ferrocm.zeros(6, np.int32, device=device))
    many = ferrocm.asarray(np.ones((600, 600, 2)), device=device)[:, :, :1]
    out = ferrocm.zeros((600, 600, 1), np.float64, device=device)
    assert not _strided.copy(many[:, ::2], out[:, :300])  # 600 launches: declined
    with pytest.raises(ValueError, match="differ in shape"):
        _strided.copy(ints, ferrocm.zeros(5, np.int32, device=device))


def test_fft_padding_and_real_input_stay_on_the_device(device, monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((50, 30)).astype(np.float32)
    a = ferrocm.asarray(x, device=device)

    def no_host(self, stream=None):
        raise AssertionError("host round trip")

    monkeypatch.setattr(ferrocm.Array, "numpy", no_host)
    outs = [ferrocm.fft.fft(a, n=48), ferrocm.fft.fft(a[:, ::2], axis=0), ferrocm.fft.rfft(a, n=20),
            ferrocm.fft.fftn(ferrocm.asarray(x.astype(np.complex64), device=device), axes=(0,))]
    monkeypatch.undo()
    wants = [np.fft.fft(x.astype(np.float64), n=48), np.fft.fft(x[:, ::2].astype(np.float64), axis=0),
             np.fft.rfft(x.astype(np.float64), n=20), np.fft.fftn(x.astype(np.float64), axes=(0,))]
    for got, want in zip(outs, wants):
        g = got.numpy()
        assert g.dtype == np.complex64
        assert np.linalg.norm(g - want) / np.linalg.norm(want) < 2e-5


def test_blas_copies_stay_on_the_device(device, monkeypatch):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((12, 20))
    b = rng.standard_normal((20, 9))
    A, B = ferrocm.asarray(a, device=device), ferrocm.asarray(b, device=device)
    big = ferrocm.zeros((24, 18), np.float64, device=device)
    z = rng.standard_normal((7, 20)) + 1j * rng.standard_normal((7, 20))
    w = rng.standard_normal((7, 9)) + 1j * rng.standard_normal((7, 9))
    Z, W = ferrocm.asarray(z, device=device), ferrocm.asarray(w, device=device)

    def no_host(self, stream=None):
        raise AssertionError("host round trip")

    monkeypatch.setattr(ferrocm.Array, "numpy", no_host)
    r1 = ferrocm.blas.gemm(A[:, ::2], B[::2], trans_a="N")  # A strided both ways: copied on device
    # conj(A)^T with A row-major into a column-major C: A is re-laid out column-major.
    cf = ferrocm.zeros((9, 20), np.complex128, device=device)
    c_f = ferrocm.Array(cf._buf, cf._offset, (20, 9), (1, 20), np.complex128)
    r2 = ferrocm.blas.gemm(Z, W, c_f, trans_a="C")
    ferrocm.blas.gemm(A, B, big[::2, ::2])  # an output BLAS cannot write: written back on device
    monkeypatch.undo()
    np.testing.assert_allclose(r1.numpy(), a[:, ::2] @ b[::2], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r2.numpy(), z.conj().T @ w, rtol=1e-12, atol=1e-12)
    want = np.zeros((24, 18))
    want[::2, ::2] = a @ b
    np.testing.assert_allclose(big.numpy(), want, rtol=1e-12, atol=1e-12)
