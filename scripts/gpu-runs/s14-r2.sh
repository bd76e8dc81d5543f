#!/usr/bin/env bash
# Lead, 2026-12-07 (fourteenth session), call 2. s14-r1 kept fft-banks (merged into main);
# push-model cluster exchange won R2C 8192^2 (in-tile receive, -5%) and lost 2D 4096^2 (a
# receive area beside the tile: two blocks per SM, +27%). Builds: new (staged) = main
# (fft-banks merged); pi = fft-push with every cluster pass receiving in its tile; r1280 / r1536
# = main with f32 blocks of radices above 10 bounded for 1280 / 1536 resident threads instead
# of 1024 (ptxas sm_90a: 48 registers and no spills at 1280, 40 and up to 36-byte spills at
# 1536); pi1280 = pi + r1280. 1. A/B over the f32 cases these touch, alternating, two rounds,
# median of 20.  2. pi1280 beside cuFFT.  3. pi's GPU tests and sanitizers.  4. ncu, 2D column
# pass, pi1280.
# Stage: s14-r1's (fft-banks 2d55d17, whose kernels main has); .gpu/<build>/ferrocm.xz builds;
# .gpu/pi/fft-test.xz pi's `fft` test binary.
set -u
source scripts/gpu-runs/lib.sh
start s14r2
ab 2 20 new pi r1280 r1536 pi1280 -- "c2c f32 1D 2^24" "c2c f32 1024 x 16384" "c2c f32 4096 x 4096" \
  "c2c f32 1021 x 16384" "c2c f32 2D 4096^2" "c2c f32 3D 512^3" "r2c f32 1D 2^26" "r2c f32 2D 8192^2"
B=$(build_bin pi1280)
echo "### bench fft (pi1280) beside cuFFT at $SECONDS s"
timeout 120 $B bench fft --describe --reps 20 --vendor scripts/vendor_baselines.py >"$L/bench-pi1280.txt" 2>"$L/bench-pi1280.err"
echo "bench rc=$?"; grep -E '^(c2c|r2c|z2z)' "$L/bench-pi1280.txt" | grep -v plan | cut -c1-100
xz -dk .gpu/pi/fft-test.xz && chmod +x .gpu/pi/fft-test && cp .gpu/pi/fft-test $T/pi-fft-test
t pi-layouts 70 'pi-fft-test' layouts:: --skip cpu
t pi-row-pairs 60 'pi-fft-test' real::row_pairs::cuda --exact
san race-pi 30 racecheck $T/pi-fft-test layouts::cluster_column_passes::cuda --exact
san mem-pi1280-2d 20 memcheck $B bench fft --case "c2c f32 2D 4096^2" --reps 1 --vendor none
san mem-pi1280-r2c 25 memcheck $B bench fft --case "r2c f32 2D 8192^2" --reps 1 --vendor none
if command -v ncu >/dev/null && (( SECONDS < 500 )); then
  f="$L/ncu-2d-pi1280.txt"
  timeout 50 ncu --launch-skip 1 --launch-count 1 -k regex:fft_block --set full --print-details all $B bench fft --case "c2c f32 2D 4096^2" --reps 1 --vendor none >"$f" 2>&1
  echo "### ncu 2D column pass (pi1280) rc=$?"
  grep -E "Duration|DRAM Throughput|Achieved Occupancy|Registers Per|way bank|Stall (Long|Barrier|Membar|Not Sel|Wait)" "$f" | cut -c1-110 | head -14
fi
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
