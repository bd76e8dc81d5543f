// hipify-options: --roc
// cuDNN softmax and convolution workspace query, as in the cuDNN API reference,
// translated to MIOpen (argument order differs).

#include <hip/hip_runtime.h>
#include <miopen/miopen.h>

size_t forward(miopenHandle_t handle, miopenTensorDescriptor_t xDesc, const float* x,
               miopenTensorDescriptor_t yDesc, float* y, miopenTensorDescriptor_t wDesc,
               miopenConvolutionDescriptor_t convDesc, miopenConvFwdAlgorithm_t algo)
{
    const float alpha = 1.0f, beta = 0.0f;
    miopenStatus_t st = miopenSoftmaxForward_V2(handle, &alpha, xDesc, x, &beta, yDesc, y, MIOPEN_SOFTMAX_ACCURATE, MIOPEN_SOFTMAX_MODE_CHANNEL);
    if (st != miopenStatusSuccess) return 0;
    size_t bytes = 0;
    miopenConvolutionForwardGetWorkSpaceSize(handle, wDesc, xDesc, convDesc, yDesc, &bytes);
    miopenPoolingDescriptor_t pool;
    miopenCreatePoolingDescriptor(&pool);
    miopenSet2dPoolingDescriptor(pool, miopenPoolingMax, 2, 2, 0, 0, 2, 2);
    miopenDestroyPoolingDescriptor(pool);
    return bytes;
}
