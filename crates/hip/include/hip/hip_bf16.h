/* bfloat16 for ferrocm's HIP: `__hip_bfloat16` holds the bits; conversions round to nearest
 * even (NaN stays NaN) and arithmetic happens in float, identically on the host, the GPU and
 * the CPU executor.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef FERROCM_HIP_BF16_H
#define FERROCM_HIP_BF16_H

#include "hip/hip_runtime.h"

#define __FERROCM_B static __host__ __device__ __forceinline__

typedef struct __hip_bfloat16 {
    unsigned short data;
} __hip_bfloat16;
typedef struct __attribute__((aligned(4))) __hip_bfloat162 {
    __hip_bfloat16 x, y;
} __hip_bfloat162;

__FERROCM_B float __bfloat162float(__hip_bfloat16 b) {
    return __builtin_bit_cast(float, (unsigned int)b.data << 16);
}
__FERROCM_B __hip_bfloat16 __float2bfloat16(float f) {
    unsigned int u = __builtin_bit_cast(unsigned int, f);
    __hip_bfloat16 r;
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        r.data = (unsigned short)((u >> 16) | 0x40u);
    } else {
        u += 0x7fffu + ((u >> 16) & 1u);
        r.data = (unsigned short)(u >> 16);
    }
    return r;
}
__FERROCM_B __hip_bfloat16 __float2bfloat16_rn(float f) { return __float2bfloat16(f); }
__FERROCM_B __hip_bfloat16 __double2bfloat16(double d) { return __float2bfloat16((float)d); }
__FERROCM_B unsigned short __bfloat16_as_ushort(__hip_bfloat16 b) { return b.data; }
__FERROCM_B __hip_bfloat16 __ushort_as_bfloat16(unsigned short u) { __hip_bfloat16 r; r.data = u; return r; }

#define __FERROCM_BF_OP(NAME, OP)                                                        \
    __FERROCM_B __hip_bfloat16 NAME(__hip_bfloat16 a, __hip_bfloat16 b) {               \
        return __float2bfloat16(__bfloat162float(a) OP __bfloat162float(b));             \
    }
__FERROCM_BF_OP(__hadd, +)
__FERROCM_BF_OP(__hsub, -)
__FERROCM_BF_OP(__hmul, *)
__FERROCM_BF_OP(__hdiv, /)
#undef __FERROCM_BF_OP
__FERROCM_B __hip_bfloat16 __hfma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
    return __float2bfloat16(__bfloat162float(a) * __bfloat162float(b) + __bfloat162float(c));
}
__FERROCM_B bool __heq(__hip_bfloat16 a, __hip_bfloat16 b) { return __bfloat162float(a) == __bfloat162float(b); }
__FERROCM_B bool __hlt(__hip_bfloat16 a, __hip_bfloat16 b) { return __bfloat162float(a) < __bfloat162float(b); }
__FERROCM_B bool __hgt(__hip_bfloat16 a, __hip_bfloat16 b) { return __bfloat162float(a) > __bfloat162float(b); }

#ifdef __cplusplus
__FERROCM_B __hip_bfloat16 operator+(__hip_bfloat16 a, __hip_bfloat16 b) { return __hadd(a, b); }
__FERROCM_B __hip_bfloat16 operator-(__hip_bfloat16 a, __hip_bfloat16 b) { return __hsub(a, b); }
__FERROCM_B __hip_bfloat16 operator*(__hip_bfloat16 a, __hip_bfloat16 b) { return __hmul(a, b); }
__FERROCM_B __hip_bfloat16 operator/(__hip_bfloat16 a, __hip_bfloat16 b) { return __hdiv(a, b); }
__FERROCM_B bool operator==(__hip_bfloat16 a, __hip_bfloat16 b) { return __heq(a, b); }
__FERROCM_B bool operator<(__hip_bfloat16 a, __hip_bfloat16 b) { return __hlt(a, b); }
__FERROCM_B bool operator>(__hip_bfloat16 a, __hip_bfloat16 b) { return __hgt(a, b); }
#endif

#undef __FERROCM_B
#endif /* FERROCM_HIP_BF16_H */
