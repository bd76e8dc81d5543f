// Loading a module and launching a kernel with the driver API.
#include <cuda.h>
#include <cstdio>

#define DRV(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { \
    const char* msg; cuGetErrorString(r, &msg); printf("%s\n", msg); } } while (0)

int launch(const char* path, float* host, size_t n)
{
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr buf;
    DRV(cuInit(0));
    DRV(cuDeviceGet(&dev, 0));
    DRV(cuCtxCreate(&ctx, 0, dev));
    DRV(cuModuleLoad(&mod, path));
    DRV(cuModuleGetFunction(&fn, mod, "scale"));
    DRV(cuMemAlloc(&buf, n * sizeof(float)));
    DRV(cuMemcpyHtoD(buf, host, n * sizeof(float)));
    void* args[] = { &buf, &n };
    DRV(cuLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
    DRV(cuCtxSynchronize());
    DRV(cuMemcpyDtoH(host, buf, n * sizeof(float)));
    cuMemFree(buf);
    cuModuleUnload(mod);
    cuCtxDestroy(ctx);
    return 0;
}
