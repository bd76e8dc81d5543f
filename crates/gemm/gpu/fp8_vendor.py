#!/usr/bin/env python3
"""cuBLASLt's 8-bit GEMM (torch._scaled_mm) on the data `ferrocm bench gemm --dtype e4m3 --dump DIR`
used, checked against ferrocm's C before anything is timed.

  python3 crates/gemm/gpu/fp8_vendor.py DIR [--dtype e4m3|e5m2] [--n 4096 8192] [--scales 0.3 0.7]

For each n it reads DIR/{dtype}_{n}_{a,b,c}.bin (A n x n row-major codes, B column-major = B^T
row-major codes, ferrocm's C bf16 row-major), runs torch._scaled_mm(a, b.t(), scale_a, scale_b,
out_dtype=bfloat16) (per-tensor scales, default use_fast_accum=False), checks torch's C and ours
against an f64 product on a spread of rows and ours against torch's everywhere, then times torch
(CUDA events, warm-up, median of --reps) with use_fast_accum False (the reference) and True.
Prints one JSON object per line: {"bench", "metric", "value", "unit", "library", "check"}.
"""
import argparse
import json
import statistics

import numpy as np


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


def rel(x, ref):
    return ((x - ref).norm() / ref.norm()).item()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--dtype", default="e4m3", choices=["e4m3", "e5m2"])
    p.add_argument("--n", type=int, nargs="+", default=[4096, 8192])
    p.add_argument("--scales", type=float, nargs=2, default=[0.3, 0.7])
    p.add_argument("--reps", type=int, default=20)
    args = p.parse_args()
    import torch
    fp8 = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}[args.dtype]
    sa = torch.tensor(args.scales[0], dtype=torch.float32, device="cuda")
    sb = torch.tensor(args.scales[1], dtype=torch.float32, device="cuda")
    for n in args.n:
        path = lambda part: f"{args.dir}/{args.dtype}_{n}_{part}.bin"
        a = torch.from_numpy(np.fromfile(path("a"), dtype=np.uint8).reshape(n, n)).cuda().view(fp8)
        bt = torch.from_numpy(np.fromfile(path("b"), dtype=np.uint8).reshape(n, n)).cuda().view(fp8)
        ours = torch.from_numpy(np.fromfile(path("c"), dtype=np.int16).reshape(n, n)).cuda().view(torch.bfloat16)
        b = bt.t()  # k x n column-major, as _scaled_mm wants its second operand

        def mm(fast=False):
            r = torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=fast)
            return r[0] if isinstance(r, tuple) else r  # torch < 2.4 also returned amax

        ref = mm()
        rows = torch.arange(0, n, max(n // 64, 1), device="cuda")
        # (Indexing and matmul of float8 tensors are not supported everywhere: decode first.)
        exact = (a.to(torch.float32)[rows].double() @ b.to(torch.float32).double()) * (args.scales[0] * args.scales[1])
        check = {
            "torch_vs_f64": rel(ref[rows].double(), exact),
            "ours_vs_f64": rel(ours[rows].double(), exact),
            "ours_vs_torch": rel(ours.double(), ref.double()),
            "ours_max_abs_diff_over_max_abs": ((ours.double() - ref.double()).abs().max() / ref.double().abs().max()).item(),
        }
        assert all(v < 1e-2 for v in check.values()), check
        for fast in (False, True):
            ms = time_ms(lambda: mm(fast), reps=args.reps)
            lib = "cuBLASLt (torch._scaled_mm" + (", use_fast_accum)" if fast else ")")
            metric = f"{args.dtype} {n}^3 tn" + (" fast-accum" if fast else "")
            print(json.dumps({"bench": "gemm", "metric": metric, "value": 2 * n ** 3 / ms / 1e9, "unit": "TFLOP/s",
                              "library": lib, "check": check}), flush=True)


if __name__ == "__main__":
    main()
