#!/usr/bin/env bash
# Final H100 run (lead): kernel tracing overhead (ktrace.sh), the Python package on the GPU
# (pybind.sh), every staged test binary in a time box, then memcheck/racecheck on the runtime,
# kernel and FFT suites. Files under $OUT come back.
set -u
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
export PATH=$PWD/.gpu/stage/bin:$PATH RUST_BACKTRACE=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "### ktrace ($SECONDS s)"; timeout 150 bash crates/prof/gpu/ktrace.sh 2>&1 | tail -40
echo "### pybind ($SECONDS s)"; mkdir -p $OUT/py; OUT=$OUT/py timeout 110 bash crates/python/gpu/pybind.sh 2>&1 | tail -30
echo "### suite ($SECONDS s)"; export FERROCM_REQUIRE_GPU=1; s=$SECONDS
bash .gpu/suite.sh 190 45 2>&1 | tail -60; echo "suite took $((SECONDS - s)) s"
echo "### sanitizers ($SECONDS s)"
T=.gpu/stage/tests
for tool in memcheck racecheck; do
  for t in $T/ferrocm-runtime--reliability-test $T/ferrocm-kernel--conformance-test $T/ferrocm-runtime--conformance-test; do
    (( SECONDS > 560 )) && { echo "$tool $(basename $t): not run (time)"; continue; }
    [[ $tool == racecheck && $t == *runtime--conformance* ]] && continue
    echo "$tool $(basename $t): $(timeout 55 compute-sanitizer --tool $tool --print-limit 5 --report-api-errors no $t 2>&1 | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^test result' | tr '\n' ' ') rc=${PIPESTATUS[0]}"
  done
done
echo "done at $SECONDS s"
