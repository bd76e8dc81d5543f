#!/usr/bin/env bash
# Lead, 2026-11-24: r3b: the helpers' GPU checks, the runtime fixes, the Python overhead under the tracer (staged: pack --bins --workspace, the wheel and pytest in .gpu/py).
# r3b: the helpers' GPU checks (ccl2, rand4, blas3), the runtime fixes, and the Python call
# overhead under the tracer.
set -u
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
export PATH=$PWD/.gpu/stage/bin:$PATH RUST_BACKTRACE=1
ROOT_OUT=$OUT; T=.gpu/stage/tests
echo "### ccl2 ($SECONDS s)"; mkdir -p $ROOT_OUT/ccl; OUT=$ROOT_OUT/ccl timeout 100 bash crates/ccl/gpu/ccl2.sh 2>&1 | tail -32
echo "### rand4 ($SECONDS s)"; mkdir -p $ROOT_OUT/rand; OUT=$ROOT_OUT/rand timeout 100 bash crates/rand/gpu/rand4.sh 2>&1 | tail -25
echo "### blas3 ($SECONDS s)"; mkdir -p $ROOT_OUT/blas; OUT=$ROOT_OUT/blas timeout 140 bash crates/blas/gpu/blas3.sh 2>&1 | tail -25
echo "### runtime ($SECONDS s)"
export FERROCM_REQUIRE_GPU=1
for i in 1 2; do timeout 30 $T/ferrocm-runtime--trace-test 2>&1 | grep -E -A2 "panicked|test result" | head -6; done
timeout 40 $T/ferrocm-runtime--conformance-test 2>&1 | grep -E -A2 "panicked|test result" | head -6
timeout 40 $T/ferrocm-runtime--memop-test 2>&1 | grep -E -A2 "panicked|test result" | head -6
echo "### python overhead under the tracer ($SECONDS s)"
(
  OUT=$ROOT_OUT/py; mkdir -p $OUT
  source crates/python/gpu/env.sh >/dev/null
  timeout 90 ferrocm prof --kernel-trace --api-trace --stats -d /tmp/pp -- "$py" "$root/crates/python/bench/overhead_parts.py" 2>&1 | tail -45
  cp -r /tmp/pp $OUT/ 2>/dev/null
  timeout 30 ferrocm bench rand --generator philox --distribution uniform --count 1024 --reps 2000 2>&1 | tail -4
)
echo "done at $SECONDS s"
cd $ROOT_OUT && tar czf /tmp/all.tgz . && rm -rf ./* && mv /tmp/all.tgz .
