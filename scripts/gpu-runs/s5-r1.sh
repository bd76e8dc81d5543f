#!/usr/bin/env bash
# Lead, 2026-11-24 (fifth session), call 1: the traced launch overhead after the collector's
# chunked drain (c59d9bc), and the Python call overhead after the by-value kernel-instance
# lookup (32008a6). Staged: pack --bins -p ferrocm-cli -p ferrocm-runtime -p ferrocm-kernel
# -p ferrocm-prof; the wheel and pytest wheels in .gpu/py.
set -u
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
export FERROCM_REQUIRE_GPU=1 PATH="$PWD/.gpu/stage/bin:$PATH"
O=${OUT:-/tmp/s5r1}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
echo "### tests"
for t in ferrocm-runtime--trace-test ferrocm-runtime--raw-test ferrocm-kernel--trace-test ferrocm-kernel--conformance-test \
         ferrocm-kernel--ferrocm_kernel ferrocm-prof--writers-test ferrocm-cli--prof-test; do
  b=.gpu/stage/tests/$t
  [[ -x $b ]] || { echo "$t missing"; continue; }
  timeout 120 "$b" > "$O/$t.log" 2>&1; echo "$t rc=$? $(grep -E '^test result' "$O/$t.log" | tail -1)"
done
echo "### traced launch overhead: 5 alternating pairs, each run against its own driver loop"
RT="bench runtime --json --reps 7 --copy-mib 16 --d2d-mib 16 --allocs 200"
for i in 1 2 3 4 5; do
  timeout 40 ferrocm $RT > "$O/rt_plain_$i.json" 2>>"$O/err.log"
  timeout 40 ferrocm prof --kernel-trace -d /tmp/s5kt$i -- ferrocm $RT > "$O/rt_traced_$i.json" 2>>"$O/err.log"
done
RAND="bench rand --json --generator philox --distribution uniform --count 268435456 --reps 30"
for i in 1 2 3; do
  timeout 40 ferrocm $RAND > "$O/rand_plain_$i.json" 2>>"$O/err.log"
  timeout 40 ferrocm prof --kernel-trace -d /tmp/s5kr$i -- ferrocm $RAND > "$O/rand_traced_$i.json" 2>>"$O/err.log"
done
python3 - "$O" <<'PY'
import glob, json, os, statistics, sys
o = sys.argv[1]
def load(pat):
    runs = []
    for f in sorted(glob.glob(os.path.join(o, pat))):
        r = {}
        for line in open(f):
            try: j = json.loads(line)
            except ValueError: continue
            r[j["metric"]] = (j["ferrocm"], j.get("baseline"))
        runs.append(r)
    return runs
for kind in ("rt", "rand"):
    p, t = load(f"{kind}_plain_*.json"), load(f"{kind}_traced_*.json")
    for m in (p[0] if p else {}):
        if kind == "rt" and "launch" not in m: continue
        pv = [r[m][0] for r in p if m in r]; tv = [r[m][0] for r in t if m in r]
        pn = [r[m][0] / r[m][1] for r in p if m in r and r[m][1]]
        tn = [r[m][0] / r[m][1] for r in t if m in r and r[m][1]]
        line = f"{m[:40]:<40} plain {statistics.median(pv):9.3f} traced {statistics.median(tv):9.3f} ratio {statistics.median(tv)/statistics.median(pv):.3f}"
        if pn and tn:
            line += f" | vs own baseline: plain {[round(x,3) for x in pn]} traced {[round(x,3) for x in tn]} -> {statistics.median(tn)/statistics.median(pn):.3f}"
        print(line)
PY
echo "### python call overhead"
OUT=$O/py; source crates/python/gpu/env.sh >/dev/null
for i in 1 2 3; do timeout 60 "$py" crates/python/bench/bench_overhead.py 2>&1 | grep -v '^{'; done
timeout 60 "$py" crates/python/bench/uniform_parts.py 2>&1 | head -8
echo "done at $SECONDS s"
