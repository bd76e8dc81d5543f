#!/usr/bin/env bash
# fftcol on the GPU in one command (about 2-5 minutes): 16-byte global accesses in the f32
# strided (Col) phases, then `ferrocm bench fft` over the issue's table with cuFFT in the same
# command, table last.
# Staged with `../shared/gpu/pack --bins -p ferrocm-fft -p ferrocm-cli` (test binaries in
# .gpu/stage/tests, the release `ferrocm` in .gpu/stage/bin).
# Run from the repository root on the GPU machine:  bash crates/fft/gpu/fftcol.sh
# Needs python3 with torch (CUDA), cupy and numpy (scripts/vendor_baselines.py cufft).
# 1. Tests with FERROCM_REQUIRE_GPU=1, each against the f64 reference and checking that nothing
#    outside the output layout was written: layouts `col_phases_16_byte` (even/odd column counts,
#    odd radices, partial tiles, batch strides, four-step, a long R2C's real pairs, buffers off
#    16 bytes: those must run the 8-byte kernel, a 16-byte access there faults), the rest of
#    layouts but the multi-dimensional sweep, c2c `large_powers_of_two` (four-step 2^17 .. 2^26,
#    both passes 16-byte), misuse. (real `fused_unfold`, 156 s on the H100, also reads real
#    pairs 16 bytes at a time: `$T/ferrocm-fft--fft-test real::fused_unfold::cuda --exact`.)
# 2. `ferrocm bench fft --describe` (plans on stderr, kept in $OUT/bench.err: the strided sides
#    that take 16-byte accesses read "Col 16-byte").
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/fftcol-out}; mkdir -p "$OUT"
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
T=.gpu/stage/tests
F=.gpu/stage/bin/ferrocm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
results=()
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$OUT/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s"
  grep -E "^test result|panicked|FAILED|^---- " "$OUT/$name.log" | head -8
  results+=("$name rc=$rc")
}
t col16 30 'ferrocm-fft--fft-test' layouts::col_phases_16_byte::cuda --exact
t layouts 30 'ferrocm-fft--fft-test' layouts:: --skip cpu --skip multi_dimensional --skip col_phases
t pow2 150 'ferrocm-fft--fft-test' c2c::large_powers_of_two::cuda --exact
t misuse 10 'ferrocm-fft--misuse-test'
printf 'tests: %s\n' "${results[@]}"
timeout 90 $F bench fft --describe --reps 20 --vendor scripts/vendor_baselines.py >"$OUT/bench.txt" 2>"$OUT/bench.err"
echo "bench rc=$?"
grep -E "checked|error|16-byte" "$OUT/bench.err" | tail -20
cat "$OUT/bench.txt"
