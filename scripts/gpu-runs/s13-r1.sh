#!/usr/bin/env bash
# Lead, 2026-12-07 (thirteenth session), call 1. FFT changes since main 72f1ab9 (staged):
# the R2C row-pairs work area has rows padded to 32-byte sectors (`pad`), a cluster pass whose
# runs start off the sector boundaries holds 128-byte runs instead of 64 (`r128`), codelets of
# coprime factors are Good-Thomas (no internal twiddles: radix 10 = 2 x 5, `pfa`), and blocks
# of radices up to 10 are bounded for 1600 resident threads instead of 1280 (`occ4`: four
# 400-thread blocks of 1000-point transforms per SM, 32 registers).
# Builds: prev = 72f1ab9; new = pad + r128 + pfa + occ4; b3 = pad + 64-byte runs + pfa;
# b4 = no pad + r128 + occ4 (no pfa). So each change is measured in a 2 x 2 on its own case:
# R2C 8192^2 (pad x run width), 1000 x 16384 (pfa x occ4); 2D 4096^2 and 1024 x 16384 as
# controls (identical kernels in all four builds).
# 1. A/B/C/D alternating, two rounds, median of 20.  2. The whole table beside cuFFT (new).
# 3. GPU tests (cluster passes, row pairs, radices) and sanitizers.  4. ncu (full set) on
# 1000 x 16384 (prev and new) and the 2D 4096^2 column pass in clusters.
# Staged with `../shared/gpu/pack --bins -p ferrocm-fft -p ferrocm-cli`.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s13r1}; L=/tmp/s13r1-logs; mkdir -p "$O" "$L"
trap 'tar -C "$L" -cJf "$O/logs.tar.xz" . 2>/dev/null' EXIT
source scripts/gpu-runs/lib.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
ab 2 20 prev new b3 b4 -- "r2c f32 2D 8192^2" "c2c f32 1000 x 16384" "c2c f32 2D 4096^2" "c2c f32 1024 x 16384"
echo "### bench fft (new) beside cuFFT at $SECONDS s"
timeout 150 $NEW bench fft --describe --reps 20 --vendor scripts/vendor_baselines.py >"$L/bench.txt" 2>"$L/bench.err"
echo "bench rc=$?"; grep -E '^(c2c|r2c|z2z)' "$L/bench.txt" | grep -v plan | cut -c1-100
t clusters 60 'ferrocm-fft--fft-test' layouts::cluster_column_passes::cuda --exact
t row-pairs 60 'ferrocm-fft--fft-test' real::row_pairs::cuda --exact
t mixed 60 'ferrocm-fft--fft-test' c2c::mixed_radices::cuda --exact
san race-clusters 120 racecheck $T/ferrocm-fft--fft-test layouts::cluster_column_passes::cuda --exact
san mem-r2c 40 memcheck $NEW bench fft --case "r2c f32 2D 8192^2" --reps 1 --vendor none
san mem-1000 40 memcheck $NEW bench fft --case "c2c f32 1000 x 16384" --reps 1 --vendor none
if command -v ncu >/dev/null; then
  for v in prev new; do
    b=$(build_bin $v); f="$L/ncu-1000-$v.txt"
    timeout 40 ncu --launch-count 1 -k regex:fft_block --set full $b bench fft --case "c2c f32 1000 x 16384" --reps 1 --vendor none >"$f" 2>&1
    echo "### ncu 1000 $v rc=$?"
    grep -E "Duration|DRAM Throughput|Achieved Occupancy|Registers Per|Theoretical Occupancy|Issue Slots Busy|Bank Conflicts|No Eligible|Warp Cycles Per Issued" "$f" | cut -c1-100 | head -14
  done
  f="$L/ncu-2d-columns.txt"
  timeout 40 ncu --launch-skip 1 --launch-count 1 -k regex:fft_block --set full $NEW bench fft --case "c2c f32 2D 4096^2" --reps 1 --vendor none >"$f" 2>&1
  echo "### ncu 2D 4096^2 column pass rc=$?"
  grep -E "Duration|DRAM Throughput|Achieved Occupancy|No Eligible|Warp Cycles Per Issued|Stall" "$f" | cut -c1-100 | head -10
fi
(( SECONDS < 420 )) && t sampled-f64 90 'ferrocm-fft--fft-test' c2c::sampled_lengths_f64::cuda --exact
(( SECONDS < 420 )) && t every-f32 150 'ferrocm-fft--fft-test' c2c::every_length_to_4096_f32::cuda --exact
(( SECONDS < 540 )) && t layouts 60 'ferrocm-fft--fft-test' layouts:: --skip cpu
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
