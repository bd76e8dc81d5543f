#!/usr/bin/env bash
# The profiler's GPU checks, in one device call (see crates/prof/NOTES.md). Run from the
# repository root after `.gpu/` was staged by `pack --bins -p ferrocm-runtime -p ferrocm-prof
# -p ferrocm-cli`; with $BASE set to the main branch's CLI (the binary before the hooks), the
# untraced launch rows are also compared before and after.
#   [BASE=path/to/ferrocm-before] bash crates/prof/gpu/overhead.sh
# Prints a short table last; full outputs go to $OUT.
set -u
OUT=${OUT:-/tmp/prof-out}; mkdir -p "$OUT"
T=/tmp/prof-traces; rm -rf "$T"; mkdir -p "$T"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader > "$OUT/gpu.txt" 2>&1
# 1. Tests with FERROCM_REQUIRE_GPU=1 (runtime conformance incl. trace, prof writers, CLI end to end).
bash .gpu/run.sh > "$OUT/tests.log" 2>&1
export PATH="$PWD/.gpu/stage/bin:$PATH"
NEW=$(command -v ferrocm)
RT="bench runtime --json --reps 9 --copy-mib 16 --d2d-mib 16 --allocs 200"
RAND="bench rand --json --generator philox --distribution uniform --count 268435456 --reps 30"
# 2. Launch rows: before the hooks, after (no tracer), traced (kernels; API only), alternating.
for i in 1 2 3; do
  [[ -n ${BASE:-} ]] && "$BASE" $RT > "$OUT/rt_base_$i.json" 2>>"$OUT/err.log"
  "$NEW" $RT > "$OUT/rt_new_$i.json" 2>>"$OUT/err.log"
  "$NEW" prof --kernel-trace -d "$T" -o "k$i" -- "$NEW" $RT > "$OUT/rt_kernel_$i.json" 2>>"$OUT/err.log"
  "$NEW" prof --api-trace -d "$T" -o "a$i" -- "$NEW" $RT > "$OUT/rt_api_$i.json" 2>>"$OUT/err.log"
done
# 3. Large kernels: 2^28 Philox uniforms (about a third of a millisecond each), untraced and traced.
for i in 1 2 3; do
  "$NEW" $RAND > "$OUT/rand_new_$i.json" 2>>"$OUT/err.log"
  "$NEW" prof --kernel-trace -d "$T" -o "r$i" -- "$NEW" $RAND > "$OUT/rand_kernel_$i.json" 2>>"$OUT/err.log"
done
# 4. Ceilings and the roofline of a traced RAND run.
"$NEW" prof --calibrate --ceilings "$OUT/ceilings.json" > "$OUT/calibrate.txt" 2>&1
"$NEW" prof --kernel-trace --memory-copy-trace --stats --ceilings "$OUT/ceilings.json" -d "$OUT" -o roof -- \
  "$NEW" bench rand --generator philox --distribution normal --count 268435456 --reps 5 > "$OUT/roofline.txt" 2>&1
python3 - "$OUT" <<'PY'
import json, sys, glob, statistics, os
out = sys.argv[1]
def rows(pat):
    r = {}
    for f in sorted(glob.glob(os.path.join(out, pat))):
        for line in open(f):
            try: o = json.loads(line)
            except ValueError: continue
            r.setdefault(o["metric"], []).append((o["ferrocm"], o.get("baseline")))
    return r
print("gpu:", open(os.path.join(out, "gpu.txt")).read().strip())
t = open(os.path.join(out, "tests.log")).read().strip().splitlines()
print("tests:", t[-1] if t else "?")
for l in t:
    if "panicked" in l or l.startswith("---- ") or "FAILED" in l: print("  ", l[:300])
kinds = [k for k in ["base", "new", "kernel", "api"] if glob.glob(os.path.join(out, f"rt_{k}_*.json"))]
runs = {k: rows(f"rt_{k}_*.json") for k in kinds}
print(f"{'metric (us, median of 3 runs)':<32}" + "".join(f"{k:>9}" for k in kinds))
for m in ["empty kernel launch (batched)", "empty kernel launch + sync", "timing event record (batched)", "event query (pending)"]:
    med = {k: statistics.median(v[0] for v in runs[k].get(m, [(float('nan'), None)])) for k in kinds}
    print(f"{m:<32}" + "".join(f"{med[k]:>9.3f}" for k in kinds))
    drv = {k: [v[1] for v in runs[k].get(m, []) if v[1]] for k in kinds}
    if all(drv.values()):
        print(f"{'  raw driver, same process':<32}" + "".join(f"{statistics.median(drv[k]):>9.3f}" for k in kinds))
r = {k: rows(f"rand_{k}_*.json") for k in ["new", "kernel"]}
for m in r["new"]:
    a = [v[0] for v in r["new"][m]]; k = [v[0] for v in r["kernel"].get(m, [])]
    if a and k:
        print(f"{m}: untraced {[round(x,1) for x in a]} traced {[round(x,1) for x in k]} -> traced/untraced {statistics.median(k)/statistics.median(a):.4f}")
PY
tail -4 "$OUT/calibrate.txt"
sed -n '/Roofline/,$p' "$OUT/roofline.txt" | head -6
