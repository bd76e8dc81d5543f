#!/usr/bin/env bash
# ferrocm.fft / ferrocm.blas / ferrocm.ccl on the GPU machine (no Rust toolchain there, no
# network). Run from the repository root after the staged files are in place:
#   .gpu/py/ferrocm-*.whl   the wheel (built by the lead: maturin build --release -m crates/python/Cargo.toml)
#   .gpu/py/*.whl           optionally pytest's wheels (pytest, pluggy, iniconfig, packaging) if the
#                           machine's Python lacks pytest
# Installs the wheel into a venv that sees the system's site-packages (torch, CuPy, NumPy), runs
# the pytest suite with FERROCM_REQUIRE_GPU=1 (a missing GPU, torch or CuPy fails), including the
# checks that ferrocm.fft.fftn / ferrocm.blas.matmul on GPU arrays equal cupy.fft.fftn /
# cupy.matmul on the same inputs, then the call-overhead benchmark against CuPy (one process).
# Prints a short table last. Budget: about 90 s.
set -uo pipefail
source "$(dirname "$0")/env.sh"
run interop 20 "$root/$tests/test_interop_gpu.py"
t0=$SECONDS
timeout 15 "$py" "$root/crates/python/bench/bench_overhead.py" > "$OUT/bench.txt" 2>&1
rc[bench]=$?; secs[bench]=$((SECONDS - t0))
# The CPU-device cases of these files run everywhere (CI); here only the GPU-device ones (-k cuda).
run blas 15 "$root/$tests/test_blas.py" -x -k cuda
run fft 25 "$root/$tests/test_fft.py" -x -k cuda
run strided 5 "$root/$tests/test_strided.py" -x -k cuda
run ccl 10 "$root/$tests/test_ccl.py" -x
echo
echo "== pybind: GPU suite (rc 124 = ran past its time box; see \$OUT/<step>.txt) =="
printf '%-8s %4s %5s  %s\n' step rc secs summary
for s in interop blas fft strided ccl; do
  printf '%-8s %4s %5s  %s\n' "$s" "${rc[$s]}" "${secs[$s]}" "$(grep -E 'passed|failed|error' "$OUT/$s.txt" | tail -1)"
done
printf '%-8s %4s %5s\n' bench "${rc[bench]}" "${secs[bench]}"
grep -v '^{' "$OUT/bench.txt" | tail -6
