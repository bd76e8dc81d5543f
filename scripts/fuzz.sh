#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a bounded time (FERROCM_FUZZ_SECONDS, default 30)
# on its committed corpus; new inputs go to a scratch directory, so the tree is not modified.
# A crash fails the script and leaves the input in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds=${FERROCM_FUZZ_SECONDS:-30}
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz
fi
targets=$(cargo fuzz list)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for t in $targets; do
  echo "=== fuzz $t for ${seconds}s"
  mkdir -p "$scratch/$t" "corpus/$t"
  # -s none: AddressSanitizer needs a nightly compiler; coverage and the targets' own
  # assertions work on stable.
  status=0
  cargo fuzz run -s none "$t" "$scratch/$t" "corpus/$t" -- -max_total_time="$seconds" -print_final_stats=1 \
    >"$scratch/$t.log" 2>&1 || status=$?
  grep -aE '^(INFO: seed corpus|==[0-9]+== ERROR|stat::number_of_executed_units|thread .* panicked)' "$scratch/$t.log" || true
  if [[ $status != 0 ]]; then
    tail -40 "$scratch/$t.log" >&2
    echo "fuzz target $t failed; the input is in fuzz/artifacts/$t/" >&2
    exit 1
  fi
done
