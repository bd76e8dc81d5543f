#!/usr/bin/env bash
# Lead, 2026-11-24 (seventh session), call 1: the GPU checks the sixth session left owed.
# 1. blas level23 (gemm_cases with the DMMA.16x8x16 dgemm family, gemv) and the fft tests
#    fft3 added (`fused_unfold`, `row_pairs`), which timed out in the helpers' script boxes:
#    run side by side (tests, not timings) with long boxes.
# 2. ncu stall mix of one `gemm_dmma16` launch (dgemm NN 8192^3), with the sections s6-r2.sh
#    used for the m8n8k4 kernel, so the two tables compare.
# Staged with `../shared/gpu/pack --bins -p ferrocm-blas -p ferrocm-fft -p ferrocm-cli`.
set -u
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PATH="$PWD/.gpu/stage/bin:$PATH"
O=${OUT:-/tmp/s7r1}; mkdir -p "$O"
T=.gpu/stage/tests
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$O/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s $(grep -E '^test result' "$O/$name.log" | tail -1)"
  grep -E "panicked|FAILED|^---- " "$O/$name.log" | head -8
}
( t blas-level23 300 ferrocm-blas--level23-test ) &
( t fft-fused 240 ferrocm-fft--real-test fused_unfold::cuda --exact; t fft-rows 150 ferrocm-fft--real-test row_pairs::cuda --exact ) &
wait
echo "### ncu: dgemm16 NN 8192^3 (at $SECONDS s)"
timeout 150 ncu --launch-skip 2 --launch-count 1 -k regex:gemm --section SpeedOfLight --section Occupancy \
  --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis --section SchedulerStats \
  --section ComputeWorkloadAnalysis --section InstructionStats \
  --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
  ferrocm bench blas -r f64_r -m 8192 -n 8192 -k 8192 --reps 3 --engine kernels > "$O/ncu_dgemm16.txt" 2>&1
grep -vE '^\s*$|^==PROF==' "$O/ncu_dgemm16.txt" | grep -E "gemm|Duration|Throughput|Registers|Occupancy|Warp Cycles|Stall|Issue|Pipe|Block Limit|Shared|L1|L2|DRAM|Eligible|Active Warps|Executed Ipc|Bank|stalled" | head -90
echo "done at $SECONDS s"
(cd "$O" && tar czf logs.tgz *.log *.txt 2>/dev/null && rm -f *.log)
