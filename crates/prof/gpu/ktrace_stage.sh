#!/usr/bin/env bash
# Builds ktrace.sh's HIP program (ptx_trace_bench.hip) where clang 19 and libclc are (this
# machine; the GPU machine has neither), after `pack --bins ...` staged .gpu/: writes .gpu/hip/
# with the program and the release libferrocm_hip.so it runs against (ktrace.sh puts that
# directory on LD_LIBRARY_PATH, ahead of the program's build-time runpath).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
cargo build --release -p ferrocm-hip -p ferrocm-hipcc
mkdir -p .gpu/hip
cp target/release/libferrocm_hip.so .gpu/hip/
FERROCM_HIP_LIB=$PWD/target/release target/release/hipcc -O2 crates/prof/gpu/ptx_trace_bench.hip \
  -o .gpu/hip/ptx_trace_bench
echo "staged: $(ls .gpu/hip)"
