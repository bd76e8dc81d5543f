/* Cooperative groups for ferrocm's HIP: thread blocks, tiles of a warp (static size, with
 * shuffles, votes and reductions), and the grid of a cooperative launch with a grid-wide
 * barrier. Written for ferrocm from the HIP programming guide.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef FERROCM_HIP_COOPERATIVE_GROUPS_H
#define FERROCM_HIP_COOPERATIVE_GROUPS_H

#include "hip/hip_runtime.h"

#if defined(__FERROCM_KERNEL_LANGUAGE__)

/* The grid barrier's word: its top bit flips each time every block has arrived, so it needs no
 * reset between barriers or launches (cooperative launches of one program run one at a time). */
static __device__ unsigned int __ferrocm_grid_barrier;

namespace cooperative_groups {

namespace __detail {
static __device__ __forceinline__ unsigned int block_rank() {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
static __device__ __forceinline__ unsigned int block_size() { return blockDim.x * blockDim.y * blockDim.z; }
}  // namespace __detail

/* Every thread of the block. */
class thread_block {
  public:
    __device__ void sync() const { __syncthreads(); }
    __device__ unsigned int thread_rank() const { return __detail::block_rank(); }
    __device__ unsigned int size() const { return __detail::block_size(); }
    __device__ unsigned int num_threads() const { return __detail::block_size(); }
    __device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    __device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    __device__ dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    __device__ dim3 dim_threads() const { return group_dim(); }
    __device__ bool is_valid() const { return true; }
};

static __device__ __forceinline__ thread_block this_thread_block() { return thread_block(); }

/* `Size` consecutive threads of a warp (1, 2, 4, 8, 16 or 32). */
template <unsigned int Size>
class thread_block_tile {
    static_assert(Size > 0 && Size <= 32 && (Size & (Size - 1)) == 0,
                  "a tile has 1, 2, 4, 8, 16 or 32 threads");

  public:
    __device__ unsigned int mask() const {
        if (Size == 32) return 0xffffffffu;
        return ((1u << Size) - 1u) << (__lane_id() & ~(Size - 1u));
    }
    __device__ void sync() const { __syncwarp(mask()); }
    __device__ unsigned int thread_rank() const { return __detail::block_rank() & (Size - 1); }
    __device__ unsigned int size() const { return Size; }
    __device__ unsigned int num_threads() const { return Size; }
    __device__ unsigned int meta_group_rank() const { return __detail::block_rank() / Size; }
    __device__ unsigned int meta_group_size() const { return (__detail::block_size() + Size - 1) / Size; }
    __device__ bool is_valid() const { return true; }

    template <class T>
    __device__ T shfl(T v, int src) const { return __shfl_sync(mask(), v, src, Size); }
    template <class T>
    __device__ T shfl_down(T v, unsigned int d) const { return __shfl_down_sync(mask(), v, d, Size); }
    template <class T>
    __device__ T shfl_up(T v, unsigned int d) const { return __shfl_up_sync(mask(), v, d, Size); }
    template <class T>
    __device__ T shfl_xor(T v, int lm) const { return __shfl_xor_sync(mask(), v, lm, Size); }

    __device__ unsigned int ballot(int p) const {
        return (__ballot_sync(mask(), p) >> (__lane_id() & ~(Size - 1u))) & (Size == 32 ? 0xffffffffu : ((1u << Size) - 1u));
    }
    __device__ int any(int p) const { return ballot(p) != 0; }
    __device__ int all(int p) const { return ballot(p) == (Size == 32 ? 0xffffffffu : ((1u << Size) - 1u)); }
};

template <unsigned int Size, class Parent>
static __device__ __forceinline__ thread_block_tile<Size> tiled_partition(const Parent&) {
    return thread_block_tile<Size>();
}

/* Every thread of the grid; `sync()` needs a cooperative launch (hipLaunchCooperativeKernel). */
class grid_group {
  public:
    __device__ void sync() const {
        unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
        __syncthreads();
        if (__detail::block_rank() == 0) {
            bool master = blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;
            unsigned int add = master ? (0x80000000u - (blocks - 1u)) : 1u;
            __threadfence();
            unsigned int old = atomicAdd(&__ferrocm_grid_barrier, add);
            while (((old ^ *(volatile unsigned int*)&__ferrocm_grid_barrier) & 0x80000000u) == 0) {
                __nanosleep(64);
            }
            __threadfence();
        }
        __syncthreads();
    }
    __device__ unsigned long long thread_rank() const {
        unsigned long long block = (blockIdx.z * (unsigned long long)gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
        return block * __detail::block_size() + __detail::block_rank();
    }
    __device__ unsigned long long size() const {
        return (unsigned long long)gridDim.x * gridDim.y * gridDim.z * __detail::block_size();
    }
    __device__ unsigned long long num_threads() const { return size(); }
    __device__ dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
    __device__ bool is_valid() const { return true; }
};

static __device__ __forceinline__ grid_group this_grid() { return grid_group(); }

/* Reductions over a tile: `reduce(tile, value, plus<T>())`. */
template <class T>
struct plus {
    __device__ T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
    __device__ T operator()(T a, T b) const { return a < b ? a : b; }
};
template <class T>
struct greater {
    __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

template <unsigned int Size, class T, class Op>
static __device__ __forceinline__ T reduce(const thread_block_tile<Size>& tile, T value, Op op) {
    for (unsigned int d = Size / 2; d > 0; d /= 2) value = op(value, tile.shfl_xor(value, d));
    return value;
}

template <class Group>
static __device__ __forceinline__ void sync(const Group& g) { g.sync(); }

}  // namespace cooperative_groups

#endif /* __FERROCM_KERNEL_LANGUAGE__ */
#endif /* FERROCM_HIP_COOPERATIVE_GROUPS_H */
