// Code in every #if group is translated, as hipify-clang does by default
// (it keeps excluded conditional blocks unless given --default-preprocessor):
// cuda.h in a group is the runtime header, so none is added.
#include <stdio.h>
#ifdef USE_DRIVER_API
#include <cuda.h>
#endif

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
#else
__device__ double atomicAdd(double* address, double val)
{
    unsigned long long int* a = (unsigned long long int*)address;
    unsigned long long int old = *a, assumed;
    do {
        assumed = old;
        old = atomicCAS(a, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
    } while (assumed != old);
    return __longlong_as_double(old);
}
#endif

__global__ void sum(const double* in, double* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = i < n ? in[i] : 0.0;
#if CUDART_VERSION >= 9000
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
#else
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);
#endif
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

double run(const double* d_in, int n, cudaStream_t stream)
{
    double* d_out;
    cudaMalloc(&d_out, sizeof(double));
    cudaMemsetAsync(d_out, 0, sizeof(double), stream);
    sum<<<(n + 255) / 256, 256, 0, stream>>>(d_in, d_out, n);
#ifdef DEBUG
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) printf("sum: %s\n", cudaGetErrorString(err));
#endif
    double h = 0;
    cudaMemcpyAsync(&h, d_out, sizeof(double), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    cudaFree(d_out);
    return h;
}
