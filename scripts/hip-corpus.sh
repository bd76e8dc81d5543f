#!/usr/bin/env bash
# The HIP corpus outside cargo, for machines without a Rust toolchain (the GPU machine):
#
#   scripts/hip-corpus.sh build <hipcc> <dir>   # here: every corpus program, the Makefile sample and
#                                               # the launch benchmark into <dir>/bin, with
#                                               # libferrocm_hip.so (next to <hipcc>) into <dir>/lib
#   bash <dir>/hip-corpus.sh run <dir>          # there: each program on the GPU (FERROCM_BACKEND=cuda)
#                                               # and on the CPU device; a table, then "N passed, N failed"
#
# A program passes when it exits 0 and prints "Validation passed" (printf's lines are checked too).
set -uo pipefail

build() {
  local hipcc out=$2 root src
  hipcc=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
  mkdir -p "$out" && out=$(cd "$out" && pwd)
  root=$(cd "$(dirname "$0")/.." && pwd)
  src=$root/crates/hip/tests/corpus
  mkdir -p "$out/bin" "$out/lib" "$out/work"
  cp "$(dirname "$hipcc")/libferrocm_hip.so" "$out/lib/"
  cp "$0" "$out/hip-corpus.sh"
  cp "$src"/* "$out/work/"
  local fail=0
  for f in "$out"/work/*.hip; do
    local n; n=$(basename "$f" .hip)
    if [[ $n == module_kernels ]]; then
      "$hipcc" --device-only "$f" -o "$out/bin/module_kernels.ptx" || fail=1
    else
      "$hipcc" -O3 "$f" -o "$out/bin/$n" || fail=1
    fi
  done
  "$root/target/release/ferrocm" hipify "$src/cuda_saxpy.cu" > "$out/work/cuda_saxpy.hip.cu" &&
    "$hipcc" -O3 "$out/work/cuda_saxpy.hip.cu" -o "$out/bin/cuda_saxpy" || fail=1
  cp -r "$root/crates/hip/samples" "$out/work/samples"
  make -s -C "$out/work/samples/matrix_multiplication" HIPCXX="$hipcc" &&
    cp "$out/work/samples/matrix_multiplication/hip_matrix_multiplication" "$out/bin/" || fail=1
  "$hipcc" -O3 "$root/crates/hip/bench/launch_latency.hip" -o "$out/bin/launch_latency" || fail=1
  rm -rf "$out/work"
  return $fail
}

run() {
  local dir pass=0 fail=0
  dir=$(cd "$1" && pwd)
  export LD_LIBRARY_PATH="$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  printf '%-28s %-5s %-6s %8s\n' program device result seconds
  for exe in "$dir"/bin/*; do
    local n; n=$(basename "$exe")
    [[ $n == *.ptx ]] && continue
    for backend in cuda cpu; do
      local args=() env=(FERROCM_BACKEND=$backend) out rc t0 t1 ok=fail
      [[ $n == module_api ]] && args=("$dir/bin/module_kernels.ptx")
      [[ $n == peer_access && $backend == cpu ]] && env+=(FERROCM_CPU_DEVICES=2)
      [[ $n == launch_latency && $backend == cpu ]] && args=(2000)
      t0=$(date +%s.%N)
      out=$(env "${env[@]}" timeout 300 "$exe" "${args[@]}" 2>&1); rc=$?
      t1=$(date +%s.%N)
      if [[ $rc == 0 ]] && grep -q '^Validation passed' <<<"$out"; then ok=pass; fi
      if [[ $n == printf && $ok == pass ]]; then
        local want got
        want=$(for b in 0 1; do for t in 0 1 2 3; do
          printf 'block %d thread %d: hip 42 %.2f %s %x\n' $b $t "$(awk -v t=$t 'BEGIN { print 0.25 * t }')" \
            "$(printf "\\$(printf '%03o' $((97 + t)))")" $((255 + b)); done; done | sort)
        got=$(grep '^block' <<<"$out" | sort)
        [[ $want == "$got" ]] || ok=fail
      fi
      [[ $n == launch_latency ]] && grep '^hip_launch' <<<"$out" | sed "s/^/    $backend: /"
      printf '%-28s %-5s %-6s %8.2f\n' "$n" "$backend" "$ok" "$(awk -v a=$t0 -v b=$t1 'BEGIN { print b - a }')"
      if [[ $ok == pass ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "$out" | tail -15 | sed 's/^/    | /'; fi
    done
  done
  echo "$pass passed, $fail failed"
  [[ $fail == 0 ]]
}

case ${1:-} in
  build) shift; build "$@" ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 build <hipcc> <dir> | run <dir>" >&2; exit 2 ;;
esac
