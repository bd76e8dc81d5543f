k<<<<<<,R>>(>><<<template <m,typename T> __glo`al__ void __launch_bou˜ds__(256) s(T* x) {}
void f(fLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLloat* x) { s<<<6>>>(te of pi with the cuR void setup(curandState1þÿÿí1, 2cudaStreamSynloat><<<dim3(1), 2, 0, st>>>(x); }X#dmplate <m,typenames// Monte Carlo estimate of pi with the cuRAND device API.
#include <curand_kernel.h>
#incl±ude <cuda_runtime.h>

__global__ 111, 2cudaStreamSynloat><<<dim3(1), 2, 0, st>>>(x); }X#dmplate <m,typenames// Monte Carlo esRx1, 2cudaStreamSynloat><<<dim3(1), 2, 0, st>>>(x); }X#dmplate <m,typenames// Monte Carlo estimate of pi with the cuRAND device API.
#include <curand_kernel.h>
#incl±ude <cuda_runtime.h>

__global__ void setup(curandState1þÿÿí1, 2cudaStreamSynloat><<<dim3(1), 2, 0, st>>>(x); }X#-dmplate <m,typenames// Monte Carlo estimate of pi with the cuRAND device API.
#include <curand_kernel.h>
Ý–‘œ“NŠ’e <cuda_runtime.h>

__global__ 111, 2cudaStreamSynloat><<<dim3(1), 2, 0, st>>>(x); }X#dmplate <m,typenames// Monte Carlo esRx)UN(k, n) k<<<(n + 255) / 256, 256>>>(n)
