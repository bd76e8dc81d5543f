#!/usr/bin/env bash
# Lead, 2026-12-07 (fourteenth session), call 3. Staged: main 427c85c (fft-banks and the
# push-model cluster exchange, in-tile, merged after s14-r1/r2). Variants for c2c 2^24 and the
# other four-step chains: fsrun = branch fft-fsrun (the last pass of a four-step pass looks up
# two twiddles per thread and multiplies on, instead of two lookups per position: 63 -> 35
# global loads per thread in 2^24 passes 1-2); run256 = main with strided passes holding
# 256-byte runs (32 transforms of 256 in f32) instead of 128; both = fsrun + run256.
# 1. A/B/C/D on the cases these touch, alternating, two rounds, median of 20.  2. ncu kernel
# durations of the three 2^24 passes (new, fsrun).  3. The table beside cuFFT (new).
# 4. GPU tests (new; fsrun's four-step suites) and sanitizers.
set -u
source scripts/gpu-runs/lib.sh
start s14r3
ab 2 20 new fsrun run256 both -- "c2c f32 1D 2^24" "c2c f32 3D 512^3" "r2c f32 1D 2^26" "z2z f64 1D 2^24" "c2c f32 1021 x 16384"
for v in new fsrun both; do
  b=$(build_bin $v)
  timeout 40 ncu --metrics gpu__time_duration.sum -k regex:fft_block --launch-count 3 $b bench fft --case "c2c f32 1D 2^24" --reps 1 --vendor none >"$L/ncu-2p24-$v.txt" 2>&1
  echo "### ncu 2^24 passes ($v) rc=$?: $(grep gpu__time_duration "$L/ncu-2p24-$v.txt" | awk '{print $NF}' | tr '\n' ' ')"
done
echo "### bench fft (new) beside cuFFT at $SECONDS s"
timeout 120 $NEW bench fft --describe --reps 20 --vendor scripts/vendor_baselines.py >"$L/bench-new.txt" 2>"$L/bench-new.err"
echo "bench rc=$?"; grep -E '^(c2c|r2c|z2z)' "$L/bench-new.txt" | cut -c1-100
xz -dk .gpu/fsrun/fft-test.xz && chmod +x .gpu/fsrun/fft-test && cp .gpu/fsrun/fft-test $T/fsrun-fft-test
t fs-chains 90 'fsrun-fft-test' c2c::three_pass_chains::cuda --exact
t fs-pow2 60 'fsrun-fft-test' c2c::large_powers_of_two::cuda --exact
t fs-real 90 'fsrun-fft-test' real::three_pass_real::cuda --exact
t layouts 70 'ferrocm-fft--fft-test' layouts:: --skip cpu
t mixed 40 'ferrocm-fft--fft-test' c2c::mixed_radices::cuda --exact
san race-clusters 30 racecheck $T/ferrocm-fft--fft-test layouts::cluster_column_passes::cuda --exact
san mem-fs-2p24 20 memcheck $(build_bin fsrun) bench fft --case "c2c f32 1D 2^24" --reps 1 --vendor none
san mem-2d 20 memcheck $NEW bench fft --case "c2c f32 2D 4096^2" --reps 1 --vendor none
(( SECONDS < 430 )) && t row-pairs 60 'ferrocm-fft--fft-test' real::row_pairs::cuda --exact
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
