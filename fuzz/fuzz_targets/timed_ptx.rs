//! The PTX rewriter for kernel tracing (`ferrocm_ir::timed_ptx`) on arbitrary text: it never
//! panics; every entry with a body gets a copy or a reason; and where the PTX front end reads
//! the original, it reads the rewritten text, each copy takes its entry's parameters and the
//! timing slot's two, and a copy translates wherever its entry does.
#![no_main]

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(t) = ferrocm_ir::timed_ptx::instrument(text) else { return };
    assert!(t.text.len() >= text.len());
    let Ok(original) = ferrocm_ptx_frontend::PtxModule::parse(text) else { return };
    let kernels = original.kernels();
    for e in &t.entries {
        assert!(kernels.iter().any(|k| k.name == e.kernel), "a copy of `{}`, which is no kernel", e.kernel);
    }
    let timed = ferrocm_ptx_frontend::PtxModule::parse(&t.text)
        .unwrap_or_else(|e| panic!("the rewritten text does not parse: {e}\n{}", t.text));
    let globals: HashMap<String, u64> = original
        .globals()
        .into_iter()
        .enumerate()
        .map(|(i, g)| (g.name, 0x1000_0000 + 0x1000 * i as u64))
        .collect();
    for e in &t.entries {
        let k = kernels.iter().find(|k| k.name == e.kernel).unwrap();
        let copy = timed.kernel(&e.timed).unwrap_or_else(|| panic!("no copy `{}`", e.timed));
        assert_eq!(copy.params.len(), k.params.len() + 2);
        assert_eq!(copy.params[..k.params.len()], k.params[..]);
        if original.to_ir(&k.name, &globals).is_ok() {
            if let Err(err) = timed.to_ir(&e.timed, &globals) {
                panic!("`{}` translates but its copy does not: {err}\n{}", k.name, t.text);
            }
        }
    }
});
