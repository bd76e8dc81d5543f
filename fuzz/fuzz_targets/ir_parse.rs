//! The IR text parser on arbitrary text: it never panics, and whatever it accepts prints back to
//! text that parses to the same function (the printer and parser are inverses on valid IR).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(f) = ferrocm_ir::parse(text) else { return };
    let printed = f.to_string();
    let again =
        ferrocm_ir::parse(&printed).unwrap_or_else(|e| panic!("printed IR does not parse: {e}\n{printed}"));
    assert_eq!(again.to_string(), printed, "print(parse(print(f))) != print(f)");
});
