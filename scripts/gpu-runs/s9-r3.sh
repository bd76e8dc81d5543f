#!/usr/bin/env bash
# Lead, 2026-11-25 (ninth session), call 3: the fftcol and dmma merges on the H100.
# 1. crates/fft/gpu/fftcol.sh: the 16-byte Col-phase tests and `ferrocm bench fft` beside cuFFT.
# 2. NCU=1 crates/blas/gpu/dgemm.sh: the DMMA16 tests, ncu on one dgemm launch, dgemm rows beside
#    cuBLAS.
# Staged with `../shared/gpu/pack --bins -p ferrocm-kernel -p ferrocm-blas -p ferrocm-fft -p ferrocm-cli`.
set -u
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
O=${OUT:-/tmp/s9r3}; mkdir -p "$O/fft" "$O/dgemm"
echo "### fftcol.sh (at $SECONDS s)"
OUT=$O/fft timeout 330 bash crates/fft/gpu/fftcol.sh
echo "### dgemm.sh (at $SECONDS s)"
OUT=$O/dgemm NCU=1 timeout 240 bash crates/blas/gpu/dgemm.sh
echo "done at $SECONDS s"
(cd "$O" && tar czf logs.tgz fft dgemm 2>/dev/null && rm -rf fft dgemm)
