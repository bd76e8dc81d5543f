# Helpers shared by the GPU-run scripts (sourced; bash). `start NAME` sets up a run (or set L,
# the log folder, before sourcing); `t` runs a staged test binary, `san` a command under
# compute-sanitizer, `ab` the FFT bench cases once per build in turn; each records its outcome
# in `results`.
# Staged test binaries live in .gpu/stage/tests (`../shared/gpu/pack`), extra builds in
# .gpu/<name>/ferrocm.xz.
T=.gpu/stage/tests
NEW=.gpu/stage/bin/ferrocm
results=()
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }

# start NAME: the environment every run uses, the log folder L (archived into
# $OUT/logs.tar.xz on exit) and the device's name.
start() {
  export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
  O=${OUT:-/tmp/$1}; L=/tmp/$1-logs; mkdir -p "$O" "$L"
  trap 'tar -C "$L" -cJf "$O/logs.tar.xz" . 2>/dev/null' EXIT
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
}

# The ferrocm binary of build $1 ("new": the staged one), decompressed on first use.
build_bin() {
  [[ $1 == new ]] && { echo "$NEW"; return; }
  [[ -x .gpu/$1/ferrocm ]] || { xz -dk ".gpu/$1/ferrocm.xz" && chmod +x ".gpu/$1/ferrocm"; }
  echo ".gpu/$1/ferrocm"
}

# stage_fft_test BUILD: puts BUILD's `fft` test binary (.gpu/BUILD/fft-test.xz) beside the
# staged ones as $T/BUILD-fft-test, for `t`.
stage_fft_test() {
  [[ -x $T/$1-fft-test ]] || { xz -dc ".gpu/$1/fft-test.xz" >"$T/$1-fft-test" && chmod +x "$T/$1-fft-test"; }
}

# vendor_table BUILD: the whole `bench fft` table of BUILD beside cuFFT (one command), its
# transform rows printed, the rest in $L/bench-BUILD.txt.
vendor_table() {
  local b; b=$(build_bin "$1")
  echo "### bench fft ($1) beside cuFFT at $SECONDS s"
  timeout 130 "$b" bench fft --describe --reps 20 --vendor scripts/vendor_baselines.py >"$L/bench-$1.txt" 2>"$L/bench-$1.err"
  echo "bench rc=$?"; grep -E '^(c2c|r2c|z2z)' "$L/bench-$1.txt" | grep -v plan | cut -c1-100
}

# t NAME LIMIT BINARY ARGS...: a staged test binary with a time limit.
t() {
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" "$T/$bin" "$@" >"$L/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s"
  grep -E "^test result|panicked|FAILED|^---- " "$L/$name.log" | head -6
  results+=("$name rc=$rc")
}

# san NAME LIMIT TOOL COMMAND...: compute-sanitizer with an error exit code.
san() {
  local name=$1 limit=$2 tool=$3; shift 3
  local s=$SECONDS
  timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 "$@" >"$L/san-$name.log" 2>&1
  local rc=$?; echo "=== sanitizer $name ($tool): rc=$rc $((SECONDS - s)) s"
  grep -E "^========= (ERROR SUMMARY|RACECHECK SUMMARY|Invalid)|checked" "$L/san-$name.log" | head -3
  results+=("san-$name rc=$rc")
}

# ab ROUNDS REPS BUILD... -- CASE...: `bench fft` of the cases with each build in turn, ROUNDS
# times, then a table of the medians per build and round.
ab() {
  local rounds=$1 reps=$2; shift 2
  local builds=() cases=()
  while [[ $1 != -- ]]; do builds+=("$1"); shift; done; shift
  for c in "$@"; do cases+=(--case "$c"); done
  for r in $(seq 1 "$rounds"); do
    for v in "${builds[@]}"; do
      local b; b=$(build_bin "$v")
      timeout 90 "$b" bench fft "${cases[@]}" --reps "$reps" --vendor none --json >"$L/ab-$v-$r.json" 2>"$L/ab-$v-$r.err"
      echo "ab $v $r rc=$? at $SECONDS s"; grep -iE 'error|panic' "$L/ab-$v-$r.err" | head -3
    done
  done
  python3 - "$L" "${builds[@]}" <<'PY'
import json, sys, glob, os
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "ab-*.json"))):
    v, r = os.path.basename(f)[3:-5].rsplit("-", 1)
    for line in open(f):
        try: m = json.loads(line)
        except ValueError: continue
        if m.get("bench") == "fft" and " plan" not in m["metric"]:
            rows.setdefault(m["metric"], {}).setdefault(v, []).append(round(m["ferrocm"], 4))
print("A/B, median ms per round")
for c, d in rows.items():
    print(f"{c:22s} " + "  ".join(f"{v} {d.get(v)}" for v in sys.argv[2:]))
PY
}

# abr ROUNDS BUILD... -- GENERATOR...: `bench rand` (bits, default ordering, 2^28 values,
# median of 5) of each generator with each build in turn, ROUNDS times, the device copy
# (CuPy/torch through vendor_baselines.py) before each round, then the medians per build and
# round with each as a fraction of the round's copy at 4 bytes per value.
abr() {
  local rounds=$1; shift
  local builds=() gens=()
  while [[ $1 != -- ]]; do builds+=("$1"); shift; done; shift
  gens=("$@")
  for r in $(seq 1 "$rounds"); do
    timeout 30 python3 scripts/vendor_baselines.py copy >"$L/abr-copy-$r.txt" 2>&1
    for v in "${builds[@]}"; do
      local b; b=$(build_bin "$v")
      for g in "${gens[@]}"; do
        timeout 20 "$b" bench rand --generator "$g" --distribution bits --ordering default \
          --count 268435456 --reps 5 --json >>"$L/abr-$v-$r.json" 2>>"$L/abr-$v-$r.err"
      done
      echo "abr $v $r at $SECONDS s"; grep -iE 'error|panic' "$L/abr-$v-$r.err" | head -3
    done
  done
  python3 - "$L" "${builds[@]}" <<'PY'
import json, sys, glob, os
L, builds = sys.argv[1], sys.argv[2:]
copy = {}
for f in glob.glob(os.path.join(L, "abr-copy-*.txt")):
    r = f.rsplit("-", 1)[1][:-4]
    for line in open(f):
        try: copy[r] = json.loads(line)["value"]; break
        except (ValueError, KeyError): continue
rows = {}
for f in sorted(glob.glob(os.path.join(L, "abr-*.json"))):
    v, r = os.path.basename(f)[4:-5].rsplit("-", 1)
    for line in open(f):
        try: m = json.loads(line)
        except ValueError: continue
        per4 = copy.get(r) and copy[r] / 4
        frac = f" ({m['ferrocm'] / per4:.3f})" if per4 else ""
        rows.setdefault(m["metric"], {}).setdefault(v, []).append(f"{m['ferrocm']:.1f}{frac}")
print("copy GB/s per round:", copy)
print("A/B, GSample/s per round (fraction of the copy at 4 B/value)")
for c, d in rows.items():
    print(f"{c:34s} " + "  ".join(f"{v} {d.get(v)}" for v in builds))
PY
}

# curand_rows BIN GENERATOR DISTRIBUTION...: BIN's `bench rand` rows (median of 5) each followed
# by cuRAND's (through vendor_baselines.py), their GSample/s lines.
curand_rows() {
  local b=$1 g=$2; shift 2
  for d in "$@"; do
    timeout 20 "$b" bench rand --generator "$g" --distribution "$d" --reps 5 --json 2>&1 | grep -m1 GSample
    timeout 25 python3 scripts/vendor_baselines.py curand --generator "$g" --distribution "$d" 2>&1 | grep -m1 GSample
  done | cut -c1-160
}

# rand_gpu_checks BIN LIMIT: cuRAND's GPU MTGP32 against its host generator for the recorded
# cases (crates/rand/tools/curand_host_mtgp32_dists.py --device), then memcheck on BIN's
# ThreeFry4x64 bits and MTGP32 normals; LIMIT seconds for each sanitizer run.
rand_gpu_checks() {
  local b=$1 limit=$2
  timeout 120 python3 crates/rand/tools/curand_host_mtgp32_dists.py "$L/mtgp32-dists-gpu.txt" --device >"$L/mtgp32-gpu.log" 2>&1
  echo "cuRAND MTGP32 GPU vs host rc=$?"; tail -3 "$L/mtgp32-gpu.log"
  san mem-4x64 "$limit" memcheck "$b" bench rand --generator threefry4x64 --distribution bits --count 1048580 --reps 1
  san mem-mtgp-normal "$limit" memcheck "$b" bench rand --generator mtgp32 --distribution normal --count 1048580 --reps 1
}
