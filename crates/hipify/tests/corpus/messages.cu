// Messages name CUDA calls; the comment holds a Windows-1252 é (café).
#include <cstdio>
#include <cuda_runtime.h>

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(e));
}

int main() {
    float* p = nullptr;
    check(cudaMalloc(&p, 64), "cudaMalloc");
    check(cudaMemset(p, 0, 64), "call to cudaMemset");
    check(cudaFree(p), "cudaFree()");
    puts("Résumé: cudaDeviceReset done");
    return cudaDeviceReset() == cudaSuccess ? 0 : 1;
}
