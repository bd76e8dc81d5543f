# Shared by the package's GPU scripts (pybind.sh, pyleft.sh): sourced from the repository root
# on the GPU machine. Picks the Python that has NumPy, torch and CuPy, installs the staged wheel
# (.gpu/py/ferrocm-*.whl) and pytest where missing into a private directory on PYTHONPATH, sets
# FERROCM_REQUIRE_GPU=1, and defines run NAME TIMEOUT PYTEST-ARGS... (output in $OUT/NAME.txt,
# exit status and seconds in rc[NAME], secs[NAME]).
set -uo pipefail
OUT=${OUT:-/tmp/pybind-out}; mkdir -p "$OUT"
# The machine's NumPy, torch and CuPy may live in the user's site-packages, which a venv does not
# see: install the wheel (and pytest where missing) into a private directory on PYTHONPATH instead.
py=$(command -v python3)
for cand in python3 /usr/bin/python3 /usr/local/bin/python3 /opt/conda/bin/python3; do
  if command -v "$cand" >/dev/null && "$cand" -c "import numpy, torch, cupy" 2>/dev/null; then py=$(command -v "$cand"); break; fi
done
site=$(mktemp -d)/site
wheel=$(ls .gpu/py/ferrocm-*.whl 2>/dev/null | head -1)
[[ -n $wheel ]] || { echo "no .gpu/py/ferrocm-*.whl staged"; exit 2; }
"$py" -m pip install -q --no-index --no-deps --disable-pip-version-check --target "$site" "$wheel" || exit 2
if ! "$py" -c "import pytest" 2>/dev/null; then
  "$py" -m pip install -q --no-index --disable-pip-version-check --find-links .gpu/py --target "$site" pytest || {
    echo "pytest is missing and no pytest wheels are staged in .gpu/py"; exit 2; }
fi
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
echo "python: $py"
"$py" -c "import ferrocm, torch, cupy; print('ferrocm', ferrocm.__version__, [d.name for d in ferrocm.devices()])"
export FERROCM_REQUIRE_GPU=1
tests=crates/python/tests
declare -A rc secs
run() {  # name, timeout, pytest arguments...
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  (cd "$OUT" && timeout "$limit" "$py" -m pytest -q -p no:cacheprovider "$@") > "$OUT/$name.txt" 2>&1
  rc[$name]=$?; secs[$name]=$((SECONDS - t0))
  tail -3 "$OUT/$name.txt"
}
root=$PWD
