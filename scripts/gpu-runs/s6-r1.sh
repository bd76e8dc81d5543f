#!/usr/bin/env bash
# Lead, 2026-11-24 (sixth session), call 1: every staged test binary on the GPU (main at the
# hipify fuzz fix, with the fifth session's merges: fp8 GEMM, warp-tiled sgemm, wide dgemm,
# Sobol32 Poisson tables), then compute-sanitizer memcheck on the new kernels' tests.
# Staged: pack --bins --workspace; suite.sh copied into .gpu/.
set -u
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PATH="$PWD/.gpu/stage/bin:$PATH"
O=${OUT:-/tmp/s6r1}; mkdir -p "$O"; export OUT=$O
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
for x in perf nsys valgrind strace ltrace gdb; do printf "%s=%s " $x "$(command -v $x)"; done; echo "paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)"
echo "### every test binary (cap 400 s, 100 s each)"
bash .gpu/suite.sh 400 100
echo "### memcheck on the new kernels (at $SECONDS s)"
T=.gpu/stage/tests
san() { # tool, name, binary, filters...
  local tool=$1 name=$2 bin=$3; shift 3
  local s=$SECONDS
  timeout 100 compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 10 --report-api-errors no \
    "$T/$bin" "$@" > "$O/san_${tool}_$name.log" 2>&1; local rc=$?
  echo "$tool $name rc=$rc $((SECONDS - s)) s: $(grep -E '^test result' "$O/san_${tool}_$name.log" | tail -1) | $(grep -E '^========= (ERROR SUMMARY|RACECHECK SUMMARY)' "$O/san_${tool}_$name.log" | tr '\n' ' ')"
  grep -E '^========= (Invalid|Error|.*hazard)' -A3 "$O/san_${tool}_$name.log" | head -8
}
san memcheck gemm-e4m3 ferrocm-gemm--gemm-test e4m3_scaled_into_every_output_type e5m2_and_column_major_output ragged_shapes_bf16_to_f32
san memcheck blas-gemm ferrocm-blas--level23-test gemm_cases
san memcheck rand-poisson ferrocm-rand--curand_host_poisson-test sobol32_inverse_cdf generator_legacy_poisson
echo "done at $SECONDS s"
(cd "$O" && tar czf logs.tgz *.log 2>/dev/null && rm -f *.log)
