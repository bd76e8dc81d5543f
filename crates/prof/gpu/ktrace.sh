#!/usr/bin/env bash
# Kernel tracing without events, in one device call of under 90 s: timed variants of
# kernel-language kernels and timed copies of raw PTX kernels (the runtime's built-in PTX, a
# hipcc program's). Run from the repository root after `.gpu/` was staged by
#   pack --bins --workspace            (or -p ferrocm-ir -p ferrocm-ptx-frontend -p ferrocm-runtime
#                                       -p ferrocm-kernel -p ferrocm-prof -p ferrocm-hip -p ferrocm-cli)
#   bash crates/prof/gpu/ktrace_stage.sh   (here, with clang 19: the HIP program into .gpu/hip/)
#   bash crates/prof/gpu/ktrace.sh         (on the GPU machine)
# 1. The tracing tests with FERROCM_REQUIRE_GPU=1: the runtime's (raw PTX kernels timed by their
#    copies, a refused one by events, kernel durations within 10% of CUDA event timings, untraced
#    PTX loaded as given), the kernel language's (timed variants: host window, spin length, one
#    record per launch in order, results), the PTX rewriter's, prof and CLI.
# 2. `bench runtime` (its empty-kernel rows launch the built-in raw PTX `empty`, now its timed
#    copy when traced; each row carries the raw-driver baseline of the same process), a large
#    kernel-language kernel (2^28 Philox uniforms, about 340 us each; cuRAND's row in the same
#    process) and the hipcc program .gpu/hip/ptx_trace_bench (empty launches batched and with a
#    synchronize each, a 2^26-float scale kernel synchronized per call, and that kernel's
#    hipEvent durations), each plain and under `ferrocm prof --kernel-trace`, alternating, three
#    runs each. The traced hipcc runs' `scale` records are compared with the same run's event
#    durations.
# Prints a table of traced/untraced ratios last; full outputs go to $OUT.
set -u
OUT=${OUT:-/tmp/ktrace-out}; mkdir -p "$OUT"
T=/tmp/ktrace-traces; rm -rf "$T"; mkdir -p "$T"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader > "$OUT/gpu.txt" 2>&1
export FERROCM_REQUIRE_GPU=1
# The CLI's prof test runs the staged `ferrocm` from PATH.
export PATH="$PWD/.gpu/stage/bin:$PATH"
: > "$OUT/tests.log"
for t in ferrocm-runtime--trace-test ferrocm-runtime--raw-test ferrocm-kernel--trace-test ferrocm-ir--timed_ptx-test \
         ferrocm-ptx-frontend--timed-test ferrocm-prof--writers-test ferrocm-prof--misuse-test ferrocm-cli--prof-test; do
  b=.gpu/stage/tests/$t
  if [[ -x $b ]]; then
    echo "== $t" >> "$OUT/tests.log"
    timeout 30 "$b" >> "$OUT/tests.log" 2>&1; echo "rc $t $?" >> "$OUT/tests.log"
  else
    echo "rc $t missing" >> "$OUT/tests.log"
  fi
done
RT="bench runtime --json --reps 7 --copy-mib 16 --d2d-mib 16 --allocs 200"
RAND="bench rand --json --generator philox --distribution uniform --count 268435456 --reps 30"
for i in 1 2 3; do
  timeout 40 ferrocm $RT > "$OUT/rt_plain_$i.json" 2>>"$OUT/err.log"
  timeout 40 ferrocm prof --kernel-trace -d "$T/rt$i" -- ferrocm $RT > "$OUT/rt_traced_$i.json" 2>>"$OUT/err.log"
done
for i in 1 2 3; do
  timeout 40 ferrocm $RAND > "$OUT/rand_plain_$i.json" 2>>"$OUT/err.log"
  timeout 40 ferrocm prof --kernel-trace -d "$T/rand$i" -- ferrocm $RAND > "$OUT/rand_traced_$i.json" 2>>"$OUT/err.log"
done
PTB=.gpu/hip/ptx_trace_bench
if [[ -x $PTB ]]; then
  export LD_LIBRARY_PATH="$PWD/.gpu/hip${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  for i in 1 2 3; do
    timeout 30 $PTB 20000 26 5 > "$OUT/ptb_plain_$i.json" 2>>"$OUT/err.log"
    timeout 30 ferrocm prof --kernel-trace --output-format csv,json -d "$T/ptb$i" -- $PTB 20000 26 5 \
      > "$OUT/ptb_traced_$i.json" 2>>"$OUT/err.log"
  done
else
  echo "$PTB missing: run crates/prof/gpu/ktrace_stage.sh where clang 19 is" >> "$OUT/err.log"
fi
cp -r "$T/rt1" "$OUT/trace_rt1" 2>/dev/null
cp -r "$T/ptb1" "$OUT/trace_ptb1" 2>/dev/null
python3 - "$OUT" "$T" <<'PY'
import csv, glob, json, os, statistics, sys
out, traces = sys.argv[1], sys.argv[2]
def rows(pat):
    r = {}
    for f in sorted(glob.glob(os.path.join(out, pat))):
        for line in open(f):
            try: o = json.loads(line)
            except ValueError: continue
            r.setdefault(o["metric"], []).append((o["ferrocm"], o.get("baseline"), o.get("unit", "")))
    return r
print("gpu:", open(os.path.join(out, "gpu.txt")).read().strip())
for l in open(os.path.join(out, "tests.log")):
    if l.startswith("rc ") or l.startswith("test result") or "panicked" in l or l.startswith("---- "):
        print("  ", l.rstrip()[:300])
# Kernel durations in the traces: the timed variants' own times.
for name in ["bench_scale", "philox_fill"]:
    d = []
    for f in glob.glob(os.path.join(traces, "*", "**", "*kernel_trace.csv"), recursive=True):
        for r in csv.DictReader(open(f)):
            if r["Kernel_Name"].startswith(name):
                d.append(int(r["End_Timestamp"]) - int(r["Start_Timestamp"]))
    if d:
        print(f"traced {name}: {len(d)} records, duration median {statistics.median(d)/1e3:.2f} us, min {min(d)/1e3:.2f}, max {max(d)/1e3:.2f}")
# The hipcc program's traced runs: every kernel record timed by the kernel's own timer (the JSON
# trace says how each was timed), and the `scale` durations against the same run's hipEvents.
for i in (1, 2, 3):
    run = os.path.join(traces, f"ptb{i}")
    how = {}
    for f in glob.glob(os.path.join(run, "**", "*results.json"), recursive=True):
        for e in json.load(open(f))["traceEvents"]:
            if e.get("cat") == "kernel":
                how[e["args"].get("timed_by")] = how.get(e["args"].get("timed_by"), 0) + 1
    d = []
    for f in glob.glob(os.path.join(run, "**", "*kernel_trace.csv"), recursive=True):
        for r in csv.DictReader(open(f)):
            if "scale" in r["Kernel_Name"]:
                d.append(int(r["End_Timestamp"]) - int(r["Start_Timestamp"]))
    ev = [o["ferrocm"] for o in (json.loads(l) for l in open(os.path.join(out, f"ptb_traced_{i}.json")) if l.startswith("{"))
          if o["metric"] == "hip scale event duration"] if os.path.exists(os.path.join(out, f"ptb_traced_{i}.json")) else []
    if d and ev:
        t = statistics.median(d[-30:]) / 1e3
        print(f"hipcc run {i}: kernel records by timing {how}; scale: trace median {t:.2f} us, hipEvent median {ev[0]:.2f} us, trace/event {t/ev[0]:.3f} (target 0.9-1.1)")
    elif how:
        print(f"hipcc run {i}: kernel records by timing {how}; no scale comparison")
err = open(os.path.join(out, "err.log")).read().strip().splitlines() if os.path.exists(os.path.join(out, "err.log")) else []
for l in err[-5:]: print("  stderr:", l[:200])
print(f"{'metric (median of 3 runs)':<36}{'untraced':>10}{'traced':>10}{'ratio':>8}{'vendor':>9}  unit (vendor: raw driver / cuRAND, same process, untraced)")
for pat in ["rt", "rand", "ptb"]:
    p, t = rows(f"{pat}_plain_*.json"), rows(f"{pat}_traced_*.json")
    for m in p:
        if pat == "rt" and "launch" not in m: continue
        a = [v[0] for v in p[m]]; k = [v[0] for v in t.get(m, [])]
        base = [v[1] for v in p[m] if v[1]]
        if not (a and k): continue
        ma, mk = statistics.median(a), statistics.median(k)
        print(f"{m[:36]:<36}{ma:>10.3f}{mk:>10.3f}{mk/ma:>8.3f}{(statistics.median(base) if base else float('nan')):>9.3f}  {p[m][0][2]}")
print("ratio = traced/untraced: for us/launch rows above 1 is slower (target < 1.05); for GSample/s and GB/s rows below 1 is slower (target > 0.99)")
PY
