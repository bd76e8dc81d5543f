#!/usr/bin/env bash
# Lead, 2026-12-07 (fifteenth session): s15-r1.sh cut to the device budget the failed starts
# left (about 250 s). Same stage and builds as s15-r1.sh. 1. FFT A/B main vs fft-unit, two
# rounds.  2. fft-unit's GPU tests (the PTX back end's address split and the FFT changes run on
# a GPU for the first time) and memcheck.  3. ThreeFry A/B: main, tfa, tfc, two rounds.
set -u
source scripts/gpu-runs/lib.sh
start s15r2
ab 2 20 prev unit -- "c2c f32 1000 x 16384" "c2c f32 4096 x 4096" "c2c f32 1D 2^24"
U=$(build_bin unit)
stage_fft_test unit
t mixed 40 'unit-fft-test' c2c::mixed_radices::cuda --exact
t layouts 70 'unit-fft-test' layouts:: --skip cpu
san mem-1000 20 memcheck $U bench fft --case "c2c f32 1000 x 16384" --reps 1 --vendor none
abr 2 prev tfa tfc -- threefry2x32 threefry2x64 threefry4x64
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
