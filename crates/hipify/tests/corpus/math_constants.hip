// math_constants.h constants in device code, as listed in the CUDA Math API.

#include <hip/hip_runtime.h>
#include <hip/hip_math_constants.h>

__global__ void gaussian(float* out, const float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[i] = (v != v) ? HIP_NAN_F : expf(-0.5f * v * v) * HIP_SQRT_2_OVER_PI_F;
    if (isinf(v)) out[i] = v > 0 ? HIP_INF_F : -HIP_INF_F;
}

__device__ double turns(double radians) { return radians / (2.0 * HIP_PI); }
