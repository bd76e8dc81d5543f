#!/usr/bin/env bash
# The device engine between processes after the slice-loop fix (no deadlock past the staging
# area) and the shared-memory rendezvous, in one command (< 90 s). Staged with
# `../shared/gpu/pack --bins --workspace` (test binaries in .gpu/stage/tests, the release
# `ferrocm` binary in .gpu/stage/bin); run from the repository root on the GPU machine:
#   bash crates/ccl/gpu/ccl2.sh            (logs for the lead land in $OUT)
# Needs python3 with torch (`torch.distributed.run`, and torch's NCCL for the vendor side).
# One GPU: two processes share it (NCCL refuses two ranks on one GPU, so there is no vendor
# row: the table says so). Two or more GPUs: one process per GPU, ferrocm's device engine and
# NCCL (torch.distributed, `scripts/vendor_baselines.py`) on the same sizes, in this command.
# Prints a short table last: time (us) and busbw (GB/s) per size, and the #wrong columns.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/ccl2-out}; mkdir -p "$OUT"
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
T=.gpu/stage/tests B=.gpu/stage/bin/ferrocm
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ngpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
results=()
# 1. The multiprocess GPU cases: the device engine between processes on 2 and 4 processes, and
#    past the staging area (FERROCM_CCL_BUFFSIZE=16384: every operation, five types, in and
#    out of place, below, at and well past the slots, on 2 and 3 processes), then shm/TCP/UCX.
s=$SECONDS
timeout 32 $T/ferrocm-ccl--multiprocess-test gpu_ --test-threads=2 >"$OUT/ccl-multiprocess.log" 2>&1
rc=$?; echo "=== ccl-multiprocess gpu_: rc=$rc $((SECONDS - s)) s"
grep -E "^test |^test result|panicked" "$OUT/ccl-multiprocess.log" | head -20; results+=("ccl-multiprocess rc=$rc")
# 2. All-reduce 8 B .. 256 MiB between two processes (torchrun), device engine (32 MiB hung
#    before the fix), then the host engine to 1 MiB for the small-message latency beside it.
run_ferrocm() { # engine, max size, out file, box
  echo "\$ FERROCM_CCL_ENGINE=$1 torchrun --nproc_per_node 2 ferrocm bench ccl all_reduce -b 8 -e $2 -f 4 -g 1 -n 10 -w 3"
  FERROCM_CCL_ENGINE=$1 timeout "$4" python3 -m torch.distributed.run --standalone --nproc_per_node 2 \
    --no-python $B bench ccl all_reduce -b 8 -e "$2" -f 4 -g 1 -n 10 -w 3 >"$3" 2>&1
  local rc=$?; echo "rc=$rc"; results+=("ccl-$1 rc=$rc")
}
run_ferrocm device 256M "$OUT/ccl-device.txt" 22
run_ferrocm host 1M "$OUT/ccl-host.txt" 8
# 3. NCCL on the same sizes, one process per GPU (only with two GPUs or more).
if [[ $ngpu -ge 2 ]]; then
  echo "\$ python3 scripts/vendor_baselines.py nccl all_reduce -b 8 -e 256M -f 4 -g 2 -n 10 -w 3 --via torch"
  timeout 22 python3 scripts/vendor_baselines.py nccl all_reduce -b 8 -e 256M -f 4 -g 2 -n 10 -w 3 --via torch \
    >"$OUT/nccl.txt" 2>&1; rc=$?; echo "rc=$rc"; results+=("nccl rc=$rc")
else
  echo "# one GPU: no NCCL row (NCCL refuses two ranks on one GPU)" >"$OUT/nccl.txt"
fi
python3 - "$OUT/ccl-device.txt" "$OUT/ccl-host.txt" "$OUT/nccl.txt" "$ngpu" <<'PY'
import sys
def rows(path):
    out = {}
    for line in open(path, errors="replace"):
        f = line.split()
        if len(f) >= 13 and f[0].isdigit():
            out[int(f[0])] = (f[5], f[7], f[8])  # out of place: time, busbw, #wrong
    return out
d, h, v = (rows(p) for p in sys.argv[1:4])
print(f"GPUs: {sys.argv[4]} ({'one process per GPU' if int(sys.argv[4]) >= 2 else 'two processes on one GPU'})")
print(f"{'bytes':>11} | {'device us':>9} {'busbw':>7} | {'host us':>9} | {'NCCL us':>9} {'busbw':>7} | NCCL/device time | wrong d/h/n")
for size in sorted(set(d) | set(h) | set(v)):
    a, b, c = (x.get(size, ("-", "-", "-")) for x in (d, h, v))
    try:
        ratio = f"{float(c[0]) / float(a[0]):.2f}"
    except ValueError:
        ratio = "-"
    print(f"{size:>11} | {a[0]:>9} {a[1]:>7} | {b[0]:>9} | {c[0]:>9} {c[1]:>7} | {ratio:>16} | {a[2]}/{b[2]}/{c[2]}")
if not d:
    print("device engine: no rows; first lines of its output:")
    print("".join(open(sys.argv[1], errors="replace").readlines()[:8]))
PY
printf '%s\n' "${results[@]}"
