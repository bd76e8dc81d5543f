#!/usr/bin/env bash
# Lead, 2026-11-24: r3a: check the day's fixes (runtime trace durations, asynchrony test, fft C2R,
# Python suites) and split the Python call overhead (staged: pack -p ferrocm-runtime -p
# ferrocm-fft, the wheel and pytest in .gpu/py).
set -u
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
T=.gpu/stage/tests; export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=0
for i in 1 2 3; do timeout 30 $T/ferrocm-runtime--trace-test 2>&1 | grep -E -A2 "panicked|test result" | head -8; done
timeout 30 $T/ferrocm-runtime--trace-test --test-threads=1 kernel_durations 2>&1 | grep -E -A2 "panicked|test result" | head -8
timeout 40 $T/ferrocm-runtime--conformance-test 2>&1 | grep -E -A2 "panicked|test result" | head -8
s=$SECONDS; timeout 120 $T/ferrocm-fft--real-test 2>&1 | grep -E -A3 "panicked|test result" | head -10; echo "fft real $((SECONDS-s)) s"
ROOT_OUT=$OUT; OUT=$ROOT_OUT/py; mkdir -p $OUT
source crates/python/gpu/env.sh
run interop 40 "$root/$tests/test_interop_gpu.py"
run fft 90 "$root/$tests/test_fft.py" -k cuda
run blas 90 "$root/$tests/test_blas.py" -k cuda
timeout 60 "$py" "$root/crates/python/bench/overhead_parts.py" 2>&1 | tail -20
timeout 30 "$py" "$root/crates/python/bench/bench_overhead.py" 2>&1 | grep -v '^{' | tail -6
cd $ROOT_OUT && tar czf /tmp/all.tgz . && rm -rf ./* && mv /tmp/all.tgz .
