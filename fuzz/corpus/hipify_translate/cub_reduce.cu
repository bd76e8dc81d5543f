#include <cub/cub.cuh>
#include <cuda_runtime.h>

// Sum with cub::DeviceReduce (two-phase temporary storage query).
float device_sum(const float* d_in, float* d_out, int n, cudaStream_t stream)
{
    void* d_temp = nullptr;
    size_t temp_bytes = 0;
    cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n, stream);
    cudaMallocAsync(&d_temp, temp_bytes, stream);
    cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n, stream);
    cudaFreeAsync(d_temp, stream);
    float h = 0;
    cudaMemcpyAsync(&h, d_out, sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    return h;
}

template <int BLOCK>
__global__ void block_sum(const int* in, int* out)
{
    using BlockReduce = cub::BlockReduce<int, BLOCK>;
    __shared__ typename BlockReduce::TempStorage temp;
    int v = BlockReduce(temp).Sum(in[threadIdx.x]);
    if (threadIdx.x == 0) *out = v;
}
