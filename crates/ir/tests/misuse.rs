//! Misuse of `ferrocm_ir::timed_ptx::instrument`: text it cannot read and modules it cannot
//! time, one case per row: each is an error of the expected kind naming what was wrong (the
//! caller then loads the text as given, timed by events), never a panic or a guessed rewrite.

use ferrocm_ir::timed_ptx::{instrument, TimedPtxError};

const HEAD: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

#[derive(Debug, PartialEq)]
enum Kind {
    Unreadable,
    Unsupported,
}

struct Case {
    what: &'static str,
    text: String,
    kind: Kind,
    /// Text the message must hold.
    says: &'static str,
}

fn check(case: &Case) {
    let e = match instrument(&case.text) {
        Ok(t) => panic!("{}: instrumented:\n{}", case.what, t.text),
        Err(e) => e,
    };
    let kind = match e {
        TimedPtxError::Unreadable { .. } => Kind::Unreadable,
        TimedPtxError::Unsupported { .. } => Kind::Unsupported,
        _ => panic!("{}: unexpected error {e:?}", case.what),
    };
    assert_eq!(kind, case.kind, "{}: {e}", case.what);
    assert!(e.to_string().contains(case.says), "{}: `{e}` does not say `{}`", case.what, case.says);
}

#[test]
fn refused_modules_are_errors_naming_why() {
    let entry = ".entry k()\n{\n\tret;\n}\n";
    let cases = [
        Case {
            what: "an unterminated block comment",
            text: format!("{HEAD}/* open\n{entry}"),
            kind: Kind::Unreadable,
            says: "line 4",
        },
        Case {
            what: "an unclosed body",
            text: format!("{HEAD}.entry k()\n{{\n\tret;\n"),
            kind: Kind::Unreadable,
            says: "not closed",
        },
        Case {
            what: "a stray brace",
            text: format!("{HEAD}{entry}}}\n"),
            kind: Kind::Unreadable,
            says: "closes nothing",
        },
        Case {
            what: "an unterminated string",
            text: format!("{HEAD}.entry k()\n{{\n\t.pragma \"nounroll;\n}}\n"),
            kind: Kind::Unreadable,
            says: "string",
        },
        Case {
            what: "an entry without a name",
            text: format!("{HEAD}.entry (\n"),
            kind: Kind::Unreadable,
            says: "without a name",
        },
        Case {
            what: "an entry without a body",
            text: format!("{HEAD}.entry k()\n"),
            kind: Kind::Unreadable,
            says: "without a body",
        },
        Case {
            what: "non-ASCII code",
            text: format!("{HEAD}.entry k\u{e9}()\n{{\n\tret;\n}}\n"),
            kind: Kind::Unreadable,
            says: "ASCII",
        },
        Case {
            what: "32-bit addresses",
            text: format!(".version 8.0\n.target sm_80\n.address_size 32\n{entry}"),
            kind: Kind::Unsupported,
            says: "address_size 64",
        },
        Case {
            what: "no address size (32-bit by default)",
            text: format!(".version 8.0\n.target sm_80\n{entry}"),
            kind: Kind::Unsupported,
            says: "address_size 64",
        },
        Case {
            what: "PTX older than %globaltimer",
            text: format!(".version 3.0\n.target sm_30\n.address_size 64\n{entry}"),
            kind: Kind::Unsupported,
            says: "3.1",
        },
    ];
    for case in &cases {
        check(case);
    }
}

/// Entries it cannot instrument are left without a copy and named with the reason; the module's
/// other entries still get theirs.
#[test]
fn refused_entries_are_named_and_the_rest_instrumented() {
    let ok = ".entry ok()\n{\n\tret;\n}\n";
    for (what, bad, says) in [
        ("a guard without an instruction", ".entry bad()\n{\n\t@ ret;\n}\n", "guard"),
        ("a statement left open", ".entry bad()\n{\n\tmov.u32 %r1, 1\n}\n", "inside a statement"),
        ("a parameter it cannot lay out", ".entry bad(.param .v2 .u32 bad_p)\n{\n\tret;\n}\n", ".v2"),
        ("a register parameter", ".entry bad(.reg .u32 bad_p)\n{\n\tret;\n}\n", "not a `.param`"),
        (
            "parameters past the limit",
            ".entry bad(.param .align 8 .b8 bad_p[4090])\n{\n\tret;\n}\n",
            "limit of 4096",
        ),
    ] {
        let text = format!("{HEAD}{bad}{ok}");
        let t = instrument(&text).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(t.refused.len(), 1, "{what}: {t:?}");
        assert_eq!(t.refused[0].kernel, "bad");
        assert!(
            t.refused[0].reason.contains(says),
            "{what}: `{}` does not say `{says}`",
            t.refused[0].reason
        );
        assert_eq!(t.entries.len(), 1, "{what}");
        assert_eq!(t.entries[0].kernel, "ok");
        assert!(!t.text.contains("bad_ferrocm_timing_slot"), "{what}");
    }
}
