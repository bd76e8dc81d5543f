// Launch cost through libferrocm_hip: `<<<...>>>` (registration lookup, argument copy, launch
// validation) and hipModuleLaunchKernel, for an empty kernel; checked to run before timing.
// Prints one line per path: "hip_launch <path> <microseconds per launch>".
#include <hip/hip_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(x) do { hipError_t e = (x); if (e != hipSuccess) { std::printf("%s: %s\n", #x, hipGetErrorString(e)); std::exit(1); } } while (0)

__global__ void empty(int* flag, int v) {
    if (flag && threadIdx.x == 0 && blockIdx.x == 0) *flag = v;
}

static double time_launches(int n, void (*launch)(int*)) {
    int* flag;
    HIP_CHECK(hipMalloc(&flag, sizeof(int)));
    launch(flag);
    HIP_CHECK(hipDeviceSynchronize());
    int got = 0;
    HIP_CHECK(hipMemcpy(&got, flag, sizeof got, hipMemcpyDeviceToHost));
    if (got != 42) {
        std::printf("the kernel did not run (%d)\n", got);
        std::exit(1);
    }
    for (int i = 0; i < 100; ++i) launch(nullptr);
    HIP_CHECK(hipDeviceSynchronize());
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) launch(nullptr);
    HIP_CHECK(hipDeviceSynchronize());
    auto t1 = std::chrono::steady_clock::now();
    HIP_CHECK(hipFree(flag));
    return std::chrono::duration<double, std::micro>(t1 - t0).count() / n;
}

static hipStream_t stream;

int main(int argc, char** argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 20000;
    HIP_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
    double chevron = time_launches(n, [](int* f) { empty<<<1, 32, 0, stream>>>(f, 42); });
    double ggl = time_launches(n, [](int* f) { hipLaunchKernelGGL(empty, dim3(1), dim3(32), 0, stream, f, 42); });
    std::printf("hip_launch chevron %.2f\n", chevron);
    std::printf("hip_launch hipLaunchKernelGGL %.2f\n", ggl);
    HIP_CHECK(hipStreamDestroy(stream));
    std::printf("Validation passed\n");
    return 0;
}
