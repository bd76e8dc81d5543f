//! Translation behaviour: one `check(input, expect)` per case, expectations
//! written by hand from the CUDA and HIP documentation.

use ferrocm_hipify::{translate, translate_bytes, Options, RuntimeInclude};

fn check_with(options: &Options, input: &str, expect: &str) {
    let t = translate(input, options).expect("translates");
    assert_eq!(t.text, expect, "\n--- input ---\n{input}\n--- got ---\n{}\n", t.text);
    // Idempotence: translating the HIP output again changes nothing.
    let again = translate(&t.text, options).expect("translates again");
    assert_eq!(again.text, t.text, "second pass changed the output");
}

fn check(input: &str, expect: &str) {
    check_with(&Options::new().runtime_include(RuntimeInclude::Never), input, expect);
}

fn launches() -> Options {
    Options::new().runtime_include(RuntimeInclude::Never).hip_kernel_execution_syntax(true)
}

/// Only the `#if` groups the preprocessor keeps (`--default-preprocessor`).
fn skipping() -> Options {
    Options::new().runtime_include(RuntimeInclude::Never).default_preprocessor(true)
}

fn roc() -> Options {
    Options::new().runtime_include(RuntimeInclude::Never).roc(true)
}

#[test]
fn runtime_memory_and_errors() {
    check(
        "cudaError_t e = cudaMalloc(&p, n);\nif (e != cudaSuccess) puts(cudaGetErrorString(e));\n\
         cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);\ncudaMemcpyAsync(h, d, n, cudaMemcpyDeviceToHost, s);\n\
         cudaFree(p); cudaDeviceSynchronize(); cudaGetLastError();\n",
        "hipError_t e = hipMalloc(&p, n);\nif (e != hipSuccess) puts(hipGetErrorString(e));\n\
         hipMemcpy(d, h, n, hipMemcpyHostToDevice);\nhipMemcpyAsync(h, d, n, hipMemcpyDeviceToHost, s);\n\
         hipFree(p); hipDeviceSynchronize(); hipGetLastError();\n",
    );
}

#[test]
fn runtime_types_streams_events() {
    check(
        "cudaStream_t s; cudaEvent_t a; cudaDeviceProp prop; cudaFuncAttributes fa;\n\
         cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking); cudaEventCreate(&a);\n\
         cudaEventRecord(a, s); cudaEventElapsedTime(&ms, a, b); cudaGetDeviceProperties(&prop, 0);\n\
         cudaMallocHost(&h, n); cudaFreeHost(h); cudaMallocManaged(&m, n); cudaLaunchKernel(f, g, b, a, 0, s);\n",
        "hipStream_t s; hipEvent_t a; hipDeviceProp_t prop; hipFuncAttributes fa;\n\
         hipStreamCreateWithFlags(&s, hipStreamNonBlocking); hipEventCreate(&a);\n\
         hipEventRecord(a, s); hipEventElapsedTime(&ms, a, b); hipGetDeviceProperties(&prop, 0);\n\
         hipHostMalloc(&h, n, hipHostMallocDefault); hipHostFree(h); hipMallocManaged(&m, n); hipLaunchKernel(f, g, b, a, 0, s);\n",
    );
}

#[test]
fn runtime_enums_and_attributes() {
    check(
        "cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 0);\ncudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, n);\ncudaErrorInvalidValue; cudaErrorMemoryAllocation;\n",
        "hipDeviceGetAttribute(&v, hipDeviceAttributeMaxThreadsPerBlock, 0);\nhipFuncSetAttribute(k, hipFuncAttributeMaxDynamicSharedMemorySize, n);\nhipErrorInvalidValue; hipErrorOutOfMemory;\n",
    );
}

#[test]
fn symbol_arguments_are_wrapped() {
    check(
        "cudaMemcpyToSymbol(c_table, h, n);\ncudaMemcpyToSymbolAsync(ns::tbl<int>, h, n, 0, cudaMemcpyHostToDevice, s);\n\
         cudaMemcpyFromSymbol(h, c_table, n);\ncudaGetSymbolAddress((void**)&p, c_table);\ncudaGetSymbolSize(&n, f(a, b));\n",
        "hipMemcpyToSymbol(HIP_SYMBOL(c_table), h, n);\nhipMemcpyToSymbolAsync(HIP_SYMBOL(ns::tbl<int>), h, n, 0, hipMemcpyHostToDevice, s);\n\
         hipMemcpyFromSymbol(h, HIP_SYMBOL(c_table), n);\nhipGetSymbolAddress((void**)&p, HIP_SYMBOL(c_table));\nhipGetSymbolSize(&n, HIP_SYMBOL(f(a, b)));\n",
    );
}

#[test]
fn call_site_fixes() {
    check(
        "cudaMallocHost((void**)&h, bytes);\ncudaEventCreate(&e, cudaEventDisableTiming); cudaEventCreate(&e);\n\
         cudaGraphInstantiate(&x, g, 0); cudaGraphInstantiate(&x, g, 0, 0, 0);\n\
         cuOccupancyMaxPotentialBlockSize(&gs, &bs, f, toSmem, 0, 0);\ncudaGraphAddMemcpyNodeToSymbol(&n, g, d, k, sym, src, c, o, kind);\n",
        "hipHostMalloc((void**)&h, bytes, hipHostMallocDefault);\nhipEventCreateWithFlags(&e, hipEventDisableTiming); hipEventCreate(&e);\n\
         hipGraphInstantiateWithFlags(&x, g, 0); hipGraphInstantiate(&x, g, 0, 0, 0);\n\
         hipModuleOccupancyMaxPotentialBlockSize(&gs, &bs, f, 0, 0);\nhipGraphAddMemcpyNodeToSymbol(&n, g, d, k, HIP_SYMBOL(sym), src, c, o, kind);\n",
    );
}

#[test]
fn driver_api() {
    check(
        "CUdeviceptr p; CUresult r = cuMemAlloc(&p, n);\nif (r != CUDA_SUCCESS) return;\nCUmodule m; CUfunction f; CUcontext c; CUdevice d;\ncuInit(0); cuDeviceGet(&d, 0); cuCtxCreate(&c, 0, d); cuModuleLoad(&m, \"k.cubin\");\ncuModuleGetFunction(&f, m, \"k\"); cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0, args, 0); cuMemFree(p);\n",
        "hipDeviceptr_t p; hipError_t r = hipMalloc(&p, n);\nif (r != hipSuccess) return;\nhipModule_t m; hipFunction_t f; hipCtx_t c; hipDevice_t d;\nhipInit(0); hipDeviceGet(&d, 0); hipCtxCreate(&c, 0, d); hipModuleLoad(&m, \"k.cubin\");\nhipModuleGetFunction(&f, m, \"k\"); hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0, args, 0); hipFree(p);\n",
    );
}

#[test]
fn device_intrinsics_keep_their_names() {
    let src = "__global__ void k(float* x) {\n  __shared__ float s[32];\n  float v = __shfl_down_sync(0xffffffff, x[threadIdx.x], 16);\n  __syncthreads(); atomicAdd(x, __ldg(x + 1)); s[0] = v;\n}\n";
    check(src, src);
}

#[test]
fn cublas_to_hipblas() {
    check(
        "#include <cublas_v2.h>\ncublasHandle_t h; cublasCreate(&h); cublasSetStream(h, s);\ncublasStatus_t st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &a, A, m, B, k, &b, C, m);\nif (st != CUBLAS_STATUS_SUCCESS) {}\ncublasDgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, A, m, B, k, &b, C, m); cublasDestroy(h);\n",
        "#include <hipblas.h>\nhipblasHandle_t h; hipblasCreate(&h); hipblasSetStream(h, s);\nhipblasStatus_t st = hipblasSgemm(h, HIPBLAS_OP_N, HIPBLAS_OP_T, m, n, k, &a, A, m, B, k, &b, C, m);\nif (st != HIPBLAS_STATUS_SUCCESS) {}\nhipblasDgemm(h, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &a, A, m, B, k, &b, C, m); hipblasDestroy(h);\n",
    );
}

#[test]
fn cublas_to_rocblas_with_roc() {
    check_with(
        &roc(),
        "#include <cublas_v2.h>\ncublasHandle_t h; cublasCreate(&h);\ncublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &a, A, m, B, k, &b, C, m);\ncublasSaxpy(h, n, &a, x, 1, y, 1); cublasDgemmStridedBatched(h); cublasDestroy(h);\n",
        "#include <rocblas.h>\nrocblas_handle h; rocblas_create_handle(&h);\nrocblas_sgemm(h, rocblas_operation_none, rocblas_operation_transpose, m, n, k, &a, A, m, B, k, &b, C, m);\nrocblas_saxpy(h, n, &a, x, 1, y, 1); rocblas_dgemm_strided_batched(h); rocblas_destroy_handle(h);\n",
    );
}

#[test]
fn curand_host_and_device() {
    check(
        "#include <curand.h>\n#include <curand_kernel.h>\ncurandGenerator_t g; curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);\ncurandSetPseudoRandomGeneratorSeed(g, 1234ULL); curandGenerateUniform(g, d, n);\n__global__ void k(curandState* st) { curand_init(1, threadIdx.x, 0, &st[0]); float f = curand_uniform(&st[0]); }\n",
        "#include <hiprand/hiprand.h>\n#include <hiprand/hiprand_kernel.h>\nhiprandGenerator_t g; hiprandCreateGenerator(&g, HIPRAND_RNG_PSEUDO_DEFAULT);\nhiprandSetPseudoRandomGeneratorSeed(g, 1234ULL); hiprandGenerateUniform(g, d, n);\n__global__ void k(hiprandState* st) { hiprand_init(1, threadIdx.x, 0, &st[0]); float f = hiprand_uniform(&st[0]); }\n",
    );
}

#[test]
fn curand_stays_hiprand_with_roc() {
    // hipify-clang's --roc covers BLAS, SPARSE, SOLVER and DNN only.
    check_with(
        &roc(),
        "#include <curand_kernel.h>\ncurandStatePhilox4_32_10_t s; curand_init(1, 0, 0, &s); curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);\n",
        "#include <hiprand/hiprand_kernel.h>\nhiprandStatePhilox4_32_10_t s; hiprand_init(1, 0, 0, &s); hiprandCreateGenerator(&g, HIPRAND_RNG_PSEUDO_DEFAULT);\n",
    );
}

#[test]
fn cufft() {
    check(
        "#include <cufft.h>\ncufftHandle p; cufftComplex* d; cufftPlan1d(&p, n, CUFFT_C2C, 1);\ncufftExecC2C(p, d, d, CUFFT_FORWARD); cufftDestroy(p); cufftResult r = CUFFT_SUCCESS; cufftDoubleComplex z;\n",
        "#include <hipfft/hipfft.h>\nhipfftHandle p; hipfftComplex* d; hipfftPlan1d(&p, n, HIPFFT_C2C, 1);\nhipfftExecC2C(p, d, d, HIPFFT_FORWARD); hipfftDestroy(p); hipfftResult r = HIPFFT_SUCCESS; hipfftDoubleComplex z;\n",
    );
}

#[test]
fn cusparse_and_rocsparse() {
    let src = "#include <cusparse.h>\ncusparseHandle_t h; cusparseCreate(&h); cusparseMatDescr_t d; cusparseCreateMatDescr(&d);\ncusparseSetMatIndexBase(d, CUSPARSE_INDEX_BASE_ZERO); cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE);\n";
    check(src, "#include <hipsparse.h>\nhipsparseHandle_t h; hipsparseCreate(&h); hipsparseMatDescr_t d; hipsparseCreateMatDescr(&d);\nhipsparseSetMatIndexBase(d, HIPSPARSE_INDEX_BASE_ZERO); hipsparseSpMV(h, HIPSPARSE_OPERATION_NON_TRANSPOSE);\n");
    let t = translate(src, &roc()).expect("translates");
    assert!(t.text.contains("rocsparse_handle h; rocsparse_create_handle(&h);"), "{}", t.text);
    assert!(t.text.contains("rocsparse_index_base_zero"), "{}", t.text);
}

#[test]
fn cusolver() {
    check(
        "#include <cusolverDn.h>\ncusolverDnHandle_t h; cusolverDnCreate(&h); cusolverDnSgetrf(h, m, n, A, lda, w, piv, info);\nif (st == CUSOLVER_STATUS_SUCCESS) cusolverDnDestroy(h);\n",
        // HIPIFY sends cusolverDnHandle_t to hipsolverHandle_t (its cuSOLVER table).
        "#include <hipsolver.h>\nhipsolverHandle_t h; hipsolverDnCreate(&h); hipsolverDnSgetrf(h, m, n, A, lda, w, piv, info);\nif (st == HIPSOLVER_STATUS_SUCCESS) hipsolverDnDestroy(h);\n",
    );
}

#[test]
fn cusolver_to_rocsolver_with_roc() {
    // HIPIFY's cuSOLVER table: with --roc only the names it gives a ROC name for are
    // translated (handles and statuses to rocBLAS, potrf to rocSOLVER); the rest are
    // unsupported in ROC and stay, with a warning, as hipify-clang leaves them.
    let src = "#include <cusolverDn.h>\ncusolverDnHandle_t h; cusolverDnCreate(&h); cusolverDnSetStream(h, s);\n\
               cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, A, lda, w, lw, info); cusolverDnDgetrf(h, m, n, A, lda, w, piv, info);\n\
               if (st != CUSOLVER_STATUS_SUCCESS) return; cusolverEigMode_t j = CUSOLVER_EIG_MODE_VECTOR; cusolverDnDestroy(h);\n";
    let t = translate(src, &roc()).expect("translates");
    assert_eq!(
        t.text,
        "#include <rocsolver/rocsolver.h>\nrocblas_handle h; rocblas_create_handle(&h); rocblas_set_stream(h, s);\n\
         rocsolver_dpotrf(h, rocblas_fill_lower, n, A, lda, w, lw, info); cusolverDnDgetrf(h, m, n, A, lda, w, piv, info);\n\
         if (st != rocblas_status_success) return; rocblas_evect j = rocblas_evect_original; rocblas_destroy_handle(h);\n"
    );
    let unsupported: Vec<&str> = t.warnings.iter().map(|w| w.identifier.as_str()).collect();
    assert_eq!(unsupported, ["cusolverDnDgetrf"]);
}

#[test]
fn cudnn_to_miopen() {
    check_with(
        &roc(),
        "#include <cudnn.h>\ncudnnHandle_t h; cudnnCreate(&h); cudnnTensorDescriptor_t t; cudnnCreateTensorDescriptor(&t);\ncudnnStatus_t s = CUDNN_STATUS_SUCCESS; cudnnDataType_t dt = CUDNN_DATA_FLOAT; cudnnDestroy(h);\n",
        "#include <miopen/miopen.h>\nmiopenHandle_t h; miopenCreate(&h); miopenTensorDescriptor_t t; miopenCreateTensorDescriptor(&t);\nmiopenStatus_t s = miopenStatusSuccess; miopenDataType_t dt = miopenFloat; miopenDestroy(h);\n",
    );
}

#[test]
fn cub_namespace() {
    // hipify-clang renames `cub` only through AST matchers (HipifyAction.cpp:
    // cubNamespacePrefix, cubFunctionTemplateDecl, cubUsingNamespaceDecl): the
    // namespace qualifying a typedef's type, a function template's non-type
    // parameter type, and `using namespace cub;`. Calls, variables, aliases and
    // nested names stay (its token pass does not know `cub`).
    check(
        "#include <cub/cub.cuh>\n#include <cub/block/block_reduce.cuh>\ntypedef cub::BlockReduce<int, 128> R;\ncub::DeviceReduce::Sum(tmp, bytes, in, out, n);\nusing namespace cub;\nint cub = 1; x.cub = cub;\n",
        "#include <hipcub/hipcub.hpp>\n#include <cub/block/block_reduce.cuh>\ntypedef hipcub::BlockReduce<int, 128> R;\ncub::DeviceReduce::Sum(tmp, bytes, in, out, n);\nusing namespace hipcub;\nint cub = 1; x.cub = cub;\n",
    );
    check(
        "template <typename T, int B>\n__global__ void k() {\n  typedef cub::BlockReduce<T, B> BR;\n  typedef const ::cub::WarpReduce<T> WR;\n  typedef typename cub::BlockScan<T, B>::TempStorage TS;\n  typedef cub::BlockScan<int, 4>::TempStorage TS2;\n  using BR2 = cub::BlockReduce<T, B>;\n  __shared__ typename cub::BlockReduce<T, B>::TempStorage temp;\n  cub::CachingDeviceAllocator a;\n}\n",
        "template <typename T, int B>\n__global__ void k() {\n  typedef hipcub::BlockReduce<T, B> BR;\n  typedef const ::hipcub::WarpReduce<T> WR;\n  typedef typename cub::BlockScan<T, B>::TempStorage TS;\n  typedef cub::BlockScan<int, 4>::TempStorage TS2;\n  using BR2 = cub::BlockReduce<T, B>;\n  __shared__ typename cub::BlockReduce<T, B>::TempStorage temp;\n  cub::CachingDeviceAllocator a;\n}\n",
    );
    // A function template's non-type parameter, not a class template's, nor a default value.
    check(
        "template <int B, cub::BlockReduceAlgorithm A = cub::BLOCK_REDUCE_RAKING>\n__global__ void k(int* x) {}\ntemplate <cub::BlockReduceAlgorithm A>\nstruct S {};\nusing namespace cub::detail;\n",
        "template <int B, hipcub::BlockReduceAlgorithm A = cub::BLOCK_REDUCE_RAKING>\n__global__ void k(int* x) {}\ntemplate <cub::BlockReduceAlgorithm A>\nstruct S {};\nusing namespace cub::detail;\n",
    );
    // The name of a template kernel launched in HIP syntax gets hipcub:: throughout.
    check_with(
        &launches(),
        "k<cub::Sum, cub::Max><<<1, 2>>>(x);\nk<<<1, 2>>>(cub::Sum());\n",
        "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<hipcub::Sum, hipcub::Max>), dim3(1), dim3(2), 0, 0, x);\nhipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, cub::Sum());\n",
    );
}

#[test]
fn thrust_and_cooperative_groups_stay() {
    check(
        "#include <thrust/device_vector.h>\n#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\nthrust::device_vector<int> v; cg::thread_block b = cg::this_thread_block();\n",
        "#include <thrust/device_vector.h>\n#include <hip/hip_cooperative_groups.h>\nnamespace cg = cooperative_groups;\nthrust::device_vector<int> v; cg::thread_block b = cg::this_thread_block();\n",
    );
}

#[test]
fn nvrtc_and_complex() {
    check(
        "#include <nvrtc.h>\n#include <cuComplex.h>\nnvrtcProgram p; nvrtcCreateProgram(&p, src, \"k.cu\", 0, 0, 0); nvrtcCompileProgram(p, 0, 0);\ncuFloatComplex z = make_cuFloatComplex(1, 2); float r = cuCrealf(cuCmulf(z, z)); cuDoubleComplex w;\n",
        "#include <hip/hiprtc.h>\n#include <hip/hip_complex.h>\nhiprtcProgram p; hiprtcCreateProgram(&p, src, \"k.cu\", 0, 0, 0); hiprtcCompileProgram(p, 0, 0);\nhipFloatComplex z = make_hipFloatComplex(1, 2); float r = hipCrealf(hipCmulf(z, z)); hipDoubleComplex w;\n",
    );
}

#[test]
fn headers_keep_their_delimiters() {
    check(
        "#include \"cuda_runtime.h\"\n#  include <cuda.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include \"device_launch_parameters.h\"\n#include <stdio.h>\n",
        "#include \"hip/hip_runtime.h\"\n\n#include <hip/hip_fp16.h>\n#include <hip/hip_bf16.h>\n\n#include <stdio.h>\n",
    );
}

#[test]
fn names_in_comments_and_prefixed_strings_are_left_alone() {
    let src = "// cudaMalloc here\n/* cudaFree(p) */\nchar c = 'c'; wchar_t w = L'x'; auto u = u8\"cudaFree\"; auto l = L\"cudaFree\";\nint mycudaMalloc, cudaMalloc_x;\n";
    check(src, src);
}

#[test]
fn names_in_plain_strings_follow_hipify_clang() {
    // From each "cu" to the next space (or the end) must be a whole CUDA name.
    check(
        "const char* a = \"cudaMalloc\";\nputs(\"cudaMalloc failed in cudaMemcpy\");\nputs(\"cudaMalloc: %s\\n\");\nauto r = R\"x(cudaFree \" )x\";\nputs(\"accumulate cudaFree\");\n",
        "const char* a = \"hipMalloc\";\nputs(\"hipMalloc failed in hipMemcpy\");\nputs(\"cudaMalloc: %s\\n\");\nauto r = R\"x(hipFree \" )x\";\nputs(\"accumulate hipFree\");\n",
    );
}

#[test]
fn bytes_outside_utf8_pass_through() {
    // A Windows-1252 "é" (0xE9) in a comment and a string.
    let input = b"// caf\xe9\ncudaFree(p); puts(\"r\xe9sum\xe9\");\n";
    let t = ferrocm_hipify::translate_bytes(input, &Options::new().runtime_include(RuntimeInclude::Never))
        .expect("translates");
    assert_eq!(t.output_bytes(), b"// caf\xe9\nhipFree(p); puts(\"r\xe9sum\xe9\");\n");
    let again = ferrocm_hipify::translate_bytes(
        t.output_bytes(),
        &Options::new().runtime_include(RuntimeInclude::Never),
    )
    .expect("translates again");
    assert_eq!(again.output_bytes(), t.output_bytes());
    // NUL bytes anywhere still mark a binary.
    let mut binary = b"cudaFree(p);\n".repeat(1000);
    binary.push(0);
    assert!(ferrocm_hipify::translate_bytes(&binary, &Options::new()).is_err());
}

#[test]
fn whitelisted_names_stay() {
    check_with(
        &Options::new().runtime_include(RuntimeInclude::Never).keep("cudaFree"),
        "cudaFree(p); cudaMalloc(&p, n); puts(\"cudaFree\");\n",
        "cudaFree(p); hipMalloc(&p, n); puts(\"cudaFree\");\n",
    );
}

#[test]
fn every_identifier_token_is_renamed_as_hipify_clang_does() {
    // Members and qualified names are plain tokens to hipify-clang's raw pass.
    check(
        "obj.cudaStream = p->cudaStream_t_member + ns::cudaStream_t{};\n",
        "obj.cudaStream = p->cudaStream_t_member + ns::hipStream_t{};\n",
    );
    check("w.cudaMalloc = 1;\n", "w.hipMalloc = 1;\n");
}

#[test]
fn if_zero_blocks_are_left_alone_with_default_preprocessor() {
    // Dead code may hold text that is not C++ (a stray apostrophe); it still lexes.
    check_with(
        &launches().default_preprocessor(true),
        "#if 0\n#include <cuda_runtime.h>\ncudaMalloc(&p, n); it's old\nk<<<1, 2>>>(p);\n#else\ncudaFree(p);\n#endif\n",
        "#if 0\n#include <cuda_runtime.h>\ncudaMalloc(&p, n); it's old\nk<<<1, 2>>>(p);\n#else\nhipFree(p);\n#endif\n",
    );
    check_with(
        &skipping(),
        "#if 0\n#ifdef X\n#include <cublas_v2.h>\ncudaFree(a);\n#endif\n#endif\n#include <cublas_v2.h>\n",
        "#if 0\n#ifdef X\n#include <cublas_v2.h>\ncudaFree(a);\n#endif\n#endif\n#include <hipblas.h>\n",
    );
    // --amap renames identifiers there too (includes and launches still stay).
    check_with(
        &skipping().amap(true),
        "#if 0\n#include <cuda.h>\ncudaFree(a);\n#endif\n",
        "#if 0\n#include <cuda.h>\nhipFree(a);\n#endif\n",
    );
}

#[test]
fn every_if_group_is_translated_by_default() {
    // hipify-clang retains excluded conditional blocks unless given
    // --default-preprocessor (LLVMCompat.cpp, RetainExcludedConditionalBlocks):
    // names, includes and launches of every group are translated, including
    // `#if 0` and the conditions themselves.
    check_with(
        &launches(),
        "#if 0\n#include <cuda_runtime.h>\ncudaMalloc(&p, n); it's old\nk<<<1, 2>>>(p);\n#else\ncudaFree(p);\n#endif\n",
        "#if 0\n#include <hip/hip_runtime.h>\nhipMalloc(&p, n); it's old\nhipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, p);\n#else\nhipFree(p);\n#endif\n",
    );
    check(
        "#ifdef DEBUG\n  cudaDeviceSynchronize();\n#endif\n#if !defined(__CUDACC__) || __CUDA_ARCH__ < 600\ncudaFree(p);\n#elif CUDART_VERSION >= 11000\ncudaFree(q);\n#endif\n",
        "#ifdef DEBUG\n  hipDeviceSynchronize();\n#endif\n#if !defined(__HIPCC__) || __CUDA_ARCH__ < 600\nhipFree(p);\n#elif CUDART_VERSION >= 11000\nhipFree(q);\n#endif\n",
    );
    // The second main header of an API is dropped whatever group it is in, as
    // hipify-clang's preprocessor sees both.
    check(
        "#ifdef USE_DRIVER\n#include <cuda.h>\n#else\n#include <cuda_runtime.h>\n#endif\n",
        "#ifdef USE_DRIVER\n#include <hip/hip_runtime.h>\n#else\n\n#endif\n",
    );
    // -D and -U change nothing then.
    let src = "#ifdef NEVER\ncudaFree(p);\n#endif\n";
    check_with(
        &Options::new().runtime_include(RuntimeInclude::Never).undefine("NEVER"),
        src,
        "#ifdef NEVER\nhipFree(p);\n#endif\n",
    );
}

#[test]
fn macros_and_continuations() {
    check(
        "#define CHECK(x) do { cudaError_t e = (x); \\\n  if (e != cudaSuccess) printf(\"%s\", cudaGetErrorString(e)); } while (0)\n#error don't use cudaMalloc here\n",
        "#define CHECK(x) do { hipError_t e = (x); \\\n  if (e != hipSuccess) printf(\"%s\", hipGetErrorString(e)); } while (0)\n#error don't use cudaMalloc here\n",
    );
}

#[test]
fn templates_and_lambdas() {
    check(
        "template <typename T> void f(std::vector<std::vector<T>> v) { auto g = [&](cudaStream_t s) { cudaStreamSynchronize(s); }; }\nint big = 1'000'000; auto x = a < b ? c >> 2 : d;\n",
        "template <typename T> void f(std::vector<std::vector<T>> v) { auto g = [&](hipStream_t s) { hipStreamSynchronize(s); }; }\nint big = 1'000'000; auto x = a < b ? c >> 2 : d;\n",
    );
}

#[test]
fn crlf_trailing_space_and_no_final_newline_survive() {
    check("int a;  \r\ncudaFree(p);\t\r\n  // x  ", "int a;  \r\nhipFree(p);\t\r\n  // x  ");
    check("no cuda here\r\n\r\n", "no cuda here\r\n\r\n");
    check("\u{feff}#include <cuda.h>\r\n", "\u{feff}#include <hip/hip_runtime.h>\r\n");
}

#[test]
fn launch_stays_by_default() {
    let src = "k<<<g, b>>>(x);\n";
    check(src, src);
}

#[test]
fn launch_rewritten_with_hip_syntax() {
    check_with(&launches(), "k<<<g, b>>>(x, y);\n", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x, y);\n");
    check_with(
        &launches(),
        "k<<<g, b, shm>>>(x);\n",
        "hipLaunchKernelGGL(k, dim3(g), dim3(b), shm, 0, x);\n",
    );
    check_with(&launches(), "k<<<g, b, 0, s>>>(x);\n", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, s, x);\n");
    check_with(&launches(), "k<<<g, b>>>();\n", "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0);\n");
}

#[test]
fn launch_with_templates_nesting_and_translation_inside() {
    check_with(
        &launches(),
        "k<T, 4><<<dim3((n + 255) / 256, 1), min(256, n), sizeof(float) * f(a, b), st>>>( g(x, y), cudaMemcpyHostToDevice );\n",
        "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<T, 4>), dim3((n + 255) / 256, 1), dim3(min(256, n)), sizeof(float) * f(a, b), st, g(x, y), hipMemcpyHostToDevice);\n",
    );
    check_with(
        &launches(),
        "ns::k<<<\n    grid,\n    block>>>(a,\n    b);\n",
        "hipLaunchKernelGGL(ns::k, dim3(grid), dim3(block), 0, 0, a,\n    b);\n",
    );
}

#[test]
fn launch_forms_that_stay() {
    // Members, pointer expressions and one-argument configurations are left in
    // CUDA syntax (valid HIP).
    let src = "obj.k<<<g, b>>>(x);\np->k<<<g, b>>>(x);\n(*fp)<<<g, b>>>(x);\nk<<<g>>>(x);\n";
    check_with(&launches(), src, src);
    check_with(&launches(), "::k<<<g, b>>>(x);\n", "hipLaunchKernelGGL(::k, dim3(g), dim3(b), 0, 0, x);\n");
}

#[test]
fn launch_of_a_deduced_template_kernel_uses_hip_kernel_name() {
    check_with(
        &launches(),
        "template <typename T>\n__global__ void __launch_bounds__(256) scale(T* x, T a) {}\n__global__ void plain(int* x) {}\nvoid f(float* x, int* y) { scale<<<1, 256>>>(x, 2.0f); plain<<<1, 256>>>(y); }\n",
        "template <typename T>\n__global__ void __launch_bounds__(256) scale(T* x, T a) {}\n__global__ void plain(int* x) {}\nvoid f(float* x, int* y) { hipLaunchKernelGGL(HIP_KERNEL_NAME(scale), dim3(1), dim3(256), 0, 0, x, 2.0f); hipLaunchKernelGGL(plain, dim3(1), dim3(256), 0, 0, y); }\n",
    );
}

#[test]
fn launch_inside_a_macro() {
    check_with(
        &launches(),
        "#define RUN(k, n) k<<<(n + 255) / 256, 256>>>(n)\n",
        "#define RUN(k, n) hipLaunchKernelGGL(k, dim3((n + 255) / 256), dim3(256), 0, 0, n)\n",
    );
}

#[test]
fn shifts_are_not_launches() {
    let src = "x = a << b; y = c >> d; std::vector<std::vector<std::vector<int>>> v;\n";
    check_with(&launches(), src, src);
}

#[test]
fn unsupported_names_warn_and_stay() {
    let src = "cuStreamGetCaptureInfo_v3(s);\n  cudaMalloc(&p, n);\n";
    let t = translate(src, &Options::new().runtime_include(RuntimeInclude::Never)).expect("translates");
    assert_eq!(t.text, "cuStreamGetCaptureInfo_v3(s);\n  hipMalloc(&p, n);\n");
    let w: Vec<String> = t.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(w, ["1:1: warning: unsupported HIP identifier: cuStreamGetCaptureInfo_v3"]);
}

#[test]
fn runtime_include_added_where_missing() {
    // hipify-clang inserts "\n#include <hip/hip_runtime.h>\n" at the `#` of the
    // first #include ...
    let o = Options::new();
    check_with(
        &o,
        "// header comment\n\n  #include <stdio.h>\n__global__ void k() {}\n",
        "// header comment\n\n  \n#include <hip/hip_runtime.h>\n#include <stdio.h>\n__global__ void k() {}\n",
    );
    // ... or at the very start of a file without includes (its text is LF) ...
    check_with(
        &o,
        "/* c */\r\nint main() { cudaFree(0); }\r\n",
        "\n#include <hip/hip_runtime.h>\n/* c */\r\nint main() { hipFree(0); }\r\n",
    );
    // ... or right after `#pragma once` ...
    check_with(
        &o,
        "// h\n#pragma once\n#include <vector>\n__device__ int f();\n",
        "// h\n#pragma once\n#include <hip/hip_runtime.h>\n\n#include <vector>\n__device__ int f();\n",
    );
    // ... or right after the include guard's macro name (a `#define` need not follow).
    check_with(
        &o,
        "#ifndef K_CUH\n#define K_CUH\n#include <vector>\n__device__ int f();\n#endif\n",
        "#ifndef K_CUH\n#include <hip/hip_runtime.h>\n\n#define K_CUH\n#include <vector>\n__device__ int f();\n#endif\n",
    );
    // Not a guard: the #endif that closes the first #ifndef is not the last thing.
    check_with(
        &o,
        "#ifndef A\n#endif\ncudaStream_t s;\n",
        "\n#include <hip/hip_runtime.h>\n#ifndef A\n#endif\nhipStream_t s;\n",
    );
    // Nor with an `#else` of the guard's #ifndef (clang reports no controlling macro),
    // nor with a directive before the #ifndef: the first #include decides.
    check_with(
        &o,
        "#ifndef A\n#define A\n#include <vector>\n#else\n#include <map>\n#endif\ncudaStream_t s;\n",
        "#ifndef A\n#define A\n\n#include <hip/hip_runtime.h>\n#include <vector>\n#else\n#include <map>\n#endif\nhipStream_t s;\n",
    );
    check_with(
        &o,
        "#include <vector>\n#ifndef A\n#define A\ncudaStream_t s;\n#endif\n",
        "\n#include <hip/hip_runtime.h>\n#include <vector>\n#ifndef A\n#define A\nhipStream_t s;\n#endif\n",
    );
    // Files that use CUDA without including any CUDA header get it too ...
    check_with(&o, "void f(cudaStream_t s);\n", "\n#include <hip/hip_runtime.h>\nvoid f(hipStream_t s);\n");
    // ... but not files that include cuda.h or cuda_runtime.h, or use no CUDA at all.
    check_with(
        &o,
        "#include <cuda_runtime.h>\ncudaFree(0);\n",
        "#include <hip/hip_runtime.h>\nhipFree(0);\n",
    );
    check_with(&o, "int main() { return 0; }\n", "int main() { return 0; }\n");
    // Host/device qualifiers, dim3 and __CUDA_ARCH__ are CUDA too (hipify-clang
    // gives every file the header; here every file that uses CUDA gets it).
    for src in [
        "__host__ int f();\n",
        "inline __forceinline__ int f();\n",
        "dim3 grid(4);\n",
        "#if __CUDA_ARCH__ >= 700\nint x;\n#endif\n",
    ] {
        check_with(&o, src, &format!("\n#include <hip/hip_runtime.h>\n{src}"));
    }
    // cuda_runtime_api.h is not the runtime header: it is renamed and the runtime still added.
    check_with(
        &o,
        "#include <cuda_runtime_api.h>\ncudaFree(0);\n",
        "\n#include <hip/hip_runtime.h>\n#include <hip/hip_runtime_api.h>\nhipFree(0);\n",
    );
}

#[test]
fn duplicate_cuda_headers_collapse_into_one() {
    check(
        "#include <cuda.h>\n#include \"cuda_runtime.h\"\n#include <cublas.h>\n#include <cublas_v2.h>\nint x;\n",
        "#include <hip/hip_runtime.h>\n\n#include <hipblas.h>\n\nint x;\n",
    );
}

#[test]
fn statistics() {
    let src = "#include <cuda_runtime.h>\ncudaMalloc(&a, n); cudaMalloc(&b, n);\ncublasCreate(&h);\ncuStreamGetCaptureInfo_v3(s);\nint x;\n";
    let t = translate(src, &Options::new()).expect("translates");
    let s = &t.stats;
    assert_eq!(s.converted(), 4);
    assert_eq!(s.unconverted(), 1);
    assert_eq!(s.converted_by_name.get("cudaMalloc"), Some(&2));
    assert_eq!(s.converted_by_api.get(&ferrocm_hipify::Api::Blas), Some(&1));
    assert_eq!((s.lines_changed, s.lines_total), (3, 5));
    assert!((s.conversion_percent() - 80.0).abs() < 1e-9);
    assert!(s.csv("f.cu").contains("converted,cudaMalloc,2\n"));
}

#[test]
fn bad_input_is_an_error_not_a_partial_output() {
    let o = Options::new();
    assert_eq!(
        translate("int a;\nconst char* s = \"open;\n", &o).unwrap_err().to_string(),
        "unterminated string literal starting at 2:17"
    );
    assert!(translate("/* never closed", &o).is_err());
    assert!(translate("R\"x(never closed)\"", &o).is_err());
    assert!(ferrocm_hipify::translate_bytes(b"\x7fELF\0\0", &o).unwrap_err().to_string().contains("binary"));
}

#[test]
fn arbitrary_input_never_panics_and_untranslated_text_survives() {
    // A small deterministic generator over C++/CUDA fragments, quotes and
    // punctuation, including broken ones: translate must return (Ok or Err),
    // and an Ok result must be idempotent.
    let pieces = [
        "cudaMalloc",
        "k",
        "<<<",
        ">>>",
        "(",
        ")",
        ",",
        "\"",
        "'",
        "/*",
        "*/",
        "//",
        "\n",
        "\r\n",
        "#if 0",
        "#endif",
        "#include <cuda.h>",
        "R\"x(",
        ")x\"",
        "\\\n",
        " ",
        "cub",
        "::",
        "<",
        ">",
        "template",
        "__global__",
        "1'000",
        "cudaMemcpyToSymbol",
        "{",
        "}",
        ";",
        "u8\"",
        "L'",
        "#define X",
        "cudaStream_t",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut translated = 0;
    for _ in 0..2000 {
        let mut src = String::new();
        for _ in 0..24 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            src.push_str(pieces[(state % pieces.len() as u64) as usize]);
        }
        for options in [Options::new(), launches()] {
            if let Ok(t) = translate(&src, &options) {
                translated += 1;
                let again = translate(&t.text, &options).expect("output lexes again");
                assert_eq!(again.text, t.text, "not idempotent for {src:?}");
            }
        }
    }
    // The generator must also produce valid inputs, or the idempotence check is empty.
    assert!(translated > 200, "only {translated} inputs lexed");
}

#[test]
fn names_shared_with_hip_are_not_conversions() {
    let src = "float4 v = make_float4(0, 0, 0, 0); int m = CUB_MAX(a, b);\n";
    let t = translate(src, &Options::new()).expect("translates");
    assert_eq!(t.text, src, "a file using only shared names gets no runtime include either");
    assert_eq!(t.stats.converted(), 0);
}

// Regression tests for issue 9 ("Reliability I"), named after what broke.

#[test]
fn hip_launch_syntax_keeps_comments_inside_a_launch() {
    check_with(
        &launches(),
        "k<<<g /* grid */, b, // block\n    0>>>(x /* first */, y // last\n);\n",
        "hipLaunchKernelGGL(k, dim3(g) /* grid */, dim3(b), // block\n    0, 0, x /* first */, y // last\n);\n",
    );
    check_with(
        &launches(),
        "k /* name */ <<< /* cfg */ g, b >>> /* args */ ( /* none */ );\n",
        "hipLaunchKernelGGL(k /* name */ ,  /* cfg */ dim3(g), dim3(b), 0, 0 /* args */  /* none */ );\n",
    );
}

#[test]
fn hip_launch_syntax_keeps_preprocessor_lines_in_arguments() {
    check_with(
        &launches(),
        "k<<<g, b>>>(x,\n#if USE_Y\n  y\n#else\n  z\n#endif\n);\n",
        "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x,\n#if USE_Y\n  y\n#else\n  z\n#endif\n);\n",
    );
    check_with(
        &launches(),
        "k<<<g, b>>>(\n#ifdef A\n a\n#endif\n);\n",
        "hipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, \n#ifdef A\n a\n#endif\n);\n",
    );
    // A directive inside the configuration: the launch stays in CUDA syntax.
    let src = "k<<<g, b\n#ifdef S\n, 0, s\n#endif\n>>>(x);\n";
    check_with(&launches(), src, src);
}

#[test]
fn runtime_include_goes_after_a_byte_order_mark() {
    check_with(
        &Options::new(),
        "\u{feff}__global__ void k() {}\n",
        "\u{feff}\n#include <hip/hip_runtime.h>\n__global__ void k() {}\n",
    );
    check_with(
        &Options::new(),
        "\u{feff}#include <stdio.h>\n__global__ void k() {}\n",
        "\u{feff}\n#include <hip/hip_runtime.h>\n#include <stdio.h>\n__global__ void k() {}\n",
    );
}

#[test]
fn junk_after_a_dropped_include_does_not_become_code() {
    check(
        "#include <cuda.h>\n#include <cuda_runtime.h> extra tokens // note\n#include \"device_launch_parameters.h\" x\nint y;\n",
        "#include <hip/hip_runtime.h>\n // note\n\nint y;\n",
    );
}

#[test]
fn raw_string_delimiter_rule_is_explained() {
    let sixteen = "R\"0123456789abcdef(x)0123456789abcdef\"";
    check(sixteen, sixteen);
    let err = translate("int a;\nR\"0123456789abcdefg(x)0123456789abcdefg\"", &Options::new()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "raw string literal starting at 2:1: its delimiter is longer than 16 characters (a delimiter is at most 16 \
         characters, without spaces, parentheses, backslashes or control characters)"
    );
    let err = translate("R\"a b(x)a b\"", &Options::new()).unwrap_err();
    assert!(err.to_string().contains("holds a space"), "{err}");
}

/// CPU time of the calling thread: unlike wall time, other processes on a
/// loaded machine do not inflate it.
fn thread_cpu_time() -> std::time::Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID is
    // supported by every Linux and macOS libc.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime failed");
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Translation CPU time of `input`, the best of three runs.
fn best_time(input: &str, options: &Options) -> std::time::Duration {
    (0..3)
        .map(|_| {
            let t = thread_cpu_time();
            let _ = translate(input, options);
            thread_cpu_time() - t
        })
        .min()
        .expect("three runs")
}

#[test]
fn translation_time_is_linear_on_pathological_inputs() {
    // Each input once and 16 times over: linear work takes about 16 times as
    // long, quadratic work about 256 times. Thread CPU time, the best of three
    // runs, and inputs of several milliseconds keep the noise well inside the
    // bound (64), which no quadratic pass gets under.
    let templated: String = (0..300)
        .map(|i| format!("template <typename T> __global__ void k{i}(T* x) {{}}\nvoid f{i}() {{ k{i}<<<1, 2>>>(p); }}\n"))
        .collect();
    let cases: Vec<(&str, String)> = vec![
        ("unclosed launches", "k<<<a, ".repeat(2000)),
        ("unclosed calls", "cudaMemcpyToSymbol(x, ".repeat(2000)),
        ("nested calls", format!("{}{}", "cudaMemcpyToSymbol(".repeat(1000), ")".repeat(1000))),
        ("many templated kernels", templated),
        ("kernel qualifiers", "__global__ ".repeat(4000)),
        ("template closers", format!("{}k<<<a, b>>>(x);\n", ">".repeat(16000))),
        ("launches", "k<<<g, b>>>(cudaMemcpyHostToDevice);\n".repeat(1000)),
    ];
    for (name, unit) in cases {
        for options in [Options::new(), launches()] {
            // A unit too fast to time would hide a quadratic behind noise: on a fast machine the
            // unit is doubled until it takes a millisecond.
            let mut unit = unit.clone();
            let mut small_time = best_time(&unit, &options).as_secs_f64();
            while small_time < 1e-3 && unit.len() < 1 << 22 {
                unit = unit.repeat(2);
                small_time = best_time(&unit, &options).as_secs_f64();
            }
            assert!(small_time >= 5e-4, "{name}: the 1x input ({small_time:.5}s) is too small to time");
            let big = unit.repeat(16);
            let big_time = best_time(&big, &options).as_secs_f64();
            let ratio = big_time / small_time;
            assert!(
                ratio < 64.0,
                "{name}: 16x input took {ratio:.1}x as long ({small_time:.4}s -> {big_time:.4}s)"
            );
        }
    }
}

#[test]
fn runtime_include_comes_before_a_launch_rewritten_at_the_top() {
    // Found by fuzzing: both edits sat at offset 0 and the launch came first.
    check_with(
        &Options::new().hip_kernel_execution_syntax(true),
        "k<<<g, b>>>(x);\n",
        "\n#include <hip/hip_runtime.h>\nhipLaunchKernelGGL(k, dim3(g), dim3(b), 0, 0, x);\n",
    );
}

#[test]
fn default_preprocessor_translates_only_what_the_preprocessor_keeps() {
    // Host compilation: __CUDA_ARCH__ is not defined, __CUDACC__ is, and
    // CUDA_VERSION is a CUDA 12 toolkit's.
    check_with(
        &skipping(),
        "#ifdef __CUDA_ARCH__\ncudaFree(a);\n#elif defined(__CUDACC__) && CUDA_VERSION >= 11000\ncudaFree(b);\n#else\ncudaFree(c);\n#endif\n",
        "#ifdef __CUDA_ARCH__\ncudaFree(a);\n#elif defined(__HIPCC__) && CUDA_VERSION >= 11000\nhipFree(b);\n#else\ncudaFree(c);\n#endif\n",
    );
    // Macros defined and undefined in the file, in order.
    check_with(
        &skipping(),
        "#define USE_X 2\n#if USE_X > 1\ncudaFree(a);\n#endif\n#undef USE_X\n#if USE_X\ncudaFree(b);\n#endif\n",
        "#define USE_X 2\n#if USE_X > 1\nhipFree(a);\n#endif\n#undef USE_X\n#if USE_X\ncudaFree(b);\n#endif\n",
    );
    // A value only CUDA's library headers know keeps both groups.
    check_with(
        &skipping(),
        "#if CUBLAS_VERSION >= 11000\ncudaFree(a);\n#else\ncudaFree(b);\n#endif\n",
        "#if CUBLAS_VERSION >= 11000\nhipFree(a);\n#else\nhipFree(b);\n#endif\n",
    );
    // Excluded groups keep their launches and includes, also with HIP launch syntax.
    check_with(
        &launches().default_preprocessor(true),
        "#ifdef NEVER\n#include <cublas_v2.h>\nk<<<1, 2>>>(x);\n#endif\nk<<<1, 2>>>(x);\n",
        "#ifdef NEVER\n#include <cublas_v2.h>\nk<<<1, 2>>>(x);\n#endif\nhipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, x);\n",
    );
}

#[test]
fn command_line_macros_decide_groups_with_default_preprocessor() {
    let src =
        "#ifdef USE_CUBLAS\n#include <cublas_v2.h>\n#endif\n#if !defined(__CUDACC__)\ncudaFree(p);\n#endif\n";
    // The condition of an excluded group belongs to it and stays too.
    check_with(&skipping(), src, src);
    check_with(
        &Options::new()
            .runtime_include(RuntimeInclude::Never)
            .default_preprocessor(true)
            .define("USE_CUBLAS", "1")
            .undefine("__CUDACC__"),
        src,
        "#ifdef USE_CUBLAS\n#include <hipblas.h>\n#endif\n#if !defined(__HIPCC__)\nhipFree(p);\n#endif\n",
    );
    // --amap translates identifiers in excluded groups too.
    check_with(
        &skipping().amap(true),
        "#ifdef NEVER\ncudaFree(p);\n#endif\n",
        "#ifdef NEVER\nhipFree(p);\n#endif\n",
    );
}

#[test]
fn main_headers_are_included_once_per_api() {
    // cublas_v2.h after cublas.h is dropped; cublas.h after cublas_v2.h is kept,
    // as hipify-clang does; curand's kernel headers collapse into one.
    check(
        "#include <cublas_v2.h>\n#include <cublas.h>\n#include <curand_kernel.h>\n#include <curand_normal.h>\n#include <curand.h>\n",
        "#include <hipblas.h>\n#include <hipblas.h>\n#include <hiprand/hiprand_kernel.h>\n\n#include <hiprand/hiprand.h>\n",
    );
    // HipifyAction::Exclude tracks no cuTENSOR, cuSPARSELt, CUB or NVRTC main
    // header: every include of them is rewritten.
    check(
        "#include <cub/cub.cuh>\n#include <cub/cub.cuh>\n#include <nvrtc.h>\n#include \"nvrtc.h\"\n#include <cutensor.h>\n#include <cutensor.h>\n",
        "#include <hipcub/hipcub.hpp>\n#include <hipcub/hipcub.hpp>\n#include <hip/hiprtc.h>\n#include \"hip/hiprtc.h\"\n#include <hiptensor.h>\n#include <hiptensor.h>\n",
    );
    // ROCm 7's subdirectory spelling on request.
    check_with(
        &Options::new().runtime_include(RuntimeInclude::Never).header_style(ferrocm_hipify::HeaderStyle::Subdirectories),
        "#include \"cublas_v2.h\"\n#include <cusparse.h>\n#include <cusolverDn.h>\n",
        "#include \"hipblas/hipblas.h\"\n#include <hipsparse/hipsparse.h>\n#include <hipsolver/hipsolver.h>\n",
    );
    // cuDNN: hipDNN by default, MIOpen with --roc.
    check("#include <cudnn.h>\ncudnnHandle_t h;\n", "#include <hipDNN.h>\nhipdnnHandle_t h;\n");
}

#[test]
fn rocsparse_calls_get_policies_buffers_and_casts() {
    check_with(
        &roc(),
        "cusparseScsrilu02_analysis(h, m, nnz, descr, vals, rowPtr, colInd, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer);\n\
         cusparseScsrmv(h, op, m, n, nnz, &alpha, descr, vals, rowPtr, colInd, x, &beta, y);\n\
         cusparseScsrilu02_bufferSize(h, m, nnz, descr, vals, rowPtr, colInd, info, &size);\n\
         cusparseDcsrgeam2(h, m, n, &a, dA, nA, vA, rA, cA, &b, dB, nB, vB, rB, cB, dC, vC, rC, cC, buf);\n",
        "rocsparse_scsrilu0_analysis(h, m, nnz, descr, vals, rowPtr, colInd, info, rocsparse_analysis_policy_force, rocsparse_solve_policy_auto, buffer);\n\
         rocsparse_scsrmv(h, op, m, n, nnz, &alpha, descr, vals, rowPtr, colInd, nullptr, x, &beta, y);\n\
         rocsparse_scsrilu0_buffer_size(h, m, nnz, descr, vals, rowPtr, colInd, info, reinterpret_cast<size_t*>(&size));\n\
         rocsparse_dcsrgeam(h, m, n, &a, dA, nA, vA, rA, cA, &b, dB, nB, vB, rB, cB, dC, vC, rC, cC);\n",
    );
    // Without --roc the hipSPARSE signatures need none of that, except the
    // extra buffer of the newer hipsparseSpSM_solve.
    check(
        "cusparseScsrmv(h, op, m, n, nnz, &alpha, descr, vals, rowPtr, colInd, x, &beta, y);\ncusparseSpSM_solve(h, op, opB, &alpha, A, B, C, type, alg, d);\n",
        "hipsparseScsrmv(h, op, m, n, nnz, &alpha, descr, vals, rowPtr, colInd, x, &beta, y);\nhipsparseSpSM_solve(h, op, opB, &alpha, A, B, C, type, alg, d, nullptr);\n",
    );
}

#[test]
fn miopen_calls_reorder_and_drop_arguments() {
    check_with(
        &roc(),
        "cudnnSoftmaxForward(h, algo, mode, &alpha, xDesc, x, &beta, yDesc, y);\n\
         cudnnGetConvolutionForwardWorkspaceSize(h, xDesc, wDesc, convDesc, yDesc, algo, &bytes);\n\
         cudnnSetPooling2dDescriptor(p, mode, nan, 2, 2, 0, 0, 2, 2);\n",
        "miopenSoftmaxForward_V2(h, &alpha, xDesc, x, &beta, yDesc, y, algo, mode);\n\
         miopenConvolutionForwardGetWorkSpaceSize(h, wDesc, xDesc, convDesc, yDesc, &bytes);\n\
         miopenSet2dPoolingDescriptor(p, mode, 2, 2, 0, 0, 2, 2);\n",
    );
}

#[test]
fn default_only_rewrites_stay_off_with_roc() {
    // hipify-clang adds hipHostMallocDefault and HIP_SYMBOL only in its default mode.
    check_with(
        &roc(),
        "cudaMallocHost(&p, n);\ncudaMemcpyToSymbol(s, h, n);\n",
        "hipHostMalloc(&p, n);\nhipMemcpyToSymbol(s, h, n);\n",
    );
}

#[test]
fn runtime_include_never_splits_a_directive_line() {
    // Found by fuzzing: a stray quote after `#pragma once` became code.
    check_with(
        &Options::new(),
        "#pragma once\"\nthreadIdx",
        "#pragma once\"\n#include <hip/hip_runtime.h>\n\nthreadIdx",
    );
    check_with(
        &Options::new(),
        "#ifndef G extra\n__device__ int f();\n#endif\n",
        "#ifndef G extra\n#include <hip/hip_runtime.h>\n\n__device__ int f();\n#endif\n",
    );
}

#[test]
fn hip_data_types_and_miopen_options() {
    let src = "cudaDataType_t t = CUDA_R_32F; cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, a, A, CUDA_R_16F, m, B, CUDA_R_16F, k, b, C, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);\n";
    let t = translate(src, &roc()).expect("translates");
    // `cudaDataType_t` is the enum tag: rocBLAS names its tag `rocblas_datatype_`.
    assert!(t.text.starts_with("rocblas_datatype_ t = rocblas_datatype_f32_r;"), "{}", t.text);
    check_with(
        &roc().use_hip_data_types(true),
        "cudaDataType_t t = CUDA_R_32F;\n",
        "hipDataType t = HIP_R_32F;\n",
    );
    // --miopen alone sends cuDNN to MIOpen.
    check_with(
        &Options::new().runtime_include(RuntimeInclude::Never).miopen(true),
        "#include <cudnn.h>\ncudnnHandle_t h;\n",
        "#include <miopen/miopen.h>\nmiopenHandle_t h;\n",
    );
}

#[test]
fn launch_name_on_a_directive_line_is_not_a_launch() {
    // Found by fuzzing: `e` ends the directive `#e`, the `<<<` is on the next line.
    let src = "#e\n<<<g,b>>>();\n";
    check_with(&launches(), src, src);
}

#[test]
fn launch_syntax_is_not_a_kernels_template_arguments() {
    // Found by fuzzing: `k<<<<<,R>>>(>>` was taken for the template name of the next launch.
    let t = translate("k<<<<<,R>>>(>><<<m,8>>>(x)", &launches()).expect("translates");
    let again = translate(&t.text, &launches()).expect("translates again");
    assert_eq!(again.text, t.text);
}

#[test]
fn a_launch_inside_what_looks_like_template_arguments_is_translated_once() {
    // Found by scripts/fuzz.sh: the `>>>` of `k<<<...>>>` stopped the walk back over
    // the template arguments of `t>`; once that launch was rewritten, a second pass
    // took `k< n) hipLaunchKernelGGL(...) t>` for them. Template arguments are constant
    // expressions: balanced brackets and no launch in either syntax.
    check_with(
        &launches(),
        "f(k< n) k<<<1, 2>>>(n) t><<<3, 4>>>(x);\n",
        "f(k< n) hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, n) t><<<3, 4>>>(x);\n",
    );
    check_with(
        &launches(),
        "x<a, k<<<1, 2>>>(), b><<<3, 4>>>();\n",
        "x<a, hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0), b><<<3, 4>>>();\n",
    );
    // Also found: `a<<), dim3(R), 0, 0, >>` in the first rewrite's output was taken
    // for the template arguments of the `<<<m, 8>>>` that follows.
    check_with(
        &launches(),
        "k<<<a<<, R>>>(>><<<m, 8>>>(x));\n",
        "hipLaunchKernelGGL(k, dim3(a<<), dim3(R), 0, 0, >><<<m, 8>>>(x));\n",
    );
}

#[test]
fn template_arguments_with_parentheses_and_comparisons() {
    check_with(
        &launches(),
        "k<(N > 2), sizeof(T), a[1]><<<g, b>>>(x);\n",
        "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<(N > 2), sizeof(T), a[1]>), dim3(g), dim3(b), 0, 0, x);\n",
    );
}

#[test]
fn a_dropped_include_inside_a_launch_reads_as_the_blank_line_it_becomes() {
    // Found by fuzzing: a second include of the runtime header is dropped, so the
    // output has a blank line where the directive was. Left alone because of the
    // directive, the launch was rewritten when the output was translated again.
    check_with(
        &launches(),
        "#include <cuda_runtime.h>\nk<a,\n#include <cuda.h>\nb><<<1, 2>>>(x);\n",
        "#include <hip/hip_runtime.h>\nhipLaunchKernelGGL(HIP_KERNEL_NAME(k<a,\n\nb>), dim3(1), dim3(2), 0, 0, x);\n",
    );
    check_with(
        &launches(),
        "#include <cuda_runtime.h>\nk<<<a,\n#include <cuda.h>\nb>>>(x);\n",
        "#include <hip/hip_runtime.h>\nhipLaunchKernelGGL(k, dim3(a), dim3(b), 0, 0, x);\n",
    );
    check_with(
        &launches(),
        "#include <cuda_runtime.h>\nk<<<a, // grid\n#include <cuda.h> // again\nb>>>(x);\n",
        "#include <hip/hip_runtime.h>\nhipLaunchKernelGGL(k, dim3(a), // grid\n // again\ndim3(b), 0, 0, x);\n",
    );
    // Also found: junk after the dropped header name (here a `;`, which ends template
    // arguments) goes with the directive, so it does not stop the walk either.
    check_with(
        &launches(),
        "#include <cuda_runtime.h>\nk<a,\n#include <cuda.h> junk; x\nb><<<1, 2>>>(x);\n",
        "#include <hip/hip_runtime.h>\nhipLaunchKernelGGL(HIP_KERNEL_NAME(k<a,\n\nb>), dim3(1), dim3(2), 0, 0, x);\n",
    );
    // A directive that stays still keeps the launch in CUDA syntax.
    let src = "#include <hip/hip_runtime.h>\nk<<<a,\n#include <vector>\nb>>>(x);\n";
    check_with(&launches(), src, src);
}

#[test]
fn function_symbols_get_no_reinterpret_cast() {
    // hipify-clang stopped wrapping kernel symbols in `reinterpret_cast<const void*>()`
    // once HIP took the same argument types as CUDA (ROCm/HIPIFY pull request 577,
    // 2022; its tests/unit_tests/casts/reinterpret_cast.cu expects the bare
    // arguments since). The calls are renamed and nothing else.
    check(
        "cudaFuncSetCacheConfig(k, cudaFuncCachePreferL1);\ncudaFuncGetAttributes(&attr, &k);\n\
         cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, n);\ncudaFuncSetSharedMemConfig(k, c);\n\
         cudaLaunchKernel((const void*)k, g, b, args, 0, s);\ncudaLaunchCooperativeKernel(k, g, b, args, 0, s);\n",
        "hipFuncSetCacheConfig(k, hipFuncCachePreferL1);\nhipFuncGetAttributes(&attr, &k);\n\
         hipFuncSetAttribute(k, hipFuncAttributeMaxDynamicSharedMemorySize, n);\nhipFuncSetSharedMemConfig(k, c);\n\
         hipLaunchKernel((const void*)k, g, b, args, 0, s);\nhipLaunchCooperativeKernel(k, g, b, args, 0, s);\n",
    );
}

#[test]
fn launch_configured_by_a_macro() {
    // The `<<<...>>>` comes from a user macro (the KERNEL_ARGS idiom that keeps
    // launches readable to non-CUDA compilers): written as the macro expands,
    // each parameter replaced by its argument, as hipify-clang reads the
    // configuration from the expansion. The definitions stay.
    check_with(
        &launches(),
        "#ifdef __CUDACC__\n#define KERNEL_ARGS2(grid, block) <<< grid, block >>>\n#define KERNEL_ARGS4(grid, block, sh, stream) <<< grid, block, sh, stream >>>\n\
         #else\n#define KERNEL_ARGS2(grid, block)\n#define KERNEL_ARGS4(grid, block, sh, stream)\n#endif\n\
         add KERNEL_ARGS2(n / 256, 256)(a, b, cudaMemcpyHostToDevice);\nscale<float> KERNEL_ARGS4(dim3(g, 2), b, 0, st)();\n",
        "#ifdef __HIPCC__\n#define KERNEL_ARGS2(grid, block) <<< grid, block >>>\n#define KERNEL_ARGS4(grid, block, sh, stream) <<< grid, block, sh, stream >>>\n\
         #else\n#define KERNEL_ARGS2(grid, block)\n#define KERNEL_ARGS4(grid, block, sh, stream)\n#endif\n\
         hipLaunchKernelGGL(add, dim3(n / 256), dim3(256), 0, 0, a, b, hipMemcpyHostToDevice);\n\
         hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<float>), dim3(g, 2), dim3(b), 0, st);\n",
    );
    // An object-like macro, and a body that mixes parameters with its own text.
    check_with(
        &launches(),
        "#define CFG <<<blocks, 256, 0, cudaStreamPerThread>>>\n#define GRID(n) <<<(n + 255) / 256, 256>>>\nk CFG(x);\nk GRID(count)(x);\n",
        "#define CFG <<<blocks, 256, 0, hipStreamPerThread>>>\n#define GRID(n) <<<(n + 255) / 256, 256>>>\n\
         hipLaunchKernelGGL(k, dim3(blocks), dim3(256), 0, hipStreamPerThread, x);\nhipLaunchKernelGGL(k, dim3((count + 255) / 256), dim3(256), 0, 0, x);\n",
    );
    // Uses that cannot be a launch stay: before the definition, a wrong
    // argument count, no kernel argument list, a comment inside.
    let src = "k CFG(x);\n#define CFG <<<b, t>>>\n#define C2(g, b) <<<g, b>>>\nk C2(1)(x);\nk CFG;\nk /* c */ CFG(x);\n";
    check_with(&launches(), src, src);
    // Found by fuzzing: a body that names a configuration macro (itself here) is not
    // one, or its expansion would hold a use for the next translation to expand.
    let src = "#define C2(g, b) <<<g, b + k C2(1, 2)(x)>>>\nk C2(1, 2)(x);\n";
    check_with(&launches(), src, src);
    // Found by fuzzing: a body or an argument holding a launch (in either syntax)
    // is not expanded: its launch is translated where it stands, and the next
    // translation must find nothing more to do.
    check_with(
        &launches(),
        "#define C2(g, b) <<<g, b + 2 k<<<1, 2>>>(x)>>>\nk C2(1, 2)(y);\n",
        "#define C2(g, b) <<<g, b + 2 hipLaunchKernelGGL(k, dim3(1), dim3(2), 0, 0, x)>>>\nk C2(1, 2)(y);\n",
    );
    check_with(
        &launches(),
        "#define C2(g, b) <<<g, b>>>\nk C2(1, f<<<1, 2>>>(x))(y);\n",
        "#define C2(g, b) <<<g, b>>>\nk C2(1, hipLaunchKernelGGL(f, dim3(1), dim3(2), 0, 0, x))(y);\n",
    );
    // Without HIP launch syntax nothing changes.
    let src = "#define C2(g, b) <<<g, b>>>\nk C2(1, 2)(x);\n";
    check(src, src);
}

#[test]
fn overlapping_launch_macro_arguments_still_give_a_fixpoint() {
    // Found by scripts/fuzz.sh (CI, 2026-11-25): a garbled file whose `KERNEL_ARGS4(...)` launch
    // arguments ran over a later launch through `CFG`; one pass left the later launch for a
    // second one. The translation now repeats until its output stops changing.
    let data = include_bytes!("../../../fuzz/corpus/hipify_translate/overlapping_macro_launches.cu");
    let options = Options::new().hip_kernel_execution_syntax(true).amap(true).define("USE_CUDA", "1");
    let once = translate_bytes(data, &options).expect("translated");
    let twice = translate_bytes(once.output_bytes(), &options).expect("translated again");
    assert!(twice.output_bytes() == once.output_bytes(), "the translation of the output changed it");
}

/// hipify-clang's `half2Member`: a member `x`/`y` of an object whose type prints as `half2`
/// becomes `reinterpret_cast<half&>(...)` (HIP declares them `unsigned short`); `__half2`,
/// `const half2`, `auto`, members of members and names of other types stay.
#[test]
fn half2_members_read_as_half() {
    check(
        "__device__ half2 add(half2 a, const half2 b, half2 &c, half2 *p, __half2 u) {\n\
         \x20 half2 s = __floats2half2_rn(1.f, 2.f), t[4];\n\
         \x20 s.x = a.y;\n\
         \x20 t[threadIdx.x].y = b.x;\n\
         \x20 c.x = reinterpret_cast<half&>(a.x);\n\
         \x20 p[1].x = u.x;\n\
         \x20 auto w = s; w.x = s.x;\n\
         \x20 return s;\n\
         }\n\
         __device__ void other() { float2 s; s.x = 1.0f; }\n",
        "__device__ half2 add(half2 a, const half2 b, half2 &c, half2 *p, __half2 u) {\n\
         \x20 half2 s = __floats2half2_rn(1.f, 2.f), t[4];\n\
         \x20 reinterpret_cast<half&>(s.x) = reinterpret_cast<half&>(a.y);\n\
         \x20 reinterpret_cast<half&>(t[threadIdx.x].y) = b.x;\n\
         \x20 reinterpret_cast<half&>(c.x) = reinterpret_cast<half&>(a.x);\n\
         \x20 reinterpret_cast<half&>(p[1].x) = u.x;\n\
         \x20 auto w = s; w.x = reinterpret_cast<half&>(s.x);\n\
         \x20 return s;\n\
         }\n\
         __device__ void other() { float2 s; s.x = 1.0f; }\n",
    );
    // Class members: in a member function, but not in a const one (there they are
    // `const half2`); a prototype's parameter names nothing in the next function.
    check(
        "struct P {\n  half2 v;\n  __device__ half lo() const { return v.x; }\n  \
         __device__ void set(half h) { v.y = h; }\n};\n\
         half2 f(half2 h);\n__device__ void g(float2 h) { h.x = 0.f; }\n",
        "struct P {\n  half2 v;\n  __device__ half lo() const { return v.x; }\n  \
         __device__ void set(half h) { reinterpret_cast<half&>(v.y) = h; }\n};\n\
         half2 f(half2 h);\n__device__ void g(float2 h) { h.x = 0.f; }\n",
    );
    // Without the undocumented features nothing changes; by default each rewrite warns
    // unless told not to.
    let src = "__global__ void k(half2 *o, half2 h) { o[0].x = h.y; }\n";
    let off = Options::new().runtime_include(RuntimeInclude::Never).undocumented_features(false);
    assert_eq!(translate(src, &off).expect("translates").text, src);
    let on = translate(src, &Options::new().runtime_include(RuntimeInclude::Never)).expect("translates");
    let warned: Vec<String> = on.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(warned.len(), 2, "{warned:?}");
    assert!(warned[0].starts_with("1:40: warning: undocumented CUDA feature: 'o[0].x'"), "{warned:?}");
    assert!(warned[1].starts_with("1:49: warning: undocumented CUDA feature: 'h.y'"), "{warned:?}");
    let quiet = Options::new().runtime_include(RuntimeInclude::Never).warn_undocumented(false);
    let t = translate(src, &quiet).expect("translates");
    assert!(t.warnings.is_empty() && t.text == on.text);
    assert_eq!(
        on.text,
        "__global__ void k(half2 *o, half2 h) { reinterpret_cast<half&>(o[0].x) = reinterpret_cast<half&>(h.y); }\n"
    );
}
