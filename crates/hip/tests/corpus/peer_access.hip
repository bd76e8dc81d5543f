// Two devices: peer access and copies between them (the harness runs it with two CPU devices,
// FERROCM_CPU_DEVICES=2, and on machines with two GPUs).
#include "common.h"
#include <vector>

__global__ void add_one(int* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

int main() {
    int count = 0;
    HIP_CHECK(hipGetDeviceCount(&count));
    if (count < 2) {
        std::printf("one device: nothing to test\nValidation passed\n");
        return 0;
    }
    const int n = 4096;
    std::vector<int> h(n), back(n);
    for (int i = 0; i < n; ++i) h[i] = i;
    int *d0, *d1;
    HIP_CHECK(hipSetDevice(0));
    HIP_CHECK(hipMalloc(&d0, n * sizeof(int)));
    HIP_CHECK(hipMemcpy(d0, h.data(), n * sizeof(int), hipMemcpyHostToDevice));
    HIP_CHECK(hipSetDevice(1));
    HIP_CHECK(hipMalloc(&d1, n * sizeof(int)));
    int can = 0;
    HIP_CHECK(hipDeviceCanAccessPeer(&can, 1, 0));
    HIP_CHECK(hipMemcpyPeer(d1, 1, d0, 0, n * sizeof(int)));
    add_one<<<(n + 255) / 256, 256>>>(d1, n);
    HIP_CHECK(hipMemcpy(back.data(), d1, n * sizeof(int), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK_THAT(back[i] == i + 1, "device 1 [%d] = %d", i, back[i]);
    if (can) {
        HIP_CHECK(hipDeviceEnablePeerAccess(0, 0));
        CHECK_THAT(hipDeviceEnablePeerAccess(0, 0) == hipErrorPeerAccessAlreadyEnabled, "enabled twice");
        HIP_CHECK(hipMemcpy(d0, d1, n * sizeof(int), hipMemcpyDeviceToDevice));
        HIP_CHECK(hipDeviceDisablePeerAccess(0));
        HIP_CHECK(hipSetDevice(0));
        HIP_CHECK(hipMemcpy(back.data(), d0, n * sizeof(int), hipMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i) CHECK_THAT(back[i] == i + 1, "device 0 [%d] = %d", i, back[i]);
    }
    HIP_CHECK(hipFree(d0));
    HIP_CHECK(hipFree(d1));
    std::printf("Validation passed\n");
    return 0;
}
