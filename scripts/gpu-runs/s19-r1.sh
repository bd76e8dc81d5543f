#!/usr/bin/env bash
# Lead, 2026-12-07 (nineteenth session). Stage: `../shared/gpu/pack -p ferrocm-rand -p
# ferrocm-blas` at main 3f58e24 (pointer-array batches as strided launches) with the release
# `ferrocm` added as bin/ferrocm. END (default 470) bounds the run in seconds; later steps are
# skipped when it comes near. In order of need: the rand suites and the BLAS batched suite
# plainly; pointer-array GEMM batches (in order or reversed: one strided launch; scattered: a
# launch per entry) beside the strided routine and cuBLAS's gemmBatched (CuPy); what s18-r1
# never ran (cuRAND's GPU MTGP32 against its host generator, memcheck on the ThreeFry4x64 narrow
# fill and MTGP32 normals, MTGP32 beside cuRAND); memcheck on the BLAS batched suite and on the
# rand suites.
set -u
END=${END:-470}
source scripts/gpu-runs/lib.sh
start s19r1
left() { (( SECONDS + $1 < END )); }
for b in "$T"/ferrocm-rand--*; do t "${b##*/}" 100 "${b##*/}"; done
t blas-batched 120 ferrocm-blas--blas-test batched
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
left 150 && rand_gpu_checks "$NEW" 40
left 120 && san blas-batched $((END - SECONDS - 60)) memcheck "$T/ferrocm-blas--blas-test" batched
left 60 && curand_rows "$NEW" mtgp32 uniform normal bits
for b in "$T"/ferrocm-rand--*; do
  left 60 && san "mem-${b##*/}" $((END - SECONDS)) memcheck "$b"
done
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
