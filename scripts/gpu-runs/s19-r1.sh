#!/usr/bin/env bash
# Lead, 2026-12-07 (nineteenth session). Stage: `../shared/gpu/pack -p ferrocm-rand -p
# ferrocm-blas` at main (pointer-array batches as strided launches) with the release `ferrocm`
# added as bin/ferrocm. About 450 s. What s18-r1 never ran (the rand suites plainly, cuRAND's
# GPU MTGP32 against its host generator, memcheck on the ThreeFry4x64 narrow fill and MTGP32
# normals, MTGP32 beside cuRAND), the BLAS batched suite plainly and under memcheck, then
# pointer-array GEMM batches (in order or reversed: one strided launch; scattered: a launch per entry)
# beside the strided routine and cuBLAS's gemmBatched (CuPy), then memcheck on the rand suites.
set -u
source scripts/gpu-runs/lib.sh
start s19r1
for b in "$T"/ferrocm-rand--*; do t "${b##*/}" 100 "${b##*/}"; done
t blas-batched 120 ferrocm-blas--blas-test batched
san blas-batched 200 memcheck "$T/ferrocm-blas--blas-test" batched
rand_gpu_checks "$NEW" 40
echo "### pointer-array GEMM batches at $SECONDS s"
for r in f32_r f64_r; do
  for shape in "16 16 16 1000" "64 64 64 256" "256 256 256 64"; do
    set -- $shape
    args=(-r "$r" -m "$1" -n "$2" -k "$3" --batch_count "$4" --reps 20)
    timeout 30 "$NEW" bench blas -f gemm_strided_batched "${args[@]}" --json 2>&1 | grep -m1 GFLOP
    for e in in-order reversed scattered; do
      timeout 60 "$NEW" bench blas -f gemm_batched --entries "$e" "${args[@]}" --json 2>&1 | grep -m1 -E 'GFLOP|rror'
    done
    timeout 40 python3 scripts/vendor_baselines.py cublas -f gemm_batched "${args[@]}" 2>&1 | grep -m1 -E 'GFLOP|rror'
  done
done | cut -c1-200
curand_rows "$NEW" mtgp32 uniform normal bits
for b in "$T"/ferrocm-rand--*; do
  (( SECONDS < 480 )) && san "mem-${b##*/}" $((560 - SECONDS)) memcheck "$b"
done
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
