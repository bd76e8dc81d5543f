#!/usr/bin/env bash
# Lead, 2026-11-24 (sixth session), call 4: f16 (TN) and bf16 NN GEMM at 4096^3 and 8192^3 after
# the TMA-store epilogue (the s6-r3 stage: ferrocm built before 45deec5, which changes nothing for
# sizes that are multiples of 8), each beside cuBLAS
# (torch) before and after ours; table as gemm5.sh's (ferrocm's better run over the vendor's).
set -u
[[ -d .gpu/stage/bin ]] || { cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..; }
O=${OUT:-/tmp/s6r4}; mkdir -p "$O"; j=$O/r4.jsonl; : > "$j"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for spec in "fp16 tn" "bf16 nn" "fp16 nn"; do
  set -- $spec
  python3 scripts/vendor_baselines.py gemm --dtype $1 --layout $2 --n 4096 8192 >>"$j" 2>>"$O/err"
  .gpu/stage/bin/ferrocm bench gemm --json --dtype $1 --layout $2 --n 4096 8192 --variants auto >>"$j" 2>>"$O/err"
  python3 scripts/vendor_baselines.py gemm --dtype $1 --layout $2 --n 4096 8192 >>"$j" 2>>"$O/err"
done
grep -E "checked|rror" "$O/err" | head -12
python3 - "$j" <<'PY'
import json, sys
vendor, ours = {}, {}
for line in open(sys.argv[1]):
    line = line.strip()
    if not line: continue
    r = json.loads(line)
    if "library" in r: vendor.setdefault(r["metric"], []).append(r["value"])
    else: ours.setdefault(r["metric"], []).append(r["ferrocm"])
print(f"{'request':<30} {'ferrocm':>10} {'vendor runs':>12} {'ratio':>6}")
for metric, runs in ours.items():
    dtype, size, layout, name = metric.split(" ", 3)
    v = vendor.get(f"{dtype} {size} {layout}", [])
    ratio = f"{max(runs) / max(v):.3f}" if v else "-"
    print(f"{metric:<30} {'/'.join(f'{x:.0f}' for x in runs):>10} {'/'.join(f'{x:.0f}' for x in v):>12} {ratio:>6}")
PY
