#!/usr/bin/env bash
# Lead, 2026-12-07 (eleventh session), call 2. s11-r1.sh ran (H100) but wrote more files than
# come back, so its output kept only the ncu part; a call running its first half again got no
# machine. This call, most important first:
# 1. dgemm: the 32 x 32 warp tiles' slab loop asking for the first MMA's fragments (A's first
#    m-tile, B's first n-tile) before the copies of slab kt + 3; A/B against main before it
#    (.gpu/prev/ferrocm.xz, 9baf97e), cuBLAS (torch) after both on each row
#    (crates/blas/gpu/table.py --rows dmma4 --prev); the blas GEMM case tables on the GPU;
#    memcheck and racecheck on dgemm 264 x 200 x 136 (partial tiles on every side).
# 2. FFT: the whole `bench fft` table beside cuFFT (torch); the real three-pass plans' and the
#    layouts' GPU tests; memcheck on the fused three-pass r2c 2^26 (one rep after its check) and
#    racecheck on the 16-byte real-pair layouts test.
# 3. ncu on one cuBLAS dgemm NN 8192^3 launch (torch): its block, registers, shared memory and
#    stall mix, beside s11-r1's for the W32 kernel.
# Logs go into one archive ($OUT/logs.tar.xz); the output is the summary.
# Staged with `../shared/gpu/pack --bins -p ferrocm-fft -p ferrocm-blas -p ferrocm-cli`.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s11r2}; L=/tmp/s11r2-logs; mkdir -p "$O" "$L"
trap 'tar -C "$L" -cJf "$O/logs.tar.xz" . 2>/dev/null' EXIT
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
[[ -x .gpu/prev/ferrocm ]] || { xz -dk .gpu/prev/ferrocm.xz && chmod +x .gpu/prev/ferrocm; }
T=.gpu/stage/tests; NEW=.gpu/stage/bin/ferrocm; PREV=.gpu/prev/ferrocm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "### dgemm A/B at $SECONDS s"
timeout 150 python3 crates/blas/gpu/table.py --ferrocm "$NEW" --prev "$PREV" --rows dmma4 >"$L/dgemm.txt" 2>&1
echo "rc=$?"; grep -v '^{"row"' "$L/dgemm.txt" | tail -8
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
t blas-gemm 100 'ferrocm-blas--blas-test' level23::gemm_cases
D=(bench blas -r f64_r -m 264 -n 200 -k 136 --reps 1 --engine kernels --family dmma16-w32)
san dgemm-mem 30 memcheck $NEW "${D[@]}"
san dgemm-race 45 racecheck $NEW "${D[@]}"
echo "### fft table at $SECONDS s"
timeout 110 $NEW bench fft --reps 20 --vendor scripts/vendor_baselines.py >"$L/fft.txt" 2>"$L/fft.err"
echo "rc=$?"; cat "$L/fft.txt"
t real3 50 'ferrocm-fft--fft-test' real::three_pass_real::cuda --exact
t layouts 30 'ferrocm-fft--fft-test' layouts:: --skip cpu --skip multi_dimensional
san fft-mem 90 memcheck $NEW bench fft --case "r2c f32 1D 2^26" --reps 1 --vendor none
san fft-race 50 racecheck $T/ferrocm-fft--fft-test layouts::col_phases_16_byte::cuda --exact
printf 'tests: %s\n' "${results[@]}"
echo "### ncu cuBLAS dgemm at $SECONDS s"
if command -v ncu >/dev/null; then
  timeout 60 ncu --launch-skip 1 --launch-count 1 -k regex:'gemm|dgemm|xmma|Kernel' --section SpeedOfLight \
    --section Occupancy --section WarpStateStats --section LaunchStats --section ComputeWorkloadAnalysis \
    --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
    python3 -c "
import torch
a = torch.randn(8192, 8192, dtype=torch.float64, device='cuda'); b = torch.randn_like(a)
for _ in range(3): c = a @ b
torch.cuda.synchronize()" >"$L/ncu_cublas.txt" 2>&1
  echo "rc=$?"
  grep -E "^  [a-zA-Z_0-9]+.*\(|Duration|Registers Per|Block Size|Grid Size|Shared Memory Config|Dynamic Shared|Static Shared|Threads|Block Limit|Achieved Occupancy|Eligible|Warp Cycles Per Issued|Issue Slots|highest-utilized|stalled_(barrier|math_pipe_throttle|mio_throttle|short_scoreboard|wait|long_scoreboard|not_selected|dispatch_stall)_per" "$L/ncu_cublas.txt" | cut -c1-130 | head -30
fi
echo "done at $SECONDS s"
