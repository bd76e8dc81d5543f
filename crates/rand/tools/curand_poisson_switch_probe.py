#!/usr/bin/env python3
"""Find the lambdas where cuRAND's host-API Poisson changes method (companion of
curand_poisson_probe.py, whose findings are in crates/rand/src/reference/host_poisson.rs).

Run on a machine with an NVIDIA GPU, CuPy and cuRAND:

    python3 curand_poisson_switch_probe.py

For a lambda, each candidate method is computed in numpy from the generator's raw stream (or,
for the pseudo-random Gaussian method, its float normals) and compared with
`curandGeneratePoisson`; the method that matches (nearly) every value names the lambda. The
switch points are then bisected to adjacent doubles, assuming one switch per interval:
- `curandCreatePoissonDistribution`'s table method (M2 below, DISCRETE_GAUSS above);
- Philox (and XORWOW, MRG32k3a checked at both sides) between 1000 and 2000;
- Sobol32 between 4 and 10, and between 5000 and 20,000;
- the largest lambda `curandCreatePoissonDistribution` and `curandGeneratePoisson` accept
  (1e5 was accepted, 1e6 refused).
Prints one line per finding.
"""
import ctypes
import math
import statistics

import cupy as cp
import numpy as np

from curand_poisson_probe import P, ck, generator, lib, read

N = 4096
ND = statistics.NormalDist()


def table(lam):
    dd = P()
    ck(lib.curandCreatePoissonDistribution(ctypes.c_double(lam), ctypes.byref(dd)), f"create {lam}")
    d = read(dd.value, 48)
    m2, = d[8:16].view(np.uint64)
    method, = d[40:44].view(np.uint32)
    out = {"method": int(method)}
    if m2 and method == 5:
        m = read(int(m2), 28)
        hist, = m[0:8].view(np.uint64)
        shift, length = (int(x) for x in m[16:24].view(np.uint32))
        vptr, _, kptr, _ = read(int(hist), 32).view(np.uint64)
        out.update(shift=shift, V=read(int(vptr), 8 * length).view(np.float64).copy(),
                   K=read(int(kptr), 4 * length).view(np.uint32).copy())
    ck(lib.curandDestroyDistribution(dd), "destroy")
    return out


def stream(rng, quasi, call, dtype):
    g = generator(rng, quasi)
    a = cp.zeros(N, dtype=dtype)
    ck(call(g, P(a.data.ptr), ctypes.c_size_t(N)), "generate")
    cp.cuda.Device().synchronize()
    lib.curandDestroyGenerator(g)
    return cp.asnumpy(a)


def poisson(rng, quasi, lam):
    return stream(rng, quasi, lambda g, p, n: lib.curandGeneratePoisson(g, p, n, ctypes.c_double(lam)), np.uint32)


def raw(rng, quasi):
    return stream(rng, quasi, lambda g, p, n: lib.curandGenerate(g, p, n), np.uint32)


def normals(rng):
    return stream(rng, False, lambda g, p, n: lib.curandGenerateNormal(g, p, n, ctypes.c_float(0.0),
                                                                        ctypes.c_float(1.0)), np.float32)


def m2(x, t):
    u = x.astype(np.float64) * 2.0 ** -32 + 2.0 ** -32
    n = len(t["V"])
    j = np.minimum((u * n).astype(np.int64), n - 1)
    return np.where(u < t["V"][j], j, t["K"][j]) + t["shift"]


def inverse_cdf(x, lam):
    k = np.arange(0, int(lam + 60 * math.sqrt(lam) + 60))
    lnf = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, len(k))))])
    cdf = np.cumsum(np.exp(k * math.log(lam) - lam - lnf))
    u = x.astype(np.float64) * 2.0 ** -32 + 2.0 ** -32
    return np.minimum(np.searchsorted(cdf, u, side="left"), len(k) - 1)


def gauss(z, lam):
    return np.floor(math.sqrt(lam) * z.astype(np.float64) + lam + 0.5).astype(np.int64)


def classify(rng, quasi, lam, cache):
    got = poisson(rng, quasi, lam).astype(np.int64)
    x = cache.setdefault(("raw", rng), raw(rng, quasi))
    scores = {}
    t = table(lam)
    if t["method"] == 5:
        scores["histogram"] = float(np.mean(m2(x, t) == got))
    if quasi:
        scores["inverse_cdf"] = float(np.mean(inverse_cdf(x, lam) == got))
        z = cache.setdefault(("icdf", rng), np.array([ND.inv_cdf(float(v) * 2.0 ** -32 + 2.0 ** -33) for v in x]))
        scores["gauss"] = float(np.mean(gauss(z, lam) == got))
    else:
        z = cache.setdefault(("normal", rng), normals(rng))
        scores["gauss"] = float(np.mean(gauss(z, lam) == got))
    best = max(scores, key=scores.get)
    return best, scores


def bisect(lo, hi, side, what):
    """Adjacent doubles lo < hi with side(lo) != side(hi)."""
    s_lo = side(lo)
    for _ in range(80):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if side(mid) == s_lo:
            lo = mid
        else:
            hi = mid
    print(f"{what}: {s_lo} up to {lo!r}, {side(hi)} from {hi!r}", flush=True)
    return lo, hi


def accepted(lam):
    dd = P()
    st = lib.curandCreatePoissonDistribution(ctypes.c_double(lam), ctypes.byref(dd))
    if st == 0:
        lib.curandDestroyDistribution(dd)
    return st


def main():
    cache = {}
    lo, hi = bisect(1e5, 1e6, accepted, "curandCreatePoissonDistribution status")
    for lam in (lo, hi):
        g = generator(161, False)
        a = cp.zeros(16, dtype=np.uint32)
        st = lib.curandGeneratePoisson(g, P(a.data.ptr), ctypes.c_size_t(16), ctypes.c_double(lam))
        lib.curandDestroyGenerator(g)
        print("curandGeneratePoisson", repr(lam), "status", st, flush=True)
    bisect(1000.0, 2000.0, lambda lam: table(lam)["method"], "curandCreatePoissonDistribution method")
    philox, xorwow, mrg, sobol = 161, 101, 121, 201
    for lam in (1000.0, 1250.0, 1500.0, 1750.0, 2000.0):
        print("philox", lam, classify(philox, False, lam, cache), flush=True)
    lo, hi = bisect(1000.0, 2000.0, lambda lam: classify(philox, False, lam, cache)[0], "philox Poisson")
    for name, rng in (("xorwow", xorwow), ("mrg", mrg)):
        print(name, lo, classify(rng, False, lo, cache), hi, classify(rng, False, hi, cache), flush=True)
    for lam in (4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 5000.0, 7500.0, 10000.0, 15000.0, 20000.0):
        print("sobol32", lam, classify(sobol, True, lam, cache), flush=True)
    bisect(4.0, 10.0, lambda lam: classify(sobol, True, lam, cache)[0], "sobol32 Poisson (low)")
    bisect(5000.0, 20000.0, lambda lam: classify(sobol, True, lam, cache)[0], "sobol32 Poisson (high)")


if __name__ == "__main__":
    main()
