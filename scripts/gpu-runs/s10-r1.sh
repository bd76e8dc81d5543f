#!/usr/bin/env bash
# Lead, 2026-12-06 (tenth session), call 1:
# 1. FFT plans chosen by a traffic model (three passes of short transforms for long 1D lengths,
#    the R2C unfold as a pointwise step after them): an A/B of the same cases with the build
#    before (.gpu/old/ferrocm.xz, main at cbf635d) and after, interleaved, then the whole table
#    beside cuFFT, then the GPU tests of the changed plans.
# 2. crates/blas/gpu/dmma3.sh: dgemm on 32 x 32 warp tiles (two blocks per SM) beside the 64 x 32
#    geometry and cuBLAS, and the GEMM case tables on the GPU.
# Staged with `../shared/gpu/pack --bins -p ferrocm-fft -p ferrocm-blas -p ferrocm-cli`, the old
# binary added.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s10r1}; mkdir -p "$O"
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
[[ -x .gpu/old/ferrocm ]] || { xz -dk .gpu/old/ferrocm.xz && chmod +x .gpu/old/ferrocm; }
T=.gpu/stage/tests; NEW=.gpu/stage/bin/ferrocm; OLD=.gpu/old/ferrocm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
C=(--case "c2c f32 1D 2^24" --case "r2c f32 1D 2^26" --case "z2z f64 1D 2^24" --case "r2c f32 2D 8192^2" --case "c2c f32 2D 4096^2")
for r in 1 2; do
  for v in old new; do
    B=$OLD; [[ $v == new ]] && B=$NEW
    timeout 60 $B bench fft "${C[@]}" --reps 30 --vendor none --json >"$O/ab-$v-$r.json" 2>"$O/ab-$v-$r.err"
    echo "ab $v $r rc=$? at $SECONDS s"
  done
done
python3 - "$O" <<'PY'
import json, sys, glob, os
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "ab-*.json"))):
    v, r = os.path.basename(f)[3:-5].split("-")
    for line in open(f):
        try: m = json.loads(line)
        except ValueError: continue
        if m.get("bench") == "fft" and " plan" not in m["metric"]:
            rows.setdefault(m["metric"], {}).setdefault(v, []).append(round(m["ferrocm"], 4))
print("A/B, ms (rounds 1, 2)")
for c, d in rows.items():
    print(f"{c:22s} old {d.get('old')}  new {d.get('new')}")
PY
timeout 100 $NEW bench fft --describe --reps 20 --vendor scripts/vendor_baselines.py >"$O/bench.txt" 2>"$O/bench.err"
echo "bench rc=$? at $SECONDS s"
results=()
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$O/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s"
  grep -E "^test result|panicked|FAILED|^---- " "$O/$name.log" | head -8
  results+=("$name rc=$rc")
}
t three 100 'ferrocm-fft--fft-test' three_pass --skip cpu
t lib 20 'ferrocm-fft--lib'
t misuse 15 'ferrocm-fft--misuse-test'
t layouts 40 'ferrocm-fft--fft-test' layouts:: --skip cpu --skip multi_dimensional
printf 'tests: %s\n' "${results[@]}"
grep -E "^pass|^(c2c|r2c|z2z)" "$O/bench.err" | head -40
cat "$O/bench.txt"
echo "### dmma3.sh at $SECONDS s"
OUT=$O/dmma3 timeout 230 bash crates/blas/gpu/dmma3.sh 2>&1 | tail -25
echo "done at $SECONDS s"
