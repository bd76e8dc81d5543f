#!/usr/bin/env bash
# The fp8 GEMM's GPU run, in one command (crates/gemm/NOTES.md, "fp8"), under 120 s:
#   1. the gemm test binaries with FERROCM_REQUIRE_GPU=1 (every case on the GPU and the CPU device);
#   2. ptxas -v (registers, spills) and cuobjdump -sass (QGMMA in the main loop) of the fp8 kernels;
#   3. e4m3 4096^3 and 8192^3 (TN, C bf16, scales 0.3 and 0.7): ferrocm, then torch._scaled_mm on
#      the same data (checked against ours and an f64 product first), then ferrocm again;
#   4. bf16 TN 4096^3 and 8192^3: cuBLAS (torch.matmul), ferrocm, cuBLAS again;
#   5. a short table.
# From the repository root, with .gpu/ staged by `../shared/gpu/pack --bins --workspace` (or
# `--bins -p ferrocm-gemm -p ferrocm-cli`): the gemm test binaries, bin/ferrocm and the example
# bin/gemm_ptx. Needs ptxas and cuobjdump on PATH (or in /usr/local/cuda/bin) and python3 with
# torch >= 2.1 (float8 dtypes, torch._scaled_mm) and numpy. Logs under $OUT.
set -uo pipefail
out=${OUT:-/tmp/fp8-out}; mkdir -p "$out"
here=$(dirname "$0")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
bin=.gpu/stage/bin

echo "== 1. tests"
for t in .gpu/stage/tests/ferrocm-gemm--*; do
  echo "=== ${t##*/}"
  timeout 60 "$t" >"$out/${t##*/}.log" 2>&1; rc=$?
  grep -E "^(test result|---- |thread .* panicked)" "$out/${t##*/}.log" | head -20
  [[ $rc == 0 ]] || echo "FAILED: ${t##*/} rc=$rc"
done

echo "== 2. ptxas -v and SASS of the fp8 kernels"
PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
mkdir -p "$out/ptx"
"$bin/gemm_ptx" "$out/ptx" 13000 >/dev/null
for f in "$out"/ptx/gemm_e4m3_*.ptx "$out"/ptx/gemm_bf16_bn256_s4_TT.ptx; do
  cubin=${f%.ptx}.cubin
  "$PTXAS" -arch=sm_90a -v "$f" -o "$cubin" >"${f%.ptx}.ptxas" 2>&1 || echo "ptxas FAILED on ${f##*/}"
  "$CUOBJDUMP" -sass "$cubin" >"${f%.ptx}.sass" 2>/dev/null
  regs=$(grep -oE "Used [0-9]+ registers" "${f%.ptx}.ptxas")
  spills=$(grep -oE "[0-9]+ bytes spill stores, [0-9]+ bytes spill loads" "${f%.ptx}.ptxas")
  warn=$(grep -ci warning "${f%.ptx}.ptxas")
  top=$(grep -oE '\bR[0-9]+\b' "${f%.ptx}.sass" | tr -d R | sort -n | tail -1)
  mma=$(grep -oE '[QH]GMMA\.[^ ]*' "${f%.ptx}.sass" | sort | uniq -c | tr -s ' ' | tr '\n' ';')
  local_mem=$(grep -cE '\b(LDL|STL)\b' "${f%.ptx}.sass")
  echo "${f##*/}: $regs at entry, highest register R$top, $spills, $warn warnings, LDL/STL $local_mem, $mma"
done

echo "== 3. e4m3 against torch._scaled_mm"
sizes="4096 8192"
variants="auto 128x6 192x4"
: >"$out/fp8.jsonl"
$bin/ferrocm bench gemm --json --dtype e4m3 --layout tn --scales 0.3 0.7 --n $sizes --variants $variants \
  --dump /tmp/fp8-dump 2>>"$out/bench.err" | sed 's/$/ "before"/' >>"$out/fp8.jsonl"
python3 "$here/fp8_vendor.py" /tmp/fp8-dump --dtype e4m3 --scales 0.3 0.7 --n $sizes 2>>"$out/bench.err" >>"$out/fp8.jsonl"
$bin/ferrocm bench gemm --json --dtype e4m3 --layout tn --scales 0.3 0.7 --n $sizes --variants $variants \
  2>>"$out/bench.err" | sed 's/$/ "after"/' >>"$out/fp8.jsonl"
rm -rf /tmp/fp8-dump

echo "== 4. bf16 against cuBLAS"
python3 scripts/vendor_baselines.py gemm --dtype bf16 --layout tn --n $sizes >>"$out/fp8.jsonl" 2>>"$out/bench.err"
$bin/ferrocm bench gemm --json --dtype bf16 --layout tn --n $sizes --variants auto 2>>"$out/bench.err" >>"$out/fp8.jsonl"
python3 scripts/vendor_baselines.py gemm --dtype bf16 --layout tn --n $sizes >>"$out/fp8.jsonl" 2>>"$out/bench.err"
grep -E "checked|Error|error" "$out/bench.err" | head -20

echo "== 5. table (TFLOP/s; ratio: ferrocm's better run over the vendor's better run)"
python3 - "$out/fp8.jsonl" <<'PY'
import json, sys
vendor, ours = {}, {}
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    if line.endswith('"before"') or line.endswith('"after"'):
        line = line.rsplit(' ', 1)[0]
    r = json.loads(line)
    if "library" in r:
        vendor.setdefault(r["metric"], []).append(r["value"])
        if "check" in r and "fast-accum" not in r["metric"]:
            print(f"check {r['metric']}: " + ", ".join(f"{k} {v:.2e}" for k, v in r["check"].items()))
    else:
        ours.setdefault(r["metric"], []).append(r["ferrocm"])
print(f"{'request':<28} {'ferrocm runs':>16} {'vendor runs':>14} {'ratio':>6} {'vs fast-accum':>13}")
for metric, runs in ours.items():
    dtype, size, layout, name = metric.split(" ", 3)
    key = f"{dtype} {size} {layout}"
    v = vendor.get(key, [])
    fast = vendor.get(key + " fast-accum", [])
    ratio = f"{max(runs) / max(v):.3f}" if v else "-"
    rfast = f"{max(runs) / max(fast):.3f}" if fast else "-"
    print(f"{metric:<28} {'/'.join(f'{x:.0f}' for x in runs):>16} {'/'.join(f'{x:.0f}' for x in v):>14} {ratio:>6} {rfast:>13}")
PY
