#!/usr/bin/env bash
# Lead, 2026-12-07 (seventeenth session), call 1, about 420 s. Stage: `pack --bins --workspace`
# at main 957258e; `.gpu/p16` = branch dgemm-p16 (gemm_dmma16's stages laid out for 16-byte
# copies: ferrocm and its `blas` test binary); `.gpu/r10` = branch rand10 (ThreeFry4x64's
# block-pair loop with 32-bit indices: ferrocm and its `rand` test binary).
# 1. dgemm-p16 on the GPU: gemm_cases (every dmma16 family forced, pad = 1 for the 8-byte
#    copies of odd leading dimensions) and misuse; memcheck and racecheck on 264 x 200 x 136
#    forced onto W32 and K8 (nine slabs: the ring wraps twice); then table.py --rows p16 --prev
#    main (main's build, p16's, cuBLAS per row).
# 2. RAND A/B main vs r10, two rounds, then r10's ThreeFry GPU tests and memcheck on 4x64.
# 3. The whole `bench rand` table beside cuRAND (CuPy) in one command (main's build).
# 4. The reliability test that failed once in s16-r1b, twice. (Stage slimmed to bin/ferrocm and
#    the runtime's reliability test binary: the carry limit.)
set -u
source scripts/gpu-runs/lib.sh
start s17r1
P16=$(build_bin p16)
for b in p16-blas r10-rand; do
  v=${b%%-*}; n=${b#*-}
  [[ -x $T/$b-test ]] || { xz -dc ".gpu/$v/$n-test.xz" >"$T/$b-test" && chmod +x "$T/$b-test"; }
done
t p16-gemm 150 p16-blas-test level23::gemm_cases
t p16-misuse 20 p16-blas-test misuse::
D=(bench blas -r f64_r -m 264 -n 200 -k 136 --reps 1 --engine kernels)
san p16-mem-w32 30 memcheck $P16 "${D[@]}" --family dmma16-w32
san p16-race-w32 45 racecheck $P16 "${D[@]}" --family dmma16-w32
san p16-mem-k8-tn 30 memcheck $P16 "${D[@]}" --family dmma16-k8 --transposeA T
echo "### dgemm p16 vs main at $SECONDS s"
timeout 150 python3 crates/blas/gpu/table.py --ferrocm "$P16" --prev "$NEW" --rows p16 >"$L/dgemm.txt" 2>&1
echo "rc=$?"; grep -v '^{"row"' "$L/dgemm.txt" | tail -9
echo "### rand at $SECONDS s"
abr 2 new r10 -- threefry2x32 threefry4x32 threefry2x64 threefry4x64 philox
t r10-rand 100 r10-rand-test threefry rocrand published_kats
R10=$(build_bin r10)
san r10-mem-4x64 60 memcheck $R10 bench rand --generator threefry4x64 --distribution bits --count 1048577 --reps 1
san r10-mem-4x64-u 60 memcheck $R10 bench rand --generator threefry4x64 --distribution uniform --count 1048577 --reps 1
echo "### bench rand table beside cuRAND at $SECONDS s"
V="python3 scripts/vendor_baselines.py"
for g in philox xorwow mrg32k3a sobol32 mtgp32 mt19937 lfsr113 threefry2x32 threefry4x32 threefry2x64 threefry4x64; do
  for d in uniform normal bits; do
    (( SECONDS > 540 )) && break 2
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
for i in 1 2; do
  (( SECONDS < 570 )) && t "reliability-$i" 12 ferrocm-runtime--reliability-test free_waits_only_for_streams_that_used_the_memory
done
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
