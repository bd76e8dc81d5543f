#!/usr/bin/env bash
# The Python package's tests: builds and installs `crates/python` (maturin, through pip) into a
# virtual environment under target/, with pytest and NumPy from PyPI where they are missing,
# then runs pytest. On the GPU machine the same tests also check PyTorch and CuPy interop.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${FERROCM_PY_VENV:-target/py-venv}
if [[ ! -x $venv/bin/python ]]; then
  python3 -m venv "$venv"
fi
venv=$(cd "$venv" && pwd)
"$venv/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.5,<2" "pytest>=7" "numpy>=1.26"
# The extension builds with the dev profile, reusing most of what `cargo test --workspace`
# compiled (a release build of its dependencies took about three minutes of CI on 2 cores);
# FERROCM_PY_PROFILE=release builds an optimised one.
MATURIN_PEP517_ARGS="--profile ${FERROCM_PY_PROFILE:-dev}" \
  "$venv/bin/python" -m pip install -q --disable-pip-version-check ./crates/python
cd target
FERROCM_CLI=${FERROCM_CLI:-$PWD/debug/ferrocm} "$venv/bin/python" -m pytest -q ../crates/python/tests
