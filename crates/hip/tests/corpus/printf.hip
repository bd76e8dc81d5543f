// Device printf: every thread prints; the harness checks the lines.
#include "common.h"

__global__ void hello(int tag, const char* word) {
    printf("block %d thread %d: %s %d %.2f %c %x\n", (int)blockIdx.x, (int)threadIdx.x, word, tag,
           0.25 * threadIdx.x, 'a' + (int)threadIdx.x, 255 + (int)blockIdx.x);
}

int main() {
    char* word;
    const char text[] = "hip";
    HIP_CHECK(hipMalloc(&word, sizeof text));
    HIP_CHECK(hipMemcpy(word, text, sizeof text, hipMemcpyHostToDevice));
    hello<<<2, 4>>>(42, word);
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipFree(word));
    std::printf("Validation passed\n");
    return 0;
}
