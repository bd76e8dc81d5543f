set -u
# Lead, 2026-11-24: the Python call overhead split (cProfile and parts) and the MT19937 tests alone.
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
export PATH=$PWD/.gpu/stage/bin:$PATH FERROCM_REQUIRE_GPU=1
OUT0=$OUT; OUT=/tmp/pyo; source crates/python/gpu/env.sh >/dev/null
timeout 60 "$py" crates/python/bench/uniform_parts.py 2>&1 | tail -40
which perf py-spy 2>&1 | head -2
s=$SECONDS; timeout 200 .gpu/stage/tests/ferrocm-rand--curand_mt19937-test 2>&1 | grep -E "^test |test result|panicked" | head -12; echo "mt19937 tests $((SECONDS-s)) s"
