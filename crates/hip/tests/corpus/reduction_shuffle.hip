// Sum reduction: warp shuffles within a warp, shared memory across warps, atomics across blocks
// (integers, so the result is exact in any order), and a double-precision two-pass sum.
#include "common.h"
#include <vector>

__device__ long long warp_sum(long long v) {
    for (int d = warpSize / 2; d > 0; d /= 2) v += __shfl_down(v, d);
    return v;
}

__global__ void sum_atomic(const int* in, int n, unsigned long long* total) {
    __shared__ long long partial[32];
    long long v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
    v = warp_sum(v);
    const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x / warpSize) ? partial[lane] : 0;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(total, (unsigned long long)v);
    }
}

__global__ void block_sums(const double* in, int n, double* out) {
    extern __shared__ double s[];
    double v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor(v, d);
    if (threadIdx.x % 32 == 0) s[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        double b = 0;
        for (int w = 0; w < (int)blockDim.x / 32; ++w) b += s[w];
        out[blockIdx.x] = b;
    }
}

int main() {
    const int n = 300001;
    std::vector<int> v(n);
    std::vector<double> d(n);
    Rng rng(4);
    long long want = 0;
    for (int i = 0; i < n; ++i) {
        v[i] = (int)(rng.next() % 2001) - 1000;
        want += v[i];
        d[i] = v[i] * 0.25;
    }
    int* dv;
    unsigned long long* dt;
    HIP_CHECK(hipMalloc(&dv, n * sizeof(int)));
    HIP_CHECK(hipMalloc(&dt, sizeof(unsigned long long)));
    HIP_CHECK(hipMemcpy(dv, v.data(), n * sizeof(int), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset(dt, 0, sizeof(unsigned long long)));
    sum_atomic<<<40, 256>>>(dv, n, dt);
    unsigned long long got = 0;
    HIP_CHECK(hipMemcpy(&got, dt, sizeof got, hipMemcpyDeviceToHost));
    CHECK_THAT((long long)got == want, "sum %lld, want %lld", (long long)got, want);

    const int blocks = 24, threads = 128;
    double *dd, *dout;
    HIP_CHECK(hipMalloc(&dd, n * sizeof(double)));
    HIP_CHECK(hipMalloc(&dout, blocks * sizeof(double)));
    HIP_CHECK(hipMemcpy(dd, d.data(), n * sizeof(double), hipMemcpyHostToDevice));
    block_sums<<<blocks, threads, threads / 32 * sizeof(double)>>>(dd, n, dout);
    std::vector<double> parts(blocks);
    HIP_CHECK(hipMemcpy(parts.data(), dout, blocks * sizeof(double), hipMemcpyDeviceToHost));
    double total = 0;
    for (double p : parts) total += p;
    CHECK_THAT(total == want * 0.25, "double sum %.17g, want %.17g", total, want * 0.25);
    HIP_CHECK(hipFree(dv));
    HIP_CHECK(hipFree(dt));
    HIP_CHECK(hipFree(dd));
    HIP_CHECK(hipFree(dout));
    std::printf("Validation passed\n");
    return 0;
}
