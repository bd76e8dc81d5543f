#!/usr/bin/env bash
# The GEMM's GPU run, in one command (see crates/gemm/NOTES.md): the correctness tests on the
# GPU (FERROCM_REQUIRE_GPU=1), then each kernel variant and cuBLAS (PyTorch) timed in the same
# command on fresh random data, cuBLAS before and after ours, then a short table.
#   bash crates/gemm/gpu/run.sh [variants...]      (from the repository root, .gpu/ staged)
# Writes logs under $OUT when set.
set -uo pipefail
out=${OUT:-/tmp/gemm-out}; mkdir -p "$out"
variants=("$@"); [[ ${#variants[@]} -gt 0 ]] || variants=(auto)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
# SKIP_TESTS=1 only unpacks the staged binaries (the benchmark still checks every variant).
if [[ -n ${SKIP_TESTS:-} ]]; then mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; fi
[[ -n ${SKIP_TESTS:-} ]] || bash .gpu/run.sh 2>&1 | tee "$out/tests.log" | grep -E "^(===|test result|---- |thread .* panicked)|passed,|failed" | head -60
ferrocm=.gpu/stage/bin/ferrocm
export PYTHONUNBUFFERED=1
: > "$out/bench.jsonl"
# DTYPES and LAYOUTS choose the requests (default: both types, nn as torch.matmul(a, b)).
for dtype in ${DTYPES:-bf16 fp16}; do
  for layout in ${LAYOUTS:-nn}; do
    python3 "${VENDOR:-scripts/vendor_baselines.py}" gemm --dtype $dtype --layout $layout --n 4096 8192 | sed 's/$/ "before"/' >> "$out/bench.jsonl"
    $ferrocm bench gemm --json --dtype $dtype --layout $layout --n 4096 8192 --variants "${variants[@]}" 2> >(tee -a "$out/bench.err" >&2) >> "$out/bench.jsonl"
    python3 "${VENDOR:-scripts/vendor_baselines.py}" gemm --dtype $dtype --layout $layout --n 4096 8192 | sed 's/$/ "after"/' >> "$out/bench.jsonl"
  done
done
python3 - "$out/bench.jsonl" <<'PY'
import json, sys, re
vendor, ours = {}, []
for line in open(sys.argv[1]):
    line = line.strip()
    if not line: continue
    tag = None
    if line.endswith('"before"') or line.endswith('"after"'):
        line, tag = line.rsplit(' ', 1)
    r = json.loads(line)
    if "library" in r:
        vendor.setdefault(r["metric"], []).append(r["value"])
    else:
        ours.append(r)
print(f"{'ferrocm variant':<40} {'TFLOP/s':>8} {'cuBLAS':>16} {'ratio':>6}")
for r in ours:
    dtype, size, layout, name = r["metric"].split(" ", 3)
    key = f"{'bf16' if dtype == 'bf16' else 'fp16'} {size} {layout}"
    v = vendor.get(key, [])
    best = max(v) if v else None
    vs = "/".join(f"{x:.0f}" for x in v)
    ratio = f"{r['ferrocm'] / best:.3f}" if best else "-"
    print(f"{r['metric']:<40} {r['ferrocm']:8.1f} {vs:>16} {ratio:>6}")
PY
