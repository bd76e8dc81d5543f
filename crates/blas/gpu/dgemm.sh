#!/usr/bin/env bash
# Hopper's FP64 tensor-core shape in one command (about 100 s, at most 115 s of tests plus the
# bench rows; ncu adds about 90 s with NCU=1):
# GemmFamily::Dmma16 (`mma.sync.m16n8k16.f64`, SASS DMMA.16x8x16: 128 x 128 tiles of 8 warps,
# 64 x 32 per warp, 16-deep slabs through a 4-stage cp.async ring laid out for 16-byte fragment
# loads (24 LDS.128 per warp and slab), 247 registers, one block per SM), which the planner took
# for real f64 on sm_90+ until the dmma3 branch (now Dmma16W32: crates/blas/gpu/dmma3.sh compares
# the two geometries; this script's unforced rows now run Dmma16W32). Staged with
# `../shared/gpu/pack --bins --workspace` (at least `--bins -p ferrocm-kernel -p ferrocm-blas
# -p ferrocm-cli`): test binaries in .gpu/stage/tests, the release `ferrocm` in .gpu/stage/bin.
# Run from the repository root on the GPU machine:
#   bash crates/blas/gpu/dgemm.sh          (logs for the lead land in $OUT)
#   NCU=1 bash crates/blas/gpu/dgemm.sh    (also ncu on one launch of the new kernel)
# Needs python3 with torch (CUDA) and numpy for the cuBLAS side (scripts/vendor_baselines.py),
# and ncu on PATH for NCU=1.
# 1. Tests with FERROCM_REQUIRE_GPU=1: the kernel conformance test of the new intrinsic (two
#    chained m16n8k16 steps against an f64 host product: it settles the fragment layout on the
#    H100), blas gemm_cases (every d row on the GPU takes Dmma16 unless it forces `family=dmma`;
#    the m = 1536 row the wide tiles) against the double-double reference, and misuse.
# 2. `ferrocm bench blas` rows, each followed by the same request on cuBLAS (torch) in this one
#    process (crates/blas/gpu/table.py --rows dgemm): dgemm NN 8192^3 on Dmma16 and on the old
#    m8n8k4 family (forced), NN 4096^3, TN 4096^3; a ratio table last.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/dgemm-out}; mkdir -p "$OUT"
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
t kernel-dmma16 15 'ferrocm-kernel--conformance-test' tensor_core_mma_f64
t blas-gemm 90 'ferrocm-blas--blas-test' level23::gemm_cases
t blas-misuse 10 'ferrocm-blas--blas-test' misuse::
printf 'tests: %s\n' "${results[@]}"
if [[ "${NCU:-0}" == 1 ]] && command -v ncu >/dev/null; then
  echo "### ncu: bench blas -r f64_r 8192^3 (Dmma16)"
  # The sections and stall metrics of scripts/gpu-runs/s7-r1.sh (the NOTES table compares the
  # two), with shared-memory wavefronts and bank conflicts.
  timeout 150 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_dmma16 --section SpeedOfLight \
    --section Occupancy --section WarpStateStats --section LaunchStats \
    --section MemoryWorkloadAnalysis --section SchedulerStats --section ComputeWorkloadAnalysis \
    --section InstructionStats \
    --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum' \
    $F bench blas -r f64_r -m 8192 -n 8192 -k 8192 --reps 3 --engine kernels >"$OUT/ncu_full.txt" 2>&1
  grep -vE '^\s*$|^==PROF==' "$OUT/ncu_full.txt" \
    | grep -E "gemm|Duration|Throughput|Registers|Occupancy|Warp Cycles|Stall|Issue|Pipe|Block Limit|Shared|L1|L2|DRAM|Eligible|Active Warps|Executed Ipc|Bank|bank|wavefronts|stalled" \
    | head -100 | tee -a "$OUT/ncu.txt"
fi
python3 crates/blas/gpu/table.py --ferrocm "$F" --rows dgemm 2>&1 | tee "$OUT/bench.txt" \
  | grep -v '^{"row"'
