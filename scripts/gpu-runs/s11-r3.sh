#!/usr/bin/env bash
# Lead, 2026-12-07 (eleventh session), call 3: dgemm on cuBLAS's sm90 shape. s11-r2's ncu of
# cuBLAS's dgemm (sm90_xmma_gemm_f64f64_..._tilesize128x64x16_stage3_warpsize2x2x1_tensor16x8x8:
# 4 warps of 64 x 32 on 128 x 64, 246 registers, two blocks per SM, the FP64 pipe 97% busy,
# barrier and short-scoreboard stalls near 0) led to GemmFamily::Dmma16K8: the same tiles in
# 8-deep steps (mma.m16n8k8.f64) with double-buffered fragments.
# 1. The kernel language's m16n8k8 f64 intrinsic against its host reference on the GPU
#    (conformance tensor_core_mma_f64*: the fragment layout is what the new family rests on).
# 2. blas level23::gemm_cases on the GPU (the forced dmma16-k8 rows across slab, ring, tile and
#    warp boundaries against the double-double reference), misuse.
# 3. memcheck and racecheck on dgemm 264 x 200 x 136 forced onto dmma16-k8 (nine slabs: the
#    ring wraps twice; partial tiles on every side).
# 4. crates/blas/gpu/table.py --rows dmma4: dmma16-k8 beside dmma16-w32 (the planner's), each
#    followed by cuBLAS (torch), the 8192^3 pair again in the other order.
# 5. FFT real::three_pass_real on the GPU (s11-r2 stopped it at 50 s), with a longer limit.
# 6. ncu on one dmma16-k8 NN 8192^3 launch (the sections of s11-r1's W32 profile).
# Staged with `../shared/gpu/pack --bins -p ferrocm-fft -p ferrocm-blas -p ferrocm-cli -p ferrocm-kernel`.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s11r3}; L=/tmp/s11r3-logs; mkdir -p "$O" "$L"
trap 'tar -C "$L" -cJf "$O/logs.tar.xz" . 2>/dev/null' EXIT
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
T=.gpu/stage/tests; NEW=.gpu/stage/bin/ferrocm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
results=()
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$L/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s"
  grep -E "^test result|panicked|FAILED|^---- " "$L/$name.log" | head -6
  results+=("$name rc=$rc")
}
san() { # name, timeout, tool, command...
  local name=$1 limit=$2 tool=$3; shift 3
  local s=$SECONDS
  timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 "$@" >"$L/san-$name.log" 2>&1
  local rc=$?; echo "=== sanitizer $name ($tool): rc=$rc $((SECONDS - s)) s"
  grep -E "^========= (ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race)|GFLOP|checked" "$L/san-$name.log" | head -4
  results+=("san-$name rc=$rc")
}
t kernel-dmma 30 'ferrocm-kernel--conformance-test' tensor_core_mma_f64
t blas-gemm 100 'ferrocm-blas--blas-test' level23::gemm_cases
t blas-misuse 15 'ferrocm-blas--blas-test' misuse::
D=(bench blas -r f64_r -m 264 -n 200 -k 136 --reps 1 --engine kernels --family dmma16-k8)
san k8-mem 30 memcheck $NEW "${D[@]}"
san k8-race 45 racecheck $NEW "${D[@]}"
echo "### dgemm table at $SECONDS s"
timeout 200 python3 crates/blas/gpu/table.py --ferrocm "$NEW" --rows dmma4 >"$L/dgemm.txt" 2>&1
echo "rc=$?"; grep -v '^{"row"' "$L/dgemm.txt" | tail -10
t real3 150 'ferrocm-fft--fft-test' real::three_pass_real::cuda --exact
printf 'tests: %s\n' "${results[@]}"
if command -v ncu >/dev/null; then
  echo "### ncu dmma16-k8 at $SECONDS s"
  timeout 100 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_dmma16 --section SpeedOfLight \
    --section Occupancy --section WarpStateStats --section LaunchStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis \
    --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum' \
    $NEW bench blas -r f64_r -m 8192 -n 8192 -k 8192 --reps 1 --engine kernels --family dmma16-k8 >"$L/ncu_k8.txt" 2>&1
  echo "rc=$?"
  grep -E "Duration|Registers Per Thread|Block Limit (Registers|Shared)|Achieved Occupancy|Eligible Warps|Warp Cycles Per Issued|Issue Slots Busy|L2 Cache Throughput|DRAM Throughput|highest-utilized|stalled_(barrier|math_pipe_throttle|mio_throttle|short_scoreboard|wait|long_scoreboard|lg_throttle|dispatch_stall|not_selected|selected)_per|bank_conflicts" \
    "$L/ncu_k8.txt" | cut -c1-130 | head -30
fi
echo "done at $SECONDS s"
