#!/usr/bin/env bash
# The dmma3 branch in one command: gemm_dmma16 with 32 x 32 warp tiles (GemmFamily::Dmma16W32:
# 128 x 64 tiles of 8 warps, two blocks per SM at 128 registers, the planner's choice for real
# f64 on sm_90+) beside its 64 x 32 geometry (GemmFamily::Dmma16: 128 x 128 tiles of 8 warps, one
# block per SM, 232 registers), both forced, each row beside cuBLAS (torch) in the same process.
# The model and prediction are in crates/blas/NOTES.md ("Two blocks of 32 x 32 warp tiles per
# SM"). About 2.5 min; NCU=1 adds two ncu runs of at most 100 s each (one launch per geometry).
#
# Staged from the main repository with `../shared/gpu/pack --bins -p ferrocm-blas -p ferrocm-cli`
# (test binaries in .gpu/stage/tests, the release `ferrocm` in .gpu/stage/bin). Run from the
# repository root on the GPU machine:
#   bash crates/blas/gpu/dmma3.sh          (logs for the lead land in $OUT)
#   NCU=1 bash crates/blas/gpu/dmma3.sh    (also ncu on one NN 8192^3 launch of each geometry)
# Needs python3 with torch (CUDA) and numpy for the cuBLAS side (scripts/vendor_baselines.py),
# and ncu on PATH for NCU=1.
# 1. Tests with FERROCM_REQUIRE_GPU=1: blas level23::gemm_cases (d rows without `family=` take
#    Dmma16W32 on the GPU; rows force dmma16-w32 across its warp, tile, slab and ring boundaries,
#    dmma16 and dmma), every result against the double-double reference; blas misuse (a forced
#    f64 family refuses f32); the kernel conformance test of the m16n8k16 f64 intrinsic when its
#    binary was staged (`-p ferrocm-kernel`).
# 2. ncu (NCU=1): the sections and stall metrics of dgemm.sh (so the table compares with s9-r3's
#    wide-kernel row), one process per geometry; a short excerpt here, the rest in $OUT.
# 3. `ferrocm bench blas` rows (crates/blas/gpu/table.py --rows dmma3: fresh random inputs, 32
#    elements checked against a host product before timing, median of the reps): dgemm NN 8192^3,
#    NN 4096^3, TN 4096^3 on each geometry, then the 8192^3 pair again in the other order; each
#    followed by cuBLAS on the same request. The ratio table is printed last.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/dmma3-out}; mkdir -p "$OUT"
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
T=.gpu/stage/tests
F=.gpu/stage/bin/ferrocm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv,noheader
results=()
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  if [[ ! -x $T/$bin ]]; then echo "=== $name: $bin not staged, skipped"; results+=("$name not staged"); return; fi
  local s=$SECONDS; timeout "$limit" "$T/$bin" "$@" >"$OUT/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s"
  grep -E "^test result|panicked|FAILED|^---- " "$OUT/$name.log" | head -8
  results+=("$name rc=$rc")
}
t blas-gemm 150 'ferrocm-blas--blas-test' level23::gemm_cases
t blas-misuse 15 'ferrocm-blas--blas-test' misuse::
t kernel-dmma16 15 'ferrocm-kernel--conformance-test' tensor_core_mma_f64
printf 'tests: %s\n' "${results[@]}"
if [[ "${NCU:-0}" == 1 ]] && command -v ncu >/dev/null; then
  for fam in dmma16-w32 dmma16; do
    echo "### ncu: bench blas -r f64_r NN 8192^3 --family $fam (one launch)"
    timeout 100 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_dmma16 --section SpeedOfLight \
      --section Occupancy --section WarpStateStats --section LaunchStats \
      --section MemoryWorkloadAnalysis --section SchedulerStats --section ComputeWorkloadAnalysis \
      --section InstructionStats \
      --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum' \
      $F bench blas -r f64_r -m 8192 -n 8192 -k 8192 --reps 1 --engine kernels --family $fam \
      >"$OUT/ncu_full_$fam.txt" 2>&1
    echo "ncu rc=$?"
    grep -vE '^\s*$|^==PROF==' "$OUT/ncu_full_$fam.txt" \
      | grep -E "gemm|Duration|Throughput|Registers|Occupancy|Warp Cycles|Stall|Issue|Pipe|Block Limit|Shared|L1|L2|DRAM|Eligible|Active Warps|Executed Ipc|Bank|bank|wavefronts|stalled" \
      >"$OUT/ncu_$fam.txt"
    grep -E "Duration|Registers Per Thread|Block Limit (Registers|Shared)|Achieved Occupancy|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|Issue Slots Busy|L2 Cache Throughput|DRAM Throughput|highest-utilized|stalled_(barrier|math_pipe_throttle|mio_throttle|short_scoreboard|wait|long_scoreboard|selected|not_selected|dispatch_stall)_per|bank_conflicts" \
      "$OUT/ncu_$fam.txt" | cut -c1-150 | head -30
  done
fi
python3 crates/blas/gpu/table.py --ferrocm "$F" --rows dmma3 2>&1 | tee "$OUT/bench.txt" \
  | grep -v '^{"row"'
