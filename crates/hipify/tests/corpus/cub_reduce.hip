#include <hipcub/hipcub.hpp>
#include <hip/hip_runtime.h>

// Sum with cub::DeviceReduce (two-phase temporary storage query).
float device_sum(const float* d_in, float* d_out, int n, hipStream_t stream)
{
    void* d_temp = nullptr;
    size_t temp_bytes = 0;
    cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n, stream);
    hipMallocAsync(&d_temp, temp_bytes, stream);
    cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n, stream);
    hipFreeAsync(d_temp, stream);
    float h = 0;
    hipMemcpyAsync(&h, d_out, sizeof(float), hipMemcpyDeviceToHost, stream);
    hipStreamSynchronize(stream);
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
