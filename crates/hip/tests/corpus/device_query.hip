// Device query: properties, attributes (checked against each other) and versions.
#include "common.h"
#include <cstring>

extern "C" size_t ferrocmHipDevicePropSize(void);

int main() {
    CHECK_THAT(sizeof(hipDeviceProp_t) == ferrocmHipDevicePropSize(), "hipDeviceProp_t is %zu bytes here, %zu in the library",
               sizeof(hipDeviceProp_t), ferrocmHipDevicePropSize());
    int count = 0, runtime = 0, driver = 0;
    HIP_CHECK(hipGetDeviceCount(&count));
    CHECK_THAT(count >= 1, "%d devices", count);
    HIP_CHECK(hipRuntimeGetVersion(&runtime));
    HIP_CHECK(hipDriverGetVersion(&driver));
    CHECK_THAT(runtime == HIP_VERSION, "runtime version %d", runtime);
    std::printf("%d device(s), HIP %d, driver %d\n", count, runtime, driver);
    for (int d = 0; d < count; ++d) {
        HIP_CHECK(hipSetDevice(d));
        int current = -1;
        HIP_CHECK(hipGetDevice(&current));
        CHECK_THAT(current == d, "current device %d", current);
        hipDeviceProp_t p;
        std::memset(&p, 0xab, sizeof p);
        HIP_CHECK(hipGetDeviceProperties(&p, d));
        std::printf("device %d: %s (%s), %d.%d, %d compute units, warp %d, %.1f GiB\n", d, p.name, p.gcnArchName,
                    p.major, p.minor, p.multiProcessorCount, p.warpSize, p.totalGlobalMem / 1073741824.0);
        CHECK_THAT(std::strlen(p.name) > 0 && std::strlen(p.name) < 256, "name");
        int v;
        HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxThreadsPerBlock, d));
        CHECK_THAT(v == p.maxThreadsPerBlock && v >= 1024, "max threads %d / %d", v, p.maxThreadsPerBlock);
        HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, d));
        CHECK_THAT(v == p.warpSize && v == warpSize, "warp size %d", v);
        HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeMultiprocessorCount, d));
        CHECK_THAT(v == p.multiProcessorCount && v > 0, "compute units %d", v);
        HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxSharedMemoryPerBlock, d));
        CHECK_THAT((size_t)v == p.sharedMemPerBlock && v >= 48 * 1024, "shared %d", v);
        HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeComputeCapabilityMajor, d));
        CHECK_THAT(v == p.major, "major %d", v);
        HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxGridDimX, d));
        CHECK_THAT(v == p.maxGridSize[0] && v > 65535, "grid x %d", v);
        HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxBlockDimZ, d));
        CHECK_THAT(v == p.maxThreadsDim[2] && v == 64, "block z %d", v);
        HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeManagedMemory, d));
        CHECK_THAT(v == p.managedMemory, "managed %d", v);
        CHECK_THAT(p.sharedMemPerBlockOptin >= p.sharedMemPerBlock, "opt-in shared");
        // HIP's AMD-specific attributes that mean something here, and one that does not (refused,
        // its output left as it was).
        HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, d));
        CHECK_THAT((size_t)v == p.sharedMemPerMultiprocessor && (size_t)v >= p.sharedMemPerBlock,
                   "shared per multiprocessor %d", v);
        HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributePhysicalMultiProcessorCount, d));
        CHECK_THAT(v == p.multiProcessorCount, "physical compute units %d", v);
        HIP_CHECK(hipDeviceGetAttribute(&v, hipDeviceAttributeCanUseStreamWaitValue, d));
        CHECK_THAT(v == 1, "stream wait value %d", v);
        v = -7;
        CHECK_THAT(hipDeviceGetAttribute(&v, hipDeviceAttributeHdpMemFlushCntl, d) == hipErrorInvalidValue && v == -7,
                   "an attribute without a meaning here is refused");
        CHECK_THAT(hipGetLastError() == hipErrorInvalidValue, "its error is the last error");
        char name[256];
        HIP_CHECK(hipDeviceGetName(name, sizeof name, d));
        CHECK_THAT(std::strcmp(name, p.name) == 0, "hipDeviceGetName");
        size_t total = 0, free = 0, bytes = 0;
        HIP_CHECK(hipDeviceTotalMem(&bytes, d));
        HIP_CHECK(hipMemGetInfo(&free, &total));
        CHECK_THAT(bytes == p.totalGlobalMem && total == bytes && free <= total, "memory %zu %zu %zu", bytes, total, free);
        int major, minor;
        HIP_CHECK(hipDeviceComputeCapability(&major, &minor, d));
        CHECK_THAT(major == p.major && minor == p.minor, "compute capability");
    }
    CHECK_THAT(hipSetDevice(count) == hipErrorInvalidDevice, "device %d is out of range", count);
    CHECK_THAT(hipGetLastError() == hipErrorInvalidDevice, "last error");
    CHECK_THAT(hipGetLastError() == hipSuccess, "the last error resets");
    HIP_CHECK(hipSetDevice(0));
    std::printf("Validation passed\n");
    return 0;
}
