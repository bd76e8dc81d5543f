#!/usr/bin/env bash
# Branch rand4 on the GPU machine in one command (about 60-80 s): MT19937 (octo engine) and
# MTGP32 (one barrier per round) tests with FERROCM_REQUIRE_GPU=1, ptxas's register and spill
# report for the MT19937 and MTGP32 kernels, then `ferrocm bench rand` rows beside cuRAND
# (CuPy) and the D2D copy, and a table last.
#
# Needs, staged on the build machine (either works):
#   ../../shared/gpu/pack --bins --workspace
#   ../../shared/gpu/pack --bins -p ferrocm-rand -p ferrocm-cli
# with .gpu/ beside the repository files (scripts/vendor_baselines.py: CuPy with cuRAND), then
#   bash crates/rand/gpu/rand4.sh
# ptxas is looked up on PATH and in /usr/local/cuda/bin (the report is skipped without it).
# Logs go to $OUT (or /tmp/rand4-gpu). Each step has its own time limit.
set -u
OUT=${OUT:-/tmp/rand4-gpu}
mkdir -p "$OUT/ptx"
F=${FERROCM:-.gpu/stage/bin/ferrocm}
V=${VENDOR:-"python3 scripts/vendor_baselines.py"}
N=${N:-268435456}
R=${REPS:-10}
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
T=.gpu/stage/tests
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"

echo "== tests (FERROCM_REQUIRE_GPU=1; the CPU executor runs them too)"
for t in "$T"/ferrocm-rand--curand_mt19937-test "$T"/ferrocm-rand--curand_mtgp32-test; do
  FERROCM_REQUIRE_GPU=1 timeout 40 "$t" > "$OUT/${t##*/}.log" 2>&1
  echo "${t##*/}: rc $? $(grep -E '^test result' "$OUT/${t##*/}.log" | tail -1)"
  grep -E 'panicked|^---- ' "$OUT/${t##*/}.log" | head -6
done

echo "== ptxas -v (sm_90): registers and spills"
FERROCM_RAND_PTX_DIR="$OUT/ptx" timeout 20 "$T"/ferrocm-rand--ferrocm_rand mt19937_ptx mtgp32_ptx \
  > "$OUT/ptx.log" 2>&1
PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [[ -x $PTXAS ]]; then
  for p in "$OUT"/ptx/*.ptx; do
    name=$(grep -m1 -oE '\.entry [a-z0-9_]+' "$p" | cut -d' ' -f2)
    timeout 30 "$PTXAS" -arch=sm_90 -v "$p" -o "${p%.ptx}.cubin" 2>&1 | grep -E 'registers|spill' \
      | tr '\n' ' ' | sed "s/^/$name: /"
    echo
    # The SASS comes back in $OUT/ptx for reading (instructions per value, immediate offsets).
    CUOBJDUMP=$(dirname "$PTXAS")/cuobjdump
    [[ -x $CUOBJDUMP ]] && "$CUOBJDUMP" -sass "${p%.ptx}.cubin" > "${p%.ptx}.sass" 2>&1
    rm -f "${p%.ptx}.cubin"
  done | tee "$OUT/ptxas.txt"
  gzip -f "$OUT"/ptx/* 2>/dev/null
else
  echo "no ptxas"
fi

row() { # label, then the command; keeps its JSON/emit line
  local label=$1; shift
  timeout 20 "$@" > "$OUT/row.tmp" 2>&1
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
for d in bits uniform; do
  row "ferrocm mtgp32 $d" $F bench rand --generator mtgp32 --distribution $d --count $N --reps $R --json
  row "cuRAND  mtgp32 $d" $V curand --generator mtgp32 --distribution $d --count $N --reps $R
done

echo "== table (GSample/s; copy in GB/s)"
python3 - "$OUT/rows.tsv" <<'PY'
import json, sys
vals = {}
for line in open(sys.argv[1]):
    label, _, rest = line.rstrip("\n").partition("\t")
    v = None
    if rest.startswith("{"):
        d = json.loads(rest)
        v = d.get("ferrocm", d.get("value"))
    vals[label] = v
print(f"{'row':<22} {'ferrocm':>10} {'cuRAND':>10}  ratio")
for label, v in vals.items():
    if not label.startswith("ferrocm"):
        continue
    base = vals.get(label.replace("ferrocm", "cuRAND ", 1))
    ratio = f"{v / base:.2f}x" if v and base else ""
    fmt = lambda x: "-" if x is None else f"{x:.1f}"
    print(f"{label[8:]:<22} {fmt(v):>10} {fmt(base):>10}  {ratio}")
print(f"{'copy (GB/s)':<22} {vals.get('copy')}")
PY
