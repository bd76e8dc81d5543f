//! Bad input to the smi library: each case is one row (what is given, the error kind expected,
//! words the message must contain). Every error names the value and what is allowed or what
//! exists; nothing panics.

use ferrocm_smi::host::{parse_meminfo, parse_proc_stat};
use ferrocm_smi::nvml::{Nvml, NvmlError};
use ferrocm_smi::select::{resolve, DeviceId};
use ferrocm_smi::{check_monitor, SmiError};

/// Two devices, as a GPU machine numbers them.
fn devices() -> Vec<DeviceId> {
    vec![
        DeviceId {
            index: 0,
            name: "NVIDIA H100 80GB HBM3".into(),
            uuid: "GPU-5a2f3c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b".into(),
            pci_bus_id: Some("00000000:18:00.0".into()),
        },
        DeviceId {
            index: 1,
            name: "CPU 0: AMD EPYC 9654".into(),
            uuid: "40313bfc-64ba-a89b-09f7-90362767f9c1".into(),
            pci_bus_id: None,
        },
    ]
}

enum Input {
    Devices(&'static [&'static str]),
    Monitor(f64, Option<u64>),
    ProcStat(&'static str),
    MemInfo(&'static str),
    NvmlLibrary(&'static str),
}

#[derive(Debug, PartialEq)]
enum Kind {
    UnknownDevice,
    DuplicateDevice,
    EmptyDevice,
    InvalidInterval,
    InvalidCount,
    HostParse,
    NvmlUnavailable,
}

struct Case {
    name: &'static str,
    input: Input,
    kind: Kind,
    /// Fragments the message must contain.
    says: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        name: "index past the last device",
        input: Input::Devices(&["7"]),
        kind: Kind::UnknownDevice,
        says: &[
            "`7`",
            "index 7 is out of range (valid indices 0..2)",
            "2 visible",
            "0: NVIDIA H100",
            "1: CPU 0",
        ],
    },
    Case {
        name: "unknown UUID",
        input: Input::Devices(&["GPU-00000000-0000-0000-0000-000000000000"]),
        kind: Kind::UnknownDevice,
        says: &["GPU-00000000-0000-0000-0000-000000000000", "no device has that UUID", "GPU-5a2f3c1e"],
    },
    Case {
        name: "unknown PCI bus id",
        input: Input::Devices(&["0000:3b:00.0"]),
        kind: Kind::UnknownDevice,
        says: &["`0000:3b:00.0`", "no device is at that PCI bus id", "00000000:18:00.0"],
    },
    Case {
        name: "neither index, bus id nor UUID",
        input: Input::Devices(&["gpu0"]),
        kind: Kind::UnknownDevice,
        says: &["`gpu0`", "expected a device index, a PCI bus id", "or `all`"],
    },
    Case {
        name: "negative index",
        input: Input::Devices(&["-1"]),
        kind: Kind::UnknownDevice,
        says: &["`-1`", "expected a device index"],
    },
    Case {
        name: "index that overflows",
        input: Input::Devices(&["99999999999999999999999"]),
        kind: Kind::UnknownDevice,
        says: &["out of range"],
    },
    Case {
        name: "same device by index and UUID",
        input: Input::Devices(&["0", "gpu-5A2F3C1E-8B7D-4E6F-9A0B-1C2D3E4F5A6B"]),
        kind: Kind::DuplicateDevice,
        says: &["selected twice", "device 0"],
    },
    Case {
        name: "same device twice in one list",
        input: Input::Devices(&["1,1"]),
        kind: Kind::DuplicateDevice,
        says: &["`1` is selected twice"],
    },
    Case {
        name: "empty entry",
        input: Input::Devices(&["0,,1"]),
        kind: Kind::EmptyDevice,
        says: &["`0,,1`", "expected a device index"],
    },
    Case {
        name: "empty value",
        input: Input::Devices(&[""]),
        kind: Kind::EmptyDevice,
        says: &["empty device"],
    },
    Case {
        name: "zero interval",
        input: Input::Monitor(0.0, None),
        kind: Kind::InvalidInterval,
        says: &["interval 0 s", "0.1 to 86400 seconds"],
    },
    Case {
        name: "negative interval",
        input: Input::Monitor(-1.0, Some(3)),
        kind: Kind::InvalidInterval,
        says: &["-1 s"],
    },
    Case {
        name: "NaN interval",
        input: Input::Monitor(f64::NAN, None),
        kind: Kind::InvalidInterval,
        says: &["NaN"],
    },
    Case {
        name: "interval over a day",
        input: Input::Monitor(86_401.0, None),
        kind: Kind::InvalidInterval,
        says: &["86401"],
    },
    Case {
        name: "zero samples",
        input: Input::Monitor(1.0, Some(0)),
        kind: Kind::InvalidCount,
        says: &["at least 1"],
    },
    Case {
        name: "proc/stat with a word for a counter",
        input: Input::ProcStat("cpu  1 2 3 4\ncpu0 12 x 3 4\n"),
        kind: Kind::HostParse,
        says: &["/proc/stat line 2", "`cpu0`", "not a counter"],
    },
    Case {
        name: "proc/stat with three fields",
        input: Input::ProcStat("cpu 1 2 3\n"),
        kind: Kind::HostParse,
        says: &["line 1", "3 fields, at least 4"],
    },
    Case {
        name: "proc/stat without the aggregate line",
        input: Input::ProcStat("cpu0 1 2 3 4\n"),
        kind: Kind::HostParse,
        says: &["no aggregate `cpu` line"],
    },
    Case {
        name: "meminfo without MemTotal",
        input: Input::MemInfo("MemFree: 10 kB\n"),
        kind: Kind::HostParse,
        says: &["/proc/meminfo", "no `MemTotal`"],
    },
    Case {
        name: "meminfo in an unknown unit",
        input: Input::MemInfo("MemTotal: 10 MB\n"),
        kind: Kind::HostParse,
        says: &["line 1", "unknown unit `MB`"],
    },
    Case {
        name: "meminfo that overflows",
        input: Input::MemInfo("MemTotal: 18446744073709551615 kB\n"),
        kind: Kind::HostParse,
        says: &["overflows 64 bits"],
    },
    Case {
        name: "NVML at a path that does not exist",
        input: Input::NvmlLibrary("/nonexistent/libnvidia-ml.so.1"),
        kind: Kind::NvmlUnavailable,
        says: &["cannot open the NVIDIA management library", "/nonexistent/libnvidia-ml.so.1"],
    },
];

fn kind(e: &SmiError) -> Kind {
    match e {
        SmiError::UnknownDevice { .. } => Kind::UnknownDevice,
        SmiError::DuplicateDevice { .. } => Kind::DuplicateDevice,
        SmiError::EmptyDevice { .. } => Kind::EmptyDevice,
        SmiError::InvalidInterval { .. } => Kind::InvalidInterval,
        SmiError::InvalidCount { .. } => Kind::InvalidCount,
        SmiError::HostParse { .. } => Kind::HostParse,
        SmiError::Nvml(NvmlError::LibraryUnavailable { .. }) => Kind::NvmlUnavailable,
        other => panic!("unexpected error {other:?}"),
    }
}

fn check(case: &Case) {
    let devices = devices();
    let err: SmiError = match case.input {
        Input::Devices(specs) => {
            let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
            resolve(&specs, &devices).expect_err(case.name)
        }
        Input::Monitor(interval, count) => check_monitor(interval, count).expect_err(case.name),
        Input::ProcStat(text) => parse_proc_stat(text).expect_err(case.name),
        Input::MemInfo(text) => parse_meminfo(text).expect_err(case.name),
        Input::NvmlLibrary(path) => SmiError::from(Nvml::init_from(path).expect_err(case.name)),
    };
    assert_eq!(kind(&err), case.kind, "{}: {err}", case.name);
    let message = err.to_string();
    for s in case.says {
        assert!(message.contains(s), "{}: {message:?} does not say {s:?}", case.name);
    }
    assert!(!message.ends_with('.'), "{}: errors are sentences without a trailing period", case.name);
}

#[test]
fn misuse() {
    for case in CASES {
        check(case);
    }
}

/// The spellings that must work, next to the ones that must not.
#[test]
fn accepted_device_spellings() {
    let d = devices();
    let ok = |specs: &[&str]| resolve(&specs.iter().map(|s| s.to_string()).collect::<Vec<_>>(), &d).unwrap();
    assert_eq!(ok(&[]), [0, 1]);
    assert_eq!(ok(&["all"]), [0, 1]);
    assert_eq!(ok(&["1", "0"]), [1, 0]);
    assert_eq!(ok(&["1, 0"]), [1, 0]);
    assert_eq!(ok(&["18:00.0"]), [0]);
    assert_eq!(ok(&["0000:18:00.0"]), [0]);
    assert_eq!(ok(&["00000000:18:00.0"]), [0]);
    assert_eq!(ok(&["5a2f3c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b"]), [0]);
    assert_eq!(ok(&["40313BFC-64BA-A89B-09F7-90362767F9C1"]), [1]);
}
