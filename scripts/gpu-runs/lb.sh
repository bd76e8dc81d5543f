# Lead, 2026-11-24: gemm_simt with launch_bounds(256, 2) (an experiment, reverted): registers, occupancy, the blas3 rows.
set -u
cd .gpu && mkdir -p stage && tar -C stage -xJf stage.tar.xz && cd ..
F=.gpu/stage/bin/ferrocm; export FERROCM_REQUIRE_GPU=1
timeout 60 ncu --launch-skip 2 --launch-count 1 -k regex:gemm_simt --section LaunchStats --section Occupancy $F bench blas -r f32_r -m 8192 -n 8192 -k 8192 --reps 3 --engine kernels 2>&1 | grep -E "Registers|Achieved Occupancy|Local|spill" | head
python3 crates/blas/gpu/table.py --ferrocm $F --rows blas3 2>&1 | tail -8
timeout 100 .gpu/stage/tests/ferrocm-blas--level23-test 2>&1 | grep -E "test result|panicked" | head -4
