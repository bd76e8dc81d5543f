#!/usr/bin/env python3
"""Known answers for cuRAND's MTGP32 host API (tests/data/curand_host_mtgp32.txt).

    python3 curand_host_mtgp32.py OUT.txt            # cuRAND's CPU generator (no GPU needed)
    python3 curand_host_mtgp32.py OUT.txt --device   # also the GPU generator; fails on any difference

Loads libcurand as tools/curand_host_layout.py does (CURAND_LIB_DIR, site-packages, /usr/local/cuda).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import curand_host_layout as L  # noqa: E402

L.TYPES["mtgp"] = 141


def generate(dist, seed, count, device, calls=1):
    import ctypes
    g = ctypes.c_void_p()
    create = L.LIB.curandCreateGenerator if device else L.LIB.curandCreateGeneratorHost
    L.check(create(ctypes.byref(g), 141), "create")
    L.check(L.LIB.curandSetPseudoRandomGeneratorSeed(g, ctypes.c_ulonglong(seed)), "seed")
    dtype = np.float32 if dist == "uniform" else np.uint32
    out = None
    for _ in range(calls):
        if device:
            import cupy as cp
            buf = cp.empty(count, dtype)
            ptr = ctypes.c_void_p(buf.data.ptr)
        else:
            host = np.empty(count, dtype)
            ptr = host.ctypes.data_as(ctypes.c_void_p)
        f = L.LIB.curandGenerateUniform if dist == "uniform" else L.LIB.curandGenerate
        L.check(f(g, ptr, L.SZ(count)), dist)
        if device:
            cp.cuda.Device().synchronize()
            host = cp.asnumpy(buf)
        out = host
    L.LIB.curandDestroyGenerator(g)
    return out


CASES = [("u32", 1234, 49152 * 2 + 1000, 1), ("u32", 0, 4096, 1), ("u32", (7 << 32) + 99, 300000, 1),
         ("u32", 1234, (1 << 20) + 12, 1), ("u32_second_call", 1234, 60000, 2), ("uniform", 1234, 70000, 1)]


def main():
    device = "--device" in sys.argv
    lines = ["# cuRAND 10400 MTGP32 host API (curandGenerate, curandGenerateUniform), CPU generator; see tests/data/README.md"]
    bad = 0
    for dist, seed, n, calls in CASES:
        a = generate(dist, seed, n, False, calls)
        if device:
            same = bool(np.array_equal(a, generate(dist, seed, n, True, calls)))
            bad += not same
            print(f"{'same' if same else 'DIFFERENT'}: GPU and CPU MTGP32, {dist} seed {seed} count {n}", flush=True)
        if dist == "u32":
            w = sorted({x for x in [0, 255, 256, 49150, 49152, n - 8] + [k * n // 5 for k in range(1, 5)] if x <= n - 8})
        else:
            w = [0]
        vals = " ".join(str(int(x)) for s in w for x in L.bits(a[s:s + 8]))
        lines.append(f"dist={dist} seed={seed} count={n} digest={L.digest(a)} windows={','.join(map(str, w))} : {vals}")
    open(sys.argv[1], "w").write("\n".join(lines) + "\n")
    print(f"{len(CASES)} MTGP32 cases; {bad} differ between GPU and CPU generators")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
