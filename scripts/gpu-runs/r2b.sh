#!/usr/bin/env bash
# Lead, 2026-11-24: r2b: the day's fixes first (memop on the GPU, kernel trace under concurrent
# tests x5, hipify timing, fft layouts untimeboxed), then next-r2.sh with shorter caps; run as
# "bash .gpu/r2b.sh ferrocm-runtime--conformance-test" (staged: pack -p ferrocm-runtime -p
# ferrocm-kernel -p ferrocm-hipify -p ferrocm-smi -p ferrocm-fft, the wheel and pytest in .gpu/py).
set -u
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
T=.gpu/stage/tests; export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1
echo "### fixes"
s=$SECONDS; timeout 40 $T/ferrocm-runtime--memop-test 2>&1 | grep -E "^test |panicked|test result" | head -12; echo "memop $((SECONDS-s)) s"
for i in 1 2 3 4 5; do timeout 30 $T/ferrocm-kernel--trace-test 2>&1 | grep -E "panicked|outside|test result" | head -4; done
timeout 30 $T/ferrocm-runtime--trace-test 2>&1 | grep -E "panicked|test result" | head -4
timeout 30 $T/ferrocm-hipify--translate-test 2>&1 | grep -E "panicked|test result" | head -4
s=$SECONDS; timeout 100 $T/ferrocm-fft--layouts-test 2>&1 | grep -E "panicked|test result|multi_dim" | head -6; echo "fft layouts $((SECONDS-s)) s"
FROM=${1:-}

export PATH=$PWD/.gpu/stage/bin:$PATH RUST_BACKTRACE=1
ROOT_OUT=$OUT
echo "### pybind ($SECONDS s)"; mkdir -p $ROOT_OUT/py; OUT=$ROOT_OUT/py timeout 110 bash crates/python/gpu/pybind.sh 2>&1 | tail -25
echo "### pyleft ($SECONDS s)"; mkdir -p $ROOT_OUT/pyleft; OUT=$ROOT_OUT/pyleft timeout 80 bash crates/python/gpu/pyleft.sh 2>&1 | tail -20
echo "### sanitizers ($SECONDS s)"
export FERROCM_REQUIRE_GPU=1
T=.gpu/stage/tests
for tool in memcheck racecheck; do
  for t in $T/ferrocm-runtime--memop-test $T/ferrocm-runtime--trace-test $T/ferrocm-runtime--reliability-test $T/ferrocm-kernel--conformance-test; do
    (( SECONDS > 330 )) && { echo "$tool $(basename $t): not run (time)"; continue; }
    echo "$tool $(basename $t): $(FERROCM_SANITIZE=$tool timeout 55 compute-sanitizer --tool $tool --print-limit 5 --report-api-errors no $t 2>&1 | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^test result' | tr '\n' ' ') rc=${PIPESTATUS[0]}"
  done
done
echo "### suite from ${FROM:-the start} ($SECONDS s)"; s=$SECONDS
bash .gpu/suite.sh $((540 - SECONDS)) 45 $FROM 2>&1 | tail -40; echo "suite took $((SECONDS - s)) s"
echo "done at $SECONDS s"
cd $ROOT_OUT && tar czf /tmp/all.tgz . && rm -rf ./* && mv /tmp/all.tgz . ; ls $ROOT_OUT
