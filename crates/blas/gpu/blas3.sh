#!/usr/bin/env bash
# The blas3 kernels on the GPU in one command (< 120 s): split gemv N, strip gemv T/C, the FP64
# tensor-core dgemm (GemmFamily::Dmma) and the SIMT sgemm (16-byte fragments, register
# prefetch). Staged with `../shared/gpu/pack --bins --workspace` (or at least
# `--bins -p ferrocm-blas -p ferrocm-kernel -p ferrocm-cli`): test binaries in
# .gpu/stage/tests, the release `ferrocm` in .gpu/stage/bin. Run from the repository root on
# the GPU machine:
#   bash crates/blas/gpu/blas3.sh        (logs for the lead land in $OUT)
# Needs python3 with torch (CUDA) and numpy for the cuBLAS side (scripts/vendor_baselines.py).
# 1. Tests with FERROCM_REQUIRE_GPU=1: the gemv and gemm case tables (every target: the GPU,
#    the CPU device's native engine and its kernels on the executor) against the double-double
#    reference, the misuse table, and the DMMA intrinsic's conformance test (GPU against the
#    CPU executor and f64 host products).
# 2. `ferrocm bench blas` rows, each followed by the same request on cuBLAS (torch) in this
#    one process (crates/blas/gpu/table.py --rows blas3); a ratio table last.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/blas3-out}; mkdir -p "$OUT"
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
T=.gpu/stage/tests
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
results=()
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$OUT/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s"
  grep -E "^test result|panicked|FAILED|^---- " "$OUT/$name.log" | head -8
  results+=("$name rc=$rc")
}
t blas-level23 60 'ferrocm-blas--level23-test'
t blas-misuse 15 'ferrocm-blas--misuse-test'
t kernel-dmma 15 'ferrocm-kernel--conformance-test' tensor_core
printf 'tests: %s\n' "${results[@]}"
python3 crates/blas/gpu/table.py --ferrocm .gpu/stage/bin/ferrocm --rows blas3 2>&1 | tee "$OUT/bench.txt" \
  | grep -v '^{"row"'
