/*
 * Vector addition, the first example of the CUDA C++ Programming Guide.
 */

#include <hip/hip_runtime.h>
#include <cstdio>
#include <vector>

#define CHECK(call)                                                        \
    do {                                                                   \
        hipError_t err = (call);                                          \
        if (err != hipSuccess) {                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,             \
                    hipGetErrorString(err));                              \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

__global__ void vecAdd(const float* A, const float* B, float* C, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) C[i] = A[i] + B[i];
}

int main()
{
    const int n = 1 << 20;
    size_t size = n * sizeof(float);
    std::vector<float> h_A(n, 1.0f), h_B(n, 2.0f), h_C(n);
    float *d_A, *d_B, *d_C;
    CHECK(hipMalloc(&d_A, size));
    CHECK(hipMalloc(&d_B, size));
    CHECK(hipMalloc(&d_C, size));
    hipMemcpy(d_A, h_A.data(), size, hipMemcpyHostToDevice);
    hipMemcpy(d_B, h_B.data(), size, hipMemcpyHostToDevice);

    hipEvent_t start, stop;
    hipEventCreate(&start);
    hipEventCreate(&stop);
    hipEventRecord(start);
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    vecAdd<<<blocks, threads>>>(d_A, d_B, d_C, n);
    CHECK(hipGetLastError());
    hipEventRecord(stop);
    hipEventSynchronize(stop);
    float ms = 0;
    hipEventElapsedTime(&ms, start, stop);

    hipMemcpy(h_C.data(), d_C, size, hipMemcpyDeviceToHost);
    printf("hipMemcpy done in %f ms\n", ms); // a whole CUDA name in a string is translated, as hipify-clang does
    hipFree(d_A); hipFree(d_B); hipFree(d_C);
    hipDeviceReset();
    return 0;
}
