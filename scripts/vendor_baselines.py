#!/usr/bin/env python3
"""Vendor baselines for ferrocm's benchmarks, run on the GPU machine in the same command as
ferrocm's own benchmark so the two are compared side by side.

Prints one JSON object per line: {"bench", "metric", "value", "unit", "library"}.

  python3 scripts/vendor_baselines.py copy [--mib 1024]
  python3 scripts/vendor_baselines.py gemm [--dtype bf16|fp16] [--layout nn|tn] [--n 4096 8192]
  python3 scripts/vendor_baselines.py curand [--generator philox|xorwow|mrg32k3a|sobol32|mtgp32|mt19937] [--distribution uniform|normal|bits|poisson] [--lambda 4] [--count 268435456]
  python3 scripts/vendor_baselines.py launch

Method (see the device notes): inputs are fresh random data, never zeros; the result is checked
before timing; warm-up first; CUDA events around each repetition; the median is reported.
"""
import argparse
import json
import statistics
import sys


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
        if args.layout == "tn":
            b = b.t()  # column-major B, as `ferrocm bench gemm --layout tn` reads it
        c = a @ b
        ref = (a[:64].double() @ b.double())
        err = ((c[:64].double() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, err
        ms = time_ms(lambda: torch.matmul(a, b, out=c), reps=args.reps)
        emit("gemm", f"{args.dtype} {n}^3 {args.layout}", 2 * n ** 3 / ms / 1e9, "TFLOP/s", "cuBLAS (torch.matmul)")


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


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    c = sub.add_parser("copy"); c.add_argument("--mib", type=int, default=1024)
    g = sub.add_parser("gemm"); g.add_argument("--dtype", default="bf16"); g.add_argument("--layout", default="nn", choices=["nn", "tn"]); g.add_argument("--n", type=int, nargs="+", default=[4096, 8192]); g.add_argument("--reps", type=int, default=20)
    r = sub.add_parser("curand"); r.add_argument("--generator", default="philox"); r.add_argument("--distribution", default="uniform"); r.add_argument("--count", type=int, default=1 << 28); r.add_argument("--reps", type=int, default=20); r.add_argument("--lambda", dest="lambda_", type=float, default=4.0)
    sub.add_parser("launch")
    a = p.parse_args()
    {"copy": copy, "gemm": gemm, "curand": curand, "launch": launch}[a.what](a)


if __name__ == "__main__":
    main()
