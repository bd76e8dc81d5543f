#!/usr/bin/env bash
# ferrocm-ccl on one GPU, in one command: the GPU tests (ranks sharing the GPU in one process and
# in several), then `ferrocm bench ccl` and NCCL (CuPy's raw API, one rank: NCCL refuses two ranks
# on one GPU) on the same sizes. Staged as .gpu-ccl/ (stage.tar.xz from ../../shared/gpu/pack -p ferrocm-ccl, the release
# ferrocm binary, scripts/vendor_baselines.py) and run from the repository root: bash .gpu-ccl/gpu-run.sh
set -u
D=.gpu-ccl
mkdir -p $D/stage && tar -C $D/stage -xJf $D/stage.tar.xz
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/ccl-out}; mkdir -p "$OUT"
T=$D/stage/tests
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
summ() { grep -E "^test result|panicked|FAILED|failures:|^---- " | head -30; }
echo "=== gpu tests (one process, ranks sharing the GPU)"
s=$SECONDS; timeout 45 $T/*--gpu-test --test-threads=4 >$OUT/gpu_tests.log 2>&1; echo "rc=$? $((SECONDS-s)) s"; summ <$OUT/gpu_tests.log
echo "=== multiprocess tests on the GPU (2 and 4 processes: shm, tcp, ucx)"
s=$SECONDS; timeout 20 $T/*--multiprocess-test gpu_ >$OUT/mp_tests.log 2>&1; echo "rc=$? $((SECONDS-s)) s"; grep -E "^test |skipping" $OUT/mp_tests.log | head; summ <$OUT/mp_tests.log
B=$D/ferrocm
run() { echo "\$ ferrocm bench ccl $*"; timeout 15 $B bench ccl "$@" 2>&1 | tee -a $OUT/bench.log | grep -vE '^#  Rank|^#$'; }
run all_reduce -b 8 -e 64M -f 8 -g 1
run all_reduce -b 8 -e 64M -f 8 -g 2
run all_gather -b 1K -e 64M -f 64 -g 2
run reduce_scatter -b 1K -e 64M -f 64 -g 2
run broadcast -b 1K -e 64M -f 64 -g 2
echo "\$ vendor_baselines.py nccl all_reduce -b 8 -e 64M -f 8 -g 1 --via cupy"
timeout 25 python3 $D/vendor_baselines.py nccl all_reduce -b 8 -e 64M -f 8 -g 1 --via cupy >$OUT/nccl.json 2>$OUT/nccl.log; echo "rc=$?"
grep -vE '^#  Rank' $OUT/nccl.log | tail -15
