#!/usr/bin/env bash
# Diagnostic + measurement run 1 (lead, H100): the tests that failed on the two-H200 run, the
# runtime bench, the HIP corpus, the Hopper/GEMM suites, FFT vs cuFFT.
set -u
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
export PATH=$PWD/.gpu/stage/bin:$PATH FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1
T=.gpu/stage/tests
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "### misuse suites"
for t in $T/ferrocm-blas--misuse-test $T/ferrocm-fft--misuse-test $T/ferrocm-ccl--misuse-test; do
  s=$SECONDS; timeout 60 $t > $OUT/$(basename $t).log 2>&1; echo "$(basename $t): rc=$? $((SECONDS-s))s $(grep -E '^test result' $OUT/$(basename $t).log | tail -1)"
  grep -E "panicked" -A6 $OUT/$(basename $t).log | head -30
done
echo "### bench runtime"; timeout 90 ferrocm bench runtime > $OUT/bench_runtime.txt 2>&1; cat $OUT/bench_runtime.txt
echo "### hip corpus"; timeout 100 bash .gpu/hip/hip-corpus.sh run .gpu/hip > $OUT/hip.txt 2>&1; tail -50 $OUT/hip.txt
echo "### hopper, gemm suites"
for t in $T/ferrocm-kernel--hopper-test $T/ferrocm-gemm--gemm-test $T/ferrocm-gemm--ferrocm_gemm; do
  s=$SECONDS; timeout 80 $t > $OUT/$(basename $t).log 2>&1; echo "$(basename $t): rc=$? $((SECONDS-s))s $(grep -E '^test result' $OUT/$(basename $t).log | tail -1)"
  grep -E "^---- |panicked" -A3 $OUT/$(basename $t).log | head -12
done
echo "### bench fft (cuFFT in the same command)"
timeout 120 ferrocm bench fft --reps 10 --vendor scripts/vendor_baselines.py > $OUT/bench_fft.txt 2> $OUT/bench_fft.err; echo "rc=$?"; tail -3 $OUT/bench_fft.err; tail -40 $OUT/bench_fft.txt
