// Monte Carlo estimate of pi with the cuRAND device API.
#include <hiprand/hiprand_kernel.h>
#include <hip/hip_runtime.h>

__global__ void setup(hiprandState* state, unsigned long long seed)
{
    int id = threadIdx.x + blockIdx.x * blockDim.x;
    hiprand_init(seed, id, 0, &state[id]);
}

template <int SAMPLES>
__global__ void count(hiprandState* state, unsigned int* hits)
{
    int id = threadIdx.x + blockIdx.x * blockDim.x;
    hiprandState local = state[id];
    unsigned int n = 0;
    for (int i = 0; i < SAMPLES; ++i) {
        float x = hiprand_uniform(&local);
        float y = hiprand_uniform(&local);
        n += (x * x + y * y <= 1.0f);
    }
    state[id] = local;
    atomicAdd(hits, n);
}

void run(hiprandState* d_state, unsigned int* d_hits, hipStream_t s)
{
    setup<<<64, 128, 0, s>>>(d_state, 1234ULL);
    count<1000><<<64, 128, 0, s>>>(d_state, d_hits);
    hipStreamSynchronize(s);
}
