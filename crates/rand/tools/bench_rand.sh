#!/usr/bin/env bash
# The whole `ferrocm bench rand` table beside cuRAND (CuPy) and the device copy, in one command
# on the GPU machine, from the repository root after `../shared/gpu/pack --bins -p ferrocm-rand
# -p ferrocm-cli` (FERROCM is the staged binary).
F=${FERROCM:-.gpu/stage/bin/ferrocm}
N=268435456
V=${VENDOR:-"python3 scripts/vendor_baselines.py"}
$V copy
for g in philox xorwow mrg32k3a sobol32; do
  for d in uniform normal; do
    $F bench rand --generator $g --distribution $d --count $N --json
    [ $g != sobol32 ] && $F bench rand --generator $g --distribution $d --count $N --ordering legacy --json
    $V curand --generator $g --distribution $d --count $N
  done
  for l in 4 100 3000; do
    [ $g != sobol32 ] && $F bench rand --generator $g --distribution poisson --lambda $l --count $N --json
    $F bench rand --generator $g --distribution poisson --lambda $l --count $N --ordering legacy --json
    $V curand --generator $g --distribution poisson --lambda $l --count $N
  done
done 2>&1 | grep -v '^device\|^checked\|^mean'
for d in bits uniform; do
  $F bench rand --generator mtgp32 --distribution $d --count $N --json
  $V curand --generator mtgp32 --distribution $d --count $N
done 2>&1 | grep -v '^device\|^checked'
for g in lfsr113 threefry2x32 threefry4x32 threefry2x64 threefry4x64; do
  for d in bits normal; do $F bench rand --generator $g --distribution $d --count $N --json; done
done 2>&1 | grep -v '^device\|^checked'
