#!/usr/bin/env bash
# Lead, 2026-11-25 (eighth session), call 1.
# 1. The test suites that became one binary each (blas, rand, fft accuracy, in-process ccl) with
#    FERROCM_REQUIRE_GPU=1: their modules now share one process and run side by side on the GPU.
# 2. The Level 1 rows beside torch after nrm2's block-wide finish (7d33f4e), with the device copy.
# Staged with `../shared/gpu/pack --bins -p ferrocm-blas -p ferrocm-rand -p ferrocm-fft
# -p ferrocm-ccl -p ferrocm-cli`.
set -u
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PATH="$PWD/.gpu/stage/bin:$PATH" PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s8r1}; mkdir -p "$O"
T=.gpu/stage/tests
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
ls $T
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$O/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s $(grep -E '^test result' "$O/$name.log" | tail -1)"
  grep -E "panicked|FAILED|^---- " "$O/$name.log" | head -8
}
echo "### Level 1 beside torch (at $SECONDS s)"
timeout 60 python3 scripts/vendor_baselines.py copy 2>&1 | tail -1
timeout 200 python3 crates/blas/gpu/table.py --ferrocm .gpu/stage/bin/ferrocm --rows level1 2>&1 | tail -8
timeout 60 python3 scripts/vendor_baselines.py copy 2>&1 | tail -1
echo "### merged test binaries (at $SECONDS s)"
t blas 300 ferrocm-blas--blas-test &
t rand 300 ferrocm-rand--rand-test &
t fft 300 ferrocm-fft--fft-test &
t ccl 300 ferrocm-ccl--ccl-test &
wait
for b in $T/*; do
  b=${b##*/}
  case $b in ferrocm-blas--blas-test|ferrocm-rand--rand-test|ferrocm-fft--fft-test|ferrocm-ccl--ccl-test|ferrocm-cli*) continue;; esac
  t "$b" 120 "$b" &
done
wait
echo "done at $SECONDS s"
(cd "$O" && tar czf logs.tgz *.log 2>/dev/null && rm -f *.log)
