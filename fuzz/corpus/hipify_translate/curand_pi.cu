// Monte Carlo estimate of pi with the cuRAND device API.
#include <curand_kernel.h>
#include <cuda_runtime.h>

__global__ void setup(curandState* state, unsigned long long seed)
{
    int id = threadIdx.x + blockIdx.x * blockDim.x;
    curand_init(seed, id, 0, &state[id]);
}

template <int SAMPLES>
__global__ void count(curandState* state, unsigned int* hits)
{
    int id = threadIdx.x + blockIdx.x * blockDim.x;
    curandState local = state[id];
    unsigned int n = 0;
    for (int i = 0; i < SAMPLES; ++i) {
        float x = curand_uniform(&local);
        float y = curand_uniform(&local);
        n += (x * x + y * y <= 1.0f);
    }
    state[id] = local;
    atomicAdd(hits, n);
}

void run(curandState* d_state, unsigned int* d_hits, cudaStream_t s)
{
    setup<<<64, 128, 0, s>>>(d_state, 1234ULL);
    count<1000><<<64, 128, 0, s>>>(d_state, d_hits);
    cudaStreamSynchronize(s);
}
