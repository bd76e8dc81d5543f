#!/usr/bin/env bash
# The profiler's GPU checks, in one device call (see crates/prof/NOTES.md). Run from the
# repository root after `.gpu/` was staged by `pack --bins -p ferrocm-runtime -p ferrocm-prof
# -p ferrocm-cli`, with the main branch's CLI as $BASE (the binary before the hooks).
#   BASE=path/to/ferrocm-before bash crates/prof/gpu/overhead.sh
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
  "$BASE" $RT > "$OUT/rt_base_$i.json" 2>>"$OUT/err.log"
  "$NEW" $RT > "$OUT/rt_new_$i.json" 2>>"$OUT/err.log"
  "$NEW" prof --kernel-trace -d "$T" -o "k$i" -- "$NEW" $RT > "$OUT/rt_kernel_$i.json" 2>>"$OUT/err.log"
  "$NEW" prof --api-trace -d "$T" -o "a$i" -- "$NEW" $RT > "$OUT/rt_api_$i.json" 2>>"$OUT/err.log"
done
# 3. Large kernels: 2^28 Philox uniforms (about a millisecond each), untraced and traced.
for i in 1 2 3; do
  "$NEW" $RAND > "$OUT/rand_new_$i.json" 2>>"$OUT/err.log"
  "$NEW" prof --kernel-trace -d "$T" -o "r$i" -- "$NEW" $RAND > "$OUT/rand_kernel_$i.json" 2>>"$OUT/err.log"
done
# 4. Ceilings and the roofline of a traced RAND run.
"$NEW" prof --calibrate --ceilings "$OUT/ceilings.json" > "$OUT/calibrate.txt" 2>&1
"$NEW" prof --kernel-trace --memory-copy-trace --stats --ceilings "$OUT/ceilings.json" -d "$OUT" -o roof -- \
  "$NEW" bench rand --generator philox --distribution normal --count 268435456 --reps 5 > "$OUT/roofline.txt" 2>&1
wc -l "$T"/k1_kernel_trace.csv > "$OUT/trace_sizes.txt" 2>&1
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
print(f"{'metric':<32} {'before':>9} {'after':>9} {'kernels':>9} {'api':>9}   (us/launch, median of 3 runs; each run a median of 9)")
runs = {k: rows(f"rt_{k}_*.json") for k in ["base", "new", "kernel", "api"]}
for m in ["empty kernel launch (batched)", "empty kernel launch + sync"]:
    med = {k: statistics.median(v[0] for v in runs[k].get(m, [(float('nan'), None)])) for k in runs}
    drv = {k: statistics.median(v[1] for v in runs[k].get(m, [(0, 0)]) if v[1]) for k in runs}
    print(f"{m:<32} {med['base']:>9.3f} {med['new']:>9.3f} {med['kernel']:>9.3f} {med['api']:>9.3f}")
    print(f"{'  raw driver, same process':<32} {drv['base']:>9.3f} {drv['new']:>9.3f} {drv['kernel']:>9.3f} {drv['api']:>9.3f}")
    b = med['new']
    print(f"  after/before {med['new']/med['base']:.3f}  kernel-trace/after {med['kernel']/b:.3f}  api-trace/after {med['api']/b:.3f}")
r = {k: rows(f"rand_{k}_*.json") for k in ["new", "kernel"]}
for m in r["new"]:
    a = [v[0] for v in r["new"][m]]; k = [v[0] for v in r["kernel"].get(m, [])]
    if a and k:
        print(f"{m}: untraced {a} traced {k} -> traced/untraced {statistics.median(k)/statistics.median(a):.4f}")
PY
cat "$OUT/calibrate.txt" | tail -4
sed -n '/Kernels (by/,$p' "$OUT/roofline.txt" | head -20
cat "$OUT/trace_sizes.txt"
