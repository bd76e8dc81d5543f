"""ferrocm.fft against numpy.fft on every device present: every function, 1-D to 3-D, odd, prime
and power-of-two sizes, every norm, negative and non-adjacent axes, padding and truncation,
non-contiguous inputs, NumPy 2's dtype rules, and the errors. The reference is NumPy computing
in float64/complex128 on the same inputs."""

import os

import numpy as np
import pytest

import ferrocm
import ferrocm.fft as F

DEVICES = ferrocm.devices()
if os.environ.get("FERROCM_REQUIRE_GPU") == "1":
    assert any(d.is_gpu for d in DEVICES), "FERROCM_REQUIRE_GPU=1 but ferrocm sees no GPU"
NORMS = [None, "backward", "ortho", "forward"]


@pytest.fixture(params=DEVICES, ids=lambda d: f"{d.kind}{d.index}")
def device(request):
    return request.param


def data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    x = rng.standard_normal(shape)
    if dtype.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def wide(x):
    """The reference's input: the same values in double precision."""
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def close(got, want, single):
    """rocFFT's accuracy rule, relative L2 error against the double-precision reference."""
    got = got.numpy() if isinstance(got, ferrocm.Array) else got
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(np.linalg.norm(want), 1e-300)
    err = np.linalg.norm(got.astype(want.dtype) - want) / scale
    assert err < (2e-5 if single else 1e-12), err


# (function name, NumPy's, input kind, is real-input, positional size/axes arguments)
C2C = ["fft", "ifft"]
ND_C2C = ["fft2", "ifft2", "fftn", "ifftn"]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", C2C)
@pytest.mark.parametrize("n", [1, 2, 7, 16, 17, 60, 97, 128, 1000])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_1d_c2c_matches_numpy(device, name, n, dtype, norm):
    x = data((3, n), dtype, seed=n)
    got = getattr(F, name)(ferrocm.asarray(x, device=device), norm=norm)
    assert got.dtype == np.dtype(dtype) and got.device == device
    close(got, getattr(np.fft, name)(wide(x), norm=norm), dtype == np.complex64)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n", [1, 2, 3, 8, 15, 31, 64, 100, 257])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_1d_real_transforms_match_numpy(device, n, dtype, norm):
    x = data((4, n), dtype, seed=n)
    got = F.rfft(ferrocm.asarray(x, device=device), norm=norm)
    want = np.fft.rfft(wide(x), norm=norm)
    close(got, want, dtype == np.float32)
    spectrum = want.astype(np.complex64 if dtype == np.float32 else np.complex128)
    back = F.irfft(ferrocm.asarray(spectrum, device=device), n=n, norm=norm)
    assert back.dtype == np.dtype(dtype)
    close(back, np.fft.irfft(spectrum.astype(np.complex128), n=n, norm=norm), dtype == np.float32)


SHAPES = [(5, 7), (8, 16), (3, 11, 13), (4, 6, 10), (2, 3, 5, 7)]


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ND_C2C)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_nd_c2c_matches_numpy(device, name, shape, dtype, norm):
    x = data(shape, dtype, seed=len(shape))
    got = getattr(F, name)(ferrocm.asarray(x, device=device), norm=norm)
    close(got, getattr(np.fft, name)(wide(x), norm=norm), dtype == np.complex64)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("pair", [("rfft2", "irfft2"), ("rfftn", "irfftn")])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nd_real_transforms_match_numpy(device, pair, shape, dtype, norm):
    fwd, inv = pair
    x = data(shape, dtype, seed=sum(shape))
    got = getattr(F, fwd)(ferrocm.asarray(x, device=device), norm=norm)
    want = getattr(np.fft, fwd)(wide(x), norm=norm)
    close(got, want, dtype == np.float32)
    axes = (-2, -1) if fwd == "rfft2" else tuple(range(len(shape)))
    s = tuple(shape[ax] for ax in axes)
    back = getattr(F, inv)(got, s=s, axes=axes, norm=norm)
    close(back, getattr(np.fft, inv)(want, s=s, axes=axes, norm=norm), dtype == np.float32)
    # Without s the last axis is 2 (m - 1) long, as in NumPy.
    close(getattr(F, inv)(got, norm=norm), getattr(np.fft, inv)(want, norm=norm), dtype == np.float32)


AXES = [(0,), (1,), (-1,), (-2,), (0, 2), (2, 0), (-3, -1), (1, 2), (0, 1), (2, 1, 0), (0, 0)]


@pytest.mark.parametrize("axes", AXES, ids=str)
def test_any_axes_like_numpy(device, axes):
    # 70 outer rows make the middle-axis case take the path that moves the axes.
    for shape in [(3, 5, 6), (70, 5, 3)]:
        x = data(shape, np.complex128, seed=1)
        a = ferrocm.asarray(x, device=device)
        close(F.fftn(a, axes=axes), np.fft.fftn(x, axes=axes), False)
        close(F.ifftn(a, axes=axes, norm="ortho"), np.fft.ifftn(x, axes=axes, norm="ortho"), False)
        r = data(shape, np.float64, seed=2)
        ra = ferrocm.asarray(r, device=device)
        close(F.rfftn(ra, axes=axes), np.fft.rfftn(r, axes=axes), False)
        spec = np.fft.rfftn(r, axes=axes)
        close(F.irfftn(ferrocm.asarray(spec, device=device), axes=axes), np.fft.irfftn(spec, axes=axes), False)


@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_1d_transforms_along_any_axis(device, axis):
    x = data((6, 9), np.complex64)
    a = ferrocm.asarray(x, device=device)
    close(F.fft(a, axis=axis), np.fft.fft(wide(x), axis=axis), True)
    r = data((6, 9), np.float32)
    close(F.rfft(ferrocm.asarray(r, device=device), axis=axis), np.fft.rfft(wide(r), axis=axis), True)
    spec = np.fft.rfft(wide(r), axis=axis).astype(np.complex64)
    got = F.irfft(ferrocm.asarray(spec, device=device), n=r.shape[axis], axis=axis)
    close(got, np.fft.irfft(spec.astype(np.complex128), n=r.shape[axis], axis=axis), True)


@pytest.mark.parametrize("n", [1, 5, 12, 20, 33])
def test_n_pads_with_zeros_or_truncates(device, n):
    x = data((4, 12), np.complex128)
    a = ferrocm.asarray(x, device=device)
    close(F.fft(a, n=n), np.fft.fft(x, n=n), False)
    close(F.ifft(a, n=n, axis=0), np.fft.ifft(x, n=n, axis=0), False)
    r = data((4, 12), np.float64)
    close(F.rfft(ferrocm.asarray(r, device=device), n=n), np.fft.rfft(r, n=n), False)
    spec = np.fft.rfft(r)
    close(F.irfft(ferrocm.asarray(spec, device=device), n=n), np.fft.irfft(spec, n=n), False)


@pytest.mark.parametrize("s", [(3, 4), (9, 1), (8, 20), (5, -1)], ids=str)
def test_s_pads_with_zeros_or_truncates(device, s):
    x = data((6, 7, 8), np.complex128)
    a = ferrocm.asarray(x, device=device)
    close(F.fftn(a, s=s), np.fft.fftn(x, s=s, axes=(-2, -1)), False)
    close(F.fft2(a, s=s, axes=(0, 2)), np.fft.fft2(x, s=s, axes=(0, 2)), False)
    r = data((6, 7, 8), np.float64)
    close(F.rfftn(ferrocm.asarray(r, device=device), s=s), np.fft.rfftn(r, s=s, axes=(-2, -1)), False)
    spec = np.fft.rfftn(r)
    close(F.irfftn(ferrocm.asarray(spec, device=device), s=s), np.fft.irfftn(spec, s=s, axes=(-2, -1)), False)


def test_non_contiguous_inputs(device):
    x = data((10, 18), np.complex128)
    a = ferrocm.asarray(x, device=device)
    for key in [(slice(None, None, 2), slice(None)), (slice(None), slice(1, None, 3)), (slice(None, None, -1), 3)]:
        view = a[key]
        assert not view.is_c_contiguous or view.ndim == 1
        close(F.fft(view), np.fft.fft(x[key]), False)
        close(F.ifftn(view), np.fft.ifftn(x[key]), False)
    r = data((10, 18), np.float64)
    rv = ferrocm.asarray(r, device=device)[:, ::2]
    close(F.rfft2(rv), np.fft.rfft2(r[:, ::2]), False)


def test_host_and_dlpack_inputs(device):
    x = data((5, 8), np.complex128)
    got = F.fft(x.tolist())  # anything asarray takes; copied to the default device
    assert got.device == ferrocm.default_device()
    close(got, np.fft.fft(x), False)
    if not device.is_gpu:
        # A NumPy array on the CPU device is read in place through DLPack.
        close(F.fft2(x), np.fft.fft2(x), False)


@pytest.mark.parametrize(
    "dtype", [np.float16, np.float32, np.float64, np.int32, np.uint8, np.bool_, np.complex64, np.complex128]
)
def test_dtypes_follow_numpy_2(device, dtype):
    x = (data((3, 10), np.float64) * 3).astype(dtype)
    a = ferrocm.asarray(x, device=device)
    for name in ["fft", "ifft", "fftn", "rfft", "rfftn", "irfft"]:
        if name.startswith("rfft") and np.dtype(dtype).kind == "c":
            continue
        want = getattr(np.fft, name)(x)
        got = getattr(F, name)(a)
        expect = want.dtype if not (name == "irfft" and dtype == np.float16) else np.dtype(np.float32)
        assert got.dtype == expect, (name, dtype, got.dtype)
        single = got.dtype in (np.complex64, np.float32)
        close(got, getattr(np.fft, name)(wide(x)), single)


def test_empty_batches_and_empty_axes(device):
    x = np.zeros((0, 8), np.complex64)
    got = F.fft(ferrocm.asarray(x, device=device))
    assert got.shape == (0, 8) and got.dtype == np.complex64
    got = F.rfft(ferrocm.asarray(np.zeros((3, 0, 8), np.float64), device=device))
    assert got.shape == (3, 0, 5)
    y = data((3, 4), np.complex128)
    a = ferrocm.asarray(y, device=device)
    same = F.fftn(a, axes=())
    assert same is not a
    np.testing.assert_array_equal(same.numpy(), np.fft.fftn(y, axes=()))


def test_temporary_inputs_live_until_the_transform_ran(device):
    # A temporary NumPy array viewed through DLPack (on the CPU device) is released when the
    # call returns; the transform queued on it must still see its values.
    x = data((64, 256), np.complex128)
    outs = [F.fft(ferrocm.asarray(x.copy(), device=device)) for _ in range(8)]
    for got in outs:
        close(got, np.fft.fft(x), False)


def test_repeated_calls_reuse_plans_and_agree(device):
    x = data((16, 32), np.complex64)
    a = ferrocm.asarray(x, device=device)
    first = F.fft2(a).numpy()
    for _ in range(3):
        np.testing.assert_array_equal(F.fft2(a).numpy(), first)


def test_the_input_is_not_written(device):
    x = data((6, 10), np.complex128)
    a = ferrocm.asarray(x, device=device)
    F.ifftn(a, norm="forward")
    F.irfft(a)
    np.testing.assert_array_equal(a.numpy(), x)


ERRORS = [
    (lambda a, r: F.fft(a, axis=2), np.exceptions.AxisError, "axis 2 is out of bounds"),
    (lambda a, r: F.fft(a, axis=-3), np.exceptions.AxisError, "axis -3 is out of bounds"),
    (lambda a, r: F.fftn(a, axes=(0, 5)), np.exceptions.AxisError, "axis 5"),
    (lambda a, r: F.fft(a, n=0), ValueError, "Invalid number of FFT data points (0)"),
    (lambda a, r: F.irfft(a, n=-2), ValueError, "Invalid number of FFT data points (-2)"),
    (lambda a, r: F.fftn(a, s=(4, 0)), ValueError, "Invalid number of FFT data points (0)"),
    (lambda a, r: F.fft2(a, s=(3,)), ValueError, "s has 1 entries but axes has 2"),
    (lambda a, r: F.fftn(a, s=(1, 2, 3)), ValueError, "more than the array's 2 dimensions"),
    (lambda a, r: F.fft(a, norm="unitary"), ValueError, "Invalid norm value 'unitary'"),
    (lambda a, r: F.rfft(a), TypeError, "rfft needs real input, got complex128"),
    (lambda a, r: F.rfftn(a), TypeError, "rfft needs real input"),
    (lambda a, r: F.fft(r[0, 0]), np.exceptions.AxisError, "0-d array"),
    (lambda a, r: F.fft(a, axis=1.0), TypeError, "axis must be an integer"),
    (lambda a, r: F.irfft(ferrocm.asarray(np.zeros((2, 1), np.complex128), device=a.device)), ValueError, "(0)"),
    (lambda a, r: F.fft(ferrocm.asarray(np.zeros((2, 0)), device=a.device)), ValueError, "(0)"),
    (lambda a, r: F.fft(np.array(["a", "b"])), ValueError, "dtype <U1 is not supported"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_name_the_argument(device, case):
    fn, kind, text = ERRORS[case]
    x = data((4, 6), np.complex128)
    a = ferrocm.asarray(x, device=device)
    r = ferrocm.asarray(x.real.copy(), device=device)
    with pytest.raises(kind) as info:
        fn(a, r)
    assert text in str(info.value)
    np.testing.assert_array_equal(a.numpy(), x)  # nothing written


def test_exhausted_memory_is_a_memory_error(device):
    a = ferrocm.asarray(data((4, 6), np.complex128), device=device)
    with pytest.raises(MemoryError, match="exceeds the memory of device"):
        F.fft(a, n=1 << 40)


# ---- out= ---------------------------------------------------------------------------------

# (function, input shape, input dtype, keyword arguments): every function, every path the last
# transform can take (packed batch, strided layout, the outer loop, the path that moves the
# axes, several axis groups, repeated axes, a dtype change, padding), into out.
OUT_CASES = [
    ("fft", (4, 12), np.complex64, {}),
    ("ifft", (12, 5), np.complex128, {"axis": 0, "norm": "ortho"}),
    ("fft", (3, 10), np.float32, {"n": 16}),
    ("rfft", (5, 9), np.float64, {"n": 8}),
    ("irfft", (5, 9), np.complex64, {"n": 15}),
    ("fft2", (3, 6, 8), np.complex64, {"axes": (0, 2)}),
    ("ifft2", (6, 8), np.complex128, {"s": (4, 10), "norm": "forward"}),
    ("rfft2", (4, 6, 10), np.float32, {}),
    ("irfft2", (4, 6, 6), np.complex128, {}),
    ("fftn", (3, 5, 6), np.complex128, {"axes": (1,)}),
    ("fftn", (70, 5, 3), np.complex128, {"axes": (1,)}),
    ("ifftn", (3, 4, 5), np.complex64, {"axes": (0, 0)}),
    ("fftn", (6, 4, 5), np.complex64, {"s": (3, 8), "axes": (0, 0)}),
    ("rfftn", (6, 4, 5), np.float64, {"axes": (2, 2)}),
    ("irfftn", (6, 4, 5), np.complex128, {"s": (4, 7, 9), "axes": (1, 2, 1)}),
    ("rfftn", (3, 4, 5), np.float64, {"axes": (0, 2)}),
    ("irfftn", (3, 4, 5), np.complex128, {"axes": (2, 0)}),
]


@pytest.mark.parametrize("case", range(len(OUT_CASES)))
def test_out_receives_the_result(device, case):
    name, shape, dtype, kw = OUT_CASES[case]
    x = data(shape, dtype, seed=case)
    want = getattr(np.fft, name)(wide(x), **kw)
    rdt = np.dtype(getattr(np.fft, name)(x, **kw).dtype)
    single = rdt in (np.complex64, np.float32)
    a = ferrocm.asarray(x, device=device)
    out = ferrocm.full(want.shape, 3, rdt, device=device)
    assert getattr(F, name)(a, **kw, out=out) is out
    close(out, want, single)
    np.testing.assert_array_equal(a.numpy(), x)
    # A strided out (every other element of the first axis of a larger array): the rest is kept.
    big = ferrocm.full((2 * want.shape[0], *want.shape[1:]), 3, rdt, device=device)
    getattr(F, name)(a, **kw, out=big[::2])
    close(big[::2], want, single)
    assert np.all(big.numpy()[1::2] == 3)


def test_out_may_be_the_input_for_complex_transforms(device):
    # Packed batches, a strided layout, the loop over outer indices, the path that moves the
    # axes (70 outer rows), several axis groups.
    for shape, name, kw in [((6, 70, 8), "fft", {}), ((6, 70, 8), "ifft", {"axis": 0}), ((6, 70, 8), "fft", {"axis": 1}),
                            ((70, 6, 8), "fft", {"axis": 1}), ((6, 70, 8), "fft2", {"norm": "ortho"}),
                            ((6, 70, 8), "ifftn", {}), ((6, 7, 8), "fftn", {"axes": (0, 2)})]:
        x = data(shape, np.complex64, seed=len(name))
        a = ferrocm.asarray(x.copy(), device=device)
        assert getattr(F, name)(a, **kw, out=a) is a
        close(a, getattr(np.fft, name)(wide(x), **kw), True)
    # Where the last transform reads a copy (a dtype change), out may overlap the input freely.
    z = ferrocm.zeros((4, 8), np.complex128, device=device)
    r = data((4, 8), np.float64)
    re = ferrocm.Array(z._buf, z._offset, (4, 8), (16, 2), np.float64)  # the real parts of z
    re[...] = r
    assert F.fft(re, out=z) is z
    close(z, np.fft.fft(r), False)


def test_out_on_the_cpu_device_may_be_a_numpy_array():
    x = data((4, 9), np.float64)
    out = np.zeros((4, 5), np.complex128)
    assert F.rfft(x, out=out) is out
    close(out, np.fft.rfft(x), False)
    back = np.zeros((4, 8))
    assert F.irfft(out, out=back) is back
    close(back, np.fft.irfft(np.fft.rfft(x)), False)
    z = x.astype(np.complex128)
    assert F.fft(z, out=z) is z  # in place in the NumPy array's memory
    close(z, np.fft.fft(x), False)


def _out_errors(device):
    x = data((4, 6), np.complex128)
    a = ferrocm.asarray(x, device=device)
    r = ferrocm.asarray(x.real.copy(), device=device)
    c64 = ferrocm.zeros((4, 6), np.complex64, device=device)
    big = ferrocm.zeros((8, 6), np.complex128, device=device)
    big[:4] = x
    # A real input and a complex out over one buffer: rows 0-3 of big as reals, rows 2-5 as out.
    real_in = ferrocm.Array(big._buf, 0, (4, 12), (12, 1), np.float64)
    overlapping = ferrocm.Array(big._buf, 2 * 6 * 16, (4, 7), (7, 1), np.complex128)
    cases = [
        (lambda: F.fft(a, out=ferrocm.zeros((4, 5), np.complex128, device=device)),
         "out has shape (4, 5) but fft returns shape (4, 6): pass an out of that shape", []),
        (lambda: F.fft(a, out=c64), "out has dtype complex64 but fft returns complex128: pass an out of dtype complex128", [c64]),
        (lambda: F.irfft(a, out=r), "out has shape (4, 6) but irfft returns shape (4, 10)", [r]),
        (lambda: F.rfft(r, out=ferrocm.zeros((4, 4), np.complex64, device=device)), "out has dtype complex64", []),
        (lambda: F.fftn(a, out=[0]), "out must be a ferrocm Array or a DLPack array", []),
        # The last transform reads the input itself: a partial overlap cannot work.
        (lambda: F.fft(big[:4], out=big[2:6]), "out overlaps the input of this complex transform without being it", [big]),
        (lambda: F.rfft(real_in, out=overlapping), "out overlaps the input of this real transform", [big]),
    ]
    other = [d for d in DEVICES if d != device]
    if other:
        cases.append((lambda: F.fft(a, out=ferrocm.zeros((4, 6), np.complex128, device=other[0])), "out is on device", []))
    if not device.is_gpu:
        ro = np.zeros((4, 6), np.complex128)
        ro.flags.writeable = False
        cases.append((lambda: F.fft(a, out=ro), "read-only", []))
    return cases, a, x


@pytest.mark.parametrize("case", range(9))
def test_out_errors_name_what_was_wrong_and_write_nothing(device, case):
    cases, a, x = _out_errors(device)
    if case >= len(cases):
        pytest.skip("needs another device")
    fn, text, watched = cases[case]
    before = [w.numpy() for w in watched]
    with pytest.raises(ValueError) as info:
        fn()
    assert text in str(info.value)
    np.testing.assert_array_equal(a.numpy(), x)
    for w, b in zip(watched, before):
        np.testing.assert_array_equal(w.numpy(), b)
