//! Every row of HIPIFY's published tables that `tools/hipify_docs/` extracts
//! (ROCm/HIPIFY `docs/tables/*.md` at 0244dd3; see `tools/audit_hipify_tables.py`)
//! translates as hipify-clang translates it: a mapped name becomes HIPIFY's HIP
//! name, an unsupported one stays, an experimental one stays with a warning
//! unless `--experimental` is given. The names where we differ on purpose are
//! listed in `DELIBERATE`, each with its reason (data/README.md, NOTES.md).

use ferrocm_hipify::{translate, Options, RuntimeInclude};

const EXTRACTS: [(&str, &str); 11] = [
    ("driver", include_str!("../tools/hipify_docs/driver.tsv")),
    ("runtime", include_str!("../tools/hipify_docs/runtime.tsv")),
    ("rtc", include_str!("../tools/hipify_docs/rtc.tsv")),
    ("fft", include_str!("../tools/hipify_docs/fft.tsv")),
    ("rand", include_str!("../tools/hipify_docs/rand.tsv")),
    ("complex", include_str!("../tools/hipify_docs/complex.tsv")),
    ("cub", include_str!("../tools/hipify_docs/cub.tsv")),
    ("blas", include_str!("../tools/hipify_docs/blas.tsv")),
    ("sparse", include_str!("../tools/hipify_docs/sparse.tsv")),
    ("solver", include_str!("../tools/hipify_docs/solver.tsv")),
    ("dnn", include_str!("../tools/hipify_docs/dnn.tsv")),
];

/// CUDA names where our output differs from HIPIFY's table at 0244dd3 on purpose.
const DELIBERATE: &[(&str, &str)] = &[
    // ROCm 7 renamed the attribute; HIPIFY's table has the ROCm 6 spelling.
    ("cudaDevAttrPciDomainId", "ROCm 7 spelling hipDeviceAttributePciDomainId"),
    // ROCm 7 HIP has the exact analogue of cudaGetDriverEntryPoint and its result enum;
    // HIPIFY's table maps to hipGetProcAddress (a different signature).
    ("cudaGetDriverEntryPoint", "ROCm 7 hipGetDriverEntryPoint"),
    ("cudaDriverEntryPointQueryResult", "ROCm 7 hipDriverEntryPointQueryResult"),
    ("cudaDriverEntryPointSuccess", "ROCm 7 hipDriverEntryPointSuccess"),
    ("cudaDriverEntryPointSymbolNotFound", "ROCm 7 hipDriverEntryPointSymbolNotFound"),
    ("cudaDriverEntryPointVersionNotSufficent", "ROCm 7 hipDriverEntryPointVersionNotSufficent"),
    // HIPIFY marks these unsupported; ROCm 7 HIP declares the names (hip-python-interop 10.0).
    ("CUkern_st", "ROCm 7 ihipKernel_t"),
    ("cudaDevAttrHostNumaId", "ROCm 7"),
    ("cudaDeviceGetTexture1DLinearMaxWidth", "ROCm 7"),
    ("cudaKernel_t", "ROCm 7"),
    ("cudaLaunchAttribute", "ROCm 7"),
    ("cudaLaunchAttributeMemSyncDomain", "ROCm 7"),
    ("cudaLaunchAttributeMemSyncDomainMap", "ROCm 7"),
    ("cudaLaunchAttributeSynchronizationPolicy", "ROCm 7"),
    ("cudaLaunchAttribute_st", "ROCm 7"),
    ("cudaLaunchConfig_st", "ROCm 7"),
    ("cudaLaunchConfig_t", "ROCm 7"),
    ("cudaLaunchKernelExC", "ROCm 7"),
    ("cudaLaunchMemSyncDomain", "ROCm 7"),
    ("cudaLaunchMemSyncDomainDefault", "ROCm 7"),
    ("cudaLaunchMemSyncDomainMap", "ROCm 7"),
    ("cudaLaunchMemSyncDomainMap_st", "ROCm 7"),
    ("cudaLaunchMemSyncDomainRemote", "ROCm 7"),
    ("cudaMemLocationTypeHost", "ROCm 7"),
    ("cudaMemLocationTypeHostNuma", "ROCm 7"),
    ("cudaMemLocationTypeHostNumaCurrent", "ROCm 7"),
    ("cudaMemcpy3DPeer", "ROCm 7"),
    ("cudaMemcpy3DPeerAsync", "ROCm 7"),
    ("cudaMemcpy3DPeerParms", "ROCm 7"),
    ("cudaMemoryTypeUnregistered", "ROCm 7"),
    ("cudaOccupancyAvailableDynamicSMemPerBlock", "ROCm 7"),
    ("cudaStreamAttrID", "ROCm 7 hipLaunchAttributeID"),
    ("cudaStreamAttrValue", "ROCm 7 hipLaunchAttributeValue"),
    ("cudaStreamAttributeAccessPolicyWindow", "ROCm 7"),
    ("cudaStreamAttributeMemSyncDomain", "ROCm 7"),
    ("cudaStreamAttributeMemSyncDomainMap", "ROCm 7"),
    ("cudaStreamAttributePriority", "ROCm 7"),
    ("cudaStreamAttributeSynchronizationPolicy", "ROCm 7"),
    ("cudaStreamCopyAttributes", "ROCm 7"),
    ("cudaStreamGetAttribute", "ROCm 7"),
    ("cudaStreamGetId", "ROCm 7"),
    ("cudaStreamSetAttribute", "ROCm 7"),
    ("cudaSyncPolicyAuto", "ROCm 7"),
    ("cudaSyncPolicyBlockingSync", "ROCm 7"),
    ("cudaSyncPolicySpin", "ROCm 7"),
    ("cudaSyncPolicyYield", "ROCm 7"),
    ("cudaSynchronizationPolicy", "ROCm 7"),
    ("CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED", "ROCm 7"),
    ("CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED", "ROCm 7"),
    ("CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID", "ROCm 7"),
    ("CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID", "ROCm 7 spelling hipDeviceAttributePciDomainId"),
    ("CUmemRangeHandleType", "ROCm 7"),
    ("CUstreamAttrID", "ROCm 7 hipLaunchAttributeID"),
    ("CUstreamAttrValue", "ROCm 7 hipLaunchAttributeValue"),
    ("CUsynchronizationPolicy", "ROCm 7"),
    ("cuKernelGetName", "ROCm 7"),
    ("cuLibraryGetKernel", "ROCm 7"),
    ("cuLibraryLoadData", "ROCm 7"),
    ("cuModuleGetFunctionCount", "ROCm 7"),
    ("cuModuleLoadFatBinary", "ROCm 7"),
    // Driver characters 80,000-96,000 (hipify4): HIPIFY lists these unsupported; ROCm 7 HIP
    // declares them (the launch-attribute and library families hipify3 kept for the runtime).
    ("CUkernel", "ROCm 7 hipKernel_t"),
    ("CUlaunchAttribute", "ROCm 7"),
    ("CUlaunchAttribute_st", "ROCm 7"),
    ("CUlaunchConfig", "ROCm 7 HIP_LAUNCH_CONFIG"),
    ("CUlaunchConfig_st", "ROCm 7 HIP_LAUNCH_CONFIG_st"),
    ("CUlaunchMemSyncDomain", "ROCm 7"),
    ("CUlaunchMemSyncDomainMap", "ROCm 7"),
    ("CUlaunchMemSyncDomainMap_st", "ROCm 7"),
    ("CUlaunchMemSyncDomain_enum", "ROCm 7"),
    ("CUlib_st", "ROCm 7 ihipLibrary_t"),
    ("CUlibrary", "ROCm 7 hipLibrary_t"),
    ("CUlibraryOption", "ROCm 7 hipLibraryOption_e"),
    ("CUlibraryOption_enum", "ROCm 7 hipLibraryOption_e"),
    // Driver characters 112,000-128,000 (hipify4): the same ROCm 7 case.
    ("cuLaunchKernelEx", "ROCm 7 hipDrvLaunchKernelEx"),
    ("cuLibraryUnload", "ROCm 7"),
    ("cuMemGetHandleForAddressRange", "ROCm 7"),
    ("cuMemsetD2D16", "ROCm 7"),
    ("cuMemsetD2D16Async", "ROCm 7"),
    ("cuMemsetD2D16_v2", "ROCm 7"),
    ("cuMemsetD2D32", "ROCm 7"),
    ("cuMemsetD2D32Async", "ROCm 7"),
    ("cuMemsetD2D32_v2", "ROCm 7"),
    ("cuMemsetD2D8", "ROCm 7"),
    ("cuMemsetD2D8Async", "ROCm 7"),
    ("cuMemsetD2D8_v2", "ROCm 7"),
    ("cuStreamCopyAttributes", "ROCm 7"),
    ("cuStreamGetAttribute", "ROCm 7"),
    ("cuStreamGetId", "ROCm 7"),
    ("cuStreamSetAttribute", "ROCm 7"),
    ("cuOccupancyAvailableDynamicSMemPerBlock", "ROCm 7"),
    // The type of the CU_JIT_INPUT_* values kept as hipJitInput* (see DELIBERATE_FAMILIES):
    // HIPIFY's hiprtcJITInputType would not hold them.
    ("CUjitInputType", "hipJitInputType, the type of the kept hipJitInput* values"),
    ("CUjitInputType_enum", "hipJitInputType"),
    // HIPIFY writes ...GroupId, which HIP does not declare; HIP's (and HIPIFY's runtime) ...GroupID.
    ("CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID", "HIP's hipDeviceAttributeMultiGpuBoardGroupID"),
];

/// Families kept on purpose: (CUDA prefix, HIPIFY's HIP prefix or "" for "unsupported", why).
const DELIBERATE_FAMILIES: &[(&str, &str, &str)] = &[
    // HIPIFY's table at 0244dd3 writes hiprtcJIT_option values (HIPRTC_JIT_*) for CUjit_option,
    // which it maps to the type hipJitOption; its driver-types source in another version maps
    // them to hipJitOption values, as AMD's interop layer and our table do (code that stores
    // them in a hipJitOption array compiles only with those).
    ("CU_JIT_", "HIPRTC_JIT_", "hipJitOption values"),
    ("CU_JIT_", "", "ROCm 7 hipJitOption values"),
    // ROCm 7 HIP declares the launch-attribute family; HIPIFY's table lists it unsupported.
    ("CU_LAUNCH_ATTRIBUTE_", "", "ROCm 7"),
    ("CU_LAUNCH_MEM_SYNC_DOMAIN_", "", "ROCm 7"),
    ("CU_STREAM_ATTRIBUTE_", "", "ROCm 7 hipLaunchAttribute*"),
    ("CU_SYNC_POLICY_", "", "ROCm 7"),
    ("CU_MEM_LOCATION_TYPE_HOST", "", "ROCm 7"),
    ("CU_MEM_HANDLE_TYPE_FABRIC", "", "ROCm 7"),
    ("CU_MEM_RANGE_HANDLE_TYPE_", "", "ROCm 7"),
];

fn deliberate(row: &Row) -> bool {
    DELIBERATE.iter().any(|(n, _)| *n == row.cuda)
        || DELIBERATE_FAMILIES.iter().any(|(cuda, hip, _)| {
            row.cuda.starts_with(cuda)
                && match &row.hip {
                    Some(h) => !hip.is_empty() && h.starts_with(hip),
                    None => hip.is_empty(),
                }
        })
}

struct Row<'a> {
    table: &'a str,
    cuda: &'a str,
    /// `None`: HIPIFY lists the name as unsupported.
    hip: Option<String>,
    /// HIPIFY's ROC column (rocBLAS, ...); `None` where it has none.
    roc: Option<&'a str>,
    experimental: bool,
}

/// The extracts' `=`: the first `cuda`/`CUDA` spelled `hip`/`HIP`, else a leading `cu`/`CU`.
fn derive(cuda: &str) -> String {
    let at = [cuda.find("cuda"), cuda.find("CUDA")].into_iter().flatten().min();
    match at {
        Some(i) => {
            let hip = if &cuda[i..i + 4] == "cuda" { "hip" } else { "HIP" };
            format!("{}{hip}{}", &cuda[..i], &cuda[i + 4..])
        }
        None if cuda.starts_with("cu") => format!("hip{}", &cuda[2..]),
        None if cuda.starts_with("CU") => format!("HIP{}", &cuda[2..]),
        None => panic!("'=' cannot derive a HIP name from {cuda}"),
    }
}

fn rows() -> Vec<Row<'static>> {
    let mut out = Vec::new();
    for (table, text) in EXTRACTS {
        for line in text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
            let cols: Vec<&str> = line.split('\t').collect();
            let hip = match cols.get(1).copied().unwrap_or("") {
                "" => None,
                "=" => Some(derive(cols[0])),
                h => Some(h.to_string()),
            };
            let roc = cols.get(2).copied().filter(|r| !r.is_empty());
            let flags = cols.get(3).copied().unwrap_or("");
            out.push(Row {
                table,
                cuda: cols[0],
                hip,
                roc,
                experimental: flags.split(' ').any(|f| f == "hE"),
            });
        }
    }
    out
}

/// `name` translated in a file that includes `cublas_v2.h` (as HIPIFY's
/// tables assume for cuBLAS: hipify-clang translates the legacy routines it
/// flags `HIP_SUPPORTED_V2_ONLY` only then), the include line left out.
fn one(name: &str, options: &Options) -> (String, Vec<ferrocm_hipify::Warning>) {
    const V2: &str = "#include <cublas_v2.h>\n";
    let t = translate(&format!("{V2}{name}"), options).expect("translates");
    let text = t.text.split_once('\n').map_or(String::new(), |(_, rest)| rest.to_string());
    let warnings =
        t.warnings.into_iter().map(|w| ferrocm_hipify::Warning { line: w.line - 1, ..w }).collect();
    (text, warnings)
}

#[test]
fn legacy_cublas_routines_need_cublas_v2_h() {
    // HIP_SUPPORTED_V2_ONLY (src/CUDA2HIP_BLAS_API_functions.cpp): without
    // cublas_v2.h in the file, hipify-clang leaves them with a warning
    // (HipifyAction::FindAndReplace); helpers and extensions are translated.
    let plain = Options::new().runtime_include(RuntimeInclude::Never);
    for name in ["cublasSaxpy", "cublasZdscal", "cublasIcamax", "cublasSgemm", "cublasChemv", "cublasZher2k"]
    {
        let t = translate(name, &plain).expect("translates");
        assert_eq!(t.text, name);
        assert_eq!(t.warnings.len(), 1, "{name}");
        assert!(t.warnings[0].v2_only, "{name}");
        assert_eq!(
            t.warnings[0].to_string(),
            format!("1:1: warning: Only '{name}_v2' version of '{name}' is supported in 'HIP'; to hipify it, include 'cublas_v2.h' in the source.")
        );
        assert_ne!(one(name, &plain).0, name);
    }
    for name in [
        "cublasCreate",
        "cublasSetStream",
        "cublasSgeam",
        "cublasSgemmBatched",
        "cublasSsyrkx",
        "cublasSaxpy_v2",
    ] {
        assert_ne!(translate(name, &plain).expect("translates").text, name, "{name}");
    }
    // cublas.h alone is not enough; cublas_v2.h anywhere in the file is.
    let src = "#include <cublas.h>\ncublasSgemm(h);\n";
    assert_eq!(translate(src, &plain).unwrap().text, "#include <hipblas.h>\ncublasSgemm(h);\n");
    let src = "cublasSgemm(h);\n#include <cublas_v2.h>\n";
    assert_eq!(translate(src, &plain).unwrap().text, "hipblasSgemm(h);\n#include <hipblas.h>\n");
}

#[test]
fn every_extracted_row_translates_as_hipify_clang_does() {
    let plain = Options::new().runtime_include(RuntimeInclude::Never);
    let experimental = plain.clone().experimental(true);
    let rows = rows();
    assert!(rows.len() > 1500, "only {} rows extracted", rows.len());
    let mut failures = Vec::new();
    let mut deliberate_seen = 0;
    for row in &rows {
        if deliberate(row) {
            deliberate_seen += DELIBERATE.iter().filter(|(n, _)| *n == row.cuda).count();
            continue;
        }
        let (text, warnings) = one(row.cuda, &plain);
        match (&row.hip, row.experimental) {
            (Some(hip), false) => {
                if text != *hip || !warnings.is_empty() {
                    failures.push(format!(
                        "{} {}: HIPIFY {hip}, ours {text:?} {warnings:?}",
                        row.table, row.cuda
                    ));
                }
            }
            (Some(hip), true) => {
                let gated = text == row.cuda && warnings.len() == 1 && warnings[0].experimental;
                let (flagged, _) = one(row.cuda, &experimental);
                if !gated || flagged != *hip {
                    failures.push(format!(
                        "{} {}: experimental {hip}, ours {text:?} {warnings:?} / --experimental {flagged:?}",
                        row.table, row.cuda
                    ));
                }
            }
            (None, _) => {
                // Left as it is; hipify-clang warns, and so do we where our tables list the name.
                if text != row.cuda || warnings.iter().any(|w| w.experimental) {
                    failures.push(format!("{} {}: HIPIFY leaves it, ours {text:?}", row.table, row.cuda));
                }
            }
        }
    }
    assert_eq!(deliberate_seen, DELIBERATE.len(), "a DELIBERATE name is no longer in the extracts");
    assert!(failures.is_empty(), "{} rows differ from HIPIFY:\n{}", failures.len(), failures.join("\n"));
}

/// The tables whose ROC column hipify-clang's `--roc` uses (`Statistics::isToRoc`).
const ROC_TABLES: [&str; 4] = ["blas", "sparse", "solver", "dnn"];

#[test]
fn every_extracted_roc_row_translates_as_hipify_clang_roc_does() {
    // Under --roc a row with a ROC name becomes it (even where HIP has none, as
    // cublasInit -> rocblas_initialize); a row without one is left as it is.
    let roc = Options::new().runtime_include(RuntimeInclude::Never).roc(true);
    let rows: Vec<Row> = rows().into_iter().filter(|r| ROC_TABLES.contains(&r.table)).collect();
    assert!(rows.len() > 1000, "only {} ROC rows extracted", rows.len());
    let mut failures = Vec::new();
    for row in rows.iter().filter(|r| !deliberate(r)) {
        let (text, warnings) = one(row.cuda, &roc);
        let ok = match row.roc {
            Some(r) => text == r && warnings.is_empty(),
            None => text == row.cuda,
        };
        if !ok {
            failures.push(format!(
                "{} {}: HIPIFY --roc {:?}, ours {text:?} {warnings:?}",
                row.table, row.cuda, row.roc
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} rows differ from HIPIFY under --roc:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn deliberate_differences_still_differ() {
    // If HIPIFY's table and ours come to agree, the entry must leave DELIBERATE.
    let plain = Options::new().runtime_include(RuntimeInclude::Never);
    let rows = rows();
    for (name, why) in DELIBERATE {
        let row = rows.iter().find(|r| r.cuda == *name).expect("listed in the extracts");
        let (text, _) = one(name, &plain);
        assert_ne!(Some(&text), row.hip.as_ref(), "{name} now agrees with HIPIFY ({why})");
        assert_ne!(&text, name, "{name} is no longer translated ({why})");
    }
    // Of a family, the rows HIPIFY maps must still differ (its unsupported rows may be ours too).
    let family = |r: &&Row| r.hip.is_some() && deliberate(r) && !DELIBERATE.iter().any(|(n, _)| *n == r.cuda);
    for row in rows.iter().filter(family) {
        let (text, _) = one(row.cuda, &plain);
        assert_ne!(Some(&text), row.hip.as_ref(), "{} now agrees with HIPIFY", row.cuda);
        assert_ne!(text, row.cuda, "{} is no longer translated", row.cuda);
    }
}

/// Rows added or changed by the audit, one per kind, and the special cases.
#[test]
fn audited_rows_by_kind() {
    let plain = Options::new().runtime_include(RuntimeInclude::Never);
    let cases: &[(&str, &str, &str)] = &[
        // function (C++ template in HIP, absent from the C bindings)
        (
            "function",
            "cudaOccupancyMaxPotentialBlockSizeWithFlags",
            "hipOccupancyMaxPotentialBlockSizeWithFlags",
        ),
        ("function", "cudaGLGetDevices", "hipGLGetDevices"),
        // type: the typedef hipify-clang writes, not the enum tag
        ("type", "cudaExternalMemoryHandleType", "hipExternalMemoryHandleType"),
        ("type", "cudaKernelNodeAttrID", "hipKernelNodeAttrID"),
        ("type", "CUresourcetype", "HIPresourcetype"),
        ("type", "cufftResult_t", "hipfftResult_t"),
        ("type", "cufftType_t", "hipfftType_t"),
        // enum value
        ("enum", "cudaDevAttrMaxBlocksPerMultiprocessor", "hipDeviceAttributeMaxBlocksPerMultiprocessor"),
        ("enum", "cudaGraphNodeTypeConditional", "hipGraphNodeTypeConditional"),
        ("enum", "cudaHostRegisterReadOnly", "hipHostRegisterReadOnly"),
        // macro
        ("macro", "cudaExternalMemoryDedicated", "hipExternalMemoryDedicated"),
        ("macro", "CUDA_EXTERNAL_MEMORY_DEDICATED", "hipExternalMemoryDedicated"),
        // driver `_v1`/`_st` aliases of one HIP type
        ("type", "CUDA_EXT_SEM_WAIT_NODE_PARAMS_v2_st", "hipExternalSemaphoreWaitNodeParams"),
        ("type", "CUDA_MEMSET_NODE_PARAMS_v1", "HIP_MEMSET_NODE_PARAMS"),
        ("enum", "CUGLDeviceList_enum", "hipGLDeviceList"),
        ("enum", "CU_KERNEL_NODE_ATTRIBUTE_PRIORITY", "hipKernelNodeAttributePriority"),
        // kept on purpose: hipJitOption values, not HIPIFY's HIPRTC_JIT_*
        ("kept", "CU_JIT_MAX_REGISTERS", "hipJitOptionMaxRegisters"),
        // deprecated and removed CUDA names are still translated
        ("deprecated", "cudaThreadSynchronize", "hipDeviceSynchronize"),
        ("removed", "cudaBindTexture", "hipBindTexture"),
        // `_v2` driver functions: the same HIP function
        ("function", "cuCtxCreate_v2", "hipCtxCreate"),
        ("function", "cuLinkAddData_v2", "hiprtcLinkAddData"),
        // ROCm 7 spelling kept on purpose (HIPIFY 0244dd3: hipDeviceAttributePciDomainID)
        ("renamed", "cudaDevAttrPciDomainId", "hipDeviceAttributePciDomainId"),
    ];
    for (kind, cuda, hip) in cases {
        let (text, warnings) = one(cuda, &plain);
        assert_eq!(text, *hip, "{kind} {cuda}");
        assert!(warnings.is_empty(), "{kind} {cuda}: {warnings:?}");
    }
}

#[test]
fn experimental_names_need_the_option() {
    let plain = Options::new().runtime_include(RuntimeInclude::Never);
    let src = "cudaEventRecordWithFlags(e, s, 0);\n";
    let t = translate(src, &plain).unwrap();
    assert_eq!(t.text, src);
    assert_eq!(t.warnings.len(), 1);
    assert_eq!(
        t.warnings[0].to_string(),
        "1:1: warning: 'cudaEventRecordWithFlags' is experimental in 'HIP'; to hipify it, use the '--experimental' option."
    );
    let t = translate(src, &plain.clone().experimental(true)).unwrap();
    assert_eq!(t.text, "hipEventRecordWithFlags(e, s, 0);\n");
    assert!(t.warnings.is_empty());
    // A driver type, spelled with a `_v2` suffix.
    let src = "CUDA_BATCH_MEM_OP_NODE_PARAMS_v2 p;\n";
    let t = translate(src, &plain).unwrap();
    assert_eq!((t.text.as_str(), t.warnings.len()), (src, 1));
    let t = translate(src, &plain.clone().experimental(true)).unwrap();
    assert_eq!(t.text, "hipBatchMemOpNodeParams p;\n");
}

#[test]
fn roc_keeps_hiprand_and_hipfft_names() {
    // hipify-clang's --roc covers BLAS, DNN, SPARSE, SOLVER and the library data
    // types only (Statistics::isToRoc): cuRAND's ROC column is hipify-perl's.
    let roc = Options::new().runtime_include(RuntimeInclude::Never).roc(true);
    for (cuda, hip) in [("curandCreateGenerator", "hiprandCreateGenerator"), ("cufftPlan1d", "hipfftPlan1d")]
    {
        assert_eq!(one(cuda, &roc).0, hip);
    }
}
