set -u
# Lead, 2026-11-24: the Python overhead after the dtype-name table.
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
export PATH=$PWD/.gpu/stage/bin:$PATH FERROCM_REQUIRE_GPU=1
OUT=/tmp/pyo; source crates/python/gpu/env.sh >/dev/null
timeout 60 "$py" crates/python/bench/uniform_parts.py 2>&1 | head -6
for i in 1 2; do timeout 40 "$py" crates/python/bench/bench_overhead.py 2>&1 | grep -v '^{'; done
timeout 60 "$py" crates/python/bench/overhead_parts.py 2>&1
