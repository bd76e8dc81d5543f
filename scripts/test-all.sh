#!/usr/bin/env bash
# The README's test command: every test of the workspace, the Python package's tests, then
# every fuzz target for a bounded time. On a machine without a GPU the CPU backend is what is
# tested; with FERROCM_REQUIRE_GPU=1 a missing GPU fails the GPU cases instead of skipping them.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace
bash scripts/test-python.sh
bash scripts/fuzz.sh
