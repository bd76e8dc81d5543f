#!/usr/bin/env bash
# Lead, 2026-12-06 (tenth session), call 2 (not run: the device time ran out first): the R2C
# unfold fused into a third pass (e22cf8f; r2c 2^26 plans 256 | 512 | 256 mirrored) and the
# pointwise unfold reading each value once (eec03fa; still the plan for odd half lengths).
# A/B against call 1's build (.gpu/prev/ferrocm.xz, at 99f27be) on r2c 2^26 (c2c 2^24
# as the control), the three-pass real transforms' GPU test (the unfold with odd and even half
# lengths), then compute-sanitizer memcheck on the 16-byte real-pair loads' test (col_phases_16_byte;
# the longer tests are too slow under the sanitizer). Cut to fit the session's last device minutes.
# Staged with `../shared/gpu/pack --bins -p ferrocm-fft -p ferrocm-cli`, the previous binary added.
set -u
export FERROCM_REQUIRE_GPU=1 RUST_BACKTRACE=1 PYTHONUNBUFFERED=1
O=${OUT:-/tmp/s10r2}; mkdir -p "$O"
[[ -d .gpu/stage/tests ]] || { mkdir -p .gpu/stage && tar -C .gpu/stage -xJf .gpu/stage.tar.xz; }
[[ -x .gpu/prev/ferrocm ]] || { xz -dk .gpu/prev/ferrocm.xz && chmod +x .gpu/prev/ferrocm; }
T=.gpu/stage/tests; NEW=.gpu/stage/bin/ferrocm; PREV=.gpu/prev/ferrocm
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
C=(--case "r2c f32 1D 2^26" --case "c2c f32 1D 2^24")
for r in 1 2; do
  for v in prev new; do
    B=$PREV; [[ $v == new ]] && B=$NEW
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
    print(f"{c:22s} prev {d.get('prev')}  new {d.get('new')}")
PY
results=()
t() { # name, timeout, binary, args...
  local name=$1 limit=$2 bin=$3; shift 3
  local s=$SECONDS; timeout "$limit" $T/$bin "$@" >"$O/$name.log" 2>&1; local rc=$?
  echo "=== $name: rc=$rc $((SECONDS - s)) s"
  grep -E "^test result|panicked|FAILED|^---- " "$O/$name.log" | head -8
  results+=("$name rc=$rc")
}
t real3 60 'ferrocm-fft--fft-test' real::three_pass_real::cuda --exact
s=$SECONDS; timeout 100 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 20 $T/ferrocm-fft--fft-test layouts::col_phases_16_byte::cuda --exact >"$O/memcheck.log" 2>&1
echo "=== memcheck layouts: rc=$? $((SECONDS - s)) s"
grep -E "^========= (ERROR SUMMARY|Invalid)|^test result" "$O/memcheck.log" | head -5
printf 'tests: %s\n' "${results[@]}"
echo "done at $SECONDS s"
