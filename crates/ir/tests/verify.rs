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
fn shared_arrays_are_laid_out_on_16_byte_boundaries() {
    let mut b = Builder::new("smem");
    b.add_mem("a", ScalarType::F32, MemSpace::Shared { len: 3 });
    b.add_mem("b", ScalarType::F64, MemSpace::Shared { len: 2 });
    let f = b.finish().expect("builds");
    assert_eq!(f.shared_layout(), (vec![Some(0), Some(16)], 32));
}

#[test]
fn intrinsics_with_wrong_operands_are_rejected() {
    let mut b = Builder::new("mma");
    let z = b.constant(ScalarType::U32, 0);
    b.intrinsic(
        Intrinsic::MmaM16N8K16 { elem: ScalarType::F16 },
        vec![z],
        Some(Type::Vector(ScalarType::F32, 4)),
    );
    check(
        &b.finish().expect("the builder leaves intrinsic shapes to the verifier"),
        Err("do not fit the intrinsic"),
    );
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
