// Cooperative groups: thread blocks, 32- and 8-thread tiles with shuffles and reductions, and a
// grid-wide barrier in a cooperative launch (a two-phase normalisation).
#include "common.h"
#include <cmath>
#include <algorithm>
#include <hip/hip_cooperative_groups.h>
#include <vector>

namespace cg = cooperative_groups;

__global__ void tile_sums(const int* in, int* warp_sums, int* eighth_sums) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> eighth = cg::tiled_partition<8>(block);
    int v = in[blockIdx.x * blockDim.x + block.thread_rank()];
    int s32 = cg::reduce(warp, v, cg::plus<int>());
    int s8 = v;
    for (int d = 4; d > 0; d /= 2) s8 += eighth.shfl_down(s8, d);
    int g = blockIdx.x * (blockDim.x / 32) + warp.meta_group_rank();
    if (warp.thread_rank() == 0) warp_sums[g] = s32;
    if (eighth.thread_rank() == 0) eighth_sums[blockIdx.x * (blockDim.x / 8) + eighth.meta_group_rank()] = s8;
    block.sync();
}

// Phase 1: each block adds its elements into a global total. Phase 2 (after the grid barrier):
// every element is divided by the total.
__global__ void normalise(float* x, int n, float* total) {
    cg::grid_group grid = cg::this_grid();
    float v = 0;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) v += x[i];
    atomicAdd(total, v);
    grid.sync();
    float t = *(volatile float*)total;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size()) x[i] /= t;
}

int main() {
    const int blocks = 6, threads = 128, n = blocks * threads;
    std::vector<int> in(n);
    Rng rng(9);
    for (auto& v : in) v = (int)(rng.next() % 1000) - 500;
    int *din, *dw, *de;
    HIP_CHECK(hipMalloc(&din, n * sizeof(int)));
    HIP_CHECK(hipMalloc(&dw, n / 32 * sizeof(int)));
    HIP_CHECK(hipMalloc(&de, n / 8 * sizeof(int)));
    HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
    tile_sums<<<blocks, threads>>>(din, dw, de);
    std::vector<int> w(n / 32), e(n / 8);
    HIP_CHECK(hipMemcpy(w.data(), dw, w.size() * sizeof(int), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(e.data(), de, e.size() * sizeof(int), hipMemcpyDeviceToHost));
    for (int g = 0; g < n / 32; ++g) {
        int s = 0;
        for (int k = 0; k < 32; ++k) s += in[g * 32 + k];
        CHECK_THAT(w[g] == s, "warp %d sum %d, want %d", g, w[g], s);
    }
    for (int g = 0; g < n / 8; ++g) {
        int s = 0;
        for (int k = 0; k < 8; ++k) s += in[g * 8 + k];
        CHECK_THAT(e[g] == s, "tile %d sum %d, want %d", g, e[g], s);
    }

    // The cooperative grid must fit the device at once.
    int per_cu = 0;
    HIP_CHECK(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, normalise, 256, 0));
    hipDeviceProp_t p;
    HIP_CHECK(hipGetDeviceProperties(&p, 0));
    int grid = std::min(4, per_cu * p.multiProcessorCount);
    CHECK_THAT(grid >= 1, "occupancy %d", per_cu);
    const int m = 10000;
    std::vector<float> x(m);
    for (int i = 0; i < m; ++i) x[i] = (float)(i % 10 + 1);
    float *dx, *dt;
    HIP_CHECK(hipMalloc(&dx, m * sizeof(float)));
    HIP_CHECK(hipMalloc(&dt, sizeof(float)));
    HIP_CHECK(hipMemcpy(dx, x.data(), m * sizeof(float), hipMemcpyHostToDevice));
    for (int round = 0; round < 2; ++round) {
        HIP_CHECK(hipMemset(dt, 0, sizeof(float)));
        int count = m;
        void* args[] = {&dx, &count, &dt};
        HIP_CHECK(hipLaunchCooperativeKernel((const void*)normalise, dim3(grid), dim3(256), args, 0, 0));
        HIP_CHECK(hipDeviceSynchronize());
        float total = 0;
        for (float v : x) total += v;
        HIP_CHECK(hipMemcpy(x.data(), dx, m * sizeof(float), hipMemcpyDeviceToHost));
        float sum = 0;
        for (float v : x) sum += v;
        CHECK_THAT(std::fabs(sum - 1.0f) < 1e-3f, "round %d: normalised sum %f (total %f)", round, sum, total);
    }
    // A grid larger than the device can hold at once is refused.
    int count = m;
    void* args[] = {&dx, &count, &dt};
    hipError_t too_big =
        hipLaunchCooperativeKernel((const void*)normalise, dim3(per_cu * p.multiProcessorCount + 1), dim3(256), args, 0, 0);
    CHECK_THAT(too_big == hipErrorCooperativeLaunchTooLarge, "too large a cooperative grid: %s", hipGetErrorName(too_big));
    HIP_CHECK(hipFree(din));
    HIP_CHECK(hipFree(dw));
    HIP_CHECK(hipFree(de));
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dt));
    std::printf("Validation passed\n");
    return 0;
}
