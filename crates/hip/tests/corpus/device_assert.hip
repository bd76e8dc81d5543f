// A failing device-side assert is reported as hipErrorAssert (the device's context is then
// unusable on a GPU, so this program stops there).
#include "common.h"
#include <cassert>

__global__ void check_positive(const int* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) assert(v[i] > 0);
}

int main() {
    int h[4] = {3, 1, -2, 5};
    int* d;
    HIP_CHECK(hipMalloc(&d, sizeof h));
    HIP_CHECK(hipMemcpy(d, h, sizeof h, hipMemcpyHostToDevice));
    check_positive<<<1, 3>>>(d, 2);
    HIP_CHECK(hipDeviceSynchronize());
    check_positive<<<1, 4>>>(d, 4);
    hipError_t e = hipDeviceSynchronize();
    CHECK_THAT(e == hipErrorAssert, "got %s", hipGetErrorName(e));
    std::printf("Validation passed\n");
    return 0;
}
