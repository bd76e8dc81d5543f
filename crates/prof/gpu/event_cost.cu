// What timing every launch with a pair of CUDA events costs the raw driver: a launch-bound loop
// of empty kernels, bare and with an event recorded before and after each launch (what a
// profiler that takes device times from events must do). Settles whether the kernel-trace
// overhead target (under 5% on a launch-bound loop) is reachable with events at all.
//   nvcc -O2 -o event_cost event_cost.cu -lcuda && ./event_cost
#include <cuda.h>
#include <chrono>
#include <cstdio>
#include <vector>

#define CK(x)                                                                    \
  do {                                                                           \
    CUresult r_ = (x);                                                           \
    if (r_ != CUDA_SUCCESS) {                                                    \
      printf("FAIL %s -> %d\n", #x, (int)r_);                                    \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

static const char* PTX =
    ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry empty() { ret; }\n";

int main() {
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction f;
  CUstream s;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CK(cuModuleLoadData(&mod, PTX));
  CK(cuModuleGetFunction(&f, mod, "empty"));
  CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  const int n = 20000;
  std::vector<CUevent> ev(2 * n);
  for (auto& e : ev) CK(cuEventCreate(&e, CU_EVENT_DEFAULT));
  double best[3] = {1e30, 1e30, 1e30};
  for (int rep = 0; rep < 7; rep++) {
    for (int mode = 0; mode < 3; mode++) {
      CK(cuStreamSynchronize(s));
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < n; i++) {
        if (mode >= 1) CK(cuEventRecord(ev[2 * i], s));
        CK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, nullptr, nullptr));
        if (mode >= 2) CK(cuEventRecord(ev[2 * i + 1], s));
      }
      CK(cuStreamSynchronize(s));
      double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
      if (us < best[mode]) best[mode] = us;
    }
  }
  printf("raw driver, empty kernel, batched launches (best of 7 x %d):\n", n);
  printf("  launch only            %.3f us\n", best[0]);
  printf("  event + launch         %.3f us (%.2fx)\n", best[1], best[1] / best[0]);
  printf("  event + launch + event %.3f us (%.2fx)\n", best[2], best[2] / best[0]);
  return 0;
}
