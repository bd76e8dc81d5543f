#!/usr/bin/env bash
# fft3 on the GPU in one command (90 s typical, 135 s at most): the even-length real transforms past one block
# with the unfold fused into the second four-step pass (R2C) and the fold into the first (C2R),
# then `ferrocm bench fft` over the issue's table with cuFFT (torch.fft, CuPy plans) in the
# same command, table last.
# Staged with `../shared/gpu/pack --bins --workspace` (at least `--bins -p ferrocm-fft -p
# ferrocm-cli`): test binaries in .gpu/stage/tests, the release `ferrocm` in .gpu/stage/bin.
# Run from the repository root on the GPU machine:  bash crates/fft/gpu/fft3.sh
# Needs python3 with torch (CUDA), cupy and numpy (scripts/vendor_baselines.py cufft).
# 1. Tests with FERROCM_REQUIRE_GPU=1 (each checks against the f64 reference and that nothing
#    outside the output layout was written): real.rs `fused_unfold` (R2C and C2R, half lengths
#    2^14 .. 2^26 and non-powers of two, batched, strided, in place) and `row_pairs` (2D/3D R2C
#    with the second-last axis around 8192, 8192^2 among them), layouts.rs except the
#    multi-dimensional sweep, misuse.rs.
# 2. `ferrocm bench fft --describe` (plans on stderr, kept in $OUT/bench.err): every GPU case,
#    each checked on fresh random input before timing, cuFFT in the same process tree.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/fft3-out}; mkdir -p "$OUT"
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
t fused 40 'ferrocm-fft--real-test' fused_unfold::cuda --exact
t rows 15 'ferrocm-fft--real-test' row_pairs::cuda --exact
t layouts 15 'ferrocm-fft--layouts-test' cuda --skip multi_dimensional
t misuse 5 'ferrocm-fft--misuse-test'
printf 'tests: %s\n' "${results[@]}"
timeout 60 $F bench fft --describe --reps 20 --vendor scripts/vendor_baselines.py >"$OUT/bench.txt" 2>"$OUT/bench.err"
echo "bench rc=$?"
grep -E "checked|error" "$OUT/bench.err" | tail -12
cat "$OUT/bench.txt"
