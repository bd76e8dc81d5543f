#!/usr/bin/env bash
# Lead, 2026-11-25 (seventh session), call 3: the traced launch overhead after the batch names
# the device (one Device clone per batch), measured with ten alternating pairs of
# `bench runtime` (plain, then under `ferrocm prof --kernel-trace`), twice the pairs of s7-r2b so
# the medians of the per-process ratios move less. Staged with `pack --bins -p ferrocm-cli`.
set -u
[[ -d .gpu/stage/bin ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
export FERROCM_REQUIRE_GPU=1 PATH="$PWD/.gpu/stage/bin:$PATH"
O=${OUT:-/tmp/s7r3}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
RT="bench runtime --json --reps 7 --copy-mib 16 --d2d-mib 16 --allocs 200"
for i in $(seq 1 10); do
  timeout 40 ferrocm $RT > "$O/rt_plain_$i.json" 2>>"$O/err.log"
  timeout 40 ferrocm prof --kernel-trace -d /tmp/s7kt$i -- ferrocm $RT > "$O/rt_traced_$i.json" 2>>"$O/err.log"
done
python3 scripts/gpu-runs/traced_ratio.py "$O"
echo "done at $SECONDS s"
(cd "$O" && tar czf logs.tgz *.json *.log 2>/dev/null && rm -f *.json)
