#!/usr/bin/env bash
# Lead, 2026-11-25 (eighth session), call 2: the batched / split-K Hopper GEMM (gbatch) and the
# TF32 GEMM (tf32), first time on a GPU, after both merges.
# 1. ferrocm-gemm's tests and blas's gemm_ex, level23 and misuse modules with FERROCM_REQUIRE_GPU=1.
# 2. `table.py --rows gemm_ex`: the issue's bf16/f16 rows, decode, strided batched, and the tf32
#    rows (TN 8192^3, 4096^3; NN 8192^3 through the workspace copies) beside cuBLAS (torch, with
#    allow_tf32 for the tf32 rows), each checked before timing.
# 3. `table.py --rows gbatch`: batched TN and 512 x 256x256x1024 beside cuBLAS.
# Staged with `../shared/gpu/pack --bins -p ferrocm-gemm -p ferrocm-blas -p ferrocm-cli`.
set -u
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PATH="$PWD/.gpu/stage/bin:$PATH" PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s8r2}; mkdir -p "$O"
T=.gpu/stage/tests
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$O/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s $(grep -E '^test result' "$O/$name.log" | tail -1)"
  grep -E "panicked|FAILED|^---- " -A2 "$O/$name.log" | head -12
}
echo "### tests (at $SECONDS s)"
t gemm 240 ferrocm-gemm--gemm-test &
t gemm_misuse 60 ferrocm-gemm--misuse-test &
t gemm_lib 60 ferrocm-gemm--ferrocm_gemm &
t blas_gemm_ex 240 ferrocm-blas--blas-test gemm_ex:: &
t blas_level23 240 ferrocm-blas--blas-test level23:: &
t blas_misuse 60 ferrocm-blas--blas-test misuse:: &
wait
grep -hE "^ok .*(TF32|split|batch)" "$O/gemm.log" | sed -E 's/^ok (.{0,60}).*\[(.*)\] \(worst (.*)\)/  \2: worst \3/' | sort | uniq | head -12
echo "### gemm_ex rows beside cuBLAS (at $SECONDS s)"
timeout 300 python3 crates/blas/gpu/table.py --ferrocm .gpu/stage/bin/ferrocm --rows gemm_ex 2>&1 | grep -v '^{"row"' | tail -16
echo "### gbatch rows beside cuBLAS (at $SECONDS s)"
timeout 150 python3 crates/blas/gpu/table.py --ferrocm .gpu/stage/bin/ferrocm --rows gbatch 2>&1 | grep -v '^{"row"' | tail -8
echo "done at $SECONDS s"
(cd "$O" && tar czf logs.tgz *.log 2>/dev/null && rm -f *.log)
