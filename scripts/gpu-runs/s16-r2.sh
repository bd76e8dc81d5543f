#!/usr/bin/env bash
# Lead, 2026-12-07 (sixteenth session), call 3 (about 60 s; the device budget left about 280 s).
# s16-r1 found the resident grid (rand8's first commit) 3% slower on Philox and no faster on
# ThreeFry, so: `.gpu/nar2` = main + launch-constant counter high words (branch rand9),
# `.gpu/mix2` = nar2 + the pipe split per variant (branch rand9-mix), against main's staged
# build in `bench rand` bits rows, two rounds. Then the runtime test that failed in s16-r1b
# (a free that waited 1.7 s for an unrelated kernel), twice, to tell a flaky timing from a bug.
set -u
source scripts/gpu-runs/lib.sh
start s16r2
abr 2 new nar2 mix2 -- threefry2x32 threefry4x32 threefry2x64 threefry4x64 philox
for i in 1 2; do
  t "reliability-$i" 40 ferrocm-runtime--reliability-test free_waits_only_for_streams_that_used_the_memory
done
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
