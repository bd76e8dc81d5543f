#!/usr/bin/env bash
# The 2026-11-24 TMA fix check: every Hopper TMA test in its own process (a trap poisons the
# context), then tma_probe2.sh. Stage: /work/shared/gpu/pack -p ferrocm-kernel --test hopper;
# copy .gpu/stage.tar.xz, tma_probe.cu, tma_probe2.sh and this file into one folder.
set -u
D=$(cd "$(dirname "$0")" && pwd)
R=${OUT:-/tmp}/run2.txt
mkdir -p /tmp/st && tar -C /tmp/st -xJf "$D/stage.tar.xz"
H=$(ls /tmp/st/tests/*hopper*)
export FERROCM_REQUIRE_GPU=1
pass=0; fail=0
for name in $($H --list 2>/dev/null | sed -n "s/: test$//p" | grep tma); do
  timeout 20 "$H" --exact "$name" --test-threads 1 >/tmp/h_$name.log 2>&1; rc=$?
  if [ $rc = 0 ]; then pass=$((pass+1)); else fail=$((fail+1)); fi
  echo "hopper $name rc=$rc $( [ $rc != 0 ] && grep -m2 -E 'panicked|CUDA_ERROR|differs' /tmp/h_$name.log | cut -c1-300 | tr '\n' ' ')" >>"$R"
done
echo "hopper: $pass passed, $fail failed" | tee -a "$R"
grep -v 'rc=0' "$R"
bash "$D/tma_probe2.sh"
