// Loading a module and launching a kernel with the driver API.
#include <hip/hip_runtime.h>
#include <cstdio>

#define DRV(x) do { hipError_t r = (x); if (r != hipSuccess) { \
    const char* msg; hipDrvGetErrorString(r, &msg); printf("%s\n", msg); } } while (0)

int launch(const char* path, float* host, size_t n)
{
    hipDevice_t dev;
    hipCtx_t ctx;
    hipModule_t mod;
    hipFunction_t fn;
    hipDeviceptr_t buf;
    DRV(hipInit(0));
    DRV(hipDeviceGet(&dev, 0));
    DRV(hipCtxCreate(&ctx, 0, dev));
    DRV(hipModuleLoad(&mod, path));
    DRV(hipModuleGetFunction(&fn, mod, "scale"));
    DRV(hipMalloc(&buf, n * sizeof(float)));
    DRV(hipMemcpyHtoD(buf, host, n * sizeof(float)));
    void* args[] = { &buf, &n };
    DRV(hipModuleLaunchKernel(fn, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
    DRV(hipCtxSynchronize());
    DRV(hipMemcpyDtoH(host, buf, n * sizeof(float)));
    hipFree(buf);
    hipModuleUnload(mod);
    hipCtxDestroy(ctx);
    return 0;
}
