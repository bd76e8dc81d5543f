//! IR that only the CPU executor can run (what the PTX front end makes from PTX: byte-addressed
//! memory, `printf`, `assert_fail`) is refused by the PTX back end with an error naming what it
//! met; `trap` and `nanosleep` lower to their PTX instructions.

use ferrocm_ir::*;
use ferrocm_ptx::{generate, target_for_arch, PtxError};

fn unsupported(f: &Function) -> String {
    match generate(f, &target_for_arch("sm_90")) {
        Err(PtxError::Unsupported { kernel, what }) => {
            assert_eq!(kernel, f.name);
            what
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[test]
fn byte_addressed_memory_is_refused_by_name() {
    let mut b = Builder::new("addressed");
    let p = b.scalar_param("p", ScalarType::U64);
    let m = b.add_mem("global_f32", ScalarType::F32, MemSpace::Addressed(AddrSpace::Global));
    let v = b.load(m, p, 1);
    b.store(m, p, v);
    let what = unsupported(&b.finish().unwrap());
    assert!(what.contains("byte-addressed memory `@global_f32`"), "{what}");
}

#[test]
fn printf_and_assert_fail_are_refused_by_name() {
    let mut b = Builder::new("prints");
    let p = b.scalar_param("p", ScalarType::U64);
    b.printf(p, p);
    let what = unsupported(&b.finish().unwrap());
    assert!(what.contains("`printf`") && what.contains("CPU executor"), "{what}");

    let mut b = Builder::new("asserts");
    let p = b.scalar_param("p", ScalarType::U64);
    let line = b.constant(ScalarType::U32, 7);
    b.assert_fail(p, p, p, line);
    let what = unsupported(&b.finish().unwrap());
    assert!(what.contains("`assert_fail`"), "{what}");
}

#[test]
fn trap_and_nanosleep_lower_to_their_instructions() {
    let mut b = Builder::new("sleeps");
    let t = b.special(Special::ThreadIdx(Axis::X));
    b.nanosleep(t);
    let zero = b.constant(ScalarType::U32, 0);
    let c = b.cmp(CmpOp::Eq, t, zero);
    b.begin_if(c);
    b.trap();
    b.end_if();
    let ptx = generate(&b.finish().unwrap(), &target_for_arch("sm_90")).expect("generates");
    assert!(ptx.contains("nanosleep.u32 %r"), "{ptx}");
    assert!(ptx.contains("trap;"), "{ptx}");
}
