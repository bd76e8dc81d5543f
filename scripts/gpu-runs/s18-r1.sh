#!/usr/bin/env bash
# Lead, 2026-12-07 (eighteenth session): what s17-r2/r3 never ran. Stage: `../shared/gpu/pack -p
# ferrocm-rand` at main 18fcff9 with the release `ferrocm` added as bin/ferrocm. About 300 s.
# The rand suite plainly and under memcheck, cuRAND's GPU MTGP32 against its host generator for
# the recorded cases, memcheck on the ThreeFry4x64 narrow fill and MTGP32 normals, MTGP32 rows
# beside cuRAND.
set -u
export FERROCM_REQUIRE_GPU=1
s=$SECONDS
timeout 150 bash .gpu/run.sh >/tmp/runsh.log 2>&1; echo "run.sh rc=$? $((SECONDS - s)) s"; tail -4 /tmp/runsh.log
s=$SECONDS
FERROCM_SANITIZE=memcheck timeout 240 bash .gpu/run.sh >/tmp/runsh-mem.log 2>&1; echo "memcheck run.sh rc=$? $((SECONDS - s)) s"; grep -E '^(===|binaries|[0-9]+ passed)' /tmp/runsh-mem.log | tail -6
source scripts/gpu-runs/lib.sh
start s18r1
cp /tmp/runsh*.log "$L/"
timeout 60 python3 crates/rand/tools/curand_host_mtgp32_dists.py "$L/mtgp32-dists-gpu.txt" --device >"$L/mtgp32-gpu.log" 2>&1
echo "cuRAND MTGP32 GPU vs host rc=$?"; tail -3 "$L/mtgp32-gpu.log"
san mem-4x64 40 memcheck $NEW bench rand --generator threefry4x64 --distribution bits --count 1048580 --reps 1
san mem-mtgp-normal 40 memcheck $NEW bench rand --generator mtgp32 --distribution normal --count 1048580 --reps 1
curand_rows $NEW mtgp32 uniform normal bits
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
