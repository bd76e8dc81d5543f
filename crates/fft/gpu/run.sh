#!/usr/bin/env bash
# FFT helper device run: GPU tests (time-boxed, long sweeps skipped), then the bench with cuFFT
# in the same command. Run from the repository root with .gpu-fft carried.
# Copy to .gpu-fft/fft-run.sh (not run.sh: that is pack's test runner, called below).
rm -rf .gpu && cp -r .gpu-fft .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
( timeout 75 bash .gpu/run.sh cuda --skip every_length --skip large_powers ) > "$OUT/tests.txt" 2>&1
echo "tests rc=$?"; grep -E "^(=== |test result|---- |thread .* panicked)|passed, " "$OUT/tests.txt" | tail -30
export PATH="$PWD/.gpu/stage/bin:$PATH"
timeout 200 ferrocm bench fft --describe --reps 20 --vendor .gpu-fft/vendor_baselines.py > "$OUT/bench.txt" 2> "$OUT/bench.err"
echo "bench rc=$?"; tail -40 "$OUT/bench.err"; cat "$OUT/bench.txt"
