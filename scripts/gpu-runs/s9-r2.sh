#!/usr/bin/env bash
# Lead, 2026-11-25 (ninth session), call 2: the tf32 kernel's variants beside cuBLAS, the split-K
# workspace limit test on the GPU, and the stall mix of the warp-tiled sgemm.
# 1. blas `gemm_ex::` (with split_k_workspace_stays_within_the_handle_limit) and `misuse::`.
# 2. cuBLAS tf32 TN (torch.matmul(a, b.t()), allow_tf32) at 4096^3 and 8192^3, then
#    `ferrocm bench gemm --dtype tf32 --layout tn` over kernel variants, then cuBLAS again.
# 3. ncu's WarpStateStats / SchedulerStats on one sgemm NN 8192^3 launch (gemm_wt).
# Staged with `../shared/gpu/pack --bins -p ferrocm-blas -p ferrocm-cli`.
set -u
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PATH="$PWD/.gpu/stage/bin:$PATH" PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s9r2}; mkdir -p "$O"
T=.gpu/stage/tests
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$O/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s $(grep -E '^test result' "$O/$name.log" | tail -1)"
  grep -E "panicked|FAILED|^---- " -A2 "$O/$name.log" | head -12
}
t blas_gemm_ex 240 ferrocm-blas--blas-test gemm_ex:: &
t blas_misuse 60 ferrocm-blas--blas-test misuse:: &
wait
cublas() {
python3 - <<'PY'
import torch
torch.backends.cuda.matmul.allow_tf32 = True
for n in (4096, 8192):
    g = torch.Generator(device="cuda").manual_seed(n)
    a = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
    b = torch.rand(n, n, device="cuda", generator=g) * 2 - 1  # B^T row-major: B column-major
    c = torch.matmul(a, b.t())
    ref = (a.double() @ b.double().t())
    err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
    assert err < 1e-2, err
    for _ in range(3): torch.matmul(a, b.t(), out=c)
    ts = []
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); torch.matmul(a, b.t(), out=c); e.record(); e.synchronize()
        ts.append(s.elapsed_time(e))
    ts.sort(); ms = ts[len(ts) // 2]
    print(f"cuBLAS tf32 {n}^3 tn: {2 * n**3 / ms / 1e9:.1f} TFLOP/s (max rel err {err:.1e})")
PY
}
echo "### tf32 variants (at $SECONDS s)"
cublas
timeout 300 .gpu/stage/bin/ferrocm bench gemm --dtype tf32 --layout tn --n 4096 8192 --reps 20 \
  --variants auto 256x4-c1 256x4-c2 256x3 192x5 192x5-c2 128x7 128x6-c2 256x4-g4 256x4-g16 2>&1 \
  | grep -vE '^\{' | sed -E 's/ +ferrocm \/ cuBLAS.*//'
cublas
echo "### ncu: sgemm NN 8192^3 (gemm_wt), one launch (at $SECONDS s)"
timeout 150 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_wt --section SpeedOfLight --section Occupancy \
  --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis \
  --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
  .gpu/stage/bin/ferrocm bench blas -r f32_r -m 8192 -n 8192 -k 8192 --reps 3 --engine kernels > "$O/ncu_sgemm.txt" 2>&1
grep -vE '^\s*$|^==PROF==' "$O/ncu_sgemm.txt" | grep -E "Duration|Registers|Occupancy|Warp Cycles|Eligible|Active Warps|Issue|Executed Ipc|Bank|stalled" \
  | awk '$NF != "0" && $NF != "0.00"' | head -60
echo "done at $SECONDS s"
(cd "$O" && tar czf logs.tgz *.log *.txt 2>/dev/null && rm -f *.log)
