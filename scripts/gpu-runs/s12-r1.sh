#!/usr/bin/env bash
# Lead, 2026-12-07 (twelfth session), call 1: the grouped block order of gemm_dmma16 (branch
# blas-grouped-order at 5ce6077: tiles walked in groups of 16 tile rows, dmma16_tile_index).
# 1. blas level23::gemm_cases and misuse on the GPU (the grouped order's rows against the
#    double-double reference: full and partial groups).
# 2. memcheck on dgemm 2200 x 130 x 64 (two groups, the second partial) on the planner's family.
# 3. crates/blas/gpu/table.py --rows dgemm --prev: main's build (75fbcad, .gpu/prev/ferrocm.xz)
#    then the branch on each row, then cuBLAS (torch) in the same process.
# Staged with `../shared/gpu/pack --bins -p ferrocm-blas -p ferrocm-cli -p ferrocm-fft` at 5ce6077.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s12r1}; L=/tmp/s12r1-logs; mkdir -p "$O" "$L"
trap 'tar -C "$L" -cJf "$O/logs.tar.xz" . 2>/dev/null' EXIT
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
[[ -x .gpu/prev/ferrocm ]] || { xz -dk .gpu/prev/ferrocm.xz && chmod +x .gpu/prev/ferrocm; }
T=.gpu/stage/tests; NEW=.gpu/stage/bin/ferrocm; PREV=.gpu/prev/ferrocm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
results=()
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$L/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s"
  grep -E "^test result|panicked|FAILED|^---- " "$L/$name.log" | head -6
  results+=("$name rc=$rc")
}
t blas-gemm 120 'ferrocm-blas--blas-test' level23::gemm_cases
t blas-misuse 20 'ferrocm-blas--blas-test' misuse::
s=$SECONDS
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 20 \
  $NEW bench blas -r f64_r -m 2200 -n 130 -k 64 --reps 1 --engine kernels >"$L/san-mem.log" 2>&1
echo "=== memcheck dgemm 2200x130x64: rc=$? $((SECONDS - s)) s"; grep -E "ERROR SUMMARY|checked" "$L/san-mem.log" | head -3
echo "### dgemm A/B at $SECONDS s"
timeout 300 python3 crates/blas/gpu/table.py --ferrocm "$NEW" --prev "$PREV" --rows dgemm >"$L/dgemm.txt" 2>&1
echo "rc=$?"; grep -v '^{"row"' "$L/dgemm.txt" | tail -14
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
