#!/usr/bin/env bash
# Lead, 2026-12-08 (nineteenth session): s19-r1 cut to what fits the session's last device
# minutes (about 200 s), same stage: the rand suite and the BLAS batched suite plainly, then f32
# pointer-array GEMM batches (in order: one strided launch; scattered: a launch per entry) beside
# the strided routine and cuBLAS's gemmBatched (CuPy).
set -u
source scripts/gpu-runs/lib.sh
start s19r2
t rand-test 80 ferrocm-rand--rand-test
t blas-batched 60 ferrocm-blas--blas-test batched
echo "### pointer-array GEMM batches at $SECONDS s"
for shape in "16 16 16 1000" "64 64 64 256"; do
  set -- $shape
  args=(-r f32_r -m "$1" -n "$2" -k "$3" --batch_count "$4" --reps 20)
  timeout 20 "$NEW" bench blas -f gemm_strided_batched "${args[@]}" --json 2>&1 | grep -m1 GFLOP
  for e in in-order scattered; do
    timeout 30 "$NEW" bench blas -f gemm_batched --entries "$e" "${args[@]}" --json 2>&1 | grep -m1 -E 'GFLOP|rror'
  done
  timeout 30 python3 scripts/vendor_baselines.py cublas -f gemm_batched "${args[@]}" 2>&1 | grep -m1 -E 'GFLOP|rror'
done | cut -c1-200
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
