#!/usr/bin/env bash
# What issue 20's second round added to the package, on the GPU machine: fft out= (in place
# included), matmul with NumPy's broadcasting and out=, ccl's init_all/split/group, out= into
# torch and CuPy arrays, then the benchmark against CuPy (broadcast batched matmul, fft into out
# and in place; ratio = ferrocm / CuPy). Run from the repository root with the wheel staged as
# for pybind.sh (.gpu/py/ferrocm-*.whl, maturin build --release -m crates/python/Cargo.toml;
# pytest's wheels beside it if the machine lacks pytest). About 60 s; prints a table last.
set -uo pipefail
source "$(dirname "$0")/env.sh"
run fft_out 20 "$root/$tests/test_fft.py" -x -k "cuda and out"
run matmul 20 "$root/$tests/test_blas.py" -x -k "cuda and matmul"
run ccl 15 "$root/$tests/test_ccl.py" -x -k "init_all or group or abort or processes"
run interop 15 "$root/$tests/test_interop_gpu.py" -x -k "out_into"
t0=$SECONDS
timeout 25 "$py" "$root/crates/python/bench/bench_matmul_out.py" > "$OUT/bench_matmul_out.txt" 2>&1
rc[bench]=$?; secs[bench]=$((SECONDS - t0))
echo
echo "== pyleft: GPU cases (rc 124 = ran past its time box; see \$OUT/<step>.txt) =="
printf '%-8s %4s %5s  %s\n' step rc secs summary
for s in fft_out matmul ccl interop; do
  printf '%-8s %4s %5s  %s\n' "$s" "${rc[$s]}" "${secs[$s]}" "$(grep -E 'passed|failed|error' "$OUT/$s.txt" | tail -1)"
done
printf '%-8s %4s %5s\n' bench "${rc[bench]}" "${secs[bench]}"
grep -v '^{' "$OUT/bench_matmul_out.txt" | tail -8
