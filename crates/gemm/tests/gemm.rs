//! `Plan::run` against an f64 host product on fresh random data, on every device present (the
//! CPU device runs the same kernel on the executor). Shapes reach past every tile boundary the
//! kernel has: M around 128 (the block tile), N around 128 and 256 (the two tile widths), K
//! around 64 (a pipeline stage) and more k-tiles than stages (the ring wraps), plus every layout,
//! padded leading dimensions, alpha and beta, and all three output types.

mod common;

use common::*;
use ferrocm_gemm::Layout::{ColMajor as Col, RowMajor as Row};
use ferrocm_gemm::Tuning;
use ferrocm_kernel::{bf16, f16};

fn each_device(f: impl Fn(&ferrocm_kernel::runtime::Device, &mut Rng)) {
    let mut rng = Rng::new();
    for d in devices() {
        f(&d, &mut rng);
    }
}

#[test]
fn exact_tiles_bf16_to_f32() {
    each_device(|d, r| check::<bf16, f32>(d, Case::new(128, 256, 128), r));
}

#[test]
fn ragged_shapes_bf16_to_f32() {
    each_device(|d, r| {
        // Every edge: partial M tile, partial N tile (the 256-wide kernel), partial K stage.
        check::<bf16, f32>(d, Case::new(200, 300, 136), r);
        // The 128-wide kernel, tiny M, K under one stage.
        check::<bf16, f32>(d, Case::new(17, 100, 24), r);
    });
}

#[test]
fn ring_wraps_over_many_k_tiles_and_tiles() {
    // 9 k-tiles through a 4- or 6-deep ring, and more tiles than the CPU device's blocks.
    each_device(|d, r| check::<f16, f32>(d, Case::new(136, 264, 576), r));
}

#[test]
fn every_operand_layout() {
    each_device(|d, r| {
        for (la, lb) in [(Row, Row), (Row, Col), (Col, Row), (Col, Col)] {
            check::<bf16, f32>(d, Case::new(144, 136, 80).layouts(la, lb, Row), r);
        }
    });
}

#[test]
fn column_major_output_swaps_operands() {
    each_device(|d, r| {
        check::<f16, f32>(d, Case::new(130, 72, 64).layouts(Col, Col, Col), r);
        check::<f16, f32>(d, Case::new(72, 260, 40).layouts(Row, Col, Col), r);
    });
}

#[test]
fn padded_leading_dimensions() {
    each_device(|d, r| {
        check::<bf16, f32>(d, Case::new(100, 140, 72).pad(8), r);
        check::<bf16, bf16>(d, Case::new(100, 140, 72).layouts(Col, Row, Col).pad(24), r);
    });
}

#[test]
fn alpha_and_beta() {
    each_device(|d, r| {
        check::<bf16, f32>(d, Case::new(130, 140, 64).scale(-0.75, 0.5), r);
        check::<f16, f16>(d, Case::new(64, 130, 72).scale(2.0, -1.0), r);
        // Whole tiles: the paired stores read C in pairs too.
        check::<bf16, bf16>(d, Case::new(256, 512, 64).scale(0.5, 2.0), r);
        check::<f16, f32>(d, Case::new(256, 256, 64).layouts(Row, Col, Col).scale(1.5, -0.25), r);
    });
}

#[test]
fn half_precision_outputs() {
    each_device(|d, r| {
        check::<f16, f16>(d, Case::new(129, 257, 96), r);
        check::<bf16, bf16>(d, Case::new(129, 257, 96), r);
    });
}

#[test]
fn large_shapes_on_gpus() {
    each_device(|d, r| {
        if is_gpu(d) {
            check::<bf16, f32>(d, Case::new(1000, 1500, 520), r);
            check::<f16, bf16>(d, Case::new(777, 2049, 1032).layouts(Col, Row, Row), r);
            check::<bf16, bf16>(d, Case::new(2048, 2048, 2048), r);
        }
    });
}

#[test]
fn every_kernel_variant() {
    // Each tile width, cluster size and ring depth the planner or a benchmark may pick; M of 3
    // block tiles leaves the second block of the last cluster wholly outside A and C.
    each_device(|d, r| {
        // A row-major B pairs in 64-column spans (bn 128, 256); a column-major one in rows.
        for (lb, bns) in [(Row, [128, 256]), (Col, [64, 192])] {
            for bn in bns {
                for cluster_m in [1, 2] {
                    for stages in [2, 3] {
                        let tuning = Tuning {
                            bn: Some(bn),
                            stages: Some(stages),
                            cluster_m: Some(cluster_m),
                            ..Tuning::default()
                        };
                        let case = Case::new(300, 2 * bn as usize + 8, 200).layouts(Row, lb, Row);
                        check::<bf16, f32>(d, case.tuned(tuning), r);
                    }
                }
            }
        }
    });
}

#[test]
fn fewer_blocks_than_tiles_and_group_orders() {
    each_device(|d, r| {
        for (grid, group_m) in [(2, 1), (4, 3), (6, 16)] {
            let tuning =
                Tuning { grid: Some(grid), group_m: Some(group_m), bn: Some(128), ..Tuning::default() };
            check::<f16, f16>(d, Case::new(520, 400, 72).tuned(tuning), r);
        }
    });
}
