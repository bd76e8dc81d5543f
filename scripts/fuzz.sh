#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ (or the targets named as arguments) on its committed
# corpus; new inputs go to a scratch directory, so the tree is not modified. A crash fails the
# script and leaves the input in fuzz/artifacts/<target>/.
#
# Default (CI): reproducible. Each target starts from the git-tracked seeds of
# fuzz/corpus/<target>/ (ignoring inputs a local run left there), with a fixed random seed
# (-seed), a fixed number of executions (-runs), no corpus reloading, and address-space
# randomisation off for the fuzzer (setarch -R; libFuzzer's choices depend on code addresses
# otherwise), so the same commit built by the same toolchain makes the same run: a CI failure
# is replayed by `bash scripts/fuzz.sh <target>`. The counts below make each target take about
# 30-60 s on a loaded 2-core machine; a target without an entry gets DEFAULT_RUNS.
# FERROCM_FUZZ_RUNS overrides the count for every target, FERROCM_FUZZ_SEED the seed.
#
# Exploratory: FERROCM_FUZZ_SECONDS=N runs each target for N seconds from a fresh random seed
# (libFuzzer prints it as "INFO: Seed:"); the crashing input in fuzz/artifacts/ is the reproducer.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

SEED=${FERROCM_FUZZ_SEED:-20261124}
# A new target gets DEFAULT_RUNS until it has an entry (time it: the script prints each target's seconds).
DEFAULT_RUNS=100000
declare -A RUNS=(
  [hipify_translate]=40000
  [ir_parse]=1500000
  [ptx_frontend]=35000
  [timed_ptx]=10000
)
seconds=${FERROCM_FUZZ_SECONDS:-}

if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi
if [[ $# -gt 0 ]]; then
  targets="$*"
else
  targets=$(cargo fuzz list)
fi
# Address-space randomisation off for the fuzzer and its children, where the system allows it.
fixed_layout=()
if [[ -z $seconds ]]; then
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    fixed_layout=(setarch "$(uname -m)" -R)
  else
    echo "warning: setarch -R is not available here; runs are bounded but not exactly reproducible" >&2
  fi
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Build first, so the times printed below are fuzzing time.
if ! cargo fuzz build -s none >"$scratch/build.log" 2>&1; then
  tail -40 "$scratch/build.log" >&2
  exit 1
fi
for t in $targets; do
  mkdir -p "$scratch/new/$t" "$scratch/seeds/$t" "corpus/$t"
  # The committed seeds only: an exploratory run's additions would change the run.
  if tracked=$(git ls-files -- "corpus/$t" 2>/dev/null) && [[ -n $tracked ]]; then
    while IFS= read -r f; do cp -- "$f" "$scratch/seeds/$t/"; done <<<"$tracked"
  else
    cp -r "corpus/$t/." "$scratch/seeds/$t/"
  fi
  if [[ -n $seconds ]]; then
    bound=(-max_total_time="$seconds")
    echo "=== fuzz $t for ${seconds}s (random seed)"
  else
    runs=${FERROCM_FUZZ_RUNS:-${RUNS[$t]:-$DEFAULT_RUNS}}
    # -reload=0: rereading the output corpus every second would make the run depend on timing.
    bound=(-seed="$SEED" -runs="$runs" -reload=0)
    echo "=== fuzz $t: $runs runs from seed $SEED"
  fi
  # -s none: AddressSanitizer needs a nightly compiler; coverage and the targets' own
  # assertions work on stable.
  status=0
  start=$SECONDS
  "${fixed_layout[@]}" cargo fuzz run -s none "$t" "$scratch/new/$t" "$scratch/seeds/$t" -- "${bound[@]}" -print_final_stats=1 \
    >"$scratch/$t.log" 2>&1 || status=$?
  grep -aE '^(INFO: Seed:|INFO: seed corpus|#[0-9]+\s+DONE|==[0-9]+== ERROR|stat::(number_of_executed_units|new_units_added)|thread .* panicked)' \
    "$scratch/$t.log" || true
  echo "    $((SECONDS - start)) s"
  if [[ $status != 0 ]]; then
    tail -40 "$scratch/$t.log" >&2
    echo "fuzz target $t failed; the input is in fuzz/artifacts/$t/" >&2
    if [[ -z $seconds ]]; then
      echo "replay this run: FERROCM_FUZZ_SEED=$SEED FERROCM_FUZZ_RUNS=$runs bash scripts/fuzz.sh $t" >&2
    fi
    exit 1
  fi
done
