// SAXPY with hipLaunchKernelGGL, pinned host memory, a stream and asynchronous copies; then the
// same with managed memory.
#include "common.h"
#include <cmath>

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}

int main() {
    const int n = 200000;
    const float a = 2.5f;
    float *hx, *hy, *dx, *dy;
    HIP_CHECK(hipHostMalloc(&hx, n * sizeof(float), hipHostMallocDefault));
    HIP_CHECK(hipHostMalloc(&hy, n * sizeof(float), hipHostMallocDefault));
    Rng rng(2);
    for (int i = 0; i < n; ++i) {
        hx[i] = rng.uniform();
        hy[i] = rng.uniform();
    }
    float* y0 = (float*)std::malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i) y0[i] = hy[i];
    hipStream_t s;
    HIP_CHECK(hipStreamCreate(&s));
    HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dy, n * sizeof(float)));
    HIP_CHECK(hipMemcpyAsync(dx, hx, n * sizeof(float), hipMemcpyHostToDevice, s));
    HIP_CHECK(hipMemcpyAsync(dy, hy, n * sizeof(float), hipMemcpyHostToDevice, s));
    hipLaunchKernelGGL(saxpy, dim3(64), dim3(256), 0, s, n, a, dx, dy);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpyAsync(hy, dy, n * sizeof(float), hipMemcpyDeviceToHost, s));
    HIP_CHECK(hipStreamSynchronize(s));
    for (int i = 0; i < n; ++i) {
        float want = std::fma(a, hx[i], y0[i]);
        CHECK_THAT(hy[i] == want, "y[%d] = %.9g, want %.9g", i, hy[i], want);
    }

    // Managed memory: the kernel and the host use the same pointer.
    float *mx, *my;
    HIP_CHECK(hipMallocManaged(&mx, n * sizeof(float)));
    HIP_CHECK(hipMallocManaged(&my, n * sizeof(float)));
    for (int i = 0; i < n; ++i) {
        mx[i] = hx[i];
        my[i] = y0[i];
    }
    saxpy<<<128, 128>>>(n, -a, mx, my);
    HIP_CHECK(hipDeviceSynchronize());
    for (int i = 0; i < n; ++i) CHECK_THAT(my[i] == std::fma(-a, hx[i], y0[i]), "managed y[%d]", i);

    HIP_CHECK(hipFree(mx));
    HIP_CHECK(hipFree(my));
    HIP_CHECK(hipStreamDestroy(s));
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dy));
    HIP_CHECK(hipHostFree(hx));
    HIP_CHECK(hipHostFree(hy));
    std::free(y0);
    std::printf("Validation passed\n");
    return 0;
}
