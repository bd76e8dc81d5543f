"""ferrocm.blas.matmul with broadcast batch dimensions and ferrocm.fft with out=, against CuPy on
the same GPU arrays in one process. Every case is checked first on fresh random inputs against a
float64 NumPy reference (outputs poisoned with NaN beforehand, so an unwritten element fails),
then timed: median of host-clock times around the call and a synchronize of the library's
stream, after warm-up. Prints one JSON line per case and a table (ratio = ferrocm / CuPy)."""

import json
import statistics
import sys
import time

import numpy as np

import ferrocm
import ferrocm.blas
import ferrocm.fft


def median_ms(fn, sync, reps=30, warm=5):
    for _ in range(warm):
        fn()
    sync()
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        sync()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples) * 1e3


def rel_err(got, ref):
    return float(np.linalg.norm(got.astype(ref.dtype) - ref) / np.linalg.norm(ref))


def main():
    import cupy as cp

    gpu = next((d for d in ferrocm.devices() if d.is_gpu), None)
    if gpu is None:
        print("no GPU: nothing to compare")
        return 2
    ours_sync = ferrocm.current_stream(gpu).synchronize
    rng = np.random.default_rng(int(time.time()))
    rows = []
    with cp.cuda.Device(gpu.ordinal):
        theirs_sync = cp.cuda.get_current_stream().synchronize
        # Broadcast batched GEMM: (4, 1, 32) against (16, 1) batches of 256^3 float32 products
        # (2048 products, 69 GFLOP): merged to one strided-batched launch per index of the
        # non-merging batch dimension.
        a_h = rng.standard_normal((4, 1, 32, 256, 256)).astype(np.float32)
        b_h = rng.standard_normal((16, 1, 256, 256)).astype(np.float32)
        a, b = cp.asarray(a_h), cp.asarray(b_h)
        out = cp.full((4, 16, 32, 256, 256), np.nan, np.float32)
        ferrocm.blas.matmul(a, b, out=out)
        ours_sync()
        sample = (slice(None), slice(None, None, 5), slice(None, None, 7))
        ref = np.matmul(a_h[:, :, ::7].astype(np.float64), b_h[::5].astype(np.float64))
        err = rel_err(cp.asnumpy(out[sample]), ref)
        assert err < 1e-5, f"matmul error {err}"
        assert rel_err(cp.asnumpy(cp.matmul(a, b)[sample]), ref) < 1e-3
        flops = 2 * 4 * 16 * 32 * 256**3
        t_ours = median_ms(lambda: ferrocm.blas.matmul(a, b, out=out), ours_sync)
        t_new = median_ms(lambda: ferrocm.blas.matmul(a, b), ours_sync)
        t_cp = median_ms(lambda: cp.matmul(a, b, out=out), theirs_sync)
        rows.append(("matmul f32 (4,1,32,256,256)@(16,1,256,256) out=", t_ours, t_cp, err, flops / t_ours / 1e9))
        rows.append(("matmul same, new result", t_new, t_cp, err, flops / t_new / 1e9))
        # A batch of transposed views (one buffer) against one matrix: one launch, no copy.
        at = cp.asarray(rng.standard_normal((512, 128, 256)).astype(np.float32)).transpose(0, 2, 1)
        bt = cp.asarray(rng.standard_normal((128, 64)).astype(np.float32))
        ref = np.matmul(cp.asnumpy(at).astype(np.float64), cp.asnumpy(bt).astype(np.float64))
        err = rel_err(ferrocm.blas.matmul(at, bt).numpy(), ref)
        assert err < 1e-5, f"transposed matmul error {err}"
        t_ours = median_ms(lambda: ferrocm.blas.matmul(at, bt), ours_sync)
        t_cp = median_ms(lambda: cp.matmul(at, bt), theirs_sync)
        rows.append(("matmul f32 (512,256,128)^T-views@(128,64)", t_ours, t_cp, err, 2 * 512 * 256 * 128 * 64 / t_ours / 1e9))
        # FFT into out (no allocation per call) and in place, against cupy.fft.fft.
        x_h = (rng.standard_normal((4096, 1024)) + 1j * rng.standard_normal((4096, 1024))).astype(np.complex64)
        x = cp.asarray(x_h)
        spec = cp.full(x.shape, np.nan, np.complex64)
        ferrocm.fft.fft(x, out=spec)
        ours_sync()
        ref = np.fft.fft(x_h[::97].astype(np.complex128))
        err = rel_err(cp.asnumpy(spec[::97]), ref)
        assert err < 2e-5, f"fft error {err}"
        y = x.copy()
        t_ours = median_ms(lambda: ferrocm.fft.fft(x, out=spec), ours_sync)
        t_cp = median_ms(lambda: cp.fft.fft(x), theirs_sync)
        rows.append(("fft c64 4096 x 1024 out=", t_ours, t_cp, err, None))
        # In place: a forward and an inverse transform per repetition keep the values bounded.
        t_inplace = median_ms(lambda: (ferrocm.fft.fft(y, out=y), ferrocm.fft.ifft(y, out=y)), ours_sync)
        t_cp = median_ms(lambda: cp.fft.ifft(cp.fft.fft(x)), theirs_sync)
        err = rel_err(cp.asnumpy(y[::97]), x_h[::97].astype(np.complex128))
        assert err < 2e-5, f"fft/ifft in place error {err}"
        rows.append(("fft+ifft c64 4096 x 1024 in place (out=a)", t_inplace, t_cp, err, None))
    for name, ours, theirs, err, gflops in rows:
        print(json.dumps({"case": name, "ferrocm_ms": ours, "cupy_ms": theirs, "ratio": ours / theirs,
                          "rel_err": err, "ferrocm_gflops": gflops}))
    print(f"{'case':48} {'ferrocm ms':>10} {'cupy ms':>9} {'ratio':>6}")
    for name, ours, theirs, _, _ in rows:
        print(f"{name:48} {ours:10.3f} {theirs:9.3f} {ours / theirs:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
