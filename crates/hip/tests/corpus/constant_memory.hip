// __constant__ coefficients set with hipMemcpyToSymbol, a __device__ counter read back with
// hipMemcpyFromSymbol, and a __device__ array reached through hipGetSymbolAddress.
#include "common.h"
#include <cmath>
#include <vector>

__constant__ float coeff[8];
__device__ unsigned int calls;
__device__ int table[64] = {1, 2, 3};

__global__ void poly(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) atomicAdd(&calls, 1u);
    if (i < n) {
        float acc = 0.0f;
        for (int k = 7; k >= 0; --k) acc = acc * x[i] + coeff[k];
        y[i] = acc + table[i % 64];
    }
}

int main() {
    const int n = 5000;
    float h[8] = {1.0f, -0.5f, 0.25f, 2.0f, -1.0f, 0.125f, 0.0f, 0.75f};
    HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(coeff), h, sizeof h));
    unsigned int zero = 0;
    HIP_CHECK(hipMemcpyToSymbol(calls, &zero, sizeof zero, 0, hipMemcpyHostToDevice));
    size_t size = 0;
    HIP_CHECK(hipGetSymbolSize(&size, HIP_SYMBOL(table)));
    CHECK_THAT(size == 64 * sizeof(int), "table size %zu", size);
    int* dtable = nullptr;
    HIP_CHECK(hipGetSymbolAddress((void**)&dtable, HIP_SYMBOL(table)));
    int first3[3];
    HIP_CHECK(hipMemcpy(first3, dtable, sizeof first3, hipMemcpyDeviceToHost));
    CHECK_THAT(first3[0] == 1 && first3[1] == 2 && first3[2] == 3, "initialiser %d %d %d", first3[0], first3[1], first3[2]);
    std::vector<int> t(64);
    for (int k = 0; k < 64; ++k) t[k] = k * 3 - 50;
    HIP_CHECK(hipMemcpy(dtable, t.data(), 64 * sizeof(int), hipMemcpyHostToDevice));
    // Past the end of the variable: refused.
    CHECK_THAT(hipMemcpyToSymbol(HIP_SYMBOL(coeff), h, sizeof h, 4) == hipErrorInvalidValue, "offset past the end");

    std::vector<float> x(n), y(n);
    Rng rng(6);
    for (auto& v : x) v = rng.uniform();
    float *dx, *dy;
    HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dy, n * sizeof(float)));
    HIP_CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
    for (int launch = 0; launch < 3; ++launch) poly<<<(n + 127) / 128, 128>>>(dx, dy, n);
    HIP_CHECK(hipMemcpy(y.data(), dy, n * sizeof(float), hipMemcpyDeviceToHost));
    unsigned int got = 0;
    HIP_CHECK(hipMemcpyFromSymbol(&got, HIP_SYMBOL(calls), sizeof got));
    CHECK_THAT(got == 3, "calls %u", got);
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int k = 7; k >= 0; --k) acc = std::fma(acc, x[i], h[k]);
        float want = acc + t[i % 64];
        CHECK_THAT(y[i] == want, "y[%d] = %.9g, want %.9g", i, y[i], want);
    }
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dy));
    std::printf("Validation passed\n");
    return 0;
}
