"""ferrocm.blas against NumPy's ``@`` computed in double precision on the same random inputs, on
every device present: non-square odd sizes, every transpose combination, C- and F-ordered and
sliced operands, alpha/beta, in place into a given c (ferrocm or NumPy), batched products,
gemv with any strides, matmul's shapes, and the errors (nothing written on error)."""

import itertools
import os

import numpy as np
import pytest

import ferrocm
import ferrocm.blas as B

DEVICES = ferrocm.devices()
if os.environ.get("FERROCM_REQUIRE_GPU") == "1":
    assert any(d.is_gpu for d in DEVICES), "FERROCM_REQUIRE_GPU=1 but ferrocm sees no GPU"
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


@pytest.fixture(params=DEVICES, ids=lambda d: f"{d.kind}{d.index}")
def device(request):
    return request.param


def data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def wide(x):
    return np.asarray(x).astype(np.complex128 if np.asarray(x).dtype.kind == "c" else np.float64)


def op(x, t):
    t = {False: "N", True: "T"}.get(t, t)
    x = wide(x)
    if t == "N":
        return x
    return np.swapaxes(x, -1, -2).conj() if t == "C" else np.swapaxes(x, -1, -2)


def close(got, want, dtype, k):
    got = got.numpy() if isinstance(got, ferrocm.Array) else np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.size == 0:
        return
    single = np.dtype(dtype) in (np.float32, np.complex64)
    eps = 1.2e-7 if single else 2.3e-16
    # Error bound of a dot product of length k, relative to the magnitudes summed.
    tol = 4 * max(k, 1) * eps * (np.abs(want).max() + 1)
    assert np.abs(wide(got) - want).max() <= tol, np.abs(wide(got) - want).max()


def stored(x, order, device, t):
    """x as the operand of trans t: stored transposed when t is not N, in C or F order."""
    s = x if t in ("N", False) else np.swapaxes(x, -1, -2).copy()
    if t == "C":
        s = s.conj()
    s = np.asfortranarray(s) if order == "F" else np.ascontiguousarray(s)
    if order == "F":
        # ferrocm.asarray copies to C order: build the F-ordered array as a transposed view.
        t_arr = ferrocm.asarray(np.ascontiguousarray(np.swapaxes(s, -1, -2)), device=device)
        return ferrocm.Array(t_arr._buf, t_arr._offset, s.shape, [*t_arr._estrides[:-2], 1, s.shape[-2]], s.dtype)
    return ferrocm.asarray(s.copy(), device=device)  # a copy: the test's arrays stay as made


TRANS = ["N", "T", "C"]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("ta,tb", list(itertools.product(TRANS, TRANS)))
@pytest.mark.parametrize("orders", ["CCC", "FFF", "CFC", "FCF", "CCF"])
def test_gemm_every_transpose_and_order(device, dtype, ta, tb, orders):
    m, n, k = 13, 7, 19
    a, b, c0 = data((m, k), dtype, 1), data((k, n), dtype, 2), data((m, n), dtype, 3)
    A, Bm = stored(a, orders[0], device, ta), stored(b, orders[1], device, tb)
    C = stored(c0, orders[2], device, "N")
    alpha, beta = (1.5 - 0.5j, 0.25 + 1j) if np.dtype(dtype).kind == "c" else (1.5, -0.75)
    out = B.gemm(A, Bm, C, alpha=alpha, beta=beta, trans_a=ta, trans_b=tb)
    assert out is C
    want = alpha * wide(a) @ wide(b) + beta * wide(c0)
    close(C, want, dtype, k)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("mnk", [(1, 1, 1), (1, 9, 4), (9, 1, 4), (5, 6, 1), (31, 17, 65), (64, 33, 3)], ids=str)
def test_gemm_shapes_into_a_new_array(device, dtype, mnk):
    m, n, k = mnk
    a, b = data((m, k), dtype, m), data((k, n), dtype, n)
    got = B.gemm(ferrocm.asarray(a, device=device), ferrocm.asarray(b, device=device))
    assert got.dtype == np.dtype(dtype) and got.device == device and got.is_c_contiguous
    close(got, wide(a) @ wide(b), dtype, k)


def test_gemm_on_sliced_operands(device):
    a, b = data((20, 30), np.float64, 1), data((30, 25), np.float64, 2)
    A, Bm = ferrocm.asarray(a, device=device), ferrocm.asarray(b, device=device)
    c = ferrocm.zeros((10, 25), np.float64, device=device)
    B.gemm(A[::2, 3:], Bm[3:, :], c)  # rows with a stride: lda 60, no copy needed
    close(c, a[::2, 3:] @ b[3:, :], np.float64, 27)
    close(B.gemm(A[::2, ::3], Bm[::3, ::2]), a[::2, ::3] @ b[::3, ::2], np.float64, 10)  # copied
    close(B.gemm(A[::-1, :], Bm), a[::-1] @ b, np.float64, 30)  # negative stride: copied
    # A strided output is written back.
    big = ferrocm.zeros((40, 50), np.float64, device=device)
    B.gemm(A, Bm, big[::2, ::2])
    close(big[::2, ::2], a @ b, np.float64, 30)
    assert np.all(big.numpy()[1::2] == 0)


def test_gemm_into_a_numpy_array_in_place_on_the_cpu_device():
    cpu = [d for d in DEVICES if not d.is_gpu][0]
    a, b = data((6, 4), np.float32, 1), data((4, 5), np.float32, 2)
    c = np.full((6, 5), 2.0, np.float32)
    with_cpu = [ferrocm.asarray(a, device=cpu), ferrocm.asarray(b, device=cpu)]
    out = B.gemm(*with_cpu, c, beta=0.5)
    assert out is c
    ferrocm.current_stream(cpu).synchronize()
    close(c, wide(a) @ wide(b) + 1.0, np.float32, 4)
    # NumPy operands directly (DLPack, CPU device).
    close(B.matmul(a, b), wide(a) @ wide(b), np.float32, 4)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("ta,tb", [("N", "N"), ("T", "N"), ("N", "C"), ("C", "T")])
def test_gemm_batched(device, dtype, ta, tb):
    batch, m, n, k = 5, 9, 6, 11
    a, b, c0 = data((batch, m, k), dtype, 1), data((batch, k, n), dtype, 2), data((batch, m, n), dtype, 3)
    A, Bm = stored(a, "C", device, ta), stored(b, "F", device, tb)
    C = ferrocm.asarray(c0.copy(), device=device)
    B.gemm_batched(A, Bm, C, alpha=2, beta=-1, trans_a=ta, trans_b=tb)
    close(C, 2 * wide(a) @ wide(b) - wide(c0), dtype, k)
    # One matrix reused across the batch (stride 0).
    one = ferrocm.asarray(b[:1], device=device)
    close(B.gemm_batched(ferrocm.asarray(a, device=device), one), wide(a) @ wide(b[:1]), dtype, k)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("trans", ["N", "T", "C"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_gemv(device, dtype, trans, order):
    rows, cols = 11, 7
    a = data((rows, cols), dtype, 1)
    A = stored(a, order, device, "N")
    n = cols if trans == "N" else rows
    m = rows if trans == "N" else cols
    x_full, y0 = data((3 * n,), dtype, 2), data((2 * m,), dtype, 3)
    X = ferrocm.asarray(x_full, device=device)[::3]
    Y = ferrocm.asarray(y0.copy(), device=device)
    alpha, beta = (2 - 1j, 0.5j) if np.dtype(dtype).kind == "c" else (2.0, 0.5)
    B.gemv(A, X, Y[::-2], alpha=alpha, beta=beta, trans=trans)
    want = y0.astype(wide(y0).dtype)
    want[::-2] = alpha * op(a, trans) @ wide(x_full[::3]) + beta * wide(y0[::-2])
    close(Y, want, dtype, n)


MATMUL = [((5, 7), (7, 3)), ((7,), (7, 3)), ((5, 7), (7,)), ((7,), (7,)), ((4, 5, 7), (4, 7, 3)),
          ((4, 5, 7), (7, 3)), ((5, 7), (4, 7, 3)), ((4, 5, 7), (7,)), ((7,), (4, 7, 3)), ((1, 5, 7), (4, 7, 2))]


@pytest.mark.parametrize("shapes", MATMUL, ids=str)
def test_matmul_like_numpy(device, shapes):
    a, b = data(shapes[0], np.float64, 1), data(shapes[1], np.float64, 2)
    got = B.matmul(ferrocm.asarray(a, device=device), ferrocm.asarray(b, device=device))
    close(got, a @ b, np.float64, 7)


def test_k_zero_and_empty_products(device):
    a, b = np.zeros((3, 0)), np.zeros((0, 4))
    c = ferrocm.asarray(np.full((3, 4), 2.0), device=device)
    B.gemm(ferrocm.asarray(a, device=device), ferrocm.asarray(b, device=device), c, beta=0.5)
    np.testing.assert_array_equal(c.numpy(), np.full((3, 4), 1.0))
    out = B.gemm(ferrocm.asarray(np.zeros((0, 3)), device=device), ferrocm.asarray(np.zeros((3, 2)), device=device))
    assert out.shape == (0, 2)


def _errors(device):
    f32 = ferrocm.asarray(data((4, 5), np.float32), device=device)
    f64a = ferrocm.asarray(data((4, 5), np.float64), device=device)
    f64b = ferrocm.asarray(data((5, 3), np.float64), device=device)
    ints = ferrocm.asarray(np.ones((4, 5), np.int32), device=device)
    c_ok = ferrocm.zeros((4, 3), np.float64, device=device)
    c_bad = ferrocm.zeros((4, 4), np.float64, device=device)
    vec = ferrocm.zeros((3,), np.float64, device=device)
    ro = np.zeros((4, 3))
    ro.flags.writeable = False
    other = [d for d in DEVICES if d != device]
    cases = [
        (lambda: B.gemm(f64a, f64a), ValueError, "shape mismatch: op(a) is 4 x 5", c_ok),
        (lambda: B.gemm(f64a, f64b, c_bad), ValueError, "c has shape (4, 4), the product has shape (4, 3)", c_bad),
        (lambda: B.gemm(f32, f64b), ValueError, "dtype mix: a is float32 but b is float64", c_ok),
        (lambda: B.gemm(f64a, f64b, ferrocm.zeros((4, 3), np.float32, device=device)), ValueError, "dtype mix", c_ok),
        (lambda: B.gemm(ints, f64b), TypeError, "a has dtype int32", c_ok),
        (lambda: B.gemm(f64a, f64b, beta=1), ValueError, "no c was given", c_ok),
        (lambda: B.gemm(f64a, f64b, c_ok, trans_a="X"), ValueError, "trans_a is 'X'", c_ok),
        (lambda: B.gemm(f64a, f64b, c_ok, alpha=1j), ValueError, "alpha is complex", c_ok),
        (lambda: B.gemm(f64a, f64b, c_ok, alpha=[2]), TypeError, "alpha must be a number", c_ok),
        (lambda: B.gemm(f64a[None], f64b), ValueError, "a has 3 dimensions", c_ok),
        (lambda: B.gemm_batched(f64a, f64b), ValueError, "takes 3-D arrays", c_ok),
        (lambda: B.gemm_batched(ferrocm.zeros((2, 4, 5), np.float64, device=device),
                                ferrocm.zeros((3, 5, 3), np.float64, device=device)), ValueError, "batch mismatch", c_ok),
        (lambda: B.gemv(f64a, vec), ValueError, "x has 3 elements", vec),
        (lambda: B.gemv(f64a, f64a), ValueError, "gemv takes a 2-D a and a 1-D x", vec),
        (lambda: B.matmul(ferrocm.zeros((2, 4, 5), np.float64, device=device),
                          ferrocm.zeros((3, 5, 3), np.float64, device=device)), ValueError, "do not broadcast", c_ok),
    ]
    if not device.is_gpu:
        cases.append((lambda: B.gemm(f64a, f64b, ro), ValueError, "read-only", c_ok))
        # c overlapping an input: the same buffer.
        shared = ferrocm.zeros((4, 8), np.float64, device=device)
        cases.append((lambda: B.gemm(shared[:, :5], f64b, shared[:, 5:]), ValueError, "c overlaps a", c_ok))
    if other:
        elsewhere = ferrocm.asarray(data((5, 3), np.float64), device=other[0])
        cases.append((lambda: B.gemm(f64a, elsewhere), ValueError, "every operand must be on one device", c_ok))
    return cases


@pytest.mark.parametrize("case", range(18))
def test_errors_name_what_was_wrong(device, case):
    cases = _errors(device)
    if case >= len(cases):
        pytest.skip("case needs another device")
    fn, kind, text, watched = cases[case]
    before = watched.numpy()
    with pytest.raises(kind) as info:
        fn()
    assert text in str(info.value)
    np.testing.assert_array_equal(watched.numpy(), before)


def test_exhausted_memory_is_a_memory_error(device):
    a = ferrocm.zeros((1 << 20, 1), np.float32, device=device)
    b = ferrocm.zeros((1, 1 << 20), np.float32, device=device)
    with pytest.raises(MemoryError, match="exceeds the memory of device"):
        B.gemm(a, b)


# ---- matmul: NumPy's semantics -------------------------------------------------------------

# (a shape, b shape): 1-D operands, broadcast batch dimensions (size 1 or missing on one side),
# several batch dimensions, and empty dimensions everywhere (batch, m, n, k).
MATMUL_ND = [
    ((6,), (6,)), ((6,), (6, 3)), ((4, 6), (6,)), ((2, 3, 4, 6), (6,)), ((6,), (2, 3, 6, 5)),
    ((2, 1, 3, 4, 5), (7, 1, 5, 6)), ((3, 1, 4, 5), (2, 5, 3)), ((1, 4, 5), (3, 5, 2)), ((4, 5), (2, 3, 5, 6)),
    ((2, 3, 4, 5), (1, 1, 5, 6)), ((5, 1, 2, 4, 3), (1, 6, 1, 3, 2)),
    ((0, 4, 5), (5, 3)), ((3, 0, 5), (3, 5, 2)), ((3, 4, 5), (3, 5, 0)), ((2, 4, 0), (2, 0, 3)), ((0,), (0,)),
    ((4, 0), (0,)), ((2, 1, 4, 5), (0, 5, 3)),
]


def laid_out(x, layout, device):
    """x on the device as a C-ordered array, an F-ordered one (the last two axes column-major),
    the transposed view of a stored transpose, or a strided slice of a larger array."""
    if layout == "C" or x.ndim < 2:
        if layout == "S" and x.ndim == 1:
            big = np.zeros(2 * x.shape[0], x.dtype)
            big[::2] = x
            return ferrocm.asarray(big, device=device)[::2]
        return ferrocm.asarray(x.copy(), device=device)
    if layout in ("F", "T"):
        t = ferrocm.asarray(np.ascontiguousarray(np.swapaxes(x, -1, -2)), device=device)
        st = list(t._estrides)
        st[-2], st[-1] = st[-1], st[-2]
        return ferrocm.Array(t._buf, t._offset, x.shape, st, x.dtype)
    # "S": every other row and a column offset of a larger array.
    big = np.zeros((*x.shape[:-2], 2 * x.shape[-2] + 1, x.shape[-1] + 3), x.dtype)
    big[..., 1::2, 2:2 + x.shape[-1]] = x
    return ferrocm.asarray(big, device=device)[..., 1::2, 2:2 + x.shape[-1]]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shapes", MATMUL_ND, ids=str)
def test_matmul_broadcasts_like_numpy(device, dtype, shapes):
    a, b = data(shapes[0], dtype, 1), data(shapes[1], dtype, 2)
    want = np.matmul(wide(a), wide(b))
    for la, lb in [("C", "C"), ("F", "S"), ("S", "T")]:
        got = B.matmul(laid_out(a, la, device), laid_out(b, lb, device))
        assert isinstance(got, ferrocm.Array) and got.dtype == np.dtype(dtype) and got.device == device
        close(got, want, dtype, shapes[0][-1])


@pytest.mark.parametrize("shapes", [((2, 1, 3, 4, 5), (7, 1, 5, 6)), ((4, 5), (6,)), ((3, 4, 5), (5,))], ids=str)
def test_matmul_into_out(device, shapes):
    a, b = data(shapes[0], np.complex64, 3), data(shapes[1], np.complex64, 4)
    if shapes[1] == (6,):
        a = data((4, 6), np.complex64, 3)
    want = np.matmul(wide(a), wide(b))
    out = ferrocm.full(want.shape, 7, np.complex64, device=device)
    assert B.matmul(ferrocm.asarray(a, device=device), ferrocm.asarray(b, device=device), out=out) is out
    close(out, want, np.complex64, a.shape[-1])
    # A strided out (every other element of the last axis) is written in place, the gaps kept.
    big = ferrocm.full((*want.shape[:-1], 2 * want.shape[-1]), 7, np.complex64, device=device)
    B.matmul(ferrocm.asarray(a, device=device), ferrocm.asarray(b, device=device), out=big[..., ::2])
    close(big[..., ::2], want, np.complex64, a.shape[-1])
    assert np.all(big.numpy()[..., 1::2] == 7)


def test_matmul_into_a_numpy_array_on_the_cpu_device():
    cpu = [d for d in DEVICES if not d.is_gpu][0]
    a, b = data((3, 4, 5), np.float64, 5), data((5, 2), np.float64, 6)
    out = np.zeros((3, 4, 2))
    assert B.matmul(a, b, out=out) is out
    close(out, a @ b, np.float64, 5)
    assert B.matmul(ferrocm.asarray(a, device=cpu), b).device == cpu


def test_matmul_reads_strided_batches_in_place_with_one_launch(device, monkeypatch):
    # A batch of transposed views of one buffer against a broadcast matrix: one strided-batched
    # GEMM, and no copy of any operand.
    import ferrocm.blas as blas_module

    calls, copies = [], []
    real_exec = blas_module._native.gemm_exec
    monkeypatch.setattr(blas_module._native, "gemm_exec", lambda *a, **k: (calls.append(a[-1]), real_exec(*a, **k))[1])
    monkeypatch.setattr(blas_module, "_materialise", lambda *a, **k: copies.append(a) or pytest.fail("copied"))
    a, b = data((6, 5, 4), np.float32, 7), data((4, 3), np.float32, 8)
    A = laid_out(a, "T", device)  # (6, 5, 4) with the last two axes swapped in memory
    Bm = laid_out(b, "S", device)[None]  # (1, 4, 3): broadcast, rows strided
    close(B.matmul(A, Bm), a @ b, np.float32, 4)
    assert calls == [6] and not copies
    # Batch dimensions that merge (a C-contiguous (2, 3) batch) are still one launch of 6.
    calls.clear()
    a4 = data((2, 3, 5, 4), np.float32, 9)
    close(B.matmul(ferrocm.asarray(a4, device=device), ferrocm.asarray(b, device=device)), a4 @ b, np.float32, 4)
    assert calls == [6] and not copies
    # (2, 1) against (1, 3) batches do not merge: the longer one is batched, the other looped.
    calls.clear()
    x, y = data((2, 1, 5, 4), np.float32, 10), data((1, 3, 4, 2), np.float32, 11)
    close(B.matmul(ferrocm.asarray(x, device=device), ferrocm.asarray(y, device=device)), x @ y, np.float32, 4)
    assert calls == [3, 3] and not copies


def _matmul_errors(device):
    f64 = ferrocm.asarray(data((2, 4, 5), np.float64), device=device)
    g64 = ferrocm.asarray(data((5, 3), np.float64), device=device)
    out = ferrocm.full((2, 4, 3), 9.0, np.float64, device=device)
    shared = ferrocm.zeros((2, 4, 8), np.float64, device=device)
    cases = [
        (lambda: B.matmul(f64, g64[:4]), "shape mismatch: a (2, 4, 5) has 5 columns but the second-to-last axis of b (4, 3) has 4"),
        (lambda: B.matmul(f64, ferrocm.zeros(4, np.float64, device=device)), "the first axis of b (4,) has 4"),
        (lambda: B.matmul(ferrocm.zeros((3, 4, 5), np.float64, device=device), ferrocm.zeros((2, 5, 3), np.float64, device=device)),
         "do not broadcast ((3,) against (2,))"),
        (lambda: B.matmul(f64[0, 0, 0], g64), "a is a scalar (0-D)"),
        (lambda: B.matmul(f64, g64, out=ferrocm.zeros((2, 4, 4), np.float64, device=device)),
         "out has shape (2, 4, 4) but matmul returns shape (2, 4, 3)"),
        (lambda: B.matmul(f64, g64, out=ferrocm.zeros((2, 4, 3), np.float32, device=device)), "out has dtype float32"),
        (lambda: B.matmul(shared[..., :5], g64, out=shared[..., 5:]), "out overlaps a"),
        (lambda: B.matmul(f64, g64, out=[0.0]), "must be a ferrocm Array or a DLPack array"),
    ]
    if not device.is_gpu:
        ro = np.zeros((2, 4, 3))
        ro.flags.writeable = False
        cases.append((lambda: B.matmul(f64, g64, out=ro), "read-only"))
    return cases, [out, shared]


@pytest.mark.parametrize("case", range(9))
def test_matmul_errors_name_what_was_wrong(device, case):
    cases, watched = _matmul_errors(device)
    if case >= len(cases):
        pytest.skip("a CPU-only case")
    fn, text = cases[case]
    before = [w.numpy() for w in watched]
    with pytest.raises(ValueError) as info:
        fn()
    assert text in str(info.value)
    for w, b in zip(watched, before):
        np.testing.assert_array_equal(w.numpy(), b)
