#!/usr/bin/env bash
# The whole `ferrocm bench rand` table beside cuRAND (CuPy), one command on the GPU machine.
F=.gpu/stage/bin/ferrocm
N=268435456
python3 scripts/vendor_baselines.py copy
for g in philox xorwow mrg32k3a sobol32; do
  for d in uniform normal; do
    $F bench rand --generator $g --distribution $d --count $N --json
    [ $g != sobol32 ] && $F bench rand --generator $g --distribution $d --count $N --ordering legacy --json
    python3 scripts/vendor_baselines.py curand --generator $g --distribution $d --count $N
  done
  for l in 4 100 3000; do
    [ $g != sobol32 ] && $F bench rand --generator $g --distribution poisson --lambda $l --count $N --json
    $F bench rand --generator $g --distribution poisson --lambda $l --count $N --ordering legacy --json
    python3 scripts/vendor_baselines.py curand --generator $g --distribution poisson --lambda $l --count $N
  done
done 2>&1 | grep -v '^device\|^checked\|^mean'
