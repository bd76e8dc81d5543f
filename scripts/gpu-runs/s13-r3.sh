#!/usr/bin/env bash
# Lead, 2026-12-07 (thirteenth session), call 3: s13-r2.sh cut to what fits the last minute of
# the session's device time (same builds: prev = 57b0ff9, new = the bank-conflict fixes).
# A/B, alternating, two rounds, median of 20 (each case's time is printed as it runs); the GPU tests of the changed layouts; the
# table beside cuFFT if time is left.
set -u
source scripts/gpu-runs/lib.sh
start s13r3
ab 2 20 prev new -- "c2c f32 1000 x 16384" "c2c f32 2D 4096^2" "c2c f32 4096 x 4096"
t clusters 30 'ferrocm-fft--fft-test' layouts::cluster_column_passes::cuda --exact
t mixed 30 'ferrocm-fft--fft-test' c2c::mixed_radices::cuda --exact
timeout 60 $NEW bench fft --reps 20 --vendor scripts/vendor_baselines.py >"$L/bench.txt" 2>"$L/bench.err"
echo "bench rc=$?"; grep -E '^(c2c|r2c|z2z)' "$L/bench.txt" | grep -v plan | cut -c1-100
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
