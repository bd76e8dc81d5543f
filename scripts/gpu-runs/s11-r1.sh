#!/usr/bin/env bash
# Lead, 2026-12-07 (eleventh session), call 1: what the tenth session left unmeasured.
# 1. FFT: the R2C unfold fused into a third pass (e22cf8f; r2c 2^26 plans 256 | 512 | 256
#    mirrored) and the pointwise unfold reading each value once (eec03fa), A/B against the build
#    before both (.gpu/prev/ferrocm.xz, main at 99f27be), alternating; then the same cases beside
#    cuFFT (torch) in one process; the GPU tests of the real three-pass plans and the layouts.
# 2. compute-sanitizer memcheck and racecheck on the changed kernels: the fused three-pass R2C
#    (bench case r2c 2^26, one timed rep after its check) and gemm_dmma16 on 32 x 32 warp tiles
#    (dgemm 264 x 200 x 136: partial tiles on every side, forced dmma16-w32).
# 3. ncu: the passes of r2c 2^26, c2c 2D 4096^2 and c2c 1000 x 16384 (DRAM bytes, time,
#    occupancy per pass), and one dgemm NN 8192^3 launch on
#    the 32 x 32 warp tiles (the sections of crates/blas/gpu/dmma3.sh).
# Staged with `../shared/gpu/pack --bins -p ferrocm-fft -p ferrocm-blas -p ferrocm-cli`, the
# previous binary added as .gpu/prev/ferrocm.xz.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s11r1}; mkdir -p "$O"
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
[[ -x .gpu/prev/ferrocm ]] || { xz -dk .gpu/prev/ferrocm.xz && chmod +x .gpu/prev/ferrocm; }
T=.gpu/stage/tests; NEW=.gpu/stage/bin/ferrocm; PREV=.gpu/prev/ferrocm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
C=(--case "r2c f32 1D 2^26" --case "c2c f32 1D 2^24" --case "r2c f32 2D 8192^2")
for r in 1 2; do
  for v in prev new; do
    B=$PREV; [[ $v == new ]] && B=$NEW
    timeout 60 $B bench fft "${C[@]}" --reps 30 --vendor none --json >"$O/ab-$v-$r.json" 2>"$O/ab-$v-$r.err"
    echo "ab $v $r rc=$? at $SECONDS s"
  done
done
python3 - "$O" <<'PY'
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
timeout 60 $NEW bench fft "${C[@]}" --describe --reps 20 --vendor scripts/vendor_baselines.py >"$O/bench.txt" 2>"$O/bench.err"
echo "bench rc=$? at $SECONDS s"; cat "$O/bench.txt"
results=()
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$O/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s"
  grep -E "^test result|panicked|FAILED|^---- " "$O/$name.log" | head -8
  results+=("$name rc=$rc")
}
t real3 60 'ferrocm-fft--fft-test' real::three_pass_real::cuda --exact
t layouts 40 'ferrocm-fft--fft-test' layouts:: --skip cpu --skip multi_dimensional
san() { # name, timeout, tool, command...
  local name=$1 limit=$2 tool=$3; shift 3
  local s=$SECONDS
  timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 "$@" >"$O/san-$name.log" 2>&1
  local rc=$?; echo "=== sanitizer $name ($tool): rc=$rc $((SECONDS - s)) s"
  grep -E "^========= (ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race)|^test result" "$O/san-$name.log" | head -5
  results+=("san-$name rc=$rc")
}
D=(bench blas -r f64_r -m 264 -n 200 -k 136 --reps 1 --engine kernels --family dmma16-w32)
san dgemm-mem 40 memcheck $NEW "${D[@]}"
san dgemm-race 60 racecheck $NEW "${D[@]}"
san fft-mem 150 memcheck $NEW bench fft --case "r2c f32 1D 2^26" --reps 1 --vendor none
san fft-race 90 racecheck $T/ferrocm-fft--fft-test layouts::col_phases_16_byte::cuda --exact
printf 'tests: %s\n' "${results[@]}"
if command -v ncu >/dev/null; then
  for c in "r2c f32 1D 2^26" "c2c f32 2D 4096^2" "c2c f32 1000 x 16384"; do
    f="$O/ncu_fft_${c//[ ^]/_}.txt"
    timeout 45 ncu --launch-count 6 --section SpeedOfLight --section MemoryWorkloadAnalysis \
      --section Occupancy --section LaunchStats \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
      $NEW bench fft --case "$c" --reps 1 --vendor none >"$f" 2>&1
    echo "### ncu fft $c rc=$?"
    grep -E "^  [a-zA-Z_0-9<>:, ]+\(|dram__bytes_(read|write).sum|gpu__time_duration.sum|lts__t_sectors|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Block Size|Grid Size|Dynamic Shared" "$f" | cut -c1-110 | head -80
  done
  fam=dmma16-w32
  timeout 100 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_dmma16 --section SpeedOfLight \
    --section Occupancy --section WarpStateStats --section LaunchStats \
    --section MemoryWorkloadAnalysis --section SchedulerStats --section ComputeWorkloadAnalysis \
    --section InstructionStats \
    --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum' \
    $NEW bench blas -r f64_r -m 8192 -n 8192 -k 8192 --reps 1 --engine kernels --family $fam \
    >"$O/ncu_full_$fam.txt" 2>&1
  echo "ncu dgemm rc=$?"
  grep -E "Duration|Registers Per Thread|Block Limit (Registers|Shared)|Achieved Occupancy|Eligible Warps|Warp Cycles Per Issued|Issue Slots Busy|L2 Cache Throughput|DRAM Throughput|L1/TEX Hit|highest-utilized|stalled_(barrier|math_pipe_throttle|mio_throttle|short_scoreboard|wait|long_scoreboard|lg_throttle|dispatch_stall|not_selected|selected)_per|bank_conflicts|dmma|fp64" \
    "$O/ncu_full_$fam.txt" | cut -c1-150 | head -40
fi
echo "done at $SECONDS s"
