#!/usr/bin/env bash
# Lead, 2026-12-07 (seventeenth session), call 2, about 250 s. Stage as s17-r1 (bin/ferrocm of
# main 957258e) plus `.gpu/r11` = main 35628e5 (rand10 merged; MTGP32's doubles, normals,
# log-normals and Poisson): its ferrocm and `rand` test binary; `.gpu/p16` as in s17-r1.
# 1. r11's rand tests on the GPU (mtgp32, threefry, rocrand), cuRAND's GPU MTGP32 against its
#    host generator on the new data's calls (the tool's --device), memcheck on ThreeFry4x64
#    (s17-r1's used a count the bench refuses) and on the MTGP32 normal fill.
# 2. bench rand MTGP32 uniform / normal / bits beside cuRAND (normal is new).
# 3. s17-r1 measured dgemm-p16's W32 4-8% slower than main although its slab loop issues 127
#    SASS instructions per warp against 154: ncu on one W32 launch of each build (NN and TN
#    4096^3), the sections that say where the warps wait and what the memory system does.
set -u
source scripts/gpu-runs/lib.sh
start s17r2
P16=$(build_bin p16); R11=$(build_bin r11)
[[ -x $T/r11-rand-test ]] || { xz -dc .gpu/r11/rand-test.xz >"$T/r11-rand-test" && chmod +x "$T/r11-rand-test"; }
t r11-rand 120 r11-rand-test mtgp32 threefry rocrand
rand_gpu_checks $R11 60
V="python3 scripts/vendor_baselines.py"
for d in uniform normal bits; do
  timeout 30 $R11 bench rand --generator mtgp32 --distribution $d --reps 5 --json 2>&1 | grep -m1 GSample
  timeout 30 $V curand --generator mtgp32 --distribution $d 2>&1 | grep -m1 GSample
done | tee "$L/mtgp-table.txt" | cut -c1-160
S=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables
   --section WarpStateStats --section SchedulerStats --section InstructionStats)
for ta in N T; do
  for v in new p16; do
    B=$NEW; [[ $v == p16 ]] && B=$P16
    timeout 90 ncu -k regex:gemm_dmma16 -c 1 "${S[@]}" $B bench blas -r f64_r -m 4096 -n 4096 -k 4096 \
      --transposeA $ta --reps 1 --engine kernels --family dmma16-w32 >"$L/ncu-$v-$ta.txt" 2>&1
    echo "=== ncu $v $ta rc=$? at $SECONDS s"
    grep -E "^ +(Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Hit Rate|L2 Hit Rate|Mem Busy|Max Bandwidth|Issue Slots Busy|Warp Cycles Per Issued Instruction|Eligible Warps Per Scheduler|Executed Instructions)" "$L/ncu-$v-$ta.txt" | head -14
    grep -iE "bank conflict|Stall" "$L/ncu-$v-$ta.txt" | cut -c1-170 | head -10
  done
done
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
