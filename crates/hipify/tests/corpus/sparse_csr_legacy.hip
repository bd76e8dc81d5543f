// Legacy (pre-CUDA 12) cuSPARSE: CSR matrix-vector product and triangular solve,
// as the cuSPARSE library documentation of CUDA 10 describes them.
#include <hip/hip_runtime.h>
#include "hipsparse.h"

int spmv_and_solve(int m, int nnz, const float* vals, const int* rowPtr, const int* colInd,
                   const float* x, float* y, float* z)
{
    hipsparseHandle_t handle;
    hipsparseMatDescr_t descr;
    csrsv2Info_t info;
    int bufferSize = 0;
    void* buffer = nullptr;
    const float alpha = 1.0f, beta = 0.0f;
    hipsparseStatus_t st = hipsparseCreate(&handle);
    if (st != HIPSPARSE_STATUS_SUCCESS) return 1;
    hipsparseCreateMatDescr(&descr);
    hipsparseSetMatType(descr, HIPSPARSE_MATRIX_TYPE_GENERAL);
    hipsparseSetMatIndexBase(descr, HIPSPARSE_INDEX_BASE_ZERO);
    hipsparseSetMatFillMode(descr, HIPSPARSE_FILL_MODE_LOWER);
    hipsparseScsrmv(handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, m, m, nnz, &alpha, descr,
                   vals, rowPtr, colInd, x, &beta, y);
    hipsparseCreateCsrsv2Info(&info);
    hipsparseScsrsv2_bufferSize(handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, m, nnz, descr,
                               (float*)vals, rowPtr, colInd, info, &bufferSize);
    hipMalloc(&buffer, bufferSize);
    hipsparseScsrsv2_analysis(handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, m, nnz, descr,
                             vals, rowPtr, colInd, info, HIPSPARSE_SOLVE_POLICY_USE_LEVEL, buffer);
    int position = 0;
    if (hipsparseXcsrsv2_zeroPivot(handle, info, &position) == HIPSPARSE_STATUS_ZERO_PIVOT) return 2;
    hipsparseScsrsv2_solve(handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, m, nnz, &alpha, descr,
                          vals, rowPtr, colInd, info, y, z, HIPSPARSE_SOLVE_POLICY_USE_LEVEL, buffer);
    hipFree(buffer);
    hipsparseDestroyCsrsv2Info(info);
    hipsparseDestroyMatDescr(descr);
    hipsparseDestroy(handle);
    return 0;
}
