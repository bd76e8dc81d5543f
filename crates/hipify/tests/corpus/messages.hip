// Messages name CUDA calls; the comment holds a Windows-1252 é (café).
#include <cstdio>
#include <hip/hip_runtime.h>

void check(hipError_t e, const char* what) {
    if (e != hipSuccess) fprintf(stderr, "%s failed: %s\n", what, hipGetErrorString(e));
}

int main() {
    float* p = nullptr;
    check(hipMalloc(&p, 64), "hipMalloc");
    check(hipMemset(p, 0, 64), "call to hipMemset");
    check(hipFree(p), "cudaFree()");
    puts("Résumé: hipDeviceReset done");
    return hipDeviceReset() == hipSuccess ? 0 : 1;
}
