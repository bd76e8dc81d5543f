#!/usr/bin/env bash
# Lead, 2026-11-24 (sixth session), call 3b: the helpers' rand6.sh (ThreeFry rounds and 4x64
# stores, LFSR113 bits) and fft3.sh (r2c unfold fused into the four-step, 2D r2c row pairs).
# Staged as call 3a.
set -u
[[ -d .gpu/stage/tests ]] || { cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..; }
export FERROCM_REQUIRE_GPU=1 PATH="$PWD/.gpu/stage/bin:$PATH"
O=${OUT:-/tmp/s6r3b}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
echo "### rand6.sh (at $SECONDS s)"
OUT=$O/rand6 timeout 150 bash crates/rand/gpu/rand6.sh 2>&1 | tail -40
echo "### fft3.sh (at $SECONDS s)"
OUT=$O/fft3 timeout 170 bash crates/fft/gpu/fft3.sh 2>&1 | tail -40
echo "done at $SECONDS s"
(cd "$O" && tar czf ../s6r3b-logs.tgz . && mv ../s6r3b-logs.tgz . && find . -mindepth 1 ! -name s6r3b-logs.tgz -delete)
