#!/usr/bin/env bash
# Lead, 2026-12-07 (twelfth session), call 2 (s12-r1 never got a machine; its BLAS half is here).
# 1. FFT passes as thread-block clusters (BlockCfg::cluster: q blocks each hold 1/q of 16
#    transforms and finish the radix-q step through distributed shared memory; 128-byte runs on
#    every strided side). A/B against main's build before them (.gpu/prev/ferrocm.xz, 75fbcad),
#    alternating, median of 30: c2c 2D 4096^2 and r2c 2D 8192^2 (their column passes), c2c and
#    z2z 2^24 (two cluster passes instead of three), c2c 1024 x 16384 (control, same plan).
# 2. `ferrocm bench fft` beside cuFFT (torch), every case, one process.
# 3. The FFT tests on the GPU (layouts, real::row_pairs, c2c three_pass_chains and large powers
#    of two), memcheck on the 2D 4096^2 and 2^24 bench cases, racecheck on the 2D case.
# 4. BLAS, the grouped block order (5ce6077, cherry-picked): table.py --rows dgemm --prev
#    (main's build, then this one, then cuBLAS per row), level23::gemm_cases and misuse on the
#    GPU, memcheck on dgemm 2200 x 130 x 64 (two tile-row groups, the second partial).
# 5. ncu on the c2c 2D 4096^2 and 2^24 passes, if time is left.
# Staged with `../shared/gpu/pack --bins -p ferrocm-fft -p ferrocm-blas -p ferrocm-cli`.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s12r2}; L=/tmp/s12r2-logs; mkdir -p "$O" "$L"
trap 'tar -C "$L" -cJf "$O/logs.tar.xz" . 2>/dev/null' EXIT
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
[[ -x .gpu/prev/ferrocm ]] || { xz -dk .gpu/prev/ferrocm.xz && chmod +x .gpu/prev/ferrocm; }
T=.gpu/stage/tests; NEW=.gpu/stage/bin/ferrocm; PREV=.gpu/prev/ferrocm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
C=(--case "c2c f32 2D 4096^2" --case "r2c f32 2D 8192^2" --case "c2c f32 1D 2^24" --case "z2z f64 1D 2^24"
   --case "c2c f32 1024 x 16384")
for r in 1 2; do
  for v in prev new; do
    B=$PREV; [[ $v == new ]] && B=$NEW
    timeout 60 $B bench fft "${C[@]}" --reps 30 --vendor none --json >"$L/ab-$v-$r.json" 2>"$L/ab-$v-$r.err"
    echo "ab $v $r rc=$? at $SECONDS s"; grep -iE 'error|panic' "$L/ab-$v-$r.err" | head -3
  done
done
python3 - "$L" <<'PY'
import json, sys, glob, os
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "ab-*.json"))):
    v, r = os.path.basename(f)[3:-5].split("-")
    for line in open(f):
        try: m = json.loads(line)
        except ValueError: continue
        if m.get("bench") == "fft" and " plan" not in m["metric"]:
            rows.setdefault(m["metric"], {}).setdefault(v, []).append(round(m["ferrocm"], 4))
print("A/B, ms (rounds 1, 2)")
for c, d in rows.items():
    print(f"{c:22s} prev {d.get('prev')}  new {d.get('new')}")
PY
echo "### bench fft at $SECONDS s"
timeout 150 $NEW bench fft --reps 20 --vendor scripts/vendor_baselines.py >"$L/bench.txt" 2>"$L/bench.err"
echo "bench rc=$?"; cut -c1-120 "$L/bench.txt" | tail -24
results=()
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$L/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s"
  grep -E "^test result|panicked|FAILED|^---- " "$L/$name.log" | head -6
  results+=("$name rc=$rc")
}
san() { # name, timeout, tool, command...
  local name=$1 limit=$2 tool=$3; shift 3
  local s=$SECONDS
  timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 "$@" >"$L/san-$name.log" 2>&1
  local rc=$?; echo "=== sanitizer $name ($tool): rc=$rc $((SECONDS - s)) s"
  grep -E "^========= (ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race)|^test result|checked" "$L/san-$name.log" | head -4
  results+=("san-$name rc=$rc")
}
t layouts 60 'ferrocm-fft--fft-test' layouts:: --skip cpu
t row-pairs 60 'ferrocm-fft--fft-test' real::row_pairs::cuda --exact
t chains 90 'ferrocm-fft--fft-test' c2c::three_pass_chains::cuda --exact
echo "### dgemm A/B at $SECONDS s"
timeout 150 python3 crates/blas/gpu/table.py --ferrocm "$NEW" --prev "$PREV" --rows dgemm >"$L/dgemm.txt" 2>&1
echo "rc=$?"; grep -v '^{"row"' "$L/dgemm.txt" | tail -12
san fft-mem-2d 40 memcheck $NEW bench fft --case "c2c f32 2D 4096^2" --reps 1 --vendor none
san fft-mem-1d 40 memcheck $NEW bench fft --case "c2c f32 1D 2^24" --reps 1 --vendor none
t blas-gemm 60 'ferrocm-blas--blas-test' level23::gemm_cases
san dgemm-mem 30 memcheck $NEW bench blas -r f64_r -m 2200 -n 130 -k 64 --reps 1 --engine kernels
(( SECONDS < 470 )) && san fft-race 60 racecheck $NEW bench fft --case "c2c f32 2D 4096^2" --reps 1 --vendor none
(( SECONDS < 500 )) && t large-pow2 60 'ferrocm-fft--fft-test' c2c::large_powers_of_two::cuda --exact
printf 'tests: %s\n' "${results[@]}"
if command -v ncu >/dev/null && (( SECONDS < 540 )); then
  for c in "c2c f32 2D 4096^2" "c2c f32 1D 2^24"; do
    f="$L/ncu_${c//[ ^]/_}.txt"
    timeout 25 ncu --launch-count 4 --section SpeedOfLight --section Occupancy --section LaunchStats \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
      $NEW bench fft --case "$c" --reps 1 --vendor none >"$f" 2>&1
    echo "### ncu $c rc=$?"
    grep -E "^  [a-zA-Z_0-9<>:, ]+\(|dram__bytes_(read|write).sum|gpu__time_duration.sum|DRAM Throughput|Achieved Occupancy|Cluster" "$f" | cut -c1-100 | head -24
  done
fi
echo "done at $SECONDS s"
