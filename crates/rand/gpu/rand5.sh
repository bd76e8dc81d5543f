#!/usr/bin/env bash
# Branch rand5 on the GPU machine in one command (about 80 s): the tests of what changed with
# FERROCM_REQUIRE_GPU=1 (Sobol32 inverse-CDF Poisson table, ThreeFry block mapping),
# ptxas's registers/spills and SASS of those kernels, then the whole `ferrocm bench rand` table
# beside cuRAND (CuPy) and the D2D copy, the changed rows first, and a table last.
#
# Needs, staged on the build machine (either works):
#   ../../shared/gpu/pack --bins --workspace
#   ../../shared/gpu/pack --bins -p ferrocm-rand -p ferrocm-cli
# with .gpu/ beside the repository files (scripts/vendor_baselines.py: CuPy with cuRAND, torch
# for the copy), then, from the repository root:
#   bash crates/rand/gpu/rand5.sh
# ptxas is looked up on PATH and in /usr/local/cuda/bin (the report is skipped without it).
# Logs go to $OUT (or /tmp/rand5-gpu). Each step has its own time limit, and bench rows stop
# being started once BUDGET seconds (default 82) have passed, so the script ends in time.
set -u
START=$SECONDS
BUDGET=${BUDGET:-82}
OUT=${OUT:-/tmp/rand5-gpu}
mkdir -p "$OUT/ptx"
F=${FERROCM:-.gpu/stage/bin/ferrocm}
V=${VENDOR:-"python3 scripts/vendor_baselines.py"}
N=${N:-268435456}
R=${REPS:-5}
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
T=.gpu/stage/tests
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"

echo "== tests (FERROCM_REQUIRE_GPU=1; the CPU executor runs them too)"
test_bin() { # binary, then test-name filters
  local t=$T/$1; shift
  FERROCM_REQUIRE_GPU=1 timeout 30 "$t" "$@" > "$OUT/$(basename "$t").log" 2>&1
  echo "$(basename "$t"): rc $? $(grep -E '^test result' "$OUT/$(basename "$t").log" | tail -1)"
  grep -E 'panicked|^---- ' "$OUT/$(basename "$t").log" | head -6
}
test_bin ferrocm-rand--curand_host_poisson-test
test_bin ferrocm-rand--rocrand_generators-test
test_bin ferrocm-rand--published_kats-test
FERROCM_RAND_PTX_DIR="$OUT/ptx" test_bin ferrocm-rand--ferrocm_rand poisson_cdf threefry_ptx sobol32_poisson

echo "== ptxas -v (sm_90): registers and spills"
PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [[ -x $PTXAS ]]; then
  for p in "$OUT"/ptx/*.ptx; do
    name=$(grep -m1 -oE '\.entry [a-z0-9_]+' "$p" | cut -d' ' -f2)
    timeout 20 "$PTXAS" -arch=sm_90 -v "$p" -o "${p%.ptx}.cubin" 2>&1 | grep -E 'registers|spill' \
      | tr '\n' ' ' | sed "s/^/$name: /"
    echo
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
: > "$OUT/rows.tsv"
echo "== bench rows (2^28 values, median of $R)"
row "copy" $V copy
# What this branch changed, first.
for l in 100 3000; do
  ours "sobol32 poisson $l" sobol32 poisson legacy --lambda $l
  theirs "sobol32 poisson $l" sobol32 poisson --lambda $l
done
for g in threefry2x32 threefry4x32 threefry2x64 threefry4x64; do
  ours "$g bits" $g bits default
done
for d in normal bits uniform; do
  ours "mt19937 $d" mt19937 $d default
  theirs "mt19937 $d" mt19937 $d
done
# The rest of the table.
for g in philox xorwow mrg32k3a sobol32; do
  for d in uniform normal; do
    ours "$g $d" $g $d default
    [[ $g != sobol32 ]] && ours "$g $d legacy" $g $d legacy
    theirs "$g $d" $g $d
  done
  for l in 4 100 3000; do
    [[ $g == sobol32 && $l != 4 ]] && continue
    [[ $g != sobol32 ]] && ours "$g poisson $l" $g poisson default --lambda $l
    ours "$g poisson $l legacy" $g poisson legacy --lambda $l
    theirs "$g poisson $l" $g poisson --lambda $l
  done
done
for d in bits uniform; do
  ours "mtgp32 $d" mtgp32 $d default
  theirs "mtgp32 $d" mtgp32 $d
done
for g in lfsr113 threefry2x32 threefry4x32 threefry2x64 threefry4x64; do
  ours "$g normal" $g normal default
done
ours "lfsr113 bits" lfsr113 bits default

echo "== table (GSample/s; copy in GB/s; ratio to cuRAND, or to the copy at 4 bytes per value)"
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
copy = vals.get("copy")
per4 = copy / 4 if copy else None  # GSample/s of a 4-byte copy (read+write GB/s / 4)
fmt = lambda x: "-" if x is None else f"{x:.1f}"
print(f"{'row':<30} {'ferrocm':>9} {'cuRAND':>9}  ratio")
for label in order:
    if not label.startswith("ferrocm"):
        continue
    v = vals[label]
    key = label.replace("ferrocm", "cuRAND ", 1).replace(" legacy", "")
    base = vals.get(key)
    if base:
        ratio = f"{v / base:.2f}x" if v else ""
    elif v and per4 and ("threefry" in label or "lfsr" in label):
        ratio = f"{v / per4:.2f} of copy"
    else:
        ratio = ""
    print(f"{label[8:]:<30} {fmt(v):>9} {fmt(base):>9}  {ratio}")
print(f"{'copy (GB/s)':<30} {fmt(copy):>9}")
PY
echo "elapsed $((SECONDS - START)) s"
