/* The HIP kernel language's device side under `ferrocm hipcc`: built-in variables, barriers and
 * fences, warp functions, atomics, printf and assert, integer intrinsics. Written for ferrocm
 * from the HIP programming guide; implemented on clang's NVPTX builtins, so the same PTX runs on
 * NVIDIA GPUs (through the driver) and on ferrocm's CPU executor (through its PTX front end).
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef FERROCM_HIP_DEVICE_H
#define FERROCM_HIP_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#define __FD static __device__ __forceinline__

/* ---- built-in variables ---- */

#define __FERROCM_BUILTIN(TYPE, SREG)                                                              \
    struct TYPE {                                                                                  \
        __declspec(property(get = __get_x)) unsigned int x;                                        \
        __declspec(property(get = __get_y)) unsigned int y;                                        \
        __declspec(property(get = __get_z)) unsigned int z;                                        \
        static __device__ __forceinline__ unsigned int __get_x() { return __nvvm_read_ptx_sreg_##SREG##_x(); } \
        static __device__ __forceinline__ unsigned int __get_y() { return __nvvm_read_ptx_sreg_##SREG##_y(); } \
        static __device__ __forceinline__ unsigned int __get_z() { return __nvvm_read_ptx_sreg_##SREG##_z(); } \
        __device__ operator dim3() const { return dim3(__get_x(), __get_y(), __get_z()); }         \
        __device__ operator uint3() const { return uint3(__get_x(), __get_y(), __get_z()); }       \
    }

__FERROCM_BUILTIN(__ferrocm_thread_idx_t, tid);
__FERROCM_BUILTIN(__ferrocm_block_idx_t, ctaid);
__FERROCM_BUILTIN(__ferrocm_block_dim_t, ntid);
__FERROCM_BUILTIN(__ferrocm_grid_dim_t, nctaid);
#undef __FERROCM_BUILTIN

extern const __device__ __ferrocm_thread_idx_t threadIdx;
extern const __device__ __ferrocm_block_idx_t blockIdx;
extern const __device__ __ferrocm_block_dim_t blockDim;
extern const __device__ __ferrocm_grid_dim_t gridDim;

#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

/* NVIDIA's warp is 32 threads; HIP code asks through `warpSize`. */
static constexpr int warpSize = 32;

__FD unsigned int __lane_id() { return __nvvm_read_ptx_sreg_laneid(); }

/* ---- barriers and fences ---- */

/* __syncthreads() is clang's builtin (bar.sync 0). */
__FD void __threadfence_block() { __nvvm_membar_cta(); }
__FD void __threadfence() { __nvvm_membar_gl(); }
__FD void __threadfence_system() { __nvvm_membar_sys(); }
__FD void __syncwarp(unsigned int mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }

/* The counting barriers, on shared memory (the whole block takes part, as with bar.red). */
__FD int __ferrocm_block_rank() {
    return (int)((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
}
__FD int __syncthreads_count(int predicate) {
    __shared__ int count;
    if (__ferrocm_block_rank() == 0) count = 0;
    __syncthreads();
    if (predicate) __nvvm_atom_add_gen_i(&count, 1);
    __syncthreads();
    int result = count;
    __syncthreads();
    return result;
}
__FD int __syncthreads_and(int predicate) {
    return __syncthreads_count(!predicate) == 0;
}
__FD int __syncthreads_or(int predicate) {
    return __syncthreads_count(predicate) != 0;
}

/* ---- warp functions ---- */

__FD unsigned int __activemask() { return __nvvm_activemask(); }

/* shfl's c operand: the clamp lane, and the segment mask for widths below the warp. */
#define __FERROCM_SHFL_C(width) ((unsigned)((32 - (width)) << 8) | 0x1fu)
#define __FERROCM_SHFL_UP_C(width) ((unsigned)((32 - (width)) << 8))

__FD int __shfl_sync(unsigned mask, int v, int src, int width = 32) {
    return __nvvm_shfl_sync_idx_i32(mask, v, src, __FERROCM_SHFL_C(width));
}
__FD int __shfl_up_sync(unsigned mask, int v, unsigned d, int width = 32) {
    return __nvvm_shfl_sync_up_i32(mask, v, d, __FERROCM_SHFL_UP_C(width));
}
__FD int __shfl_down_sync(unsigned mask, int v, unsigned d, int width = 32) {
    return __nvvm_shfl_sync_down_i32(mask, v, d, __FERROCM_SHFL_C(width));
}
__FD int __shfl_xor_sync(unsigned mask, int v, int lm, int width = 32) {
    return __nvvm_shfl_sync_bfly_i32(mask, v, lm, __FERROCM_SHFL_C(width));
}
__FD float __shfl_sync(unsigned mask, float v, int src, int width = 32) {
    return __nvvm_shfl_sync_idx_f32(mask, v, src, __FERROCM_SHFL_C(width));
}
__FD float __shfl_up_sync(unsigned mask, float v, unsigned d, int width = 32) {
    return __nvvm_shfl_sync_up_f32(mask, v, d, __FERROCM_SHFL_UP_C(width));
}
__FD float __shfl_down_sync(unsigned mask, float v, unsigned d, int width = 32) {
    return __nvvm_shfl_sync_down_f32(mask, v, d, __FERROCM_SHFL_C(width));
}
__FD float __shfl_xor_sync(unsigned mask, float v, int lm, int width = 32) {
    return __nvvm_shfl_sync_bfly_f32(mask, v, lm, __FERROCM_SHFL_C(width));
}
__FD unsigned __shfl_sync(unsigned mask, unsigned v, int src, int width = 32) {
    return (unsigned)__shfl_sync(mask, (int)v, src, width);
}
__FD unsigned __shfl_up_sync(unsigned mask, unsigned v, unsigned d, int width = 32) {
    return (unsigned)__shfl_up_sync(mask, (int)v, d, width);
}
__FD unsigned __shfl_down_sync(unsigned mask, unsigned v, unsigned d, int width = 32) {
    return (unsigned)__shfl_down_sync(mask, (int)v, d, width);
}
__FD unsigned __shfl_xor_sync(unsigned mask, unsigned v, int lm, int width = 32) {
    return (unsigned)__shfl_xor_sync(mask, (int)v, lm, width);
}
/* 64-bit values travel as two 32-bit halves. */
#define __FERROCM_SHFL64(NAME, T, LT)                                                      \
    __FD T NAME(unsigned mask, T v, LT s, int width = 32) {                                \
        unsigned long long bits = __builtin_bit_cast(unsigned long long, v);               \
        int lo = NAME(mask, (int)(unsigned)bits, s, width);                                \
        int hi = NAME(mask, (int)(unsigned)(bits >> 32), s, width);                        \
        return __builtin_bit_cast(T, ((unsigned long long)(unsigned)hi << 32) | (unsigned)lo); \
    }
__FERROCM_SHFL64(__shfl_sync, double, int)
__FERROCM_SHFL64(__shfl_sync, long long, int)
__FERROCM_SHFL64(__shfl_sync, unsigned long long, int)
__FERROCM_SHFL64(__shfl_sync, long, int)
__FERROCM_SHFL64(__shfl_sync, unsigned long, int)
__FERROCM_SHFL64(__shfl_up_sync, double, unsigned)
__FERROCM_SHFL64(__shfl_up_sync, long long, unsigned)
__FERROCM_SHFL64(__shfl_up_sync, unsigned long long, unsigned)
__FERROCM_SHFL64(__shfl_up_sync, long, unsigned)
__FERROCM_SHFL64(__shfl_up_sync, unsigned long, unsigned)
__FERROCM_SHFL64(__shfl_down_sync, double, unsigned)
__FERROCM_SHFL64(__shfl_down_sync, long long, unsigned)
__FERROCM_SHFL64(__shfl_down_sync, unsigned long long, unsigned)
__FERROCM_SHFL64(__shfl_down_sync, long, unsigned)
__FERROCM_SHFL64(__shfl_down_sync, unsigned long, unsigned)
__FERROCM_SHFL64(__shfl_xor_sync, double, int)
__FERROCM_SHFL64(__shfl_xor_sync, long long, int)
__FERROCM_SHFL64(__shfl_xor_sync, unsigned long long, int)
__FERROCM_SHFL64(__shfl_xor_sync, long, int)
__FERROCM_SHFL64(__shfl_xor_sync, unsigned long, int)
#undef __FERROCM_SHFL64

/* HIP's shuffles without a mask: the whole warp takes part. */
template <class T>
__FD T __shfl(T v, int src, int width = 32) { return __shfl_sync(0xffffffffu, v, src, width); }
template <class T>
__FD T __shfl_up(T v, unsigned d, int width = 32) { return __shfl_up_sync(0xffffffffu, v, d, width); }
template <class T>
__FD T __shfl_down(T v, unsigned d, int width = 32) { return __shfl_down_sync(0xffffffffu, v, d, width); }
template <class T>
__FD T __shfl_xor(T v, int lm, int width = 32) { return __shfl_xor_sync(0xffffffffu, v, lm, width); }

__FD unsigned __ballot_sync(unsigned mask, int p) { return __nvvm_vote_ballot_sync(mask, p != 0); }
__FD int __any_sync(unsigned mask, int p) { return __nvvm_vote_any_sync(mask, p != 0); }
__FD int __all_sync(unsigned mask, int p) { return __nvvm_vote_all_sync(mask, p != 0); }
__FD int __uni_sync(unsigned mask, int p) { return __nvvm_vote_uni_sync(mask, p != 0); }
/* HIP's votes: a 64-bit ballot (a wavefront may have 64 lanes on AMD; here the high half is 0). */
__FD unsigned long long __ballot(int p) { return __nvvm_vote_ballot_sync(__nvvm_activemask(), p != 0); }
__FD int __any(int p) { return __nvvm_vote_any_sync(__nvvm_activemask(), p != 0); }
__FD int __all(int p) { return __nvvm_vote_all_sync(__nvvm_activemask(), p != 0); }

/* ---- integer intrinsics ---- */

__FD int __popc(unsigned int x) { return __builtin_popcount(x); }
__FD int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__FD int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
__FD int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
__FD int __ffs(int x) { return __builtin_ffs(x); }
__FD int __ffsll(long long x) { return __builtin_ffsll(x); }
__FD unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
__FD unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
__FD int __mul24(int x, int y) { return ((x << 8) >> 8) * ((y << 8) >> 8); }
__FD unsigned __umul24(unsigned x, unsigned y) { return (x & 0xffffffu) * (y & 0xffffffu); }
__FD int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
__FD unsigned __umulhi(unsigned x, unsigned y) { return (unsigned)(((unsigned long long)x * y) >> 32); }
__FD long long __mul64hi(long long x, long long y) { return (long long)(((__int128)x * y) >> 64); }
__FD unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
    return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
__FD unsigned __sad(int x, int y, unsigned z) { return z + (unsigned)(x > y ? x - y : y - x); }
__FD unsigned __usad(unsigned x, unsigned y, unsigned z) { return z + (x > y ? x - y : y - x); }
__FD unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    unsigned long long v = ((unsigned long long)y << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}
__FD unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)((v << (s & 31)) >> 32);
}
__FD unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)(v >> (s & 31));
}
__FD int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__FD unsigned __float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
__FD float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__FD float __uint_as_float(unsigned x) { return __builtin_bit_cast(float, x); }
__FD long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
__FD double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__FD int __double2hiint(double x) { return (int)(__builtin_bit_cast(unsigned long long, x) >> 32); }
__FD int __double2loint(double x) { return (int)__builtin_bit_cast(unsigned long long, x); }
__FD double __hiloint2double(int hi, int lo) {
    return __builtin_bit_cast(double, ((unsigned long long)(unsigned)hi << 32) | (unsigned)lo);
}
__FD int __float2int_rn(float x) { return (int)__builtin_rintf(x); }
__FD int __float2int_rz(float x) { return (int)x; }
__FD int __float2int_rd(float x) { return (int)__builtin_floorf(x); }
__FD int __float2int_ru(float x) { return (int)__builtin_ceilf(x); }
__FD unsigned __float2uint_rn(float x) { return (unsigned)__builtin_rintf(x); }
__FD unsigned __float2uint_rz(float x) { return (unsigned)x; }
__FD long long __float2ll_rn(float x) { return (long long)__builtin_rintf(x); }
__FD long long __float2ll_rz(float x) { return (long long)x; }
__FD float __int2float_rn(int x) { return (float)x; }
__FD float __uint2float_rn(unsigned x) { return (float)x; }
__FD float __ll2float_rn(long long x) { return (float)x; }
__FD int __double2int_rn(double x) { return (int)__builtin_rint(x); }
__FD int __double2int_rz(double x) { return (int)x; }
__FD float __double2float_rn(double x) { return (float)x; }
__FD double __int2double_rn(int x) { return (double)x; }

/* min and max for every arithmetic type, on both sides (HIP has them on the host too). */
#define __FERROCM_MINMAX(T)                                                        \
    static __host__ __device__ __forceinline__ T min(T a, T b) { return a < b ? a : b; } \
    static __host__ __device__ __forceinline__ T max(T a, T b) { return a > b ? a : b; }
__FERROCM_MINMAX(int)
__FERROCM_MINMAX(unsigned int)
__FERROCM_MINMAX(long)
__FERROCM_MINMAX(unsigned long)
__FERROCM_MINMAX(long long)
__FERROCM_MINMAX(unsigned long long)
__FERROCM_MINMAX(float)
__FERROCM_MINMAX(double)
#undef __FERROCM_MINMAX
static __host__ __device__ __forceinline__ unsigned int min(int a, unsigned int b) { return min((unsigned)a, b); }
static __host__ __device__ __forceinline__ unsigned int min(unsigned int a, int b) { return min(a, (unsigned)b); }
static __host__ __device__ __forceinline__ unsigned int max(int a, unsigned int b) { return max((unsigned)a, b); }
static __host__ __device__ __forceinline__ unsigned int max(unsigned int a, int b) { return max(a, (unsigned)b); }

/* ---- atomics ---- */

#define __FERROCM_ATOMIC_INT(NAME, OP)                                                                      \
    __FD int NAME(int* p, int v) { return __nvvm_atom_##OP##_gen_i(p, v); }                                  \
    __FD unsigned int NAME(unsigned int* p, unsigned int v) {                                               \
        return (unsigned int)__nvvm_atom_##OP##_gen_i((int*)p, (int)v);                                     \
    }                                                                                                       \
    __FD unsigned long long NAME(unsigned long long* p, unsigned long long v) {                             \
        return (unsigned long long)__nvvm_atom_##OP##_gen_ll((long long*)p, (long long)v);                  \
    }                                                                                                       \
    __FD long long NAME(long long* p, long long v) { return __nvvm_atom_##OP##_gen_ll(p, v); }
__FERROCM_ATOMIC_INT(atomicAdd, add)
__FERROCM_ATOMIC_INT(atomicAnd, and)
__FERROCM_ATOMIC_INT(atomicOr, or)
__FERROCM_ATOMIC_INT(atomicXor, xor)
__FERROCM_ATOMIC_INT(atomicExch, xchg)
#undef __FERROCM_ATOMIC_INT
__FD float atomicAdd(float* p, float v) { return __nvvm_atom_add_gen_f(p, v); }
__FD double atomicAdd(double* p, double v) { return __nvvm_atom_add_gen_d(p, v); }
__FD int atomicSub(int* p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
__FD unsigned int atomicSub(unsigned int* p, unsigned int v) {
    return (unsigned int)__nvvm_atom_add_gen_i((int*)p, -(int)v);
}
__FD float atomicExch(float* p, float v) {
    return __builtin_bit_cast(float, __nvvm_atom_xchg_gen_i((int*)p, __builtin_bit_cast(int, v)));
}
__FD double atomicExch(double* p, double v) {
    return __builtin_bit_cast(double, __nvvm_atom_xchg_gen_ll((long long*)p, __builtin_bit_cast(long long, v)));
}
__FD int atomicMin(int* p, int v) { return __nvvm_atom_min_gen_i(p, v); }
__FD unsigned int atomicMin(unsigned int* p, unsigned int v) { return __nvvm_atom_min_gen_ui(p, v); }
__FD long long atomicMin(long long* p, long long v) { return __nvvm_atom_min_gen_ll(p, v); }
__FD unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
    return __nvvm_atom_min_gen_ull(p, v);
}
__FD int atomicMax(int* p, int v) { return __nvvm_atom_max_gen_i(p, v); }
__FD unsigned int atomicMax(unsigned int* p, unsigned int v) { return __nvvm_atom_max_gen_ui(p, v); }
__FD long long atomicMax(long long* p, long long v) { return __nvvm_atom_max_gen_ll(p, v); }
__FD unsigned long long atomicMax(unsigned long long* p, unsigned long long v) {
    return __nvvm_atom_max_gen_ull(p, v);
}
__FD int atomicCAS(int* p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }
__FD unsigned int atomicCAS(unsigned int* p, unsigned int cmp, unsigned int v) {
    return (unsigned int)__nvvm_atom_cas_gen_i((int*)p, (int)cmp, (int)v);
}
__FD long long atomicCAS(long long* p, long long cmp, long long v) { return __nvvm_atom_cas_gen_ll(p, cmp, v); }
__FD unsigned long long atomicCAS(unsigned long long* p, unsigned long long cmp, unsigned long long v) {
    return (unsigned long long)__nvvm_atom_cas_gen_ll((long long*)p, (long long)cmp, (long long)v);
}
/* The read-modify-writes PTX has no single instruction for here, as compare-and-swap loops. */
#define __FERROCM_CAS_LOOP(T, BITS_T, EXPR)                                       \
    BITS_T* bp = (BITS_T*)p;                                                      \
    BITS_T old = *(volatile BITS_T*)bp, assumed;                                  \
    do {                                                                          \
        assumed = old;                                                            \
        T cur = __builtin_bit_cast(T, assumed);                                   \
        T next = (EXPR);                                                          \
        old = atomicCAS(bp, assumed, __builtin_bit_cast(BITS_T, next));           \
    } while (assumed != old);                                                     \
    return __builtin_bit_cast(T, old);
__FD unsigned int atomicInc(unsigned int* p, unsigned int limit) {
    __FERROCM_CAS_LOOP(unsigned int, unsigned int, cur >= limit ? 0u : cur + 1u)
}
__FD unsigned int atomicDec(unsigned int* p, unsigned int limit) {
    __FERROCM_CAS_LOOP(unsigned int, unsigned int, (cur == 0u || cur > limit) ? limit : cur - 1u)
}
__FD float atomicMin(float* p, float v) { __FERROCM_CAS_LOOP(float, unsigned int, cur < v ? cur : v) }
__FD float atomicMax(float* p, float v) { __FERROCM_CAS_LOOP(float, unsigned int, cur > v ? cur : v) }
__FD double atomicMin(double* p, double v) { __FERROCM_CAS_LOOP(double, unsigned long long, cur < v ? cur : v) }
__FD double atomicMax(double* p, double v) { __FERROCM_CAS_LOOP(double, unsigned long long, cur > v ? cur : v) }
__FD double atomicSub(double* p, double v) { return atomicAdd(p, -v); }
__FD float atomicSub(float* p, float v) { return atomicAdd(p, -v); }
#undef __FERROCM_CAS_LOOP
/* The scoped forms: one device here, so system and block scope are device scope. */
#define atomicAdd_system atomicAdd
#define atomicCAS_system atomicCAS
#define atomicExch_system atomicExch
#define atomicAdd_block atomicAdd
#define atomicCAS_block atomicCAS
#define unsafeAtomicAdd atomicAdd
#define safeAtomicAdd atomicAdd

/* ---- memory helpers ---- */

template <class T>
__FD T __ldg(const T* p) { return *p; }
__FD void* __ferrocm_device_memcpy(void* d, const void* s, size_t n) { return __builtin_memcpy(d, s, n); }

/* ---- printf and assert (PTX system calls) ---- */

extern "C" {
__device__ int vprintf(const char*, const char*);
__device__ int printf(const char*, ...);
__device__ void __assertfail(const char* message, const char* file, unsigned line, const char* function,
                             size_t charSize);
__device__ static inline void __assert_fail(const char* message, const char* file, unsigned line,
                                            const char* function) {
    __assertfail(message, file, line, function, sizeof(char));
}
}
__FD void abort() { __builtin_trap(); }
__FD void __trap() { __builtin_trap(); }

/* ---- timers ---- */

__FD long long clock64() { return __nvvm_read_ptx_sreg_clock64(); }
__FD long long wall_clock64() { return __nvvm_read_ptx_sreg_globaltimer(); }
__FD int clock() { return (int)__nvvm_read_ptx_sreg_clock(); }
__FD void __nanosleep(unsigned ns) { __nvvm_nanosleep(ns); }

#undef __FD
#endif /* FERROCM_HIP_DEVICE_H */
