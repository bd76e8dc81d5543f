#!/usr/bin/env bash
# Lead, 2026-11-24 (fifth session), call 2: the traced launch overhead after the collector's
# growing chunks and the borrowed timed variant, with the traces' gaps (is the traced loop bound
# by the host or by the GPU?); the Python call overhead timed interleaved with CuPy. Staged as
# s5-r1 (the wheel of s5-r1: same native code for the Python rows).
set -u
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
export FERROCM_REQUIRE_GPU=1 PATH="$PWD/.gpu/stage/bin:$PATH"
O=${OUT:-/tmp/s5r2}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
for t in ferrocm-runtime--trace-test ferrocm-kernel--trace-test ferrocm-kernel--ferrocm_kernel ferrocm-cli--prof-test; do
  b=.gpu/stage/tests/$t
  timeout 120 "$b" > "$O/$t.log" 2>&1; echo "$t rc=$? $(grep -E '^test result' "$O/$t.log" | tail -1)"
done
RT="bench runtime --json --reps 7 --copy-mib 16 --d2d-mib 16 --allocs 200"
for i in 1 2 3 4 5; do
  timeout 40 ferrocm $RT > "$O/rt_plain_$i.json" 2>>"$O/err.log"
  rm -rf /tmp/s5kt$i
  timeout 40 ferrocm prof --kernel-trace -d /tmp/s5kt$i -- ferrocm $RT > "$O/rt_traced_$i.json" 2>>"$O/err.log"
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
    pv = [r[m][0] for r in p if m in r]; tv = [r[m][0] for r in t if m in r]
    if pn and tn:
        print(f"{m[:34]:<34} plain {statistics.median(pv):.3f} traced {statistics.median(tv):.3f} us | per own driver loop: plain {[round(x,3) for x in pn]} traced {[round(x,3) for x in tn]} -> {statistics.median(tn)/statistics.median(pn):.3f}")
PY
python3 scripts/gpu-runs/trace_gaps.py /tmp/s5kt1 /tmp/s5kt3 2>&1 | head -12
OUT=$O/py; source crates/python/gpu/env.sh >/dev/null
for i in 1 2 3; do timeout 90 "$py" crates/python/bench/bench_overhead.py 2>&1 | grep -v '^{'; done
echo "done at $SECONDS s"
