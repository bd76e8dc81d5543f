/*
 * Vector addition, the first example of the CUDA C++ Programming Guide.
 */
#include <cstdio>
#include <vector>

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t err = (call);                                          \
        if (err != cudaSuccess) {                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,             \
                    cudaGetErrorString(err));                              \
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
    CHECK(cudaMalloc(&d_A, size));
    CHECK(cudaMalloc(&d_B, size));
    CHECK(cudaMalloc(&d_C, size));
    cudaMemcpy(d_A, h_A.data(), size, cudaMemcpyHostToDevice);
    cudaMemcpy(d_B, h_B.data(), size, cudaMemcpyHostToDevice);

    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    vecAdd<<<blocks, threads>>>(d_A, d_B, d_C, n);
    CHECK(cudaGetLastError());
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);

    cudaMemcpy(h_C.data(), d_C, size, cudaMemcpyDeviceToHost);
    printf("cudaMemcpy done in %f ms\n", ms); // a whole CUDA name in a string is translated, as hipify-clang does
    cudaFree(d_A); cudaFree(d_B); cudaFree(d_C);
    cudaDeviceReset();
    return 0;
}
