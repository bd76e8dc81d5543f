#!/usr/bin/env bash
# The README's test command: every test of the workspace, the Python package's tests, then
# every fuzz target for a bounded time. On a machine without a GPU the CPU backend is what is
# tested; with FERROCM_REQUIRE_GPU=1 a missing GPU fails the GPU cases instead of skipping them.
set -euo pipefail
cd "$(dirname "$0")/.."
# The collectives' UCX transport is tested between processes over loopback: install Debian's
# libucx0 where it is missing (as root, with apt-get), and make a missing UCX a failure
# (FERROCM_REQUIRE_UCX=0 skips those tests instead).
if ! ldconfig -p | grep -q 'libucp\.so\.0' && command -v apt-get >/dev/null && [[ $(id -u) == 0 ]]; then
  apt-get install -y -q --no-install-recommends libucx0 || { apt-get update -q && apt-get install -y -q --no-install-recommends libucx0; }
fi
export FERROCM_REQUIRE_UCX=${FERROCM_REQUIRE_UCX:-1}
# Every unit and integration test, then the doc tests. (`--tests` leaves out the examples and
# benches, which `cargo test` would otherwise build again after clippy --all-targets has checked
# them, and the Python extension, whose tests are pytest's below.)
cargo test --workspace --tests
cargo test --workspace --doc
bash scripts/test-python.sh
bash scripts/fuzz.sh
