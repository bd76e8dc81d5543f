#!/usr/bin/env python3
"""Vendor baselines for ferrocm's benchmarks, run on the GPU machine in the same command as
ferrocm's own benchmark so the two are compared side by side.

Prints one JSON object per line: {"bench", "metric", "value", "unit", "library"}.

  python3 scripts/vendor_baselines.py copy [--mib 1024]
  python3 scripts/vendor_baselines.py gemm [--dtype bf16] [--n 4096 8192]
  python3 scripts/vendor_baselines.py curand [--generator philox|xorwow|mrg32k3a|sobol32|mtgp32|mt19937] [--distribution uniform|normal|bits|poisson] [--lambda 4] [--count 268435456]
  python3 scripts/vendor_baselines.py launch
  python3 scripts/vendor_baselines.py cufft [--case NAME ...]   (the cases of `ferrocm bench fft`)
  python3 scripts/vendor_baselines.py scipy [--case NAME ...]   (CPU cases: scipy.fft, 2 workers)

Method (see the device notes): inputs are fresh random data, never zeros; the result is checked
before timing; warm-up first; CUDA events around each repetition; the median is reported.
"""
import argparse
import json
import statistics
import sys

import numpy as np


def emit(bench, metric, value, unit, library):
    print(json.dumps({"bench": bench, "metric": metric, "value": value, "unit": unit, "library": library}), flush=True)


def time_ms(fn, reps=20, warmup=3):
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def copy(args):
    import torch
    n = args.mib << 20
    x = torch.randint(0, 255, (n,), dtype=torch.uint8, device="cuda")
    y = torch.empty_like(x)
    y.copy_(x)
    assert torch.equal(x, y)
    ms = time_ms(lambda: y.copy_(x))
    emit("copy", f"D2D {args.mib} MiB (read+write)", 2 * n / ms / 1e6, "GB/s", "torch copy_")


def gemm(args):
    import torch
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32, "tf32": torch.float32,
             "fp64": torch.float64}[args.dtype]
    torch.backends.cuda.matmul.allow_tf32 = args.dtype == "tf32"
    for n in args.n:
        a = torch.randn(n, n, device="cuda", dtype=dtype)
        b = torch.randn(n, n, device="cuda", dtype=dtype)
        c = a @ b
        ref = (a[:64].double() @ b.double())
        err = ((c[:64].double() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, err
        ms = time_ms(lambda: torch.matmul(a, b, out=c), reps=args.reps)
        emit("gemm", f"{args.dtype} {n}^3", 2 * n ** 3 / ms / 1e9, "TFLOP/s", "cuBLAS (torch.matmul)")


def curand(args):
    import cupy as cp
    from cupy.cuda import curand as cr
    gens = {"philox": cr.CURAND_RNG_PSEUDO_PHILOX4_32_10, "xorwow": cr.CURAND_RNG_PSEUDO_XORWOW,
            "mrg32k3a": cr.CURAND_RNG_PSEUDO_MRG32K3A, "sobol32": cr.CURAND_RNG_QUASI_SOBOL32,
            "mtgp32": 141, "mt19937": 142}
    g = cr.createGenerator(gens[args.generator])
    if args.generator != "sobol32":
        cr.setPseudoRandomGeneratorSeed(g, 1234)  # every generator's seed; MTGP32's too
    poisson = args.distribution == "poisson"
    ints = poisson or args.distribution == "bits"
    out = cp.empty(args.count, dtype=cp.uint32 if ints else cp.float32)
    if args.distribution == "bits":
        fn = lambda: cr.generate(g, out.data.ptr, args.count)
    elif args.distribution == "uniform":
        fn = lambda: cr.generateUniform(g, out.data.ptr, args.count)
    elif args.distribution == "normal":
        fn = lambda: cr.generateNormal(g, out.data.ptr, args.count, 0.0, 1.0)
    elif poisson:
        fn = lambda: cr.generatePoisson(g, out.data.ptr, args.count, args.lambda_)
    else:
        sys.exit(f"unknown distribution {args.distribution}")
    fn()
    m = float(out[: 1 << 20].astype(cp.float64).mean())
    want, tol = {"uniform": (0.5, 0.01), "normal": (0.0, 0.01), "bits": (2.0 ** 31, 0.01 * 2.0 ** 32)}.get(
        args.distribution, (args.lambda_, 0.01 * args.lambda_ + 0.05))
    assert abs(m - want) < tol, m
    times = []
    for _ in range(args.reps + 3):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(cp.cuda.get_elapsed_time(s, e))
    ms = statistics.median(times[3:])
    dist = f"poisson lambda={args.lambda_} u32" if poisson else ("bits u32" if ints else f"{args.distribution} f32")
    emit("rand", f"{args.generator} {dist} n={args.count}", args.count / ms / 1e6, "GSample/s", "cuRAND (CuPy)")


def launch(args):
    import cupy as cp
    k = cp.RawKernel(r'extern "C" __global__ void empty() {}', "empty")
    k((1,), (1,), ())
    cp.cuda.Device().synchronize()
    import time
    n = 20000
    best = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(n):
            k((1,), (1,), ())
        cp.cuda.Device().synchronize()
        best.append((time.perf_counter() - t) / n * 1e6)
    emit("launch", "empty kernel launch (batched)", statistics.median(best), "us/launch", "CuPy RawKernel")


# The cases of `ferrocm bench fft`: name -> (kind, dtype, shape, fft axes). Shapes put the
# batch first, as ferrocm's packed layouts do.
FFT_CASES = {
    "c2c f32 1D 2^24": ("c2c", "c64", (1 << 24,), 1),
    "c2c f32 1024 x 16384": ("c2c", "c64", (16384, 1024), 1),
    "c2c f32 4096 x 4096": ("c2c", "c64", (4096, 4096), 1),
    "c2c f32 1000 x 16384": ("c2c", "c64", (16384, 1000), 1),
    "c2c f32 1021 x 16384": ("c2c", "c64", (16384, 1021), 1),
    "c2c f32 2D 4096^2": ("c2c", "c64", (4096, 4096), 2),
    "c2c f32 3D 512^3": ("c2c", "c64", (512, 512, 512), 3),
    "r2c f32 1D 2^26": ("r2c", "f32", (1 << 26,), 1),
    "r2c f32 2D 8192^2": ("r2c", "f32", (8192, 8192), 2),
    "z2z f64 1D 2^24": ("c2c", "c128", (1 << 24,), 1),
    "cpu c2c f32 1D 2^22": ("c2c", "c64", (1 << 22,), 1),
    "cpu c2c f32 1024 x 4096": ("c2c", "c64", (4096, 1024), 1),
}


def emit_fft(case, what, ms, library):
    print(json.dumps({"bench": "fft", "case": case, "what": what, "value": ms, "unit": "ms", "library": library}), flush=True)


def fft_check(x, y, kind, axes):
    """Four output elements (or three rows) against float64 sums, on the device that holds x."""
    import numpy as np
    xp = np if isinstance(x, np.ndarray) else __import__("torch")
    shape = x.shape
    if len(shape) - axes == 1:  # batched 1D: rows against numpy in float64
        xs = x if xp is np else x.cpu().numpy()
        ys = y if xp is np else y.cpu().numpy()
        for b in np.random.randint(0, shape[0], 3):
            ref = np.fft.fft(xs[b].astype(np.complex128))
            assert np.abs(ys[b] - ref[: ys.shape[1]]).max() / np.abs(ref).max() < 1e-4
        return
    if xp is np:
        xt, yt, exp, arange = x.astype(np.complex128), y, np.exp, (lambda m: np.arange(m, dtype=np.float64))
    else:
        import torch
        xt, yt, exp = x.to(torch.complex128), y, torch.exp
        arange = lambda m: torch.arange(m, device=x.device, dtype=torch.float64)
    n = xt.shape
    for _ in range(4):
        k = [int(np.random.randint(0, yt.shape[d])) for d in range(len(n))]
        acc = xt
        for d in range(len(n) - 1, -1, -1):
            j = arange(n[d])
            acc = (acc * exp(-2j * np.pi * ((j * k[d]) % n[d]) / n[d])).sum(-1)
        got = complex(yt[tuple(k)].item())
        want = complex(acc.item())
        assert abs(got - want) / (xt.size if xp is np else xt.numel()) ** 0.5 < 1e-4, (got, want)


def cufft(args):
    import torch
    import cupy as cp
    import time
    names = args.case or [c for c in FFT_CASES if not c.startswith("cpu")]
    for name in names:
        kind, dt, shape, axes = FFT_CASES[name]
        dims = tuple(range(len(shape) - axes, len(shape)))
        if kind == "c2c":
            dtype = torch.complex64 if dt == "c64" else torch.complex128
            x = torch.randn(shape, dtype=dtype, device="cuda")
            fn = (lambda: torch.fft.fftn(x, dim=dims))
        else:
            x = torch.randn(shape, dtype=torch.float32, device="cuda")
            fn = (lambda: torch.fft.rfftn(x, dim=dims))
        # No `out=`: torch computes into a new tensor and copies into `out`, which would add a
        # copy to cuFFT's time (seen on the H100, 2026-11-24: 1024 x 16384 took 0.199 ms with
        # `out=` against the 0.102 ms anchor). New outputs come from the caching allocator.
        y = fn()
        fft_check(x, y, kind, axes)
        ms = time_ms(fn, reps=args.reps)
        emit_fft(name, "exec", ms, "cuFFT (torch.fft)")
        del y
        # Plan creation: a fresh cufftPlanMany each time (cuFFT keeps no cache of its own).
        n = list(shape[len(shape) - axes:])
        batch = int(np.prod(shape[: len(shape) - axes])) if len(shape) > axes else 1
        fft_type = {"c64": cp.cuda.cufft.CUFFT_C2C, "c128": cp.cuda.cufft.CUFFT_Z2Z, "f32": cp.cuda.cufft.CUFFT_R2C}[dt]
        onembed = n[:-1] + [n[-1] // 2 + 1] if kind == "r2c" else n
        times = []
        for _ in range(6):
            t = time.perf_counter()
            p = cp.cuda.cufft.PlanNd(tuple(n), n, 1, int(np.prod(n)), onembed, 1, int(np.prod(onembed)), fft_type, batch,
                                     "C", last_axis=-1, last_size=None)
            cp.cuda.Device().synchronize()
            times.append((time.perf_counter() - t) * 1e3)
            del p
        emit_fft(name, "plan_first", times[0], "cuFFT plan (CuPy PlanNd)")
        emit_fft(name, "plan", statistics.median(times[1:]), "cuFFT plan (CuPy PlanNd)")
        del x
        torch.cuda.empty_cache()


def scipy_fft(args):
    import numpy as np
    import scipy.fft
    import time
    names = args.case or [c for c in FFT_CASES if c.startswith("cpu")]
    for name in names:
        kind, dt, shape, axes = FFT_CASES[name]
        rng = np.random.default_rng()
        x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
        dims = tuple(range(len(shape) - axes, len(shape)))
        y = scipy.fft.fftn(x, axes=dims, workers=2)
        fft_check(x, y, kind, axes)
        times = []
        for _ in range(args.reps + 2):
            t = time.perf_counter()
            scipy.fft.fftn(x, axes=dims, workers=2)
            times.append((time.perf_counter() - t) * 1e3)
        emit_fft(name, "exec", statistics.median(times[2:]), "scipy.fft (2 workers)")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    c = sub.add_parser("copy"); c.add_argument("--mib", type=int, default=1024)
    g = sub.add_parser("gemm"); g.add_argument("--dtype", default="bf16"); g.add_argument("--n", type=int, nargs="+", default=[4096, 8192]); g.add_argument("--reps", type=int, default=20)
    r = sub.add_parser("curand"); r.add_argument("--generator", default="philox"); r.add_argument("--distribution", default="uniform"); r.add_argument("--count", type=int, default=1 << 28); r.add_argument("--reps", type=int, default=20); r.add_argument("--lambda", dest="lambda_", type=float, default=4.0)
    sub.add_parser("launch")
    f = sub.add_parser("cufft"); f.add_argument("--case", action="append"); f.add_argument("--reps", type=int, default=20)
    f = sub.add_parser("scipy"); f.add_argument("--case", action="append"); f.add_argument("--reps", type=int, default=10)
    a = p.parse_args()
    {"copy": copy, "gemm": gemm, "curand": curand, "launch": launch, "cufft": cufft, "scipy": scipy_fft}[a.what](a)


if __name__ == "__main__":
    main()
