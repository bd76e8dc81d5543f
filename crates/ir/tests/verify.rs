//! Verifier tests: each builds a function (some by editing arenas directly, to make IR the
//! builder would refuse) and checks the verifier's verdict.

use ferrocm_ir::*;

/// Verifies `f` and compares the outcome with `expect` (`Ok` or a fragment of the error).
fn check(f: &Function, expect: Result<(), &str>) {
    match (verify(f), expect) {
        (Ok(()), Ok(())) => {}
        (Err(e), Err(frag)) => assert!(e.to_string().contains(frag), "error `{e}` lacks `{frag}`\n{f}"),
        (got, want) => panic!("verify gave {got:?}, expected {want:?}\n{f}"),
    }
}

fn copy_kernel() -> Function {
    let mut b = Builder::new("copy");
    let x = b.slice_param("x", ScalarType::F32, false);
    let y = b.slice_param("y", ScalarType::F32, true);
    let t = b.special(Special::ThreadIdx(Axis::X));
    let v = b.load(x, t, 1);
    b.store(y, t, v);
    b.finish().expect("builds")
}

#[test]
fn a_well_formed_kernel_verifies_and_prints() {
    let f = copy_kernel();
    check(&f, Ok(()));
    let text = f.to_string();
    assert!(text.contains("kernel copy(x: &[f32], y: &mut [f32])"), "{text}");
    assert!(text.contains("store @y[%0], %1"), "{text}");
}

#[test]
fn value_used_outside_its_region_is_rejected() {
    let mut b = Builder::new("scope");
    let y = b.slice_param("y", ScalarType::U32, true);
    let t = b.special(Special::ThreadIdx(Axis::X));
    let c = b.constant(ScalarType::U32, 4);
    let p = b.cmp(CmpOp::Lt, t, c);
    b.begin_if(p);
    let inner = b.binary(BinaryOp::Add, t, c);
    b.end_if();
    b.store(y, t, inner); // `inner` was defined inside the `if`
    check(&b.finish().expect("the builder does not track scopes"), Err("outside its region"));
}

#[test]
fn break_outside_a_loop_is_rejected_by_builder_and_verifier() {
    let mut b = Builder::new("brk");
    b.break_(0);
    let e = b.finish().expect_err("builder refuses");
    assert!(e.to_string().contains("outside of a loop"), "{e}");

    let mut f = copy_kernel();
    let body = f.body;
    f.regions[body.0 as usize].push(Inst { result: None, op: Op::Break { depth: 0 } });
    check(&f, Err("levels out"));
}

#[test]
fn store_to_read_only_memory_is_rejected() {
    let mut f = copy_kernel();
    let body = f.body;
    let Op::Store { index, value, .. } = f.regions[body.0 as usize][2].op.clone() else { panic!("store") };
    f.regions[body.0 as usize][2].op = Op::Store { mem: Mem(0), index, value };
    check(&f, Err("read-only"));
}

#[test]
fn mismatched_operand_types_are_rejected() {
    let mut b = Builder::new("types");
    let a = b.constant(ScalarType::F32, 0);
    let c = b.constant(ScalarType::U32, 0);
    b.binary(BinaryOp::Add, a, c);
    let e = b.finish().expect_err("builder refuses");
    assert!(e.to_string().contains("f32 and u32"), "{e}");
}

#[test]
fn shared_arrays_are_laid_out_on_their_alignment() {
    let mut b = Builder::new("smem");
    b.add_mem("a", ScalarType::F32, MemSpace::Shared { len: 3, align: 16 });
    b.add_mem("b", ScalarType::F64, MemSpace::Shared { len: 2, align: 16 });
    b.add_mem("c", ScalarType::U8, MemSpace::Shared { len: 1, align: 1024 });
    b.add_mem("d", ScalarType::U8, MemSpace::Shared { len: 1, align: 128 });
    let f = b.finish().expect("builds");
    assert_eq!(f.shared_layout(), (vec![Some(0), Some(16), Some(1024), Some(1152)], 1168));
}

#[test]
fn array_sizes_are_computed_without_wrapping() {
    // 0x2000_0001 f64 elements are 0x1_0000_0008 bytes: 8 in 32 bits, which once let a kernel
    // write past a host allocation. The size cannot exist, so the builder refuses it.
    let mut b = Builder::new("huge");
    b.add_mem("s", ScalarType::F64, MemSpace::Shared { len: 0x2000_0001, align: 16 });
    let e = b.finish().expect_err("refused");
    assert!(e.to_string().contains("4294967304 bytes"), "{e}");
    // Sizes that exist but exceed the GPU's limits build, and every back end refuses them.
    let mut b = Builder::new("big");
    b.add_mem("s", ScalarType::F64, MemSpace::Shared { len: 0x10_0000, align: 16 });
    b.add_mem("l", ScalarType::F64, MemSpace::Local { len: 0x0FFF_FFFF });
    let f = b.finish().expect("builds");
    assert_eq!(f.static_shared_bytes(), 8 << 20);
    assert_eq!(f.local_bytes_per_thread(), 0x8000_0000);
    let e = f.check_limits(&Limits::GPU).expect_err("over the limit");
    assert!(e.to_string().contains("8388608 bytes of static shared memory; the limit is 49152 bytes"), "{e}");
}

#[test]
fn alignments_must_be_powers_of_two_up_to_1024() {
    for align in [0, 8, 48, 2048] {
        let mut b = Builder::new("al");
        b.add_mem("s", ScalarType::U8, MemSpace::Shared { len: 4, align });
        let e = b.finish().expect_err("refused");
        assert!(e.to_string().contains("powers of two from 16 to 1024"), "{align}: {e}");
    }
}

#[test]
fn intrinsics_with_wrong_operands_are_rejected() {
    // The builder checks a call against its row at once.
    let mut b = Builder::new("mma");
    let z = b.constant(ScalarType::U32, 0);
    let call = Call::new(&intrinsics::tensor::MMA, &[("elem", 0)], &[], &[]);
    assert_eq!(b.intrinsic(call.clone(), vec![z]), None);
    let e = b.finish().expect_err("refused");
    assert!(e.to_string().contains("`mma.m16n8k16.f16`: takes 3 operands, got 1"), "{e}");
    // The verifier checks the same row on finished functions.
    let mut b = Builder::new("shfl");
    let t = b.special(Special::LaneId);
    let v = b.shuffle(ShuffleMode::Xor, t, t);
    let f = b.finish().expect("builds");
    check(&f, Ok(()));
    let mut bad = f.clone();
    bad.values[v.0 as usize] = ScalarType::U64.into();
    check(&bad, Err("the result is u64, but `shfl.xor` gives u32"));
}

#[test]
fn bit_count_and_wide_product_results_must_have_their_op_type() {
    let mut b = Builder::new("wide");
    let y = b.slice_param("y", ScalarType::U64, true);
    let t = b.special(Special::ThreadIdx(Axis::X));
    let w = b.binary(BinaryOp::MulWide, t, t);
    let n = b.unary(UnaryOp::CountOnes, w);
    let n64 = b.cast(n, ScalarType::U64);
    b.store(y, t, w);
    b.store(y, t, n64);
    let f = b.finish().expect("builds");
    check(&f, Ok(()));
    // A wide product typed as its operands, and a count typed as its operand, are rejected.
    for (v, ty) in [(w, ScalarType::U32), (n, ScalarType::U64)] {
        let mut bad = f.clone();
        bad.values[v.0 as usize] = ty.into();
        check(&bad, Err("result type differs"));
    }
}
