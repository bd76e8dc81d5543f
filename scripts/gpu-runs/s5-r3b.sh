#!/usr/bin/env bash
# Lead, 2026-11-24 (fifth session), call 3b: the helper's fp8 script (e4m3 GEMM against
# torch._scaled_mm), the Python call overhead (interleaved with CuPy; wheel of main after the
# merges in .gpu/py) and the traced launch overhead again (three pairs). Full logs in logs.tgz.
set -u
R=${OUT:-/tmp/s5r3b}; mkdir -p "$R"
mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz
OUT=/tmp/fp8 bash crates/gemm/gpu/fp8.sh > /tmp/fp8.txt 2>&1; echo "fp8.sh rc=$?"; tail -40 /tmp/fp8.txt
export FERROCM_REQUIRE_GPU=1 PATH="$PWD/.gpu/stage/bin:$PATH"
O=/tmp/s5r3b; mkdir -p $O
OUT=$O/py; source crates/python/gpu/env.sh >/dev/null
for i in 1 2 3; do timeout 90 "$py" crates/python/bench/bench_overhead.py 2>&1 | grep -v '^{'; done
timeout 60 "$py" crates/python/bench/uniform_parts.py 2>&1 | head -6
RT="bench runtime --json --reps 7 --copy-mib 16 --d2d-mib 16 --allocs 200"
for i in 1 2 3; do
  timeout 40 ferrocm $RT > "$O/rt_plain_$i.json" 2>>"$O/err.log"
  timeout 40 ferrocm prof --kernel-trace -d /tmp/s5r3kt$i -- ferrocm $RT > "$O/rt_traced_$i.json" 2>>"$O/err.log"
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
p, t = load("rt_plain_*.json"), load("rt_traced_*.json")
for m in (p[0] if p else {}):
    if "launch" not in m: continue
    pn = [r[m][0] / r[m][1] for r in p if m in r and r[m][1]]
    tn = [r[m][0] / r[m][1] for r in t if m in r and r[m][1]]
    if pn and tn:
        print(f"{m[:34]:<34} per own driver loop: plain {[round(x,3) for x in pn]} traced {[round(x,3) for x in tn]} -> {statistics.median(tn)/statistics.median(pn):.3f}")
PY
tar -czf "$R/logs.tgz" /tmp/fp8* $O 2>/dev/null
echo "done at $SECONDS s"
