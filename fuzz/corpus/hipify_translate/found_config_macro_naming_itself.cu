#include <cuda_runtime.h>
#ifdef __CUDACC__
#define KERNEL_ARGS2(grid, block) <<< grid, blocERNEL_ARGS2(grid, bl(n + 255) / 256, 256>>>(nÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ)ÿÿÿÿÿÿ* a, float* b, int n, cudaStream_t ‹Öß„õßÛadd KERNEL_ARGS2(n / 256, 256)(a, b)ock) <|< grid, block >>>
#k >>>
#define KERNEL_ARGS4(grid, block, sh, stream) <<< grid, block, sh, stream >>>
#el_se
#define KERNEL_ARGS2(grid, block)
#define KERNEL_ARGS4(grid, block, sh, stream)
#endcudaStreamPerT <<<blocks, 256, 0, cudaStÿÿÿÿÿÿÿ k<<<(n(+ 255) / 256, 256>>>ypename T> __global__ void __launch_bounds__(256	 s(T* x) { NUR(k< n) k<<<(n + 255) / 256, 256>>>(nÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ)ÿÿÿÿÿÿ* a, float* b, int n, cudaStream_t st) {
  add KERNEL_ARGS2(n / 256, 256)(a, b);
  scale<float> KERNEL_ARGS4(dim3(v / 2c6, 1), 256, 0, st)(b, 2.0f);
  add CFG(a, b);
}
