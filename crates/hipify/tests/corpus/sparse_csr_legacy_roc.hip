// hipify-options: --roc
// Legacy (pre-CUDA 12) cuSPARSE: CSR matrix-vector product and triangular solve,
// as the cuSPARSE library documentation of CUDA 10 describes them.
#include <hip/hip_runtime.h>
#include "rocsparse.h"

int spmv_and_solve(int m, int nnz, const float* vals, const int* rowPtr, const int* colInd,
                   const float* x, float* y, float* z)
{
    rocsparse_handle handle;
    rocsparse_mat_descr descr;
    rocsparse_mat_descr info;
    int bufferSize = 0;
    void* buffer = nullptr;
    const float alpha = 1.0f, beta = 0.0f;
    rocsparse_status st = rocsparse_create_handle(&handle);
    if (st != rocsparse_status_success) return 1;
    rocsparse_create_mat_descr(&descr);
    rocsparse_set_mat_type(descr, rocsparse_matrix_type_general);
    rocsparse_set_mat_index_base(descr, rocsparse_index_base_zero);
    rocsparse_set_mat_fill_mode(descr, rocsparse_fill_mode_lower);
    rocsparse_scsrmv(handle, rocsparse_operation_none, m, m, nnz, &alpha, descr,
                   vals, rowPtr, colInd, nullptr, x, &beta, y);
    rocsparse_create_mat_info(&info);
    rocsparse_scsrsv_buffer_size(handle, rocsparse_operation_none, m, nnz, descr,
                               (float*)vals, rowPtr, colInd, info, reinterpret_cast<size_t*>(&bufferSize));
    hipMalloc(&buffer, bufferSize);
    rocsparse_scsrsv_analysis(handle, rocsparse_operation_none, m, nnz, descr,
                             vals, rowPtr, colInd, info, rocsparse_analysis_policy_force, rocsparse_solve_policy_auto, buffer);
    int position = 0;
    if (rocsparse_csrsv_zero_pivot(handle, info, &position) == rocsparse_status_zero_pivot) return 2;
    rocsparse_scsrsv_solve(handle, rocsparse_operation_none, m, nnz, &alpha, descr,
                          vals, rowPtr, colInd, info, y, z, rocsparse_solve_policy_auto, buffer);
    hipFree(buffer);
    rocsparse_destroy_mat_info(info);
    rocsparse_destroy_mat_descr(descr);
    rocsparse_destroy_handle(handle);
    return 0;
}
