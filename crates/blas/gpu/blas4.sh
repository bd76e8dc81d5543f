#!/usr/bin/env bash
# The blas4 kernels on the GPU in one command (about 100 s; ncu adds about 60 s with NCU=1):
# the warp-tiled sgemm (GemmFamily::WarpTiled: 128 x 128 tiles, 64 x 32 per warp, cp.async-fed
# double-buffered slabs, 127 registers for two blocks per SM), the wide FP64 tensor-core dgemm
# (GemmFamily::Dmma, 128 x 128 tiles of 16 warps, 16-deep slabs, dynamic shared memory) and
# nrm2's 16-byte unit-stride path. Staged with `../shared/gpu/pack --bins --workspace` (or at
# least `--bins -p ferrocm-blas -p ferrocm-cli`): test binaries in .gpu/stage/tests, the
# release `ferrocm` in .gpu/stage/bin. Run from the repository root on the GPU machine:
#   bash crates/blas/gpu/blas4.sh          (logs for the lead land in $OUT)
#   NCU=1 bash crates/blas/gpu/blas4.sh    (also ncu on one launch of each new GEMM kernel)
# Needs python3 with torch (CUDA) and numpy for the cuBLAS side (scripts/vendor_baselines.py),
# and ncu on PATH for NCU=1.
# 1. Tests with FERROCM_REQUIRE_GPU=1: level1 (nrm2's 16-byte path and its mixed-magnitude rows),
#    level23 (the gemm table: ld4 rows reach the warp-tiled kernel, the m = 1536 d row the wide
#    one on the GPU) against the double-double reference on every target, and misuse.
# 2. `ferrocm bench blas` rows, each followed by the same request on cuBLAS (torch) in this
#    one process (crates/blas/gpu/table.py --rows blas4); a ratio table last.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/blas4-out}; mkdir -p "$OUT"
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
T=.gpu/stage/tests
F=.gpu/stage/bin/ferrocm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
results=()
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$OUT/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s"
  grep -E "^test result|panicked|FAILED|^---- " "$OUT/$name.log" | head -8
  results+=("$name rc=$rc")
}
t blas-level1 20 'ferrocm-blas--level1-test'
t blas-level23 75 'ferrocm-blas--level23-test'
t blas-misuse 15 'ferrocm-blas--misuse-test'
printf 'tests: %s\n' "${results[@]}"
if [[ "${NCU:-0}" == 1 ]] && command -v ncu >/dev/null; then
  for args in "-r f32_r -m 8192 -n 8192 -k 8192" "-r f64_r -m 8192 -n 8192 -k 8192"; do
    echo "### ncu: bench blas $args"
    timeout 90 ncu --launch-skip 2 --launch-count 1 -k regex:gemm --section SpeedOfLight --section Occupancy \
      --section WarpStateStats --section LaunchStats $F bench blas $args --reps 3 --engine kernels 2>&1 \
      | grep -E "gemm|Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Warp Cycles|Block Limit|Dynamic Shared|Static Shared|Local" \
      | head -30 | tee -a "$OUT/ncu.txt"
  done
fi
python3 crates/blas/gpu/table.py --ferrocm "$F" --rows blas4 2>&1 | tee "$OUT/bench.txt" \
  | grep -v '^{"row"'
