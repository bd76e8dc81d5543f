#!/usr/bin/env python3
"""Vendor baselines for ferrocm's benchmarks, run on the GPU machine in the same command as
ferrocm's own benchmark so the two are compared side by side.

Prints one JSON object per line: {"bench", "metric", "value", "unit", "library"}.

  python3 scripts/vendor_baselines.py copy [--mib 1024]
  python3 scripts/vendor_baselines.py gemm [--dtype bf16|fp16] [--layout nn|tn] [--n 4096 8192]
  python3 scripts/vendor_baselines.py curand [--generator philox|xorwow|mrg32k3a|sobol32|mtgp32|mt19937] [--distribution uniform|normal|bits|poisson] [--lambda 4] [--count 268435456]
  python3 scripts/vendor_baselines.py launch
  python3 scripts/vendor_baselines.py cublas -f gemm|gemm_strided_batched|gemm_batched|gemv|axpy|dot|nrm2 [-r f32_r|f64_r|f32_c|f64_c] [--transposeA N|T|C] [--transposeB N|T|C] [-m M -n N -k K] [--batch_count B] [--tf32] [--cpu]
    (the request of `ferrocm bench blas` with the same arguments; --cpu: numpy's BLAS on the host)
  python3 scripts/vendor_baselines.py nccl [all_reduce|all_gather|reduce_scatter|broadcast|reduce|alltoall|sendrecv]
      [-b 8] [-e 128M] [-f 2] [-g NGPUS] [-n 20] [-w 5] [-c 1] [-o sum] [-d float] [-r 0] [--via torch|cupy]
  python3 scripts/vendor_baselines.py cufft [--case NAME ...]   (the cases of `ferrocm bench fft`)
  python3 scripts/vendor_baselines.py scipy [--case NAME ...]   (CPU cases: scipy.fft, 2 workers)

Method (see the device notes): inputs are fresh random data, never zeros; the result is checked
before timing; warm-up first; CUDA events around each repetition; the median is reported.
"""
import argparse
import json
import statistics
import sys
import time

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


def cublas(args):
    """One BLAS call through torch (cuBLAS) or, with --cpu, numpy (its OpenBLAS), in the
    units of `ferrocm bench blas`. Matrices are column-major as BLAS stores them: a column-major
    m x k matrix is the row-major (k, m) tensor, and op() is a transposed (or conjugated) view,
    which torch passes to cuBLAS as the operation."""
    import time
    cpu = args.cpu
    if cpu:
        import numpy as xp
        dt = {"f32_r": xp.float32, "f64_r": xp.float64, "f32_c": xp.complex64, "f64_c": xp.complex128}[args.precision]
        rng = xp.random.default_rng()

        def rand(*shape):
            v = rng.uniform(-1, 1, shape)
            if xp.iscomplexobj(xp.zeros(1, dt)):
                v = v + 1j * rng.uniform(-1, 1, shape)
            return v.astype(dt)

        def timed(fn):
            fn()
            ts = []
            for _ in range(args.reps):
                t = time.perf_counter(); fn(); ts.append((time.perf_counter() - t) * 1e3)
            return statistics.median(ts)
        lib = "numpy " + xp.__version__
        T = lambda v: xp.swapaxes(v, -1, -2)
        conj = xp.conj
    else:
        import torch as xp
        dt = {"f32_r": xp.float32, "f64_r": xp.float64, "f32_c": xp.complex64, "f64_c": xp.complex128,
              "f16_r": xp.float16, "bf16_r": xp.bfloat16}[args.precision]
        xp.backends.cuda.matmul.allow_tf32 = args.tf32

        def rand(*shape):
            return (xp.rand(*shape, device="cuda", dtype=dt) * 2 - 1)

        def timed(fn):
            return time_ms(fn, reps=args.reps)
        lib = "cuBLAS (torch " + xp.__version__ + ")"
        T = lambda v: v.transpose(-1, -2)
        conj = lambda v: v.conj()
    cx = 4 if args.precision.endswith("_c") else 1
    size = {"f32_r": 4, "f64_r": 8, "f32_c": 8, "f64_c": 16, "f16_r": 2, "bf16_r": 2}[args.precision]
    m, n, k = args.m, args.n, args.k

    def op(v, o):  # v: the row-major tensor of a column-major matrix; returns op(M) as (rows, cols)
        v = T(v)
        if o == "N":
            return v
        return conj(T(v)) if o == "C" else T(v)
    f = args.function
    # gemm_ex / gemm_strided_batched_ex: half A, B and C with f32 accumulation (torch's half matmul).
    if f in ("gemm", "gemm_strided_batched", "gemm_ex", "gemm_strided_batched_ex"):
        b = args.batch_count if f.startswith("gemm_strided_batched") else 1
        ra, ca = (m, k) if args.transposeA == "N" else (k, m)
        rb, cb = (k, n) if args.transposeB == "N" else (n, k)
        A, B = rand(b, ca, ra), rand(b, cb, rb)
        oa, ob = op(A, args.transposeA), op(B, args.transposeB)
        C = oa @ ob
        # Half tensors go through f64 on their way to complex (a direct bf16 -> complex128
        # conversion is not one every torch build has).
        wide = (lambda v: v.astype(complex)) if cpu else (lambda v: v.to(xp.complex128) if v.is_complex() else v.double().to(xp.complex128))
        ref = wide(oa[:, :8]) @ wide(ob)
        got = wide(C[:, :8])
        err = float(abs(got - ref).max() / (abs(ref).max() + 1e-30))
        half = args.precision in ("f16_r", "bf16_r")
        assert err < (3e-2 if half else 1e-2 if args.precision.startswith("f32") else 1e-10), err
        ms = timed(lambda: xp.matmul(oa, ob, out=C))
        tag = f"{args.transposeA}{args.transposeB} {m}x{n}x{k}" + (f" batch={b}" if b > 1 else "")
        tf = " tf32" if args.tf32 else ""
        emit("blas", f"{f} {args.precision}{tf} {tag}", 2 * cx * m * n * k * b / ms / 1e6, "GFLOP/s", lib)
    elif f == "gemm_batched" and not cpu:
        # cublas<t>gemmBatched through CuPy: arrays of device pointers, one entry per matrix of
        # one buffer per operand, in order (as `ferrocm bench blas --entries in-order`).
        import cupy as cp
        try:
            from cupy_backends.cuda.libs import cublas as cb
        except ImportError:
            from cupy.cuda import cublas as cb
        import numpy as np
        assert args.precision in ("f32_r", "f64_r"), "gemm_batched: f32_r or f64_r"
        cdt = np.float32 if args.precision == "f32_r" else np.float64
        b = args.batch_count
        ra, ca = (m, k) if args.transposeA == "N" else (k, m)
        rb, cb_ = (k, n) if args.transposeB == "N" else (n, k)
        A = cp.random.uniform(-1, 1, (b, ca, ra)).astype(cdt)
        B = cp.random.uniform(-1, 1, (b, cb_, rb)).astype(cdt)
        C = cp.zeros((b, n, m), cdt)
        ptrs = lambda X: cp.asarray([X.data.ptr + i * X.strides[0] for i in range(b)], dtype=cp.uint64)
        pa, pb, pc = ptrs(A), ptrs(B), ptrs(C)
        one, zero = np.ones(1, cdt), np.zeros(1, cdt)
        gemm = cb.sgemmBatched if cdt == np.float32 else cb.dgemmBatched
        code = {"N": 0, "T": 1, "C": 2}
        handle = cp.cuda.device.get_cublas_handle()
        fn = lambda: gemm(handle, code[args.transposeA], code[args.transposeB], m, n, k, one.ctypes.data,
                          pa.data.ptr, ra, pb.data.ptr, rb, zero.ctypes.data, pc.data.ptr, m, b)
        fn()
        # Entry z's C (column-major m x n) is the row-major (n, m) C[z]: check the last entry.
        oa = A[-1].T if args.transposeA == "N" else A[-1]
        ob = B[-1].T if args.transposeB == "N" else B[-1]
        ref = (oa.astype(cp.float64) @ ob.astype(cp.float64))
        err = float(abs(C[-1].T.astype(cp.float64) - ref).max() / (abs(ref).max() + 1e-30))
        assert err < (1e-3 if cdt == np.float32 else 1e-10), err
        ms = time_ms(fn, reps=args.reps)
        tag = f"{args.transposeA}{args.transposeB} {m}x{n}x{k} batch={b}"
        emit("blas", f"gemm_batched {args.precision} {tag}", 2 * m * n * k * b / ms / 1e6, "GFLOP/s",
             "cuBLAS gemmBatched (CuPy " + cp.__version__ + ")")
    elif f == "gemv":
        lx, ly = (n, m) if args.transposeA == "N" else (m, n)
        A, x = rand(n, m), rand(lx)
        oa = op(A, args.transposeA)
        y = oa @ x
        ref = (oa.astype(complex) if cpu else oa.to(xp.complex128)) @ (x.astype(complex) if cpu else x.to(xp.complex128))
        err = float(abs((y.astype(complex) if cpu else y.to(xp.complex128)) - ref).max() / (abs(ref).max() + 1e-30))
        assert err < 1e-3, err
        ms = timed(lambda: xp.matmul(oa, x, out=y))
        emit("blas", f"gemv {args.precision} {args.transposeA} {m}x{n}", (m * n + lx + ly) * size / ms / 1e6, "GB/s", lib)
    elif f in ("axpy", "dot", "nrm2"):
        x, y = rand(n), rand(n)
        if f == "axpy":
            fn = (lambda: xp.add(y, x, out=y)) if cpu else (lambda: y.add_(x))
            vectors = 3
        elif f == "dot":
            fn = (lambda: xp.dot(x, y)) if cpu else (lambda: xp.dot(x, y))
            vectors = 2
        else:
            fn = (lambda: xp.linalg.norm(x)) if cpu else (lambda: xp.linalg.vector_norm(x))
            vectors = 1
        ms = timed(fn)
        emit("blas", f"{f} {args.precision} n={n}", vectors * n * size / ms / 1e6, "GB/s", lib)
    else:
        sys.exit(f"cublas: unknown function {f}")


# ---------------------------------------------------------------------------------------------
# NCCL, printed as nccl-tests prints it (the same table as `ferrocm bench ccl`). One process per
# GPU through torch.distributed (the numbers in anchors.md), or one process driving every GPU
# through CuPy's raw NCCL API (cupy.cuda.nccl; out-of-place all-reduce as nccl-tests does it).
# NVLink multicast (NVLS) is switched off: it can take shared GPU hosts down.

NCCL_TYPES = {"int8": "int8", "uint8": "uint8", "int32": "int32", "uint32": "uint32", "int64": "int64",
              "uint64": "uint64", "half": "float16", "float": "float32", "double": "float64", "bfloat16": "bfloat16"}
BUS = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
       "reduce_scatter": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n,
       "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0, "sendrecv": lambda n: 1.0}


def parse_size(s):
    s = str(s).strip()
    m = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:].upper(), 1)
    return int(s[:-1] if m > 1 else s) * m


def nccl_sizes(a, n, esize):
    unit = n if a.collective in ("all_gather", "reduce_scatter", "alltoall") else 1
    size = parse_size(a.b)
    out = []
    while size <= parse_size(a.e):
        count = size // esize // unit * unit
        if count:
            out.append(count)
        size *= a.f
    return out


def nccl_header(a, n, names):
    print(f"# vendor nccl {a.collective} via {a.via}: nGpus {n} minBytes {parse_size(a.b)} maxBytes {parse_size(a.e)} "
          f"step: {a.f}(factor) warmup iters: {a.w} iters: {a.n} validation: {a.c}", file=sys.stderr)
    for r, nm in enumerate(names):
        print(f"#  Rank {r:2} device {r:2} {nm}", file=sys.stderr)
    print(f"# {'size':>10} {'count':>12} {'type':>8} {'redop':>6} {'root':>6}  {'time':>7} {'algbw':>7} {'busbw':>7} {'#wrong':>6}"
          f"  {'time':>7} {'algbw':>7} {'busbw':>7} {'#wrong':>6}", file=sys.stderr)


def nccl_row(a, n, count, esize, cols, lib):
    rooted = a.collective in ("broadcast", "reduce")
    redop = a.o if a.collective in ("all_reduce", "reduce_scatter", "reduce") else "none"
    line = f"{count * esize:>12} {count:>12} {a.d:>8} {redop:>6} {a.r if rooted else -1:>6}"
    for place, c in zip(("out-of-place", "in-place"), cols):
        if c is None:
            line += f"  {'N/A':>7} {'N/A':>7} {'N/A':>7} {'N/A':>6}"
            continue
        us, wrong = c
        algbw = count * esize / us / 1e3
        busbw = algbw * BUS[a.collective](n)
        line += f"  {us:>7.2f} {algbw:>7.2f} {busbw:>7.2f} {wrong:>6}"
        emit("ccl", f"{a.collective} {a.d} {redop} n={n} {count * esize}B {place}", busbw, "GB/s busbw", lib)
        emit("ccl", f"{a.collective} {a.d} {redop} n={n} {count * esize}B {place} time", us, "us", lib)
    print(line, file=sys.stderr, flush=True)


def nccl_torch_rank(rank, world, a, port):
    import os
    import torch
    import torch.distributed as dist
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    dt = getattr(torch, NCCL_TYPES[a.d])
    op = {"sum": dist.ReduceOp.SUM, "prod": dist.ReduceOp.PRODUCT, "min": dist.ReduceOp.MIN,
          "max": dist.ReduceOp.MAX, "avg": dist.ReduceOp.AVG}[a.o]
    esize = torch.empty(0, dtype=dt).element_size()
    n, coll = world, a.collective

    def gen(r, m, seed):
        g = torch.Generator(device="cuda").manual_seed(seed * 1000 + r)
        if dt.is_floating_point:
            x = torch.rand(m, generator=g, device="cuda", dtype=torch.float32)
            x = (0.5 + x) if a.o == "prod" else (2 * x - 1)
            return x.to(dt)
        return torch.randint(0, 3 if a.o == "prod" else 100, (m,), generator=g, device="cuda").to(dt)

    def expected(inputs):
        f = torch.stack([x.double() for x in inputs])
        red = {"sum": f.sum(0), "prod": f.prod(0), "min": f.min(0).values, "max": f.max(0).values,
               "avg": f.sum(0) / n}[a.o]
        return red

    def count_wrong(got, want):
        if dt.is_floating_point:
            eps = torch.finfo(dt).eps
            tol = eps * (n + 2) * n * torch.clamp(want.abs(), min=1.0)
            return int(((got.double() - want).abs() > tol).sum())
        # Integers: exact, with the type's wrap-around (and an average's truncation).
        w = want.trunc().to(torch.int64).to(dt).to(torch.int64)
        return int((got.to(torch.int64) != w).sum())

    if rank == 0:
        nccl_header(a, n, [torch.cuda.get_device_name(i) for i in range(n)])
    for count in nccl_sizes(a, n, esize):
        per = count // n if coll in ("all_gather", "reduce_scatter", "alltoall") else count
        cols = []
        for in_place in (False, True):
            seed = int(time.time() * 1e6) % (1 << 30)
            seed = torch.tensor([seed], device="cuda")
            dist.broadcast(seed, 0)
            seed = int(seed.item())
            x = gen(rank, count if coll in ("reduce_scatter", "alltoall") else per, seed)
            if coll == "all_reduce":
                if not in_place:
                    cols.append(None)
                    continue
                fn = lambda: dist.all_reduce(x, op=op)
                run_check = lambda: (dist.all_reduce(y := x.clone(), op=op), y)[1]
                want = lambda: expected([gen(r, per, seed) for r in range(n)])
            elif coll == "broadcast":
                if not in_place:
                    cols.append(None)
                    continue
                fn = lambda: dist.broadcast(x, a.r)
                run_check = lambda: (dist.broadcast(y := x.clone(), a.r), y)[1]
                want = lambda: gen(a.r, per, seed).double()
            elif coll == "reduce":
                if not in_place:
                    cols.append(None)
                    continue
                fn = lambda: dist.reduce(x, a.r, op=op)
                run_check = lambda: (dist.reduce(y := x.clone(), a.r, op=op), y)[1]
                want = lambda: expected([gen(r, per, seed) for r in range(n)]) if rank == a.r else x.double()
            elif coll == "all_gather":
                if in_place:
                    cols.append(None)
                    continue
                out = torch.empty(per * n, dtype=dt, device="cuda")
                fn = lambda: dist.all_gather_into_tensor(out, x)
                run_check = lambda: (fn(), out)[1]
                want = lambda: torch.cat([gen(r, per, seed) for r in range(n)]).double()
            elif coll == "reduce_scatter":
                if in_place:
                    cols.append(None)
                    continue
                out = torch.empty(per, dtype=dt, device="cuda")
                fn = lambda: dist.reduce_scatter_tensor(out, x, op=op)
                run_check = lambda: (fn(), out)[1]
                want = lambda: expected([gen(r, count, seed)[rank * per:(rank + 1) * per] for r in range(n)])
            elif coll == "alltoall":
                if in_place:
                    cols.append(None)
                    continue
                out = torch.empty(count, dtype=dt, device="cuda")
                fn = lambda: dist.all_to_all_single(out, x)
                run_check = lambda: (fn(), out)[1]
                want = lambda: torch.cat([gen(r, count, seed)[rank * per:(rank + 1) * per] for r in range(n)]).double()
            else:  # sendrecv
                if in_place:
                    cols.append(None)
                    continue
                out = torch.empty(per, dtype=dt, device="cuda")
                def fn():
                    ops = [dist.P2POp(dist.isend, x, (rank + 1) % n), dist.P2POp(dist.irecv, out, (rank - 1) % n)]
                    for q in dist.batch_isend_irecv(ops):
                        q.wait()
                run_check = lambda: (fn(), out)[1]
                want = lambda: gen((rank - 1) % n, per, seed).double()
            wrong = 0
            if a.c:
                got = run_check()
                torch.cuda.synchronize()
                wrong = count_wrong(got, want())
            for _ in range(a.w):
                fn()
            torch.cuda.synchronize()
            dist.barrier()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            for _ in range(a.n):
                fn()
            e.record()
            e.synchronize()
            us = torch.tensor([s.elapsed_time(e) * 1e3 / a.n], device="cuda")
            dist.all_reduce(us, op=dist.ReduceOp.MAX)
            wr = torch.tensor([wrong], device="cuda")
            dist.all_reduce(wr)
            cols.append((float(us.item()), int(wr.item())))
        if rank == 0:
            nccl_row(a, n, count, esize, cols, f"NCCL {'.'.join(map(str, torch.cuda.nccl.version()))} (torch.distributed)")
    dist.destroy_process_group()


def nccl_cupy(a):
    import numpy as np
    import cupy as cp
    from cupy.cuda import nccl
    n = min(a.g, cp.cuda.runtime.getDeviceCount())
    dt = cp.dtype(NCCL_TYPES[a.d]) if a.d != "bfloat16" else None
    if dt is None:
        sys.exit("bfloat16 is not a CuPy type: use --via torch")
    nt = {"int8": nccl.NCCL_INT8, "uint8": nccl.NCCL_UINT8, "int32": nccl.NCCL_INT32, "uint32": nccl.NCCL_UINT32,
          "int64": nccl.NCCL_INT64, "uint64": nccl.NCCL_UINT64, "float16": nccl.NCCL_FLOAT16,
          "float32": nccl.NCCL_FLOAT32, "float64": nccl.NCCL_FLOAT64}[dt.name]
    op = {"sum": nccl.NCCL_SUM, "prod": nccl.NCCL_PROD, "min": nccl.NCCL_MIN, "max": nccl.NCCL_MAX,
          "avg": getattr(nccl, "NCCL_AVG", 4)}[a.o]
    if a.collective != "all_reduce":
        sys.exit("--via cupy times all_reduce only; use --via torch for the others")
    comms = nccl.NcclCommunicator.initAll(list(range(n)))
    names = []
    for r in range(n):
        with cp.cuda.Device(r):
            names.append(cp.cuda.runtime.getDeviceProperties(r)["name"].decode())
    nccl_header(a, n, names)
    esize = dt.itemsize
    for count in nccl_sizes(a, n, esize):
        cols = []
        for in_place in (False, True):
            xs, ys, streams = [], [], []
            rng = np.random.default_rng(int(time.time() * 1e6) % (1 << 31))
            host = [(rng.random(count) * (1 if a.o == "prod" else 2) + (0.5 if a.o == "prod" else -1)).astype(dt)
                    if dt.kind == "f" else rng.integers(0, 3 if a.o == "prod" else 100, count).astype(dt) for _ in range(n)]
            for r in range(n):
                with cp.cuda.Device(r):
                    xs.append(cp.asarray(host[r]))
                    ys.append(xs[-1] if in_place else cp.empty_like(xs[-1]))
                    streams.append(cp.cuda.Stream(non_blocking=True))

            def run():
                nccl.groupStart()
                for r in range(n):
                    with cp.cuda.Device(r):
                        comms[r].allReduce(xs[r].data.ptr, ys[r].data.ptr, count, nt, op, streams[r].ptr)
                nccl.groupEnd()

            def sync():
                for r in range(n):
                    streams[r].synchronize()
            wrong = 0
            if a.c:
                run()
                sync()
                f = np.stack([h.astype(np.float64) for h in host])
                want = {"sum": f.sum(0), "prod": f.prod(0), "min": f.min(0), "max": f.max(0), "avg": f.sum(0) / n}[a.o]
                tol = (np.finfo(dt).eps * (n + 2) * n * np.maximum(np.abs(want), 1)) if dt.kind == "f" else 0
                for r in range(n):
                    with cp.cuda.Device(r):
                        wrong += int((np.abs(cp.asnumpy(ys[r]).astype(np.float64) - want) > tol).sum())
            for _ in range(a.w):
                run()
            sync()
            t = time.perf_counter()
            for _ in range(a.n):
                run()
            sync()
            cols.append(((time.perf_counter() - t) * 1e6 / a.n, wrong))
        nccl_row(a, n, count, esize, cols, "NCCL (CuPy, raw API)")


def nccl_main(a):
    import os
    os.environ["NCCL_NVLS_ENABLE"] = "0"  # before NCCL loads, for both paths
    if a.via == "cupy":
        return nccl_cupy(a)
    import socket
    import torch
    import torch.multiprocessing as mp
    world = min(a.g, torch.cuda.device_count())
    if world < a.g:
        print(f"# only {world} GPU(s): NCCL runs {world} rank(s) (it refuses two ranks on one GPU)", file=sys.stderr)
    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        port = sk.getsockname()[1]
    mp.spawn(nccl_torch_rank, args=(world, a, port), nprocs=world, join=True)


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
    g = sub.add_parser("gemm"); g.add_argument("--dtype", default="bf16"); g.add_argument("--layout", default="nn", choices=["nn", "tn"]); g.add_argument("--n", type=int, nargs="+", default=[4096, 8192]); g.add_argument("--reps", type=int, default=20)
    r = sub.add_parser("curand"); r.add_argument("--generator", default="philox"); r.add_argument("--distribution", default="uniform"); r.add_argument("--count", type=int, default=1 << 28); r.add_argument("--reps", type=int, default=20); r.add_argument("--lambda", dest="lambda_", type=float, default=4.0)
    sub.add_parser("launch")
    b = sub.add_parser("cublas")
    b.add_argument("-f", "--function", default="gemm"); b.add_argument("-r", "--precision", default="f32_r")
    b.add_argument("--transposeA", default="N"); b.add_argument("--transposeB", default="N")
    b.add_argument("-m", type=int, default=1024); b.add_argument("-n", type=int, default=1024); b.add_argument("-k", type=int, default=1024)
    b.add_argument("--batch_count", type=int, default=1); b.add_argument("--reps", type=int, default=10)
    b.add_argument("--tf32", action="store_true"); b.add_argument("--cpu", action="store_true")
    c = sub.add_parser("nccl")
    c.add_argument("collective", nargs="?", default="all_reduce", choices=list(BUS))
    for flag, default in (("-b", "32M"), ("-e", "32M"), ("-o", "sum"), ("-d", "float")):
        c.add_argument(flag, default=default)
    for flag, default in (("-f", 2), ("-g", 1), ("-n", 20), ("-w", 5), ("-c", 1), ("-r", 0)):
        c.add_argument(flag, type=int, default=default)
    c.add_argument("--via", choices=("torch", "cupy"), default="torch")
    f = sub.add_parser("cufft"); f.add_argument("--case", action="append"); f.add_argument("--reps", type=int, default=20)
    f = sub.add_parser("scipy"); f.add_argument("--case", action="append"); f.add_argument("--reps", type=int, default=10)
    a = p.parse_args()
    {"copy": copy, "gemm": gemm, "curand": curand, "launch": launch, "cublas": cublas, "cufft": cufft,
     "scipy": scipy_fft, "nccl": nccl_main}[a.what](a)


if __name__ == "__main__":
    main()
