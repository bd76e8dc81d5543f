// SGEMM through cuBLAS, as in the cuBLAS library documentation.
#include <cuda_runtime.h>
#include "cublas_v2.h"

int gemm(int m, int n, int k, const float* dA, const float* dB, float* dC, cudaStream_t stream)
{
    cublasHandle_t handle;
    cublasStatus_t stat = cublasCreate(&handle);
    if (stat != CUBLAS_STATUS_SUCCESS) {
        return EXIT_FAILURE;
    }
    cublasSetStream(handle, stream);
    cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST);
    const float alpha = 1.0f, beta = 0.0f;
    stat = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k,
                       &alpha, dA, m, dB, n, &beta, dC, m);
    cublasDestroy(handle);
    return stat == CUBLAS_STATUS_SUCCESS ? 0 : 1;
}
