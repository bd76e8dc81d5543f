#!/usr/bin/env bash
# Lead, 2026-12-07 (thirteenth session), call 2. FFT shared-memory bank conflicts that s13-r1's
# ncu showed (1000 x 16384: 6.5-way stores, 3.5-way loads, 12 of 32 bytes per sector used by
# the twiddle loads; 2D 4096^2 column pass: 2.6- / 3.1-way), fixed in three parts:
# tw: the Stockham and cluster twiddle tables ordered so consecutive threads read adjacent
# entries; handoff: the first Stockham pass writes R + 1 (even R not a power of two) or R (odd R)
# apart instead of the padded R; stride: a pass mapping threads to transforms takes a row
# stride that puts consecutive transforms on distinct banks.
# Builds: prev = 57b0ff9 (s13-r1's kept changes); tw = prev + tw; new (staged) = all three.
# handoff changes only 1000 x 16384's kernel, stride only the 2D 4096^2 column pass; tw every
# kernel. 1. A/B/C over the whole table, alternating, two rounds, median of 20.  2. The table
# beside cuFFT (new).  3. ncu (new) on 1000 x 16384 and the 2D column pass.  4. GPU tests and
# sanitizers; ncu (with the stall reasons) last.
# Not run yet (the thirteenth session's device time ran out). Stage from branch fft-banks with
# `../shared/gpu/pack --bins -p ferrocm-fft -p ferrocm-cli`, then put xz-compressed `ferrocm`
# builds in .gpu/prev (main 57b0ff9) and .gpu/tw (fft-banks with `handoff` always `Padded` and
# no stride rounding in `row_stride`).
set -u
source scripts/gpu-runs/lib.sh
start s13r2
ab 2 20 prev tw new -- "c2c f32 1D 2^24" "c2c f32 1024 x 16384" "c2c f32 4096 x 4096" "c2c f32 1000 x 16384" \
  "c2c f32 1021 x 16384" "c2c f32 2D 4096^2" "c2c f32 3D 512^3" "r2c f32 1D 2^26" "r2c f32 2D 8192^2" "z2z f64 1D 2^24"
echo "### bench fft (new) beside cuFFT at $SECONDS s"
timeout 150 $NEW bench fft --describe --reps 20 --vendor scripts/vendor_baselines.py >"$L/bench.txt" 2>"$L/bench.err"
echo "bench rc=$?"; grep -E '^(c2c|r2c|z2z)' "$L/bench.txt" | grep -v plan | cut -c1-100
t clusters 60 'ferrocm-fft--fft-test' layouts::cluster_column_passes::cuda --exact
t mixed 60 'ferrocm-fft--fft-test' c2c::mixed_radices::cuda --exact
t sampled-f64 60 'ferrocm-fft--fft-test' c2c::sampled_lengths_f64::cuda --exact
san race-clusters 30 racecheck $T/ferrocm-fft--fft-test layouts::cluster_column_passes::cuda --exact
san mem-1000 20 memcheck $NEW bench fft --case "c2c f32 1000 x 16384" --reps 1 --vendor none
san mem-2d 20 memcheck $NEW bench fft --case "c2c f32 2D 4096^2" --reps 1 --vendor none
if command -v ncu >/dev/null && (( SECONDS < 420 )); then
  for c in "c2c f32 1000 x 16384:0" "c2c f32 2D 4096^2:1"; do
    name=${c%:*}; skip=${c##*:}; f="$L/ncu-${name//[ ^]/_}.txt"
    timeout 60 ncu --launch-skip "$skip" --launch-count 1 -k regex:fft_block --set full --print-details all $NEW bench fft --case "$name" --reps 1 --vendor none >"$f" 2>&1
    echo "### ncu $name (kernel $skip) rc=$?"
    grep -E "Duration|DRAM Throughput|Achieved Occupancy|Registers Per|way bank|bytes transmitted per sector|Stall" "$f" | cut -c1-110 | head -24
  done
fi
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
