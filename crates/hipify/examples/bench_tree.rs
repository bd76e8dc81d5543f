//! Benchmark: generates a tree of realistic CUDA sources (default 1,000 files,
//! 1,000 lines each) and times `ferrocm hipify --o-dir` over it.
//!
//! `cargo run --release -p ferrocm-hipify --example bench_tree [FILES] [LINES_PER_FILE]`

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::time::Instant;

/// Building blocks of a typical CUDA application file; each is a few lines.
const HEADER: &str = "// Generated benchmark source; exercises the common CUDA surface.\n\
#include <cstdio>\n#include <cuda_runtime.h>\n#include <cublas_v2.h>\n#include <curand_kernel.h>\n#include <cub/cub.cuh>\n\n\
#define CUDA_CHECK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { \\\n  fprintf(stderr, \"CUDA error %s at %s:%d\\n\", cudaGetErrorString(err_), __FILE__, __LINE__); } } while (0)\n\n";

const BLOCKS: [&str; 6] = [
    "template <typename T, int BLOCK>\n__global__ void saxpy_kernel_N(int n, T a, const T* __restrict__ x, T* y) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = a * __ldg(&x[i]) + y[i]; // fused multiply-add\n}\n\n",
    "__global__ void reduce_kernel_N(const float* in, float* out, int n) {\n    __shared__ float smem[256];\n    float v = (threadIdx.x < n) ? in[threadIdx.x] : 0.0f;\n    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n    if ((threadIdx.x & 31) == 0) smem[threadIdx.x / 32] = v;\n    __syncthreads();\n    if (threadIdx.x == 0) atomicAdd(out, smem[0]);\n}\n\n",
    "void run_saxpy_N(int n, float* d_x, float* d_y, cudaStream_t stream) {\n    dim3 grid((n + 255) / 256), block(256);\n    saxpy_kernel_N<float, 256><<<grid, block, 0, stream>>>(n, 2.0f, d_x, d_y);\n    CUDA_CHECK(cudaGetLastError());\n    CUDA_CHECK(cudaStreamSynchronize(stream));\n}\n\n",
    "int memory_roundtrip_N(size_t bytes) {\n    float *h = nullptr, *d = nullptr;\n    CUDA_CHECK(cudaMallocHost((void**)&h, bytes));\n    CUDA_CHECK(cudaMalloc((void**)&d, bytes));\n    cudaEvent_t start, stop;\n    cudaEventCreate(&start); cudaEventCreate(&stop);\n    cudaEventRecord(start, 0);\n    CUDA_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));\n    CUDA_CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, 0));\n    cudaEventRecord(stop, 0); cudaEventSynchronize(stop);\n    float ms = 0; cudaEventElapsedTime(&ms, start, stop);\n    cudaFree(d); cudaFreeHost(h);\n    return ms > 0 ? 0 : 1;\n}\n\n",
    "void gemm_N(cublasHandle_t handle, int m, const float* A, const float* B, float* C) {\n    const float alpha = 1.0f, beta = 0.0f;\n    cublasStatus_t st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, m, m, m, &alpha, A, m, B, m, &beta, C, m);\n    if (st != CUBLAS_STATUS_SUCCESS) printf(\"cublasSgemm failed\\n\");\n}\n\n",
    "__global__ void rng_kernel_N(curandState* states, float* out, unsigned long long seed) {\n    int id = threadIdx.x + blockIdx.x * blockDim.x;\n    curand_init(seed, id, 0, &states[id]);\n    out[id] = curand_uniform(&states[id]);\n}\nsize_t scan_bytes_N(int* d_in, int* d_out, int n) {\n    size_t temp = 0;\n    cub::DeviceScan::InclusiveSum(nullptr, temp, d_in, d_out, n);\n    cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0);\n    return temp + prop.sharedMemPerBlock;\n}\n\n",
];

fn generate(dir: &Path, files: usize, lines_per_file: usize) -> std::io::Result<u64> {
    let mut total = 0u64;
    for f in 0..files {
        let sub = dir.join(format!("module{:02}", f % 20));
        fs::create_dir_all(&sub)?;
        let mut s = String::with_capacity(lines_per_file * 48);
        s.push_str(HEADER);
        let mut n = 0;
        while s.bytes().filter(|&b| b == b'\n').count() < lines_per_file {
            let block = BLOCKS[n % BLOCKS.len()].replace("_N", &format!("_{f}_{n}"));
            let _ = write!(s, "{block}");
            n += 1;
        }
        total += s.len() as u64;
        fs::write(sub.join(format!("file{f:04}.cu")), s)?;
    }
    Ok(total)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let files: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let lines: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let root = std::env::temp_dir().join(format!("ferrocm-hipify-bench-{}", std::process::id()));
    let src = root.join("src");
    let out = root.join("out");
    let _ = fs::remove_dir_all(&root);
    let bytes = match generate(&src, files, lines) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("cannot generate the tree: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "generated {files} files, ~{} lines, {:.1} MB in {}",
        files * lines,
        bytes as f64 / 1e6,
        src.display()
    );
    let args: Vec<OsString> =
        vec![src.clone().into(), format!("--o-dir={}", out.display()).into(), "--quiet-warnings".into()];
    let start = Instant::now();
    let code = ferrocm_hipify::cli_main(args);
    let secs = start.elapsed().as_secs_f64();
    println!(
        "translated in {secs:.3} s ({:.1} MB/s, {} threads), exit code {code}",
        bytes as f64 / 1e6 / secs,
        rayon::current_num_threads()
    );
    // The same tree without writing, to separate translation from file output.
    let start = Instant::now();
    let code =
        ferrocm_hipify::cli_main(vec![src.clone().into(), "--no-output".into(), "--quiet-warnings".into()]);
    let secs = start.elapsed().as_secs_f64();
    println!(
        "translated without writing in {secs:.3} s ({:.1} MB/s), exit code {code}",
        bytes as f64 / 1e6 / secs
    );
    let _ = fs::remove_dir_all(&root);
}
