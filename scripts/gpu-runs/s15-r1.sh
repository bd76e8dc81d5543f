#!/usr/bin/env bash
# Lead, 2026-12-07 (fifteenth session), call 1. Staged: branch fft-blocks 2ed277f (main
# c4e5054 + the last Stockham pass's input in unpadded blocks), `pack --bins -p ferrocm-fft -p
# ferrocm-cli`. `.gpu/prev` = main c4e5054. `.gpu/unit` (with its fft test binary) = branch
# fft-unit: fft-blocks + unit element strides compiled in, one guard per pass's stores, and
# the PTX back end addressing a global index `a + zext(j)` used only as an index as
# `(base + a size) + j size`.
# `.gpu/tfa|tfb|tfc` = main with ThreeFry's rotations split differently between the ALU pipe
# (funnel shifts) and the FMA pipe (products): rounds on the FMA pipe, 32-bit variants /
# 64-bit variants: main r%2==1 / all; tfa r%3==1 / r%3!=0; tfb r%5 in {1,3} / r%4!=0; tfc
# r%4==1 / r%2==1.
# 1. FFT A/B/C (main, fft-blocks, fft-unit), two rounds.  2. RAND A/B of the four ThreeFry
# bits rows, two rounds, against the copy.  3. The FFT table beside cuFFT (unit).
# 4. GPU tests of fft-unit and memcheck.
set -u
source scripts/gpu-runs/lib.sh
start s15r1
ab 2 20 prev new unit -- "c2c f32 1000 x 16384" "c2c f32 4096 x 4096" "c2c f32 1021 x 16384" "c2c f32 1D 2^24"
abr 2 prev tfa tfb tfc -- threefry2x32 threefry2x64 threefry4x64
U=$(build_bin unit)
stage_fft_test unit
vendor_table unit
t mixed 40 'unit-fft-test' c2c::mixed_radices::cuda --exact
t layouts 70 'unit-fft-test' layouts:: --skip cpu
san mem-1000 20 memcheck $U bench fft --case "c2c f32 1000 x 16384" --reps 1 --vendor none
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
