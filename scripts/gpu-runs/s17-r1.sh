#!/usr/bin/env bash
# Next session's first call, written 2026-12-07 (sixteenth session), about 330 s. Stage: `pack
# --bins --workspace` at main, `.gpu/r10` = branch rand10 (ThreeFry4x64's block-pair loop with
# 32-bit indices: 40 -> 32 registers, hot trip 314 -> 285 SASS instructions), a `cargo build
# --release -p ferrocm-cli` xz-compressed as `.gpu/r10/ferrocm.xz`.
# 1. RAND A/B main vs r10, two rounds (main's rand9 merge is timed by itself here for the first
# time), then the rand GPU tests of ThreeFry and memcheck on its kernels (rand9's first).  2. The
# reliability test that failed once in s16-r1b, alone, twice.  3. The whole
# `bench rand` table beside cuRAND (CuPy) in one command.  4. The blas and fft test binaries
# that s16-r1's 100-s window cut, with more time.
set -u
source scripts/gpu-runs/lib.sh
start s17r1
abr 2 new r10 -- threefry2x32 threefry4x32 threefry2x64 threefry4x64 philox
t rand 100 ferrocm-rand--rand-test threefry rocrand published_kats
for g in threefry2x32 threefry4x64; do
  san "mem-$g" 60 memcheck $NEW bench rand --generator $g --distribution bits --count 1048576 --reps 1
done
for i in 1 2; do
  t "reliability-$i" 40 ferrocm-runtime--reliability-test free_waits_only_for_streams_that_used_the_memory
done
echo "### bench rand table beside cuRAND at $SECONDS s"
V="python3 scripts/vendor_baselines.py"
for g in philox xorwow mrg32k3a sobol32 mtgp32 mt19937 lfsr113 threefry2x32 threefry4x32 threefry2x64 threefry4x64; do
  for d in uniform normal bits; do
    (( SECONDS > 330 )) && break 2
    timeout 20 $NEW bench rand --generator $g --distribution $d --reps 5 --json 2>&1 | grep -m1 GSample
    case $g in lfsr113|threefry*) ;; *) timeout 25 $V curand --generator $g --distribution $d 2>&1 | grep -m1 GSample ;; esac
  done
done >"$L/rand-table.txt"
timeout 20 $V copy >>"$L/rand-table.txt" 2>&1
python3 - "$L/rand-table.txt" <<'PY'
import json, sys
rows, copy = {}, None
for line in open(sys.argv[1]):
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("bench") == "copy": copy = m["value"]; continue
    key = m["metric"].split(" (")[0]
    rows.setdefault(key, {})["ferrocm" if "ferrocm" in m else "vendor"] = m.get("ferrocm", m.get("value"))
print(f"copy {copy} GB/s; ThreeFry/LFSR113 against the copy at 4 B/value")
for k, d in rows.items():
    f, v = d.get("ferrocm"), d.get("vendor")
    ratio = f / v if f and v else (f / (copy / 4) if f and copy and "bits" in k else None)
    print(f"{k:48s} {f if f is None else round(f, 1)!s:>8} {v if v is None else round(v, 1)!s:>8} {'' if ratio is None else round(ratio, 3)}")
PY
t blas 150 ferrocm-blas--blas-test --skip cpu
t fft 150 ferrocm-fft--fft-test --skip every_length --skip large_powers --skip cpu
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
