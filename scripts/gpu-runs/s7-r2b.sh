#!/usr/bin/env bash
# Lead, 2026-11-24 (seventh session), call 2b: the BLAS routines the session's four helpers
# added (l2mv, l2rank/batched, l3, gemm_ex/matmul), first time on a GPU.
# 0. The gemm_ex suite again (after the 8-bit matmul bound fix).
# 3. `ferrocm bench blas -f gemm_ex` (bf16/f16 in and out, f32 compute) beside cuBLAS (torch) in
#    one process: the issue's bf16 rows (4096^3, 8192^3, LLM shapes, decode, batched).
# 4. The traced launch overhead after the per-stream record buffer (3e1adb7): five alternating
#    pairs of `bench runtime`, plain and under `ferrocm prof --kernel-trace`.
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
echo "### gemm_ex suite after the fp8 bound fix (at $SECONDS s)"
s=$SECONDS; timeout 120 .gpu/stage/tests/ferrocm-blas--gemm_ex-test > "$O/gemm_ex.log" 2>&1
echo "gemm_ex rc=$? $((SECONDS - s)) s $(grep -E '^test result' "$O/gemm_ex.log" | tail -1)"; grep -E "panicked" -A2 "$O/gemm_ex.log" | head -6
echo "### gemm_ex beside cuBLAS (at $SECONDS s)"
timeout 240 python3 crates/blas/gpu/table.py --ferrocm .gpu/stage/bin/ferrocm --rows gemm_ex 2>&1 | tail -16
echo "### traced launch overhead (at $SECONDS s)"
RT="bench runtime --json --reps 7 --copy-mib 16 --d2d-mib 16 --allocs 200"
for i in 1 2 3 4 5; do
  timeout 40 ferrocm $RT > "$O/rt_plain_$i.json" 2>>"$O/err.log"
  timeout 40 ferrocm prof --kernel-trace -d /tmp/s7kt$i -- ferrocm $RT > "$O/rt_traced_$i.json" 2>>"$O/err.log"
done
python3 scripts/gpu-runs/traced_ratio.py "$O"
echo "done at $SECONDS s"
(cd "$O" && tar czf logs.tgz *.log *.json 2>/dev/null && rm -f *.log *.json)
