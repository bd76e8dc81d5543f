#!/usr/bin/env bash
# Lead, 2026-12-07 (seventeenth session): s17-r2's RAND half alone (the device budget left after
# the failed starts), about 120 s. Stage as s17-r2.
set -u
source scripts/gpu-runs/lib.sh
start s17r3
R11=$(build_bin r11)
[[ -x $T/r11-rand-test ]] || { xz -dc .gpu/r11/rand-test.xz >"$T/r11-rand-test" && chmod +x "$T/r11-rand-test"; }
t r11-rand 90 r11-rand-test mtgp32 threefry rocrand
rand_gpu_checks $R11 40
curand_rows $R11 mtgp32 uniform normal bits
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
