#!/usr/bin/env bash
# RAND on the GPU machine in one command: the MT19937/MTGP32 tests on the GPU, cuRAND's GPU
# MT19937 against its CPU generator (the known answers' source), then the `ferrocm bench rand`
# rows that are new or missed their targets, each beside cuRAND (CuPy) in the same command,
# and a table last. From the repository root, after (on the build machine)
#   ../../shared/gpu/pack --bins -p ferrocm-rand -p ferrocm-cli
# with .gpu/ beside the repository files:   bash crates/rand/gpu/run.sh
# (TOOLS names the folder of curand_host_mt19937.py and curand_host_layout.py when the
# repository copy on the GPU machine is older than this branch.)
# Full logs go to $OUT (or /tmp/rand-gpu). Each step has its own time limit, so a slow step
# costs its limit and no more.
set -u
OUT=${OUT:-/tmp/rand-gpu}
mkdir -p "$OUT"
F=${FERROCM:-.gpu/stage/bin/ferrocm}
V=${VENDOR:-"python3 scripts/vendor_baselines.py"}
N=${N:-268435456}
TOOLS=${TOOLS:-crates/rand/tools}
R=${REPS:-10}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"

echo "== tests (FERROCM_REQUIRE_GPU=1, names containing mt)"
timeout 45 bash .gpu/run.sh mt > "$OUT/tests.log" 2>&1
grep -E 'panicked|^binaries that failed|passed, .* failed' "$OUT/tests.log" | tail -8

echo "== cuRAND MT19937: GPU generator against its CPU generator (integer cases)"
timeout 25 python3 "$TOOLS/curand_host_mt19937.py" "$OUT/mt19937_gpu.txt" --device --device-quick \
  > "$OUT/curand_device.log" 2>&1
tail -2 "$OUT/curand_device.log"

row() { # label, then the command; keeps its JSON/emit line
  local label=$1; shift
  timeout 15 "$@" > "$OUT/row.tmp" 2>&1
  local line
  line=$(grep -E '^\{|GSample/s|GB/s' "$OUT/row.tmp" | head -1)
  echo "$label	${line:-FAILED: $(tail -1 "$OUT/row.tmp")}" | tee -a "$OUT/rows.tsv"
  cat "$OUT/row.tmp" >> "$OUT/bench.log"
}
: > "$OUT/rows.tsv"
row "copy" $V copy
for d in bits uniform normal; do
  row "ferrocm mt19937 $d" $F bench rand --generator mt19937 --distribution $d --count $N --reps $R --json
  row "cuRAND  mt19937 $d" $V curand --generator mt19937 --distribution $d --count $N --reps $R
done
row "ferrocm mtgp32 bits" $F bench rand --generator mtgp32 --distribution bits --count $N --reps $R --json
row "cuRAND  mtgp32 bits" $V curand --generator mtgp32 --distribution bits --count $N --reps $R
for l in 100 3000; do
  row "ferrocm sobol32 poisson $l" $F bench rand --generator sobol32 --distribution poisson --lambda $l \
    --count $N --ordering legacy --reps $R --json
  row "cuRAND  sobol32 poisson $l" $V curand --generator sobol32 --distribution poisson --lambda $l --count $N --reps $R
done
for g in threefry2x32 threefry4x32 threefry2x64 threefry4x64; do
  row "ferrocm $g bits" $F bench rand --generator $g --distribution bits --count $N --reps $R --json
done

echo "== table (GSample/s; copy in GB/s)"
python3 - "$OUT/rows.tsv" <<'PY'
import json, re, sys
vals = {}
for line in open(sys.argv[1]):
    label, _, rest = line.rstrip("\n").partition("\t")
    v = None
    if rest.startswith("{"):
        d = json.loads(rest)
        v = d.get("ferrocm", d.get("value"))
    vals[label] = v
for label, v in vals.items():
    if not label.startswith("ferrocm"):
        continue
    base = vals.get(label.replace("ferrocm", "cuRAND ", 1))
    ratio = f"{v / base:.2f}x cuRAND" if v and base else ""
    print(f"{label[8:]:<28} {v if v is None else round(v, 1)!s:>10} {base if base is None else round(base, 1)!s:>10}  {ratio}")
print(f"{'copy (GB/s)':<28} {vals.get('copy')}")
PY
