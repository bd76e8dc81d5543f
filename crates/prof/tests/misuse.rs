//! Misuse of the profiler's configuration: each case asserts the error kind and its message,
//! and that nothing was written.

use std::collections::HashMap;

use ferrocm_prof::{ProfError, Session, Trace};

struct Case {
    vars: &'static [(&'static str, &'static str)],
    /// A substring of the message.
    want: &'static str,
}

const CASES: &[Case] = &[
    Case { vars: &[("FERROCM_PROF", "kernels")], want: "`kernels` is not a record kind" },
    Case { vars: &[("FERROCM_PROF", "stats")], want: "nothing to record" },
    Case { vars: &[("FERROCM_PROF", ",")], want: "nothing to record" },
    Case {
        vars: &[("FERROCM_PROF", "kernel"), ("FERROCM_PROF_FORMAT", "pftrace")],
        want: "unknown output format `pftrace`",
    },
    Case {
        vars: &[("FERROCM_PROF", "kernel"), ("FERROCM_PROF_FORMAT", "csv,xml")],
        want: "unknown output format `xml`",
    },
    Case {
        vars: &[("FERROCM_PROF", "kernel"), ("FERROCM_PROF_FORMAT", ",")],
        want: "expected a comma-separated list of csv, json",
    },
];

fn check(case: &Case) {
    let vars: HashMap<&str, &str> = case.vars.iter().copied().collect();
    let e = Session::from_vars(|v| vars.get(v).map(|s| s.to_string())).unwrap_err();
    assert!(matches!(e, ProfError::InvalidEnvironment { .. }), "{:?}: {e:?}", case.vars);
    let msg = e.to_string();
    assert!(msg.contains(case.want), "{:?}: {msg}", case.vars);
    assert!(msg.contains(case.vars.last().unwrap().0), "the message names the variable: {msg}");
}

#[test]
fn bad_sessions_are_refused() {
    for c in CASES {
        check(c);
    }
    // Unset or empty means no session at all (not an error).
    assert_eq!(Session::from_vars(|_| None).unwrap(), None);
    assert_eq!(Session::from_vars(|_| Some(" ".into())).unwrap(), None);
}

#[test]
fn a_bad_ceilings_cache_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("ceilings.json");
    std::fs::write(&cache, "{\"version\": 7, \"devices\": []}").unwrap();
    let s = Session { kernel_trace: true, stats: true, ceilings: Some(cache.clone()), ..Session::default() };
    let e = ferrocm_prof::write(&Trace::default(), &s, &tmp.path().join("out")).unwrap_err();
    assert!(matches!(e, ProfError::BadCeilings { .. }) && e.to_string().contains("version 7"), "{e}");
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, [std::ffi::OsString::from("ceilings.json")], "nothing but the cache is there");
    std::fs::write(&cache, "not json").unwrap();
    let e = ferrocm_prof::write(&Trace::default(), &s, &tmp.path().join("out")).unwrap_err();
    assert!(e.to_string().contains("is not valid"), "{e}");
}

#[test]
fn an_unwritable_prefix_is_an_error_naming_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let blocker = tmp.path().join("file");
    std::fs::write(&blocker, "x").unwrap();
    let s = Session { kernel_trace: true, ..Session::default() };
    let e = ferrocm_prof::write(&Trace::default(), &s, &blocker.join("sub").join("p")).unwrap_err();
    assert!(matches!(e, ProfError::Io { .. }) && e.to_string().contains("file/sub"), "{e}");
}
