// A CUDA program, as someone else wrote it: the test runs it through `ferrocm hipify` and then
// `ferrocm hipcc`, unmodified.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>

#define CUDA_CHECK(x)                                                                          \
    do {                                                                                       \
        cudaError_t err = (x);                                                                 \
        if (err != cudaSuccess) {                                                              \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(err));                          \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
    const int n = 1 << 14;
    float *x = (float*)malloc(n * sizeof(float)), *y = (float*)malloc(n * sizeof(float));
    for (int i = 0; i < n; ++i) {
        x[i] = 1.0f + i % 5;
        y[i] = 2.0f;
    }
    float *dx, *dy;
    CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dy, y, n * sizeof(float), cudaMemcpyHostToDevice));
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, dx, dy);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    float max_error = 0;
    for (int i = 0; i < n; ++i) max_error = fmaxf(max_error, fabsf(y[i] - (2.0f * (1.0f + i % 5) + 2.0f)));
    if (max_error != 0) {
        printf("max error %f\n", max_error);
        return 1;
    }
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dy));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    free(x);
    free(y);
    printf("Validation passed\n");
    return 0;
}
