"""cuBLAS (through PyTorch) bf16 GEMM at the shapes bench_gemm uses, timed the same way
(CUDA events, median after warm-up), and the ratio against the DSL GEMM's lines on stdin.

    bench_gemm | python3 torch_gemm.py
"""
import re
import sys

import torch

dsl = {}
for line in sys.stdin:
    print(line, end="")
    m = re.search(r"bench=gemm .* m=(\d+) n=(\d+) k=(\d+) ms=([\d.]+) tflops=([\d.]+)", line)
    if m:
        dsl[(int(m[1]), int(m[2]), int(m[3]))] = float(m[5])

for (m, n, k), dsl_tflops in sorted(dsl.items()):
    a = torch.rand(m, k, device="cuda", dtype=torch.bfloat16) - 0.5
    b = torch.rand(n, k, device="cuda", dtype=torch.bfloat16) - 0.5
    for _ in range(3):
        torch.matmul(a, b.T)
    torch.cuda.synchronize()
    times = []
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        torch.matmul(a, b.T)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    ms = sorted(times)[len(times) // 2]
    tflops = 2 * m * n * k / ms / 1e9
    print(f"bench=gemm_cublas m={m} n={n} k={k} ms={ms:.4f} tflops={tflops:.1f} dsl_vs_cublas={dsl_tflops / tflops:.3f}")
