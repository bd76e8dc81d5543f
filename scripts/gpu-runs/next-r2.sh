#!/usr/bin/env bash
# Second GPU call of the next session: the Python package on the GPU (pybind.sh: interop with
# torch and CuPy, the call-overhead bench; pyleft.sh: fft out=, broadcast matmul, ccl groups,
# their bench against CuPy), memcheck and racecheck on the suites that changed (stream memory
# operations, kernel tracing, the runtime), then the suite from where r1's time box stopped
# (pass its first unrun binary as FROM). Staging as for next-r1.sh plus the wheel:
#   target/py-venv/bin/maturin build --release -m crates/python/Cargo.toml -o .gpu/py
#   pip download pytest --only-binary=:all: --python-version 3.11 -d .gpu/py
#   cp scripts/gpu-runs/next-r2.sh scripts/gpu-runs/suite.sh .gpu/
# then "bash .gpu/next-r2.sh [FROM]".
set -u
FROM=${1:-}
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
export PATH=$PWD/.gpu/stage/bin:$PATH RUST_BACKTRACE=1
ROOT_OUT=$OUT
echo "### pybind ($SECONDS s)"; mkdir -p $ROOT_OUT/py; OUT=$ROOT_OUT/py timeout 110 bash crates/python/gpu/pybind.sh 2>&1 | tail -25
echo "### pyleft ($SECONDS s)"; mkdir -p $ROOT_OUT/pyleft; OUT=$ROOT_OUT/pyleft timeout 80 bash crates/python/gpu/pyleft.sh 2>&1 | tail -20
echo "### sanitizers ($SECONDS s)"
export FERROCM_REQUIRE_GPU=1
T=.gpu/stage/tests
for tool in memcheck racecheck; do
  for t in $T/ferrocm-runtime--memop-test $T/ferrocm-runtime--trace-test $T/ferrocm-runtime--reliability-test $T/ferrocm-kernel--conformance-test; do
    (( SECONDS > 420 )) && { echo "$tool $(basename $t): not run (time)"; continue; }
    echo "$tool $(basename $t): $(FERROCM_SANITIZE=$tool timeout 55 compute-sanitizer --tool $tool --print-limit 5 --report-api-errors no $t 2>&1 | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^test result' | tr '\n' ' ') rc=${PIPESTATUS[0]}"
  done
done
echo "### suite from ${FROM:-the start} ($SECONDS s)"; s=$SECONDS
bash .gpu/suite.sh $((560 - SECONDS)) 45 $FROM 2>&1 | tail -40; echo "suite took $((SECONDS - s)) s"
echo "done at $SECONDS s"
