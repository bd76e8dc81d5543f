"""Python call overhead, ferrocm against CuPy in the same process: filling a small array with
uniforms (a generator call, synchronized), a no-op device call (querying an idle stream), a small
FFT (1024 complex64 points) and a small GEMM (64 x 64 x 64 float32), each synchronized. Inputs are
fresh random values, and every result is checked against NumPy before timing. Prints one JSON
line per row and a table; medians of many repetitions. With CuPy present, each row's two sides
are timed interleaved (alternating blocks of calls), so drift in the machine's speed during a
run lands on both sides alike."""

import json
import statistics
import time

import numpy as np

import ferrocm
import ferrocm.blas
import ferrocm.fft
import ferrocm.random


def median_us(fn, reps=2000, warm=200):
    for _ in range(warm):
        fn()
    samples = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples) * 1e6


def median_pair_us(ours, theirs, reps=2000, warm=200, block=50):
    """Medians of `reps` calls of each, timed in alternating blocks of `block` calls."""
    for _ in range(warm):
        ours()
        theirs()
    a, b = [], []
    while len(a) < reps:
        for fn, samples in ((ours, a), (theirs, b)):
            for _ in range(block):
                t = time.perf_counter()
                fn()
                samples.append(time.perf_counter() - t)
    return statistics.median(a) * 1e6, statistics.median(b) * 1e6


def main():
    gpu = next((d for d in ferrocm.devices() if d.is_gpu), None)
    dev = gpu or ferrocm.devices()[0]
    n = 1024
    g = ferrocm.random.Generator("philox", seed=1, device=dev)
    out = ferrocm.empty(n, device=dev)
    s = ferrocm.current_stream(dev)
    g.uniform(out=out)
    assert (out.numpy() > 0).all(), "the fast path must compute real values before timing"
    rows = []

    def ours_fill():
        g.uniform(out=out)
        s.synchronize()

    rows.append(["uniform f32 x1024 + sync", ours_fill, 2000, 200, None])
    rows.append(["no-op call (idle stream query)", s.query, 2000, 200, None])

    rng = np.random.default_rng(2)
    sig = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    fa = ferrocm.asarray(sig, device=dev)
    ref = np.fft.fft(sig.astype(np.complex128))
    got = ferrocm.fft.fft(fa).numpy()
    assert np.linalg.norm(got - ref) / np.linalg.norm(ref) < 2e-5, "fft must be right before timing"

    def ours_fft():
        ferrocm.fft.fft(fa)
        s.synchronize()

    rows.append(["fft c64 x1024 + sync", ours_fft, 500, 50, None])
    m = 64
    ha, hb = (rng.standard_normal((m, m)).astype(np.float32) for _ in range(2))
    ga, gb, gc = (ferrocm.asarray(h, device=dev) for h in (ha, hb, np.zeros((m, m), np.float32)))
    ferrocm.blas.gemm(ga, gb, gc)
    want = ha.astype(np.float64) @ hb.astype(np.float64)
    assert np.abs(gc.numpy() - want).max() < 1e-3, "gemm must be right before timing"

    def ours_gemm():
        ferrocm.blas.gemm(ga, gb, gc)
        s.synchronize()

    rows.append(["gemm f32 64^3 + sync", ours_gemm, 500, 50, None])
    try:
        import cupy as cp
        from cupy.cuda import curand

        x = cp.empty(n, dtype=cp.float32)
        cg = curand.createGenerator(curand.CURAND_RNG_PSEUDO_PHILOX4_32_10)
        curand.setPseudoRandomGeneratorSeed(cg, 1)
        stream = cp.cuda.get_current_stream()

        def theirs_fill():
            curand.generateUniform(cg, x.data.ptr, n)
            stream.synchronize()

        theirs_fill()
        assert float(cp.min(x)) > 0.0
        rows[0][4] = theirs_fill
        rows[1][4] = lambda: stream.done
        cx = cp.asarray(sig)
        assert np.linalg.norm(cp.asnumpy(cp.fft.fft(cx)) - ref) / np.linalg.norm(ref) < 2e-5

        def theirs_fft():
            cp.fft.fft(cx)
            stream.synchronize()

        rows[2][4] = theirs_fft
        ca, cb, cc = cp.asarray(ha), cp.asarray(hb), cp.zeros((m, m), cp.float32)
        cp.matmul(ca, cb, out=cc)
        assert np.abs(cp.asnumpy(cc) - want).max() < 1e-3

        def theirs_gemm():
            cp.matmul(ca, cb, out=cc)
            stream.synchronize()

        rows[3][4] = theirs_gemm
    except ImportError:
        pass
    timed = []
    for name, ours, reps, warm, theirs in rows:
        if theirs is None:
            timed.append((name, median_us(ours, reps=reps, warm=warm), None))
        else:
            timed.append((name, *median_pair_us(ours, theirs, reps=reps, warm=warm)))
    print(f"device: {dev.name}")
    print(f"{'call':<34} {'ferrocm us':>11} {'cupy us':>9} {'ratio':>7}")
    for name, ours, theirs in timed:
        ratio = None if theirs is None else ours / theirs
        print(json.dumps({"bench": "python", "metric": name, "ferrocm_us": ours, "cupy_us": theirs, "ratio": ratio}))
        r = "-" if ratio is None else f"{ratio:.2f}"
        t = "-" if theirs is None else f"{theirs:.2f}"
        print(f"{name:<34} {ours:>11.2f} {t:>9} {r:>7}")


if __name__ == "__main__":
    main()
