#!/usr/bin/env bash
# Lead, 2026-11-24 (sixth session), call 3a: the helpers' dgemm.sh (DMMA.16x8x16 dgemm, NCU=1)
# and gemm5.sh (TMA-store epilogue), then the traced launch overhead after 4e3ee9e (no clock
# read, lock-free slot) as five alternating pairs of `bench runtime`. Staged: pack --bins
# --workspace at the merges; traced_ratio.py copied into .gpu/.
set -u
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
export FERROCM_REQUIRE_GPU=1 PATH="$PWD/.gpu/stage/bin:$PATH"
O=${OUT:-/tmp/s6r3a}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
echo "### dgemm.sh (at $SECONDS s)"
OUT=$O/dgemm NCU=1 timeout 200 bash crates/blas/gpu/dgemm.sh 2>&1 | tail -45
echo "### gemm5.sh (at $SECONDS s)"
OUT=$O/gemm5 timeout 170 bash crates/gemm/gpu/gemm5.sh 2>&1 | tail -45
echo "### traced launch overhead (at $SECONDS s)"
RT="bench runtime --json --reps 7 --copy-mib 16 --d2d-mib 16 --allocs 200"
for i in 1 2 3 4 5; do
  timeout 40 ferrocm $RT > "$O/rt_plain_$i.json" 2>>"$O/err.log"
  timeout 40 ferrocm prof --kernel-trace -d /tmp/s6kt$i -- ferrocm $RT > "$O/rt_traced_$i.json" 2>>"$O/err.log"
done
python3 .gpu/traced_ratio.py "$O"
echo "done at $SECONDS s"
(cd "$O" && tar czf ../s6r3a-logs.tgz . && mv ../s6r3a-logs.tgz . && find . -mindepth 1 ! -name s6r3a-logs.tgz -delete)
