// Matrix multiplication C = A * B with shared-memory tiles, validated against a CPU reference.
// Written for ferrocm in the style of the HIP example collections; built by its Makefile.

#include "example_utils.hpp"

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>
#include <vector>

// The side of the square tile each block computes.
constexpr unsigned int block_size = 16;

// C (a_rows x b_cols) = A (a_rows x a_cols) * B (a_cols x b_cols), row-major. The matrix sizes
// are multiples of the tile size.
__global__ void matrix_multiplication_kernel(const float* A, const float* B, float* C, const unsigned int a_cols)
{
    const unsigned int tx = threadIdx.x;
    const unsigned int ty = threadIdx.y;
    const unsigned int bx = blockIdx.x;
    const unsigned int by = blockIdx.y;
    const unsigned int b_cols = blockDim.x * gridDim.x;

    const unsigned int steps = a_cols / block_size;
    float thread_result = 0.0f;
    for (unsigned int step = 0; step < steps; step++) {
        __shared__ float a_values[block_size][block_size];
        __shared__ float b_values[block_size][block_size];

        const unsigned int a_idx = block_size * (by * a_cols + step);
        const unsigned int b_idx = block_size * (bx + step * b_cols);

        a_values[ty][tx] = A[a_idx + ty * a_cols + tx];
        b_values[ty][tx] = B[b_idx + ty * b_cols + tx];
        __syncthreads();

        for (unsigned int i = 0; i < block_size; i++) {
            thread_result += a_values[ty][i] * b_values[i][tx];
        }
        __syncthreads();
    }
    const unsigned int block_offset = b_cols * block_size * by + block_size * bx;
    C[block_offset + b_cols * ty + tx] = thread_result;
}

int main()
{
    const unsigned int a_rows = 256, a_cols = 128, b_cols = 192;
    const unsigned int b_rows = a_cols, c_cols = b_cols, c_rows = a_rows;
    const size_t a_size = a_cols * a_rows, b_size = b_cols * b_rows, c_size = c_cols * c_rows;
    const size_t a_bytes = sizeof(float) * a_size, b_bytes = sizeof(float) * b_size, c_bytes = sizeof(float) * c_size;

    std::vector<float> A(a_size), B(b_size), C(c_size);
    std::iota(A.begin(), A.end(), 1.f);
    std::transform(A.begin(), A.end(), A.begin(), [](float x) { return std::fmod(x, 7.f) - 3.f; });
    std::iota(B.begin(), B.end(), 1.f);
    std::transform(B.begin(), B.end(), B.begin(), [](float x) { return std::fmod(x * 3.f, 11.f) * 0.5f; });

    float *d_A{}, *d_B{}, *d_C{};
    HIP_CHECK(hipMalloc(&d_A, a_bytes));
    HIP_CHECK(hipMalloc(&d_B, b_bytes));
    HIP_CHECK(hipMalloc(&d_C, c_bytes));
    HIP_CHECK(hipMemcpy(d_A, A.data(), a_bytes, hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(d_B, B.data(), b_bytes, hipMemcpyHostToDevice));

    const dim3 block_dim(block_size, block_size);
    const dim3 grid_dim(c_cols / block_size, c_rows / block_size);
    std::cout << "Matrix multiplication: [" << a_rows << 'x' << a_cols << "] * [" << b_rows << 'x' << b_cols
              << "] with " << grid_dim.x * grid_dim.y << " blocks of " << block_size * block_size << " threads"
              << std::endl;
    matrix_multiplication_kernel<<<grid_dim, block_dim, 0, hipStreamDefault>>>(d_A, d_B, d_C, a_cols);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(C.data(), d_C, c_bytes, hipMemcpyDeviceToHost));
    HIP_CHECK(hipFree(d_A));
    HIP_CHECK(hipFree(d_B));
    HIP_CHECK(hipFree(d_C));

    // The inputs are small integers and halves, so every product and sum is exact.
    int errors = 0;
    for (unsigned int i = 0; i < c_rows; ++i) {
        for (unsigned int j = 0; j < c_cols; ++j) {
            float reference = 0.f;
            for (unsigned int k = 0; k < a_cols; ++k) reference += A[i * a_cols + k] * B[k * b_cols + j];
            errors += std::fabs(C[i * c_cols + j] - reference) > 1e-5f;
        }
    }
    return report_validation_result(errors);
}
