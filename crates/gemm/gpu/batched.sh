#!/usr/bin/env bash
# The batched Hopper GEMM's GPU run, in one command (crates/gemm/NOTES.md, "batched"), about 2 min:
#   1. the gemm test binaries and blas's gemm_ex table with FERROCM_REQUIRE_GPU=1 (the batched
#      cases on the GPU and the CPU device);
#   2. ptxas -v of the batched and split-K kernels (rank-3 TMA, (product, tile) items) beside the unbatched
#      ones of the same shape (registers, spills);
#   3. `ferrocm bench blas` against cuBLAS (torch) on the same requests, each row in this one
#      process (crates/blas/gpu/table.py --rows gbatch): bf16 strided batched 256 x 512^3 (NN and
#      TN), 512 x 256x256x1024, the decode shape 16 x 8192 x 8192 and 4096^3 as the control.
# From the repository root, with .gpu/ staged by `../shared/gpu/pack --bins --workspace` (or
# `--bins -p ferrocm-gemm -p ferrocm-blas -p ferrocm-cli`): the test binaries, bin/ferrocm and the
# example bin/gemm_ptx. Needs python3 with torch (CUDA) and numpy; ptxas on PATH (or
# /usr/local/cuda/bin) for step 2. Logs under $OUT.
set -uo pipefail
out=${OUT:-/tmp/gbatch-out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
bin=.gpu/stage/bin

echo "== 1. tests"
for t in .gpu/stage/tests/ferrocm-gemm--* .gpu/stage/tests/ferrocm-blas--gemm_ex-test; do
  [[ -e $t ]] || { echo "missing: $t"; continue; }
  echo "=== ${t##*/}"
  timeout 150 "$t" >"$out/${t##*/}.log" 2>&1; rc=$?
  grep -E "^(test result|---- |thread .* panicked)" "$out/${t##*/}.log" | head -20
  [[ $rc == 0 ]] || echo "FAILED: ${t##*/} rc=$rc"
done

echo "== 2. ptxas -v (batched beside unbatched)"
PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [[ -x $bin/gemm_ptx && -x $PTXAS ]]; then
  mkdir -p "$out/ptx"
  "$bin/gemm_ptx" "$out/ptx" 13000 >/dev/null
  for name in bf16_bn256_s3_NN_tma bf16_bn256_s3_NN_tma_batched bf16_bn256_s3_TN_tma_batched \
    bf16_bn256_s4_NN bf16_bn256_s4_NN_batched bf16_bn256_s4_TN_batched bf16_bn128_s6_TN_batched_splitk; do
    f="$out/ptx/gemm_$name.ptx"
    "$PTXAS" -arch=sm_90a -v "$f" -o "${f%.ptx}.cubin" >"${f%.ptx}.ptxas" 2>&1 || echo "ptxas FAILED on ${f##*/}"
    echo "$name: $(grep -oE "Used [0-9]+ registers" "${f%.ptx}.ptxas"), $(grep -oE "[0-9]+ bytes spill stores" "${f%.ptx}.ptxas")"
  done
else
  echo "skipped (no $bin/gemm_ptx or ptxas)"
fi

echo "== 3. ferrocm vs cuBLAS"
python3 crates/blas/gpu/table.py --ferrocm "$bin/ferrocm" --rows gbatch 2>&1 | tee "$out/bench.txt" | grep -v '^{"row"'
