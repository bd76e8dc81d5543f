//! The PTX text rewriter for kernel tracing (`ferrocm_ir::timed_ptx`) on the text level: what it
//! inserts where, what it leaves alone, and what it refuses. That the copies compute what their
//! entries compute and write their slots is checked by running them (`ptx-frontend`'s
//! `tests/timed.rs`); modules it refuses are in `tests/misuse.rs`.

use ferrocm_ir::timed_ptx::instrument;

const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// The copy of `timed` in `text` (from its `.entry` to the end of its body).
fn copy_of<'a>(text: &'a str, timed: &str) -> &'a str {
    let start = text.find(&format!(".entry {timed}")).unwrap_or_else(|| panic!("no copy {timed}"));
    let end = start + text[start..].find("\n}").unwrap() + 2;
    &text[start..end]
}

/// `text` without the copies `instrument` inserted (each after "\n\n").
fn without_copies(text: &str, timed: &[&str]) -> String {
    let mut t = text.to_string();
    for name in timed {
        let c = copy_of(&t, name).to_string();
        let at = t.find(&c).unwrap();
        let linkage = t[..at].rfind("\n\n").unwrap();
        t.replace_range(linkage..at + c.len(), "");
    }
    t
}

fn atoms(copy: &str) -> usize {
    copy.matches("atom.global.max.u64").count()
}

#[test]
fn entries_get_copies_and_everything_else_stays_byte_identical() {
    let text = format!(
        "{HEAD}
.extern .func ext(.param .b32 ext_x);
.entry proto(.param .u32 a);
.func (.param .b32 r) f(.param .b32 x)
{{
\t.reg .b32 %r<2>;
\tret;
}}
// ret; in a comment before the entry
.visible .entry k1(.param .u64 k1_p) // trailing ret;
.maxntid 128, 1, 1
.minnctapersm 2
{{
\t.reg .pred %p<2>;
\t.reg .b32 %r<10>;
\t.shared .align 4 .b8 tile[64];
$L__first:
\tmov.u32 %r1, %tid.x; /* ret; */ setp.eq.u32 %p1, %r1, 3;
\t@%p1 ret;
\t@!%p1 bra $L__first;
\tret.uni;
}}
.weak .entry k2
{{
\tret;
}}
"
    );
    let t = instrument(&text).unwrap();
    let names: Vec<_> = t.entries.iter().map(|e| (e.kernel.as_str(), e.timed.as_str())).collect();
    assert_eq!(names, [("k1", "k1_ferrocm_timing_slot"), ("k2", "k2_ferrocm_timing_slot")]);
    assert!(t.refused.is_empty());
    assert_eq!(without_copies(&t.text, &["k1_ferrocm_timing_slot", "k2_ferrocm_timing_slot"]), text);

    let k1 = copy_of(&t.text, "k1_ferrocm_timing_slot");
    // One fold at entry, one before each of the two exits; the body cannot fall off its end.
    assert_eq!(atoms(k1), 3, "{k1}");
    assert!(k1.contains(".maxntid 128, 1, 1\n.minnctapersm 2"));
    assert!(k1.starts_with(".entry k1_ferrocm_timing_slot(.param .u64 k1_p,\n\t.param .u64 ferrocm_timing_slot,\n\t.param .u64 ferrocm_timing_slot_len) // trailing ret;"), "{k1}");
    // The predicated exit's fold runs under its predicate and the lead's.
    assert!(k1.contains("and.pred %ferrocm_timing_slot_q, %ferrocm_timing_slot_lead, %p1;"));
    // The start's fold comes after the declarations and before the first label (a branch
    // back to it must not fold the start again).
    let start_fold = k1.find("not.b64").unwrap();
    assert!(k1.find(".shared").unwrap() < start_fold && start_fold < k1.find("$L__first:").unwrap());
    // The `.func` and the declarations are not copied.
    assert_eq!(t.text.matches(".func (.param .b32 r) f").count(), 1);
    assert!(!t.text.contains("proto_ferrocm"));

    // The linkage is kept; a body without parentheses gets them.
    let k2_at = t.text.find(".entry k2_ferrocm_timing_slot").unwrap();
    assert!(t.text[..k2_at].ends_with(".weak "));
    assert!(copy_of(&t.text, "k2_ferrocm_timing_slot")
        .starts_with(".entry k2_ferrocm_timing_slot(.param .u64 ferrocm_timing_slot,\n\t.param .u64 ferrocm_timing_slot_len)"));
    assert_eq!(atoms(copy_of(&t.text, "k2_ferrocm_timing_slot")), 2);
}

#[test]
fn bodies_that_can_fall_off_their_end_fold_there() {
    for (body, folds) in [
        // No exit at all.
        ("\tmov.u32 %r1, 1;\n", 2),
        // A predicated exit last: its fold, and the end's.
        ("\tmov.u32 %r1, 1;\n\t@%p1 exit;\n", 3),
        // An exit, then a label a branch names: reachable, so folded too.
        ("\t@%p1 bra $L__end;\n\tret;\n$L__end:\n", 3),
        // An exit, then a label nothing names (clang's debug labels): not reachable.
        ("\tret;\n$L__func_end0:\n", 2),
        // An empty body.
        ("", 2),
        // A debug line directive without a `;` before the exit.
        ("\t.loc 1 5 0\n\tret;\n", 2),
    ] {
        let text = format!("{HEAD}.entry k()\n{{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n{body}}}\n");
        let t = instrument(&text).unwrap();
        let copy = copy_of(&t.text, "k_ferrocm_timing_slot");
        assert_eq!(atoms(copy), folds, "{copy}");
    }
}

#[test]
fn names_never_collide_with_the_kernel_s() {
    // The module already names `ferrocm_timing_slot`: the fresh names take another tag.
    let text = format!(
        "{HEAD}.entry ferrocm_timing_slot(.param .u64 ferrocm_timing_slot_1_x)\n{{\n\t.reg .b64 %ferrocm_timing_slot_2<3>;\n\tret;\n}}\n"
    );
    let t = instrument(&text).unwrap();
    assert_eq!(t.entries[0].timed, "ferrocm_timing_slot_ferrocm_timing_slot_3");
    assert!(t.text.contains(".param .u64 ferrocm_timing_slot_3,"));
    assert!(t.text.contains(".reg .pred %ferrocm_timing_slot_3_lead;"));
}

#[test]
fn entries_whose_parameters_would_pass_the_limit_are_refused() {
    // 4080 + 16 fits 4096; 4088 + 16 does not (PTX before 8.1).
    let k = |name: &str, bytes: u32| {
        format!(".entry {name}(.param .align 8 .b8 {name}_p[{bytes}])\n{{\n\tret;\n}}\n")
    };
    let text = format!("{HEAD}{}{}", k("fits", 4080), k("big", 4088));
    let t = instrument(&text).unwrap();
    assert_eq!(t.entries.len(), 1);
    assert_eq!(t.entries[0].kernel, "fits");
    assert_eq!(t.refused.len(), 1);
    assert_eq!(t.refused[0].kernel, "big");
    assert!(
        t.refused[0].reason.contains("4088") && t.refused[0].reason.contains("4096"),
        "{}",
        t.refused[0].reason
    );
    // PTX 8.1 on sm_70 and later: 32764 bytes.
    let text = format!(".version 8.1\n.target sm_90a\n.address_size 64\n{}", k("big", 4088));
    assert_eq!(instrument(&text).unwrap().entries.len(), 1);
    // A parameter it cannot lay out is refused, not guessed.
    let text = format!("{HEAD}.entry odd(.param .u64 odd_p[n])\n{{\n\tret;\n}}\n");
    let t = instrument(&text).unwrap();
    assert!(t.entries.is_empty() && t.refused.len() == 1, "{t:?}");
}

#[test]
fn entry_names_with_a_dot_are_unreadable() {
    // CI's fuzzing (timed_ptx) found `.entry _Z9t.versionile(...)`: the rewriter read an entry
    // `_Z9t` without parameters that the PTX front end does not have. PTX names have no dots.
    let text = format!("{HEAD}.visible .entry _Z9t.versionile_sums(.param .u64 p)\n{{\n\tret;\n}}\n");
    let err = instrument(&text).unwrap_err().to_string();
    assert!(err.contains("`.` in it"), "{err}");
    // A directive after the name, separated by space, is still read as before.
    let text = format!("{HEAD}.visible .entry ok .maxntid 32, 1, 1\n{{\n\tret;\n}}\n");
    assert_eq!(instrument(&text).unwrap().entries[0].kernel, "ok");
}
