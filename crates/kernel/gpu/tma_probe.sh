#!/usr/bin/env bash
# Runs tma_probe.cu's cases, each in its own process (a trap poisons the context).
# usage: bash tma_probe.sh   (writes $OUT/probe.txt when OUT is set)
D=$(cd "$(dirname "$0")" && pwd)
R=${OUT:-/tmp}/probe.txt
nvcc -arch=sm_90a -O2 -o /tmp/tma_probe "$D/tma_probe.cu" -lcuda >/tmp/nvcc.log 2>&1 || { cat /tmp/nvcc.log; exit 1; }
p() { local name=$1; shift; printf '%-16s %s\n' "$name" "$(timeout 10 /tmp/tma_probe "$@" 2>&1 | tail -1)" | tee -a "$R"; }
# name           mode  es dims        box        estr      swz coords     smem_off
# inner coordinate alignment, no swizzle
p L_n_0_0        load  2 104,37      64,16      1,1       0   0,0        0
p L_n_5_3        load  2 104,37      64,16      1,1       0   5,3        0
p L_n_4_3        load  2 104,37      64,16      1,1       0   4,3        0
p L_n_8_3        load  2 104,37      64,16      1,1       0   8,3        0
p L_n_b8_1_3     load  2 104,37      8,16       1,1       0   1,3        0
p L_n_m3_0       load  2 104,37      64,16      1,1       0   -3,0       0
p L_1d_150       load  2 200         64         1         0   150        0
p L_1d_152       load  2 200         64         1         0   152        0
p L_1d_150_in    load  2 256         64         1         0   150        0
p L_u8_4         load  1 64,8        32,8       1,1       0   4,0        0
p L_u32_2        load  4 64,8        16,8       1,1       0   2,0        0
# with swizzle
p L_128_5_3      load  2 104,37      64,16      1,1       3   5,3        0
p L_128_8_3      load  2 104,37      64,16      1,1       3   8,3        0
p L_128_40_30    load  2 104,37      64,16      1,1       3   40,30      0
p L_32_b16_1_0   load  2 64,16       16,8       1,1       1   1,0        0
# inner box row shorter than the swizzle span
p L_32_b16       load  2 64,16       16,8       1,1       1   0,0        0
p L_32_b8        load  2 64,16       8,8        1,1       1   0,0        0
p L_64_b16       load  2 64,16       16,8       1,1       2   0,0        0
p L_128_b32      load  2 64,16       32,8       1,1       3   0,0        0
p L_128_b8       load  2 64,16       8,16       1,1       3   0,0        0
p L_5d_test      load  2 16,3,3,3,3  8,2,2,2,2  1,1,1,1,1 1   8,2,0,1,2  0
p L_32_b8_es2    load  2 64,16       8,8        1,2       1   0,0        0
# shared-memory destination alignment
p L_n_off16      load  2 64,16       64,4       1,1       0   0,0        16
p L_n_off128     load  2 64,16       64,4       1,1       0   0,0        128
p L_128_off128   load  2 64,16       64,8       1,1       3   0,0        128
p L_128_off512   load  2 64,16       64,8       1,1       3   0,0        512
# stores: the three cases of tma_stores_write_the_box_inside_the_tensor_only, then isolations
p S_128_48_m2    store 2 88,19       64,8       1,1       3   48,-2      0
p S_n_8_17       store 2 88,19       16,4       1,1       0   8,17       0
p S_32_0_0       store 2 88,19       16,8       1,1       1   0,0        0
p S_128_0_0      store 2 88,19       64,8       1,1       3   0,0        0
p S_128_48_0     store 2 88,19       64,8       1,1       3   48,0       0
p S_128_0_m2     store 2 88,19       64,8       1,1       3   0,-2       0
p S_128_16_0     store 2 88,19       64,8       1,1       3   16,0       0
p S_n_8_0        store 2 88,19       16,4       1,1       0   8,0        0
p S_n_0_17       store 2 88,19       16,4       1,1       0   0,17       0
p S_n_8_m1       store 2 88,19       16,4       1,1       0   8,-1       0
p S_n_5_0        store 2 88,19       16,4       1,1       0   5,0        0
p S_32_b8        store 2 88,19       8,8        1,1       1   0,0        0
p S_n_off16      store 2 88,19       16,4       1,1       0   0,0        16
