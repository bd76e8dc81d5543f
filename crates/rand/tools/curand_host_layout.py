#!/usr/bin/env python3
"""Known answers for cuRAND's host-API layouts (legacy ordering of ferrocm), long streams.

    python3 curand_host_layout.py OUT.txt            # cuRAND's CPU generator (no GPU needed)
    python3 curand_host_layout.py OUT.txt --device   # also the GPU generator; fails on any difference

Uses libcurand through ctypes: `curandCreateGeneratorHost` (cuRAND's host CPU generator, which
runs without a GPU: `pip download nvidia-curand==10.4.0.35 nvidia-cuda-runtime==13.0.96` and
point CURAND_LIB_DIR at the unpacked `nvidia/cu13/lib`), and with --device also
`curandCreateGenerator` on the GPU, whose outputs must equal the CPU generator's (bit for bit
for integers and uniforms, within 1e-5 relative for normals).

Each line: `gen= dist= seed= offset= count= digest= windows=a,b,... : values`. `digest` is
`sum_i mix(bits_i ^ mix(i)) mod 2^64` over all `count` outputs (`mix` = splitmix64's
finaliser, `bits` the value's IEEE bit pattern or integer, zero-extended), `-` for float normals
(compared by windows, within a tolerance); `values` are 8 outputs at each window start, as bits.
The same digest is in `tests/common/mod.rs`.
"""
import ctypes
import glob
import os
import sys

import numpy as np

TYPES = dict(philox=161, xorwow=101, mrg=121)
# Subsequences (Philox: blocks) each generator interleaves; its layout boundaries.
STATES = dict(philox=65536, xorwow=4096, mrg=81920)


def load():
    dirs = [os.environ.get("CURAND_LIB_DIR", "")] + glob.glob("/usr/local/cuda*/lib64")
    for site in sys.path:
        dirs += glob.glob(os.path.join(site, "nvidia", "cu1*", "lib")) + glob.glob(os.path.join(site, "nvidia", "curand", "lib"))
    for d in dirs:
        p = os.path.join(d, "libcurand.so.10")
        if d and os.path.exists(p):
            rt = glob.glob(os.path.join(d, "libcudart.so.1*"))
            if rt:
                ctypes.CDLL(rt[0], mode=ctypes.RTLD_GLOBAL)
            return ctypes.CDLL(p)
    return ctypes.CDLL("libcurand.so.10")


LIB = load()
SZ = ctypes.c_size_t


def check(status, what):
    if status != 0:
        raise RuntimeError(f"{what}: curandStatus {status}")


def generate(kind, dist, seed, offset, count, device):
    g = ctypes.c_void_p()
    create = LIB.curandCreateGenerator if device else LIB.curandCreateGeneratorHost
    check(create(ctypes.byref(g), TYPES[kind]), "create")
    check(LIB.curandSetPseudoRandomGeneratorSeed(g, ctypes.c_ulonglong(seed)), "seed")
    check(LIB.curandSetGeneratorOffset(g, ctypes.c_ulonglong(offset)), "offset")
    name, param = (dist.split(":") + [None])[:2]
    dtype = {"u32": np.uint32, "uniform": np.float32, "normal": np.float32, "log_normal": np.float32,
             "poisson": np.uint32}.get(name, np.float64)
    host = np.empty(count, dtype)
    if device:
        import cupy as cp
        buf = cp.empty(count, dtype)
        ptr = ctypes.c_void_p(buf.data.ptr)
    else:
        ptr = host.ctypes.data_as(ctypes.c_void_p)
    f, d = ctypes.c_float, ctypes.c_double
    call = {
        "u32": lambda: LIB.curandGenerate(g, ptr, SZ(count)),
        "uniform": lambda: LIB.curandGenerateUniform(g, ptr, SZ(count)),
        "uniform_double": lambda: LIB.curandGenerateUniformDouble(g, ptr, SZ(count)),
        "normal": lambda: LIB.curandGenerateNormal(g, ptr, SZ(count), f(0.0), f(1.0)),
        "normal_double": lambda: LIB.curandGenerateNormalDouble(g, ptr, SZ(count), d(0.0), d(1.0)),
        "log_normal": lambda: LIB.curandGenerateLogNormal(g, ptr, SZ(count), f(0.5), f(0.75)),
        "log_normal_double": lambda: LIB.curandGenerateLogNormalDouble(g, ptr, SZ(count), d(0.5), d(0.75)),
        "poisson": lambda: LIB.curandGeneratePoisson(g, ptr, SZ(count), d(float(param or 4))),
    }[name]
    check(call(), f"{kind} {dist}")
    if device:
        import cupy as cp
        cp.cuda.Device().synchronize()
        host = cp.asnumpy(buf)
    LIB.curandDestroyGenerator(g)
    return host


def mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def bits(a):
    return a.view(np.uint32 if a.itemsize == 4 else np.uint64).astype(np.uint64)


def digest(a):
    with np.errstate(over="ignore"):
        i = np.arange(len(a), dtype=np.uint64)
        return int(np.sum(mix(bits(a) ^ mix(i)), dtype=np.uint64))


def windows(kind, count):
    t = STATES[kind]
    marks = [0, count - 8, 1000, 1001 - 8] + [k * count // 7 for k in range(1, 7)]
    for b in [t, 2 * t, 3 * t, 4 * t, 8 * t, 16 * t, 64 * t, 4 * 65536, 1 << 20, 1 << 22, 1 << 24]:
        marks.append(b - 4)
    return sorted({m for m in marks if 0 <= m <= count - 8})


BIG = (1 << 32) + 5
CASES = []
for kind in ["philox", "xorwow", "mrg"]:
    c = lambda dist, offset, count, seed=1234: CASES.append((kind, dist, seed, offset, count))
    c("u32", 0, (1 << 24) + 4)
    c("u32", 1, (1 << 18) + 3, seed=0)
    c("u32", 3, 1000)
    c("u32", 1000, 1 << 20)
    c("u32", BIG, 4096 + 12, seed=7)
    c("uniform", 0, (1 << 20) + 4)
    c("uniform", 1001, 1 << 18)
    c("uniform_double", 0, 1 << 20)
    c("uniform_double", 1, (1 << 18) + 2)
    c("uniform_double", 1000, 1 << 18)
    c("uniform_double", BIG + 1, 1 << 16)
    c("normal", 0, 1 << 20)
    c("normal", 1, 1 << 18)
    c("normal", 3, (1 << 18) + 2, seed=7)
    c("normal", 1000, 1 << 19, seed=12345)
    c("normal", BIG + 2, 1 << 16)
    c("normal_double", 0, 1 << 19)
    c("normal_double", 1, 1 << 18)
    c("normal_double", 1000, 1 << 18)
    c("log_normal", 0, 1 << 18)
    c("log_normal", 1001, 1 << 18)
    c("log_normal_double", 0, 1 << 18)
    c("log_normal_double", 3, 1 << 17)
    c("poisson:4", 0, 1 << 20)
    c("poisson:4", 1001, 1 << 18)
    c("poisson:5000", 0, 1 << 18)
    c("poisson:5000", 3, 1 << 17)
    # Up to the end of the 64-bit offset range (ferrocm refuses to go past it).
    for dist in ["u32", "uniform_double", "normal", "normal_double", "poisson:5000"]:
        c(dist, (1 << 64) - 4096, 4096)


def close(a, b, dist):
    if dist.split(":")[0] in ("normal", "log_normal"):
        a, b = a.astype(np.float64), b.astype(np.float64)
        return bool(np.all(np.abs(a - b) <= 1e-5 * np.maximum(1.0, np.abs(b))))
    if dist.startswith("poisson:5000"):
        return bool(np.all(np.abs(a.astype(np.int64) - b.astype(np.int64)) <= 1))
    if dist.split(":")[0] in ("normal_double", "log_normal_double"):
        return bool(np.all(np.abs(a - b) <= 1e-13 * np.maximum(1.0, np.abs(b))))
    return bool(np.array_equal(a, b))


def main():
    out = sys.argv[1]
    device = "--device" in sys.argv
    v = ctypes.c_int()
    LIB.curandGetVersion(ctypes.byref(v))
    lines = [f"# cuRAND {v.value} host-API layouts, written by tools/curand_host_layout.py (see tests/data/README.md)"]
    bad = 0
    for kind, dist, seed, offset, count in CASES:
        a = generate(kind, dist, seed, offset, count, False)
        if device:
            b = generate(kind, dist, seed, offset, count, True)
            ok = close(b, a, dist)
            bad += not ok
            print(f"{'same' if ok else 'DIFFERENT'}: GPU and CPU generators, {kind} {dist} offset {offset} count {count}", flush=True)
        exact = dist in ("u32", "uniform", "uniform_double", "poisson:4")
        w = windows(kind, count)
        vals = " ".join(str(int(x)) for s in w for x in bits(a[s:s + 8]))
        dg = digest(a) if exact else "-"
        lines.append(f"gen={kind} dist={dist} seed={seed} offset={offset} count={count} digest={dg} "
                     f"windows={','.join(map(str, w))} : {vals}")
    open(out, "w").write("\n".join(lines) + "\n")
    print(f"{len(CASES)} cases written to {out}; {bad} differ between GPU and CPU generators")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
