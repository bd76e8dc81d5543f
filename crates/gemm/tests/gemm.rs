//! `Plan::run` against an f64 host product on fresh random data, on every device present (the
//! CPU device runs the same kernel on the executor). Shapes reach past every tile boundary the
//! kernel has: M around 128 (the block tile), N around 128 and 256 (the two tile widths), K
//! around 64 (a pipeline stage) and more k-tiles than stages (the ring wraps), plus every layout,
//! padded leading dimensions, alpha and beta, and all three output types.

mod common;

use common::*;
use ferrocm_gemm::Layout::{ColMajor as Col, RowMajor as Row};
use ferrocm_gemm::{Tuning, E4M3, E5M2};
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

// The shared-memory epilogue (`stmatrix` into a swizzled C buffer, TMA stores of 64 x 64 boxes;
// with beta != 0, TMA loads of C and `ldmatrix` first): the planner's choice for an f16 or bf16
// C. M and N at a tile +- a bit (TMA clips the boxes at C's edges), N off the 64-column box, both
// tile widths, every operand layout, a column-major C, padded C, beta 0 and not.

#[test]
fn tma_store_epilogue_at_tile_edges() {
    each_device(|d, r| {
        for case in [
            // One whole 128 x 256 tile; a row and 16 bytes of columns past it; short of it.
            // (Rows whose length is not a multiple of 16 bytes take the register epilogue.)
            Case::new(128, 256, 128),
            Case::new(129, 264, 72),
            Case::new(127, 248, 64),
            // The 128-wide kernel with N off the box width, and tiles whose second consumer
            // half is wholly outside C.
            Case::new(100, 72, 80),
            Case::new(64, 136, 40),
        ] {
            check::<bf16, bf16>(d, case.expect_tma_store(true), r);
        }
        check::<f16, f16>(d, Case::new(200, 296, 136).expect_tma_store(true), r);
        check::<bf16, f16>(d, Case::new(144, 136, 80).layouts(Col, Col, Row).expect_tma_store(true), r);
        check::<f16, bf16>(d, Case::new(72, 260, 40).layouts(Row, Col, Col).expect_tma_store(true), r);
        check::<bf16, bf16>(d, Case::new(100, 136, 72).pad(8).pad_c(16).expect_tma_store(true), r);
    });
}

#[test]
fn tma_store_epilogue_with_beta() {
    each_device(|d, r| {
        check::<bf16, bf16>(d, Case::new(129, 264, 72).scale(0.5, -1.5).expect_tma_store(true), r);
        check::<f16, f16>(d, Case::new(127, 136, 64).scale(2.0, 0.75).expect_tma_store(true), r);
        check::<f16, bf16>(
            d,
            Case::new(72, 260, 40).layouts(Row, Col, Col).scale(1.0, 1.0).expect_tma_store(true),
            r,
        );
        // Ten tiles per block: the C-load barrier's phase flips every tile.
        let two = Tuning { grid: Some(2), bn: Some(128), ..Tuning::default() };
        check::<bf16, bf16>(d, Case::new(520, 400, 72).scale(-1.0, 0.5).tuned(two).expect_tma_store(true), r);
    });
}

#[test]
fn register_epilogue_where_tma_store_does_not_apply() {
    each_device(|d, r| {
        // An f32 C; C rows of 408 bytes (not a multiple of 16); asked off (beta 0 and not).
        check::<bf16, f32>(d, Case::new(129, 257, 72).scale(1.0, 0.5).expect_tma_store(false), r);
        check::<f16, f16>(d, Case::new(129, 200, 64).pad_c(4).expect_tma_store(false), r);
        // Rows of 257, 130 and 100 16-bit elements (pitch rounded to 16 bytes): the H100's TMA
        // store wrote the rest of each row's last 16 bytes, so these take the register path.
        check::<bf16, bf16>(d, Case::new(129, 257, 72).expect_tma_store(false), r);
        check::<f16, f16>(d, Case::new(64, 130, 40).scale(2.0, 0.75).expect_tma_store(false), r);
        check::<E4M3, bf16>(d, Case::tn(200, 100, 160).scales(0.5, 0.5).expect_tma_store(false), r);
        let off = Tuning { tma_store: Some(false), ..Tuning::default() };
        check::<bf16, bf16>(d, Case::new(129, 257, 72).tuned(off).expect_tma_store(false), r);
        check::<bf16, bf16>(
            d,
            Case::new(129, 257, 72).scale(0.5, -1.5).tuned(off).expect_tma_store(false),
            r,
        );
        // C's start 8 bytes (then 2) off 16: planned with TMA stores, run with the register
        // epilogue (with column-pair stores, then without).
        check::<bf16, bf16>(d, Case::new(130, 136, 64).c_offset(4).expect_tma_store(true), r);
        check::<f16, f16>(d, Case::new(130, 136, 64).c_offset(1).expect_tma_store(true), r);
    });
}

#[test]
fn tma_store_every_kernel_variant() {
    // Each tile width, cluster size and ring depth with the shared-memory epilogue (the C
    // buffers sit after the ring, whatever its depth); M of 3 block tiles.
    each_device(|d, r| {
        for (lb, bns) in [(Row, [128, 256]), (Col, [64, 192])] {
            for bn in bns {
                for (cluster_m, stages) in [(1, 2), (2, 3)] {
                    let tuning = Tuning {
                        bn: Some(bn),
                        stages: Some(stages),
                        cluster_m: Some(cluster_m),
                        tma_store: Some(true),
                        ..Tuning::default()
                    };
                    let case = Case::new(300, 2 * bn as usize + 8, 200).layouts(Row, lb, Row);
                    check::<bf16, bf16>(d, case.tuned(tuning).expect_tma_store(true), r);
                }
            }
        }
    });
}

// 8-bit inputs: random finite codes (every magnitude), A row-major and B column-major (the only
// layouts `wgmma` reads them in), scales != 1. A stage is 128 of K, and every stage is one
// promotion block; the widest 8-bit tile is 128 x 192.

#[test]
fn e4m3_scaled_into_every_output_type() {
    each_device(|d, r| {
        // One tile and one promotion block exactly.
        check::<E4M3, f32>(d, Case::tn(128, 128, 128).scales(0.5, 0.25), r);
        // A tile +- a bit each way: partial M and N tiles of the 192-wide kernel, K one 16 past
        // a promotion block, and K under one block.
        check::<E4M3, bf16>(d, Case::tn(129, 200, 144).scales(1.0 / 32.0, 1.0 / 16.0), r);
        check::<E4M3, f16>(d, Case::tn(127, 191, 112).scales(1.0 / 64.0, 0.125).scale(0.75, 0.0), r);
    });
}

#[test]
fn e4m3_promotes_over_many_k_blocks() {
    // Five promotion blocks (k 16 past four) through the ring, alpha and beta on top of the
    // scales, and more tiles than the CPU device's blocks.
    each_device(|d, r| {
        check::<E4M3, f32>(d, Case::tn(136, 264, 528).scales(0.03125, 2.0).scale(-0.5, 0.75), r);
    });
}

#[test]
fn e5m2_and_column_major_output() {
    each_device(|d, r| {
        check::<E5M2, bf16>(d, Case::tn(64, 72, 160).scales(1.0 / 1024.0, 0.5), r);
        // A column-major C swaps the operands (C^T = B^T A^T): both stay K-major.
        check::<E4M3, f32>(d, Case::tn(100, 130, 96).layouts(Row, Col, Col).scales(0.25, 3.0), r);
        check::<E4M3, bf16>(d, Case::tn(200, 64, 256).layouts(Row, Col, Col).pad(16).scales(0.125, 0.125), r);
    });
}

#[test]
fn e4m3_every_kernel_variant() {
    each_device(|d, r| {
        for bn in [64, 128, 192] {
            for (cluster_m, stages) in [(1, 2), (2, 3)] {
                let tuning = Tuning {
                    bn: Some(bn),
                    stages: Some(stages),
                    cluster_m: Some(cluster_m),
                    ..Tuning::default()
                };
                let case = Case::tn(300, 2 * bn as usize + 8, 272).scales(0.0625, 0.5).tuned(tuning);
                check::<E4M3, f32>(d, case, r);
            }
        }
    });
}

#[test]
fn e4m3_tma_store_epilogue() {
    each_device(|d, r| {
        // The 192-wide kernel: one whole tile, a tile +- a bit, N off the 64-column box.
        check::<E4M3, bf16>(d, Case::tn(128, 192, 128).scales(0.5, 0.25).expect_tma_store(true), r);
        check::<E4M3, bf16>(d, Case::tn(129, 200, 272).scales(1.0 / 32.0, 0.5).expect_tma_store(true), r);
        check::<E4M3, f16>(
            d,
            Case::tn(127, 184, 144).scales(0.125, 0.0625).scale(0.75, 0.0).expect_tma_store(true),
            r,
        );
        check::<E5M2, bf16>(d, Case::tn(200, 104, 160).scales(1.0 / 1024.0, 0.5).expect_tma_store(true), r);
        // beta != 0: the old C comes in through the buffer too.
        check::<E4M3, bf16>(
            d,
            Case::tn(129, 200, 144).scales(0.25, 0.5).scale(1.0, 0.5).expect_tma_store(true),
            r,
        );
    });
}

#[test]
fn e4m3_large_shapes_on_gpus() {
    each_device(|d, r| {
        if is_gpu(d) {
            check::<E4M3, bf16>(d, Case::tn(1000, 1500, 1040).scales(0.01, 0.02), r);
            check::<E4M3, bf16>(d, Case::tn(2048, 2048, 2048).scales(1.0 / 256.0, 1.0 / 8.0), r);
            check::<E5M2, f32>(d, Case::tn(777, 2049, 1024).scales(1.0 / 4096.0, 1.0 / 16.0), r);
        }
    });
}

/// Every product of two codes, exactly: C[i][j] = code i times code j (A's column 0 holds code i
/// in row i, B's row 0 code j in column j, the rest of K is zero), with k = 16 (the smallest
/// 8-bit K; TMA fills the rest of the 128-K stage with zeros). Products of 8-bit floats are exact
/// in f32, and so is a sum of one product and zeros: every element must be exact.
fn check_every_product<T: Host>(d: &ferrocm_kernel::runtime::Device, bits: impl Fn(u8) -> T) {
    use ferrocm_gemm::{Gemm, GemmDesc};
    let (m, k) = (256, 16);
    // NaN and infinite codes (e5m2) are replaced by zero: their products are not finite values.
    let code = |c: usize| {
        let x = bits(c as u8);
        if !x.to_f64().is_finite() {
            bits(0)
        } else {
            x
        }
    };
    let mut a = vec![bits(0); m * k];
    for i in 0..m {
        a[i * k] = code(i);
    }
    // B column-major: column j at j k.
    let b = a.clone();
    let desc = GemmDesc::new_scaled(m, m, k, T::TYPE).with_c_type(ferrocm_gemm::ElemType::F32);
    let plan = Gemm::plan(d, &desc).unwrap();
    let stream = d.create_stream().unwrap();
    let (da, db) = (stream.clone_htod(&a).unwrap(), stream.clone_htod(&b).unwrap());
    let mut dc = stream.clone_htod(&vec![f32::NAN; m * m]).unwrap();
    plan.run(&stream, &da, &db, &mut dc).unwrap();
    let got = stream.clone_dtoh(&dc).unwrap();
    for i in 0..m {
        for j in 0..m {
            let want = code(i).to_f64() * code(j).to_f64();
            assert_eq!(
                got[i * m + j] as f64,
                want,
                "{:?} {i:#04x} x {j:#04x} on {}",
                T::TYPE,
                d.properties().name
            );
        }
    }
}

#[test]
fn every_8_bit_product_is_exact() {
    for d in devices() {
        check_every_product(&d, E4M3::from_bits);
        check_every_product(&d, E5M2::from_bits);
    }
}

// Batched products (`GemmDesc::with_batch`): one launch walks every tile of every product, the
// operands read through tensor maps with the batch as a third dimension. Three products whose
// shapes cross the 128-row and the 128/256-column tile edges, gaps between the matrices (whose
// sentinels must survive), broadcast A or B, every layout, both epilogues, beta != 0.

#[test]
fn batched_every_layout() {
    each_device(|d, r| {
        for (la, lb) in [(Row, Row), (Row, Col), (Col, Row), (Col, Col)] {
            check::<bf16, f32>(d, Case::new(136, 72, 80).layouts(la, lb, Row).batched(3, 24), r);
        }
        check::<f16, f32>(d, Case::new(72, 136, 40).layouts(Row, Col, Col).batched(3, 8).scale(0.5, 0.75), r);
    });
}

#[test]
fn batched_broadcast_operands() {
    each_device(|d, r| {
        check::<bf16, f32>(d, Case::new(130, 264, 72).batched(3, 8).broadcast([true, false]), r);
        check::<f16, f32>(
            d,
            Case::new(100, 136, 72).layouts(Col, Col, Col).batched(3, 0).broadcast([false, true]),
            r,
        );
    });
}

#[test]
fn batched_both_epilogues() {
    each_device(|d, r| {
        // The TMA-store epilogue through a rank-3 map of C, beta 0 and not.
        check::<bf16, bf16>(d, Case::new(129, 136, 72).pad(8).batched(3, 16).expect_tma_store(true), r);
        let blend = Case::new(72, 264, 40).layouts(Row, Col, Col).scale(1.5, -0.5);
        check::<f16, f16>(d, blend.batched(3, 8).expect_tma_store(true), r);
        // A C batch stride 4 elements off 16 bytes: the register epilogue (column pairs too,
        // the stride being even), beta 0 and not.
        let off16 = Case::new(129, 136, 72).batched(3, 8).c_gap(4);
        check::<bf16, bf16>(d, off16.expect_tma_store(false), r);
        let off16 = Case::new(64, 72, 64).scale(2.0, 0.5).batched(3, 0).c_gap(4);
        check::<f16, f16>(d, off16.expect_tma_store(false), r);
        // An odd C batch stride: single-element stores.
        check::<f16, f32>(d, Case::new(64, 72, 64).scale(1.0, 1.0).batched(3, 0).c_gap(1), r);
    });
}

#[test]
fn batched_clusters_and_fewer_blocks_than_items() {
    each_device(|d, r| {
        // A cluster of 2 along M takes one item (both its tiles in one product); M of 3 block
        // tiles leaves a cluster's second block outside C in every product.
        let pair = Tuning { cluster_m: Some(2), bn: Some(128), ..Tuning::default() };
        check::<bf16, f32>(d, Case::new(300, 136, 72).tuned(pair).batched(2, 16), r);
        // Two blocks walk 3 x 6 items across the products' boundaries in grouped order.
        let two = Tuning { grid: Some(2), group_m: Some(2), bn: Some(128), ..Tuning::default() };
        check::<f16, f16>(d, Case::new(300, 136, 40).tuned(two).scale(1.0, 0.5).batched(3, 8), r);
    });
}

#[test]
fn batched_fp8() {
    each_device(|d, r| {
        check::<E4M3, bf16>(d, Case::tn(130, 136, 160).scales(0.5, 2.0).batched(2, 16), r);
    });
}

// Split-K: slices of K as the products of one launch, f32 partial sums to a workspace, summed in
// order by a second kernel that applies alpha, beta and C's type and layout. Slices that divide
// K's tiles and a shorter last one, a partial last k-tile, both C layouts, padded C, beta != 0,
// 16-bit and f32 outputs, 8-bit inputs, clusters of 2.

#[test]
fn split_k_forced() {
    each_device(|d, r| {
        let split = |s: u32| Tuning { split_k: Some(s), ..Tuning::default() };
        // 9 k-tiles in 3 slices; 10 (the last partial) in slices of 3, 3, 3 and 1.
        check::<bf16, f32>(d, Case::new(136, 264, 520).tuned(split(3)), r);
        check::<f16, f16>(d, Case::new(72, 136, 600).tuned(split(4)).scale(0.5, -1.5).pad(8), r);
        check::<bf16, bf16>(
            d,
            Case::new(130, 72, 600).layouts(Col, Row, Col).tuned(split(2)).scale(1.0, 1.0),
            r,
        );
        check::<E4M3, bf16>(d, Case::tn(40, 136, 640).scales(0.5, 2.0).tuned(split(5)), r);
        let pair = Tuning { split_k: Some(2), cluster_m: Some(2), bn: Some(128), ..Tuning::default() };
        check::<bf16, f32>(d, Case::new(300, 136, 256).tuned(pair), r);
    });
}

#[test]
fn split_k_chosen_for_few_tiles_and_long_k() {
    each_device(|d, r| {
        // One 128 x 128 tile per 2 multiprocessors, 18 k-tiles: a decode-like shape.
        let desc = ferrocm_gemm::GemmDesc::new(16, 104, 1104, ferrocm_gemm::ElemType::BF16);
        let name = ferrocm_gemm::Gemm::plan(d, &desc).unwrap().kernel_name();
        if !is_gpu(d) {
            assert!(name.contains("split-K"), "{name}");
        }
        check::<bf16, bf16>(d, Case::new(16, 104, 1104).scale(1.0, 0.5), r);
        // Many tiles (a plan only): at least 128 x 8 = 1024 tiles, more than twice the
        // multiprocessors of any device (520 x 400 was 10 tiles: split on a 132-SM H100).
        let desc = ferrocm_gemm::GemmDesc::new(16384, 2048, 1104, ferrocm_gemm::ElemType::BF16);
        let name = ferrocm_gemm::Gemm::plan(d, &desc).unwrap().kernel_name();
        assert!(!name.contains("split-K"), "{name}");
    });
}

#[test]
fn split_k_plan_under_graph_capture() {
    // A capturing stream refuses pool allocations: the split plan runs unsplit there.
    each_device(|d, r| {
        let (m, n, k) = (16usize, 104usize, 1104usize);
        let desc = ferrocm_gemm::GemmDesc::new(m, n, k, ferrocm_gemm::ElemType::BF16)
            .with_c_type(ferrocm_gemm::ElemType::F32);
        let tuning = Tuning { split_k: Some(3), ..Tuning::default() };
        let plan = ferrocm_gemm::Gemm::plan_tuned(d, &desc, tuning).unwrap();
        assert!(plan.kernel_name().contains("split-K"), "{}", plan.kernel_name());
        let a: Vec<bf16> = (0..m * k).map(|_| bf16::from_f64(r.sym())).collect();
        let b: Vec<bf16> = (0..k * n).map(|_| bf16::from_f64(r.sym())).collect();
        let s = d.create_stream().unwrap();
        let (da, db) = (s.clone_htod(&a).unwrap(), s.clone_htod(&b).unwrap());
        let mut split = s.clone_htod(&vec![f32::NAN; m * n]).unwrap();
        plan.run(&s, &da, &db, &mut split).unwrap();
        let mut captured = s.clone_htod(&vec![f32::NAN; m * n]).unwrap();
        let graph = s
            .capture(|s| {
                plan.run(s, &da, &db, &mut captured).unwrap();
                Ok(())
            })
            .unwrap();
        graph.instantiate().unwrap().launch(&s).unwrap();
        let (x, y) = (s.clone_dtoh(&split).unwrap(), s.clone_dtoh(&captured).unwrap());
        for i in 0..m * n {
            let want: f64 = (0..k).map(|p| a[i / n * k + p].to_f64() * b[p * n + i % n].to_f64()).sum();
            let mag: f64 =
                (0..k).map(|p| (a[i / n * k + p].to_f64() * b[p * n + i % n].to_f64()).abs()).sum();
            for got in [x[i], y[i]] {
                assert!((got as f64 - want).abs() <= mag * 2e-6 + want.abs() * 1e-7, "{i}: {got} vs {want}");
            }
        }
    });
}

// tf32 inputs (f32 buffers, `ElemType::TF32`): A row-major and B column-major (the only layouts
// `wgmma` reads tf32 in). A stage is 32 of K and one `wgmma` 8, so K of 100 ends half-way
// through a `wgmma` of a partial fourth stage. Every element is checked twice: against the f64
// product of the inputs cut to tf32 (f32 summation's bound: the kernel must read exactly those
// bits) and against the f64 product of the f32 inputs themselves (the crate's documented tf32
// bound, 2^-9 + 2^-20 of each product's magnitude on top).

#[test]
fn tf32_at_tile_edges_into_every_output_type() {
    each_device(|d, r| {
        // One whole 128 x 256 tile; partial M and N tiles of the 256-wide kernel, a partial
        // stage and k-step; the 128-wide kernel with tiny M.
        check::<f32, f32>(d, Case::tf32(128, 256, 64), r);
        check::<f32, f32>(d, Case::tf32(200, 300, 100), r);
        check::<f32, f32>(d, Case::tf32(17, 100, 12), r);
        // 16-bit C: rows of 264 elements take the TMA-store epilogue, 257 the register one.
        check::<f32, bf16>(d, Case::tf32(129, 264, 72).expect_tma_store(true), r);
        check::<f32, f16>(d, Case::tf32(127, 257, 40).expect_tma_store(false), r);
    });
}

#[test]
fn tf32_ring_wraps_with_alpha_beta_and_padding() {
    each_device(|d, r| {
        // 12 stages through a 4-deep ring, more tiles than the CPU device's blocks.
        check::<f32, f32>(d, Case::tf32(136, 264, 372).scale(-0.75, 0.5), r);
        // Leading dimensions of 4 elements past the rounded ones (16 bytes, not 32).
        check::<f32, f32>(d, Case::tf32(130, 140, 68).pad(4).scale(2.0, -1.0), r);
        check::<f32, bf16>(d, Case::tf32(100, 136, 72).pad(8).scale(0.5, 1.5).expect_tma_store(true), r);
    });
}

#[test]
fn tf32_column_major_output_swaps_operands() {
    each_device(|d, r| {
        check::<f32, f32>(d, Case::tf32(100, 130, 96).layouts(Row, Col, Col), r);
        check::<f32, bf16>(d, Case::tf32(72, 260, 40).layouts(Row, Col, Col).scale(1.0, 1.0), r);
    });
}

#[test]
fn tf32_every_kernel_variant() {
    each_device(|d, r| {
        for (bn, cluster_m, stages) in [(64, 1, 2), (128, 2, 3), (192, 1, 3), (256, 2, 2)] {
            let tuning = Tuning {
                bn: Some(bn),
                stages: Some(stages),
                cluster_m: Some(cluster_m),
                ..Tuning::default()
            };
            check::<f32, f32>(d, Case::tf32(300, 2 * bn as usize + 8, 104).tuned(tuning), r);
        }
    });
}

#[test]
fn tf32_large_shapes_on_gpus() {
    each_device(|d, r| {
        if is_gpu(d) {
            check::<f32, f32>(d, Case::tf32(1000, 1500, 520), r);
            check::<f32, f32>(d, Case::tf32(2048, 2048, 2048), r);
        }
    });
}
