#!/usr/bin/env bash
# Lead, 2026-12-07 (twelfth session), call 2 (s12-r1 never got a machine; its BLAS half is here).
# 1. FFT: column passes as thread-block clusters (BlockCfg::cluster: 8 blocks of 16 columns x
#    512 share one 4096-point column through distributed shared memory, 128-byte runs). A/B
#    against main's build before it (.gpu/prev/ferrocm.xz, 75fbcad), alternating, median of 30:
#    c2c 2D 4096^2 and r2c 2D 8192^2 (their column passes are the cluster pass now), c2c 2^24
#    (control, same plan).
# 2. The FFT tests on the GPU (layouts: 4096^2 and the new cluster shapes; the 2D real cases),
#    compute-sanitizer memcheck on the c2c 2D 4096^2 bench case and racecheck on the cluster
#    shapes' test.
# 3. `ferrocm bench fft` beside cuFFT (torch), every case, one process.
# 4. BLAS, the grouped block order (5ce6077, cherry-picked): level23::gemm_cases and misuse on
#    the GPU, memcheck on dgemm 2200 x 130 x 64, table.py --rows dgemm --prev (main's build, the
#    branch, cuBLAS per row).
# 5. ncu on the c2c 2D 4096^2 passes (DRAM bytes, time, occupancy).
# Staged with `../shared/gpu/pack --bins -p ferrocm-fft -p ferrocm-blas -p ferrocm-cli`.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s12r2}; L=/tmp/s12r2-logs; mkdir -p "$O" "$L"
trap 'tar -C "$L" -cJf "$O/logs.tar.xz" . 2>/dev/null' EXIT
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
[[ -x .gpu/prev/ferrocm ]] || { xz -dk .gpu/prev/ferrocm.xz && chmod +x .gpu/prev/ferrocm; }
T=.gpu/stage/tests; NEW=.gpu/stage/bin/ferrocm; PREV=.gpu/prev/ferrocm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
C=(--case "c2c f32 2D 4096^2" --case "r2c f32 2D 8192^2" --case "c2c f32 1D 2^24")
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
t layouts 90 'ferrocm-fft--fft-test' layouts:: --skip cpu
t real 120 'ferrocm-fft--fft-test' real:: --skip cpu --skip three_pass_real
san fft-mem 60 memcheck $NEW bench fft --case "c2c f32 2D 4096^2" --reps 1 --vendor none
san fft-race 120 racecheck $NEW bench fft --case "r2c f32 2D 8192^2" --reps 1 --vendor none
echo "### bench fft at $SECONDS s"
timeout 150 $NEW bench fft --reps 20 --vendor scripts/vendor_baselines.py >"$L/bench.txt" 2>"$L/bench.err"
echo "bench rc=$?"; cat "$L/bench.txt" | cut -c1-120 | tail -30
t blas-gemm 120 'ferrocm-blas--blas-test' level23::gemm_cases
t blas-misuse 20 'ferrocm-blas--blas-test' misuse::
san dgemm-mem 60 memcheck $NEW bench blas -r f64_r -m 2200 -n 130 -k 64 --reps 1 --engine kernels
echo "### dgemm A/B at $SECONDS s"
timeout 200 python3 crates/blas/gpu/table.py --ferrocm "$NEW" --prev "$PREV" --rows dgemm >"$L/dgemm.txt" 2>&1
echo "rc=$?"; grep -v '^{"row"' "$L/dgemm.txt" | tail -12
printf 'tests: %s\n' "${results[@]}"
if command -v ncu >/dev/null && (( SECONDS < 480 )); then
  f="$L/ncu_2d.txt"
  timeout 60 ncu --launch-count 4 --section SpeedOfLight --section Occupancy --section LaunchStats \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    $NEW bench fft --case "c2c f32 2D 4096^2" --reps 1 --vendor none >"$f" 2>&1
  echo "### ncu 2D rc=$?"
  grep -E "^  [a-zA-Z_0-9<>:, ]+\(|dram__bytes_(read|write).sum|gpu__time_duration.sum|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Block Size|Grid Size|Dynamic Shared|Cluster" "$f" | cut -c1-110 | head -40
fi
echo "done at $SECONDS s"
