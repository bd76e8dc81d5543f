// SGEMM through cuBLAS, as in the cuBLAS library documentation.
#include <hip/hip_runtime.h>
#include "hipblas.h"

int gemm(int m, int n, int k, const float* dA, const float* dB, float* dC, hipStream_t stream)
{
    hipblasHandle_t handle;
    hipblasStatus_t stat = hipblasCreate(&handle);
    if (stat != HIPBLAS_STATUS_SUCCESS) {
        return EXIT_FAILURE;
    }
    hipblasSetStream(handle, stream);
    hipblasSetPointerMode(handle, HIPBLAS_POINTER_MODE_HOST);
    const float alpha = 1.0f, beta = 0.0f;
    stat = hipblasSgemm(handle, HIPBLAS_OP_N, HIPBLAS_OP_T, m, n, k,
                       &alpha, dA, m, dB, n, &beta, dC, m);
    hipblasDestroy(handle);
    return stat == HIPBLAS_STATUS_SUCCESS ? 0 : 1;
}
