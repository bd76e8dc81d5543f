"""Python call overhead, ferrocm against CuPy in the same process: filling a small array with
uniforms (a generator call, synchronized) and a no-op device call (querying an idle stream).
Prints one JSON line per row and a table; medians of many repetitions."""

import json
import statistics
import time

import numpy as np

import ferrocm
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

    rows.append(("uniform f32 x1024 + sync", median_us(ours_fill), None))
    rows.append(("no-op call (idle stream query)", median_us(s.query), None))
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
        rows[0] = (rows[0][0], rows[0][1], median_us(theirs_fill))
        rows[1] = (rows[1][0], rows[1][1], median_us(lambda: stream.done))
    except ImportError:
        pass
    print(f"device: {dev.name}")
    print(f"{'call':<34} {'ferrocm us':>11} {'cupy us':>9} {'ratio':>7}")
    for name, ours, theirs in rows:
        ratio = None if theirs is None else ours / theirs
        print(json.dumps({"bench": "python", "metric": name, "ferrocm_us": ours, "cupy_us": theirs, "ratio": ratio}))
        r = "-" if ratio is None else f"{ratio:.2f}"
        t = "-" if theirs is None else f"{theirs:.2f}"
        print(f"{name:<34} {ours:>11.2f} {t:>9} {r:>7}")


if __name__ == "__main__":
    main()
