#!/usr/bin/env python3
"""Known answers for cuRAND's MTGP32 host API beyond 32-bit values and uniforms
(tests/data/curand_host_mtgp32_dists.txt): doubles, normals, log-normals and Poisson.

    python3 curand_host_mtgp32_dists.py OUT.txt            # cuRAND's CPU generator (no GPU needed)
    python3 curand_host_mtgp32_dists.py OUT.txt --device   # also the GPU generator; fails on any difference

The calls and the record format are tools/curand_host_mt19937.py's (its `generate` with
MTGP32's generator type); libcurand is loaded as tools/curand_host_layout.py does.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ctypes  # noqa: E402
import numpy as np  # noqa: E402
import curand_host_layout as L  # noqa: E402
import curand_host_mt19937 as M  # noqa: E402

M.MT19937 = 141  # CURAND_RNG_PSEUDO_MTGP32: `generate` creates this generator type instead
PASS = 192 * 256  # one round of each of the 192 generators

CASES = [  # dist, seed, counts of successive calls
    ("uniform_double", 1234, [20000]),
    ("normal", 1234, [20000]),
    ("normal", 99, [3001, PASS + 1001]),
    ("normal_double", 1234, [20000]),
    ("log_normal", 1234, [20000]),
    ("log_normal_double", 1234, [20000]),
    ("poisson:4", 1234, [20000]),
    ("poisson:31.99", 1234, [20000]),
    ("poisson:32", 1234, [3000, PASS + 5000]),
    ("poisson:1000", 1234, [20000]),
    ("poisson:8000", 1234, [20000]),
    ("poisson:8000.5", 1234, [20000]),
    ("poisson:20000", 1234, [20000]),
]


def main():
    device = "--device" in sys.argv
    v = ctypes.c_int()
    L.LIB.curandGetVersion(ctypes.byref(v))
    lines = [f"# cuRAND {v.value} MTGP32 host API, CPU generator; tools/curand_host_mtgp32_dists.py (see tests/data/README.md)"]
    bad = 0
    for dist, seed, counts in CASES:
        a = M.generate(dist, seed, counts)
        if device:
            ok = M.close(M.generate(dist, seed, counts, True), a, dist)
            bad += not ok
            print(f"{'same' if ok else 'DIFFERENT'}: GPU and CPU MTGP32, {dist} seed {seed} calls {counts}", flush=True)
        n = len(a)
        marks = [0, n - 8, 4088, PASS - 4, PASS + 96, counts[0] - 4] + [k * n // 5 for k in range(1, 5)]
        w = sorted({m for m in marks if 0 <= m <= n - 8})
        vals = " ".join(str(int(x)) for s in w for x in L.bits(a[s:s + 8]))
        exact = dist.split(":")[0] in ("uniform_double", "poisson")
        dg = L.digest(a) if exact else "-"
        lines.append(f"dist={dist} seed={seed} calls={','.join(map(str, counts))} count={n} digest={dg} "
                     f"windows={','.join(map(str, w))} : {vals}")
    open(sys.argv[1], "w").write("\n".join(lines) + "\n")
    print(f"{len(CASES)} MTGP32 cases; {bad} differ between GPU and CPU generators")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
