#!/usr/bin/env bash
# Lead, 2026-11-25 (ninth session), call 1: the tiled tf32 K-major copies and the single tf32
# routing (f2e4e71), and the sanitizer runs owed on the batched / split-K / tf32 GEMM kernels.
# 1. ferrocm-gemm's tests and blas's gemm_ex, level23, l3 and misuse modules, FERROCM_REQUIRE_GPU=1.
# 2. `table.py --rows gemm_ex` beside cuBLAS (tf32 NN 8192^3 goes through the copies).
# 3. ncu on one sgemm launch (the stall mix of gemm_wt, for the next sgemm step).
# 4. compute-sanitizer memcheck and racecheck on the batched, split-K and tf32 gemm tests.
# Staged with `../shared/gpu/pack --bins -p ferrocm-blas -p ferrocm-gemm -p ferrocm-cli`.
set -u
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PATH="$PWD/.gpu/stage/bin:$PATH" PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s9r1}; mkdir -p "$O"
T=.gpu/stage/tests
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$O/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s $(grep -E '^test result' "$O/$name.log" | tail -1)"
  grep -E "panicked|FAILED|^---- " -A2 "$O/$name.log" | head -12
}
san() { # tool, timeout, filter
  local s=$SECONDS
  timeout "$2" compute-sanitizer --tool "$1" --error-exitcode 99 --print-limit 10 $T/ferrocm-gemm--gemm-test "$3" \
    >"$O/san-$1-$3.log" 2>&1; local rc=$?
  echo "=== $1 $3: rc=$rc $((SECONDS - s)) s $(grep -E '^test result' "$O/san-$1-$3.log" | tail -1)"
  grep -E '^========= (ERROR SUMMARY|RACECHECK SUMMARY|Invalid|.*hazard)' "$O/san-$1-$3.log" | head -6
}
echo "### tests (at $SECONDS s)"
t gemm 240 ferrocm-gemm--gemm-test &
t gemm_misuse 60 ferrocm-gemm--misuse-test &
t blas_gemm_ex 240 ferrocm-blas--blas-test gemm_ex:: &
t blas_level23 240 ferrocm-blas--blas-test level23:: &
t blas_l3 240 ferrocm-blas--blas-test l3:: &
t blas_misuse 60 ferrocm-blas--blas-test misuse:: &
wait
echo "### gemm_ex rows beside cuBLAS (at $SECONDS s)"
timeout 240 python3 crates/blas/gpu/table.py --ferrocm .gpu/stage/bin/ferrocm --rows gemm_ex 2>&1 | grep -v '^{"row"' | tail -16
echo "### ncu: sgemm NN 8192^3 on GemmFamily::WarpTiled, one launch (at $SECONDS s)"
timeout 120 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_wt --section SpeedOfLight --section Occupancy \
  --section WarpStateStats --section SchedulerStats --section LaunchStats \
  --metrics "regex:sm__inst_executed_pipe_(fma|alu|lsu|fmaheavy|fmalite).*sum.*|smsp__inst_executed.sum" \
  .gpu/stage/bin/ferrocm bench blas -r f32_r -m 8192 -n 8192 -k 8192 --reps 3 --engine kernels 2>&1 \
  | grep -E "gemm|Duration|Throughput|Registers|Occupancy|Warp Cycles|Eligible|Issued|Block Limit|Stall|inst_executed" \
  | head -50
echo "### sanitizers (at $SECONDS s)"
san memcheck 90 batched
san memcheck 60 split_k
san memcheck 60 tf32
san racecheck 100 batched_both_epilogues
san racecheck 80 split_k_forced
san racecheck 80 tf32_ring_wraps
echo "done at $SECONDS s"
(cd "$O" && tar czf logs.tgz *.log 2>/dev/null && rm -f *.log)
