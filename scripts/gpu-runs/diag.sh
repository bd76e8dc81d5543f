# Lead, 2026-11-24: diagnosis of the memop hang and the kernel trace failures (after next-r1.sh).
set -u
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
T=.gpu/stage/tests; export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1
D=/tmp/d; mkdir -p $D
timeout 40 $T/ferrocm-kernel--trace-test --test-threads=1 > $D/ktrace.log 2>&1; echo "ktrace rc=$?"
grep -E "panicked|outside|^test " $D/ktrace.log | head -30
for t in $($T/ferrocm-runtime--memop-test --list 2>/dev/null | grep ': test' | sed 's/: test//'); do
  s=$SECONDS; timeout 25 $T/ferrocm-runtime--memop-test --exact $t --nocapture > $D/memop-${t//:/_}.log 2>&1; echo "$t rc=$? $((SECONDS-s)) s"
done
CUDA_DEVICE_MAX_CONNECTIONS=32 timeout 25 $T/ferrocm-runtime--memop-test every_comparison > $D/memop-conn32.log 2>&1; echo "conn32 rc=$?"; tail -3 $D/memop-conn32.log
tar czf $OUT/d.tgz -C /tmp d
