#!/usr/bin/env bash
# ferrocm kernel2: the final GPU run (isolated Hopper tests, TMA reference harness, ptxas checks,
# the other test binaries, compute-sanitizer memcheck and racecheck). Logs: $OUT/logs.tgz.
set -u
D=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$D/stage" && tar -C "$D/stage" -xJf "$D/stage.tar.xz"
T=$D/stage/tests
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1
L=/tmp/k2logs; mkdir -p $L/hopper $L/ptx $L/ref $L/san
S=$OUT/summary.txt
say() { echo "$*" | tee -a $S; }
pack() { tar -C /tmp -czf $OUT/logs.tgz k2logs 2>/dev/null; }
left() { [ $SECONDS -lt $1 ]; }
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) nvcc: $(nvcc --version | tail -2 | head -1)"
H=$T/ferrocm-kernel--hopper-test
# 1. every Hopper test in its own process (a fault poisons the context), PTX dumped.
fails=()
passes=()
for name in $($H --list 2>/dev/null | sed -n 's/: test$//p'); do
  left 130 || { say "hopper $name SKIPPED (time)"; continue; }
  t0=$SECONDS
  FERROCM_DUMP=ptx FERROCM_DUMP_DIR=$L/ptx timeout 12 $H --exact $name --test-threads 1 >$L/hopper/$name.log 2>&1; rc=$?
  if [ $rc = 0 ]; then passes+=($name); else fails+=($name); fi
  say "hopper $name rc=$rc $((SECONDS - t0))s $( [ $rc != 0 ] && grep -m2 -E 'panicked|CUDA_ERROR|error' $L/hopper/$name.log | cut -c1-400 | tr '\n' ' ')"
done
pack
# 2. ptxas on every generated PTX (warnings, registers, spills).
for f in $L/ptx/*.ptx; do
  echo "== $f" >>$L/ptxas.log
  timeout 20 ptxas -arch=sm_90a -v "$f" -o /dev/null >>$L/ptxas.log 2>&1 || say "ptxas FAILED on ${f##*/}"
done
say "ptxas warnings: $(grep -ci warning $L/ptxas.log)"; grep -i warning $L/ptxas.log | sort | uniq -c | head -10 | tee -a $S
# 3. the TMA reference harness: nvcc inline PTX, then our PTX (and variants) launched from C++.
X=$D/extra
if nvcc -arch=sm_90a -O2 -o /tmp/tma_ref $X/tma_ref.cu -lcuda >$L/ref/nvcc.log 2>&1; then
  r() { local n=$1; shift; timeout 20 /tmp/tma_ref "$@" >$L/ref/$n.log 2>&1; say "ref $n rc=$? $(tail -1 $L/ref/$n.log)"; }
  r nvcc_2d 64 8 64 8 0 0 0 1
  r nvcc_2d_swz128_off 80 30 64 16 3 5 3 1
  r ours_load 64 8 64 8 0 0 0 1 $X/load.ptx tma_load_box_fd53d1f5045e2725
  r ours_load_nocvta 64 8 64 8 0 0 0 1 $X/load_nocvta.ptx tma_load_box_fd53d1f5045e2725
  r ours_load_notile 64 8 64 8 0 0 0 1 $X/load_notile.ptx tma_load_box_fd53d1f5045e2725
  r ours_load_sym 64 8 64 8 0 0 0 1 $X/load_sym.ptx tma_load_box_fd53d1f5045e2725
  r ours_mc_each_cta 80 30 64 16 3 5 3 4 $X/mc_nomc.ptx tma_multicast
  r ours_mc 80 30 64 16 3 5 3 4 $X/mc.ptx tma_multicast
else
  say "nvcc failed: $(tail -3 $L/ref/nvcc.log)"
fi
pack
# 4. the other test binaries, full logs.
for t in $T/*; do
  n=${t##*/}; [ "$t" = "$H" ] && continue
  left 165 || { say "$n SKIPPED (time)"; continue; }
  timeout 60 $t >$L/$n.log 2>&1; say "$n rc=$? $(grep -E '^test result' $L/$n.log | tail -1)"
done
pack
# 5. compute-sanitizer on the conformance suite and on the Hopper tests that passed.
san() {
  local tool=$1 name=$2 lim=$3; shift 3
  left $((225 - lim)) || { say "$tool $name SKIPPED (time)"; return; }
  timeout $lim compute-sanitizer --tool $tool --print-limit 50 --report-api-errors no "$@" >$L/san/$tool-$name.log 2>&1
  say "$tool $name rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^test result' $L/san/$tool-$name.log | tr '\n' ' ')"
}
[ ${#passes[@]} -gt 0 ] && san memcheck hopper 40 $H --test-threads 1 --exact "${passes[@]}"
san memcheck conformance 45 $T/ferrocm-kernel--conformance-test --test-threads 4
[ ${#passes[@]} -gt 0 ] && san racecheck hopper 40 $H --test-threads 1 --exact "${passes[@]}"
san racecheck conformance 45 $T/ferrocm-kernel--conformance-test --test-threads 4
say "done at ${SECONDS}s"
pack
