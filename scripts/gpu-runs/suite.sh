#!/usr/bin/env bash
# Every staged test binary once, FERROCM_REQUIRE_GPU=1, each in a time box; stops starting new
# binaries after $1 seconds. Prints failing tests, then a summary line.
cap=${1:-240}; each=${2:-45}; from=${3:-}
# The cli tests look for the staged ferrocm on PATH, as .gpu/run.sh sets it.
export PATH="$PWD/.gpu/stage/bin:$PATH"
T=.gpu/stage/tests; pass=0; fail=0; bad=(); notrun=(); slow=()
for t in $T/*; do
  n=${t##*/}
  [[ -n $from && $n < $from ]] && continue
  if (( SECONDS > cap )); then notrun+=("$n"); continue; fi
  s=$SECONDS
  timeout $each "$t" --skip every_length --skip large_powers > "$OUT/suite_$n.log" 2>&1; rc=$?
  d=$((SECONDS - s)); (( d >= 10 )) && slow+=("$n:${d}s")
  p=$(awk '/^test result:/ {for (i = 2; i <= NF; i++) if ($i == "passed;") n += $(i-1)} END {print n+0}' "$OUT/suite_$n.log")
  f=$(awk '/^test result:/ {for (i = 2; i <= NF; i++) if ($i == "failed;") n += $(i-1)} END {print n+0}' "$OUT/suite_$n.log")
  pass=$((pass + p)); fail=$((fail + f))
  if [[ $rc != 0 ]]; then
    bad+=("$n(rc=$rc)"); [[ $f == 0 ]] && fail=$((fail + 1))
    echo "--- $n rc=$rc"; grep -E "^---- |panicked at|^test .* FAILED" -A2 "$OUT/suite_$n.log" | head -16
  else
    rm -f "$OUT/suite_$n.log"
  fi
done
echo "slow: ${slow[*]}"
[[ ${#notrun[@]} == 0 ]] || echo "not run (time cap): ${notrun[*]}"
[[ ${#bad[@]} == 0 ]] || echo "binaries that failed: ${bad[*]}"
echo "suite: $pass passed, $fail failed"
