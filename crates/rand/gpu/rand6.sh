#!/usr/bin/env bash
# Branch rand6 on the GPU machine in one command (about 60-80 s): the ThreeFry and LFSR113 tests
# with FERROCM_REQUIRE_GPU=1, ptxas's registers/spills and the SASS hot-trip counts of the
# ThreeFry kernels, then the ThreeFry and LFSR113 rows first (the rows this branch predicts),
# the D2D copy they are compared with, Philox beside cuRAND as an anchor, and a table last.
# cuRAND has neither ThreeFry nor LFSR113: those rows are reported as a fraction of the copy
# rate at 4 bytes per value (read+write GB/s / 4 = GSample/s a 4-byte copy moves).
#
# Needs, staged on the build machine (either works):
#   ../shared/gpu/pack --bins --workspace
#   ../shared/gpu/pack --bins -p ferrocm-rand -p ferrocm-cli
# with .gpu/ beside the repository files (scripts/vendor_baselines.py: CuPy with cuRAND, torch
# for the copy), then, from the repository root:
#   bash crates/rand/gpu/rand6.sh
# ptxas/cuobjdump are looked up on PATH and in /usr/local/cuda/bin (skipped without them).
# Logs go to $OUT (or /tmp/rand6-gpu). Each step has its own time limit, and bench rows stop
# being started once BUDGET seconds (default 55) have passed; the tests and ptxas after
# them take about 15 s (each test binary is stopped at 15 s).
set -u
START=$SECONDS
BUDGET=${BUDGET:-55}
OUT=${OUT:-/tmp/rand6-gpu}
mkdir -p "$OUT/ptx"
F=${FERROCM:-.gpu/stage/bin/ferrocm}
V=${VENDOR:-"python3 scripts/vendor_baselines.py"}
N=${N:-268435456}
R=${REPS:-5}
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
T=.gpu/stage/tests
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT/device.txt"

row() { # label, then the command; keeps its JSON/emit line
  local label=$1; shift
  if (( SECONDS - START > BUDGET )); then
    echo "$label	SKIPPED: time" >> "$OUT/rows.tsv"
    return
  fi
  timeout 12 "$@" > "$OUT/row.tmp" 2>&1
  local line
  line=$(grep -E '^\{|GSample/s|GB/s' "$OUT/row.tmp" | head -1)
  echo "$label	${line:-FAILED: $(tail -1 "$OUT/row.tmp")}" >> "$OUT/rows.tsv"
  cat "$OUT/row.tmp" >> "$OUT/bench.log"
}
ours() { # label, generator, distribution, ordering, extra args
  local label=$1 g=$2 d=$3 o=$4; shift 4
  row "ferrocm $label" $F bench rand --generator "$g" --distribution "$d" --ordering "$o" --count $N --reps $R --json "$@"
}
theirs() { # label, generator, distribution, extra args
  local label=$1 g=$2 d=$3; shift 3
  row "cuRAND  $label" $V curand --generator "$g" --distribution "$d" --count $N "$@"
}

# The rows first (rand5's script ran out of time before LFSR113), the copy between them and
# again at the end (the card's clock drifts; the table uses the mean of the two).
: > "$OUT/rows.tsv"
echo "== bench rows (2^28 values, median of $R)"
row "copy" $V copy
for g in threefry4x64 threefry2x64 threefry2x32 threefry4x32 lfsr113; do
  ours "$g bits" $g bits default
done
ours "threefry4x64 uniform" threefry4x64 uniform default
ours "lfsr113 uniform" lfsr113 uniform default
for g in threefry2x32 threefry4x64 lfsr113; do
  ours "$g normal" $g normal default
done
ours "philox uniform" philox uniform default
theirs "philox uniform" philox uniform
row "copy2" $V copy

echo "== tests (FERROCM_REQUIRE_GPU=1; the CPU executor runs them too)"
test_bin() { # binary, then test-name filters
  local t=$T/$1; shift
  FERROCM_REQUIRE_GPU=1 timeout 15 "$t" "$@" > "$OUT/$(basename "$t").log" 2>&1
  local rc=$?
  echo "$(basename "$t"): rc $rc $(grep -E '^test result' "$OUT/$(basename "$t").log" | tail -1)"
  grep -E 'panicked|^---- ' "$OUT/$(basename "$t").log" | head -6
}
test_bin ferrocm-rand--rocrand_generators-test
test_bin ferrocm-rand--published_kats-test
FERROCM_RAND_PTX_DIR="$OUT/ptx" test_bin ferrocm-rand--ferrocm_rand threefry_ptx

echo "== ptxas -v (sm_90) and the SASS hot trip (8 values) of the ThreeFry kernels"
PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [[ -x $PTXAS ]]; then
  CUOBJDUMP=$(dirname "$PTXAS")/cuobjdump
  for p in "$OUT"/ptx/*.ptx; do
    name=$(grep -m1 -oE '\.entry [a-z0-9_]+' "$p" | cut -d' ' -f2)
    echo "$name ($(grep -c 'mul.wide.u32' "$p") mul.wide, $(grep -c 'shfl.sync' "$p") shfl):" \
      "$(timeout 20 "$PTXAS" -arch=sm_90 -v "$p" -o "${p%.ptx}.cubin" 2>&1 | grep -E 'registers|spill' | tr '\n' ' ')"
    if [[ -x $CUOBJDUMP ]]; then
      "$CUOBJDUMP" -sass "${p%.ptx}.cubin" > "${p%.ptx}.sass" 2>/dev/null
      python3 crates/rand/tools/sass_loop_count.py "${p%.ptx}.sass" --hot | grep -A1 'hot trip'
    fi
    rm -f "${p%.ptx}.cubin"
  done | tee "$OUT/ptxas.txt"
  gzip -f "$OUT"/ptx/* 2>/dev/null
else
  echo "no ptxas"
fi

echo "== table (GSample/s; copy in GB/s; ThreeFry/LFSR113 as a fraction of the copy at 4 B/value)"
python3 - "$OUT/rows.tsv" <<'PY'
import json, sys
vals, order = {}, []
for line in open(sys.argv[1]):
    label, _, rest = line.rstrip("\n").partition("\t")
    v = None
    if rest.startswith("{"):
        d = json.loads(rest)
        v = d.get("ferrocm", d.get("value"))
    vals[label] = v
    order.append(label)
copies = [c for c in (vals.get("copy"), vals.get("copy2")) if c]
copy = sum(copies) / len(copies) if copies else None
per4 = copy / 4 if copy else None  # GSample/s of a 4-byte copy (read+write GB/s / 4)
fmt = lambda x: "-" if x is None else f"{x:.1f}"
print(f"{'row':<26} {'ferrocm':>9} {'cuRAND':>9}  ratio")
for label in order:
    if not label.startswith("ferrocm"):
        continue
    v = vals[label]
    base = vals.get(label.replace("ferrocm", "cuRAND ", 1))
    if base:
        ratio = f"{v / base:.2f}x" if v else ""
    elif v and per4 and ("threefry" in label or "lfsr" in label):
        ratio = f"{v / per4:.2f} of copy"
    else:
        ratio = ""
    print(f"{label[8:]:<26} {fmt(v):>9} {fmt(base):>9}  {ratio}")
print(f"{'copy (GB/s), first/last':<26} {fmt(vals.get('copy')):>9} {fmt(vals.get('copy2')):>9}")
PY
echo "elapsed $((SECONDS - START)) s"
