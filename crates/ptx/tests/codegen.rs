//! PTX generator tests that need no GPU: module structure, the slice ABI, target checks and
//! the JIT-log helper. (Generated code is run on GPUs by ferrocm-kernel's conformance suite.)

use ferrocm_backend::{Feature, Target};
use ferrocm_ir::intrinsics::{self, Call};
use ferrocm_ir::*;
use ferrocm_ptx::{annotate_jit_log, generate, target_for_arch, PtxError};

fn check(ptx: &str, expect_lines: &[&str]) {
    for l in expect_lines {
        assert!(ptx.lines().any(|p| p.trim() == *l), "missing `{l}` in\n{ptx}");
    }
}

fn scale_kernel() -> Function {
    let mut b = Builder::new("scale");
    let a = b.scalar_param("a", ScalarType::F32);
    let x = b.slice_param("x", ScalarType::F32, true);
    let t = b.special(Special::ThreadIdx(Axis::X));
    let v = b.load(x, t, 1);
    let r = b.binary(BinaryOp::Mul, a, v);
    b.store(x, t, r);
    b.finish().expect("builds")
}

#[test]
fn module_header_entry_and_slice_abi() {
    let ptx = generate(&scale_kernel(), &target_for_arch("sm_90")).expect("generates");
    check(
        &ptx,
        &[
            // sm_90 needs PTX 7.8; nothing in the kernel needs more.
            ".version 7.8",
            ".target sm_90",
            ".address_size 64",
            ".visible .entry scale(",
            ".param .f32 scale_param_0,",
            ".param .u64 scale_param_1,",
            ".param .u64 scale_param_1_len",
            "mul.rn.f32 %f3, %f1, %f2;",
        ],
    );
}

fn mma_kernel() -> Function {
    let mut b = Builder::new("mma");
    let z = b.constant(ScalarType::U32, 0);
    let f = b.constant(ScalarType::F32, 0);
    let a = b.make_vector(&[z, z, z, z]);
    let bb = b.make_vector(&[z, z]);
    let c = b.make_vector(&[f, f, f, f]);
    let call = Call::new(&intrinsics::tensor::MMA, &[("elem", 1)], &[], &[]);
    b.intrinsic(call, vec![a, bb, c]).expect("an mma");
    b.finish().expect("builds")
}

#[test]
fn intrinsics_need_their_feature_and_the_error_names_both() {
    let func = mma_kernel();
    let ptx = generate(&func, &target_for_arch("sm_80")).expect("sm_80 has mma.sync");
    check(&ptx, &[".version 7.0", ".target sm_80"]);
    assert!(ptx.contains("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f"), "{ptx}");
    let mut turing = Target::nvidia((7, 5), 13000);
    turing.arch = "sm_75".into();
    match generate(&func, &turing) {
        Err(e @ PtxError::MissingFeature { feature: Feature::MmaSync, .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("`mma.m16n8k16.bf16` needs mma.sync (sm_80 or newer), but the target is sm_75"),
                "{msg}"
            );
        }
        other => panic!("expected a missing feature, got {other:?}"),
    }
}

#[test]
fn ptx_version_follows_the_features_used_and_the_driver_bounds_it() {
    // A wgmma kernel needs sm_90a and PTX 8.0.
    let mut b = Builder::new("wg");
    let call = Call::new(&intrinsics::wgmma::FENCE, &[], &[], &[]);
    b.intrinsic(call, vec![]);
    let f = b.finish().expect("builds");
    let hopper = Target::nvidia((9, 0), 12040);
    let ptx = generate(&f, &hopper).expect("sm_90a has wgmma");
    check(&ptx, &[".version 8.0", ".target sm_90a", "wgmma.fence.sync.aligned;"]);
    // Plain sm_90 lacks the architecture-specific wgmma.
    let e = generate(&f, &target_for_arch("sm_90")).expect_err("no wgmma on sm_90");
    assert!(e.to_string().contains("needs wgmma (sm_90a or newer), but the target is sm_90"), "{e}");
    // A driver too old for the version the instruction needs is an error, not a JIT failure.
    let mut old = hopper.clone();
    old.max_ptx_version = (7, 8);
    let e = generate(&f, &old).expect_err("driver too old");
    assert!(e.to_string().contains("needs PTX ISA 8.0, but the driver takes at most 7.8"), "{e}");
    // The CPU executor's target is not PTX.
    assert!(matches!(generate(&f, &Target::cpu_exec()), Err(PtxError::WrongTarget { .. })));
}

#[test]
fn jit_log_lines_are_annotated_with_the_ptx_they_point_at() {
    let ptx = ".version 8.0\n.target sm_90\n\tbogus.instruction %r1;\n";
    let log = "ptxas application ptx input, line 3; error   : Unknown instruction 'bogus.instruction'";
    let out = annotate_jit_log(ptx, log);
    assert!(out.contains("line 3; error"), "{out}");
    assert!(out.contains("    3 | bogus.instruction %r1;"), "{out}");
    // Lines past the end are left alone rather than misreported.
    assert!(!annotate_jit_log(ptx, "line 99; error").contains(" | "));
}

/// The PTX of a kernel applying `op` to two `ty` parameters and storing the result.
fn int_op_ptx(ty: ScalarType, op: impl FnOnce(&mut Builder, Value, Value) -> Value) -> String {
    let mut b = Builder::new("intrinsic");
    let (x, y) = (b.scalar_param("x", ty), b.scalar_param("y", ty));
    let r = op(&mut b, x, y);
    let out = b.slice_param("out", b.value_type(r).elem(), true);
    let z = b.constant(ScalarType::U32, 0);
    b.store(out, z, r);
    generate(&b.finish().expect("builds"), &target_for_arch("sm_90")).expect("generates")
}

/// Asserts that some line of `ptx` starts with each of `mnemonics` (registers vary).
fn check_emits(ptx: &str, mnemonics: &[&str]) {
    for m in mnemonics {
        assert!(ptx.lines().any(|l| l.trim().starts_with(m)), "missing `{m}` in\n{ptx}");
    }
}

#[test]
fn mul_hi_and_mul_wide_lower_to_one_instruction() {
    use ScalarType::*;
    for (ty, m) in [(U32, "mul.hi.u32"), (I32, "mul.hi.s32"), (U64, "mul.hi.u64"), (I64, "mul.hi.s64")] {
        check_emits(&int_op_ptx(ty, |b, x, y| b.binary(BinaryOp::MulHi, x, y)), &[m]);
    }
    for (ty, m) in [(U32, "mul.wide.u32 %rd"), (I32, "mul.wide.s32 %rd")] {
        check_emits(&int_op_ptx(ty, |b, x, y| b.binary(BinaryOp::MulWide, x, y)), &[m]);
    }
}

#[test]
fn bit_counts_lower_to_clz_popc_brev() {
    for (ty, w) in [
        (ScalarType::U32, "b32"),
        (ScalarType::I32, "b32"),
        (ScalarType::U64, "b64"),
        (ScalarType::I64, "b64"),
    ] {
        let un = |op: UnaryOp| int_op_ptx(ty, move |b, x, _| b.unary(op, x));
        // Counts land in a 32-bit register whatever the operand's width.
        check_emits(&un(UnaryOp::LeadingZeros), &[&format!("clz.{w} %r")]);
        check_emits(&un(UnaryOp::CountOnes), &[&format!("popc.{w} %r")]);
        check_emits(&un(UnaryOp::TrailingZeros), &[&format!("brev.{w}"), &format!("clz.{w} %r")]);
        check_emits(&un(UnaryOp::ReverseBits), &[&format!("brev.{w}")]);
    }
}

#[test]
fn float_bit_casts_are_register_moves() {
    use ScalarType::*;
    for (from, to, m) in [
        (F32, U32, "mov.b32 %r"),
        (U32, F32, "mov.b32 %f"),
        (F64, U64, "mov.b64 %rd"),
        (U64, F64, "mov.b64 %fd"),
    ] {
        check_emits(&int_op_ptx(from, |b, x, _| b.bitcast(x, to)), &[m]);
    }
    check_emits(&int_op_ptx(F16, |b, x, _| b.bitcast(x, U16)), &["cvt.u32.u16 %r"]);
    check_emits(&int_op_ptx(U16, |b, x, _| b.bitcast(x, BF16)), &["cvt.u16.u32 %h"]);
}

#[test]
fn f64_exp_ln_sin_cos_are_f64_sequences_not_f32_approximations() {
    for op in [UnaryOp::Exp, UnaryOp::Log, UnaryOp::Sin, UnaryOp::Cos] {
        let ptx = int_op_ptx(ScalarType::F64, |b, x, _| b.unary(op, x));
        check_emits(&ptx, &["fma.rn.f64"]);
        for f32_path in ["cvt.rn.f32.f64", "ex2.approx", "lg2.approx", "sin.approx", "cos.approx"] {
            assert!(!ptx.contains(f32_path), "{op:?} still uses `{f32_path}`:\n{ptx}");
        }
    }
    // f32 keeps the fast hardware approximation.
    check_emits(&int_op_ptx(ScalarType::F32, |b, x, _| b.unary(UnaryOp::Sin, x)), &["sin.approx.f32"]);
}

/// A global index `row + j` (`row` a `u64`, `j` a zero-extended `u32`) used only to address
/// memory is split into `(base + row size) + j size` (the row's part shared by its accesses, a
/// `mul.wide.u32` per access); an index that is also used otherwise (here a bounds check) keeps
/// its one 64-bit product.
#[test]
fn row_plus_u32_indices_are_split_only_where_used_only_as_addresses() {
    let mut b = Builder::new("rows");
    let row = b.scalar_param("row", ScalarType::U64);
    let n = b.scalar_param("n", ScalarType::U64);
    let x = b.slice_param("x", ScalarType::F32, false);
    let y = b.slice_param("y", ScalarType::F32, true);
    let t = b.special(Special::ThreadIdx(Axis::X));
    let five = b.constant(ScalarType::U32, 5);
    let t5 = b.binary(BinaryOp::Add, t, five);
    let (w, w5) = (b.cast(t, ScalarType::U64), b.cast(t5, ScalarType::U64));
    let (i, i5) = (b.binary(BinaryOp::Add, row, w), b.binary(BinaryOp::Add, w5, row));
    let (a, c) = (b.load(x, i, 1), b.load(x, i5, 1));
    let s = b.binary(BinaryOp::Add, a, c);
    // The store's index is also compared: not split.
    let k = b.binary(BinaryOp::Add, row, w);
    let inside = b.cmp(CmpOp::Lt, k, n);
    b.begin_if(inside);
    b.store(y, k, s);
    b.end_if();
    let ptx = generate(&b.finish().expect("builds"), &target_for_arch("sm_90")).expect("generates");
    let count = |m: &str| ptx.lines().filter(|l| l.trim_start().starts_with(m)).count();
    // Both loads (the sum in either operand order), and only they.
    assert_eq!(count("mad.lo.s64"), 2, "{ptx}");
    assert_eq!(count("mul.wide.u32"), 2, "{ptx}");
    assert_eq!(count("mul.lo.s64"), 1, "{ptx}");
    let load = ptx.lines().position(|l| l.contains("ld.global.f32")).expect("a load");
    let split: Vec<&str> = ptx.lines().take(load).skip(load - 3).map(str::trim).collect();
    assert!(split[0].starts_with("mad.lo.s64") && split[0].ends_with(", 4, %rd1;"), "{split:?}");
    assert!(split[1].starts_with("mul.wide.u32") && split[1].ends_with(", 4;"), "{split:?}");
    assert!(split[2].starts_with("add.s64"), "{split:?}");
}
