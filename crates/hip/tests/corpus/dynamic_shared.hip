// Dynamic shared memory: extern __shared__ arrays sized at launch, HIP_DYNAMIC_SHARED, and more
// than 48 KiB through hipFuncSetAttribute.
#include "common.h"
#include <vector>

__global__ void reverse_blocks(int* data, int n) {
    extern __shared__ int tile[];
    const int base = blockIdx.x * blockDim.x, t = threadIdx.x;
    if (base + t < n) tile[t] = data[base + t];
    __syncthreads();
    const int len = min((int)blockDim.x, n - base);
    if (t < len) data[base + t] = tile[len - 1 - t];
}

__global__ void big_window(const float* in, float* out, int n) {
    HIP_DYNAMIC_SHARED(float, window)
    for (int i = threadIdx.x; i < n; i += blockDim.x) window[i] = in[i];
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = window[n - 1 - i] + window[i];
}

int main() {
    const int n = 10000, block = 256;
    std::vector<int> v(n), w(n);
    for (int i = 0; i < n; ++i) v[i] = i * 7 + 3;
    int* dv;
    HIP_CHECK(hipMalloc(&dv, n * sizeof(int)));
    HIP_CHECK(hipMemcpy(dv, v.data(), n * sizeof(int), hipMemcpyHostToDevice));
    reverse_blocks<<<(n + block - 1) / block, block, block * sizeof(int)>>>(dv, n);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(w.data(), dv, n * sizeof(int), hipMemcpyDeviceToHost));
    for (int b = 0; b * block < n; ++b) {
        int len = std::min(block, n - b * block);
        for (int t = 0; t < len; ++t)
            CHECK_THAT(w[b * block + t] == v[b * block + len - 1 - t], "block %d element %d", b, t);
    }

    // 64 KiB of dynamic shared memory: over the default 48 KiB, within the opt-in limit.
    const int m = 16384;
    const size_t bytes = m * sizeof(float);
    hipDeviceProp_t p;
    HIP_CHECK(hipGetDeviceProperties(&p, 0));
    CHECK_THAT(p.sharedMemPerBlockOptin >= bytes, "opt-in limit %zu", p.sharedMemPerBlockOptin);
    HIP_CHECK(hipFuncSetAttribute(big_window, hipFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    std::vector<float> in(m), out(m);
    for (int i = 0; i < m; ++i) in[i] = 0.5f * i;
    float *din, *dout;
    HIP_CHECK(hipMalloc(&din, bytes));
    HIP_CHECK(hipMalloc(&dout, bytes));
    HIP_CHECK(hipMemcpy(din, in.data(), bytes, hipMemcpyHostToDevice));
    big_window<<<1, 512, bytes>>>(din, dout, m);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(out.data(), dout, bytes, hipMemcpyDeviceToHost));
    for (int i = 0; i < m; ++i) CHECK_THAT(out[i] == in[m - 1 - i] + in[i], "window[%d]", i);
    // More than the device allows: a launch error, reported by hipGetLastError.
    big_window<<<1, 512, p.sharedMemPerBlockOptin + 4096>>>(din, dout, m);
    hipError_t e = hipGetLastError();
    CHECK_THAT(e == hipErrorInvalidConfiguration, "oversized launch gave %s", hipGetErrorName(e));
    HIP_CHECK(hipFree(dv));
    HIP_CHECK(hipFree(din));
    HIP_CHECK(hipFree(dout));
    std::printf("Validation passed\n");
    return 0;
}
