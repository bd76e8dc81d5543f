#!/usr/bin/env bash
# Lead, 2026-11-25 (ninth session), call 4: the FFT accuracy suites on the H100, one process per
# module in parallel (the whole binary in one process ran past 570 s in the eighth session), and
# the merged BLAS binary's dgemm-using modules.
# Staged as call 3.
set -u
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1
O=${OUT:-/tmp/s9r4}; mkdir -p "$O"
T=.gpu/stage/tests
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$O/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s $(grep -E '^test result' "$O/$name.log" | tail -1)"
  grep -E "panicked|FAILED|^---- " -A2 "$O/$name.log" | head -12
}
t fft_c2c 560 ferrocm-fft--fft-test c2c:: &
t fft_real 560 ferrocm-fft--fft-test real:: &
t fft_layouts 560 ferrocm-fft--fft-test layouts:: &
t fft_reference 560 ferrocm-fft--fft-test reference:: &
t fft_lib 120 ferrocm-fft--ferrocm_fft &
t blas_l3 300 ferrocm-blas--blas-test l3:: &
t blas_batched 300 ferrocm-blas--blas-test batched:: &
wait
echo "done at $SECONDS s"
(cd "$O" && tar czf logs.tgz *.log 2>/dev/null && rm -f *.log)
