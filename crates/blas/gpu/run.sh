#!/usr/bin/env bash
# The BLAS GPU run, from the repository root on the GPU machine, after staging here with
#   ../../shared/gpu/pack --bins -p ferrocm-blas -p ferrocm-cli
# (copied to the GPU machine's checkout as .gpu/). Runs the BLAS test binaries with
# FERROCM_REQUIRE_GPU=1, then `ferrocm bench blas` for each target row followed by the cuBLAS side
# (torch) of the same request in one process, and prints a ratio table last.
# BLAS_ROWS=smoke runs three small rows instead of the target table.
set -uo pipefail
cd "$(git rev-parse --show-toplevel 2>/dev/null || pwd)"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw --format=csv,noheader || true
mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1
pass=0 fail=0
for t in .gpu/stage/tests/ferrocm-blas--*; do
  echo "=== ${t##*/}"
  out=$(timeout "${BLAS_TEST_TIMEOUT:-120}" "$t" 2>&1); rc=$?
  echo "$out" | grep -E '^(test |test result|thread .* panicked|\[)' | head -20
  if [[ $rc == 0 ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "blas test binaries: $pass passed, $fail failed"
python3 "$(dirname "$0")/table.py" --ferrocm .gpu/stage/bin/ferrocm --rows "${BLAS_ROWS:-gpu}"
