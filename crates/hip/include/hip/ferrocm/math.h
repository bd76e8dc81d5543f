/* Device math: the C and C++ math library on the device, on libclc's implementations (linked
 * into the device code by `ferrocm hipcc`; Apache-2.0 with LLVM exception), plus HIP's
 * intrinsics. Included by hip_runtime.h in the kernel language only.
 * The approximate intrinsics (__expf, __sinf, ...) use the accurate functions, so results
 * match between the GPU and the CPU executor.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef FERROCM_HIP_MATH_H
#define FERROCM_HIP_MATH_H
#include <math.h>
#define __FD static __device__ __forceinline__
#define __FHD static __host__ __device__ __forceinline__

/* libclc's entry points, under their OpenCL (C++-mangled) names. */
extern "C" {
__device__ float __ferrocm_clc_sinf(float) __asm__("_Z3sinf");
__device__ double __ferrocm_clc_sin(double) __asm__("_Z3sind");
__device__ float __ferrocm_clc_cosf(float) __asm__("_Z3cosf");
__device__ double __ferrocm_clc_cos(double) __asm__("_Z3cosd");
__device__ float __ferrocm_clc_tanf(float) __asm__("_Z3tanf");
__device__ double __ferrocm_clc_tan(double) __asm__("_Z3tand");
__device__ float __ferrocm_clc_asinf(float) __asm__("_Z4asinf");
__device__ double __ferrocm_clc_asin(double) __asm__("_Z4asind");
__device__ float __ferrocm_clc_acosf(float) __asm__("_Z4acosf");
__device__ double __ferrocm_clc_acos(double) __asm__("_Z4acosd");
__device__ float __ferrocm_clc_atanf(float) __asm__("_Z4atanf");
__device__ double __ferrocm_clc_atan(double) __asm__("_Z4atand");
__device__ float __ferrocm_clc_sinhf(float) __asm__("_Z4sinhf");
__device__ double __ferrocm_clc_sinh(double) __asm__("_Z4sinhd");
__device__ float __ferrocm_clc_coshf(float) __asm__("_Z4coshf");
__device__ double __ferrocm_clc_cosh(double) __asm__("_Z4coshd");
__device__ float __ferrocm_clc_tanhf(float) __asm__("_Z4tanhf");
__device__ double __ferrocm_clc_tanh(double) __asm__("_Z4tanhd");
__device__ float __ferrocm_clc_asinhf(float) __asm__("_Z5asinhf");
__device__ double __ferrocm_clc_asinh(double) __asm__("_Z5asinhd");
__device__ float __ferrocm_clc_acoshf(float) __asm__("_Z5acoshf");
__device__ double __ferrocm_clc_acosh(double) __asm__("_Z5acoshd");
__device__ float __ferrocm_clc_atanhf(float) __asm__("_Z5atanhf");
__device__ double __ferrocm_clc_atanh(double) __asm__("_Z5atanhd");
__device__ float __ferrocm_clc_expf(float) __asm__("_Z3expf");
__device__ double __ferrocm_clc_exp(double) __asm__("_Z3expd");
__device__ float __ferrocm_clc_exp2f(float) __asm__("_Z4exp2f");
__device__ double __ferrocm_clc_exp2(double) __asm__("_Z4exp2d");
__device__ float __ferrocm_clc_exp10f(float) __asm__("_Z5exp10f");
__device__ double __ferrocm_clc_exp10(double) __asm__("_Z5exp10d");
__device__ float __ferrocm_clc_expm1f(float) __asm__("_Z5expm1f");
__device__ double __ferrocm_clc_expm1(double) __asm__("_Z5expm1d");
__device__ float __ferrocm_clc_logf(float) __asm__("_Z3logf");
__device__ double __ferrocm_clc_log(double) __asm__("_Z3logd");
__device__ float __ferrocm_clc_log2f(float) __asm__("_Z4log2f");
__device__ double __ferrocm_clc_log2(double) __asm__("_Z4log2d");
__device__ float __ferrocm_clc_log10f(float) __asm__("_Z5log10f");
__device__ double __ferrocm_clc_log10(double) __asm__("_Z5log10d");
__device__ float __ferrocm_clc_log1pf(float) __asm__("_Z5log1pf");
__device__ double __ferrocm_clc_log1p(double) __asm__("_Z5log1pd");
__device__ float __ferrocm_clc_cbrtf(float) __asm__("_Z4cbrtf");
__device__ double __ferrocm_clc_cbrt(double) __asm__("_Z4cbrtd");
__device__ float __ferrocm_clc_erff(float) __asm__("_Z3erff");
__device__ double __ferrocm_clc_erf(double) __asm__("_Z3erfd");
__device__ float __ferrocm_clc_erfcf(float) __asm__("_Z4erfcf");
__device__ double __ferrocm_clc_erfc(double) __asm__("_Z4erfcd");
__device__ float __ferrocm_clc_lgammaf(float) __asm__("_Z6lgammaf");
__device__ double __ferrocm_clc_lgamma(double) __asm__("_Z6lgammad");
__device__ float __ferrocm_clc_tgammaf(float) __asm__("_Z6tgammaf");
__device__ double __ferrocm_clc_tgamma(double) __asm__("_Z6tgammad");
__device__ float __ferrocm_clc_rintf(float) __asm__("_Z4rintf");
__device__ double __ferrocm_clc_rint(double) __asm__("_Z4rintd");
__device__ float __ferrocm_clc_roundf(float) __asm__("_Z5roundf");
__device__ double __ferrocm_clc_round(double) __asm__("_Z5roundd");
__device__ float __ferrocm_clc_truncf(float) __asm__("_Z5truncf");
__device__ double __ferrocm_clc_trunc(double) __asm__("_Z5truncd");
__device__ float __ferrocm_clc_floorf(float) __asm__("_Z5floorf");
__device__ double __ferrocm_clc_floor(double) __asm__("_Z5floord");
__device__ float __ferrocm_clc_ceilf(float) __asm__("_Z4ceilf");
__device__ double __ferrocm_clc_ceil(double) __asm__("_Z4ceild");
__device__ float __ferrocm_clc_logbf(float) __asm__("_Z4logbf");
__device__ double __ferrocm_clc_logb(double) __asm__("_Z4logbd");
__device__ float __ferrocm_clc_sinpif(float) __asm__("_Z5sinpif");
__device__ double __ferrocm_clc_sinpi(double) __asm__("_Z5sinpid");
__device__ float __ferrocm_clc_cospif(float) __asm__("_Z5cospif");
__device__ double __ferrocm_clc_cospi(double) __asm__("_Z5cospid");
__device__ float __ferrocm_clc_rsqrtf(float) __asm__("_Z5rsqrtf");
__device__ double __ferrocm_clc_rsqrt(double) __asm__("_Z5rsqrtd");
__device__ float __ferrocm_clc_powf(float, float) __asm__("_Z3powff");
__device__ double __ferrocm_clc_pow(double, double) __asm__("_Z3powdd");
__device__ float __ferrocm_clc_atan2f(float, float) __asm__("_Z5atan2ff");
__device__ double __ferrocm_clc_atan2(double, double) __asm__("_Z5atan2dd");
__device__ float __ferrocm_clc_fmodf(float, float) __asm__("_Z4fmodff");
__device__ double __ferrocm_clc_fmod(double, double) __asm__("_Z4fmoddd");
__device__ float __ferrocm_clc_remainderf(float, float) __asm__("_Z9remainderff");
__device__ double __ferrocm_clc_remainder(double, double) __asm__("_Z9remainderdd");
__device__ float __ferrocm_clc_hypotf(float, float) __asm__("_Z5hypotff");
__device__ double __ferrocm_clc_hypot(double, double) __asm__("_Z5hypotdd");
__device__ float __ferrocm_clc_fdimf(float, float) __asm__("_Z4fdimff");
__device__ double __ferrocm_clc_fdim(double, double) __asm__("_Z4fdimdd");
__device__ float __ferrocm_clc_nextafterf(float, float) __asm__("_Z9nextafterff");
__device__ double __ferrocm_clc_nextafter(double, double) __asm__("_Z9nextafterdd");
__device__ int __ferrocm_clc_ilogbf(float) __asm__("_Z5ilogbf");
__device__ int __ferrocm_clc_ilogb(double) __asm__("_Z5ilogbd");
__device__ float __ferrocm_clc_ldexpf(float, int) __asm__("_Z5ldexpfi");
__device__ double __ferrocm_clc_ldexp(double, int) __asm__("_Z5ldexpdi");
__device__ float __ferrocm_clc_frexpf(float, int*) __asm__("_Z5frexpfPi");
__device__ double __ferrocm_clc_frexp(double, int*) __asm__("_Z5frexpdPi");
__device__ float __ferrocm_clc_modff(float, float*) __asm__("_Z4modffPf");
__device__ double __ferrocm_clc_modf(double, double*) __asm__("_Z4modfdPd");
__device__ float __ferrocm_clc_sincosf(float, float*) __asm__("_Z6sincosfPf");
__device__ double __ferrocm_clc_sincos(double, double*) __asm__("_Z6sincosdPd");
__device__ float __ferrocm_clc_remquof(float, float, int*) __asm__("_Z6remquoffPi");
__device__ double __ferrocm_clc_remquo(double, double, int*) __asm__("_Z6remquoddPi");
__device__ float __ferrocm_clc_lgamma_rf(float, int*) __asm__("_Z8lgamma_rfPi");
}

/* The C names (float and double), overloading the host's math.h declarations by target. */
__FD float sinf(float x) { return __ferrocm_clc_sinf(x); }
__FD double sin(double x) { return __ferrocm_clc_sin(x); }
__FD float cosf(float x) { return __ferrocm_clc_cosf(x); }
__FD double cos(double x) { return __ferrocm_clc_cos(x); }
__FD float tanf(float x) { return __ferrocm_clc_tanf(x); }
__FD double tan(double x) { return __ferrocm_clc_tan(x); }
__FD float asinf(float x) { return __ferrocm_clc_asinf(x); }
__FD double asin(double x) { return __ferrocm_clc_asin(x); }
__FD float acosf(float x) { return __ferrocm_clc_acosf(x); }
__FD double acos(double x) { return __ferrocm_clc_acos(x); }
__FD float atanf(float x) { return __ferrocm_clc_atanf(x); }
__FD double atan(double x) { return __ferrocm_clc_atan(x); }
__FD float sinhf(float x) { return __ferrocm_clc_sinhf(x); }
__FD double sinh(double x) { return __ferrocm_clc_sinh(x); }
__FD float coshf(float x) { return __ferrocm_clc_coshf(x); }
__FD double cosh(double x) { return __ferrocm_clc_cosh(x); }
__FD float tanhf(float x) { return __ferrocm_clc_tanhf(x); }
__FD double tanh(double x) { return __ferrocm_clc_tanh(x); }
__FD float asinhf(float x) { return __ferrocm_clc_asinhf(x); }
__FD double asinh(double x) { return __ferrocm_clc_asinh(x); }
__FD float acoshf(float x) { return __ferrocm_clc_acoshf(x); }
__FD double acosh(double x) { return __ferrocm_clc_acosh(x); }
__FD float atanhf(float x) { return __ferrocm_clc_atanhf(x); }
__FD double atanh(double x) { return __ferrocm_clc_atanh(x); }
__FD float expf(float x) { return __ferrocm_clc_expf(x); }
__FD double exp(double x) { return __ferrocm_clc_exp(x); }
__FD float exp2f(float x) { return __ferrocm_clc_exp2f(x); }
__FD double exp2(double x) { return __ferrocm_clc_exp2(x); }
__FD float exp10f(float x) { return __ferrocm_clc_exp10f(x); }
__FD double exp10(double x) { return __ferrocm_clc_exp10(x); }
__FD float expm1f(float x) { return __ferrocm_clc_expm1f(x); }
__FD double expm1(double x) { return __ferrocm_clc_expm1(x); }
__FD float logf(float x) { return __ferrocm_clc_logf(x); }
__FD double log(double x) { return __ferrocm_clc_log(x); }
__FD float log2f(float x) { return __ferrocm_clc_log2f(x); }
__FD double log2(double x) { return __ferrocm_clc_log2(x); }
__FD float log10f(float x) { return __ferrocm_clc_log10f(x); }
__FD double log10(double x) { return __ferrocm_clc_log10(x); }
__FD float log1pf(float x) { return __ferrocm_clc_log1pf(x); }
__FD double log1p(double x) { return __ferrocm_clc_log1p(x); }
__FD float cbrtf(float x) { return __ferrocm_clc_cbrtf(x); }
__FD double cbrt(double x) { return __ferrocm_clc_cbrt(x); }
__FD float erff(float x) { return __ferrocm_clc_erff(x); }
__FD double erf(double x) { return __ferrocm_clc_erf(x); }
__FD float erfcf(float x) { return __ferrocm_clc_erfcf(x); }
__FD double erfc(double x) { return __ferrocm_clc_erfc(x); }
__FD float lgammaf(float x) { return __ferrocm_clc_lgammaf(x); }
__FD double lgamma(double x) { return __ferrocm_clc_lgamma(x); }
__FD float tgammaf(float x) { return __ferrocm_clc_tgammaf(x); }
__FD double tgamma(double x) { return __ferrocm_clc_tgamma(x); }
__FD float rintf(float x) { return __ferrocm_clc_rintf(x); }
__FD double rint(double x) { return __ferrocm_clc_rint(x); }
__FD float roundf(float x) { return __ferrocm_clc_roundf(x); }
__FD double round(double x) { return __ferrocm_clc_round(x); }
__FD float truncf(float x) { return __ferrocm_clc_truncf(x); }
__FD double trunc(double x) { return __ferrocm_clc_trunc(x); }
__FD float floorf(float x) { return __ferrocm_clc_floorf(x); }
__FD double floor(double x) { return __ferrocm_clc_floor(x); }
__FD float ceilf(float x) { return __ferrocm_clc_ceilf(x); }
__FD double ceil(double x) { return __ferrocm_clc_ceil(x); }
__FD float logbf(float x) { return __ferrocm_clc_logbf(x); }
__FD double logb(double x) { return __ferrocm_clc_logb(x); }
__FD float sinpif(float x) { return __ferrocm_clc_sinpif(x); }
__FD double sinpi(double x) { return __ferrocm_clc_sinpi(x); }
__FD float cospif(float x) { return __ferrocm_clc_cospif(x); }
__FD double cospi(double x) { return __ferrocm_clc_cospi(x); }
__FD float rsqrtf(float x) { return __ferrocm_clc_rsqrtf(x); }
__FD double rsqrt(double x) { return __ferrocm_clc_rsqrt(x); }
__FD float powf(float x, float y) { return __ferrocm_clc_powf(x, y); }
__FD double pow(double x, double y) { return __ferrocm_clc_pow(x, y); }
__FD float atan2f(float x, float y) { return __ferrocm_clc_atan2f(x, y); }
__FD double atan2(double x, double y) { return __ferrocm_clc_atan2(x, y); }
__FD float fmodf(float x, float y) { return __ferrocm_clc_fmodf(x, y); }
__FD double fmod(double x, double y) { return __ferrocm_clc_fmod(x, y); }
__FD float remainderf(float x, float y) { return __ferrocm_clc_remainderf(x, y); }
__FD double remainder(double x, double y) { return __ferrocm_clc_remainder(x, y); }
__FD float hypotf(float x, float y) { return __ferrocm_clc_hypotf(x, y); }
__FD double hypot(double x, double y) { return __ferrocm_clc_hypot(x, y); }
__FD float fdimf(float x, float y) { return __ferrocm_clc_fdimf(x, y); }
__FD double fdim(double x, double y) { return __ferrocm_clc_fdim(x, y); }
__FD float nextafterf(float x, float y) { return __ferrocm_clc_nextafterf(x, y); }
__FD double nextafter(double x, double y) { return __ferrocm_clc_nextafter(x, y); }
__FD float sqrtf(float x) { return __builtin_sqrtf(x); }
__FD double sqrt(double x) { return __builtin_sqrt(x); }
__FD float fabsf(float x) { return __builtin_fabsf(x); }
__FD double fabs(double x) { return __builtin_fabs(x); }
__FD float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
__FD double fma(double x, double y, double z) { return __builtin_fma(x, y, z); }
__FD float fminf(float x, float y) { return __builtin_fminf(x, y); }
__FD double fmin(double x, double y) { return __builtin_fmin(x, y); }
__FD float fmaxf(float x, float y) { return __builtin_fmaxf(x, y); }
__FD double fmax(double x, double y) { return __builtin_fmax(x, y); }
__FD float copysignf(float x, float y) { return __builtin_copysignf(x, y); }
__FD double copysign(double x, double y) { return __builtin_copysign(x, y); }
__FD float nearbyintf(float x) { return __ferrocm_clc_rintf(x); }
__FD double nearbyint(double x) { return __ferrocm_clc_rint(x); }
__FD long lrintf(float x) { return (long)__ferrocm_clc_rintf(x); }
__FD long lrint(double x) { return (long)__ferrocm_clc_rint(x); }
__FD long long llrintf(float x) { return (long long)__ferrocm_clc_rintf(x); }
__FD long long llrint(double x) { return (long long)__ferrocm_clc_rint(x); }
__FD long lroundf(float x) { return (long)__ferrocm_clc_roundf(x); }
__FD long lround(double x) { return (long)__ferrocm_clc_round(x); }
__FD long long llroundf(float x) { return (long long)__ferrocm_clc_roundf(x); }
__FD long long llround(double x) { return (long long)__ferrocm_clc_round(x); }
__FD int ilogbf(float x) { return __ferrocm_clc_ilogbf(x); }
__FD int ilogb(double x) { return __ferrocm_clc_ilogb(x); }
__FD float ldexpf(float x, int e) { return __ferrocm_clc_ldexpf(x, e); }
__FD double ldexp(double x, int e) { return __ferrocm_clc_ldexp(x, e); }
__FD float scalbnf(float x, int e) { return __ferrocm_clc_ldexpf(x, e); }
__FD double scalbn(double x, int e) { return __ferrocm_clc_ldexp(x, e); }
__FD float frexpf(float x, int* e) { return __ferrocm_clc_frexpf(x, e); }
__FD double frexp(double x, int* e) { return __ferrocm_clc_frexp(x, e); }
__FD float modff(float x, float* i) { return __ferrocm_clc_modff(x, i); }
__FD double modf(double x, double* i) { return __ferrocm_clc_modf(x, i); }
__FD float remquof(float x, float y, int* q) { return __ferrocm_clc_remquof(x, y, q); }
__FD double remquo(double x, double y, int* q) { return __ferrocm_clc_remquo(x, y, q); }
__FD void sincosf(float x, float* s, float* c) { *s = __ferrocm_clc_sincosf(x, c); }
__FD void sincos(double x, double* s, double* c) { *s = __ferrocm_clc_sincos(x, c); }
__FD void sincospif(float x, float* s, float* c) { *s = __ferrocm_clc_sinpif(x); *c = __ferrocm_clc_cospif(x); }
__FD void sincospi(double x, double* s, double* c) { *s = __ferrocm_clc_sinpi(x); *c = __ferrocm_clc_cospi(x); }
__FD float rcbrtf(float x) { return 1.0f / __ferrocm_clc_cbrtf(x); }
__FD double rcbrt(double x) { return 1.0 / __ferrocm_clc_cbrt(x); }
__FD float rhypotf(float x, float y) { return 1.0f / __ferrocm_clc_hypotf(x, y); }
__FD double rhypot(double x, double y) { return 1.0 / __ferrocm_clc_hypot(x, y); }
__FD float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
__FD float normcdff(float x) { return 0.5f * __ferrocm_clc_erfcf(-x * 0.70710678118654752f); }
__FD double normcdf(double x) { return 0.5 * __ferrocm_clc_erfc(-x * 0.70710678118654752440); }

/* C++ overloads in the global namespace and in std. */
#ifdef __cplusplus

__FD float sin(float x) { return sinf(x); }
__FD float cos(float x) { return cosf(x); }
__FD float tan(float x) { return tanf(x); }
__FD float asin(float x) { return asinf(x); }
__FD float acos(float x) { return acosf(x); }
__FD float atan(float x) { return atanf(x); }
__FD float sinh(float x) { return sinhf(x); }
__FD float cosh(float x) { return coshf(x); }
__FD float tanh(float x) { return tanhf(x); }
__FD float asinh(float x) { return asinhf(x); }
__FD float acosh(float x) { return acoshf(x); }
__FD float atanh(float x) { return atanhf(x); }
__FD float exp(float x) { return expf(x); }
__FD float exp2(float x) { return exp2f(x); }
__FD float exp10(float x) { return exp10f(x); }
__FD float expm1(float x) { return expm1f(x); }
__FD float log(float x) { return logf(x); }
__FD float log2(float x) { return log2f(x); }
__FD float log10(float x) { return log10f(x); }
__FD float log1p(float x) { return log1pf(x); }
__FD float cbrt(float x) { return cbrtf(x); }
__FD float erf(float x) { return erff(x); }
__FD float erfc(float x) { return erfcf(x); }
__FD float lgamma(float x) { return lgammaf(x); }
__FD float tgamma(float x) { return tgammaf(x); }
__FD float rint(float x) { return rintf(x); }
__FD float round(float x) { return roundf(x); }
__FD float trunc(float x) { return truncf(x); }
__FD float floor(float x) { return floorf(x); }
__FD float ceil(float x) { return ceilf(x); }
__FD float logb(float x) { return logbf(x); }
__FD float sinpi(float x) { return sinpif(x); }
__FD float cospi(float x) { return cospif(x); }
__FD float rsqrt(float x) { return rsqrtf(x); }
__FD float pow(float x, float y) { return powf(x, y); }
__FD float atan2(float x, float y) { return atan2f(x, y); }
__FD float fmod(float x, float y) { return fmodf(x, y); }
__FD float remainder(float x, float y) { return remainderf(x, y); }
__FD float hypot(float x, float y) { return hypotf(x, y); }
__FD float fdim(float x, float y) { return fdimf(x, y); }
__FD float nextafter(float x, float y) { return nextafterf(x, y); }
__FD float sqrt(float x) { return sqrtf(x); }
__FD float fabs(float x) { return fabsf(x); }
__FD float abs(float x) { return fabsf(x); }
__FD double abs(double x) { return fabs(x); }
__FD float fma(float x, float y, float z) { return fmaf(x, y, z); }
__FD float fmin(float x, float y) { return fminf(x, y); }
__FD float fmax(float x, float y) { return fmaxf(x, y); }
__FD float copysign(float x, float y) { return copysignf(x, y); }
__FD float nearbyint(float x) { return nearbyintf(x); }
__FD float ldexp(float x, int e) { return ldexpf(x, e); }
__FD float frexp(float x, int* e) { return frexpf(x, e); }
__FD float modf(float x, float* i) { return modff(x, i); }
__FD int ilogb(float x) { return ilogbf(x); }
__FD float pow(float x, int n) { return powf(x, (float)n); }
__FD double pow(double x, int n) { return pow(x, (double)n); }
namespace std {

using ::sin;
using ::cos;
using ::tan;
using ::asin;
using ::acos;
using ::atan;
using ::sinh;
using ::cosh;
using ::tanh;
using ::asinh;
using ::acosh;
using ::atanh;
using ::exp;
using ::exp2;
using ::expm1;
using ::log;
using ::log2;
using ::log10;
using ::log1p;
using ::cbrt;
using ::erf;
using ::erfc;
using ::lgamma;
using ::tgamma;
using ::rint;
using ::round;
using ::trunc;
using ::floor;
using ::ceil;
using ::logb;
using ::pow;
using ::atan2;
using ::fmod;
using ::remainder;
using ::hypot;
using ::fdim;
using ::nextafter;
using ::sqrt;
using ::fabs;
using ::abs;
using ::fma;
using ::fmin;
using ::fmax;
using ::copysign;
using ::nearbyint;
using ::ldexp;
using ::frexp;
using ::modf;
using ::ilogb;
}
#endif

/* Classification (C99 macros call these through the builtins on both sides). */
__FD int __finitef(float x) { return __builtin_isfinite(x); }
__FD int __isinff(float x) { return __builtin_isinf(x); }
__FD int __isnanf(float x) { return __builtin_isnan(x); }
__FD int __signbitf(float x) { return __builtin_signbit(x); }
__FD int __finite(double x) { return __builtin_isfinite(x); }
__FD int __isinf(double x) { return __builtin_isinf(x); }
__FD int __isnan(double x) { return __builtin_isnan(x); }
__FD int __signbit(double x) { return __builtin_signbit(x); }

/* HIP/CUDA intrinsics. */
__FD float __expf(float x) { return __ferrocm_clc_expf(x); }
__FD float __exp10f(float x) { return __ferrocm_clc_exp10f(x); }
__FD float __logf(float x) { return __ferrocm_clc_logf(x); }
__FD float __log2f(float x) { return __ferrocm_clc_log2f(x); }
__FD float __log10f(float x) { return __ferrocm_clc_log10f(x); }
__FD float __sinf(float x) { return __ferrocm_clc_sinf(x); }
__FD float __cosf(float x) { return __ferrocm_clc_cosf(x); }
__FD float __tanf(float x) { return __ferrocm_clc_tanf(x); }
__FD void __sincosf(float x, float* s, float* c) { sincosf(x, s, c); }
__FD float __powf(float x, float y) { return __ferrocm_clc_powf(x, y); }
__FD float __fdividef(float x, float y) { return x / y; }
__FD float __fdiv_rn(float x, float y) { return x / y; }
__FD float __fadd_rn(float x, float y) { return x + y; }
__FD float __fsub_rn(float x, float y) { return x - y; }
__FD float __fmul_rn(float x, float y) { return x * y; }
__FD float __fmaf_rn(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
__FD float __frcp_rn(float x) { return 1.0f / x; }
__FD float __fsqrt_rn(float x) { return __builtin_sqrtf(x); }
__FD float __frsqrt_rn(float x) { return 1.0f / __builtin_sqrtf(x); }
__FD double __dadd_rn(double x, double y) { return x + y; }
__FD double __dsub_rn(double x, double y) { return x - y; }
__FD double __dmul_rn(double x, double y) { return x * y; }
__FD double __ddiv_rn(double x, double y) { return x / y; }
__FD double __drcp_rn(double x) { return 1.0 / x; }
__FD double __dsqrt_rn(double x) { return __builtin_sqrt(x); }
__FD double __fma_rn(double x, double y, double z) { return __builtin_fma(x, y, z); }
__FD float __saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }

#undef __FD
#undef __FHD
#endif /* FERROCM_HIP_MATH_H */
