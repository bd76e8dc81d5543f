#!/usr/bin/env bash
# Second round of tma_probe.cu cases (negative store coordinates in other dimensions, element
# strides in dimension 0), each in its own process. Writes $OUT/probe2.txt when OUT is set.
D=$(cd "$(dirname "$0")" && pwd)
R=${OUT:-/tmp}/probe2.txt
[ -x /tmp/tma_probe ] || nvcc -arch=sm_90a -O2 -o /tmp/tma_probe "$D/tma_probe.cu" -lcuda >/tmp/nvcc.log 2>&1 || { cat /tmp/nvcc.log; exit 1; }
p() { local name=$1; shift; printf '%-16s %s\n' "$name" "$(timeout 10 /tmp/tma_probe "$@" 2>&1 | tail -1)" | tee -a "$R"; }
# name           mode  es dims        box        estr      swz coords     smem_off
p S_n_m8_0       store 2 88,19       16,4       1,1       0   -8,0       0
p S_128_m16_0    store 2 88,19       64,8       1,1       3   -16,0      0
p S_3d_z_m1      store 2 32,4,4      16,2,2     1,1,1     0   0,0,-1     0
p S_3d_ok        store 2 32,4,4      16,2,2     1,1,1     0   16,3,3     0
p S_n_past_end   store 2 88,19       16,4       1,1       0   96,20      0
p L_3d_z_m1      load  2 32,4,4      16,2,2     1,1,1     0   -8,0,-1    0
p L_es0_2_n      load  2 64,8        16,4       2,1       0   0,0        0
p L_es0_2_32     load  2 64,8        16,4       2,1       1   0,0        0
p L_es0_2_128    load  2 64,8        64,4       2,1       3   0,0        0
