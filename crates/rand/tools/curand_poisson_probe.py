#!/usr/bin/env python3
"""Record what cuRAND's host-API Poisson does, for modelling its legacy layout.

Run on a machine with an NVIDIA GPU, CuPy and the CUDA toolkit headers:

    python3 curand_poisson_probe.py OUTDIR

Writes OUTDIR/poisson_tables.json: for each lambda, the fields of the discrete distribution
`curandCreatePoissonDistribution` builds (method, mean, stddev, M2 shift and length, the
square histogram's V and K arrays), copied back with the struct layouts of cuRAND's
`curand_discrete.h`; and OUTDIR/poisson_streams.json.gz: per generator, seed and offset, the raw
`curandGenerate` stream and `curandGeneratePoisson` streams for several lambdas.
"""
import ctypes
import ctypes.util
import glob
import gzip
import json
import os
import sys

import cupy as cp
import numpy as np

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(OUT, exist_ok=True)

LAMBDAS = [0.25, 1.0, 3.5, 4.0, 9.5, 10.0, 63.5, 100.0, 500.0, 1000.0, 1500.0, 1999.0, 2000.0, 4000.0, 5000.0,
           8000.0, 8001.0, 20000.0, 1e5, 1e6]
N = 1 << 14

def load_curand():
    cands = [ctypes.util.find_library("curand")]
    for site in sys.path:
        cands += glob.glob(os.path.join(site, "nvidia", "*", "lib", "libcurand.so*"))
    cands += glob.glob("/usr/local/cuda*/lib64/libcurand.so*")
    for c in cands:
        if c:
            try:
                return ctypes.CDLL(c)
            except OSError:
                pass
    return ctypes.CDLL("libcurand.so.10")


lib = load_curand()
P = ctypes.c_void_p


def ck(st, what):
    if st != 0:
        raise RuntimeError(f"{what}: curandStatus {st}")


def generator(rng, quasi, seed=1234, offset=0):
    """A cuRAND generator: one Sobol dimension, or the pseudo-random seed; then the offset."""
    g = P()
    ck(lib.curandCreateGenerator(ctypes.byref(g), rng), "create")
    if quasi:
        ck(lib.curandSetQuasiRandomGeneratorDimensions(g, ctypes.c_uint(1)), "dims")
    else:
        ck(lib.curandSetPseudoRandomGeneratorSeed(g, ctypes.c_ulonglong(seed)), "seed")
    ck(lib.curandSetGeneratorOffset(g, ctypes.c_ulonglong(offset)), "offset")
    return g


def read(ptr, nbytes):
    """Bytes at `ptr`, host or device memory (cudaMemcpyDefault under unified addressing)."""
    buf = np.zeros(nbytes, dtype=np.uint8)
    cp.cuda.runtime.memcpy(buf.ctypes.data, ptr, nbytes, 4)
    return buf


def tables():
    # Layouts from cuRAND's curand_discrete.h: curandDiscreteDistribution_st {self_host_ptr,
    # M2, host_M2, stddev, mean, method, host_gen}; curandDistributionM2Shift_st {histogram,
    # host_histogram, shift, length, host_gen}; curandHistogramM2_st {V, host_V, K, host_K}.
    out = {}
    for lam in LAMBDAS:
        dd = P()
        st = lib.curandCreatePoissonDistribution(ctypes.c_double(lam), ctypes.byref(dd))
        if st != 0:
            out[repr(lam)] = {"status": int(st)}
            print("lambda", lam, "curandStatus", st, flush=True)
            continue
        d = read(dd.value, 48)
        m2, = d[8:16].view(np.uint64)
        stddev, mean = d[24:40].view(np.float64)
        method, = d[40:44].view(np.uint32)
        rec = {"method": int(method), "mean": float(mean), "stddev": float(stddev),
               "shift": -1, "length": 0, "V_bits": [], "K": []}
        if m2:
            m = read(int(m2), 28)
            hist, = m[0:8].view(np.uint64)
            shift, length = m[16:24].view(np.uint32)
            rec["shift"], rec["length"] = int(shift), int(length)
            if hist and length:
                h = read(int(hist), 32)
                vptr, _, kptr, _ = h.view(np.uint64)
                rec["V_bits"] = [int(x) for x in read(int(vptr), 8 * int(length)).view(np.uint64)]
                rec["K"] = [int(x) for x in read(int(kptr), 4 * int(length)).view(np.uint32)]
        out[repr(lam)] = rec
        print("lambda", lam, {k: v for k, v in rec.items() if k not in ("V_bits", "K")},
              "V[:4]", [float(np.uint64(b).view(np.float64)) for b in rec["V_bits"][:4]], "K[:4]", rec["K"][:4],
              flush=True)
        ck(lib.curandDestroyDistribution(dd), "destroy")
    with open(os.path.join(OUT, "poisson_tables.json"), "w") as f:
        json.dump(out, f)


GENS = {"philox": 161, "xorwow": 101, "mrg": 121, "sobol32": 201}


def streams():
    out = []
    for gname, rng in GENS.items():
        for seed, offset in ((1234, 0), (1234, 100), (42, 0)):
            quasi = gname.startswith("sobol")
            if quasi and seed != 1234:
                continue
            g = generator(rng, quasi, seed, offset)
            a = cp.zeros(N, dtype=np.uint32)
            ck(lib.curandGenerate(g, P(a.data.ptr), ctypes.c_size_t(N)), "generate")
            cp.cuda.Device().synchronize()
            rec = {"gen": gname, "seed": seed, "offset": offset, "raw": [int(x) for x in cp.asnumpy(a)],
                   "poisson": {}}
            for lam in LAMBDAS:
                # A fresh generator per call, so each stream starts at the same offset.
                h = generator(rng, quasi, seed, offset)
                b = cp.zeros(N, dtype=np.uint32)
                st = lib.curandGeneratePoisson(h, P(b.data.ptr), ctypes.c_size_t(N), ctypes.c_double(lam))
                cp.cuda.Device().synchronize()
                if st == 0:
                    rec["poisson"][repr(lam)] = [int(x) for x in cp.asnumpy(b)]
                else:
                    rec["poisson"][repr(lam)] = f"status {st}"
                lib.curandDestroyGenerator(h)
            # Two calls in a row: does the second continue where the first stopped?
            h = generator(rng, quasi, seed, offset)
            b = cp.zeros(1000, dtype=np.uint32)
            ck(lib.curandGeneratePoisson(h, P(b.data.ptr), ctypes.c_size_t(1000), ctypes.c_double(4.0)), "p1")
            c = cp.zeros(1000, dtype=np.uint32)
            ck(lib.curandGeneratePoisson(h, P(c.data.ptr), ctypes.c_size_t(1000), ctypes.c_double(4.0)), "p2")
            cp.cuda.Device().synchronize()
            rec["two_calls_4"] = [int(x) for x in cp.asnumpy(b)] + [int(x) for x in cp.asnumpy(c)]
            lib.curandDestroyGenerator(h)
            lib.curandDestroyGenerator(g)
            out.append(rec)
            print(gname, seed, offset, "poisson", {k: (v[:8] if isinstance(v, list) else v)
                                                   for k, v in list(rec["poisson"].items())[:3]}, flush=True)
    with gzip.open(os.path.join(OUT, "poisson_streams.json.gz"), "wt") as f:
        json.dump(out, f)


if __name__ == "__main__":
    for step in (tables, streams):
        try:
            step()
        except Exception as e:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            print("FAILED", step.__name__, repr(e), flush=True)
