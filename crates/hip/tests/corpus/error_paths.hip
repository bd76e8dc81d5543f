// Misuse from C: every call returns HIP's error code, the last error records it, and nothing is
// written where a call fails.
#include "common.h"
#include <cstring>
#include <vector>

__global__ void fill(int* p, int v) { p[threadIdx.x] = v; }

#define EXPECT(call, code)                                                                          \
    do {                                                                                            \
        hipError_t got_ = (call);                                                                   \
        CHECK_THAT(got_ == (code), "%s returned %s, want %s", #call, hipGetErrorName(got_), #code); \
        CHECK_THAT(hipGetLastError() == (code), "last error after %s", #call);                      \
    } while (0)

int main() {
    int* d = nullptr;
    HIP_CHECK(hipMalloc(&d, 64 * sizeof(int)));
    HIP_CHECK(hipMemset(d, 0, 64 * sizeof(int)));
    std::vector<int> host(64, 7), back(64);

    EXPECT(hipMalloc(nullptr, 16), hipErrorInvalidValue);
    EXPECT(hipMemcpy(d, host.data(), 64 * sizeof(int), (hipMemcpyKind)17), hipErrorInvalidMemcpyDirection);
    // A range past the end of the allocation: refused, and the allocation is unchanged.
    EXPECT(hipMemcpy(d + 1, host.data(), 64 * sizeof(int), hipMemcpyHostToDevice), hipErrorInvalidValue);
    // A host pointer where device memory is required.
    EXPECT(hipMemcpy(back.data(), host.data(), 16, hipMemcpyHostToDevice), hipErrorInvalidValue);
    EXPECT(hipMemcpy(nullptr, host.data(), 16, hipMemcpyHostToDevice), hipErrorInvalidValue);
    EXPECT(hipMemset(back.data(), 0, 16), hipErrorInvalidValue);
    HIP_CHECK(hipMemcpy(back.data(), d, 64 * sizeof(int), hipMemcpyDeviceToHost));
    for (int v : back) CHECK_THAT(v == 0, "a failed copy wrote %d", v);
    EXPECT(hipFree((void*)0x1234), hipErrorInvalidValue);
    EXPECT(hipFree(d + 1), hipErrorInvalidValue);
    EXPECT(hipHostFree(d), hipErrorInvalidValue);
    EXPECT(hipSetDevice(-1), hipErrorInvalidDevice);
    EXPECT(hipStreamDestroy((hipStream_t)0x4321), hipErrorInvalidHandle);
    EXPECT(hipStreamSynchronize((hipStream_t)0x4321), hipErrorInvalidHandle);
    EXPECT(hipEventRecord((hipEvent_t)0x77, nullptr), hipErrorInvalidHandle);
    hipEvent_t a, b;
    HIP_CHECK(hipEventCreate(&a));
    HIP_CHECK(hipEventCreate(&b));
    float ms;
    EXPECT(hipEventElapsedTime(&ms, a, b), hipErrorInvalidHandle);
    EXPECT(hipEventElapsedTime(nullptr, a, b), hipErrorInvalidValue);
    EXPECT(hipStreamCreateWithFlags(nullptr, 0), hipErrorInvalidValue);
    hipStream_t s;
    EXPECT(hipStreamCreateWithFlags(&s, 0x80), hipErrorInvalidValue);
    EXPECT(hipMemcpyToSymbol((const void*)&host, host.data(), 4), hipErrorInvalidSymbol);
    EXPECT(hipLaunchKernel((const void*)&host, dim3(1), dim3(1), nullptr, 0, 0), hipErrorInvalidDeviceFunction);

    // Launch errors are reported by hipGetLastError.
    fill<<<1, 2048>>>(d, 1);
    CHECK_THAT(hipGetLastError() == hipErrorInvalidConfiguration, "a block of 2048 threads");
    fill<<<dim3(0), 64>>>(d, 1);
    CHECK_THAT(hipGetLastError() == hipErrorInvalidConfiguration, "an empty grid");
    HIP_CHECK(hipMemcpy(back.data(), d, 64 * sizeof(int), hipMemcpyDeviceToHost));
    for (int v : back) CHECK_THAT(v == 0, "a refused launch wrote %d", v);
    fill<<<1, 64>>>(d, 5);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(back.data(), d, 64 * sizeof(int), hipMemcpyDeviceToHost));
    for (int v : back) CHECK_THAT(v == 5, "fill wrote %d", v);

    const char* name = hipGetErrorName(hipErrorOutOfMemory);
    CHECK_THAT(std::strcmp(name, "hipErrorOutOfMemory") == 0, "name %s", name);
    CHECK_THAT(std::strcmp(hipGetErrorString(hipSuccess), "no error") == 0, "description");
    CHECK_THAT(std::strcmp(hipGetErrorName((hipError_t)12345), "hipErrorUnknown") == 0, "unknown code");
    HIP_CHECK(hipEventDestroy(a));
    HIP_CHECK(hipEventDestroy(b));
    EXPECT(hipEventDestroy(a), hipErrorInvalidHandle);
    HIP_CHECK(hipFree(d));
    EXPECT(hipFree(d), hipErrorInvalidValue);
    std::printf("Validation passed\n");
    return 0;
}
