// A 256-bin histogram: per-block bins in shared memory with shared atomics, merged into global
// bins with global atomics.
#include "common.h"
#include <vector>

__global__ void histogram(const unsigned char* data, size_t n, unsigned int* bins) {
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}

int main() {
    const size_t n = 1 << 18;
    std::vector<unsigned char> data(n);
    std::vector<unsigned int> want(256, 0), got(256);
    Rng rng(5);
    for (auto& d : data) {
        // Skewed towards low bins, so some bins collide a lot.
        unsigned r = rng.next();
        d = (unsigned char)((r & 1) ? (r >> 8) % 16 : (r >> 8) % 256);
        want[d]++;
    }
    unsigned char* dd;
    unsigned int* db;
    HIP_CHECK(hipMalloc(&dd, n));
    HIP_CHECK(hipMalloc(&db, 256 * sizeof(unsigned int)));
    HIP_CHECK(hipMemcpy(dd, data.data(), n, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset(db, 0, 256 * sizeof(unsigned int)));
    histogram<<<32, 256>>>(dd, n, db);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(got.data(), db, 256 * sizeof(unsigned int), hipMemcpyDeviceToHost));
    for (int b = 0; b < 256; ++b) CHECK_THAT(got[b] == want[b], "bin %d: %u, want %u", b, got[b], want[b]);
    HIP_CHECK(hipFree(dd));
    HIP_CHECK(hipFree(db));
    std::printf("Validation passed\n");
    return 0;
}
