//! The PTX front end on arbitrary text: parsing and translating never panic, and every kernel it
//! translates is valid IR (it verifies, and prints to text that parses back to the same text).
#![no_main]

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(module) = ferrocm_ptx_frontend::PtxModule::parse(text) else { return };
    // Module variables at made-up addresses: translation never dereferences them.
    let globals: HashMap<String, u64> = module
        .globals()
        .into_iter()
        .enumerate()
        .map(|(i, g)| (g.name, 0x1000_0000 + 0x1000 * i as u64))
        .collect();
    for k in module.kernels() {
        let Ok((f, _)) = module.to_ir(&k.name, &globals) else { continue };
        ferrocm_ir::verify(&f).unwrap_or_else(|e| panic!("kernel {} translates to invalid IR: {e}", k.name));
        let printed = f.to_string();
        let again = ferrocm_ir::parse(&printed).unwrap_or_else(|e| panic!("printed IR does not parse: {e}"));
        assert_eq!(again.to_string(), printed);
    }
});
