// Matrix multiplication with shared-memory tiles, for sizes that are not multiples of the tile.
#include "common.h"
#include <cmath>
#include <vector>

constexpr int TILE = 16;

__global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        const int ka = t * TILE + threadIdx.x, kb = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

int main() {
    const int M = 100, N = 72, K = 130;
    std::vector<float> A(M * K), B(K * N), C(M * N);
    Rng rng(3);
    for (auto& v : A) v = rng.uniform();
    for (auto& v : B) v = rng.uniform();
    float *dA, *dB, *dC;
    HIP_CHECK(hipMalloc(&dA, A.size() * sizeof(float)));
    HIP_CHECK(hipMalloc(&dB, B.size() * sizeof(float)));
    HIP_CHECK(hipMalloc(&dC, C.size() * sizeof(float)));
    HIP_CHECK(hipMemcpy(dA, A.data(), A.size() * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(dB, B.data(), B.size() * sizeof(float), hipMemcpyHostToDevice));
    dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    hipLaunchKernelGGL(matmul, grid, block, 0, 0, dA, dB, dC, M, N, K);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(C.data(), dC, C.size() * sizeof(float), hipMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double ref = 0;
            for (int k = 0; k < K; ++k) ref += (double)A[i * K + k] * B[k * N + j];
            worst = std::fmax(worst, std::fabs(ref - C[i * N + j]));
        }
    CHECK_THAT(worst < 1e-4, "largest error %g", worst);
    HIP_CHECK(hipFree(dA));
    HIP_CHECK(hipFree(dB));
    HIP_CHECK(hipFree(dC));
    std::printf("Validation passed\n");
    return 0;
}
