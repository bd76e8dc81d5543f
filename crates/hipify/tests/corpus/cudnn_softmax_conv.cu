// hipify-options: --roc
// cuDNN softmax and convolution workspace query, as in the cuDNN API reference,
// translated to MIOpen (argument order differs).
#include <cudnn.h>

size_t forward(cudnnHandle_t handle, cudnnTensorDescriptor_t xDesc, const float* x,
               cudnnTensorDescriptor_t yDesc, float* y, cudnnFilterDescriptor_t wDesc,
               cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo)
{
    const float alpha = 1.0f, beta = 0.0f;
    cudnnStatus_t st = cudnnSoftmaxForward(handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL,
                                           &alpha, xDesc, x, &beta, yDesc, y);
    if (st != CUDNN_STATUS_SUCCESS) return 0;
    size_t bytes = 0;
    cudnnGetConvolutionForwardWorkspaceSize(handle, xDesc, wDesc, convDesc, yDesc, algo, &bytes);
    cudnnPoolingDescriptor_t pool;
    cudnnCreatePoolingDescriptor(&pool);
    cudnnSetPooling2dDescriptor(pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2);
    cudnnDestroyPoolingDescriptor(pool);
    return bytes;
}
