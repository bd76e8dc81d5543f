// Kernels for module_api: compiled on their own to PTX (`hipcc --device-only`).
#include <hip/hip_runtime.h>

__device__ float bias = 0.5f;

extern "C" __global__ void scale_add(float* y, const float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + bias;
}

struct Pair {
    int offset;
    double factor;
};

extern "C" __global__ void packed(int* out, Pair p, char c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (int)(i * p.factor) + p.offset + c;
}
