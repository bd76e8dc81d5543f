// math_constants.h constants in device code, as listed in the CUDA Math API.
#include <math_constants.h>

__global__ void gaussian(float* out, const float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[i] = (v != v) ? CUDART_NAN_F : expf(-0.5f * v * v) * CUDART_SQRT_2_OVER_PI_F;
    if (isinf(v)) out[i] = v > 0 ? CUDART_INF_F : -CUDART_INF_F;
}

__device__ double turns(double radians) { return radians / (2.0 * CUDART_PI); }
