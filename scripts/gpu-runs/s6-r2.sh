#!/usr/bin/env bash
# Lead, 2026-11-24 (sixth session), call 2: compute-sanitizer racecheck on the new kernels'
# tests (shared-memory hazards in the fp8 and bf16 GEMM, the warp-tiled sgemm and the wide
# dgemm, the Sobol32 Poisson table), then ncu on one dgemm launch (the 0.42x case): where its
# warps stall, what the memory side does. Staged as call 1.
set -u
[[ -d .gpu/stage/tests ]] || { cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..; }
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PATH="$PWD/.gpu/stage/bin:$PATH"
O=${OUT:-/tmp/s6r2}; mkdir -p "$O"
T=.gpu/stage/tests
san() { # tool, name, binary, filters...
  local tool=$1 name=$2 bin=$3; shift 3
  local s=$SECONDS
  timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 10 --report-api-errors no \
    "$T/$bin" "$@" > "$O/san_${tool}_$name.log" 2>&1; local rc=$?
  echo "$tool $name rc=$rc $((SECONDS - s)) s: $(grep -E '^test result' "$O/san_${tool}_$name.log" | tail -1) | $(grep -E '^========= (ERROR SUMMARY|RACECHECK SUMMARY)' "$O/san_${tool}_$name.log" | tr '\n' ' ')"
  grep -E '^========= (Invalid|Error|.*hazard)' -A3 "$O/san_${tool}_$name.log" | head -8
}
san racecheck gemm-e4m3 ferrocm-gemm--gemm-test e4m3_scaled_into_every_output_type ragged_shapes_bf16_to_f32
san racecheck blas-gemm ferrocm-blas--level23-test gemm_cases
san racecheck rand-poisson ferrocm-rand--curand_host_poisson-test sobol32_inverse_cdf
echo "### ncu: dgemm 8192^3 (at $SECONDS s)"
timeout 150 ncu --launch-skip 2 --launch-count 1 -k regex:gemm --section SpeedOfLight --section Occupancy \
  --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis --section SchedulerStats \
  --section ComputeWorkloadAnalysis --section InstructionStats \
  --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
  ferrocm bench blas -r f64_r -m 8192 -n 8192 -k 8192 --reps 3 --engine kernels > "$O/ncu_dgemm.txt" 2>&1
grep -vE '^\s*$|^==PROF==' "$O/ncu_dgemm.txt" | grep -E "gemm|Duration|Throughput|Registers|Occupancy|Warp Cycles|Stall|Issue|Pipe|Block Limit|Shared|L1|L2|DRAM|Eligible|Active Warps|Executed Ipc|Bank|stalled" | head -90
echo "### the smi suites call 1 left out (at $SECONDS s)"
for t in $T/ferrocm-smi--*; do timeout 60 "$t" > "$O/${t##*/}.log" 2>&1; echo "${t##*/} rc=$? $(grep -E '^test result' "$O/${t##*/}.log" | tail -1)"; done
echo "done at $SECONDS s"
(cd "$O" && tar czf logs.tgz *.log *.txt 2>/dev/null && rm -f *.log)
