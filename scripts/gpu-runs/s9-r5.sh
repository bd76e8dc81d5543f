#!/usr/bin/env bash
# Lead, 2026-11-25 (ninth session), call 5: A/B of fftcol's 16-byte Col sides. .gpu/ferrocm-ab is
# main at e69ab9a plus a temporary (never committed) FERROCM_FFT_WIDE=none|load|store|both switch
# in Planner::wide; the four settings run twice each, interleaved, on the cases with Col sides.
set -u
cases=(--case "c2c f32 1D 2^24" --case "c2c f32 2D 4096^2" --case "c2c f32 3D 512^3" --case "r2c f32 1D 2^26")
for round in 1 2; do
  for w in none load store both; do
    echo "### round $round, wide=$w"
    FERROCM_FFT_WIDE=$w timeout 100 .gpu/ferrocm-ab bench fft "${cases[@]}" --vendor none --reps 30 2>/dev/null \
      | grep -E '^(c2c|r2c)' | grep -v plan | sed -E 's/ +- .*//'
  done
done
echo "done at $SECONDS s"
