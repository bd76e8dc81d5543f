//›Monte Carlo estimate ofinclude <curand_kernel.h>
#include <cuda_runtime.h>

__global__ void setup(curandState* state, unsigned long long seends__(256) s(T* x) {}
voiœèf(float* x) { s<<<1, 256>>>(x); s<float><<<dim3(1), 2















































, 0, st>>>(x); f}
#define n) k<<<(cudaMallocNðnd)ockIdxura<<32, 128, 0, s>>>(d_state, 1234ULL);
    count0<1000><<< 128, 0, s>>>(d_state, d_hits);
    cudaStre> e<u< cedcuda_runti.ha>
#include <cuda_runtime.h> extra /yme.h> e<u< cedcuda_runti.me.h> e<u<seed)ocKIdxura<<32, 128, 0, s>>>(d_state, 1234ULL);
    cou’‹Ï¼1000><<< 128, 0, s>>>(d_state, d_hits);
 #ifndefÉÉÉžÉÉÉÉÉÉÉÉÉÉÉÉÉÉÉ•curand_iit(*dtda_runtime.h> excuda_cludr