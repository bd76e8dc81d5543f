#!/usr/bin/env bash
# Stream memory operations and collectives between processes on one GPU, in one command (< 90 s).
# Staged with `../shared/gpu/pack --bins --workspace` (test binaries in .gpu/stage/tests, the
# release `ferrocm` binary in .gpu/stage/bin); run from the repository root on the GPU machine:
#   bash crates/ccl/gpu/ipcdev.sh            (files for the lead land in $OUT)
# Needs: python3 with torch (for `torch.distributed.run`, the launcher users run; the NCCL line
# needs torch's NCCL too). Prints a short table last.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/ipcdev-out}; mkdir -p "$OUT"
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
T=.gpu/stage/tests B=.gpu/stage/bin/ferrocm
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
summ() { grep -E "^test result|panicked|FAILED|failures:|^---- " | head -20; }
t() { # name, timeout, binary glob, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$OUT/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s"; summ <"$OUT/$name.log"; results+=("$name rc=$rc")
}
results=()
# 1. Stream memory operations on the GPU (cuStreamWaitValue/WriteValue through the runtime, the
#    HIP C ABI and two processes sharing words in exportable memory), and their misuse rows.
t runtime-memop 15 'ferrocm-runtime--memop-test'
t runtime-ipc 15 'ferrocm-runtime--ipc-test'
t runtime-misuse 15 'ferrocm-runtime--misuse-test'
t hip-memop 10 'ferrocm-hip--memop-test'
# 2. The collectives' GPU tests (one process, ranks sharing the GPU) and multiprocess GPU cases.
t ccl-gpu 30 'ferrocm-ccl--gpu-test' --test-threads=4
t ccl-multiprocess 25 'ferrocm-ccl--multiprocess-test' gpu_
# 3. The runtime bench (its last rows: a round trip between two streams ordered by memory words,
#    ferrocm against the raw driver's cuStreamWriteValue32/WaitValue32), small batches.
echo "\$ ferrocm bench runtime --launches 20000 --graph-kernels 1000 --copy-mib 64 --d2d-mib 64 --allocs 500 --reps 5"
timeout 15 $B bench runtime --launches 20000 --graph-kernels 1000 --copy-mib 64 --d2d-mib 64 --allocs 500 --reps 5 \
  >"$OUT/bench-runtime.txt" 2>&1; echo "rc=$?"; grep -E "metric|word round trip|launch \(batched\)" "$OUT/bench-runtime.txt"
# 4. All-reduce between two processes sharing the GPU, as torchrun users run it, with the host
#    engine (staged through host memory) and the device engine between processes (rings over
#    exportable device memory ordered by stream memory operations; the default for GPUs).
#    The host engine stops at 64 MiB (at its 0.49 GB/s the larger sizes do not fit the box).
for engine in host device; do
  max=256M; [[ $engine == host ]] && max=64M
  echo "\$ FERROCM_CCL_ENGINE=$engine torchrun --nproc_per_node 2 ferrocm bench ccl all_reduce -b 8 -e $max -f 4 -g 1 -n 10 -w 3"
  FERROCM_CCL_ENGINE=$engine timeout 25 python3 -m torch.distributed.run --standalone --nproc_per_node 2 \
    --no-python $B bench ccl all_reduce -b 8 -e $max -f 4 -g 1 -n 10 -w 3 >"$OUT/ccl-$engine.txt" 2>&1
  rc=$?; echo "rc=$rc"; results+=("ccl-$engine rc=$rc")
done
# The table: size, then out-of-place time (us) and busbw (GB/s) for each engine, side by side.
python3 - "$OUT/ccl-host.txt" "$OUT/ccl-device.txt" <<'PY'
import sys
def rows(path):
    out = {}
    for line in open(path, errors="replace"):
        f = line.split()
        if len(f) >= 13 and f[0].isdigit():
            out[int(f[0])] = (f[5], f[7], f[8])  # time, busbw, #wrong (out of place)
    return out
h, d = rows(sys.argv[1]), rows(sys.argv[2])
print(f"{'bytes':>11} | {'host us':>9} {'host busbw':>10} | {'device us':>9} {'device busbw':>12} | wrong")
for size in sorted(set(h) | set(d)):
    a, b = h.get(size, ("-", "-", "-")), d.get(size, ("-", "-", "-"))
    print(f"{size:>11} | {a[0]:>9} {a[1]:>10} | {b[0]:>9} {b[1]:>12} | {a[2]}/{b[2]}")
if not d:
    print("device engine: no rows; first lines of its output:")
    print("".join(open(sys.argv[2], errors="replace").readlines()[:6]))
PY
printf '%s\n' "${results[@]}"
