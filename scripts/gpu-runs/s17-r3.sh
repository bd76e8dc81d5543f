#!/usr/bin/env bash
# Lead, 2026-12-07 (seventeenth session): s17-r2's RAND half alone (the device budget left after
# the failed starts), about 120 s. Stage as s17-r2.
set -u
source scripts/gpu-runs/lib.sh
start s17r3
R11=$(build_bin r11)
[[ -x $T/r11-rand-test ]] || { xz -dc .gpu/r11/rand-test.xz >"$T/r11-rand-test" && chmod +x "$T/r11-rand-test"; }
t r11-rand 90 r11-rand-test mtgp32 threefry rocrand
timeout 60 python3 crates/rand/tools/curand_host_mtgp32_dists.py "$L/mtgp32-dists-gpu.txt" --device >"$L/mtgp32-gpu.log" 2>&1
echo "cuRAND MTGP32 GPU vs host rc=$?"; tail -3 "$L/mtgp32-gpu.log"
san r11-mem-4x64 40 memcheck $R11 bench rand --generator threefry4x64 --distribution bits --count 1048580 --reps 1
san r11-mem-mtgp-normal 40 memcheck $R11 bench rand --generator mtgp32 --distribution normal --count 1048580 --reps 1
curand_rows $R11 mtgp32 uniform normal bits
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
