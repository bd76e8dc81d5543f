// Streams and events: independent streams with pinned copies, a cross-stream dependency through
// hipStreamWaitEvent, timing, queries, host callbacks, and the null stream's ordering.
#include "common.h"
#include <atomic>

__global__ void scale(float* x, int n, float f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= f;
}

__global__ void add_from(float* dst, const float* src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] += src[i];
}

static std::atomic<int> callbacks{0};
static void on_done(void* user) { callbacks += *(int*)user; }
static void on_stream(hipStream_t, hipError_t status, void* user) {
    if (status == hipSuccess) callbacks += *(int*)user;
}

int main() {
    const int n = 1 << 15, streams = 3;
    float* host[streams];
    float* dev[streams];
    hipStream_t s[streams];
    for (int k = 0; k < streams; ++k) {
        HIP_CHECK(hipStreamCreateWithFlags(&s[k], k == 0 ? hipStreamDefault : hipStreamNonBlocking));
        HIP_CHECK(hipHostMalloc(&host[k], n * sizeof(float), hipHostMallocDefault));
        HIP_CHECK(hipMalloc(&dev[k], n * sizeof(float)));
        for (int i = 0; i < n; ++i) host[k][i] = (float)(i % 97) + k;
    }
    unsigned int flags = 7;
    HIP_CHECK(hipStreamGetFlags(s[1], &flags));
    CHECK_THAT(flags == hipStreamNonBlocking, "flags %u", flags);
    int lo, hi;
    HIP_CHECK(hipDeviceGetStreamPriorityRange(&lo, &hi));
    hipStream_t prio;
    HIP_CHECK(hipStreamCreateWithPriority(&prio, hipStreamNonBlocking, hi));
    int p = 1;
    HIP_CHECK(hipStreamGetPriority(prio, &p));
    CHECK_THAT(p == hi, "priority %d, want %d", p, hi);

    hipEvent_t start, stop, ready;
    HIP_CHECK(hipEventCreate(&start));
    HIP_CHECK(hipEventCreate(&stop));
    HIP_CHECK(hipEventCreateWithFlags(&ready, hipEventDisableTiming));
    HIP_CHECK(hipEventRecord(start, s[0]));
    for (int k = 0; k < streams; ++k) {
        HIP_CHECK(hipMemcpyAsync(dev[k], host[k], n * sizeof(float), hipMemcpyHostToDevice, s[k]));
        scale<<<(n + 255) / 256, 256, 0, s[k]>>>(dev[k], n, 2.0f);
    }
    // Stream 2 adds stream 1's result once stream 1 has scaled it.
    HIP_CHECK(hipEventRecord(ready, s[1]));
    HIP_CHECK(hipStreamWaitEvent(s[2], ready, 0));
    add_from<<<(n + 255) / 256, 256, 0, s[2]>>>(dev[2], dev[1], n);
    int one = 1, ten = 10;
    HIP_CHECK(hipLaunchHostFunc(s[2], on_done, &one));
    HIP_CHECK(hipStreamAddCallback(s[0], on_stream, &ten, 0));
    for (int k = 0; k < streams; ++k)
        HIP_CHECK(hipMemcpyAsync(host[k], dev[k], n * sizeof(float), hipMemcpyDeviceToHost, s[k]));
    HIP_CHECK(hipEventRecord(stop, s[0]));
    HIP_CHECK(hipEventSynchronize(stop));
    for (int k = 0; k < streams; ++k) HIP_CHECK(hipStreamSynchronize(s[k]));
    HIP_CHECK(hipStreamQuery(s[2]));
    HIP_CHECK(hipEventQuery(stop));
    float ms = -1;
    HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
    CHECK_THAT(ms >= 0.0f, "elapsed %f ms", ms);
    CHECK_THAT(hipEventElapsedTime(&ms, start, ready) == hipErrorInvalidHandle, "timing an event without timing");
    CHECK_THAT(callbacks == 11, "callbacks %d", callbacks.load());
    for (int i = 0; i < n; ++i) {
        float base = (float)(i % 97);
        CHECK_THAT(host[0][i] == 2 * base, "stream 0 [%d]", i);
        CHECK_THAT(host[1][i] == 2 * (base + 1), "stream 1 [%d]", i);
        CHECK_THAT(host[2][i] == 2 * (base + 2) + 2 * (base + 1), "stream 2 [%d] = %f", i, host[2][i]);
    }

    // The null stream waits for blocking streams and they wait for it.
    for (int i = 0; i < n; ++i) host[0][i] = 1.0f;
    HIP_CHECK(hipMemcpy(dev[0], host[0], n * sizeof(float), hipMemcpyHostToDevice));
    scale<<<(n + 255) / 256, 256, 0, s[0]>>>(dev[0], n, 3.0f);  // blocking stream
    scale<<<(n + 255) / 256, 256>>>(dev[0], n, 5.0f);           // null stream, after it
    HIP_CHECK(hipMemcpy(host[0], dev[0], n * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK_THAT(host[0][i] == 15.0f, "null-stream order [%d] = %f", i, host[0][i]);

    // The per-thread default stream.
    scale<<<(n + 255) / 256, 256, 0, hipStreamPerThread>>>(dev[0], n, 0.5f);
    HIP_CHECK(hipStreamSynchronize(hipStreamPerThread));
    HIP_CHECK(hipMemcpy(host[0], dev[0], n * sizeof(float), hipMemcpyDeviceToHost));
    CHECK_THAT(host[0][7] == 7.5f, "per-thread stream: %f", host[0][7]);

    for (int k = 0; k < streams; ++k) {
        HIP_CHECK(hipStreamDestroy(s[k]));
        HIP_CHECK(hipHostFree(host[k]));
        HIP_CHECK(hipFree(dev[k]));
    }
    HIP_CHECK(hipStreamDestroy(prio));
    HIP_CHECK(hipEventDestroy(start));
    HIP_CHECK(hipEventDestroy(stop));
    HIP_CHECK(hipEventDestroy(ready));
    std::printf("Validation passed\n");
    return 0;
}
