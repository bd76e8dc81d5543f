//! Topology on several CPU devices (and the GPUs present). This binary sets
//! `FERROCM_CPU_DEVICES` before the runtime first reads the environment, so it holds a single
//! test.

use ferrocm_runtime::{BackendKind, Device};
use ferrocm_smi::Smi;
use serde_json::Value as Json;

#[test]
fn links_between_every_pair() {
    std::env::set_var("FERROCM_CPU_DEVICES", "3");
    let mut smi = Smi::open().unwrap();
    let devices = Device::all().unwrap();
    assert_eq!(Device::of_kind(BackendKind::Cpu).len(), 3);
    let all = smi.select(&[]).unwrap();
    let report = smi.topology_view(&all);
    let links = report.to_json()["links"].as_array().unwrap().clone();
    let n = devices.len();
    assert_eq!(links.len(), n * (n - 1), "every ordered pair once");
    for l in &links {
        let (a, b) =
            (&devices[l["from"].as_u64().unwrap() as usize], &devices[l["to"].as_u64().unwrap() as usize]);
        assert_ne!(a, b);
        // Peer access is what the runtime would grant.
        assert_eq!(l["peer_access"], Json::Bool(a.can_access_peer(b).unwrap()));
        let want = match (a.kind(), b.kind()) {
            (BackendKind::Cpu, BackendKind::Cpu) => Some("SHM"),
            (BackendKind::Cpu, _) | (_, BackendKind::Cpu) => Some("HOST"),
            // GPU pairs: NVLinks or a PCIe level, checked on multi-GPU machines only by shape.
            _ => None,
        };
        match want {
            Some(w) => assert_eq!(l["link_type"], w),
            None => {
                let t = l["link_type"].as_str().unwrap();
                assert!(
                    t.starts_with("NV") || ["INT", "PIX", "PXB", "PHB", "NODE", "SYS"].contains(&t),
                    "{t}"
                );
            }
        }
    }
    // The text matrix: X on the diagonal, SHM between the CPU devices.
    let text = report.to_text();
    let cpus: Vec<usize> = Device::of_kind(BackendKind::Cpu).iter().map(Device::index).collect();
    let row =
        text.lines().find(|l| l.starts_with(&format!("{} ", cpus[0]))).unwrap_or_else(|| panic!("{text}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[1 + cpus[0]], "X", "{text}");
    assert_eq!(cells[1 + cpus[1]], "SHM", "{text}");
    assert!(text.contains("Peer access"), "{text}");
}
