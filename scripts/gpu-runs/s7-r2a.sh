#!/usr/bin/env bash
# Lead, 2026-11-24 (seventh session), call 2a: the BLAS routines the session's four helpers
# added (l2mv, l2rank/batched, l3, gemm_ex/matmul), first time on a GPU.
# 1. Every blas test binary with FERROCM_REQUIRE_GPU=1 (all at once: 16 host cores).
# 2. compute-sanitizer memcheck on the new binaries (their GPU cases; the CPU cases run too).
# Staged with `../shared/gpu/pack --bins -p ferrocm-blas -p ferrocm-cli`.
set -u
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PATH="$PWD/.gpu/stage/bin:$PATH" PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s7r2}; mkdir -p "$O"
T=.gpu/stage/tests
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$O/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s $(grep -E '^test result' "$O/$name.log" | tail -1)"
  grep -E "panicked|FAILED|^---- " "$O/$name.log" | head -6
}
echo "### blas tests (at $SECONDS s)"
for b in $T/ferrocm-blas--*; do
  b=${b##*/}; t "${b#ferrocm-blas--}" 240 "$b" &
done
wait
echo "### memcheck, new binaries (at $SECONDS s)"
san() { # name, binary
  local s=$SECONDS
  timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 10 --report-api-errors no \
    "$T/$2" > "$O/memcheck_$1.log" 2>&1; local rc=$?
  echo "memcheck $1 rc=$rc $((SECONDS - s)) s: $(grep -E '^test result' "$O/memcheck_$1.log" | tail -1) | $(grep -E '^========= ERROR SUMMARY' "$O/memcheck_$1.log")"
  grep -E '^========= (Invalid|Error)' -A3 "$O/memcheck_$1.log" | head -6
}
for b in l2mv-test l2rank-test batched-test l3-test gemm_ex-test; do
  [[ -x $T/ferrocm-blas--$b ]] && san "${b%-test}" "ferrocm-blas--$b" &
done
wait
echo "done at $SECONDS s"
(cd "$O" && tar czf logs.tgz *.log *.json 2>/dev/null && rm -f *.log *.json)
