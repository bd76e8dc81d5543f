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
rand_gpu_checks $NEW 40
curand_rows $NEW mtgp32 uniform normal bits
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
