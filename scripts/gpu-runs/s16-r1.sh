#!/usr/bin/env bash
# Lead, 2026-12-07 (sixteenth session), call 2. Staged: main after the fft-unit merge (the PTX
# back end's address split changes every kernel's code), `pack --bins --workspace`.
# 1. ncu on the four ThreeFry bits kernels (pipes, issue, stall reasons, the SM clock with
# ncu's clock control off) and the SM clock under a long `bench rand` (nvidia-smi sampling):
# s15-r1 found the pipe split moves ThreeFry by 1-2%, so the ALU/FMA model is not what bounds
# it.  2. memcheck and racecheck on the FFT bench cases the merge changed.  3. Every test binary
# with FERROCM_REQUIRE_GPU=1 (suite.sh) in the time left. First, `.gpu/res` (branch rand8: the
# counter-based fills launch only the blocks that are resident at once) against main, in `bench
# rand` bits rows.
set -u
source scripts/gpu-runs/lib.sh
start s16r1
echo "### RAND A/B: main, res (the counter-based fills on a resident grid), nar (res + launch-constant counter high words), mix (nar + the pipe split per variant), branches rand8 and rand8-mix"
abr 2 new res nar mix -- threefry2x32 threefry4x32 threefry2x64 threefry4x64 philox
echo "### ncu on ThreeFry at $SECONDS s"
M=sm__cycles_elapsed.avg.per_second,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
for g in threefry2x32 threefry4x32 threefry2x64 threefry4x64; do
  timeout 60 ncu --clock-control none --launch-skip 3 --launch-count 1 -k regex:philox_fill \
    --metrics $M --section WarpStateStats --print-details all \
    $NEW bench rand --generator $g --distribution bits --count 268435456 --reps 3 >"$L/ncu-$g.txt" 2>&1
  echo "## $g rc=$?"; grep -E "per_second|issue_active|inst_executed.sum|pipe_|dram__|warps_active|duration|Stall|stall" "$L/ncu-$g.txt" | grep -v "^==" | head -30
done
echo "### SM clock under bench rand threefry2x32 (2^28 x 60) at $SECONDS s"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 200 >"$L/clock.txt" 2>&1 & P=$!
timeout 30 $NEW bench rand --generator threefry2x32 --distribution bits --count 268435456 --reps 60 --json | head -1
kill $P; sort "$L/clock.txt" | uniq -c | sort -rn | head -6
echo "### sanitizers at $SECONDS s"
for c in "c2c f32 1000 x 16384" "c2c f32 1021 x 16384" "c2c f32 1D 2^24" "r2c f32 2D 8192^2"; do
  san "mem-${c//[ ^]/_}" 40 memcheck $NEW bench fft --case "$c" --reps 1 --vendor none
done
san race-1000 60 racecheck $NEW bench fft --case "c2c f32 1000 x 16384" --reps 1 --vendor none
echo "### every test binary at $SECONDS s (stops starting binaries at 470 s, 100 s each)"
OUT=$L bash scripts/gpu-runs/suite.sh $((470 - SECONDS)) 100 | tail -25
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
