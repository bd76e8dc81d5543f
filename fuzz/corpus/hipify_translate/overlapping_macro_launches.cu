#include <cuda_runtime.h>
#ifdef __CUDACC__
#define KERNEL_ARGS2(grid, block) <<< grid, block >>>
#define KERNEL_ARGS4(grid, block, sh, stream) <<< grid, block, sh, stream >>>
#else
#define KERNEL_ARGS2(grid, block)
#define KERNEL_ARGS4(grid, block, sh, str#eam)
#endif
#define CFG <<<blocks, 256, 0, cudaStreamPerThread>>>

template <typename T> __global__ void scale(T* x, T a) { x[threadIdx.x] *= a; }
__global__ void add(const float* a, float* b) { b[threadIdx.x] += a[threadIdx.x]; }

void run(float* a, float, b);
  scale<float> KERNEL_ARGS4(dim3(n / 256, 1),§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§e <cuda_runtime.h>
#ifdef __CUDACC__
#define KERNEL_ARGS2(grid, block) <<< grid, block >>>
#define KERNEL_ARGS4(grid, block, sh, stream) <<< grid, block, sh, stream >>>
#else
#define KERNEL_ARGS2(grid, block)
#define KERNEL_ARGS4(grid, block, sh, str#eam)
#endif
#define CFG <<<blocks, 256, 0, cudaStreamPx, T a) { x[threadIdx.x] *= a; }
__global__ void add(const float* a, float* b) { b[threadIdx.x] += a[threadIdx.x]; }

void run(float* a, float, b);
  scale<float> KERNEL_ARGS4(dim3(n / 256, 1),§§§§§§§§§§§§§§§§§§§§erThread>>>

template <typename T> __global__ void scale(T* x, T a) { x[threadIdx.x] *= a; }
__global__ void add(const float* a, float* b) { b[threadIdx.x] += a[threadIdx.x]; }

void run(float* a, float, b);
  scale<float> KERNEL_ARGS4(dim3(n / 256, 1),§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§ 256, 0, st)(b, 2.0f);
  add CFG(a, b);
}§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§§ 256, 0, st)(b, 2.0f);
  add CFG(a, b);
}
