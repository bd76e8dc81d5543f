#!/usr/bin/env bash
# The TF32 GEMM's first GPU run, in one command (crates/gemm/NOTES.md, "tf32"), a few minutes:
#   1. the gemm test binaries (every case; the tf32_* tests among them) and the blas gemm_ex and
#      level23 ones with FERROCM_REQUIRE_GPU=1;
#   2. ptxas -v and the SASS MMA mix of the tf32 kernels (128x256 4 stages, 128x128 6 stages);
#   3. f32 TN 4096^3 and 8192^3 with tf32 compute: cuBLAS (torch.matmul with allow_tf32), ferrocm
#      (`bench blas -f gemm_ex --a_type f32_r --compute_type tf32_r`), cuBLAS again; then the
#      same requests in full f32 (ferrocm's f32 path; cuBLAS without tf32) for scale;
#   4. N/N 8192^3 with tf32 compute (blas copies both operands K-major into the workspace first).
# From the repository root, with .gpu/ staged by `../shared/gpu/pack --bins --workspace` (or
# `--bins -p ferrocm-gemm -p ferrocm-blas -p ferrocm-cli`): the test binaries, bin/ferrocm and
# bin/gemm_ptx. Needs ptxas/cuobjdump (PATH or /usr/local/cuda/bin) and python3 with torch.
set -uo pipefail
out=${OUT:-/tmp/tf32-out}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
bin=.gpu/stage/bin

echo "== 1. tests"
for t in .gpu/stage/tests/ferrocm-gemm--* .gpu/stage/tests/ferrocm-blas--gemm_ex* .gpu/stage/tests/ferrocm-blas--level23*; do
  [[ -x $t ]] || continue
  echo "=== ${t##*/}"
  timeout 150 "$t" >"$out/${t##*/}.log" 2>&1; rc=$?
  grep -E "^(test result|---- |thread .* panicked)" "$out/${t##*/}.log" | head -20
  grep -E "^ok .*TF32" "$out/${t##*/}.log" | sed -E 's/.*\[(.*)\] \(worst (.*)\)/  \1: worst \2/' | head -20
  [[ $rc == 0 ]] || echo "FAILED: ${t##*/} rc=$rc"
done

echo "== 2. ptxas -v and SASS"
PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
mkdir -p "$out/ptx"
"$bin/gemm_ptx" "$out/ptx" 13000 >/dev/null
for name in tf32_bn256_s4_TT tf32_bn128_s6_TT bf16_bn256_s4_TT; do
  f="$out/ptx/gemm_$name.ptx"; cubin=${f%.ptx}.cubin
  "$PTXAS" -arch=sm_90a -v "$f" -o "$cubin" >"${f%.ptx}.ptxas" 2>&1 || echo "ptxas FAILED on ${f##*/}"
  "$CUOBJDUMP" -sass "$cubin" >"${f%.ptx}.sass" 2>/dev/null
  regs=$(grep -oE "Used [0-9]+ registers" "${f%.ptx}.ptxas")
  spills=$(grep -oE "[0-9]+ bytes spill stores, [0-9]+ bytes spill loads" "${f%.ptx}.ptxas")
  mma=$(grep -oE '[QH]GMMA\.[^ ]*' "${f%.ptx}.sass" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
  echo "$name: $regs, $spills, MMA:$mma"
done

echo "== 3. f32 TN with tf32 compute, then full f32 (GFLOP/s)"
for n in 4096 8192; do
  reps=$([[ $n == 4096 ]] && echo 10 || echo 5)
  req=(-f gemm_ex --transposeA T --transposeB N -m $n -n $n -k $n --reps $reps)
  python3 scripts/vendor_baselines.py cublas "${req[@]}" -r f32_r --tf32 | tee -a "$out/bench.jsonl"
  "$bin/ferrocm" bench blas --json "${req[@]}" --a_type f32_r --compute_type tf32_r | tee -a "$out/bench.jsonl"
  python3 scripts/vendor_baselines.py cublas "${req[@]}" -r f32_r --tf32 | tee -a "$out/bench.jsonl"
  python3 scripts/vendor_baselines.py cublas "${req[@]}" -r f32_r | tee -a "$out/bench.jsonl"
  "$bin/ferrocm" bench blas --json "${req[@]}" --a_type f32_r --compute_type f32_r | tee -a "$out/bench.jsonl"
done
echo "== 4. N/N 8192^3 tf32: both operands copied K-major into the workspace first"
req=(-f gemm_ex --transposeA N --transposeB N -m 8192 -n 8192 -k 8192 --reps 5)
python3 scripts/vendor_baselines.py cublas "${req[@]}" -r f32_r --tf32 | tee -a "$out/bench.jsonl"
"$bin/ferrocm" bench blas --json "${req[@]}" --a_type f32_r --compute_type tf32_r | tee -a "$out/bench.jsonl"
