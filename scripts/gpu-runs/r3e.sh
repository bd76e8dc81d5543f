#!/usr/bin/env bash
# Lead, 2026-11-24: data for the next session: ncu on the dgemm (Dmma) and sgemm (Simt) kernels,
# and whether the traced launch overhead (1.19x in ktrace.sh) repeats.
set -u
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
F=.gpu/stage/bin/ferrocm
which ncu >/dev/null || echo "no ncu"
for args in "-r f64_r -m 8192 -n 8192 -k 8192" "-r f32_r -m 8192 -n 8192 -k 8192"; do
  echo "### ncu: bench blas $args"
  timeout 150 ncu --launch-skip 2 --launch-count 1 -k regex:gemm --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
    $F bench blas $args --reps 3 --engine kernels 2>&1 | grep -E "gemm|Duration|Throughput|Registers|Shared Memory Config|Achieved Occupancy|Theoretical Occupancy|Stall|Warp Cycles|Block Limit|Dynamic Shared|Static Shared|Waves" | head -40
done
echo "### traced launch overhead, alternating x3"
RT="bench runtime --json --reps 7 --copy-mib 16 --d2d-mib 16 --allocs 200"
for i in 1 2 3; do
  timeout 40 $F $RT 2>/dev/null | grep -E '"empty kernel launch \(batched\)"|"typed #\[kernel\] launch \(batched\)"' | sed 's/^/plain  /'
  timeout 40 $F prof --kernel-trace -d /tmp/kt$i -- $F $RT 2>/dev/null | grep -E '"empty kernel launch \(batched\)"|"typed #\[kernel\] launch \(batched\)"' | sed 's/^/traced /'
done
echo "done at $SECONDS s"
