//! The CUDA -> HIP name tables, embedded at build time from `data/*.tsv`.
//!
//! One table per API, each line `CUDA<TAB>HIP[<TAB>ROC]`; `-` marks a name
//! with no equivalent. Tables are parsed once into a hash map on first use.

use std::collections::HashMap;

/// Identifier look-ups are the translator's hottest path; foldhash is several
/// times faster than the default SipHash there (no untrusted keys to defend
/// against: the tables are compiled in).
type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;
use std::sync::OnceLock;

/// The API a CUDA name belongs to; used for statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Api {
    Runtime,
    Driver,
    Device,
    Complex,
    Rtc,
    Blas,
    Rand,
    Fft,
    Sparse,
    Solver,
    Dnn,
    Cub,
    Include,
}

impl Api {
    pub const ALL: [Api; 13] = [
        Api::Runtime,
        Api::Driver,
        Api::Device,
        Api::Complex,
        Api::Rtc,
        Api::Blas,
        Api::Rand,
        Api::Fft,
        Api::Sparse,
        Api::Solver,
        Api::Dnn,
        Api::Cub,
        Api::Include,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Api::Runtime => "runtime",
            Api::Driver => "driver",
            Api::Device => "device",
            Api::Complex => "complex",
            Api::Rtc => "rtc",
            Api::Blas => "blas",
            Api::Rand => "rand",
            Api::Fft => "fft",
            Api::Sparse => "sparse",
            Api::Solver => "solver",
            Api::Dnn => "dnn",
            Api::Cub => "cub",
            Api::Include => "include",
        }
    }

    /// The APIs whose names have a ROC column of their own (rocBLAS,
    /// rocSPARSE, rocSOLVER, MIOpen): there an empty ROC column means "no ROC
    /// name known", and `--roc` leaves the name with a warning.
    pub fn has_roc_flavour(self) -> bool {
        matches!(self, Api::Blas | Api::Sparse | Api::Solver | Api::Dnn)
    }

    /// The APIs `--roc` translates to ROC libraries, as hipify-clang decides
    /// it (`Statistics::isToRoc`): BLAS, DNN, SPARSE, SOLVER, and the runtime
    /// and complex names of the library data types. cuRAND and cuFFT keep
    /// their hip* names.
    pub fn is_to_roc(self) -> bool {
        matches!(self, Api::Blas | Api::Dnn | Api::Sparse | Api::Solver | Api::Runtime | Api::Complex)
    }

    fn from_name(name: &str) -> Option<Api> {
        Api::ALL.iter().copied().find(|a| a.name() == name)
    }

    fn source(self) -> &'static str {
        match self {
            Api::Runtime => include_str!("../data/runtime.tsv"),
            Api::Driver => include_str!("../data/driver.tsv"),
            Api::Device => include_str!("../data/device.tsv"),
            Api::Complex => include_str!("../data/complex.tsv"),
            Api::Rtc => include_str!("../data/rtc.tsv"),
            Api::Blas => include_str!("../data/blas.tsv"),
            Api::Rand => include_str!("../data/rand.tsv"),
            Api::Fft => include_str!("../data/fft.tsv"),
            Api::Sparse => include_str!("../data/sparse.tsv"),
            Api::Solver => include_str!("../data/solver.tsv"),
            Api::Dnn => include_str!("../data/dnn.tsv"),
            Api::Cub => include_str!("../data/cub.tsv"),
            Api::Include => include_str!("../data/headers.tsv"),
        }
    }
}

/// One CUDA name and what it becomes. `None` means "no equivalent".
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub api: Api,
    pub hip: Option<&'static str>,
    pub roc: Option<&'static str>,
    /// `data/calls.tsv` has rewrites for calls of this name.
    pub call_rules: bool,
    /// HIPIFY marks the HIP name experimental (fourth column `experimental`):
    /// translated only with `--experimental`.
    pub experimental: bool,
    /// A cuBLAS routine of the legacy API whose `_v2` form `cublas_v2.h`
    /// defines (`cublasSaxpy`): HIPIFY marks it `HIP_SUPPORTED_V2_ONLY` and
    /// translates it only in a file that includes `cublas_v2.h` itself.
    pub v2_only: bool,
}

impl Entry {
    /// The replacement for the chosen flavour; `--roc` applies only to the
    /// APIs hipify-clang translates to ROC libraries.
    pub fn target(&self, roc: bool) -> Option<&'static str> {
        if roc && self.api.is_to_roc() {
            self.roc
        } else {
            self.hip
        }
    }
}

/// One `#include` target.
#[derive(Debug, Clone, Copy)]
pub struct Header {
    pub api: Api,
    /// `None`: the directive is dropped.
    pub hip: Option<&'static str>,
    pub roc: Option<&'static str>,
    /// The "main header" group; only the first include of a group is kept.
    pub group: Option<&'static str>,
}

impl Header {
    pub fn target(&self, roc: bool) -> Option<&'static str> {
        if roc && self.api.is_to_roc() {
            self.roc.or(self.hip)
        } else {
            self.hip
        }
    }
}

/// ROCm 7's subdirectory spelling of a flat library header, for
/// `--hip-header-subdirs`.
pub fn header_subdirectory(name: &str) -> Option<&'static str> {
    const SUBDIRS: &[(&str, &str)] = &[
        ("hipblas.h", "hipblas/hipblas.h"),
        ("hipblaslt.h", "hipblaslt/hipblaslt.h"),
        ("hipsparse.h", "hipsparse/hipsparse.h"),
        ("hipsparseLt.h", "hipsparselt/hipsparselt.h"),
        ("hipsolver.h", "hipsolver/hipsolver.h"),
        ("hiptensor.h", "hiptensor/hiptensor.hpp"),
        ("rocblas.h", "rocblas/rocblas.h"),
        ("rocsparse.h", "rocsparse/rocsparse.h"),
    ];
    SUBDIRS.iter().find(|(flat, _)| *flat == name).map(|&(_, sub)| sub)
}

pub struct Tables {
    /// Identifiers of every API except headers and namespaces.
    pub idents: Map<&'static str, Entry>,
    /// Namespaces renamed where they qualify a name (`cub` -> `hipcub`).
    pub namespaces: Map<&'static str, Entry>,
    /// Header names for `#include` rewriting.
    pub headers: Map<&'static str, Header>,
}

fn col(s: &'static str) -> Option<&'static str> {
    if s == "-" {
        None
    } else {
        Some(s)
    }
}

fn parse(api: Api, into: &mut Tables) {
    for line in api.source().lines() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut cols = line.split('\t');
        let Some(cuda) = cols.next() else { continue };
        let hip = col(cols.next().unwrap_or("-"));
        // For the libraries with a ROC flavour a missing ROC name means "none
        // known": --roc then leaves the name and warns instead of mixing in a
        // hip* name. Elsewhere the HIP name serves both.
        let roc = match cols.next() {
            Some("") | None if api.has_roc_flavour() => None,
            Some("") | None => hip,
            Some(r) => col(r),
        };
        if api == Api::Include {
            let hip = hip.filter(|h| !h.is_empty());
            let roc = roc.filter(|r| !r.is_empty());
            let group = cols.next().filter(|g| !g.is_empty() && *g != "-");
            let api = cols.next().and_then(Api::from_name).unwrap_or(Api::Include);
            into.headers.insert(cuda, Header { api, hip, roc, group });
            continue;
        }
        let experimental = cols.next() == Some("experimental");
        let entry = Entry { api, hip, roc, call_rules: false, experimental, v2_only: false };
        if let Some(ns) = cuda.strip_suffix("::") {
            let strip = |s: Option<&'static str>| s.map(|s| s.trim_end_matches("::"));
            let entry = Entry { hip: strip(hip), roc: strip(roc), ..entry };
            into.namespaces.insert(ns, entry);
        } else {
            into.idents.insert(cuda, entry);
        }
    }
}

/// The parsed tables, built on first use.
pub fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut t = Tables {
            idents: Map::with_capacity_and_hasher(16384, Default::default()),
            namespaces: Map::default(),
            headers: Map::default(),
        };
        for api in Api::ALL {
            parse(api, &mut t);
        }
        for name in crate::calls::names() {
            if let Some(e) = t.idents.get_mut(name) {
                e.call_rules = true;
            }
        }
        for_each_blas_v2_only(|name| {
            if let Some(e) = t.idents.get_mut(name) {
                e.v2_only = true;
            }
        });
        t
    })
}

/// The cuBLAS level 1, 2 and 3 routines that `cublas_v2.h` redefines as their
/// `_v2` forms (`#define cublasSaxpy cublasSaxpy_v2`), by precision prefix and
/// routine. HIPIFY flags exactly these `HIP_SUPPORTED_V2_ONLY`
/// (src/CUDA2HIP_BLAS_API_functions.cpp); the helpers `cublas_v2.h` also
/// redefines (`cublasCreate`, `cublasSetStream`, ...) it does not, nor the
/// BLAS-like extensions (`cublasSgeam`, `...Batched`, `cublasSsyrkx`).
const BLAS_V2_ONLY: &[(&[&str], &[&str])] = &[
    (&["S", "D", "Sc", "Dz"], &["nrm2", "asum"]),
    (&["S", "D"], &["dot", "rotm", "rotmg", "ger", "sbmv", "spmv", "spr", "spr2"]),
    (&["C", "Z"], &["dotu", "dotc", "geru", "gerc", "hemv", "hbmv", "hpmv", "her", "her2", "hpr", "hpr2"]),
    (&["S", "D", "C", "Cs", "Z", "Zd"], &["scal", "rot"]),
    (&["Is", "Id", "Ic", "Iz"], &["amax", "amin"]),
    (
        &["S", "D", "C", "Z"],
        &[
            "axpy", "copy", "swap", "rotg", "gemv", "gbmv", "trmv", "tbmv", "tpmv", "trsv", "tpsv", "tbsv",
            "symv", "syr", "syr2", "gemm", "symm", "syrk", "syr2k", "trmm", "trsm",
        ],
    ),
    (&["C", "Z"], &["hemm", "herk", "her2k"]),
];

fn for_each_blas_v2_only(mut f: impl FnMut(&str)) {
    let mut name = String::with_capacity(24);
    for (precisions, routines) in BLAS_V2_ONLY {
        for p in *precisions {
            for r in *routines {
                name.clear();
                name.push_str("cublas");
                name.push_str(p);
                name.push_str(r);
                f(&name);
            }
        }
    }
}

/// Per-API counts of mapped and unsupported names, for `--list-tables`-style reports.
pub fn table_counts() -> Vec<(Api, usize, usize)> {
    let t = tables();
    Api::ALL
        .iter()
        .map(|&api| {
            let all = t.idents.values().chain(t.namespaces.values());
            let (mut mapped, mut unsupported) = (0, 0);
            for e in all.filter(|e| e.api == api) {
                if e.hip.is_some() {
                    mapped += 1;
                } else {
                    unsupported += 1;
                }
            }
            if api == Api::Include {
                mapped += t.headers.len();
            }
            (api, mapped, unsupported)
        })
        .collect()
}
