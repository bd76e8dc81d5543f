// Raw PTX kernels (a hipcc program's) under kernel tracing: launch-bound and large-kernel rows
// for crates/prof/gpu/ktrace.sh, which runs this program plain and under
// `ferrocm prof --kernel-trace` (built by ktrace_stage.sh with `ferrocm hipcc`).
//
//   ptx_trace_bench [launches (20000)] [log2 of the large kernel's elements (27)] [reps (7)]
//
// Prints one JSON line per row ({"metric", "ferrocm", "unit"}, as `ferrocm bench` does):
// - empty kernel launches, batched (one synchronize per batch) and with a synchronize each, in
//   microseconds per launch (median over reps);
// - a large memory-bound kernel (y = a * x over 2^27 floats, about 350 us on an H100), launched
//   and synchronized one at a time, in GB/s of its traffic (median over 30 calls);
// - the same kernel's duration by hipEvents around each launch (median of 30, microseconds),
//   which ktrace.sh compares with the durations the trace records for the same kernel.
// The large kernel's result is checked against the host before anything is timed.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                    \
    do {                                                                            \
        hipError_t e_ = (x);                                                        \
        if (e_ != hipSuccess) {                                                     \
            std::fprintf(stderr, "%s: %s\n", #x, hipGetErrorString(e_));            \
            std::exit(1);                                                           \
        }                                                                           \
    } while (0)

__global__ void empty_kernel() {}

__global__ void scale(const float* x, float* y, float a, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) y[i] = a * x[i];
}

static double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static void row(const char* metric, double value, const char* unit) {
    std::printf("{\"metric\": \"%s\", \"ferrocm\": %.4f, \"unit\": \"%s\"}\n", metric, value, unit);
}

int main(int argc, char** argv) {
    const int launches = argc > 1 ? std::atoi(argv[1]) : 20000;
    const int log2n = argc > 2 ? std::atoi(argv[2]) : 27;
    const int reps = argc > 3 ? std::atoi(argv[3]) : 7;
    const size_t n = (size_t)1 << log2n;
    hipStream_t s;
    CHECK(hipStreamCreate(&s));
    hipDeviceProp_t p;
    CHECK(hipGetDeviceProperties(&p, 0));

    // The large kernel, checked first on fresh random inputs.
    std::vector<float> hx(n), hy(n);
    unsigned r = 12345;
    for (size_t i = 0; i < n; i++) {
        r = r * 1664525u + 1013904223u;
        hx[i] = (float)(r >> 8) / (float)(1u << 24) - 0.5f;
    }
    float *x, *y;
    CHECK(hipMalloc(&x, n * sizeof(float)));
    CHECK(hipMalloc(&y, n * sizeof(float)));
    CHECK(hipMemcpy(x, hx.data(), n * sizeof(float), hipMemcpyHostToDevice));
    const unsigned grid = p.multiProcessorCount * 8;
    scale<<<grid, 256, 0, s>>>(x, y, 3.0f, n);
    CHECK(hipStreamSynchronize(s));
    CHECK(hipMemcpy(hy.data(), y, n * sizeof(float), hipMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) {
        if (hy[i] != 3.0f * hx[i]) {
            std::fprintf(stderr, "scale: y[%zu] = %g, want %g\n", i, hy[i], 3.0f * hx[i]);
            return 1;
        }
    }

    // Empty launches, batched and with a synchronize each.
    for (int sync_each = 0; sync_each < 2; sync_each++) {
        const int batch = sync_each ? std::max(1, launches / 10) : launches;
        std::vector<double> per;
        for (int rep = 0; rep < reps; rep++) {
            double t0 = now_us();
            for (int i = 0; i < batch; i++) {
                empty_kernel<<<1, 32, 0, s>>>();
                if (sync_each) CHECK(hipStreamSynchronize(s));
            }
            CHECK(hipStreamSynchronize(s));
            per.push_back((now_us() - t0) / batch);
        }
        row(sync_each ? "hip empty kernel launch + sync" : "hip empty kernel launch (batched)", median(per), "us");
    }

    // The large kernel, one call at a time.
    const double bytes = 2.0 * n * sizeof(float);
    std::vector<double> gbs, event_us;
    for (int i = 0; i < 30; i++) {
        double t0 = now_us();
        scale<<<grid, 256, 0, s>>>(x, y, 3.0f, n);
        CHECK(hipStreamSynchronize(s));
        gbs.push_back(bytes / ((now_us() - t0) * 1e3));
    }
    row("hip scale 2^n (sync each)", median(gbs), "GB/s");
    hipEvent_t a, b;
    CHECK(hipEventCreate(&a));
    CHECK(hipEventCreate(&b));
    for (int i = 0; i < 30; i++) {
        CHECK(hipEventRecord(a, s));
        scale<<<grid, 256, 0, s>>>(x, y, 3.0f, n);
        CHECK(hipEventRecord(b, s));
        CHECK(hipEventSynchronize(b));
        float ms = 0;
        CHECK(hipEventElapsedTime(&ms, a, b));
        event_us.push_back(ms * 1e3);
    }
    row("hip scale event duration", median(event_us), "us");
    CHECK(hipFree(x));
    CHECK(hipFree(y));
    CHECK(hipStreamDestroy(s));
    std::printf("Validation passed\n");
    return 0;
}
