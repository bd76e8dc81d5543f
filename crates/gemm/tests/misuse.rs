//! Misuse: every bad request is refused with the error that names it, and C is left as it was.
//! One table of cases, one `check`.

use ferrocm_gemm::{ElemType, Gemm, GemmDesc, GemmError, Layout, Tuning};
use ferrocm_kernel::bf16;
use ferrocm_kernel::runtime::Device;

type Want = fn(&GemmError) -> bool;

struct Case {
    name: &'static str,
    desc: GemmDesc,
    tuning: Tuning,
    /// Elements of the A, B and C buffers (A and B bf16; C of `c_f32` ? f32 : bf16).
    lens: [usize; 3],
    c_f32: bool,
    want: Want,
}

fn case(name: &'static str, desc: GemmDesc, want: Want) -> Case {
    let (m, n, k) = (desc.m.clamp(1, 4096), desc.n.clamp(1, 4096), desc.k.clamp(1, 4096));
    Case {
        name,
        desc,
        tuning: Tuning::default(),
        lens: [m * k + 64, k * n + 64, m * n + 64],
        c_f32: true,
        want,
    }
}

fn bf(m: usize, n: usize, k: usize) -> GemmDesc {
    GemmDesc::new(m, n, k, ElemType::BF16).with_c_type(ElemType::F32)
}

/// An e4m3 request as `torch._scaled_mm` makes it (A row-major, B column-major, C bf16).
fn e4(m: usize, n: usize, k: usize) -> GemmDesc {
    GemmDesc::new_scaled(m, n, k, ElemType::E4M3).with_scales(0.5, 2.0)
}

/// A tf32 request: f32 A row-major and B column-major (the layouts tf32 inputs need), f32 C.
fn tf(m: usize, n: usize, k: usize) -> GemmDesc {
    GemmDesc::new(m, n, k, ElemType::TF32).with_c_type(ElemType::F32).with_layouts(
        Layout::RowMajor,
        Layout::ColMajor,
        Layout::RowMajor,
    )
}

fn cases() -> Vec<Case> {
    use Layout::{ColMajor as Col, RowMajor as Row};
    let shape = |what: &'static str| -> Want {
        match what {
            "k" => |e| matches!(e, GemmError::InvalidShape { what: "k", .. }),
            "scale_a/scale_b" => |e| matches!(e, GemmError::InvalidShape { what: "scale_a/scale_b", .. }),
            "lda" => |e| matches!(e, GemmError::InvalidShape { what: "lda", .. }),
            "ldb" => |e| matches!(e, GemmError::InvalidShape { what: "ldb", .. }),
            "ldc" => |e| matches!(e, GemmError::InvalidShape { what: "ldc", .. }),
            "m" => |e| matches!(e, GemmError::InvalidShape { what: "m", .. }),
            "alpha/beta" => |e| matches!(e, GemmError::InvalidShape { what: "alpha/beta", .. }),
            "tuning.bn" => |e| matches!(e, GemmError::InvalidShape { what: "tuning.bn", .. }),
            "tuning.tma_store" => |e| matches!(e, GemmError::InvalidShape { what: "tuning.tma_store", .. }),
            "tuning.split_k" => |e| matches!(e, GemmError::InvalidShape { what: "tuning.split_k", .. }),
            "stride_a" => |e| matches!(e, GemmError::InvalidShape { what: "stride_a", .. }),
            "stride_b" => |e| matches!(e, GemmError::InvalidShape { what: "stride_b", .. }),
            "stride_c" => |e| matches!(e, GemmError::InvalidShape { what: "stride_c", .. }),
            _ => |e| matches!(e, GemmError::InvalidShape { what: "tuning.cluster_m", .. }),
        }
    };
    let types: Want = |e| matches!(e, GemmError::UnsupportedTypes { .. });
    let layouts: Want = |e| matches!(e, GemmError::UnsupportedLayouts { .. });
    let mut v = vec![
        case("f32 inputs", bf(64, 64, 64).with_input_types(ElemType::F32, ElemType::F32), types),
        case(
            "mixed f16 and bf16 inputs",
            bf(64, 64, 64).with_input_types(ElemType::F16, ElemType::BF16),
            types,
        ),
        case("k = 0", bf(64, 64, 0), shape("k")),
        case("m past i32", bf(1 << 31, 8, 8), shape("m")),
        case("lda under k", bf(64, 64, 64).with_leading_dims(32, 64, 64), shape("lda")),
        case("lda not 16 bytes", bf(64, 64, 60).with_leading_dims(60, 64, 64), shape("lda")),
        case(
            "column-major ldb under k",
            bf(64, 64, 64).with_layouts(Row, Col, Row).with_leading_dims(64, 16, 64),
            shape("ldb"),
        ),
        case("row-major ldb not 16 bytes", bf(64, 100, 64).with_leading_dims(64, 100, 100), shape("ldb")),
        case("ldc under n", bf(64, 64, 64).with_leading_dims(64, 64, 63), shape("ldc")),
        case(
            "column-major ldc under m",
            bf(64, 32, 64).with_layouts(Row, Row, Col).with_leading_dims(64, 32, 40),
            shape("ldc"),
        ),
        case("NaN alpha", bf(64, 64, 64).with_alpha_beta(f32::NAN, 0.0), shape("alpha/beta")),
        case("infinite beta", bf(64, 64, 64).with_alpha_beta(1.0, f32::INFINITY), shape("alpha/beta")),
        // 8-bit inputs: K-major operands only, 16-byte rows, one 8-bit type for both, 16- or
        // 32-bit C, finite scales.
        case("e4m3 with a row-major B", e4(64, 64, 64).with_layouts(Row, Row, Row), layouts),
        case("e4m3 with a column-major A", e4(64, 64, 64).with_layouts(Col, Col, Row), layouts),
        case("e4m3 NN into a column-major C", e4(64, 64, 64).with_layouts(Col, Row, Col), layouts),
        case("e4m3 with k not a multiple of 16", e4(64, 64, 40), shape("k")),
        case("e4m3 with lda not 16 bytes", e4(64, 64, 64).with_leading_dims(72, 64, 64), shape("lda")),
        case("e4m3 with ldb not 16 bytes", e4(64, 64, 32).with_leading_dims(32, 40, 64), shape("ldb")),
        case(
            "mixed e4m3 and bf16 inputs",
            e4(64, 64, 64).with_input_types(ElemType::E4M3, ElemType::BF16),
            types,
        ),
        case(
            "mixed bf16 and e4m3 inputs",
            bf(64, 64, 64).with_input_types(ElemType::BF16, ElemType::E4M3),
            types,
        ),
        case(
            "mixed e4m3 and e5m2 inputs",
            e4(64, 64, 64).with_input_types(ElemType::E4M3, ElemType::E5M2),
            types,
        ),
        case("an e4m3 C", e4(64, 64, 64).with_c_type(ElemType::E4M3), types),
        case("NaN scale_a", e4(64, 64, 64).with_scales(f32::NAN, 1.0), shape("scale_a/scale_b")),
        case("infinite scale_b", bf(64, 64, 64).with_scales(1.0, f32::INFINITY), shape("scale_a/scale_b")),
        case(
            "scales whose product overflows f32",
            e4(64, 64, 64).with_scales(1e30, 1e30),
            shape("scale_a/scale_b"),
        ),
        // tf32 inputs (f32 data): K-major operands only, 16-byte rows (lda a multiple of 4).
        case("tf32 with a row-major B", tf(64, 64, 64).with_layouts(Row, Row, Row), layouts),
        case("tf32 with a column-major A", tf(64, 64, 64).with_layouts(Col, Col, Row), layouts),
        case("tf32 NN into a column-major C", tf(64, 64, 64).with_layouts(Col, Row, Col), layouts),
        case("tf32 with lda not 16 bytes", tf(64, 64, 62).with_leading_dims(62, 64, 64), shape("lda")),
        case("tf32 A with f32 B", tf(64, 64, 64).with_input_types(ElemType::TF32, ElemType::F32), types),
        case("a tf32 C", tf(64, 64, 64).with_c_type(ElemType::TF32), types),
    ];
    // The buffers of every case are bf16: a tf32 plan wants f32 buffers.
    v.push(case("bf16 buffers for a tf32 plan", tf(64, 64, 64), |e| {
        matches!(e, GemmError::WrongType { operand: "A", want: ElemType::F32, got: ElemType::BF16 })
    }));
    let mut t = case("e4m3 tile width 256", e4(256, 512, 128), shape("tuning.bn"));
    t.tuning.bn = Some(256);
    v.push(t);
    // The buffers of every case are bf16: an e4m3 plan refuses them when it runs.
    let mut t = case("bf16 buffers for an e4m3 plan", e4(64, 64, 64).with_c_type(ElemType::F32), |e| {
        matches!(e, GemmError::WrongType { operand: "A", want: ElemType::E4M3, got: ElemType::BF16 })
    });
    t.c_f32 = true;
    v.push(t);
    let mut t = case("tile width 100", bf(256, 256, 64), shape("tuning.bn"));
    t.tuning.bn = Some(100);
    v.push(t);
    let mut t = case("cluster of 3", bf(256, 256, 64), shape("tuning.cluster_m"));
    t.tuning.cluster_m = Some(3);
    v.push(t);
    let mut t = case("pair sharing a row-major B of one span", bf(256, 256, 64), shape("tuning.cluster_m"));
    t.tuning = Tuning { bn: Some(64), cluster_m: Some(2), ..Tuning::default() };
    v.push(t);
    // The shared-memory epilogue moves 16-bit C with `stmatrix`/`ldmatrix` and rows of a
    // multiple of 16 bytes with TMA.
    let bf16_c = |d: GemmDesc| d.with_c_type(ElemType::BF16);
    for (name, desc) in [
        ("TMA-store epilogue into an f32 C", bf(128, 128, 64)),
        (
            "TMA-store epilogue with ldc not 16 bytes",
            bf16_c(bf(128, 128, 64)).with_leading_dims(64, 128, 132),
        ),
    ] {
        let mut t = case(name, desc, shape("tuning.tma_store"));
        t.tuning.tma_store = Some(true);
        t.c_f32 = desc.types().2 == ElemType::F32;
        v.push(t);
    }
    let small = |operand: &'static str| -> Want {
        match operand {
            "A" => |e| matches!(e, GemmError::BufferTooSmall { operand: "A", .. }),
            "B" => |e| matches!(e, GemmError::BufferTooSmall { operand: "B", .. }),
            _ => |e| matches!(e, GemmError::BufferTooSmall { operand: "C", .. }),
        }
    };
    for (i, operand) in ["A", "B", "C"].into_iter().enumerate() {
        let mut t = case("short buffer", bf(100, 72, 40), small(operand));
        t.name = ["A shorter than m x k", "B shorter than k x n", "C shorter than m x n"][i];
        t.lens[i] = [100 * 40, 40 * 72, 100 * 72][i] - 1;
        v.push(t);
    }
    let mut t = case("padded C one element short", bf(64, 64, 64).with_leading_dims(64, 64, 80), small("C"));
    t.lens[2] = 63 * 80 + 63;
    v.push(t);
    // Batches: TMA reads A and B with the batch as a third tensor dimension (strides of 16
    // bytes, matrices not interleaved); C's matrices may not overlap; buffers hold every product.
    let batch = |sa, sb, sc| bf(64, 64, 64).with_batch(3, sa, sb, sc);
    for (name, desc, want) in [
        ("stride_a not 16 bytes", batch(4100, 4096, 4096), shape("stride_a")),
        ("stride_a under one matrix", batch(4088, 4096, 4096), shape("stride_a")),
        ("stride_b under one matrix", batch(4096, 64, 4096), shape("stride_b")),
        ("overlapping C matrices", batch(4096, 4096, 4095), shape("stride_c")),
        ("broadcast C", batch(4096, 0, 0), shape("stride_c")),
    ] {
        v.push(case(name, desc, want));
    }
    // Split-K: 1 to one slice per k-tile, single products only, the register epilogue.
    for (name, desc, split, tma) in [
        ("split_k 0", bf(64, 64, 256), 0, None),
        ("split_k over the k-tiles", bf(64, 64, 256), 5, None),
        ("split_k with a batch", bf(64, 64, 256).with_batch(3, 16384, 16384, 4096), 2, None),
        ("split_k with the TMA-store epilogue", bf(64, 64, 256).with_c_type(ElemType::BF16), 2, Some(true)),
    ] {
        let mut t = case(name, desc, shape("tuning.split_k"));
        t.tuning = Tuning { split_k: Some(split), tma_store: tma, ..Tuning::default() };
        t.c_f32 = desc.types().2 == ElemType::F32;
        v.push(t);
    }
    let mut t = case("A shorter than the batch", batch(4096, 0, 4096), small("A"));
    t.lens = [3 * 4096 - 1, 4096, 3 * 4096];
    v.push(t);
    let mut t = case("C shorter than the batch", batch(0, 4096, 4100), small("C"));
    t.lens = [4096, 3 * 4096, 2 * 4100 + 4096 - 1];
    v.push(t);
    let mut t = case("C of another type", bf(64, 64, 64), |e| {
        matches!(e, GemmError::WrongType { operand: "C", want: ElemType::F32, got: ElemType::BF16 })
    });
    t.c_f32 = false;
    v.push(t);
    v
}

fn check(case: &Case) {
    let device = Device::cpu().expect("the CPU device");
    let stream = device.create_stream().unwrap();
    let a = stream.clone_htod(&vec![bf16::from_f32(1.0); case.lens[0]]).unwrap();
    let b = stream.clone_htod(&vec![bf16::from_f32(1.0); case.lens[1]]).unwrap();
    let got = Gemm::plan_tuned(&device, &case.desc, case.tuning).and_then(|plan| {
        if case.c_f32 {
            let mut c = stream.clone_htod(&vec![7.0f32; case.lens[2]]).unwrap();
            let r = plan.run(&stream, &a, &b, &mut c);
            let after = stream.clone_dtoh(&c).unwrap();
            assert!(after.iter().all(|&x| x == 7.0), "{}: C was written", case.name);
            r
        } else {
            let mut c = stream.clone_htod(&vec![bf16::from_f32(7.0); case.lens[2]]).unwrap();
            let r = plan.run(&stream, &a, &b, &mut c);
            let after = stream.clone_dtoh(&c).unwrap();
            assert!(after.iter().all(|&x| x == bf16::from_f32(7.0)), "{}: C was written", case.name);
            r
        }
    });
    match got {
        Err(e) => {
            assert!((case.want)(&e), "{}: wrong error: {e:?}", case.name);
            assert!(!e.to_string().is_empty());
            eprintln!("{}: {e}", case.name);
        }
        Ok(()) => panic!("{}: accepted", case.name),
    }
}

#[test]
fn misuse_is_refused_without_writing() {
    for c in cases() {
        check(&c);
    }
}

#[test]
fn empty_products_write_nothing() {
    let device = Device::cpu().unwrap();
    let stream = device.create_stream().unwrap();
    for (m, n) in [(0, 64), (64, 0)] {
        let plan = Gemm::plan(&device, &bf(m, n, 64)).unwrap();
        let a = stream.clone_htod(&vec![bf16::from_f32(1.0); 64 * 64]).unwrap();
        let b = stream.clone_htod(&vec![bf16::from_f32(1.0); 64 * 64]).unwrap();
        let mut c = stream.clone_htod(&[5.0f32; 16]).unwrap();
        plan.run(&stream, &a, &b, &mut c).unwrap();
        assert_eq!(stream.clone_dtoh(&c).unwrap(), vec![5.0; 16]);
    }
}
