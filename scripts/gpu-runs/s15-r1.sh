#!/usr/bin/env bash
# Lead, 2026-12-07 (fifteenth session), call 1. Staged: branch fft-blocks 2ed277f (main
# c4e5054 + the last Stockham pass's input in unpadded blocks), `pack --bins -p ferrocm-fft -p
# ferrocm-cli`. `.gpu/prev` = main c4e5054. `.gpu/tfa|tfb|tfc` = main with ThreeFry's rotations
# split differently between the ALU pipe (funnel shifts) and the FMA pipe (products): rounds on
# the FMA pipe, 32-bit variants / 64-bit variants: main r%2==1 / all; tfa r%3==1 / r%3!=0;
# tfb r%5 in {1,3} / r%4!=0; tfc r%4==1 / r%2==1.
# 1. FFT A/B main vs fft-blocks (1000 x 16384, and 4096 x 4096 as a control), three rounds.
# 2. RAND A/B of the four ThreeFry bits rows, two rounds, against the copy.
# 3. ncu (full set) of the 1000-point kernel (fft-blocks): wavefronts per shared request
#    against the executor's model (3.00 / 2.15).  4. GPU tests and memcheck of fft-blocks.
set -u
source scripts/gpu-runs/lib.sh
start s15r1
ab 3 20 prev new -- "c2c f32 1000 x 16384" "c2c f32 4096 x 4096"
abr 2 prev tfa tfb tfc -- threefry2x32 threefry4x32 threefry2x64 threefry4x64
f="$L/ncu-1000-new.txt"
timeout 50 ncu --launch-count 1 -k regex:fft_block --set full --print-details all $NEW bench fft --case "c2c f32 1000 x 16384" --reps 1 --vendor none >"$f" 2>&1
echo "### ncu 1000 (new) rc=$?"
grep -E "Duration|Registers Per|way bank|Shared (Load|Store)|Stall (Not|MIO|Short)|Issue Slots Busy|Executed Ipc A" "$f" | cut -c1-120 | head -24
t mixed 40 'ferrocm-fft--fft-test' c2c::mixed_radices::cuda --exact
t layouts 70 'ferrocm-fft--fft-test' layouts:: --skip cpu
san mem-1000 20 memcheck $NEW bench fft --case "c2c f32 1000 x 16384" --reps 1 --vendor none
(( SECONDS < 400 )) && t sampled64 60 'ferrocm-fft--fft-test' c2c::sampled_lengths_f64::cuda --exact
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
