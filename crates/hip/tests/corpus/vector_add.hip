// Vector addition: the first program of the HIP programming guide.
#include "common.h"
#include <vector>

__global__ void vector_add(const float* a, const float* b, float* c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const size_t n = 1 << 16 | 123;  // not a multiple of the block size
    std::vector<float> a(n), b(n), c(n);
    Rng rng(1);
    for (size_t i = 0; i < n; ++i) {
        a[i] = rng.uniform();
        b[i] = rng.uniform();
    }
    float *da, *db, *dc;
    HIP_CHECK(hipMalloc(&da, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&db, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dc, n * sizeof(float)));
    HIP_CHECK(hipMemcpy(da, a.data(), n * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(db, b.data(), n * sizeof(float), hipMemcpyHostToDevice));
    const unsigned block = 256;
    vector_add<<<dim3((n + block - 1) / block), dim3(block)>>>(da, db, dc, n);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(c.data(), dc, n * sizeof(float), hipMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) CHECK_THAT(c[i] == a[i] + b[i], "c[%zu] = %f, want %f", i, c[i], a[i] + b[i]);
    HIP_CHECK(hipFree(da));
    HIP_CHECK(hipFree(db));
    HIP_CHECK(hipFree(dc));
    std::printf("Validation passed\n");
    return 0;
}
