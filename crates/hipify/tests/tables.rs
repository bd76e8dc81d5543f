//! The data tables: well-formed, large enough, and spot-checked per API
//! against names taken from the HIP library documentation.

use ferrocm_hipify::{table_counts, translate, Api, Options, RuntimeInclude};

/// Translates one identifier with `options` and checks the result, in a file
/// that includes `cublas_v2.h` (legacy cuBLAS routines are translated only then).
fn check(options: &Options, cuda: &str, expect: &str) {
    let t = translate(&format!("#include <cublas_v2.h>\n{cuda}"), options).expect("translates");
    assert_eq!(t.text.split_once('\n').map(|(_, rest)| rest), Some(expect), "{cuda}");
}

#[test]
fn at_least_4000_names_are_mapped() {
    let counts = table_counts();
    let mapped: usize = counts.iter().map(|c| c.1).sum();
    let unsupported: usize = counts.iter().map(|c| c.2).sum();
    assert!(mapped >= 4000, "only {mapped} mapped");
    assert!(unsupported > 0);
    for (api, m, _) in counts {
        assert!(m > 0 || api == Api::Device, "{api:?} maps nothing");
    }
}

#[test]
fn table_lines_are_well_formed() {
    let files = [
        include_str!("../data/runtime.tsv"),
        include_str!("../data/driver.tsv"),
        include_str!("../data/device.tsv"),
        include_str!("../data/complex.tsv"),
        include_str!("../data/rtc.tsv"),
        include_str!("../data/blas.tsv"),
        include_str!("../data/rand.tsv"),
        include_str!("../data/fft.tsv"),
        include_str!("../data/sparse.tsv"),
        include_str!("../data/solver.tsv"),
        include_str!("../data/dnn.tsv"),
        include_str!("../data/cub.tsv"),
    ];
    let ident = |s: &str| {
        let s = s.strip_suffix("::").unwrap_or(s);
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    // Targets may be qualified C++ names (rocRAND's `rocrand_device::sobol32_engine<false>`).
    let target =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"_:<>".contains(&b));
    for file in files {
        for line in file.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
            let cols: Vec<&str> = line.split('\t').collect();
            assert!((2..=4).contains(&cols.len()), "bad column count: {line:?}");
            assert!(ident(cols[0]), "bad CUDA name: {line:?}");
            assert!(cols.len() < 4 || cols[3] == "experimental", "bad fourth column: {line:?}");
            for c in &cols[1..cols.len().min(3)] {
                assert!(c.is_empty() || *c == "-" || target(c), "bad target: {line:?}");
            }
        }
    }
}

#[test]
fn spot_checks_per_api() {
    let hip = Options::new().runtime_include(RuntimeInclude::Never);
    let cases = [
        // runtime
        ("cudaMallocPitch", "hipMallocPitch"),
        ("cudaMemcpy2DAsync", "hipMemcpy2DAsync"),
        ("cudaStreamCaptureModeGlobal", "hipStreamCaptureModeGlobal"),
        ("cudaGraphExec_t", "hipGraphExec_t"),
        ("cudaPointerAttributes", "hipPointerAttribute_t"),
        ("cudaHostAllocMapped", "hipHostMallocMapped"),
        ("cudaDevAttrMultiProcessorCount", "hipDeviceAttributeMultiprocessorCount"),
        ("cudaOccupancyMaxPotentialBlockSize", "hipOccupancyMaxPotentialBlockSize"),
        ("cudaStreamPerThread", "hipStreamPerThread"),
        ("make_cudaExtent", "make_hipExtent"),
        ("CUDA_R_16F", "HIP_R_16F"),
        ("cudaDataType_t", "hipDataType"),
        // driver
        ("cuCtxSynchronize", "hipCtxSynchronize"),
        ("cuMemcpyHtoDAsync", "hipMemcpyHtoDAsync"),
        ("cuModuleLoadData", "hipModuleLoadData"),
        ("CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK", "hipDeviceAttributeMaxThreadsPerBlock"),
        ("CUDA_ERROR_OUT_OF_MEMORY", "hipErrorOutOfMemory"),
        ("cuGetErrorString", "hipDrvGetErrorString"),
        // rtc
        ("nvrtcGetProgramLog", "hiprtcGetProgramLog"),
        ("NVRTC_SUCCESS", "HIPRTC_SUCCESS"),
        // blas
        ("cublasGemmEx", "hipblasGemmEx_v2"),
        ("cublasCaxpy", "hipblasCaxpy_v2"),
        ("cublasSgemmBatched", "hipblasSgemmBatched"),
        ("CUBLAS_COMPUTE_32F", "HIPBLAS_COMPUTE_32F"),
        ("cublasLtMatmul", "hipblasLtMatmul"),
        // rand
        ("curandStatePhilox4_32_10_t", "hiprandStatePhilox4_32_10_t"),
        ("curand_normal", "hiprand_normal"),
        // fft
        ("cufftPlanMany", "hipfftPlanMany"),
        ("CUFFT_R2C", "HIPFFT_R2C"),
        ("cufftExecZ2Z", "hipfftExecZ2Z"),
        // sparse
        ("cusparseSpMM", "hipsparseSpMM"),
        ("CUSPARSE_SPMV_ALG_DEFAULT", "HIPSPARSE_SPMV_ALG_DEFAULT"),
        // solver
        ("cusolverDnDgetrf_bufferSize", "hipsolverDnDgetrf_bufferSize"),
        // dnn
        // cuDNN goes to hipDNN by default (MIOpen with --roc)
        ("cudnnActivationForward", "hipdnnActivationForward"),
        // complex
        ("cuCabs", "hipCabs"),
        // cub macros
        ("CubDebug", "HipcubDebug"),
    ];
    for (cuda, expect) in cases {
        check(&hip, cuda, expect);
    }
    let roc = Options::new().runtime_include(RuntimeInclude::Never).roc(true);
    for (cuda, expect) in [
        ("cublasDgemv", "rocblas_dgemv"),
        ("cublasIsamax", "rocblas_isamax"),
        ("cublasZgemmStridedBatched", "rocblas_zgemm_strided_batched"),
        ("CUBLAS_FILL_MODE_LOWER", "rocblas_fill_lower"),
        // hipify-clang translates cuRAND and cuFFT to hipRAND and hipFFT also under --roc.
        ("curandGenerateNormal", "hiprandGenerateNormal"),
        ("cusparseDestroy", "rocsparse_destroy_handle"),
        ("cudnnActivationForward", "miopenActivationForward"),
        // APIs without a ROC flavour keep their HIP names under --roc.
        ("cudaMalloc", "hipMalloc"),
        ("cufftExecC2C", "hipfftExecC2C"),
    ] {
        check(&roc, cuda, expect);
    }
}
