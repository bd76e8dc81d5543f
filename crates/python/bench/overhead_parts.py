"""Where the time of bench_overhead.py's synchronized calls goes, ferrocm against CuPy in one
process: each call without its synchronize (host cost of queuing), a synchronize of an idle
stream, and the call plus synchronize. Medians of many repetitions, in microseconds."""

import numpy as np
from bench_overhead import median_us  # this folder: the script's own directory is on sys.path

import ferrocm
import ferrocm.blas
import ferrocm.fft
import ferrocm.random


def main():
    import cupy as cp
    from cupy.cuda import curand

    gpu = next(d for d in ferrocm.devices() if d.is_gpu)
    n, m = 1024, 64
    rng = np.random.default_rng(3)
    s = ferrocm.current_stream(gpu)
    g = ferrocm.random.Generator("philox", seed=1, device=gpu)
    out = ferrocm.empty(n, device=gpu)
    sig = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
    fa = ferrocm.asarray(sig, device=gpu)
    ha, hb = (rng.standard_normal((m, m)).astype(np.float32) for _ in range(2))
    ga, gb, gc = (ferrocm.asarray(h, device=gpu) for h in (ha, hb, np.zeros((m, m), np.float32)))
    x = cp.empty(n, dtype=cp.float32)
    cg = curand.createGenerator(curand.CURAND_RNG_PSEUDO_PHILOX4_32_10)
    curand.setPseudoRandomGeneratorSeed(cg, 1)
    cs = cp.cuda.get_current_stream()
    cx = cp.asarray(sig)
    ca, cb, cc = cp.asarray(ha), cp.asarray(hb), cp.zeros((m, m), cp.float32)
    calls = [
        ("uniform f32 x1024", lambda: g.uniform(out=out), lambda: curand.generateUniform(cg, x.data.ptr, n)),
        ("fft c64 x1024 (new result)", lambda: ferrocm.fft.fft(fa), lambda: cp.fft.fft(cx)),
        ("gemm f32 64^3 (out given)", lambda: ferrocm.blas.gemm(ga, gb, gc), lambda: cp.matmul(ca, cb, out=cc)),
        ("empty(1024) f32", lambda: ferrocm.empty(n, device=gpu), lambda: cp.empty(n, dtype=cp.float32)),
    ]
    print(f"{'part':<44} {'ferrocm us':>10} {'cupy us':>9} {'ratio':>6}")

    def row(name, ours, theirs):
        print(f"{name:<44} {ours:>10.2f} {theirs:>9.2f} {ours / theirs:>6.2f}")

    row(
        "synchronize, idle stream",
        median_us(s.synchronize, reps=3000, warm=300),
        median_us(cs.synchronize, reps=3000, warm=300),
    )
    for name, ours, theirs in calls:
        # Queued back to back without a synchronize: the host's cost per call (the device keeps up
        # with these small kernels, or the queue fills and both sides wait alike).
        o = median_us(ours, reps=2000, warm=200)
        s.synchronize()
        t = median_us(theirs, reps=2000, warm=200)
        cs.synchronize()
        row(name + ", no sync", o, t)

        def ours_sync(f=ours):
            f()
            s.synchronize()

        def theirs_sync(f=theirs):
            f()
            cs.synchronize()

        row(name + " + sync", median_us(ours_sync, reps=1000, warm=100), median_us(theirs_sync, reps=1000, warm=100))


if __name__ == "__main__":
    main()
