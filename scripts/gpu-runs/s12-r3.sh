#!/usr/bin/env bash
# Lead, 2026-12-07 (twelfth session), call 3: the FFT cluster passes after s12-r2 (where they
# were slower than the block passes they replaced: 2D 4096^2 0.280 -> 0.347 ms, 2^24 0.322 ->
# 0.422). Changed since: the exchange reads contiguous positions of each transform from the
# other tiles and stages a strided output in its own tile after the barrier; tiles of 64-byte
# runs (8 transforms, 36 KiB: several blocks per SM) in the staged build; m % q == 0.
# 1. A/B/C, alternating, median of 20: main before the clusters (.gpu/prev/ferrocm.xz, 75fbcad),
#    the new exchange with 128-byte tiles (.gpu/w16/ferrocm.xz, CLUSTER_RUN = 128), the staged
#    build (CLUSTER_RUN = 64).
# 2. The same cases beside cuFFT (torch) with the staged build.
# 3. GPU tests: FFT layouts, real::row_pairs (R2C 6000 x 64 failed in s12-r2), three-pass
#    chains; the kernel language's cluster tests (dsmem_load2). memcheck on the 2D and 2^24 cases.
# 4. ncu on the passes of the 2D 4096^2 and 2^24 cases (staged build).
# Staged with `../shared/gpu/pack --bins -p ferrocm-fft -p ferrocm-cli -p ferrocm-kernel`.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s12r3}; L=/tmp/s12r3-logs; mkdir -p "$O" "$L"
trap 'tar -C "$L" -cJf "$O/logs.tar.xz" . 2>/dev/null' EXIT
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
for d in prev w16; do [[ -x .gpu/$d/ferrocm ]] || { xz -dk .gpu/$d/ferrocm.xz && chmod +x .gpu/$d/ferrocm; }; done
T=.gpu/stage/tests; NEW=.gpu/stage/bin/ferrocm; PREV=.gpu/prev/ferrocm; W16=.gpu/w16/ferrocm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
C=(--case "c2c f32 2D 4096^2" --case "r2c f32 2D 8192^2" --case "c2c f32 1D 2^24" --case "z2z f64 1D 2^24")
for r in 1 2; do
  for v in prev w16 new; do
    B=$PREV; [[ $v == new ]] && B=$NEW; [[ $v == w16 ]] && B=$W16
    timeout 60 $B bench fft "${C[@]}" --reps 20 --vendor none --json >"$L/ab-$v-$r.json" 2>"$L/ab-$v-$r.err"
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
print("A/B/C, ms (rounds 1, 2)")
for c, d in rows.items():
    print(f"{c:20s} prev {d.get('prev')}  w16 {d.get('w16')}  new {d.get('new')}")
PY
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
  grep -E "^========= (ERROR SUMMARY|Invalid)|checked" "$L/san-$name.log" | head -3
  results+=("san-$name rc=$rc")
}
t row-pairs 60 'ferrocm-fft--fft-test' real::row_pairs::cuda --exact
t kernel-cluster 30 'ferrocm-kernel--hopper-test' cluster
t chains 60 'ferrocm-fft--fft-test' c2c::three_pass_chains::cuda --exact
san fft-mem-2d 30 memcheck $NEW bench fft --case "c2c f32 2D 4096^2" --reps 1 --vendor none
san fft-mem-1d 30 memcheck $NEW bench fft --case "c2c f32 1D 2^24" --reps 1 --vendor none
echo "### bench fft (staged) at $SECONDS s"
timeout 90 $NEW bench fft "${C[@]}" --describe --reps 20 --vendor scripts/vendor_baselines.py >"$L/bench.txt" 2>"$L/bench.err"
echo "bench rc=$?"; grep -E '^(c2c|r2c|z2z)' "$L/bench.txt" | grep -v plan | cut -c1-100
(( SECONDS < 200 )) && t layouts 60 'ferrocm-fft--fft-test' layouts:: --skip cpu
printf 'tests: %s\n' "${results[@]}"
if command -v ncu >/dev/null && (( SECONDS < 230 )); then
  for c in "c2c f32 2D 4096^2" "c2c f32 1D 2^24"; do
    f="$L/ncu_${c//[ ^]/_}.txt"
    timeout 25 ncu --launch-count 2 --section SpeedOfLight --section Occupancy --section LaunchStats \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
      $NEW bench fft --case "$c" --reps 1 --vendor none >"$f" 2>&1
    echo "### ncu $c rc=$?"
    grep -E "^  [a-zA-Z_0-9<>:, ]+\(|gpu__time_duration.sum|DRAM Throughput|Achieved Occupancy|Max Active Clusters|Block Limit" "$f" | cut -c1-100 | head -20
  done
fi
echo "done at $SECONDS s"
