#!/usr/bin/env bash
# Regenerates the PTX the front end's tests embed, with ferrocm's headers and clang-19.
set -euo pipefail
cd "$(dirname "$0")"
INC=../../../hip/include
for f in *.hip; do
  clang-19 -x cuda --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -O3 --cuda-device-only -S \
    -Xclang -target-sdk-version=12.0 -Xclang -target-feature -Xclang +ptx80 \
    -ffp-contract=fast-honor-pragmas -Xclang -mlink-builtin-bitcode -Xclang /usr/lib/clc/nvptx64--nvidiacl.bc -Wno-linker-warnings \
    -isystem "$INC" -include hip/hip_runtime.h "$f" -o "${f%.hip}.ptx"
done
