/* Half precision for ferrocm's HIP: `__half` is the compiler's `_Float16` (native f16 arithmetic
 * on the GPU, exact conversions on the host), with HIP's conversion and arithmetic functions and
 * the two-element `__half2`.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef FERROCM_HIP_FP16_H
#define FERROCM_HIP_FP16_H

#include "hip/hip_runtime.h"

typedef _Float16 __half;
typedef __half half;
typedef struct __half_raw {
    unsigned short x;
} __half_raw;

typedef struct __attribute__((aligned(4))) __half2 {
    __half x, y;
} __half2;
typedef __half2 half2;

#define __FERROCM_H static __host__ __device__ __forceinline__

__FERROCM_H __half __float2half(float f) { return (__half)f; }
__FERROCM_H __half __float2half_rn(float f) { return (__half)f; }
__FERROCM_H float __half2float(__half h) { return (float)h; }
__FERROCM_H __half __double2half(double d) { return (__half)(float)d; }
__FERROCM_H __half __int2half_rn(int i) { return (__half)(float)i; }
__FERROCM_H int __half2int_rz(__half h) { return (int)(float)h; }
__FERROCM_H unsigned short __half_as_ushort(__half h) { return __builtin_bit_cast(unsigned short, h); }
__FERROCM_H __half __ushort_as_half(unsigned short u) { return __builtin_bit_cast(__half, u); }
__FERROCM_H short __half_as_short(__half h) { return __builtin_bit_cast(short, h); }
__FERROCM_H __half __short_as_half(short s) { return __builtin_bit_cast(__half, s); }

__FERROCM_H __half __hadd(__half a, __half b) { return a + b; }
__FERROCM_H __half __hsub(__half a, __half b) { return a - b; }
__FERROCM_H __half __hmul(__half a, __half b) { return a * b; }
__FERROCM_H __half __hdiv(__half a, __half b) { return a / b; }
__FERROCM_H __half __hneg(__half a) { return -a; }
__FERROCM_H __half __habs(__half a) { return a < (__half)0 ? -a : a; }
__FERROCM_H __half __hfma(__half a, __half b, __half c) { return (__half)((float)a * (float)b + (float)c); }
__FERROCM_H __half __hmax(__half a, __half b) { return a > b ? a : b; }
__FERROCM_H __half __hmin(__half a, __half b) { return a < b ? a : b; }
__FERROCM_H bool __heq(__half a, __half b) { return a == b; }
__FERROCM_H bool __hne(__half a, __half b) { return a != b; }
__FERROCM_H bool __hlt(__half a, __half b) { return a < b; }
__FERROCM_H bool __hle(__half a, __half b) { return a <= b; }
__FERROCM_H bool __hgt(__half a, __half b) { return a > b; }
__FERROCM_H bool __hge(__half a, __half b) { return a >= b; }
__FERROCM_H bool __hisnan(__half a) { return a != a; }
__FERROCM_H bool __hisinf(__half a) { return a == (__half)__builtin_inff() || a == (__half)(-__builtin_inff()); }

__FERROCM_H __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
__FERROCM_H __half2 __half2half2(__half a) { return __half2{a, a}; }
__FERROCM_H __half2 __float2half2_rn(float f) { return __half2{(__half)f, (__half)f}; }
__FERROCM_H __half2 __floats2half2_rn(float a, float b) { return __half2{(__half)a, (__half)b}; }
__FERROCM_H float2 __half22float2(__half2 h) { return make_float2((float)h.x, (float)h.y); }
__FERROCM_H __half2 __float22half2_rn(float2 f) { return __half2{(__half)f.x, (__half)f.y}; }
__FERROCM_H __half __low2half(__half2 h) { return h.x; }
__FERROCM_H __half __high2half(__half2 h) { return h.y; }
__FERROCM_H float __low2float(__half2 h) { return (float)h.x; }
__FERROCM_H float __high2float(__half2 h) { return (float)h.y; }
__FERROCM_H __half2 __hadd2(__half2 a, __half2 b) { return __half2{a.x + b.x, a.y + b.y}; }
__FERROCM_H __half2 __hsub2(__half2 a, __half2 b) { return __half2{a.x - b.x, a.y - b.y}; }
__FERROCM_H __half2 __hmul2(__half2 a, __half2 b) { return __half2{a.x * b.x, a.y * b.y}; }
__FERROCM_H __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }

#if defined(__FERROCM_KERNEL_LANGUAGE__)
static __device__ __forceinline__ __half hsqrt(__half a) { return (__half)sqrtf((float)a); }
static __device__ __forceinline__ __half hexp(__half a) { return (__half)expf((float)a); }
static __device__ __forceinline__ __half hlog(__half a) { return (__half)logf((float)a); }
static __device__ __forceinline__ __half hsin(__half a) { return (__half)sinf((float)a); }
static __device__ __forceinline__ __half hcos(__half a) { return (__half)cosf((float)a); }
#endif

#undef __FERROCM_H
#endif /* FERROCM_HIP_FP16_H */
