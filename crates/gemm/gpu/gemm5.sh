#!/usr/bin/env bash
# The shared-memory + TMA-store epilogue's GPU run, in one command (crates/gemm/NOTES.md, "gemm5"),
# about 90 s:
#   1. the gemm test binaries with FERROCM_REQUIRE_GPU=1 (every case on the GPU and the CPU device);
#   2. ptxas -v (registers, spills) and cuobjdump -sass (STSM, UTMASTG, xGMMA) of the changed kernels
#      next to the register-epilogue ones;
#   3. e4m3 4096^3 and 8192^3 (TN, C bf16, scales 0.3 and 0.7): ferrocm (auto = TMA-store epilogue,
#      128x192 with 4 stages; 192x5-e0 = the previous kernel; 192x4-e0 = the register epilogue on the
#      new kernel's ring depth), torch._scaled_mm on the same data (checked against ours and an f64
#      product first), ferrocm again;
#   4. bf16 TN 4096^3 and 8192^3: cuBLAS (torch.matmul), ferrocm (auto = TMA-store epilogue, 128x256
#      with 3 stages; 256x4-e0 = the previous kernel; 256x3-e0), cuBLAS again;
#   5. a short table (TFLOP/s, ratio of ferrocm's better run to the vendor's better run).
# From the repository root, with .gpu/ staged by `../shared/gpu/pack --bins --workspace` (or
# `--bins -p ferrocm-gemm -p ferrocm-cli`): the gemm test binaries, bin/ferrocm and the example
# bin/gemm_ptx. Needs ptxas and cuobjdump on PATH (or in /usr/local/cuda/bin) and python3 with
# torch >= 2.1 (float8 dtypes, torch._scaled_mm) and numpy. Logs under $OUT.
set -uo pipefail
out=${OUT:-/tmp/gemm5-out}; mkdir -p "$out"
here=$(dirname "$0")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
bin=.gpu/stage/bin

echo "== 1. tests"
for t in .gpu/stage/tests/ferrocm-gemm--*; do
  echo "=== ${t##*/}"
  timeout 75 "$t" >"$out/${t##*/}.log" 2>&1; rc=$?
  grep -E "^(test result|---- |thread .* panicked)" "$out/${t##*/}.log" | head -20
  [[ $rc == 0 ]] || echo "FAILED: ${t##*/} rc=$rc"
done

echo "== 2. ptxas -v and SASS (register epilogue, then stmatrix + TMA store)"
PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
mkdir -p "$out/ptx"
"$bin/gemm_ptx" "$out/ptx" 13000 >/dev/null
for name in bf16_bn256_s4_TT bf16_bn256_s3_TT_tma bf16_bn128_s6_TT_tma bf16_bn256_s3_NN_tma \
  e4m3_bn192_s5_TT e4m3_bn192_s4_TT_tma e4m3_bn128_s6_TT_tma; do
  f="$out/ptx/gemm_$name.ptx"
  cubin=${f%.ptx}.cubin
  "$PTXAS" -arch=sm_90a -v "$f" -o "$cubin" >"${f%.ptx}.ptxas" 2>&1 || echo "ptxas FAILED on ${f##*/}"
  "$CUOBJDUMP" -sass "$cubin" >"${f%.ptx}.sass" 2>/dev/null
  regs=$(grep -oE "Used [0-9]+ registers" "${f%.ptx}.ptxas")
  spills=$(grep -oE "[0-9]+ bytes spill stores, [0-9]+ bytes spill loads" "${f%.ptx}.ptxas")
  top=$(grep -oE '\bR[0-9]+\b' "${f%.ptx}.sass" | tr -d R | sort -n | tail -1)
  count() { grep -cE "$1" "${f%.ptx}.sass"; }
  mma=$(grep -oE '[QH]GMMA\.[^ ]*' "${f%.ptx}.sass" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
  echo "$name: $regs at entry, highest R$top, $spills, LDL/STL $(count '\b(LDL|STL)\b')," \
    "STSM $(count STSM), UTMASTG $(count UTMASTG), STG $(count '\bSTG'), $mma"
done

echo "== 3. e4m3 against torch._scaled_mm"
sizes="4096 8192"
: >"$out/gemm5.jsonl"
fp8_variants="auto 192x5-e0 192x4-e0"
$bin/ferrocm bench gemm --json --dtype e4m3 --layout tn --scales 0.3 0.7 --n $sizes --variants $fp8_variants \
  --dump /tmp/gemm5-dump 2>>"$out/bench.err" >>"$out/gemm5.jsonl"
python3 "$here/fp8_vendor.py" /tmp/gemm5-dump --dtype e4m3 --scales 0.3 0.7 --n $sizes 2>>"$out/bench.err" >>"$out/gemm5.jsonl"
$bin/ferrocm bench gemm --json --dtype e4m3 --layout tn --scales 0.3 0.7 --n $sizes --variants auto 192x5-e0 \
  2>>"$out/bench.err" >>"$out/gemm5.jsonl"
rm -rf /tmp/gemm5-dump

echo "== 4. bf16 against cuBLAS"
python3 scripts/vendor_baselines.py gemm --dtype bf16 --layout tn --n $sizes >>"$out/gemm5.jsonl" 2>>"$out/bench.err"
$bin/ferrocm bench gemm --json --dtype bf16 --layout tn --n $sizes --variants auto 256x4-e0 256x3-e0 \
  2>>"$out/bench.err" >>"$out/gemm5.jsonl"
python3 scripts/vendor_baselines.py gemm --dtype bf16 --layout tn --n $sizes >>"$out/gemm5.jsonl" 2>>"$out/bench.err"
grep -E "checked|Error|error" "$out/bench.err" | head -20

echo "== 5. table (TFLOP/s; ratio: ferrocm's better run over the vendor's better run)"
python3 - "$out/gemm5.jsonl" <<'PY'
import json, sys
vendor, ours = {}, {}
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    r = json.loads(line)
    if "library" in r:
        vendor.setdefault(r["metric"], []).append(r["value"])
        if "check" in r and "fast-accum" not in r["metric"]:
            print(f"check {r['metric']}: " + ", ".join(f"{k} {v:.2e}" for k, v in r["check"].items()))
    else:
        ours.setdefault(r["metric"], []).append(r["ferrocm"])
print(f"{'request':<30} {'ferrocm runs':>12} {'vendor runs':>12} {'ratio':>6}")
for metric, runs in ours.items():
    dtype, size, layout, name = metric.split(" ", 3)
    v = vendor.get(f"{dtype} {size} {layout}", [])
    ratio = f"{max(runs) / max(v):.3f}" if v else "-"
    print(f"{metric:<30} {'/'.join(f'{x:.0f}' for x in runs):>12} {'/'.join(f'{x:.0f}' for x in v):>12} {ratio:>6}")
PY
