#!/usr/bin/env bash
# Lead, 2026-12-07 (fourteenth session), call 1. The thirteenth session's unmeasured FFT
# branches, A/B against main: prev = main 6b0c584 (kernels as 57b0ff9); tw = fft-banks with the
# twiddle-table order only; new (staged) = fft-banks 2d55d17 (twiddle order + first-pass
# handoff layout + conflict-free row stride); push = fft-push e437a78 (fft-banks + the
# push-model cluster exchange). 1. A/B/C/D over the whole table, alternating, two rounds,
# median of 20.  2. The table beside cuFFT, new and push.  3. GPU tests and sanitizers of both
# branches.  4. ncu with the stall reasons (--print-details all), new.
# Staged from fft-banks with `../shared/gpu/pack --bins -p ferrocm-fft -p ferrocm-cli`;
# .gpu/prev, .gpu/tw, .gpu/push hold xz-compressed `ferrocm` builds, .gpu/push/fft-test.xz the
# fft-push branch's `fft` test binary.
set -u
source scripts/gpu-runs/lib.sh
start s14r1
ab 2 20 prev tw new push -- "c2c f32 1D 2^24" "c2c f32 1024 x 16384" "c2c f32 4096 x 4096" "c2c f32 1000 x 16384" \
  "c2c f32 1021 x 16384" "c2c f32 2D 4096^2" "c2c f32 3D 512^3" "r2c f32 1D 2^26" "r2c f32 2D 8192^2" "z2z f64 1D 2^24"
PUSH=$(build_bin push)
for v in new push; do
  (( SECONDS < 330 )) || break
  b=$(build_bin $v)
  echo "### bench fft ($v) beside cuFFT at $SECONDS s"
  timeout 120 $b bench fft --describe --reps 20 --vendor scripts/vendor_baselines.py >"$L/bench-$v.txt" 2>"$L/bench-$v.err"
  echo "bench rc=$?"; grep -E '^(c2c|r2c|z2z)' "$L/bench-$v.txt" | grep -v plan | cut -c1-100
done
xz -dk .gpu/push/fft-test.xz && chmod +x .gpu/push/fft-test && cp .gpu/push/fft-test $T/push-fft-test
t clusters 60 'ferrocm-fft--fft-test' layouts::cluster_column_passes::cuda --exact
t push-clusters 60 'push-fft-test' layouts::cluster_column_passes::cuda --exact
t push-row-pairs 60 'push-fft-test' real::row_pairs::cuda --exact
t mixed 60 'ferrocm-fft--fft-test' c2c::mixed_radices::cuda --exact
san race-clusters 30 racecheck $T/ferrocm-fft--fft-test layouts::cluster_column_passes::cuda --exact
san race-push 30 racecheck $T/push-fft-test layouts::cluster_column_passes::cuda --exact
san mem-1000 20 memcheck $NEW bench fft --case "c2c f32 1000 x 16384" --reps 1 --vendor none
san mem-push-2d 20 memcheck $PUSH bench fft --case "c2c f32 2D 4096^2" --reps 1 --vendor none
san mem-push-r2c 25 memcheck $PUSH bench fft --case "r2c f32 2D 8192^2" --reps 1 --vendor none
if command -v ncu >/dev/null && (( SECONDS < 470 )); then
  for c in "c2c f32 1000 x 16384:0" "c2c f32 2D 4096^2:1"; do
    name=${c%:*}; skip=${c##*:}; f="$L/ncu-${name//[ ^]/_}.txt"
    timeout 50 ncu --launch-skip "$skip" --launch-count 1 -k regex:fft_block --set full --print-details all $NEW bench fft --case "$name" --reps 1 --vendor none >"$f" 2>&1
    echo "### ncu $name (kernel $skip) rc=$?"
    grep -E "Duration|DRAM Throughput|Achieved Occupancy|Registers Per|way bank|bytes transmitted per sector|Stall" "$f" | cut -c1-110 | head -24
  done
fi
(( SECONDS < 520 )) && t push-layouts 60 'push-fft-test' layouts:: --skip cpu
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
