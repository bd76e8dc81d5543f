#!/usr/bin/env python3
"""Produce known-answer vectors from the real cuRAND (device API and host API).

Run on a machine with an NVIDIA GPU, CuPy and the CUDA toolkit headers:

    python3 curand_vectors.py OUTDIR

Writes OUTDIR/curand_device_vectors.txt, OUTDIR/curand_host_vectors.txt and
OUTDIR/host_raw.txt (long host-API streams, for layout analysis only).

Line format: space separated `key=value` tokens, then `:`, then the values as
unsigned decimal integers. Floats are written as their IEEE-754 bit patterns
(f32 zero-extended), so the files are exact.
"""
import ctypes
import ctypes.util
import glob
import os
import sys
import time
import traceback

import cupy as cp
import numpy as np

OUT = next((a for a in sys.argv[1:] if not a.startswith("--")), ".")
os.makedirs(OUT, exist_ok=True)
N = 48  # values per device case; divisible by 4

CUDA_SRC = r"""
#include <curand_kernel.h>
typedef unsigned long long u64;

__device__ __forceinline__ u64 fb(float f) { return (u64)__float_as_uint(f); }
__device__ __forceinline__ u64 db(double d) { return (u64)__double_as_longlong(d); }

__device__ int extra(curandStateXORWOW_t *, int, u64 *, int) { return 0; }
__device__ int extra(curandStateMRG32k3a_t *, int, u64 *, int) { return 0; }
__device__ int extra(curandStatePhilox4_32_10_t *s, int mode, u64 *o, int n) {
    switch (mode) {
    case 20: for (int i = 0; i < n; i += 4) { uint4 v = curand4(s); o[i] = v.x; o[i+1] = v.y; o[i+2] = v.z; o[i+3] = v.w; } return 1;
    case 21: for (int i = 0; i < n; i += 4) { float4 v = curand_uniform4(s); o[i] = fb(v.x); o[i+1] = fb(v.y); o[i+2] = fb(v.z); o[i+3] = fb(v.w); } return 1;
    case 22: for (int i = 0; i < n; i += 4) { float4 v = curand_normal4(s); o[i] = fb(v.x); o[i+1] = fb(v.y); o[i+2] = fb(v.z); o[i+3] = fb(v.w); } return 1;
#ifndef SAFE_MODE
    case 23: for (int i = 0; i < n; i += 2) { double2 v = curand_uniform2_double(s); o[i] = db(v.x); o[i+1] = db(v.y); } return 1;
    case 24: for (int i = 0; i < n; i += 4) { double4 v = curand_normal4_double(s); o[i] = db(v.x); o[i+1] = db(v.y); o[i+2] = db(v.z); o[i+3] = db(v.w); } return 1;
    case 25: for (int i = 0; i < n; i += 4) { uint4 v = curand_poisson4(s, 3.5); o[i] = v.x; o[i+1] = v.y; o[i+2] = v.z; o[i+3] = v.w; } return 1;
#endif
    case 26: for (int i = 0; i < n; i += 2) { o[i] = curand(s); uint4 v = curand4(s); o[i+1] = v.w; } return 1;
    }
    return 0;
}

template <typename S>
__device__ void run_mode(S *s, int mode, u64 *o, int n) {
    switch (mode) {
    case 0: for (int i = 0; i < n; i++) o[i] = curand(s); break;
    case 1: for (int i = 0; i < n; i++) o[i] = fb(curand_uniform(s)); break;
    case 2: for (int i = 0; i < n; i++) o[i] = fb(curand_normal(s)); break;
    case 3: for (int i = 0; i < n; i += 2) { float2 v = curand_normal2(s); o[i] = fb(v.x); o[i+1] = fb(v.y); } break;
    case 4: for (int i = 0; i < n; i++) o[i] = db(curand_uniform_double(s)); break;
    case 5: for (int i = 0; i < n; i++) o[i] = db(curand_normal_double(s)); break;
    case 6: for (int i = 0; i < n; i += 2) { double2 v = curand_normal2_double(s); o[i] = db(v.x); o[i+1] = db(v.y); } break;
    case 7: for (int i = 0; i < n; i++) o[i] = fb(curand_log_normal(s, 0.5f, 0.75f)); break;
    case 8: for (int i = 0; i < n; i++) o[i] = db(curand_log_normal_double(s, 0.5, 0.75)); break;
    case 9: for (int i = 0; i < n; i++) o[i] = curand_poisson(s, 3.5); break;
    case 10: for (int i = 0; i < n; i++) o[i] = curand_poisson(s, 100.0); break;
    case 11: for (int i = 0; i < n; i++) o[i] = curand_poisson(s, 5000.0); break;
    case 12:
        for (int i = 0; i < n; i++) {
            switch (i % 8) {
            case 0: o[i] = fb(curand_normal(s)); break;
            case 1: o[i] = curand(s); break;
            case 2: o[i] = fb(curand_normal(s)); break;
            case 3: o[i] = db(curand_normal_double(s)); break;
            case 4: o[i] = db(curand_uniform_double(s)); break;
            case 5: o[i] = fb(curand_log_normal(s, 0.0f, 1.0f)); break;
            case 6: o[i] = fb(curand_normal(s)); break;
            default: o[i] = fb(curand_uniform(s)); break;
            }
        }
        break;
#ifndef SAFE_MODE
    case 13: for (int i = 0; i < n; i += 2) { float2 v = curand_log_normal2(s, 0.5f, 0.75f); o[i] = fb(v.x); o[i+1] = fb(v.y); } break;
#endif
    case 14: for (int i = 0; i < n; i++) o[i] = curand_poisson(s, 63.5); break;
    case 15: for (int i = 0; i < n; i++) o[i] = curand_poisson(s, 0.25); break;
    default: extra(s, mode, o, n); break;
    }
}

#define KERNEL(NAME, STATE)                                                              \
extern "C" __global__ void NAME(const u64 *seeds, const u64 *subs, const u64 *offs,     \
                                const int *modes, u64 *out, int n) {                     \
    int c = blockIdx.x;                                                                  \
    if (threadIdx.x != 0) return;                                                        \
    STATE s;                                                                             \
    curand_init(seeds[c], subs[c], offs[c], &s);                                         \
    run_mode(&s, modes[c], out + (size_t)c * n, n);                                      \
}
KERNEL(k_philox, curandStatePhilox4_32_10_t)
KERNEL(k_xorwow, curandStateXORWOW_t)
KERNEL(k_mrg, curandStateMRG32k3a_t)
"""

MODE_NAMES = {
    0: "curand", 1: "uniform", 2: "normal", 3: "normal2", 4: "uniform_double",
    5: "normal_double", 6: "normal2_double", 7: "log_normal", 8: "log_normal_double",
    9: "poisson_3.5", 10: "poisson_100", 11: "poisson_5000", 12: "mixed",
    13: "log_normal2", 14: "poisson_63.5", 15: "poisson_0.25",
    20: "curand4", 21: "uniform4", 22: "normal4", 23: "uniform2_double",
    24: "normal4_double", 25: "poisson4_3.5", 26: "curand_curand4",
}
TRIPLES = [
    (0, 0, 0),
    (1234, 0, 0),
    (0, 1, 0),
    (0, 0, 1),
    (0xDEADBEEFCAFEBABE, 5, 7),
    (42, 1000003, 123456789),
    (0x123456789ABCDEF0, (1 << 40) + 3, (1 << 50) + 11),
    (7, 0, 3),
]
FULL_TRIPLES = [0, 1, 4, 6, 7]  # indices used for every mode, others only for curand


def log(*a):
    print(*a, flush=True)


def include_dirs():
    cands = []
    for env in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(env):
            cands.append(os.path.join(os.environ[env], "include"))
    try:
        cands.append(os.path.join(cp.cuda.get_cuda_path(), "include"))
    except Exception:
        pass
    cands += ["/usr/local/cuda/include"] + sorted(glob.glob("/usr/local/cuda-*/include"))
    for site in sys.path:
        cands += glob.glob(os.path.join(site, "nvidia", "*", "include"))
    out = []
    for d in cands:
        for sub in (d, os.path.join(d, "cccl")):
            if os.path.isdir(sub) and sub not in out:
                out.append(sub)
    return out


def build_module():
    incs = include_dirs()
    have = [d for d in incs if os.path.exists(os.path.join(d, "curand_kernel.h"))]
    log("include dirs:", incs, "curand_kernel.h in:", have)
    opts = tuple("-I" + d for d in incs) + ("--std=c++17",)
    errors = []
    for backend, extra in (("nvrtc", ()), ("nvrtc", ("-DSAFE_MODE",)), ("nvcc", ()), ("nvcc", ("-DSAFE_MODE",))):
        try:
            mod = cp.RawModule(code=CUDA_SRC, options=opts + extra, backend=backend)
            fns = {g: mod.get_function("k_" + g) for g in ("philox", "xorwow", "mrg")}
            log("compiled with", backend, extra)
            return fns
        except Exception as e:  # noqa: BLE001
            errors.append((backend, repr(e)[:3000]))
            log("compile failed with", backend, extra, repr(e)[:3000])
    raise RuntimeError(errors)


def device_vectors():
    fns = build_module()
    lines = ["# cuRAND device API known-answer vectors (curand_init + one function, one thread)",
             "# values: u32/u64 integers, floats as IEEE-754 bit patterns"]
    for gen in ("philox", "xorwow", "mrg"):
        cases = []
        modes = list(range(16)) + (list(range(20, 27)) if gen == "philox" else [])
        for ti, t in enumerate(TRIPLES):
            for m in modes:
                if m != 0 and ti not in FULL_TRIPLES:
                    continue
                cases.append((t, m))
        nc = len(cases)
        seeds = cp.asarray(np.array([c[0][0] for c in cases], dtype=np.uint64))
        subs = cp.asarray(np.array([c[0][1] for c in cases], dtype=np.uint64))
        offs = cp.asarray(np.array([c[0][2] for c in cases], dtype=np.uint64))
        modes_d = cp.asarray(np.array([c[1] for c in cases], dtype=np.int32))
        out = cp.zeros(nc * N, dtype=np.uint64)
        t0 = time.time()
        fns[gen]((nc,), (32,), (seeds, subs, offs, modes_d, out, np.int32(N)))
        cp.cuda.Device().synchronize()
        host = cp.asnumpy(out).reshape(nc, N)
        log(gen, "cases", nc, "kernel s", round(time.time() - t0, 3))
        for (t, m), row in zip(cases, host):
            lines.append("gen=%s seed=%d subsequence=%d offset=%d mode=%s : %s" % (
                gen, t[0], t[1], t[2], MODE_NAMES[m], " ".join(str(int(v)) for v in row)))
            if t == (1234, 0, 0) and m in (0, 1, 2, 4, 9):
                log("  ", gen, MODE_NAMES[m], [int(v) for v in row[:4]])
    with open(os.path.join(OUT, "curand_device_vectors.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def load_curand():
    path = None
    with open("/proc/self/maps") as f:
        for line in f:
            if "libcurand" in line:
                path = line.split()[-1]
                break
    if path is None:
        cands = [ctypes.util.find_library("curand")]
        for site in sys.path:
            cands += glob.glob(os.path.join(site, "nvidia", "*", "lib", "libcurand.so*"))
        cands += glob.glob("/usr/local/cuda*/lib64/libcurand.so*")
        path = next((c for c in cands if c), None)
    log("libcurand:", path)
    return ctypes.CDLL(path)


def quasi_vectors():
    """Sobol32/64 through the host API, called with ctypes (CuPy lacks the quasi setters)."""
    lib = load_curand()
    lines = ["# cuRAND host API Sobol32/Sobol64 vectors (curandCreateGenerator QUASI_SOBOL32/64, default ordering)",
             "# values: u32/u64 integers, floats as IEEE-754 bit patterns; one line per dimension"]
    P = ctypes.c_void_p

    def ck(st, what):
        if st != 0:
            raise RuntimeError("%s returned curandStatus %d" % (what, st))

    def fmt(arr):
        a = cp.asnumpy(arr)
        if a.dtype == np.float32:
            a = a.view(np.uint32)
        elif a.dtype == np.float64:
            a = a.view(np.uint64)
        return " ".join(str(int(v)) for v in a)

    sob_dims = [0, 1, 2, 3, 100, 1000, 10000, 19999]
    for bits, rng in ((32, 201), (64, 203)):
        gname = "sobol%d" % bits
        try:
            g = P()
            ck(lib.curandCreateGenerator(ctypes.byref(g), rng), "create")
            dt = np.uint32 if bits == 32 else np.uint64
            gen_int = lib.curandGenerate if bits == 32 else lib.curandGenerateLongLong

            def run(dims, off, npts, dtype, call):
                ck(lib.curandSetQuasiRandomGeneratorDimensions(g, ctypes.c_uint(dims)), "dims")
                ck(lib.curandSetGeneratorOffset(g, ctypes.c_ulonglong(off)), "offset")
                a = cp.zeros(dims * npts, dtype=dtype)
                cp.cuda.Device().synchronize()
                ck(call(P(a.data.ptr), ctypes.c_size_t(a.size)), "generate")
                cp.cuda.Device().synchronize()
                return a.reshape(dims, npts)

            a2 = run(20000, 0, 256, dt, lambda p, n: gen_int(g, p, n))
            for d in sob_dims:
                lines.append("gen=%s dims=20000 offset=0 func=generate dim=%d : %s" % (gname, d, fmt(a2[d])))
            log(gname, "dim0", [int(v) for v in cp.asnumpy(a2[0, :6])], "dim1", [int(v) for v in cp.asnumpy(a2[1, :6])])
            for dims, off in ((3, 0), (3, 1000), (1, 5)):
                a2 = run(dims, off, 64, dt, lambda p, n: gen_int(g, p, n))
                for d in range(dims):
                    lines.append("gen=%s dims=%d offset=%d func=generate dim=%d : %s" % (gname, dims, off, d, fmt(a2[d])))
            if bits == 32:
                calls = (("generate_uniform", np.float32, lambda p, n: lib.curandGenerateUniform(g, p, n)),
                         ("generate_normal", np.float32, lambda p, n: lib.curandGenerateNormal(g, p, n, ctypes.c_float(0.0), ctypes.c_float(1.0))),
                         ("generate_uniform_double", np.float64, lambda p, n: lib.curandGenerateUniformDouble(g, p, n)))
            else:
                calls = (("generate_uniform_double", np.float64, lambda p, n: lib.curandGenerateUniformDouble(g, p, n)),
                         ("generate_normal_double", np.float64, lambda p, n: lib.curandGenerateNormalDouble(g, p, n, ctypes.c_double(0.0), ctypes.c_double(1.0))),
                         ("generate_uniform", np.float32, lambda p, n: lib.curandGenerateUniform(g, p, n)))
            for name, fdt, call in calls:
                try:
                    a2 = run(3, 0, 64, fdt, call)
                    for d in range(3):
                        lines.append("gen=%s dims=3 offset=0 func=%s dim=%d : %s" % (gname, name, d, fmt(a2[d])))
                except Exception as e:  # noqa: BLE001
                    log(gname, name, "failed:", repr(e)[:300])
            lib.curandDestroyGenerator(g)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
    try:
        for bits, enum, ctype in ((32, 101, ctypes.c_uint32), (64, 103, ctypes.c_uint64)):
            p = ctypes.POINTER(ctype)()
            fn = lib.curandGetDirectionVectors32 if bits == 32 else lib.curandGetDirectionVectors64
            st = fn(ctypes.byref(p), enum)
            log("direction vectors", bits, "status", st)
            if st != 0:
                continue
            for d in sob_dims:
                vals = [int(p[d * bits + k]) for k in range(bits)]
                lines.append("gen=directions%d dim=%d : %s" % (bits, d, " ".join(map(str, vals))))
            log("directions", bits, "dim1", [int(p[bits + k]) for k in range(4)])
    except Exception:  # noqa: BLE001
        traceback.print_exc()
    with open(os.path.join(OUT, "curand_host_quasi_vectors.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def host_vectors():
    from cupy.cuda import curand as cr
    C = {
        "xorwow": getattr(cr, "CURAND_RNG_PSEUDO_XORWOW", 101),
        "mrg": getattr(cr, "CURAND_RNG_PSEUDO_MRG32K3A", 121),
        "philox": getattr(cr, "CURAND_RNG_PSEUDO_PHILOX4_32_10", 161),
        "sobol32": getattr(cr, "CURAND_RNG_QUASI_SOBOL32", 201),
        "sobol64": getattr(cr, "CURAND_RNG_QUASI_SOBOL64", 203),
    }
    lines = ["# cuRAND host API known-answer vectors (curandCreateGenerator, default ordering)",
             "# values: u32/u64 integers, floats as IEEE-754 bit patterns"]
    raw = []

    def fmt(arr):
        a = cp.asnumpy(arr)
        if a.dtype == np.float32:
            a = a.view(np.uint32)
        elif a.dtype == np.float64:
            a = a.view(np.uint64)
        return " ".join(str(int(v)) for v in a)

    def attempt(label, fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            log("host", label, "failed:", repr(e)[:500])
            traceback.print_exc()

    for gname in ("philox", "xorwow", "mrg"):
        def pseudo(gname=gname):
            g = cr.createGenerator(C[gname])
            try:
                for off in (0, 100):
                    cr.setPseudoRandomGeneratorSeed(g, 1234)
                    cr.setGeneratorOffset(g, off)
                    a = cp.zeros(256, dtype=np.uint32)
                    cr.generate(g, a.data.ptr, a.size)
                    lines.append("gen=%s seed=1234 offset=%d func=generate : %s" % (gname, off, fmt(a)))
                    if off == 0:
                        log("host", gname, "generate", [int(v) for v in cp.asnumpy(a[:4])])
                specs = [
                    ("generate_uniform", np.float32, lambda a: cr.generateUniform(g, a.data.ptr, a.size)),
                    ("generate_normal", np.float32, lambda a: cr.generateNormal(g, a.data.ptr, a.size, 0.0, 1.0)),
                    ("generate_uniform_double", np.float64, lambda a: cr.generateUniformDouble(g, a.data.ptr, a.size)),
                    ("generate_normal_double", np.float64, lambda a: cr.generateNormalDouble(g, a.data.ptr, a.size, 0.0, 1.0)),
                    ("generate_log_normal", np.float32, lambda a: cr.generateLogNormal(g, a.data.ptr, a.size, 0.5, 0.75)),
                    ("generate_poisson_4", np.uint32, lambda a: cr.generatePoisson(g, a.data.ptr, a.size, 4.0)),
                ]
                for name, dt, call in specs:
                    cr.setPseudoRandomGeneratorSeed(g, 1234)
                    cr.setGeneratorOffset(g, 0)
                    a = cp.zeros(256, dtype=dt)
                    call(a)
                    lines.append("gen=%s seed=1234 offset=0 func=%s : %s" % (gname, name, fmt(a)))
                cr.setPseudoRandomGeneratorSeed(g, 1234)
                cr.setGeneratorOffset(g, 0)
                a = cp.zeros(1 << 16, dtype=np.uint32)
                cr.generate(g, a.data.ptr, a.size)
                raw.append("gen=%s seed=1234 offset=0 func=generate : %s" % (gname, fmt(a)))
            finally:
                cr.destroyGenerator(g)
        attempt(gname, pseudo)

    with open(os.path.join(OUT, "curand_host_vectors.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(OUT, "host_raw.txt"), "w") as f:
        f.write("\n".join(raw) + "\n")


def main():
    t0 = time.time()
    only_quasi = "--only-quasi" in sys.argv
    log("cupy", cp.__version__, "cuda runtime", cp.cuda.runtime.runtimeGetVersion(),
        "driver", cp.cuda.runtime.driverGetVersion())
    try:
        from cupy.cuda import curand as cr
        log("curand version", cr.getVersion())
    except Exception as e:  # noqa: BLE001
        log("curand version unknown", repr(e))
    try:
        quasi_vectors()
    except Exception:  # noqa: BLE001
        traceback.print_exc()
    log("quasi done", round(time.time() - t0, 1))
    if only_quasi:
        return
    try:
        host_vectors()
    except Exception:  # noqa: BLE001
        traceback.print_exc()
    log("host done", round(time.time() - t0, 1))
    try:
        device_vectors()
    except Exception:  # noqa: BLE001
        traceback.print_exc()
    log("all done", round(time.time() - t0, 1))


if __name__ == "__main__":
    main()
