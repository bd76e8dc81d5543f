#!/usr/bin/env python3
"""Runs `ferrocm bench blas` for each row of ROWS, then the vendor side of the same request
(scripts/vendor_baselines.py cublas: torch/cuBLAS, or numpy with --cpu) in this one process,
and prints a ratio table last. Usage (repository root, staged binaries):

    python3 crates/blas/gpu/table.py [--ferrocm PATH] [--prev PATH] [--cpu] [--rows gpu|cpu|smoke|blas3|blas4|dgemm|dmma3|dmma4|p16|gemm_ex|gbatch|level1]

With --prev, each row also runs an earlier build's `ferrocm` on the same request just before this
one (an A/B in one process tree, the vendor side after both), and the table gains its column.
"""
import argparse
import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stdout

# scripts/ of the repository, or this folder when the scripts were staged beside it.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vendor_baselines as vb  # noqa: E402

# (function, precision, transA, transB, m, n, k, batch, reps): the target rows that
# this crate has types for (bf16/f16/tf32/fp8 GEMMs are not in it yet).
GPU_ROWS = [
    ("gemm", "f32_r", "N", "N", 8192, 8192, 8192, 1, 3),
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 2),
    ("gemm", "f32_r", "T", "N", 4096, 4096, 4096, 1, 5),
    ("gemm_strided_batched", "f32_r", "N", "N", 512, 512, 512, 256, 3),
    ("gemm", "f32_c", "N", "C", 2048, 2048, 2048, 1, 3),
    ("gemv", "f32_r", "N", "N", 16384, 16384, 1, 1, 10),
    ("gemv", "f32_r", "T", "N", 16384, 16384, 1, 1, 10),
    ("axpy", "f32_r", "N", "N", 1, 1 << 28, 1, 1, 10),
    ("dot", "f32_r", "N", "N", 1, 1 << 28, 1, 1, 10),
    ("nrm2", "f32_r", "N", "N", 1, 1 << 28, 1, 1, 10),
]
CPU_ROWS = [
    ("gemm", "f32_r", "N", "N", 2048, 2048, 2048, 1, 5),
    ("gemm", "f64_r", "N", "N", 2048, 2048, 2048, 1, 3),
    ("gemv", "f32_r", "N", "N", 4096, 4096, 1, 1, 10),
    ("gemv", "f32_r", "T", "N", 4096, 4096, 1, 1, 10),
]
# The rows the blas3 kernels (split gemv N, strip gemv T, FP64 tensor-core dgemm, SIMT sgemm
# with 16-byte fragments and register prefetch) were written for: crates/blas/gpu/blas3.sh.
BLAS3_ROWS = [
    ("gemv", "f32_r", "N", "N", 16384, 16384, 1, 1, 10),
    ("gemv", "f32_r", "T", "N", 16384, 16384, 1, 1, 10),
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 3),
    ("gemm", "f32_r", "N", "N", 8192, 8192, 8192, 1, 3),
    ("gemm", "f32_r", "T", "N", 4096, 4096, 4096, 1, 5),
]
# The blas4 kernels (warp-tiled sgemm, wide FP64 tensor-core dgemm, 16-byte nrm2) with gemv and
# axpy (a copy-speed Level 1 kernel) as controls: crates/blas/gpu/blas4.sh.
BLAS4_ROWS = [
    ("gemm", "f32_r", "N", "N", 8192, 8192, 8192, 1, 3),
    ("gemm", "f32_r", "T", "N", 4096, 4096, 4096, 1, 5),
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 3),
    ("nrm2", "f32_r", "N", "N", 1, 1 << 28, 1, 1, 10),
    ("nrm2", "f64_r", "N", "N", 1, 1 << 27, 1, 1, 10),
    ("axpy", "f32_r", "N", "N", 1, 1 << 28, 1, 1, 10),
    ("gemv", "f32_r", "N", "N", 16384, 16384, 1, 1, 10),
    ("gemv", "f32_r", "T", "N", 16384, 16384, 1, 1, 10),
]
# Hopper's FP64 tensor-core shape (mma.sync.m16n8k16.f64: the planner's family, GemmFamily::Dmma16
# until the dmma3 branch, Dmma16W32 since) against cuBLAS, with the m8n8k4 family forced on the
# same request as the in-process before/after:
# crates/blas/gpu/dgemm.sh. A tenth field passes extra `ferrocm bench blas` arguments.
DGEMM_ROWS = [
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 3),
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 3, ["--family", "dmma"]),
    ("gemm", "f64_r", "N", "N", 4096, 4096, 4096, 1, 5),
    ("gemm", "f64_r", "T", "N", 4096, 4096, 4096, 1, 5),
]
# The dmma3 branch (crates/blas/gpu/dmma3.sh): gemm_dmma16 with 32 x 32 warp tiles
# (GemmFamily::Dmma16W32: 128 x 64 tiles of 8 warps, two blocks per SM) beside the 64 x 32
# geometry (GemmFamily::Dmma16: 128 x 128 tiles of 8 warps, one block per SM), both forced, each
# row followed by cuBLAS in this process; the 8192^3 pair runs again in the other order last, so
# the table shows the run-to-run spread next to the difference between the geometries.
DMMA3_ROWS = [
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 5, ["--family", "dmma16-w32"]),
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 5, ["--family", "dmma16"]),
    ("gemm", "f64_r", "N", "N", 4096, 4096, 4096, 1, 10, ["--family", "dmma16-w32"]),
    ("gemm", "f64_r", "N", "N", 4096, 4096, 4096, 1, 10, ["--family", "dmma16"]),
    ("gemm", "f64_r", "T", "N", 4096, 4096, 4096, 1, 10, ["--family", "dmma16-w32"]),
    ("gemm", "f64_r", "T", "N", 4096, 4096, 4096, 1, 10, ["--family", "dmma16"]),
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 5, ["--family", "dmma16"]),
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 5, ["--family", "dmma16-w32"]),
]
# The 4-warp 64 x 32 tiles in 8-deep steps with double-buffered fragments (GemmFamily::Dmma16K8,
# cuBLAS's sm90 dgemm shape: 128 x 64 x 16 tiles of 2 x 2 warps, m16n8k8) beside the planner's
# Dmma16W32, both forced, each followed by cuBLAS; the 8192^3 pair again in the other order.
DMMA4_ROWS = [
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 5, ["--family", "dmma16-k8"]),
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 5, ["--family", "dmma16-w32"]),
    ("gemm", "f64_r", "N", "N", 4096, 4096, 4096, 1, 10, ["--family", "dmma16-k8"]),
    ("gemm", "f64_r", "N", "N", 4096, 4096, 4096, 1, 10, ["--family", "dmma16-w32"]),
    ("gemm", "f64_r", "T", "N", 4096, 4096, 4096, 1, 10, ["--family", "dmma16-k8"]),
    ("gemm", "f64_r", "T", "N", 4096, 4096, 4096, 1, 10, ["--family", "dmma16-w32"]),
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 5, ["--family", "dmma16-w32"]),
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 5, ["--family", "dmma16-k8"]),
]
# The dgemm-p16 branch (seventeenth session): gemm_dmma16's stages laid out for 16-byte copies
# (A and B with N), the planner's W32 and the forced K8 on the 8192^3 and on 4096^3, NN
# and TN (B alone copies 16 bytes), the first row again last for the spread; with --prev each
# row also runs main's build first.
P16_ROWS = [
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 5),
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 5, ["--family", "dmma16-k8"]),
    ("gemm", "f64_r", "N", "N", 4096, 4096, 4096, 1, 10),
    ("gemm", "f64_r", "T", "N", 4096, 4096, 4096, 1, 10),
    ("gemm", "f64_r", "N", "N", 8192, 8192, 8192, 1, 5),
]
# gemm_ex on half inputs (A, B, C of one type, f32 compute): the Wgmma family (ferrocm-gemm's
# Hopper kernel) on sm_90a; the batched row is one launch for the whole batch (ferrocm-gemm's
# batched kernel) where the strides allow it.
GEMM_EX_ROWS = [
    ("gemm_ex", "bf16_r", "T", "N", 4096, 4096, 4096, 1, 10),
    ("gemm_ex", "bf16_r", "N", "N", 4096, 4096, 4096, 1, 10),
    ("gemm_ex", "bf16_r", "T", "N", 8192, 8192, 8192, 1, 5),
    ("gemm_ex", "bf16_r", "N", "N", 8192, 8192, 8192, 1, 5),
    ("gemm_ex", "f16_r", "T", "N", 8192, 8192, 8192, 1, 5),
    ("gemm_ex", "bf16_r", "T", "N", 4096, 28672, 8192, 1, 5),
    ("gemm_ex", "bf16_r", "T", "N", 8192, 8192, 28672, 1, 3),
    ("gemm_ex", "bf16_r", "T", "N", 16, 8192, 8192, 1, 20),
    ("gemm_strided_batched_ex", "bf16_r", "N", "N", 512, 512, 512, 256, 3),
    ("gemm_ex", "bf16_r", "N", "N", 4096, 4096, 4096, 1, 5, ["--family", "simt"]),
    # f32 A, B and C with tf32 products (cuBLAS's CUBLAS_COMPUTE_32F_FAST_TF32; the vendor side
    # runs with torch.backends.cuda.matmul.allow_tf32): ferrocm-gemm's TF32 inputs.
    ("gemm_ex", "f32_r", "T", "N", 8192, 8192, 8192, 1, 5, ["--compute_type", "tf32_r"]),
    ("gemm_ex", "f32_r", "T", "N", 4096, 4096, 4096, 1, 10, ["--compute_type", "tf32_r"]),
    # N/N: both operands transposed K-major into the workspace first (two extra memory passes).
    ("gemm_ex", "f32_r", "N", "N", 8192, 8192, 8192, 1, 5, ["--compute_type", "tf32_r"]),
]
# The issue's Level 1 rows (0.9 of the device copy) after nrm2's block-wide finish: the
# vendor side is torch (`y.add_`, `torch.dot`, `torch.linalg.vector_norm`).
LEVEL1_ROWS = [
    ("axpy", "f32_r", "N", "N", 1, 1 << 28, 1, 1, 10),
    ("dot", "f32_r", "N", "N", 1, 1 << 28, 1, 1, 10),
    ("nrm2", "f32_r", "N", "N", 1, 1 << 28, 1, 1, 10),
    ("nrm2", "f64_r", "N", "N", 1, 1 << 27, 1, 1, 10),
    ("nrm2", "f32_c", "N", "N", 1, 1 << 27, 1, 1, 10),
]
# The batched Hopper GEMM (crates/gemm/gpu/batched.sh): strided-batched bf16 in one launch,
# NN (BLAS's) and TN, a broadcast-free 4096^3 row as the unbatched control, and the decode
# shape (m = 16: 64 tiles of 128 x 128 on 132 SMs).
GBATCH_ROWS = [
    ("gemm_strided_batched_ex", "bf16_r", "N", "N", 512, 512, 512, 256, 5),
    ("gemm_strided_batched_ex", "bf16_r", "T", "N", 512, 512, 512, 256, 5),
    ("gemm_strided_batched_ex", "bf16_r", "N", "N", 256, 256, 1024, 512, 5),
    ("gemm_ex", "bf16_r", "T", "N", 16, 8192, 8192, 1, 20),
    ("gemm_ex", "bf16_r", "T", "N", 4096, 4096, 4096, 1, 10),
]
SMOKE_ROWS = [
    ("gemm", "f32_r", "N", "T", 256, 192, 128, 1, 3),
    ("gemv", "f64_r", "T", "N", 300, 200, 1, 1, 3),
    ("dot", "f32_c", "N", "N", 1, 1 << 16, 1, 1, 3),
]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ferrocm", default=".gpu/stage/bin/ferrocm")
    p.add_argument("--prev", default=None, help="an earlier build's ferrocm, run on each row first")
    p.add_argument("--cpu", action="store_true", help="vendor side on the host (numpy)")
    p.add_argument("--rows", default="gpu", choices=["gpu", "cpu", "smoke", "blas3", "blas4", "dgemm", "dmma3",
                                                           "dmma4", "p16", "gemm_ex", "gbatch", "level1"])
    p.add_argument("--device", default=None)
    a = p.parse_args()
    rows = {"gpu": GPU_ROWS, "cpu": CPU_ROWS, "smoke": SMOKE_ROWS, "blas3": BLAS3_ROWS, "blas4": BLAS4_ROWS,
            "dgemm": DGEMM_ROWS, "dmma3": DMMA3_ROWS, "dmma4": DMMA4_ROWS, "p16": P16_ROWS, "gemm_ex": GEMM_EX_ROWS, "gbatch": GBATCH_ROWS, "level1": LEVEL1_ROWS}[a.rows]
    table = []
    for (f, r, ta, tb, m, n, k, b, reps, *extra) in rows:
        args = ["bench", "blas", "--json", "-f", f, "-r", r, "--transposeA", ta, "--transposeB", tb,
                "-m", str(m), "-n", str(n), "-k", str(k), "--batch_count", str(b), "--reps", str(reps)]
        args += extra[0] if extra else []
        if a.device is not None:
            args += ["--device", a.device]
        def bench(binary):
            try:
                out = subprocess.run([binary] + args, capture_output=True, text=True, timeout=300)
                if out.returncode == 0:
                    return json.loads(out.stdout.strip().splitlines()[-1]), ""
                return None, (out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}")
            except Exception as e:  # a failed row must not hide the others
                return None, str(e)

        prev, note = bench(a.prev) if a.prev else (None, "")
        ours, n2 = bench(a.ferrocm)
        note = " ".join(x for x in (note, n2) if x)
        vendor = None
        tf32 = "tf32_r" in (extra[0] if extra else [])
        try:
            ns = argparse.Namespace(function=f, precision=r, transposeA=ta, transposeB=tb, m=m, n=n, k=k,
                                    batch_count=b, reps=reps, tf32=tf32, cpu=a.cpu)
            buf = io.StringIO()
            with redirect_stdout(buf):
                vb.cublas(ns)
            vendor = json.loads(buf.getvalue().strip().splitlines()[-1])
        except Exception as e:
            note += f" vendor: {e}"
        print(json.dumps({"row": [f, r, ta, tb, m, n, k, b], "prev": prev, "ferrocm": ours, "vendor": vendor,
                          "note": note}), flush=True)
        table.append((prev, ours, vendor, note, f, r + (" tf32" if tf32 else ""), ta, tb, m, n, k, b))
    print()
    head = f"{'request':<52} {'prev':>10} {'ratio':>7}" if a.prev else "request"
    print(f"{head:<52} {'ferrocm':>10} {'vendor':>10} {'unit':>8} {'ratio':>7}  family / note")
    for prev, ours, vendor, note, f, r, ta, tb, m, n, k, b in table:
        req = f"{f} {r} {ta}{tb} {m}x{n}x{k}" + (f" b={b}" if b > 1 else "")
        o = ours["ferrocm"] if ours else None
        v = vendor["value"] if vendor else None
        unit = (ours or {}).get("unit") or (vendor or {}).get("unit", "")
        fam = ours["metric"].rsplit("[", 1)[-1].rstrip("]") if ours else ""
        ratio = f"{o / v:.3f}" if o and v else "-"
        fo = f"{o:.1f}" if o else "-"
        fv = f"{v:.1f}" if v else "-"
        if a.prev:
            p0 = prev["ferrocm"] if prev else None
            pr = f"{p0 / v:.3f}" if p0 and v else "-"
            req = f"{req:<52} {(f'{p0:.1f}' if p0 else '-'):>10} {pr:>7}"
        print(f"{req:<52} {fo:>10} {fv:>10} {unit:>8} {ratio:>7}  {fam} {note}")


if __name__ == "__main__":
    main()
