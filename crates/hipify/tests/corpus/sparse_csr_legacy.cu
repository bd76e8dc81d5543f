// Legacy (pre-CUDA 12) cuSPARSE: CSR matrix-vector product and triangular solve,
// as the cuSPARSE library documentation of CUDA 10 describes them.
#include <cuda_runtime.h>
#include "cusparse.h"

int spmv_and_solve(int m, int nnz, const float* vals, const int* rowPtr, const int* colInd,
                   const float* x, float* y, float* z)
{
    cusparseHandle_t handle;
    cusparseMatDescr_t descr;
    csrsv2Info_t info;
    int bufferSize = 0;
    void* buffer = nullptr;
    const float alpha = 1.0f, beta = 0.0f;
    cusparseStatus_t st = cusparseCreate(&handle);
    if (st != CUSPARSE_STATUS_SUCCESS) return 1;
    cusparseCreateMatDescr(&descr);
    cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_GENERAL);
    cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ZERO);
    cusparseSetMatFillMode(descr, CUSPARSE_FILL_MODE_LOWER);
    cusparseScsrmv(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, m, m, nnz, &alpha, descr,
                   vals, rowPtr, colInd, x, &beta, y);
    cusparseCreateCsrsv2Info(&info);
    cusparseScsrsv2_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, m, nnz, descr,
                               (float*)vals, rowPtr, colInd, info, &bufferSize);
    cudaMalloc(&buffer, bufferSize);
    cusparseScsrsv2_analysis(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, m, nnz, descr,
                             vals, rowPtr, colInd, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer);
    int position = 0;
    if (cusparseXcsrsv2_zeroPivot(handle, info, &position) == CUSPARSE_STATUS_ZERO_PIVOT) return 2;
    cusparseScsrsv2_solve(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, m, nnz, &alpha, descr,
                          vals, rowPtr, colInd, info, y, z, CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer);
    cudaFree(buffer);
    cusparseDestroyCsrsv2Info(info);
    cusparseDestroyMatDescr(descr);
    cusparseDestroy(handle);
    return 0;
}
