#!/usr/bin/env bash
# First GPU call of the next session (written 2026-11-24 for work that has run on CPU devices
# only): the cross-process device engine and stream memory operations (ipcdev.sh), kernel
# tracing of raw PTX kernels (ktrace.sh), the HIP corpus with the macro-generated vector types
# (vector_types.hip), then the rest of the staged suite in a time box. Staging, here:
#   ../shared/gpu/pack --bins --workspace
#   bash crates/prof/gpu/ktrace_stage.sh                      # .gpu/hip: ptx_trace_bench
#   scripts/hip-corpus.sh build target/release/hipcc .gpu/hipc
#   cp scripts/gpu-runs/next-r1.sh scripts/gpu-runs/suite.sh .gpu/
# then `run` with carry [".gpu"] and command "bash .gpu/next-r1.sh". Files under $OUT come back.
set -u
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
export PATH=$PWD/.gpu/stage/bin:$PATH RUST_BACKTRACE=1
ROOT_OUT=$OUT
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "### ipcdev ($SECONDS s)"; mkdir -p $ROOT_OUT/ipcdev; OUT=$ROOT_OUT/ipcdev timeout 120 bash crates/ccl/gpu/ipcdev.sh 2>&1 | tail -40
echo "### ktrace ($SECONDS s)"; mkdir -p $ROOT_OUT/ktrace; OUT=$ROOT_OUT/ktrace timeout 130 bash crates/prof/gpu/ktrace.sh 2>&1 | tail -40
echo "### hip corpus ($SECONDS s)"; timeout 90 bash .gpu/hipc/hip-corpus.sh run .gpu/hipc 2>&1 | tail -8
echo "### suite ($SECONDS s)"; export FERROCM_REQUIRE_GPU=1; s=$SECONDS
bash .gpu/suite.sh $((540 - SECONDS)) 45 2>&1 | tail -50; echo "suite took $((SECONDS - s)) s"
echo "done at $SECONDS s"
