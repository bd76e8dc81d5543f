#!/usr/bin/env bash
# Lead, 2026-12-07 (eleventh session), call 1b: s11-r1.sh's first half again, because that call
# wrote more files than come back and its output tail kept only the ncu part. The whole FFT table
# beside cuFFT (torch) on the same build, the GPU tests of the real three-pass plans and the
# layouts, and the four sanitizer runs (memcheck and racecheck on dgemm 264 x 200 x 136 forced onto
# the 32 x 32 warp tiles; memcheck on the fused three-pass r2c 2^26; racecheck on the 16-byte
# real-pair layouts test). Everything read lands in one archive, the summary in the output.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s11r1b}; L=/tmp/s11r1b-logs; mkdir -p "$O" "$L"
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
T=.gpu/stage/tests; NEW=.gpu/stage/bin/ferrocm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
timeout 150 $NEW bench fft --reps 20 --vendor scripts/vendor_baselines.py >"$L/bench.txt" 2>"$L/bench.err"
echo "bench rc=$? at $SECONDS s"; cat "$L/bench.txt"
results=()
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$L/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s"
  grep -E "^test result|panicked|FAILED|^---- " "$L/$name.log" | head -8
  results+=("$name rc=$rc")
}
t real3 60 'ferrocm-fft--fft-test' real::three_pass_real::cuda --exact
t layouts 40 'ferrocm-fft--fft-test' layouts:: --skip cpu --skip multi_dimensional
san() { # name, timeout, tool, command...
  local name=$1 limit=$2 tool=$3; shift 3
  local s=$SECONDS
  timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 "$@" >"$L/san-$name.log" 2>&1
  local rc=$?; echo "=== sanitizer $name ($tool): rc=$rc $((SECONDS - s)) s"
  grep -E "^========= (ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race)|^test result|checked|GFLOP" "$L/san-$name.log" | head -5
  results+=("san-$name rc=$rc")
}
D=(bench blas -r f64_r -m 264 -n 200 -k 136 --reps 1 --engine kernels --family dmma16-w32)
san dgemm-mem 40 memcheck $NEW "${D[@]}"
san dgemm-race 60 racecheck $NEW "${D[@]}"
san fft-mem 150 memcheck $NEW bench fft --case "r2c f32 1D 2^26" --reps 1 --vendor none
san fft-race 90 racecheck $T/ferrocm-fft--fft-test layouts::col_phases_16_byte::cuda --exact
printf 'tests: %s\n' "${results[@]}"
tar -C "$L" -cJf "$O/logs.tar.xz" .
echo "done at $SECONDS s"
