/* HIP's vector types (char1..double4) with make_* functions and component-wise operators.
 * Sizes and alignments follow HIP and CUDA: an n-vector of 2 or 4 elements is aligned to its
 * size (at most 16 bytes), a 1- or 3-vector to its element.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef FERROCM_HIP_VECTOR_TYPES_H
#define FERROCM_HIP_VECTOR_TYPES_H

#include "hip/ferrocm/qualifiers.h"

#ifdef __cplusplus
#define __FERROCM_VHD static __host__ __device__ inline
#else
#define __FERROCM_VHD static inline
#endif

typedef struct __attribute__((aligned(1))) char1 {
    signed char x;
#ifdef __cplusplus
    __host__ __device__ constexpr char1() : x(0) {}
    __host__ __device__ constexpr char1(signed char _x) : x(_x) {}
    __host__ __device__ char1& operator+=(const char1& o) { x += o.x; return *this; }
    __host__ __device__ char1& operator+=(signed char s) { x += s; return *this; }
    __host__ __device__ char1& operator-=(const char1& o) { x -= o.x; return *this; }
    __host__ __device__ char1& operator-=(signed char s) { x -= s; return *this; }
    __host__ __device__ char1& operator*=(const char1& o) { x *= o.x; return *this; }
    __host__ __device__ char1& operator*=(signed char s) { x *= s; return *this; }
    __host__ __device__ char1& operator/=(const char1& o) { x /= o.x; return *this; }
    __host__ __device__ char1& operator/=(signed char s) { x /= s; return *this; }
#endif
} char1;
#ifdef __cplusplus
__FERROCM_VHD char1 make_char1(signed char x) { return char1(x); }
__FERROCM_VHD char1 operator+(char1 a, const char1& b) { return a += b; }
__FERROCM_VHD char1 operator+(char1 a, signed char s) { return a += s; }
__FERROCM_VHD char1 operator+(signed char s, const char1& b) { char1 a(s); return a += b; }
__FERROCM_VHD char1 operator-(char1 a, const char1& b) { return a -= b; }
__FERROCM_VHD char1 operator-(char1 a, signed char s) { return a -= s; }
__FERROCM_VHD char1 operator-(signed char s, const char1& b) { char1 a(s); return a -= b; }
__FERROCM_VHD char1 operator*(char1 a, const char1& b) { return a *= b; }
__FERROCM_VHD char1 operator*(char1 a, signed char s) { return a *= s; }
__FERROCM_VHD char1 operator*(signed char s, const char1& b) { char1 a(s); return a *= b; }
__FERROCM_VHD char1 operator/(char1 a, const char1& b) { return a /= b; }
__FERROCM_VHD char1 operator/(char1 a, signed char s) { return a /= s; }
__FERROCM_VHD char1 operator/(signed char s, const char1& b) { char1 a(s); return a /= b; }
__FERROCM_VHD char1 operator-(const char1& a) { return char1(-a.x); }
__FERROCM_VHD bool operator==(const char1& a, const char1& b) { return a.x == b.x; }
__FERROCM_VHD bool operator!=(const char1& a, const char1& b) { return !(a == b); }
#else
__FERROCM_VHD char1 make_char1(signed char x) { char1 v; v.x = x; return v; }
#endif
typedef struct __attribute__((aligned(2))) char2 {
    signed char x, y;
#ifdef __cplusplus
    __host__ __device__ constexpr char2() : x(0), y(0) {}
    __host__ __device__ constexpr char2(signed char _x, signed char _y) : x(_x), y(_y) {}
    __host__ __device__ explicit constexpr char2(signed char s) : x(s), y(s) {}
    __host__ __device__ char2& operator+=(const char2& o) { x += o.x; y += o.y; return *this; }
    __host__ __device__ char2& operator+=(signed char s) { x += s; y += s; return *this; }
    __host__ __device__ char2& operator-=(const char2& o) { x -= o.x; y -= o.y; return *this; }
    __host__ __device__ char2& operator-=(signed char s) { x -= s; y -= s; return *this; }
    __host__ __device__ char2& operator*=(const char2& o) { x *= o.x; y *= o.y; return *this; }
    __host__ __device__ char2& operator*=(signed char s) { x *= s; y *= s; return *this; }
    __host__ __device__ char2& operator/=(const char2& o) { x /= o.x; y /= o.y; return *this; }
    __host__ __device__ char2& operator/=(signed char s) { x /= s; y /= s; return *this; }
#endif
} char2;
#ifdef __cplusplus
__FERROCM_VHD char2 make_char2(signed char x, signed char y) { return char2(x, y); }
__FERROCM_VHD char2 operator+(char2 a, const char2& b) { return a += b; }
__FERROCM_VHD char2 operator+(char2 a, signed char s) { return a += s; }
__FERROCM_VHD char2 operator+(signed char s, const char2& b) { char2 a(s, s); return a += b; }
__FERROCM_VHD char2 operator-(char2 a, const char2& b) { return a -= b; }
__FERROCM_VHD char2 operator-(char2 a, signed char s) { return a -= s; }
__FERROCM_VHD char2 operator-(signed char s, const char2& b) { char2 a(s, s); return a -= b; }
__FERROCM_VHD char2 operator*(char2 a, const char2& b) { return a *= b; }
__FERROCM_VHD char2 operator*(char2 a, signed char s) { return a *= s; }
__FERROCM_VHD char2 operator*(signed char s, const char2& b) { char2 a(s, s); return a *= b; }
__FERROCM_VHD char2 operator/(char2 a, const char2& b) { return a /= b; }
__FERROCM_VHD char2 operator/(char2 a, signed char s) { return a /= s; }
__FERROCM_VHD char2 operator/(signed char s, const char2& b) { char2 a(s, s); return a /= b; }
__FERROCM_VHD char2 operator-(const char2& a) { return char2(-a.x, -a.y); }
__FERROCM_VHD bool operator==(const char2& a, const char2& b) { return a.x == b.x && a.y == b.y; }
__FERROCM_VHD bool operator!=(const char2& a, const char2& b) { return !(a == b); }
#else
__FERROCM_VHD char2 make_char2(signed char x, signed char y) { char2 v; v.x = x; v.y = y; return v; }
#endif
typedef struct __attribute__((aligned(1))) char3 {
    signed char x, y, z;
#ifdef __cplusplus
    __host__ __device__ constexpr char3() : x(0), y(0), z(0) {}
    __host__ __device__ constexpr char3(signed char _x, signed char _y, signed char _z) : x(_x), y(_y), z(_z) {}
    __host__ __device__ explicit constexpr char3(signed char s) : x(s), y(s), z(s) {}
    __host__ __device__ char3& operator+=(const char3& o) { x += o.x; y += o.y; z += o.z; return *this; }
    __host__ __device__ char3& operator+=(signed char s) { x += s; y += s; z += s; return *this; }
    __host__ __device__ char3& operator-=(const char3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    __host__ __device__ char3& operator-=(signed char s) { x -= s; y -= s; z -= s; return *this; }
    __host__ __device__ char3& operator*=(const char3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
    __host__ __device__ char3& operator*=(signed char s) { x *= s; y *= s; z *= s; return *this; }
    __host__ __device__ char3& operator/=(const char3& o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
    __host__ __device__ char3& operator/=(signed char s) { x /= s; y /= s; z /= s; return *this; }
#endif
} char3;
#ifdef __cplusplus
__FERROCM_VHD char3 make_char3(signed char x, signed char y, signed char z) { return char3(x, y, z); }
__FERROCM_VHD char3 operator+(char3 a, const char3& b) { return a += b; }
__FERROCM_VHD char3 operator+(char3 a, signed char s) { return a += s; }
__FERROCM_VHD char3 operator+(signed char s, const char3& b) { char3 a(s, s, s); return a += b; }
__FERROCM_VHD char3 operator-(char3 a, const char3& b) { return a -= b; }
__FERROCM_VHD char3 operator-(char3 a, signed char s) { return a -= s; }
__FERROCM_VHD char3 operator-(signed char s, const char3& b) { char3 a(s, s, s); return a -= b; }
__FERROCM_VHD char3 operator*(char3 a, const char3& b) { return a *= b; }
__FERROCM_VHD char3 operator*(char3 a, signed char s) { return a *= s; }
__FERROCM_VHD char3 operator*(signed char s, const char3& b) { char3 a(s, s, s); return a *= b; }
__FERROCM_VHD char3 operator/(char3 a, const char3& b) { return a /= b; }
__FERROCM_VHD char3 operator/(char3 a, signed char s) { return a /= s; }
__FERROCM_VHD char3 operator/(signed char s, const char3& b) { char3 a(s, s, s); return a /= b; }
__FERROCM_VHD char3 operator-(const char3& a) { return char3(-a.x, -a.y, -a.z); }
__FERROCM_VHD bool operator==(const char3& a, const char3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__FERROCM_VHD bool operator!=(const char3& a, const char3& b) { return !(a == b); }
#else
__FERROCM_VHD char3 make_char3(signed char x, signed char y, signed char z) { char3 v; v.x = x; v.y = y; v.z = z; return v; }
#endif
typedef struct __attribute__((aligned(4))) char4 {
    signed char x, y, z, w;
#ifdef __cplusplus
    __host__ __device__ constexpr char4() : x(0), y(0), z(0), w(0) {}
    __host__ __device__ constexpr char4(signed char _x, signed char _y, signed char _z, signed char _w) : x(_x), y(_y), z(_z), w(_w) {}
    __host__ __device__ explicit constexpr char4(signed char s) : x(s), y(s), z(s), w(s) {}
    __host__ __device__ char4& operator+=(const char4& o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
    __host__ __device__ char4& operator+=(signed char s) { x += s; y += s; z += s; w += s; return *this; }
    __host__ __device__ char4& operator-=(const char4& o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
    __host__ __device__ char4& operator-=(signed char s) { x -= s; y -= s; z -= s; w -= s; return *this; }
    __host__ __device__ char4& operator*=(const char4& o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
    __host__ __device__ char4& operator*=(signed char s) { x *= s; y *= s; z *= s; w *= s; return *this; }
    __host__ __device__ char4& operator/=(const char4& o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
    __host__ __device__ char4& operator/=(signed char s) { x /= s; y /= s; z /= s; w /= s; return *this; }
#endif
} char4;
#ifdef __cplusplus
__FERROCM_VHD char4 make_char4(signed char x, signed char y, signed char z, signed char w) { return char4(x, y, z, w); }
__FERROCM_VHD char4 operator+(char4 a, const char4& b) { return a += b; }
__FERROCM_VHD char4 operator+(char4 a, signed char s) { return a += s; }
__FERROCM_VHD char4 operator+(signed char s, const char4& b) { char4 a(s, s, s, s); return a += b; }
__FERROCM_VHD char4 operator-(char4 a, const char4& b) { return a -= b; }
__FERROCM_VHD char4 operator-(char4 a, signed char s) { return a -= s; }
__FERROCM_VHD char4 operator-(signed char s, const char4& b) { char4 a(s, s, s, s); return a -= b; }
__FERROCM_VHD char4 operator*(char4 a, const char4& b) { return a *= b; }
__FERROCM_VHD char4 operator*(char4 a, signed char s) { return a *= s; }
__FERROCM_VHD char4 operator*(signed char s, const char4& b) { char4 a(s, s, s, s); return a *= b; }
__FERROCM_VHD char4 operator/(char4 a, const char4& b) { return a /= b; }
__FERROCM_VHD char4 operator/(char4 a, signed char s) { return a /= s; }
__FERROCM_VHD char4 operator/(signed char s, const char4& b) { char4 a(s, s, s, s); return a /= b; }
__FERROCM_VHD char4 operator-(const char4& a) { return char4(-a.x, -a.y, -a.z, -a.w); }
__FERROCM_VHD bool operator==(const char4& a, const char4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__FERROCM_VHD bool operator!=(const char4& a, const char4& b) { return !(a == b); }
#else
__FERROCM_VHD char4 make_char4(signed char x, signed char y, signed char z, signed char w) { char4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#endif
typedef struct __attribute__((aligned(1))) uchar1 {
    unsigned char x;
#ifdef __cplusplus
    __host__ __device__ constexpr uchar1() : x(0) {}
    __host__ __device__ constexpr uchar1(unsigned char _x) : x(_x) {}
    __host__ __device__ uchar1& operator+=(const uchar1& o) { x += o.x; return *this; }
    __host__ __device__ uchar1& operator+=(unsigned char s) { x += s; return *this; }
    __host__ __device__ uchar1& operator-=(const uchar1& o) { x -= o.x; return *this; }
    __host__ __device__ uchar1& operator-=(unsigned char s) { x -= s; return *this; }
    __host__ __device__ uchar1& operator*=(const uchar1& o) { x *= o.x; return *this; }
    __host__ __device__ uchar1& operator*=(unsigned char s) { x *= s; return *this; }
    __host__ __device__ uchar1& operator/=(const uchar1& o) { x /= o.x; return *this; }
    __host__ __device__ uchar1& operator/=(unsigned char s) { x /= s; return *this; }
#endif
} uchar1;
#ifdef __cplusplus
__FERROCM_VHD uchar1 make_uchar1(unsigned char x) { return uchar1(x); }
__FERROCM_VHD uchar1 operator+(uchar1 a, const uchar1& b) { return a += b; }
__FERROCM_VHD uchar1 operator+(uchar1 a, unsigned char s) { return a += s; }
__FERROCM_VHD uchar1 operator+(unsigned char s, const uchar1& b) { uchar1 a(s); return a += b; }
__FERROCM_VHD uchar1 operator-(uchar1 a, const uchar1& b) { return a -= b; }
__FERROCM_VHD uchar1 operator-(uchar1 a, unsigned char s) { return a -= s; }
__FERROCM_VHD uchar1 operator-(unsigned char s, const uchar1& b) { uchar1 a(s); return a -= b; }
__FERROCM_VHD uchar1 operator*(uchar1 a, const uchar1& b) { return a *= b; }
__FERROCM_VHD uchar1 operator*(uchar1 a, unsigned char s) { return a *= s; }
__FERROCM_VHD uchar1 operator*(unsigned char s, const uchar1& b) { uchar1 a(s); return a *= b; }
__FERROCM_VHD uchar1 operator/(uchar1 a, const uchar1& b) { return a /= b; }
__FERROCM_VHD uchar1 operator/(uchar1 a, unsigned char s) { return a /= s; }
__FERROCM_VHD uchar1 operator/(unsigned char s, const uchar1& b) { uchar1 a(s); return a /= b; }
__FERROCM_VHD bool operator==(const uchar1& a, const uchar1& b) { return a.x == b.x; }
__FERROCM_VHD bool operator!=(const uchar1& a, const uchar1& b) { return !(a == b); }
#else
__FERROCM_VHD uchar1 make_uchar1(unsigned char x) { uchar1 v; v.x = x; return v; }
#endif
typedef struct __attribute__((aligned(2))) uchar2 {
    unsigned char x, y;
#ifdef __cplusplus
    __host__ __device__ constexpr uchar2() : x(0), y(0) {}
    __host__ __device__ constexpr uchar2(unsigned char _x, unsigned char _y) : x(_x), y(_y) {}
    __host__ __device__ explicit constexpr uchar2(unsigned char s) : x(s), y(s) {}
    __host__ __device__ uchar2& operator+=(const uchar2& o) { x += o.x; y += o.y; return *this; }
    __host__ __device__ uchar2& operator+=(unsigned char s) { x += s; y += s; return *this; }
    __host__ __device__ uchar2& operator-=(const uchar2& o) { x -= o.x; y -= o.y; return *this; }
    __host__ __device__ uchar2& operator-=(unsigned char s) { x -= s; y -= s; return *this; }
    __host__ __device__ uchar2& operator*=(const uchar2& o) { x *= o.x; y *= o.y; return *this; }
    __host__ __device__ uchar2& operator*=(unsigned char s) { x *= s; y *= s; return *this; }
    __host__ __device__ uchar2& operator/=(const uchar2& o) { x /= o.x; y /= o.y; return *this; }
    __host__ __device__ uchar2& operator/=(unsigned char s) { x /= s; y /= s; return *this; }
#endif
} uchar2;
#ifdef __cplusplus
__FERROCM_VHD uchar2 make_uchar2(unsigned char x, unsigned char y) { return uchar2(x, y); }
__FERROCM_VHD uchar2 operator+(uchar2 a, const uchar2& b) { return a += b; }
__FERROCM_VHD uchar2 operator+(uchar2 a, unsigned char s) { return a += s; }
__FERROCM_VHD uchar2 operator+(unsigned char s, const uchar2& b) { uchar2 a(s, s); return a += b; }
__FERROCM_VHD uchar2 operator-(uchar2 a, const uchar2& b) { return a -= b; }
__FERROCM_VHD uchar2 operator-(uchar2 a, unsigned char s) { return a -= s; }
__FERROCM_VHD uchar2 operator-(unsigned char s, const uchar2& b) { uchar2 a(s, s); return a -= b; }
__FERROCM_VHD uchar2 operator*(uchar2 a, const uchar2& b) { return a *= b; }
__FERROCM_VHD uchar2 operator*(uchar2 a, unsigned char s) { return a *= s; }
__FERROCM_VHD uchar2 operator*(unsigned char s, const uchar2& b) { uchar2 a(s, s); return a *= b; }
__FERROCM_VHD uchar2 operator/(uchar2 a, const uchar2& b) { return a /= b; }
__FERROCM_VHD uchar2 operator/(uchar2 a, unsigned char s) { return a /= s; }
__FERROCM_VHD uchar2 operator/(unsigned char s, const uchar2& b) { uchar2 a(s, s); return a /= b; }
__FERROCM_VHD bool operator==(const uchar2& a, const uchar2& b) { return a.x == b.x && a.y == b.y; }
__FERROCM_VHD bool operator!=(const uchar2& a, const uchar2& b) { return !(a == b); }
#else
__FERROCM_VHD uchar2 make_uchar2(unsigned char x, unsigned char y) { uchar2 v; v.x = x; v.y = y; return v; }
#endif
typedef struct __attribute__((aligned(1))) uchar3 {
    unsigned char x, y, z;
#ifdef __cplusplus
    __host__ __device__ constexpr uchar3() : x(0), y(0), z(0) {}
    __host__ __device__ constexpr uchar3(unsigned char _x, unsigned char _y, unsigned char _z) : x(_x), y(_y), z(_z) {}
    __host__ __device__ explicit constexpr uchar3(unsigned char s) : x(s), y(s), z(s) {}
    __host__ __device__ uchar3& operator+=(const uchar3& o) { x += o.x; y += o.y; z += o.z; return *this; }
    __host__ __device__ uchar3& operator+=(unsigned char s) { x += s; y += s; z += s; return *this; }
    __host__ __device__ uchar3& operator-=(const uchar3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    __host__ __device__ uchar3& operator-=(unsigned char s) { x -= s; y -= s; z -= s; return *this; }
    __host__ __device__ uchar3& operator*=(const uchar3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
    __host__ __device__ uchar3& operator*=(unsigned char s) { x *= s; y *= s; z *= s; return *this; }
    __host__ __device__ uchar3& operator/=(const uchar3& o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
    __host__ __device__ uchar3& operator/=(unsigned char s) { x /= s; y /= s; z /= s; return *this; }
#endif
} uchar3;
#ifdef __cplusplus
__FERROCM_VHD uchar3 make_uchar3(unsigned char x, unsigned char y, unsigned char z) { return uchar3(x, y, z); }
__FERROCM_VHD uchar3 operator+(uchar3 a, const uchar3& b) { return a += b; }
__FERROCM_VHD uchar3 operator+(uchar3 a, unsigned char s) { return a += s; }
__FERROCM_VHD uchar3 operator+(unsigned char s, const uchar3& b) { uchar3 a(s, s, s); return a += b; }
__FERROCM_VHD uchar3 operator-(uchar3 a, const uchar3& b) { return a -= b; }
__FERROCM_VHD uchar3 operator-(uchar3 a, unsigned char s) { return a -= s; }
__FERROCM_VHD uchar3 operator-(unsigned char s, const uchar3& b) { uchar3 a(s, s, s); return a -= b; }
__FERROCM_VHD uchar3 operator*(uchar3 a, const uchar3& b) { return a *= b; }
__FERROCM_VHD uchar3 operator*(uchar3 a, unsigned char s) { return a *= s; }
__FERROCM_VHD uchar3 operator*(unsigned char s, const uchar3& b) { uchar3 a(s, s, s); return a *= b; }
__FERROCM_VHD uchar3 operator/(uchar3 a, const uchar3& b) { return a /= b; }
__FERROCM_VHD uchar3 operator/(uchar3 a, unsigned char s) { return a /= s; }
__FERROCM_VHD uchar3 operator/(unsigned char s, const uchar3& b) { uchar3 a(s, s, s); return a /= b; }
__FERROCM_VHD bool operator==(const uchar3& a, const uchar3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__FERROCM_VHD bool operator!=(const uchar3& a, const uchar3& b) { return !(a == b); }
#else
__FERROCM_VHD uchar3 make_uchar3(unsigned char x, unsigned char y, unsigned char z) { uchar3 v; v.x = x; v.y = y; v.z = z; return v; }
#endif
typedef struct __attribute__((aligned(4))) uchar4 {
    unsigned char x, y, z, w;
#ifdef __cplusplus
    __host__ __device__ constexpr uchar4() : x(0), y(0), z(0), w(0) {}
    __host__ __device__ constexpr uchar4(unsigned char _x, unsigned char _y, unsigned char _z, unsigned char _w) : x(_x), y(_y), z(_z), w(_w) {}
    __host__ __device__ explicit constexpr uchar4(unsigned char s) : x(s), y(s), z(s), w(s) {}
    __host__ __device__ uchar4& operator+=(const uchar4& o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
    __host__ __device__ uchar4& operator+=(unsigned char s) { x += s; y += s; z += s; w += s; return *this; }
    __host__ __device__ uchar4& operator-=(const uchar4& o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
    __host__ __device__ uchar4& operator-=(unsigned char s) { x -= s; y -= s; z -= s; w -= s; return *this; }
    __host__ __device__ uchar4& operator*=(const uchar4& o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
    __host__ __device__ uchar4& operator*=(unsigned char s) { x *= s; y *= s; z *= s; w *= s; return *this; }
    __host__ __device__ uchar4& operator/=(const uchar4& o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
    __host__ __device__ uchar4& operator/=(unsigned char s) { x /= s; y /= s; z /= s; w /= s; return *this; }
#endif
} uchar4;
#ifdef __cplusplus
__FERROCM_VHD uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) { return uchar4(x, y, z, w); }
__FERROCM_VHD uchar4 operator+(uchar4 a, const uchar4& b) { return a += b; }
__FERROCM_VHD uchar4 operator+(uchar4 a, unsigned char s) { return a += s; }
__FERROCM_VHD uchar4 operator+(unsigned char s, const uchar4& b) { uchar4 a(s, s, s, s); return a += b; }
__FERROCM_VHD uchar4 operator-(uchar4 a, const uchar4& b) { return a -= b; }
__FERROCM_VHD uchar4 operator-(uchar4 a, unsigned char s) { return a -= s; }
__FERROCM_VHD uchar4 operator-(unsigned char s, const uchar4& b) { uchar4 a(s, s, s, s); return a -= b; }
__FERROCM_VHD uchar4 operator*(uchar4 a, const uchar4& b) { return a *= b; }
__FERROCM_VHD uchar4 operator*(uchar4 a, unsigned char s) { return a *= s; }
__FERROCM_VHD uchar4 operator*(unsigned char s, const uchar4& b) { uchar4 a(s, s, s, s); return a *= b; }
__FERROCM_VHD uchar4 operator/(uchar4 a, const uchar4& b) { return a /= b; }
__FERROCM_VHD uchar4 operator/(uchar4 a, unsigned char s) { return a /= s; }
__FERROCM_VHD uchar4 operator/(unsigned char s, const uchar4& b) { uchar4 a(s, s, s, s); return a /= b; }
__FERROCM_VHD bool operator==(const uchar4& a, const uchar4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__FERROCM_VHD bool operator!=(const uchar4& a, const uchar4& b) { return !(a == b); }
#else
__FERROCM_VHD uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) { uchar4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#endif
typedef struct __attribute__((aligned(2))) short1 {
    short x;
#ifdef __cplusplus
    __host__ __device__ constexpr short1() : x(0) {}
    __host__ __device__ constexpr short1(short _x) : x(_x) {}
    __host__ __device__ short1& operator+=(const short1& o) { x += o.x; return *this; }
    __host__ __device__ short1& operator+=(short s) { x += s; return *this; }
    __host__ __device__ short1& operator-=(const short1& o) { x -= o.x; return *this; }
    __host__ __device__ short1& operator-=(short s) { x -= s; return *this; }
    __host__ __device__ short1& operator*=(const short1& o) { x *= o.x; return *this; }
    __host__ __device__ short1& operator*=(short s) { x *= s; return *this; }
    __host__ __device__ short1& operator/=(const short1& o) { x /= o.x; return *this; }
    __host__ __device__ short1& operator/=(short s) { x /= s; return *this; }
#endif
} short1;
#ifdef __cplusplus
__FERROCM_VHD short1 make_short1(short x) { return short1(x); }
__FERROCM_VHD short1 operator+(short1 a, const short1& b) { return a += b; }
__FERROCM_VHD short1 operator+(short1 a, short s) { return a += s; }
__FERROCM_VHD short1 operator+(short s, const short1& b) { short1 a(s); return a += b; }
__FERROCM_VHD short1 operator-(short1 a, const short1& b) { return a -= b; }
__FERROCM_VHD short1 operator-(short1 a, short s) { return a -= s; }
__FERROCM_VHD short1 operator-(short s, const short1& b) { short1 a(s); return a -= b; }
__FERROCM_VHD short1 operator*(short1 a, const short1& b) { return a *= b; }
__FERROCM_VHD short1 operator*(short1 a, short s) { return a *= s; }
__FERROCM_VHD short1 operator*(short s, const short1& b) { short1 a(s); return a *= b; }
__FERROCM_VHD short1 operator/(short1 a, const short1& b) { return a /= b; }
__FERROCM_VHD short1 operator/(short1 a, short s) { return a /= s; }
__FERROCM_VHD short1 operator/(short s, const short1& b) { short1 a(s); return a /= b; }
__FERROCM_VHD short1 operator-(const short1& a) { return short1(-a.x); }
__FERROCM_VHD bool operator==(const short1& a, const short1& b) { return a.x == b.x; }
__FERROCM_VHD bool operator!=(const short1& a, const short1& b) { return !(a == b); }
#else
__FERROCM_VHD short1 make_short1(short x) { short1 v; v.x = x; return v; }
#endif
typedef struct __attribute__((aligned(4))) short2 {
    short x, y;
#ifdef __cplusplus
    __host__ __device__ constexpr short2() : x(0), y(0) {}
    __host__ __device__ constexpr short2(short _x, short _y) : x(_x), y(_y) {}
    __host__ __device__ explicit constexpr short2(short s) : x(s), y(s) {}
    __host__ __device__ short2& operator+=(const short2& o) { x += o.x; y += o.y; return *this; }
    __host__ __device__ short2& operator+=(short s) { x += s; y += s; return *this; }
    __host__ __device__ short2& operator-=(const short2& o) { x -= o.x; y -= o.y; return *this; }
    __host__ __device__ short2& operator-=(short s) { x -= s; y -= s; return *this; }
    __host__ __device__ short2& operator*=(const short2& o) { x *= o.x; y *= o.y; return *this; }
    __host__ __device__ short2& operator*=(short s) { x *= s; y *= s; return *this; }
    __host__ __device__ short2& operator/=(const short2& o) { x /= o.x; y /= o.y; return *this; }
    __host__ __device__ short2& operator/=(short s) { x /= s; y /= s; return *this; }
#endif
} short2;
#ifdef __cplusplus
__FERROCM_VHD short2 make_short2(short x, short y) { return short2(x, y); }
__FERROCM_VHD short2 operator+(short2 a, const short2& b) { return a += b; }
__FERROCM_VHD short2 operator+(short2 a, short s) { return a += s; }
__FERROCM_VHD short2 operator+(short s, const short2& b) { short2 a(s, s); return a += b; }
__FERROCM_VHD short2 operator-(short2 a, const short2& b) { return a -= b; }
__FERROCM_VHD short2 operator-(short2 a, short s) { return a -= s; }
__FERROCM_VHD short2 operator-(short s, const short2& b) { short2 a(s, s); return a -= b; }
__FERROCM_VHD short2 operator*(short2 a, const short2& b) { return a *= b; }
__FERROCM_VHD short2 operator*(short2 a, short s) { return a *= s; }
__FERROCM_VHD short2 operator*(short s, const short2& b) { short2 a(s, s); return a *= b; }
__FERROCM_VHD short2 operator/(short2 a, const short2& b) { return a /= b; }
__FERROCM_VHD short2 operator/(short2 a, short s) { return a /= s; }
__FERROCM_VHD short2 operator/(short s, const short2& b) { short2 a(s, s); return a /= b; }
__FERROCM_VHD short2 operator-(const short2& a) { return short2(-a.x, -a.y); }
__FERROCM_VHD bool operator==(const short2& a, const short2& b) { return a.x == b.x && a.y == b.y; }
__FERROCM_VHD bool operator!=(const short2& a, const short2& b) { return !(a == b); }
#else
__FERROCM_VHD short2 make_short2(short x, short y) { short2 v; v.x = x; v.y = y; return v; }
#endif
typedef struct __attribute__((aligned(2))) short3 {
    short x, y, z;
#ifdef __cplusplus
    __host__ __device__ constexpr short3() : x(0), y(0), z(0) {}
    __host__ __device__ constexpr short3(short _x, short _y, short _z) : x(_x), y(_y), z(_z) {}
    __host__ __device__ explicit constexpr short3(short s) : x(s), y(s), z(s) {}
    __host__ __device__ short3& operator+=(const short3& o) { x += o.x; y += o.y; z += o.z; return *this; }
    __host__ __device__ short3& operator+=(short s) { x += s; y += s; z += s; return *this; }
    __host__ __device__ short3& operator-=(const short3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    __host__ __device__ short3& operator-=(short s) { x -= s; y -= s; z -= s; return *this; }
    __host__ __device__ short3& operator*=(const short3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
    __host__ __device__ short3& operator*=(short s) { x *= s; y *= s; z *= s; return *this; }
    __host__ __device__ short3& operator/=(const short3& o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
    __host__ __device__ short3& operator/=(short s) { x /= s; y /= s; z /= s; return *this; }
#endif
} short3;
#ifdef __cplusplus
__FERROCM_VHD short3 make_short3(short x, short y, short z) { return short3(x, y, z); }
__FERROCM_VHD short3 operator+(short3 a, const short3& b) { return a += b; }
__FERROCM_VHD short3 operator+(short3 a, short s) { return a += s; }
__FERROCM_VHD short3 operator+(short s, const short3& b) { short3 a(s, s, s); return a += b; }
__FERROCM_VHD short3 operator-(short3 a, const short3& b) { return a -= b; }
__FERROCM_VHD short3 operator-(short3 a, short s) { return a -= s; }
__FERROCM_VHD short3 operator-(short s, const short3& b) { short3 a(s, s, s); return a -= b; }
__FERROCM_VHD short3 operator*(short3 a, const short3& b) { return a *= b; }
__FERROCM_VHD short3 operator*(short3 a, short s) { return a *= s; }
__FERROCM_VHD short3 operator*(short s, const short3& b) { short3 a(s, s, s); return a *= b; }
__FERROCM_VHD short3 operator/(short3 a, const short3& b) { return a /= b; }
__FERROCM_VHD short3 operator/(short3 a, short s) { return a /= s; }
__FERROCM_VHD short3 operator/(short s, const short3& b) { short3 a(s, s, s); return a /= b; }
__FERROCM_VHD short3 operator-(const short3& a) { return short3(-a.x, -a.y, -a.z); }
__FERROCM_VHD bool operator==(const short3& a, const short3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__FERROCM_VHD bool operator!=(const short3& a, const short3& b) { return !(a == b); }
#else
__FERROCM_VHD short3 make_short3(short x, short y, short z) { short3 v; v.x = x; v.y = y; v.z = z; return v; }
#endif
typedef struct __attribute__((aligned(8))) short4 {
    short x, y, z, w;
#ifdef __cplusplus
    __host__ __device__ constexpr short4() : x(0), y(0), z(0), w(0) {}
    __host__ __device__ constexpr short4(short _x, short _y, short _z, short _w) : x(_x), y(_y), z(_z), w(_w) {}
    __host__ __device__ explicit constexpr short4(short s) : x(s), y(s), z(s), w(s) {}
    __host__ __device__ short4& operator+=(const short4& o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
    __host__ __device__ short4& operator+=(short s) { x += s; y += s; z += s; w += s; return *this; }
    __host__ __device__ short4& operator-=(const short4& o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
    __host__ __device__ short4& operator-=(short s) { x -= s; y -= s; z -= s; w -= s; return *this; }
    __host__ __device__ short4& operator*=(const short4& o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
    __host__ __device__ short4& operator*=(short s) { x *= s; y *= s; z *= s; w *= s; return *this; }
    __host__ __device__ short4& operator/=(const short4& o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
    __host__ __device__ short4& operator/=(short s) { x /= s; y /= s; z /= s; w /= s; return *this; }
#endif
} short4;
#ifdef __cplusplus
__FERROCM_VHD short4 make_short4(short x, short y, short z, short w) { return short4(x, y, z, w); }
__FERROCM_VHD short4 operator+(short4 a, const short4& b) { return a += b; }
__FERROCM_VHD short4 operator+(short4 a, short s) { return a += s; }
__FERROCM_VHD short4 operator+(short s, const short4& b) { short4 a(s, s, s, s); return a += b; }
__FERROCM_VHD short4 operator-(short4 a, const short4& b) { return a -= b; }
__FERROCM_VHD short4 operator-(short4 a, short s) { return a -= s; }
__FERROCM_VHD short4 operator-(short s, const short4& b) { short4 a(s, s, s, s); return a -= b; }
__FERROCM_VHD short4 operator*(short4 a, const short4& b) { return a *= b; }
__FERROCM_VHD short4 operator*(short4 a, short s) { return a *= s; }
__FERROCM_VHD short4 operator*(short s, const short4& b) { short4 a(s, s, s, s); return a *= b; }
__FERROCM_VHD short4 operator/(short4 a, const short4& b) { return a /= b; }
__FERROCM_VHD short4 operator/(short4 a, short s) { return a /= s; }
__FERROCM_VHD short4 operator/(short s, const short4& b) { short4 a(s, s, s, s); return a /= b; }
__FERROCM_VHD short4 operator-(const short4& a) { return short4(-a.x, -a.y, -a.z, -a.w); }
__FERROCM_VHD bool operator==(const short4& a, const short4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__FERROCM_VHD bool operator!=(const short4& a, const short4& b) { return !(a == b); }
#else
__FERROCM_VHD short4 make_short4(short x, short y, short z, short w) { short4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#endif
typedef struct __attribute__((aligned(2))) ushort1 {
    unsigned short x;
#ifdef __cplusplus
    __host__ __device__ constexpr ushort1() : x(0) {}
    __host__ __device__ constexpr ushort1(unsigned short _x) : x(_x) {}
    __host__ __device__ ushort1& operator+=(const ushort1& o) { x += o.x; return *this; }
    __host__ __device__ ushort1& operator+=(unsigned short s) { x += s; return *this; }
    __host__ __device__ ushort1& operator-=(const ushort1& o) { x -= o.x; return *this; }
    __host__ __device__ ushort1& operator-=(unsigned short s) { x -= s; return *this; }
    __host__ __device__ ushort1& operator*=(const ushort1& o) { x *= o.x; return *this; }
    __host__ __device__ ushort1& operator*=(unsigned short s) { x *= s; return *this; }
    __host__ __device__ ushort1& operator/=(const ushort1& o) { x /= o.x; return *this; }
    __host__ __device__ ushort1& operator/=(unsigned short s) { x /= s; return *this; }
#endif
} ushort1;
#ifdef __cplusplus
__FERROCM_VHD ushort1 make_ushort1(unsigned short x) { return ushort1(x); }
__FERROCM_VHD ushort1 operator+(ushort1 a, const ushort1& b) { return a += b; }
__FERROCM_VHD ushort1 operator+(ushort1 a, unsigned short s) { return a += s; }
__FERROCM_VHD ushort1 operator+(unsigned short s, const ushort1& b) { ushort1 a(s); return a += b; }
__FERROCM_VHD ushort1 operator-(ushort1 a, const ushort1& b) { return a -= b; }
__FERROCM_VHD ushort1 operator-(ushort1 a, unsigned short s) { return a -= s; }
__FERROCM_VHD ushort1 operator-(unsigned short s, const ushort1& b) { ushort1 a(s); return a -= b; }
__FERROCM_VHD ushort1 operator*(ushort1 a, const ushort1& b) { return a *= b; }
__FERROCM_VHD ushort1 operator*(ushort1 a, unsigned short s) { return a *= s; }
__FERROCM_VHD ushort1 operator*(unsigned short s, const ushort1& b) { ushort1 a(s); return a *= b; }
__FERROCM_VHD ushort1 operator/(ushort1 a, const ushort1& b) { return a /= b; }
__FERROCM_VHD ushort1 operator/(ushort1 a, unsigned short s) { return a /= s; }
__FERROCM_VHD ushort1 operator/(unsigned short s, const ushort1& b) { ushort1 a(s); return a /= b; }
__FERROCM_VHD bool operator==(const ushort1& a, const ushort1& b) { return a.x == b.x; }
__FERROCM_VHD bool operator!=(const ushort1& a, const ushort1& b) { return !(a == b); }
#else
__FERROCM_VHD ushort1 make_ushort1(unsigned short x) { ushort1 v; v.x = x; return v; }
#endif
typedef struct __attribute__((aligned(4))) ushort2 {
    unsigned short x, y;
#ifdef __cplusplus
    __host__ __device__ constexpr ushort2() : x(0), y(0) {}
    __host__ __device__ constexpr ushort2(unsigned short _x, unsigned short _y) : x(_x), y(_y) {}
    __host__ __device__ explicit constexpr ushort2(unsigned short s) : x(s), y(s) {}
    __host__ __device__ ushort2& operator+=(const ushort2& o) { x += o.x; y += o.y; return *this; }
    __host__ __device__ ushort2& operator+=(unsigned short s) { x += s; y += s; return *this; }
    __host__ __device__ ushort2& operator-=(const ushort2& o) { x -= o.x; y -= o.y; return *this; }
    __host__ __device__ ushort2& operator-=(unsigned short s) { x -= s; y -= s; return *this; }
    __host__ __device__ ushort2& operator*=(const ushort2& o) { x *= o.x; y *= o.y; return *this; }
    __host__ __device__ ushort2& operator*=(unsigned short s) { x *= s; y *= s; return *this; }
    __host__ __device__ ushort2& operator/=(const ushort2& o) { x /= o.x; y /= o.y; return *this; }
    __host__ __device__ ushort2& operator/=(unsigned short s) { x /= s; y /= s; return *this; }
#endif
} ushort2;
#ifdef __cplusplus
__FERROCM_VHD ushort2 make_ushort2(unsigned short x, unsigned short y) { return ushort2(x, y); }
__FERROCM_VHD ushort2 operator+(ushort2 a, const ushort2& b) { return a += b; }
__FERROCM_VHD ushort2 operator+(ushort2 a, unsigned short s) { return a += s; }
__FERROCM_VHD ushort2 operator+(unsigned short s, const ushort2& b) { ushort2 a(s, s); return a += b; }
__FERROCM_VHD ushort2 operator-(ushort2 a, const ushort2& b) { return a -= b; }
__FERROCM_VHD ushort2 operator-(ushort2 a, unsigned short s) { return a -= s; }
__FERROCM_VHD ushort2 operator-(unsigned short s, const ushort2& b) { ushort2 a(s, s); return a -= b; }
__FERROCM_VHD ushort2 operator*(ushort2 a, const ushort2& b) { return a *= b; }
__FERROCM_VHD ushort2 operator*(ushort2 a, unsigned short s) { return a *= s; }
__FERROCM_VHD ushort2 operator*(unsigned short s, const ushort2& b) { ushort2 a(s, s); return a *= b; }
__FERROCM_VHD ushort2 operator/(ushort2 a, const ushort2& b) { return a /= b; }
__FERROCM_VHD ushort2 operator/(ushort2 a, unsigned short s) { return a /= s; }
__FERROCM_VHD ushort2 operator/(unsigned short s, const ushort2& b) { ushort2 a(s, s); return a /= b; }
__FERROCM_VHD bool operator==(const ushort2& a, const ushort2& b) { return a.x == b.x && a.y == b.y; }
__FERROCM_VHD bool operator!=(const ushort2& a, const ushort2& b) { return !(a == b); }
#else
__FERROCM_VHD ushort2 make_ushort2(unsigned short x, unsigned short y) { ushort2 v; v.x = x; v.y = y; return v; }
#endif
typedef struct __attribute__((aligned(2))) ushort3 {
    unsigned short x, y, z;
#ifdef __cplusplus
    __host__ __device__ constexpr ushort3() : x(0), y(0), z(0) {}
    __host__ __device__ constexpr ushort3(unsigned short _x, unsigned short _y, unsigned short _z) : x(_x), y(_y), z(_z) {}
    __host__ __device__ explicit constexpr ushort3(unsigned short s) : x(s), y(s), z(s) {}
    __host__ __device__ ushort3& operator+=(const ushort3& o) { x += o.x; y += o.y; z += o.z; return *this; }
    __host__ __device__ ushort3& operator+=(unsigned short s) { x += s; y += s; z += s; return *this; }
    __host__ __device__ ushort3& operator-=(const ushort3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    __host__ __device__ ushort3& operator-=(unsigned short s) { x -= s; y -= s; z -= s; return *this; }
    __host__ __device__ ushort3& operator*=(const ushort3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
    __host__ __device__ ushort3& operator*=(unsigned short s) { x *= s; y *= s; z *= s; return *this; }
    __host__ __device__ ushort3& operator/=(const ushort3& o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
    __host__ __device__ ushort3& operator/=(unsigned short s) { x /= s; y /= s; z /= s; return *this; }
#endif
} ushort3;
#ifdef __cplusplus
__FERROCM_VHD ushort3 make_ushort3(unsigned short x, unsigned short y, unsigned short z) { return ushort3(x, y, z); }
__FERROCM_VHD ushort3 operator+(ushort3 a, const ushort3& b) { return a += b; }
__FERROCM_VHD ushort3 operator+(ushort3 a, unsigned short s) { return a += s; }
__FERROCM_VHD ushort3 operator+(unsigned short s, const ushort3& b) { ushort3 a(s, s, s); return a += b; }
__FERROCM_VHD ushort3 operator-(ushort3 a, const ushort3& b) { return a -= b; }
__FERROCM_VHD ushort3 operator-(ushort3 a, unsigned short s) { return a -= s; }
__FERROCM_VHD ushort3 operator-(unsigned short s, const ushort3& b) { ushort3 a(s, s, s); return a -= b; }
__FERROCM_VHD ushort3 operator*(ushort3 a, const ushort3& b) { return a *= b; }
__FERROCM_VHD ushort3 operator*(ushort3 a, unsigned short s) { return a *= s; }
__FERROCM_VHD ushort3 operator*(unsigned short s, const ushort3& b) { ushort3 a(s, s, s); return a *= b; }
__FERROCM_VHD ushort3 operator/(ushort3 a, const ushort3& b) { return a /= b; }
__FERROCM_VHD ushort3 operator/(ushort3 a, unsigned short s) { return a /= s; }
__FERROCM_VHD ushort3 operator/(unsigned short s, const ushort3& b) { ushort3 a(s, s, s); return a /= b; }
__FERROCM_VHD bool operator==(const ushort3& a, const ushort3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__FERROCM_VHD bool operator!=(const ushort3& a, const ushort3& b) { return !(a == b); }
#else
__FERROCM_VHD ushort3 make_ushort3(unsigned short x, unsigned short y, unsigned short z) { ushort3 v; v.x = x; v.y = y; v.z = z; return v; }
#endif
typedef struct __attribute__((aligned(8))) ushort4 {
    unsigned short x, y, z, w;
#ifdef __cplusplus
    __host__ __device__ constexpr ushort4() : x(0), y(0), z(0), w(0) {}
    __host__ __device__ constexpr ushort4(unsigned short _x, unsigned short _y, unsigned short _z, unsigned short _w) : x(_x), y(_y), z(_z), w(_w) {}
    __host__ __device__ explicit constexpr ushort4(unsigned short s) : x(s), y(s), z(s), w(s) {}
    __host__ __device__ ushort4& operator+=(const ushort4& o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
    __host__ __device__ ushort4& operator+=(unsigned short s) { x += s; y += s; z += s; w += s; return *this; }
    __host__ __device__ ushort4& operator-=(const ushort4& o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
    __host__ __device__ ushort4& operator-=(unsigned short s) { x -= s; y -= s; z -= s; w -= s; return *this; }
    __host__ __device__ ushort4& operator*=(const ushort4& o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
    __host__ __device__ ushort4& operator*=(unsigned short s) { x *= s; y *= s; z *= s; w *= s; return *this; }
    __host__ __device__ ushort4& operator/=(const ushort4& o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
    __host__ __device__ ushort4& operator/=(unsigned short s) { x /= s; y /= s; z /= s; w /= s; return *this; }
#endif
} ushort4;
#ifdef __cplusplus
__FERROCM_VHD ushort4 make_ushort4(unsigned short x, unsigned short y, unsigned short z, unsigned short w) { return ushort4(x, y, z, w); }
__FERROCM_VHD ushort4 operator+(ushort4 a, const ushort4& b) { return a += b; }
__FERROCM_VHD ushort4 operator+(ushort4 a, unsigned short s) { return a += s; }
__FERROCM_VHD ushort4 operator+(unsigned short s, const ushort4& b) { ushort4 a(s, s, s, s); return a += b; }
__FERROCM_VHD ushort4 operator-(ushort4 a, const ushort4& b) { return a -= b; }
__FERROCM_VHD ushort4 operator-(ushort4 a, unsigned short s) { return a -= s; }
__FERROCM_VHD ushort4 operator-(unsigned short s, const ushort4& b) { ushort4 a(s, s, s, s); return a -= b; }
__FERROCM_VHD ushort4 operator*(ushort4 a, const ushort4& b) { return a *= b; }
__FERROCM_VHD ushort4 operator*(ushort4 a, unsigned short s) { return a *= s; }
__FERROCM_VHD ushort4 operator*(unsigned short s, const ushort4& b) { ushort4 a(s, s, s, s); return a *= b; }
__FERROCM_VHD ushort4 operator/(ushort4 a, const ushort4& b) { return a /= b; }
__FERROCM_VHD ushort4 operator/(ushort4 a, unsigned short s) { return a /= s; }
__FERROCM_VHD ushort4 operator/(unsigned short s, const ushort4& b) { ushort4 a(s, s, s, s); return a /= b; }
__FERROCM_VHD bool operator==(const ushort4& a, const ushort4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__FERROCM_VHD bool operator!=(const ushort4& a, const ushort4& b) { return !(a == b); }
#else
__FERROCM_VHD ushort4 make_ushort4(unsigned short x, unsigned short y, unsigned short z, unsigned short w) { ushort4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#endif
typedef struct __attribute__((aligned(4))) int1 {
    int x;
#ifdef __cplusplus
    __host__ __device__ constexpr int1() : x(0) {}
    __host__ __device__ constexpr int1(int _x) : x(_x) {}
    __host__ __device__ int1& operator+=(const int1& o) { x += o.x; return *this; }
    __host__ __device__ int1& operator+=(int s) { x += s; return *this; }
    __host__ __device__ int1& operator-=(const int1& o) { x -= o.x; return *this; }
    __host__ __device__ int1& operator-=(int s) { x -= s; return *this; }
    __host__ __device__ int1& operator*=(const int1& o) { x *= o.x; return *this; }
    __host__ __device__ int1& operator*=(int s) { x *= s; return *this; }
    __host__ __device__ int1& operator/=(const int1& o) { x /= o.x; return *this; }
    __host__ __device__ int1& operator/=(int s) { x /= s; return *this; }
#endif
} int1;
#ifdef __cplusplus
__FERROCM_VHD int1 make_int1(int x) { return int1(x); }
__FERROCM_VHD int1 operator+(int1 a, const int1& b) { return a += b; }
__FERROCM_VHD int1 operator+(int1 a, int s) { return a += s; }
__FERROCM_VHD int1 operator+(int s, const int1& b) { int1 a(s); return a += b; }
__FERROCM_VHD int1 operator-(int1 a, const int1& b) { return a -= b; }
__FERROCM_VHD int1 operator-(int1 a, int s) { return a -= s; }
__FERROCM_VHD int1 operator-(int s, const int1& b) { int1 a(s); return a -= b; }
__FERROCM_VHD int1 operator*(int1 a, const int1& b) { return a *= b; }
__FERROCM_VHD int1 operator*(int1 a, int s) { return a *= s; }
__FERROCM_VHD int1 operator*(int s, const int1& b) { int1 a(s); return a *= b; }
__FERROCM_VHD int1 operator/(int1 a, const int1& b) { return a /= b; }
__FERROCM_VHD int1 operator/(int1 a, int s) { return a /= s; }
__FERROCM_VHD int1 operator/(int s, const int1& b) { int1 a(s); return a /= b; }
__FERROCM_VHD int1 operator-(const int1& a) { return int1(-a.x); }
__FERROCM_VHD bool operator==(const int1& a, const int1& b) { return a.x == b.x; }
__FERROCM_VHD bool operator!=(const int1& a, const int1& b) { return !(a == b); }
#else
__FERROCM_VHD int1 make_int1(int x) { int1 v; v.x = x; return v; }
#endif
typedef struct __attribute__((aligned(8))) int2 {
    int x, y;
#ifdef __cplusplus
    __host__ __device__ constexpr int2() : x(0), y(0) {}
    __host__ __device__ constexpr int2(int _x, int _y) : x(_x), y(_y) {}
    __host__ __device__ explicit constexpr int2(int s) : x(s), y(s) {}
    __host__ __device__ int2& operator+=(const int2& o) { x += o.x; y += o.y; return *this; }
    __host__ __device__ int2& operator+=(int s) { x += s; y += s; return *this; }
    __host__ __device__ int2& operator-=(const int2& o) { x -= o.x; y -= o.y; return *this; }
    __host__ __device__ int2& operator-=(int s) { x -= s; y -= s; return *this; }
    __host__ __device__ int2& operator*=(const int2& o) { x *= o.x; y *= o.y; return *this; }
    __host__ __device__ int2& operator*=(int s) { x *= s; y *= s; return *this; }
    __host__ __device__ int2& operator/=(const int2& o) { x /= o.x; y /= o.y; return *this; }
    __host__ __device__ int2& operator/=(int s) { x /= s; y /= s; return *this; }
#endif
} int2;
#ifdef __cplusplus
__FERROCM_VHD int2 make_int2(int x, int y) { return int2(x, y); }
__FERROCM_VHD int2 operator+(int2 a, const int2& b) { return a += b; }
__FERROCM_VHD int2 operator+(int2 a, int s) { return a += s; }
__FERROCM_VHD int2 operator+(int s, const int2& b) { int2 a(s, s); return a += b; }
__FERROCM_VHD int2 operator-(int2 a, const int2& b) { return a -= b; }
__FERROCM_VHD int2 operator-(int2 a, int s) { return a -= s; }
__FERROCM_VHD int2 operator-(int s, const int2& b) { int2 a(s, s); return a -= b; }
__FERROCM_VHD int2 operator*(int2 a, const int2& b) { return a *= b; }
__FERROCM_VHD int2 operator*(int2 a, int s) { return a *= s; }
__FERROCM_VHD int2 operator*(int s, const int2& b) { int2 a(s, s); return a *= b; }
__FERROCM_VHD int2 operator/(int2 a, const int2& b) { return a /= b; }
__FERROCM_VHD int2 operator/(int2 a, int s) { return a /= s; }
__FERROCM_VHD int2 operator/(int s, const int2& b) { int2 a(s, s); return a /= b; }
__FERROCM_VHD int2 operator-(const int2& a) { return int2(-a.x, -a.y); }
__FERROCM_VHD bool operator==(const int2& a, const int2& b) { return a.x == b.x && a.y == b.y; }
__FERROCM_VHD bool operator!=(const int2& a, const int2& b) { return !(a == b); }
#else
__FERROCM_VHD int2 make_int2(int x, int y) { int2 v; v.x = x; v.y = y; return v; }
#endif
typedef struct __attribute__((aligned(4))) int3 {
    int x, y, z;
#ifdef __cplusplus
    __host__ __device__ constexpr int3() : x(0), y(0), z(0) {}
    __host__ __device__ constexpr int3(int _x, int _y, int _z) : x(_x), y(_y), z(_z) {}
    __host__ __device__ explicit constexpr int3(int s) : x(s), y(s), z(s) {}
    __host__ __device__ int3& operator+=(const int3& o) { x += o.x; y += o.y; z += o.z; return *this; }
    __host__ __device__ int3& operator+=(int s) { x += s; y += s; z += s; return *this; }
    __host__ __device__ int3& operator-=(const int3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    __host__ __device__ int3& operator-=(int s) { x -= s; y -= s; z -= s; return *this; }
    __host__ __device__ int3& operator*=(const int3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
    __host__ __device__ int3& operator*=(int s) { x *= s; y *= s; z *= s; return *this; }
    __host__ __device__ int3& operator/=(const int3& o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
    __host__ __device__ int3& operator/=(int s) { x /= s; y /= s; z /= s; return *this; }
#endif
} int3;
#ifdef __cplusplus
__FERROCM_VHD int3 make_int3(int x, int y, int z) { return int3(x, y, z); }
__FERROCM_VHD int3 operator+(int3 a, const int3& b) { return a += b; }
__FERROCM_VHD int3 operator+(int3 a, int s) { return a += s; }
__FERROCM_VHD int3 operator+(int s, const int3& b) { int3 a(s, s, s); return a += b; }
__FERROCM_VHD int3 operator-(int3 a, const int3& b) { return a -= b; }
__FERROCM_VHD int3 operator-(int3 a, int s) { return a -= s; }
__FERROCM_VHD int3 operator-(int s, const int3& b) { int3 a(s, s, s); return a -= b; }
__FERROCM_VHD int3 operator*(int3 a, const int3& b) { return a *= b; }
__FERROCM_VHD int3 operator*(int3 a, int s) { return a *= s; }
__FERROCM_VHD int3 operator*(int s, const int3& b) { int3 a(s, s, s); return a *= b; }
__FERROCM_VHD int3 operator/(int3 a, const int3& b) { return a /= b; }
__FERROCM_VHD int3 operator/(int3 a, int s) { return a /= s; }
__FERROCM_VHD int3 operator/(int s, const int3& b) { int3 a(s, s, s); return a /= b; }
__FERROCM_VHD int3 operator-(const int3& a) { return int3(-a.x, -a.y, -a.z); }
__FERROCM_VHD bool operator==(const int3& a, const int3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__FERROCM_VHD bool operator!=(const int3& a, const int3& b) { return !(a == b); }
#else
__FERROCM_VHD int3 make_int3(int x, int y, int z) { int3 v; v.x = x; v.y = y; v.z = z; return v; }
#endif
typedef struct __attribute__((aligned(16))) int4 {
    int x, y, z, w;
#ifdef __cplusplus
    __host__ __device__ constexpr int4() : x(0), y(0), z(0), w(0) {}
    __host__ __device__ constexpr int4(int _x, int _y, int _z, int _w) : x(_x), y(_y), z(_z), w(_w) {}
    __host__ __device__ explicit constexpr int4(int s) : x(s), y(s), z(s), w(s) {}
    __host__ __device__ int4& operator+=(const int4& o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
    __host__ __device__ int4& operator+=(int s) { x += s; y += s; z += s; w += s; return *this; }
    __host__ __device__ int4& operator-=(const int4& o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
    __host__ __device__ int4& operator-=(int s) { x -= s; y -= s; z -= s; w -= s; return *this; }
    __host__ __device__ int4& operator*=(const int4& o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
    __host__ __device__ int4& operator*=(int s) { x *= s; y *= s; z *= s; w *= s; return *this; }
    __host__ __device__ int4& operator/=(const int4& o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
    __host__ __device__ int4& operator/=(int s) { x /= s; y /= s; z /= s; w /= s; return *this; }
#endif
} int4;
#ifdef __cplusplus
__FERROCM_VHD int4 make_int4(int x, int y, int z, int w) { return int4(x, y, z, w); }
__FERROCM_VHD int4 operator+(int4 a, const int4& b) { return a += b; }
__FERROCM_VHD int4 operator+(int4 a, int s) { return a += s; }
__FERROCM_VHD int4 operator+(int s, const int4& b) { int4 a(s, s, s, s); return a += b; }
__FERROCM_VHD int4 operator-(int4 a, const int4& b) { return a -= b; }
__FERROCM_VHD int4 operator-(int4 a, int s) { return a -= s; }
__FERROCM_VHD int4 operator-(int s, const int4& b) { int4 a(s, s, s, s); return a -= b; }
__FERROCM_VHD int4 operator*(int4 a, const int4& b) { return a *= b; }
__FERROCM_VHD int4 operator*(int4 a, int s) { return a *= s; }
__FERROCM_VHD int4 operator*(int s, const int4& b) { int4 a(s, s, s, s); return a *= b; }
__FERROCM_VHD int4 operator/(int4 a, const int4& b) { return a /= b; }
__FERROCM_VHD int4 operator/(int4 a, int s) { return a /= s; }
__FERROCM_VHD int4 operator/(int s, const int4& b) { int4 a(s, s, s, s); return a /= b; }
__FERROCM_VHD int4 operator-(const int4& a) { return int4(-a.x, -a.y, -a.z, -a.w); }
__FERROCM_VHD bool operator==(const int4& a, const int4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__FERROCM_VHD bool operator!=(const int4& a, const int4& b) { return !(a == b); }
#else
__FERROCM_VHD int4 make_int4(int x, int y, int z, int w) { int4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#endif
typedef struct __attribute__((aligned(4))) uint1 {
    unsigned int x;
#ifdef __cplusplus
    __host__ __device__ constexpr uint1() : x(0) {}
    __host__ __device__ constexpr uint1(unsigned int _x) : x(_x) {}
    __host__ __device__ uint1& operator+=(const uint1& o) { x += o.x; return *this; }
    __host__ __device__ uint1& operator+=(unsigned int s) { x += s; return *this; }
    __host__ __device__ uint1& operator-=(const uint1& o) { x -= o.x; return *this; }
    __host__ __device__ uint1& operator-=(unsigned int s) { x -= s; return *this; }
    __host__ __device__ uint1& operator*=(const uint1& o) { x *= o.x; return *this; }
    __host__ __device__ uint1& operator*=(unsigned int s) { x *= s; return *this; }
    __host__ __device__ uint1& operator/=(const uint1& o) { x /= o.x; return *this; }
    __host__ __device__ uint1& operator/=(unsigned int s) { x /= s; return *this; }
#endif
} uint1;
#ifdef __cplusplus
__FERROCM_VHD uint1 make_uint1(unsigned int x) { return uint1(x); }
__FERROCM_VHD uint1 operator+(uint1 a, const uint1& b) { return a += b; }
__FERROCM_VHD uint1 operator+(uint1 a, unsigned int s) { return a += s; }
__FERROCM_VHD uint1 operator+(unsigned int s, const uint1& b) { uint1 a(s); return a += b; }
__FERROCM_VHD uint1 operator-(uint1 a, const uint1& b) { return a -= b; }
__FERROCM_VHD uint1 operator-(uint1 a, unsigned int s) { return a -= s; }
__FERROCM_VHD uint1 operator-(unsigned int s, const uint1& b) { uint1 a(s); return a -= b; }
__FERROCM_VHD uint1 operator*(uint1 a, const uint1& b) { return a *= b; }
__FERROCM_VHD uint1 operator*(uint1 a, unsigned int s) { return a *= s; }
__FERROCM_VHD uint1 operator*(unsigned int s, const uint1& b) { uint1 a(s); return a *= b; }
__FERROCM_VHD uint1 operator/(uint1 a, const uint1& b) { return a /= b; }
__FERROCM_VHD uint1 operator/(uint1 a, unsigned int s) { return a /= s; }
__FERROCM_VHD uint1 operator/(unsigned int s, const uint1& b) { uint1 a(s); return a /= b; }
__FERROCM_VHD bool operator==(const uint1& a, const uint1& b) { return a.x == b.x; }
__FERROCM_VHD bool operator!=(const uint1& a, const uint1& b) { return !(a == b); }
#else
__FERROCM_VHD uint1 make_uint1(unsigned int x) { uint1 v; v.x = x; return v; }
#endif
typedef struct __attribute__((aligned(8))) uint2 {
    unsigned int x, y;
#ifdef __cplusplus
    __host__ __device__ constexpr uint2() : x(0), y(0) {}
    __host__ __device__ constexpr uint2(unsigned int _x, unsigned int _y) : x(_x), y(_y) {}
    __host__ __device__ explicit constexpr uint2(unsigned int s) : x(s), y(s) {}
    __host__ __device__ uint2& operator+=(const uint2& o) { x += o.x; y += o.y; return *this; }
    __host__ __device__ uint2& operator+=(unsigned int s) { x += s; y += s; return *this; }
    __host__ __device__ uint2& operator-=(const uint2& o) { x -= o.x; y -= o.y; return *this; }
    __host__ __device__ uint2& operator-=(unsigned int s) { x -= s; y -= s; return *this; }
    __host__ __device__ uint2& operator*=(const uint2& o) { x *= o.x; y *= o.y; return *this; }
    __host__ __device__ uint2& operator*=(unsigned int s) { x *= s; y *= s; return *this; }
    __host__ __device__ uint2& operator/=(const uint2& o) { x /= o.x; y /= o.y; return *this; }
    __host__ __device__ uint2& operator/=(unsigned int s) { x /= s; y /= s; return *this; }
#endif
} uint2;
#ifdef __cplusplus
__FERROCM_VHD uint2 make_uint2(unsigned int x, unsigned int y) { return uint2(x, y); }
__FERROCM_VHD uint2 operator+(uint2 a, const uint2& b) { return a += b; }
__FERROCM_VHD uint2 operator+(uint2 a, unsigned int s) { return a += s; }
__FERROCM_VHD uint2 operator+(unsigned int s, const uint2& b) { uint2 a(s, s); return a += b; }
__FERROCM_VHD uint2 operator-(uint2 a, const uint2& b) { return a -= b; }
__FERROCM_VHD uint2 operator-(uint2 a, unsigned int s) { return a -= s; }
__FERROCM_VHD uint2 operator-(unsigned int s, const uint2& b) { uint2 a(s, s); return a -= b; }
__FERROCM_VHD uint2 operator*(uint2 a, const uint2& b) { return a *= b; }
__FERROCM_VHD uint2 operator*(uint2 a, unsigned int s) { return a *= s; }
__FERROCM_VHD uint2 operator*(unsigned int s, const uint2& b) { uint2 a(s, s); return a *= b; }
__FERROCM_VHD uint2 operator/(uint2 a, const uint2& b) { return a /= b; }
__FERROCM_VHD uint2 operator/(uint2 a, unsigned int s) { return a /= s; }
__FERROCM_VHD uint2 operator/(unsigned int s, const uint2& b) { uint2 a(s, s); return a /= b; }
__FERROCM_VHD bool operator==(const uint2& a, const uint2& b) { return a.x == b.x && a.y == b.y; }
__FERROCM_VHD bool operator!=(const uint2& a, const uint2& b) { return !(a == b); }
#else
__FERROCM_VHD uint2 make_uint2(unsigned int x, unsigned int y) { uint2 v; v.x = x; v.y = y; return v; }
#endif
typedef struct __attribute__((aligned(4))) uint3 {
    unsigned int x, y, z;
#ifdef __cplusplus
    __host__ __device__ constexpr uint3() : x(0), y(0), z(0) {}
    __host__ __device__ constexpr uint3(unsigned int _x, unsigned int _y, unsigned int _z) : x(_x), y(_y), z(_z) {}
    __host__ __device__ explicit constexpr uint3(unsigned int s) : x(s), y(s), z(s) {}
    __host__ __device__ uint3& operator+=(const uint3& o) { x += o.x; y += o.y; z += o.z; return *this; }
    __host__ __device__ uint3& operator+=(unsigned int s) { x += s; y += s; z += s; return *this; }
    __host__ __device__ uint3& operator-=(const uint3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    __host__ __device__ uint3& operator-=(unsigned int s) { x -= s; y -= s; z -= s; return *this; }
    __host__ __device__ uint3& operator*=(const uint3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
    __host__ __device__ uint3& operator*=(unsigned int s) { x *= s; y *= s; z *= s; return *this; }
    __host__ __device__ uint3& operator/=(const uint3& o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
    __host__ __device__ uint3& operator/=(unsigned int s) { x /= s; y /= s; z /= s; return *this; }
#endif
} uint3;
#ifdef __cplusplus
__FERROCM_VHD uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return uint3(x, y, z); }
__FERROCM_VHD uint3 operator+(uint3 a, const uint3& b) { return a += b; }
__FERROCM_VHD uint3 operator+(uint3 a, unsigned int s) { return a += s; }
__FERROCM_VHD uint3 operator+(unsigned int s, const uint3& b) { uint3 a(s, s, s); return a += b; }
__FERROCM_VHD uint3 operator-(uint3 a, const uint3& b) { return a -= b; }
__FERROCM_VHD uint3 operator-(uint3 a, unsigned int s) { return a -= s; }
__FERROCM_VHD uint3 operator-(unsigned int s, const uint3& b) { uint3 a(s, s, s); return a -= b; }
__FERROCM_VHD uint3 operator*(uint3 a, const uint3& b) { return a *= b; }
__FERROCM_VHD uint3 operator*(uint3 a, unsigned int s) { return a *= s; }
__FERROCM_VHD uint3 operator*(unsigned int s, const uint3& b) { uint3 a(s, s, s); return a *= b; }
__FERROCM_VHD uint3 operator/(uint3 a, const uint3& b) { return a /= b; }
__FERROCM_VHD uint3 operator/(uint3 a, unsigned int s) { return a /= s; }
__FERROCM_VHD uint3 operator/(unsigned int s, const uint3& b) { uint3 a(s, s, s); return a /= b; }
__FERROCM_VHD bool operator==(const uint3& a, const uint3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__FERROCM_VHD bool operator!=(const uint3& a, const uint3& b) { return !(a == b); }
#else
__FERROCM_VHD uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { uint3 v; v.x = x; v.y = y; v.z = z; return v; }
#endif
typedef struct __attribute__((aligned(16))) uint4 {
    unsigned int x, y, z, w;
#ifdef __cplusplus
    __host__ __device__ constexpr uint4() : x(0), y(0), z(0), w(0) {}
    __host__ __device__ constexpr uint4(unsigned int _x, unsigned int _y, unsigned int _z, unsigned int _w) : x(_x), y(_y), z(_z), w(_w) {}
    __host__ __device__ explicit constexpr uint4(unsigned int s) : x(s), y(s), z(s), w(s) {}
    __host__ __device__ uint4& operator+=(const uint4& o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
    __host__ __device__ uint4& operator+=(unsigned int s) { x += s; y += s; z += s; w += s; return *this; }
    __host__ __device__ uint4& operator-=(const uint4& o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
    __host__ __device__ uint4& operator-=(unsigned int s) { x -= s; y -= s; z -= s; w -= s; return *this; }
    __host__ __device__ uint4& operator*=(const uint4& o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
    __host__ __device__ uint4& operator*=(unsigned int s) { x *= s; y *= s; z *= s; w *= s; return *this; }
    __host__ __device__ uint4& operator/=(const uint4& o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
    __host__ __device__ uint4& operator/=(unsigned int s) { x /= s; y /= s; z /= s; w /= s; return *this; }
#endif
} uint4;
#ifdef __cplusplus
__FERROCM_VHD uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { return uint4(x, y, z, w); }
__FERROCM_VHD uint4 operator+(uint4 a, const uint4& b) { return a += b; }
__FERROCM_VHD uint4 operator+(uint4 a, unsigned int s) { return a += s; }
__FERROCM_VHD uint4 operator+(unsigned int s, const uint4& b) { uint4 a(s, s, s, s); return a += b; }
__FERROCM_VHD uint4 operator-(uint4 a, const uint4& b) { return a -= b; }
__FERROCM_VHD uint4 operator-(uint4 a, unsigned int s) { return a -= s; }
__FERROCM_VHD uint4 operator-(unsigned int s, const uint4& b) { uint4 a(s, s, s, s); return a -= b; }
__FERROCM_VHD uint4 operator*(uint4 a, const uint4& b) { return a *= b; }
__FERROCM_VHD uint4 operator*(uint4 a, unsigned int s) { return a *= s; }
__FERROCM_VHD uint4 operator*(unsigned int s, const uint4& b) { uint4 a(s, s, s, s); return a *= b; }
__FERROCM_VHD uint4 operator/(uint4 a, const uint4& b) { return a /= b; }
__FERROCM_VHD uint4 operator/(uint4 a, unsigned int s) { return a /= s; }
__FERROCM_VHD uint4 operator/(unsigned int s, const uint4& b) { uint4 a(s, s, s, s); return a /= b; }
__FERROCM_VHD bool operator==(const uint4& a, const uint4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__FERROCM_VHD bool operator!=(const uint4& a, const uint4& b) { return !(a == b); }
#else
__FERROCM_VHD uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { uint4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#endif
typedef struct __attribute__((aligned(8))) long1 {
    long x;
#ifdef __cplusplus
    __host__ __device__ constexpr long1() : x(0) {}
    __host__ __device__ constexpr long1(long _x) : x(_x) {}
    __host__ __device__ long1& operator+=(const long1& o) { x += o.x; return *this; }
    __host__ __device__ long1& operator+=(long s) { x += s; return *this; }
    __host__ __device__ long1& operator-=(const long1& o) { x -= o.x; return *this; }
    __host__ __device__ long1& operator-=(long s) { x -= s; return *this; }
    __host__ __device__ long1& operator*=(const long1& o) { x *= o.x; return *this; }
    __host__ __device__ long1& operator*=(long s) { x *= s; return *this; }
    __host__ __device__ long1& operator/=(const long1& o) { x /= o.x; return *this; }
    __host__ __device__ long1& operator/=(long s) { x /= s; return *this; }
#endif
} long1;
#ifdef __cplusplus
__FERROCM_VHD long1 make_long1(long x) { return long1(x); }
__FERROCM_VHD long1 operator+(long1 a, const long1& b) { return a += b; }
__FERROCM_VHD long1 operator+(long1 a, long s) { return a += s; }
__FERROCM_VHD long1 operator+(long s, const long1& b) { long1 a(s); return a += b; }
__FERROCM_VHD long1 operator-(long1 a, const long1& b) { return a -= b; }
__FERROCM_VHD long1 operator-(long1 a, long s) { return a -= s; }
__FERROCM_VHD long1 operator-(long s, const long1& b) { long1 a(s); return a -= b; }
__FERROCM_VHD long1 operator*(long1 a, const long1& b) { return a *= b; }
__FERROCM_VHD long1 operator*(long1 a, long s) { return a *= s; }
__FERROCM_VHD long1 operator*(long s, const long1& b) { long1 a(s); return a *= b; }
__FERROCM_VHD long1 operator/(long1 a, const long1& b) { return a /= b; }
__FERROCM_VHD long1 operator/(long1 a, long s) { return a /= s; }
__FERROCM_VHD long1 operator/(long s, const long1& b) { long1 a(s); return a /= b; }
__FERROCM_VHD long1 operator-(const long1& a) { return long1(-a.x); }
__FERROCM_VHD bool operator==(const long1& a, const long1& b) { return a.x == b.x; }
__FERROCM_VHD bool operator!=(const long1& a, const long1& b) { return !(a == b); }
#else
__FERROCM_VHD long1 make_long1(long x) { long1 v; v.x = x; return v; }
#endif
typedef struct __attribute__((aligned(16))) long2 {
    long x, y;
#ifdef __cplusplus
    __host__ __device__ constexpr long2() : x(0), y(0) {}
    __host__ __device__ constexpr long2(long _x, long _y) : x(_x), y(_y) {}
    __host__ __device__ explicit constexpr long2(long s) : x(s), y(s) {}
    __host__ __device__ long2& operator+=(const long2& o) { x += o.x; y += o.y; return *this; }
    __host__ __device__ long2& operator+=(long s) { x += s; y += s; return *this; }
    __host__ __device__ long2& operator-=(const long2& o) { x -= o.x; y -= o.y; return *this; }
    __host__ __device__ long2& operator-=(long s) { x -= s; y -= s; return *this; }
    __host__ __device__ long2& operator*=(const long2& o) { x *= o.x; y *= o.y; return *this; }
    __host__ __device__ long2& operator*=(long s) { x *= s; y *= s; return *this; }
    __host__ __device__ long2& operator/=(const long2& o) { x /= o.x; y /= o.y; return *this; }
    __host__ __device__ long2& operator/=(long s) { x /= s; y /= s; return *this; }
#endif
} long2;
#ifdef __cplusplus
__FERROCM_VHD long2 make_long2(long x, long y) { return long2(x, y); }
__FERROCM_VHD long2 operator+(long2 a, const long2& b) { return a += b; }
__FERROCM_VHD long2 operator+(long2 a, long s) { return a += s; }
__FERROCM_VHD long2 operator+(long s, const long2& b) { long2 a(s, s); return a += b; }
__FERROCM_VHD long2 operator-(long2 a, const long2& b) { return a -= b; }
__FERROCM_VHD long2 operator-(long2 a, long s) { return a -= s; }
__FERROCM_VHD long2 operator-(long s, const long2& b) { long2 a(s, s); return a -= b; }
__FERROCM_VHD long2 operator*(long2 a, const long2& b) { return a *= b; }
__FERROCM_VHD long2 operator*(long2 a, long s) { return a *= s; }
__FERROCM_VHD long2 operator*(long s, const long2& b) { long2 a(s, s); return a *= b; }
__FERROCM_VHD long2 operator/(long2 a, const long2& b) { return a /= b; }
__FERROCM_VHD long2 operator/(long2 a, long s) { return a /= s; }
__FERROCM_VHD long2 operator/(long s, const long2& b) { long2 a(s, s); return a /= b; }
__FERROCM_VHD long2 operator-(const long2& a) { return long2(-a.x, -a.y); }
__FERROCM_VHD bool operator==(const long2& a, const long2& b) { return a.x == b.x && a.y == b.y; }
__FERROCM_VHD bool operator!=(const long2& a, const long2& b) { return !(a == b); }
#else
__FERROCM_VHD long2 make_long2(long x, long y) { long2 v; v.x = x; v.y = y; return v; }
#endif
typedef struct __attribute__((aligned(8))) long3 {
    long x, y, z;
#ifdef __cplusplus
    __host__ __device__ constexpr long3() : x(0), y(0), z(0) {}
    __host__ __device__ constexpr long3(long _x, long _y, long _z) : x(_x), y(_y), z(_z) {}
    __host__ __device__ explicit constexpr long3(long s) : x(s), y(s), z(s) {}
    __host__ __device__ long3& operator+=(const long3& o) { x += o.x; y += o.y; z += o.z; return *this; }
    __host__ __device__ long3& operator+=(long s) { x += s; y += s; z += s; return *this; }
    __host__ __device__ long3& operator-=(const long3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    __host__ __device__ long3& operator-=(long s) { x -= s; y -= s; z -= s; return *this; }
    __host__ __device__ long3& operator*=(const long3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
    __host__ __device__ long3& operator*=(long s) { x *= s; y *= s; z *= s; return *this; }
    __host__ __device__ long3& operator/=(const long3& o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
    __host__ __device__ long3& operator/=(long s) { x /= s; y /= s; z /= s; return *this; }
#endif
} long3;
#ifdef __cplusplus
__FERROCM_VHD long3 make_long3(long x, long y, long z) { return long3(x, y, z); }
__FERROCM_VHD long3 operator+(long3 a, const long3& b) { return a += b; }
__FERROCM_VHD long3 operator+(long3 a, long s) { return a += s; }
__FERROCM_VHD long3 operator+(long s, const long3& b) { long3 a(s, s, s); return a += b; }
__FERROCM_VHD long3 operator-(long3 a, const long3& b) { return a -= b; }
__FERROCM_VHD long3 operator-(long3 a, long s) { return a -= s; }
__FERROCM_VHD long3 operator-(long s, const long3& b) { long3 a(s, s, s); return a -= b; }
__FERROCM_VHD long3 operator*(long3 a, const long3& b) { return a *= b; }
__FERROCM_VHD long3 operator*(long3 a, long s) { return a *= s; }
__FERROCM_VHD long3 operator*(long s, const long3& b) { long3 a(s, s, s); return a *= b; }
__FERROCM_VHD long3 operator/(long3 a, const long3& b) { return a /= b; }
__FERROCM_VHD long3 operator/(long3 a, long s) { return a /= s; }
__FERROCM_VHD long3 operator/(long s, const long3& b) { long3 a(s, s, s); return a /= b; }
__FERROCM_VHD long3 operator-(const long3& a) { return long3(-a.x, -a.y, -a.z); }
__FERROCM_VHD bool operator==(const long3& a, const long3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__FERROCM_VHD bool operator!=(const long3& a, const long3& b) { return !(a == b); }
#else
__FERROCM_VHD long3 make_long3(long x, long y, long z) { long3 v; v.x = x; v.y = y; v.z = z; return v; }
#endif
typedef struct __attribute__((aligned(16))) long4 {
    long x, y, z, w;
#ifdef __cplusplus
    __host__ __device__ constexpr long4() : x(0), y(0), z(0), w(0) {}
    __host__ __device__ constexpr long4(long _x, long _y, long _z, long _w) : x(_x), y(_y), z(_z), w(_w) {}
    __host__ __device__ explicit constexpr long4(long s) : x(s), y(s), z(s), w(s) {}
    __host__ __device__ long4& operator+=(const long4& o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
    __host__ __device__ long4& operator+=(long s) { x += s; y += s; z += s; w += s; return *this; }
    __host__ __device__ long4& operator-=(const long4& o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
    __host__ __device__ long4& operator-=(long s) { x -= s; y -= s; z -= s; w -= s; return *this; }
    __host__ __device__ long4& operator*=(const long4& o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
    __host__ __device__ long4& operator*=(long s) { x *= s; y *= s; z *= s; w *= s; return *this; }
    __host__ __device__ long4& operator/=(const long4& o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
    __host__ __device__ long4& operator/=(long s) { x /= s; y /= s; z /= s; w /= s; return *this; }
#endif
} long4;
#ifdef __cplusplus
__FERROCM_VHD long4 make_long4(long x, long y, long z, long w) { return long4(x, y, z, w); }
__FERROCM_VHD long4 operator+(long4 a, const long4& b) { return a += b; }
__FERROCM_VHD long4 operator+(long4 a, long s) { return a += s; }
__FERROCM_VHD long4 operator+(long s, const long4& b) { long4 a(s, s, s, s); return a += b; }
__FERROCM_VHD long4 operator-(long4 a, const long4& b) { return a -= b; }
__FERROCM_VHD long4 operator-(long4 a, long s) { return a -= s; }
__FERROCM_VHD long4 operator-(long s, const long4& b) { long4 a(s, s, s, s); return a -= b; }
__FERROCM_VHD long4 operator*(long4 a, const long4& b) { return a *= b; }
__FERROCM_VHD long4 operator*(long4 a, long s) { return a *= s; }
__FERROCM_VHD long4 operator*(long s, const long4& b) { long4 a(s, s, s, s); return a *= b; }
__FERROCM_VHD long4 operator/(long4 a, const long4& b) { return a /= b; }
__FERROCM_VHD long4 operator/(long4 a, long s) { return a /= s; }
__FERROCM_VHD long4 operator/(long s, const long4& b) { long4 a(s, s, s, s); return a /= b; }
__FERROCM_VHD long4 operator-(const long4& a) { return long4(-a.x, -a.y, -a.z, -a.w); }
__FERROCM_VHD bool operator==(const long4& a, const long4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__FERROCM_VHD bool operator!=(const long4& a, const long4& b) { return !(a == b); }
#else
__FERROCM_VHD long4 make_long4(long x, long y, long z, long w) { long4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#endif
typedef struct __attribute__((aligned(8))) ulong1 {
    unsigned long x;
#ifdef __cplusplus
    __host__ __device__ constexpr ulong1() : x(0) {}
    __host__ __device__ constexpr ulong1(unsigned long _x) : x(_x) {}
    __host__ __device__ ulong1& operator+=(const ulong1& o) { x += o.x; return *this; }
    __host__ __device__ ulong1& operator+=(unsigned long s) { x += s; return *this; }
    __host__ __device__ ulong1& operator-=(const ulong1& o) { x -= o.x; return *this; }
    __host__ __device__ ulong1& operator-=(unsigned long s) { x -= s; return *this; }
    __host__ __device__ ulong1& operator*=(const ulong1& o) { x *= o.x; return *this; }
    __host__ __device__ ulong1& operator*=(unsigned long s) { x *= s; return *this; }
    __host__ __device__ ulong1& operator/=(const ulong1& o) { x /= o.x; return *this; }
    __host__ __device__ ulong1& operator/=(unsigned long s) { x /= s; return *this; }
#endif
} ulong1;
#ifdef __cplusplus
__FERROCM_VHD ulong1 make_ulong1(unsigned long x) { return ulong1(x); }
__FERROCM_VHD ulong1 operator+(ulong1 a, const ulong1& b) { return a += b; }
__FERROCM_VHD ulong1 operator+(ulong1 a, unsigned long s) { return a += s; }
__FERROCM_VHD ulong1 operator+(unsigned long s, const ulong1& b) { ulong1 a(s); return a += b; }
__FERROCM_VHD ulong1 operator-(ulong1 a, const ulong1& b) { return a -= b; }
__FERROCM_VHD ulong1 operator-(ulong1 a, unsigned long s) { return a -= s; }
__FERROCM_VHD ulong1 operator-(unsigned long s, const ulong1& b) { ulong1 a(s); return a -= b; }
__FERROCM_VHD ulong1 operator*(ulong1 a, const ulong1& b) { return a *= b; }
__FERROCM_VHD ulong1 operator*(ulong1 a, unsigned long s) { return a *= s; }
__FERROCM_VHD ulong1 operator*(unsigned long s, const ulong1& b) { ulong1 a(s); return a *= b; }
__FERROCM_VHD ulong1 operator/(ulong1 a, const ulong1& b) { return a /= b; }
__FERROCM_VHD ulong1 operator/(ulong1 a, unsigned long s) { return a /= s; }
__FERROCM_VHD ulong1 operator/(unsigned long s, const ulong1& b) { ulong1 a(s); return a /= b; }
__FERROCM_VHD bool operator==(const ulong1& a, const ulong1& b) { return a.x == b.x; }
__FERROCM_VHD bool operator!=(const ulong1& a, const ulong1& b) { return !(a == b); }
#else
__FERROCM_VHD ulong1 make_ulong1(unsigned long x) { ulong1 v; v.x = x; return v; }
#endif
typedef struct __attribute__((aligned(16))) ulong2 {
    unsigned long x, y;
#ifdef __cplusplus
    __host__ __device__ constexpr ulong2() : x(0), y(0) {}
    __host__ __device__ constexpr ulong2(unsigned long _x, unsigned long _y) : x(_x), y(_y) {}
    __host__ __device__ explicit constexpr ulong2(unsigned long s) : x(s), y(s) {}
    __host__ __device__ ulong2& operator+=(const ulong2& o) { x += o.x; y += o.y; return *this; }
    __host__ __device__ ulong2& operator+=(unsigned long s) { x += s; y += s; return *this; }
    __host__ __device__ ulong2& operator-=(const ulong2& o) { x -= o.x; y -= o.y; return *this; }
    __host__ __device__ ulong2& operator-=(unsigned long s) { x -= s; y -= s; return *this; }
    __host__ __device__ ulong2& operator*=(const ulong2& o) { x *= o.x; y *= o.y; return *this; }
    __host__ __device__ ulong2& operator*=(unsigned long s) { x *= s; y *= s; return *this; }
    __host__ __device__ ulong2& operator/=(const ulong2& o) { x /= o.x; y /= o.y; return *this; }
    __host__ __device__ ulong2& operator/=(unsigned long s) { x /= s; y /= s; return *this; }
#endif
} ulong2;
#ifdef __cplusplus
__FERROCM_VHD ulong2 make_ulong2(unsigned long x, unsigned long y) { return ulong2(x, y); }
__FERROCM_VHD ulong2 operator+(ulong2 a, const ulong2& b) { return a += b; }
__FERROCM_VHD ulong2 operator+(ulong2 a, unsigned long s) { return a += s; }
__FERROCM_VHD ulong2 operator+(unsigned long s, const ulong2& b) { ulong2 a(s, s); return a += b; }
__FERROCM_VHD ulong2 operator-(ulong2 a, const ulong2& b) { return a -= b; }
__FERROCM_VHD ulong2 operator-(ulong2 a, unsigned long s) { return a -= s; }
__FERROCM_VHD ulong2 operator-(unsigned long s, const ulong2& b) { ulong2 a(s, s); return a -= b; }
__FERROCM_VHD ulong2 operator*(ulong2 a, const ulong2& b) { return a *= b; }
__FERROCM_VHD ulong2 operator*(ulong2 a, unsigned long s) { return a *= s; }
__FERROCM_VHD ulong2 operator*(unsigned long s, const ulong2& b) { ulong2 a(s, s); return a *= b; }
__FERROCM_VHD ulong2 operator/(ulong2 a, const ulong2& b) { return a /= b; }
__FERROCM_VHD ulong2 operator/(ulong2 a, unsigned long s) { return a /= s; }
__FERROCM_VHD ulong2 operator/(unsigned long s, const ulong2& b) { ulong2 a(s, s); return a /= b; }
__FERROCM_VHD bool operator==(const ulong2& a, const ulong2& b) { return a.x == b.x && a.y == b.y; }
__FERROCM_VHD bool operator!=(const ulong2& a, const ulong2& b) { return !(a == b); }
#else
__FERROCM_VHD ulong2 make_ulong2(unsigned long x, unsigned long y) { ulong2 v; v.x = x; v.y = y; return v; }
#endif
typedef struct __attribute__((aligned(8))) ulong3 {
    unsigned long x, y, z;
#ifdef __cplusplus
    __host__ __device__ constexpr ulong3() : x(0), y(0), z(0) {}
    __host__ __device__ constexpr ulong3(unsigned long _x, unsigned long _y, unsigned long _z) : x(_x), y(_y), z(_z) {}
    __host__ __device__ explicit constexpr ulong3(unsigned long s) : x(s), y(s), z(s) {}
    __host__ __device__ ulong3& operator+=(const ulong3& o) { x += o.x; y += o.y; z += o.z; return *this; }
    __host__ __device__ ulong3& operator+=(unsigned long s) { x += s; y += s; z += s; return *this; }
    __host__ __device__ ulong3& operator-=(const ulong3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    __host__ __device__ ulong3& operator-=(unsigned long s) { x -= s; y -= s; z -= s; return *this; }
    __host__ __device__ ulong3& operator*=(const ulong3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
    __host__ __device__ ulong3& operator*=(unsigned long s) { x *= s; y *= s; z *= s; return *this; }
    __host__ __device__ ulong3& operator/=(const ulong3& o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
    __host__ __device__ ulong3& operator/=(unsigned long s) { x /= s; y /= s; z /= s; return *this; }
#endif
} ulong3;
#ifdef __cplusplus
__FERROCM_VHD ulong3 make_ulong3(unsigned long x, unsigned long y, unsigned long z) { return ulong3(x, y, z); }
__FERROCM_VHD ulong3 operator+(ulong3 a, const ulong3& b) { return a += b; }
__FERROCM_VHD ulong3 operator+(ulong3 a, unsigned long s) { return a += s; }
__FERROCM_VHD ulong3 operator+(unsigned long s, const ulong3& b) { ulong3 a(s, s, s); return a += b; }
__FERROCM_VHD ulong3 operator-(ulong3 a, const ulong3& b) { return a -= b; }
__FERROCM_VHD ulong3 operator-(ulong3 a, unsigned long s) { return a -= s; }
__FERROCM_VHD ulong3 operator-(unsigned long s, const ulong3& b) { ulong3 a(s, s, s); return a -= b; }
__FERROCM_VHD ulong3 operator*(ulong3 a, const ulong3& b) { return a *= b; }
__FERROCM_VHD ulong3 operator*(ulong3 a, unsigned long s) { return a *= s; }
__FERROCM_VHD ulong3 operator*(unsigned long s, const ulong3& b) { ulong3 a(s, s, s); return a *= b; }
__FERROCM_VHD ulong3 operator/(ulong3 a, const ulong3& b) { return a /= b; }
__FERROCM_VHD ulong3 operator/(ulong3 a, unsigned long s) { return a /= s; }
__FERROCM_VHD ulong3 operator/(unsigned long s, const ulong3& b) { ulong3 a(s, s, s); return a /= b; }
__FERROCM_VHD bool operator==(const ulong3& a, const ulong3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__FERROCM_VHD bool operator!=(const ulong3& a, const ulong3& b) { return !(a == b); }
#else
__FERROCM_VHD ulong3 make_ulong3(unsigned long x, unsigned long y, unsigned long z) { ulong3 v; v.x = x; v.y = y; v.z = z; return v; }
#endif
typedef struct __attribute__((aligned(16))) ulong4 {
    unsigned long x, y, z, w;
#ifdef __cplusplus
    __host__ __device__ constexpr ulong4() : x(0), y(0), z(0), w(0) {}
    __host__ __device__ constexpr ulong4(unsigned long _x, unsigned long _y, unsigned long _z, unsigned long _w) : x(_x), y(_y), z(_z), w(_w) {}
    __host__ __device__ explicit constexpr ulong4(unsigned long s) : x(s), y(s), z(s), w(s) {}
    __host__ __device__ ulong4& operator+=(const ulong4& o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
    __host__ __device__ ulong4& operator+=(unsigned long s) { x += s; y += s; z += s; w += s; return *this; }
    __host__ __device__ ulong4& operator-=(const ulong4& o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
    __host__ __device__ ulong4& operator-=(unsigned long s) { x -= s; y -= s; z -= s; w -= s; return *this; }
    __host__ __device__ ulong4& operator*=(const ulong4& o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
    __host__ __device__ ulong4& operator*=(unsigned long s) { x *= s; y *= s; z *= s; w *= s; return *this; }
    __host__ __device__ ulong4& operator/=(const ulong4& o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
    __host__ __device__ ulong4& operator/=(unsigned long s) { x /= s; y /= s; z /= s; w /= s; return *this; }
#endif
} ulong4;
#ifdef __cplusplus
__FERROCM_VHD ulong4 make_ulong4(unsigned long x, unsigned long y, unsigned long z, unsigned long w) { return ulong4(x, y, z, w); }
__FERROCM_VHD ulong4 operator+(ulong4 a, const ulong4& b) { return a += b; }
__FERROCM_VHD ulong4 operator+(ulong4 a, unsigned long s) { return a += s; }
__FERROCM_VHD ulong4 operator+(unsigned long s, const ulong4& b) { ulong4 a(s, s, s, s); return a += b; }
__FERROCM_VHD ulong4 operator-(ulong4 a, const ulong4& b) { return a -= b; }
__FERROCM_VHD ulong4 operator-(ulong4 a, unsigned long s) { return a -= s; }
__FERROCM_VHD ulong4 operator-(unsigned long s, const ulong4& b) { ulong4 a(s, s, s, s); return a -= b; }
__FERROCM_VHD ulong4 operator*(ulong4 a, const ulong4& b) { return a *= b; }
__FERROCM_VHD ulong4 operator*(ulong4 a, unsigned long s) { return a *= s; }
__FERROCM_VHD ulong4 operator*(unsigned long s, const ulong4& b) { ulong4 a(s, s, s, s); return a *= b; }
__FERROCM_VHD ulong4 operator/(ulong4 a, const ulong4& b) { return a /= b; }
__FERROCM_VHD ulong4 operator/(ulong4 a, unsigned long s) { return a /= s; }
__FERROCM_VHD ulong4 operator/(unsigned long s, const ulong4& b) { ulong4 a(s, s, s, s); return a /= b; }
__FERROCM_VHD bool operator==(const ulong4& a, const ulong4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__FERROCM_VHD bool operator!=(const ulong4& a, const ulong4& b) { return !(a == b); }
#else
__FERROCM_VHD ulong4 make_ulong4(unsigned long x, unsigned long y, unsigned long z, unsigned long w) { ulong4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#endif
typedef struct __attribute__((aligned(8))) longlong1 {
    long long x;
#ifdef __cplusplus
    __host__ __device__ constexpr longlong1() : x(0) {}
    __host__ __device__ constexpr longlong1(long long _x) : x(_x) {}
    __host__ __device__ longlong1& operator+=(const longlong1& o) { x += o.x; return *this; }
    __host__ __device__ longlong1& operator+=(long long s) { x += s; return *this; }
    __host__ __device__ longlong1& operator-=(const longlong1& o) { x -= o.x; return *this; }
    __host__ __device__ longlong1& operator-=(long long s) { x -= s; return *this; }
    __host__ __device__ longlong1& operator*=(const longlong1& o) { x *= o.x; return *this; }
    __host__ __device__ longlong1& operator*=(long long s) { x *= s; return *this; }
    __host__ __device__ longlong1& operator/=(const longlong1& o) { x /= o.x; return *this; }
    __host__ __device__ longlong1& operator/=(long long s) { x /= s; return *this; }
#endif
} longlong1;
#ifdef __cplusplus
__FERROCM_VHD longlong1 make_longlong1(long long x) { return longlong1(x); }
__FERROCM_VHD longlong1 operator+(longlong1 a, const longlong1& b) { return a += b; }
__FERROCM_VHD longlong1 operator+(longlong1 a, long long s) { return a += s; }
__FERROCM_VHD longlong1 operator+(long long s, const longlong1& b) { longlong1 a(s); return a += b; }
__FERROCM_VHD longlong1 operator-(longlong1 a, const longlong1& b) { return a -= b; }
__FERROCM_VHD longlong1 operator-(longlong1 a, long long s) { return a -= s; }
__FERROCM_VHD longlong1 operator-(long long s, const longlong1& b) { longlong1 a(s); return a -= b; }
__FERROCM_VHD longlong1 operator*(longlong1 a, const longlong1& b) { return a *= b; }
__FERROCM_VHD longlong1 operator*(longlong1 a, long long s) { return a *= s; }
__FERROCM_VHD longlong1 operator*(long long s, const longlong1& b) { longlong1 a(s); return a *= b; }
__FERROCM_VHD longlong1 operator/(longlong1 a, const longlong1& b) { return a /= b; }
__FERROCM_VHD longlong1 operator/(longlong1 a, long long s) { return a /= s; }
__FERROCM_VHD longlong1 operator/(long long s, const longlong1& b) { longlong1 a(s); return a /= b; }
__FERROCM_VHD longlong1 operator-(const longlong1& a) { return longlong1(-a.x); }
__FERROCM_VHD bool operator==(const longlong1& a, const longlong1& b) { return a.x == b.x; }
__FERROCM_VHD bool operator!=(const longlong1& a, const longlong1& b) { return !(a == b); }
#else
__FERROCM_VHD longlong1 make_longlong1(long long x) { longlong1 v; v.x = x; return v; }
#endif
typedef struct __attribute__((aligned(16))) longlong2 {
    long long x, y;
#ifdef __cplusplus
    __host__ __device__ constexpr longlong2() : x(0), y(0) {}
    __host__ __device__ constexpr longlong2(long long _x, long long _y) : x(_x), y(_y) {}
    __host__ __device__ explicit constexpr longlong2(long long s) : x(s), y(s) {}
    __host__ __device__ longlong2& operator+=(const longlong2& o) { x += o.x; y += o.y; return *this; }
    __host__ __device__ longlong2& operator+=(long long s) { x += s; y += s; return *this; }
    __host__ __device__ longlong2& operator-=(const longlong2& o) { x -= o.x; y -= o.y; return *this; }
    __host__ __device__ longlong2& operator-=(long long s) { x -= s; y -= s; return *this; }
    __host__ __device__ longlong2& operator*=(const longlong2& o) { x *= o.x; y *= o.y; return *this; }
    __host__ __device__ longlong2& operator*=(long long s) { x *= s; y *= s; return *this; }
    __host__ __device__ longlong2& operator/=(const longlong2& o) { x /= o.x; y /= o.y; return *this; }
    __host__ __device__ longlong2& operator/=(long long s) { x /= s; y /= s; return *this; }
#endif
} longlong2;
#ifdef __cplusplus
__FERROCM_VHD longlong2 make_longlong2(long long x, long long y) { return longlong2(x, y); }
__FERROCM_VHD longlong2 operator+(longlong2 a, const longlong2& b) { return a += b; }
__FERROCM_VHD longlong2 operator+(longlong2 a, long long s) { return a += s; }
__FERROCM_VHD longlong2 operator+(long long s, const longlong2& b) { longlong2 a(s, s); return a += b; }
__FERROCM_VHD longlong2 operator-(longlong2 a, const longlong2& b) { return a -= b; }
__FERROCM_VHD longlong2 operator-(longlong2 a, long long s) { return a -= s; }
__FERROCM_VHD longlong2 operator-(long long s, const longlong2& b) { longlong2 a(s, s); return a -= b; }
__FERROCM_VHD longlong2 operator*(longlong2 a, const longlong2& b) { return a *= b; }
__FERROCM_VHD longlong2 operator*(longlong2 a, long long s) { return a *= s; }
__FERROCM_VHD longlong2 operator*(long long s, const longlong2& b) { longlong2 a(s, s); return a *= b; }
__FERROCM_VHD longlong2 operator/(longlong2 a, const longlong2& b) { return a /= b; }
__FERROCM_VHD longlong2 operator/(longlong2 a, long long s) { return a /= s; }
__FERROCM_VHD longlong2 operator/(long long s, const longlong2& b) { longlong2 a(s, s); return a /= b; }
__FERROCM_VHD longlong2 operator-(const longlong2& a) { return longlong2(-a.x, -a.y); }
__FERROCM_VHD bool operator==(const longlong2& a, const longlong2& b) { return a.x == b.x && a.y == b.y; }
__FERROCM_VHD bool operator!=(const longlong2& a, const longlong2& b) { return !(a == b); }
#else
__FERROCM_VHD longlong2 make_longlong2(long long x, long long y) { longlong2 v; v.x = x; v.y = y; return v; }
#endif
typedef struct __attribute__((aligned(8))) longlong3 {
    long long x, y, z;
#ifdef __cplusplus
    __host__ __device__ constexpr longlong3() : x(0), y(0), z(0) {}
    __host__ __device__ constexpr longlong3(long long _x, long long _y, long long _z) : x(_x), y(_y), z(_z) {}
    __host__ __device__ explicit constexpr longlong3(long long s) : x(s), y(s), z(s) {}
    __host__ __device__ longlong3& operator+=(const longlong3& o) { x += o.x; y += o.y; z += o.z; return *this; }
    __host__ __device__ longlong3& operator+=(long long s) { x += s; y += s; z += s; return *this; }
    __host__ __device__ longlong3& operator-=(const longlong3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    __host__ __device__ longlong3& operator-=(long long s) { x -= s; y -= s; z -= s; return *this; }
    __host__ __device__ longlong3& operator*=(const longlong3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
    __host__ __device__ longlong3& operator*=(long long s) { x *= s; y *= s; z *= s; return *this; }
    __host__ __device__ longlong3& operator/=(const longlong3& o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
    __host__ __device__ longlong3& operator/=(long long s) { x /= s; y /= s; z /= s; return *this; }
#endif
} longlong3;
#ifdef __cplusplus
__FERROCM_VHD longlong3 make_longlong3(long long x, long long y, long long z) { return longlong3(x, y, z); }
__FERROCM_VHD longlong3 operator+(longlong3 a, const longlong3& b) { return a += b; }
__FERROCM_VHD longlong3 operator+(longlong3 a, long long s) { return a += s; }
__FERROCM_VHD longlong3 operator+(long long s, const longlong3& b) { longlong3 a(s, s, s); return a += b; }
__FERROCM_VHD longlong3 operator-(longlong3 a, const longlong3& b) { return a -= b; }
__FERROCM_VHD longlong3 operator-(longlong3 a, long long s) { return a -= s; }
__FERROCM_VHD longlong3 operator-(long long s, const longlong3& b) { longlong3 a(s, s, s); return a -= b; }
__FERROCM_VHD longlong3 operator*(longlong3 a, const longlong3& b) { return a *= b; }
__FERROCM_VHD longlong3 operator*(longlong3 a, long long s) { return a *= s; }
__FERROCM_VHD longlong3 operator*(long long s, const longlong3& b) { longlong3 a(s, s, s); return a *= b; }
__FERROCM_VHD longlong3 operator/(longlong3 a, const longlong3& b) { return a /= b; }
__FERROCM_VHD longlong3 operator/(longlong3 a, long long s) { return a /= s; }
__FERROCM_VHD longlong3 operator/(long long s, const longlong3& b) { longlong3 a(s, s, s); return a /= b; }
__FERROCM_VHD longlong3 operator-(const longlong3& a) { return longlong3(-a.x, -a.y, -a.z); }
__FERROCM_VHD bool operator==(const longlong3& a, const longlong3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__FERROCM_VHD bool operator!=(const longlong3& a, const longlong3& b) { return !(a == b); }
#else
__FERROCM_VHD longlong3 make_longlong3(long long x, long long y, long long z) { longlong3 v; v.x = x; v.y = y; v.z = z; return v; }
#endif
typedef struct __attribute__((aligned(16))) longlong4 {
    long long x, y, z, w;
#ifdef __cplusplus
    __host__ __device__ constexpr longlong4() : x(0), y(0), z(0), w(0) {}
    __host__ __device__ constexpr longlong4(long long _x, long long _y, long long _z, long long _w) : x(_x), y(_y), z(_z), w(_w) {}
    __host__ __device__ explicit constexpr longlong4(long long s) : x(s), y(s), z(s), w(s) {}
    __host__ __device__ longlong4& operator+=(const longlong4& o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
    __host__ __device__ longlong4& operator+=(long long s) { x += s; y += s; z += s; w += s; return *this; }
    __host__ __device__ longlong4& operator-=(const longlong4& o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
    __host__ __device__ longlong4& operator-=(long long s) { x -= s; y -= s; z -= s; w -= s; return *this; }
    __host__ __device__ longlong4& operator*=(const longlong4& o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
    __host__ __device__ longlong4& operator*=(long long s) { x *= s; y *= s; z *= s; w *= s; return *this; }
    __host__ __device__ longlong4& operator/=(const longlong4& o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
    __host__ __device__ longlong4& operator/=(long long s) { x /= s; y /= s; z /= s; w /= s; return *this; }
#endif
} longlong4;
#ifdef __cplusplus
__FERROCM_VHD longlong4 make_longlong4(long long x, long long y, long long z, long long w) { return longlong4(x, y, z, w); }
__FERROCM_VHD longlong4 operator+(longlong4 a, const longlong4& b) { return a += b; }
__FERROCM_VHD longlong4 operator+(longlong4 a, long long s) { return a += s; }
__FERROCM_VHD longlong4 operator+(long long s, const longlong4& b) { longlong4 a(s, s, s, s); return a += b; }
__FERROCM_VHD longlong4 operator-(longlong4 a, const longlong4& b) { return a -= b; }
__FERROCM_VHD longlong4 operator-(longlong4 a, long long s) { return a -= s; }
__FERROCM_VHD longlong4 operator-(long long s, const longlong4& b) { longlong4 a(s, s, s, s); return a -= b; }
__FERROCM_VHD longlong4 operator*(longlong4 a, const longlong4& b) { return a *= b; }
__FERROCM_VHD longlong4 operator*(longlong4 a, long long s) { return a *= s; }
__FERROCM_VHD longlong4 operator*(long long s, const longlong4& b) { longlong4 a(s, s, s, s); return a *= b; }
__FERROCM_VHD longlong4 operator/(longlong4 a, const longlong4& b) { return a /= b; }
__FERROCM_VHD longlong4 operator/(longlong4 a, long long s) { return a /= s; }
__FERROCM_VHD longlong4 operator/(long long s, const longlong4& b) { longlong4 a(s, s, s, s); return a /= b; }
__FERROCM_VHD longlong4 operator-(const longlong4& a) { return longlong4(-a.x, -a.y, -a.z, -a.w); }
__FERROCM_VHD bool operator==(const longlong4& a, const longlong4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__FERROCM_VHD bool operator!=(const longlong4& a, const longlong4& b) { return !(a == b); }
#else
__FERROCM_VHD longlong4 make_longlong4(long long x, long long y, long long z, long long w) { longlong4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#endif
typedef struct __attribute__((aligned(8))) ulonglong1 {
    unsigned long long x;
#ifdef __cplusplus
    __host__ __device__ constexpr ulonglong1() : x(0) {}
    __host__ __device__ constexpr ulonglong1(unsigned long long _x) : x(_x) {}
    __host__ __device__ ulonglong1& operator+=(const ulonglong1& o) { x += o.x; return *this; }
    __host__ __device__ ulonglong1& operator+=(unsigned long long s) { x += s; return *this; }
    __host__ __device__ ulonglong1& operator-=(const ulonglong1& o) { x -= o.x; return *this; }
    __host__ __device__ ulonglong1& operator-=(unsigned long long s) { x -= s; return *this; }
    __host__ __device__ ulonglong1& operator*=(const ulonglong1& o) { x *= o.x; return *this; }
    __host__ __device__ ulonglong1& operator*=(unsigned long long s) { x *= s; return *this; }
    __host__ __device__ ulonglong1& operator/=(const ulonglong1& o) { x /= o.x; return *this; }
    __host__ __device__ ulonglong1& operator/=(unsigned long long s) { x /= s; return *this; }
#endif
} ulonglong1;
#ifdef __cplusplus
__FERROCM_VHD ulonglong1 make_ulonglong1(unsigned long long x) { return ulonglong1(x); }
__FERROCM_VHD ulonglong1 operator+(ulonglong1 a, const ulonglong1& b) { return a += b; }
__FERROCM_VHD ulonglong1 operator+(ulonglong1 a, unsigned long long s) { return a += s; }
__FERROCM_VHD ulonglong1 operator+(unsigned long long s, const ulonglong1& b) { ulonglong1 a(s); return a += b; }
__FERROCM_VHD ulonglong1 operator-(ulonglong1 a, const ulonglong1& b) { return a -= b; }
__FERROCM_VHD ulonglong1 operator-(ulonglong1 a, unsigned long long s) { return a -= s; }
__FERROCM_VHD ulonglong1 operator-(unsigned long long s, const ulonglong1& b) { ulonglong1 a(s); return a -= b; }
__FERROCM_VHD ulonglong1 operator*(ulonglong1 a, const ulonglong1& b) { return a *= b; }
__FERROCM_VHD ulonglong1 operator*(ulonglong1 a, unsigned long long s) { return a *= s; }
__FERROCM_VHD ulonglong1 operator*(unsigned long long s, const ulonglong1& b) { ulonglong1 a(s); return a *= b; }
__FERROCM_VHD ulonglong1 operator/(ulonglong1 a, const ulonglong1& b) { return a /= b; }
__FERROCM_VHD ulonglong1 operator/(ulonglong1 a, unsigned long long s) { return a /= s; }
__FERROCM_VHD ulonglong1 operator/(unsigned long long s, const ulonglong1& b) { ulonglong1 a(s); return a /= b; }
__FERROCM_VHD bool operator==(const ulonglong1& a, const ulonglong1& b) { return a.x == b.x; }
__FERROCM_VHD bool operator!=(const ulonglong1& a, const ulonglong1& b) { return !(a == b); }
#else
__FERROCM_VHD ulonglong1 make_ulonglong1(unsigned long long x) { ulonglong1 v; v.x = x; return v; }
#endif
typedef struct __attribute__((aligned(16))) ulonglong2 {
    unsigned long long x, y;
#ifdef __cplusplus
    __host__ __device__ constexpr ulonglong2() : x(0), y(0) {}
    __host__ __device__ constexpr ulonglong2(unsigned long long _x, unsigned long long _y) : x(_x), y(_y) {}
    __host__ __device__ explicit constexpr ulonglong2(unsigned long long s) : x(s), y(s) {}
    __host__ __device__ ulonglong2& operator+=(const ulonglong2& o) { x += o.x; y += o.y; return *this; }
    __host__ __device__ ulonglong2& operator+=(unsigned long long s) { x += s; y += s; return *this; }
    __host__ __device__ ulonglong2& operator-=(const ulonglong2& o) { x -= o.x; y -= o.y; return *this; }
    __host__ __device__ ulonglong2& operator-=(unsigned long long s) { x -= s; y -= s; return *this; }
    __host__ __device__ ulonglong2& operator*=(const ulonglong2& o) { x *= o.x; y *= o.y; return *this; }
    __host__ __device__ ulonglong2& operator*=(unsigned long long s) { x *= s; y *= s; return *this; }
    __host__ __device__ ulonglong2& operator/=(const ulonglong2& o) { x /= o.x; y /= o.y; return *this; }
    __host__ __device__ ulonglong2& operator/=(unsigned long long s) { x /= s; y /= s; return *this; }
#endif
} ulonglong2;
#ifdef __cplusplus
__FERROCM_VHD ulonglong2 make_ulonglong2(unsigned long long x, unsigned long long y) { return ulonglong2(x, y); }
__FERROCM_VHD ulonglong2 operator+(ulonglong2 a, const ulonglong2& b) { return a += b; }
__FERROCM_VHD ulonglong2 operator+(ulonglong2 a, unsigned long long s) { return a += s; }
__FERROCM_VHD ulonglong2 operator+(unsigned long long s, const ulonglong2& b) { ulonglong2 a(s, s); return a += b; }
__FERROCM_VHD ulonglong2 operator-(ulonglong2 a, const ulonglong2& b) { return a -= b; }
__FERROCM_VHD ulonglong2 operator-(ulonglong2 a, unsigned long long s) { return a -= s; }
__FERROCM_VHD ulonglong2 operator-(unsigned long long s, const ulonglong2& b) { ulonglong2 a(s, s); return a -= b; }
__FERROCM_VHD ulonglong2 operator*(ulonglong2 a, const ulonglong2& b) { return a *= b; }
__FERROCM_VHD ulonglong2 operator*(ulonglong2 a, unsigned long long s) { return a *= s; }
__FERROCM_VHD ulonglong2 operator*(unsigned long long s, const ulonglong2& b) { ulonglong2 a(s, s); return a *= b; }
__FERROCM_VHD ulonglong2 operator/(ulonglong2 a, const ulonglong2& b) { return a /= b; }
__FERROCM_VHD ulonglong2 operator/(ulonglong2 a, unsigned long long s) { return a /= s; }
__FERROCM_VHD ulonglong2 operator/(unsigned long long s, const ulonglong2& b) { ulonglong2 a(s, s); return a /= b; }
__FERROCM_VHD bool operator==(const ulonglong2& a, const ulonglong2& b) { return a.x == b.x && a.y == b.y; }
__FERROCM_VHD bool operator!=(const ulonglong2& a, const ulonglong2& b) { return !(a == b); }
#else
__FERROCM_VHD ulonglong2 make_ulonglong2(unsigned long long x, unsigned long long y) { ulonglong2 v; v.x = x; v.y = y; return v; }
#endif
typedef struct __attribute__((aligned(8))) ulonglong3 {
    unsigned long long x, y, z;
#ifdef __cplusplus
    __host__ __device__ constexpr ulonglong3() : x(0), y(0), z(0) {}
    __host__ __device__ constexpr ulonglong3(unsigned long long _x, unsigned long long _y, unsigned long long _z) : x(_x), y(_y), z(_z) {}
    __host__ __device__ explicit constexpr ulonglong3(unsigned long long s) : x(s), y(s), z(s) {}
    __host__ __device__ ulonglong3& operator+=(const ulonglong3& o) { x += o.x; y += o.y; z += o.z; return *this; }
    __host__ __device__ ulonglong3& operator+=(unsigned long long s) { x += s; y += s; z += s; return *this; }
    __host__ __device__ ulonglong3& operator-=(const ulonglong3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    __host__ __device__ ulonglong3& operator-=(unsigned long long s) { x -= s; y -= s; z -= s; return *this; }
    __host__ __device__ ulonglong3& operator*=(const ulonglong3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
    __host__ __device__ ulonglong3& operator*=(unsigned long long s) { x *= s; y *= s; z *= s; return *this; }
    __host__ __device__ ulonglong3& operator/=(const ulonglong3& o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
    __host__ __device__ ulonglong3& operator/=(unsigned long long s) { x /= s; y /= s; z /= s; return *this; }
#endif
} ulonglong3;
#ifdef __cplusplus
__FERROCM_VHD ulonglong3 make_ulonglong3(unsigned long long x, unsigned long long y, unsigned long long z) { return ulonglong3(x, y, z); }
__FERROCM_VHD ulonglong3 operator+(ulonglong3 a, const ulonglong3& b) { return a += b; }
__FERROCM_VHD ulonglong3 operator+(ulonglong3 a, unsigned long long s) { return a += s; }
__FERROCM_VHD ulonglong3 operator+(unsigned long long s, const ulonglong3& b) { ulonglong3 a(s, s, s); return a += b; }
__FERROCM_VHD ulonglong3 operator-(ulonglong3 a, const ulonglong3& b) { return a -= b; }
__FERROCM_VHD ulonglong3 operator-(ulonglong3 a, unsigned long long s) { return a -= s; }
__FERROCM_VHD ulonglong3 operator-(unsigned long long s, const ulonglong3& b) { ulonglong3 a(s, s, s); return a -= b; }
__FERROCM_VHD ulonglong3 operator*(ulonglong3 a, const ulonglong3& b) { return a *= b; }
__FERROCM_VHD ulonglong3 operator*(ulonglong3 a, unsigned long long s) { return a *= s; }
__FERROCM_VHD ulonglong3 operator*(unsigned long long s, const ulonglong3& b) { ulonglong3 a(s, s, s); return a *= b; }
__FERROCM_VHD ulonglong3 operator/(ulonglong3 a, const ulonglong3& b) { return a /= b; }
__FERROCM_VHD ulonglong3 operator/(ulonglong3 a, unsigned long long s) { return a /= s; }
__FERROCM_VHD ulonglong3 operator/(unsigned long long s, const ulonglong3& b) { ulonglong3 a(s, s, s); return a /= b; }
__FERROCM_VHD bool operator==(const ulonglong3& a, const ulonglong3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__FERROCM_VHD bool operator!=(const ulonglong3& a, const ulonglong3& b) { return !(a == b); }
#else
__FERROCM_VHD ulonglong3 make_ulonglong3(unsigned long long x, unsigned long long y, unsigned long long z) { ulonglong3 v; v.x = x; v.y = y; v.z = z; return v; }
#endif
typedef struct __attribute__((aligned(16))) ulonglong4 {
    unsigned long long x, y, z, w;
#ifdef __cplusplus
    __host__ __device__ constexpr ulonglong4() : x(0), y(0), z(0), w(0) {}
    __host__ __device__ constexpr ulonglong4(unsigned long long _x, unsigned long long _y, unsigned long long _z, unsigned long long _w) : x(_x), y(_y), z(_z), w(_w) {}
    __host__ __device__ explicit constexpr ulonglong4(unsigned long long s) : x(s), y(s), z(s), w(s) {}
    __host__ __device__ ulonglong4& operator+=(const ulonglong4& o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
    __host__ __device__ ulonglong4& operator+=(unsigned long long s) { x += s; y += s; z += s; w += s; return *this; }
    __host__ __device__ ulonglong4& operator-=(const ulonglong4& o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
    __host__ __device__ ulonglong4& operator-=(unsigned long long s) { x -= s; y -= s; z -= s; w -= s; return *this; }
    __host__ __device__ ulonglong4& operator*=(const ulonglong4& o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
    __host__ __device__ ulonglong4& operator*=(unsigned long long s) { x *= s; y *= s; z *= s; w *= s; return *this; }
    __host__ __device__ ulonglong4& operator/=(const ulonglong4& o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
    __host__ __device__ ulonglong4& operator/=(unsigned long long s) { x /= s; y /= s; z /= s; w /= s; return *this; }
#endif
} ulonglong4;
#ifdef __cplusplus
__FERROCM_VHD ulonglong4 make_ulonglong4(unsigned long long x, unsigned long long y, unsigned long long z, unsigned long long w) { return ulonglong4(x, y, z, w); }
__FERROCM_VHD ulonglong4 operator+(ulonglong4 a, const ulonglong4& b) { return a += b; }
__FERROCM_VHD ulonglong4 operator+(ulonglong4 a, unsigned long long s) { return a += s; }
__FERROCM_VHD ulonglong4 operator+(unsigned long long s, const ulonglong4& b) { ulonglong4 a(s, s, s, s); return a += b; }
__FERROCM_VHD ulonglong4 operator-(ulonglong4 a, const ulonglong4& b) { return a -= b; }
__FERROCM_VHD ulonglong4 operator-(ulonglong4 a, unsigned long long s) { return a -= s; }
__FERROCM_VHD ulonglong4 operator-(unsigned long long s, const ulonglong4& b) { ulonglong4 a(s, s, s, s); return a -= b; }
__FERROCM_VHD ulonglong4 operator*(ulonglong4 a, const ulonglong4& b) { return a *= b; }
__FERROCM_VHD ulonglong4 operator*(ulonglong4 a, unsigned long long s) { return a *= s; }
__FERROCM_VHD ulonglong4 operator*(unsigned long long s, const ulonglong4& b) { ulonglong4 a(s, s, s, s); return a *= b; }
__FERROCM_VHD ulonglong4 operator/(ulonglong4 a, const ulonglong4& b) { return a /= b; }
__FERROCM_VHD ulonglong4 operator/(ulonglong4 a, unsigned long long s) { return a /= s; }
__FERROCM_VHD ulonglong4 operator/(unsigned long long s, const ulonglong4& b) { ulonglong4 a(s, s, s, s); return a /= b; }
__FERROCM_VHD bool operator==(const ulonglong4& a, const ulonglong4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__FERROCM_VHD bool operator!=(const ulonglong4& a, const ulonglong4& b) { return !(a == b); }
#else
__FERROCM_VHD ulonglong4 make_ulonglong4(unsigned long long x, unsigned long long y, unsigned long long z, unsigned long long w) { ulonglong4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#endif
typedef struct __attribute__((aligned(4))) float1 {
    float x;
#ifdef __cplusplus
    __host__ __device__ constexpr float1() : x(0) {}
    __host__ __device__ constexpr float1(float _x) : x(_x) {}
    __host__ __device__ float1& operator+=(const float1& o) { x += o.x; return *this; }
    __host__ __device__ float1& operator+=(float s) { x += s; return *this; }
    __host__ __device__ float1& operator-=(const float1& o) { x -= o.x; return *this; }
    __host__ __device__ float1& operator-=(float s) { x -= s; return *this; }
    __host__ __device__ float1& operator*=(const float1& o) { x *= o.x; return *this; }
    __host__ __device__ float1& operator*=(float s) { x *= s; return *this; }
    __host__ __device__ float1& operator/=(const float1& o) { x /= o.x; return *this; }
    __host__ __device__ float1& operator/=(float s) { x /= s; return *this; }
#endif
} float1;
#ifdef __cplusplus
__FERROCM_VHD float1 make_float1(float x) { return float1(x); }
__FERROCM_VHD float1 operator+(float1 a, const float1& b) { return a += b; }
__FERROCM_VHD float1 operator+(float1 a, float s) { return a += s; }
__FERROCM_VHD float1 operator+(float s, const float1& b) { float1 a(s); return a += b; }
__FERROCM_VHD float1 operator-(float1 a, const float1& b) { return a -= b; }
__FERROCM_VHD float1 operator-(float1 a, float s) { return a -= s; }
__FERROCM_VHD float1 operator-(float s, const float1& b) { float1 a(s); return a -= b; }
__FERROCM_VHD float1 operator*(float1 a, const float1& b) { return a *= b; }
__FERROCM_VHD float1 operator*(float1 a, float s) { return a *= s; }
__FERROCM_VHD float1 operator*(float s, const float1& b) { float1 a(s); return a *= b; }
__FERROCM_VHD float1 operator/(float1 a, const float1& b) { return a /= b; }
__FERROCM_VHD float1 operator/(float1 a, float s) { return a /= s; }
__FERROCM_VHD float1 operator/(float s, const float1& b) { float1 a(s); return a /= b; }
__FERROCM_VHD float1 operator-(const float1& a) { return float1(-a.x); }
__FERROCM_VHD bool operator==(const float1& a, const float1& b) { return a.x == b.x; }
__FERROCM_VHD bool operator!=(const float1& a, const float1& b) { return !(a == b); }
#else
__FERROCM_VHD float1 make_float1(float x) { float1 v; v.x = x; return v; }
#endif
typedef struct __attribute__((aligned(8))) float2 {
    float x, y;
#ifdef __cplusplus
    __host__ __device__ constexpr float2() : x(0), y(0) {}
    __host__ __device__ constexpr float2(float _x, float _y) : x(_x), y(_y) {}
    __host__ __device__ explicit constexpr float2(float s) : x(s), y(s) {}
    __host__ __device__ float2& operator+=(const float2& o) { x += o.x; y += o.y; return *this; }
    __host__ __device__ float2& operator+=(float s) { x += s; y += s; return *this; }
    __host__ __device__ float2& operator-=(const float2& o) { x -= o.x; y -= o.y; return *this; }
    __host__ __device__ float2& operator-=(float s) { x -= s; y -= s; return *this; }
    __host__ __device__ float2& operator*=(const float2& o) { x *= o.x; y *= o.y; return *this; }
    __host__ __device__ float2& operator*=(float s) { x *= s; y *= s; return *this; }
    __host__ __device__ float2& operator/=(const float2& o) { x /= o.x; y /= o.y; return *this; }
    __host__ __device__ float2& operator/=(float s) { x /= s; y /= s; return *this; }
#endif
} float2;
#ifdef __cplusplus
__FERROCM_VHD float2 make_float2(float x, float y) { return float2(x, y); }
__FERROCM_VHD float2 operator+(float2 a, const float2& b) { return a += b; }
__FERROCM_VHD float2 operator+(float2 a, float s) { return a += s; }
__FERROCM_VHD float2 operator+(float s, const float2& b) { float2 a(s, s); return a += b; }
__FERROCM_VHD float2 operator-(float2 a, const float2& b) { return a -= b; }
__FERROCM_VHD float2 operator-(float2 a, float s) { return a -= s; }
__FERROCM_VHD float2 operator-(float s, const float2& b) { float2 a(s, s); return a -= b; }
__FERROCM_VHD float2 operator*(float2 a, const float2& b) { return a *= b; }
__FERROCM_VHD float2 operator*(float2 a, float s) { return a *= s; }
__FERROCM_VHD float2 operator*(float s, const float2& b) { float2 a(s, s); return a *= b; }
__FERROCM_VHD float2 operator/(float2 a, const float2& b) { return a /= b; }
__FERROCM_VHD float2 operator/(float2 a, float s) { return a /= s; }
__FERROCM_VHD float2 operator/(float s, const float2& b) { float2 a(s, s); return a /= b; }
__FERROCM_VHD float2 operator-(const float2& a) { return float2(-a.x, -a.y); }
__FERROCM_VHD bool operator==(const float2& a, const float2& b) { return a.x == b.x && a.y == b.y; }
__FERROCM_VHD bool operator!=(const float2& a, const float2& b) { return !(a == b); }
#else
__FERROCM_VHD float2 make_float2(float x, float y) { float2 v; v.x = x; v.y = y; return v; }
#endif
typedef struct __attribute__((aligned(4))) float3 {
    float x, y, z;
#ifdef __cplusplus
    __host__ __device__ constexpr float3() : x(0), y(0), z(0) {}
    __host__ __device__ constexpr float3(float _x, float _y, float _z) : x(_x), y(_y), z(_z) {}
    __host__ __device__ explicit constexpr float3(float s) : x(s), y(s), z(s) {}
    __host__ __device__ float3& operator+=(const float3& o) { x += o.x; y += o.y; z += o.z; return *this; }
    __host__ __device__ float3& operator+=(float s) { x += s; y += s; z += s; return *this; }
    __host__ __device__ float3& operator-=(const float3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    __host__ __device__ float3& operator-=(float s) { x -= s; y -= s; z -= s; return *this; }
    __host__ __device__ float3& operator*=(const float3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
    __host__ __device__ float3& operator*=(float s) { x *= s; y *= s; z *= s; return *this; }
    __host__ __device__ float3& operator/=(const float3& o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
    __host__ __device__ float3& operator/=(float s) { x /= s; y /= s; z /= s; return *this; }
#endif
} float3;
#ifdef __cplusplus
__FERROCM_VHD float3 make_float3(float x, float y, float z) { return float3(x, y, z); }
__FERROCM_VHD float3 operator+(float3 a, const float3& b) { return a += b; }
__FERROCM_VHD float3 operator+(float3 a, float s) { return a += s; }
__FERROCM_VHD float3 operator+(float s, const float3& b) { float3 a(s, s, s); return a += b; }
__FERROCM_VHD float3 operator-(float3 a, const float3& b) { return a -= b; }
__FERROCM_VHD float3 operator-(float3 a, float s) { return a -= s; }
__FERROCM_VHD float3 operator-(float s, const float3& b) { float3 a(s, s, s); return a -= b; }
__FERROCM_VHD float3 operator*(float3 a, const float3& b) { return a *= b; }
__FERROCM_VHD float3 operator*(float3 a, float s) { return a *= s; }
__FERROCM_VHD float3 operator*(float s, const float3& b) { float3 a(s, s, s); return a *= b; }
__FERROCM_VHD float3 operator/(float3 a, const float3& b) { return a /= b; }
__FERROCM_VHD float3 operator/(float3 a, float s) { return a /= s; }
__FERROCM_VHD float3 operator/(float s, const float3& b) { float3 a(s, s, s); return a /= b; }
__FERROCM_VHD float3 operator-(const float3& a) { return float3(-a.x, -a.y, -a.z); }
__FERROCM_VHD bool operator==(const float3& a, const float3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__FERROCM_VHD bool operator!=(const float3& a, const float3& b) { return !(a == b); }
#else
__FERROCM_VHD float3 make_float3(float x, float y, float z) { float3 v; v.x = x; v.y = y; v.z = z; return v; }
#endif
typedef struct __attribute__((aligned(16))) float4 {
    float x, y, z, w;
#ifdef __cplusplus
    __host__ __device__ constexpr float4() : x(0), y(0), z(0), w(0) {}
    __host__ __device__ constexpr float4(float _x, float _y, float _z, float _w) : x(_x), y(_y), z(_z), w(_w) {}
    __host__ __device__ explicit constexpr float4(float s) : x(s), y(s), z(s), w(s) {}
    __host__ __device__ float4& operator+=(const float4& o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
    __host__ __device__ float4& operator+=(float s) { x += s; y += s; z += s; w += s; return *this; }
    __host__ __device__ float4& operator-=(const float4& o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
    __host__ __device__ float4& operator-=(float s) { x -= s; y -= s; z -= s; w -= s; return *this; }
    __host__ __device__ float4& operator*=(const float4& o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
    __host__ __device__ float4& operator*=(float s) { x *= s; y *= s; z *= s; w *= s; return *this; }
    __host__ __device__ float4& operator/=(const float4& o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
    __host__ __device__ float4& operator/=(float s) { x /= s; y /= s; z /= s; w /= s; return *this; }
#endif
} float4;
#ifdef __cplusplus
__FERROCM_VHD float4 make_float4(float x, float y, float z, float w) { return float4(x, y, z, w); }
__FERROCM_VHD float4 operator+(float4 a, const float4& b) { return a += b; }
__FERROCM_VHD float4 operator+(float4 a, float s) { return a += s; }
__FERROCM_VHD float4 operator+(float s, const float4& b) { float4 a(s, s, s, s); return a += b; }
__FERROCM_VHD float4 operator-(float4 a, const float4& b) { return a -= b; }
__FERROCM_VHD float4 operator-(float4 a, float s) { return a -= s; }
__FERROCM_VHD float4 operator-(float s, const float4& b) { float4 a(s, s, s, s); return a -= b; }
__FERROCM_VHD float4 operator*(float4 a, const float4& b) { return a *= b; }
__FERROCM_VHD float4 operator*(float4 a, float s) { return a *= s; }
__FERROCM_VHD float4 operator*(float s, const float4& b) { float4 a(s, s, s, s); return a *= b; }
__FERROCM_VHD float4 operator/(float4 a, const float4& b) { return a /= b; }
__FERROCM_VHD float4 operator/(float4 a, float s) { return a /= s; }
__FERROCM_VHD float4 operator/(float s, const float4& b) { float4 a(s, s, s, s); return a /= b; }
__FERROCM_VHD float4 operator-(const float4& a) { return float4(-a.x, -a.y, -a.z, -a.w); }
__FERROCM_VHD bool operator==(const float4& a, const float4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__FERROCM_VHD bool operator!=(const float4& a, const float4& b) { return !(a == b); }
#else
__FERROCM_VHD float4 make_float4(float x, float y, float z, float w) { float4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#endif
typedef struct __attribute__((aligned(8))) double1 {
    double x;
#ifdef __cplusplus
    __host__ __device__ constexpr double1() : x(0) {}
    __host__ __device__ constexpr double1(double _x) : x(_x) {}
    __host__ __device__ double1& operator+=(const double1& o) { x += o.x; return *this; }
    __host__ __device__ double1& operator+=(double s) { x += s; return *this; }
    __host__ __device__ double1& operator-=(const double1& o) { x -= o.x; return *this; }
    __host__ __device__ double1& operator-=(double s) { x -= s; return *this; }
    __host__ __device__ double1& operator*=(const double1& o) { x *= o.x; return *this; }
    __host__ __device__ double1& operator*=(double s) { x *= s; return *this; }
    __host__ __device__ double1& operator/=(const double1& o) { x /= o.x; return *this; }
    __host__ __device__ double1& operator/=(double s) { x /= s; return *this; }
#endif
} double1;
#ifdef __cplusplus
__FERROCM_VHD double1 make_double1(double x) { return double1(x); }
__FERROCM_VHD double1 operator+(double1 a, const double1& b) { return a += b; }
__FERROCM_VHD double1 operator+(double1 a, double s) { return a += s; }
__FERROCM_VHD double1 operator+(double s, const double1& b) { double1 a(s); return a += b; }
__FERROCM_VHD double1 operator-(double1 a, const double1& b) { return a -= b; }
__FERROCM_VHD double1 operator-(double1 a, double s) { return a -= s; }
__FERROCM_VHD double1 operator-(double s, const double1& b) { double1 a(s); return a -= b; }
__FERROCM_VHD double1 operator*(double1 a, const double1& b) { return a *= b; }
__FERROCM_VHD double1 operator*(double1 a, double s) { return a *= s; }
__FERROCM_VHD double1 operator*(double s, const double1& b) { double1 a(s); return a *= b; }
__FERROCM_VHD double1 operator/(double1 a, const double1& b) { return a /= b; }
__FERROCM_VHD double1 operator/(double1 a, double s) { return a /= s; }
__FERROCM_VHD double1 operator/(double s, const double1& b) { double1 a(s); return a /= b; }
__FERROCM_VHD double1 operator-(const double1& a) { return double1(-a.x); }
__FERROCM_VHD bool operator==(const double1& a, const double1& b) { return a.x == b.x; }
__FERROCM_VHD bool operator!=(const double1& a, const double1& b) { return !(a == b); }
#else
__FERROCM_VHD double1 make_double1(double x) { double1 v; v.x = x; return v; }
#endif
typedef struct __attribute__((aligned(16))) double2 {
    double x, y;
#ifdef __cplusplus
    __host__ __device__ constexpr double2() : x(0), y(0) {}
    __host__ __device__ constexpr double2(double _x, double _y) : x(_x), y(_y) {}
    __host__ __device__ explicit constexpr double2(double s) : x(s), y(s) {}
    __host__ __device__ double2& operator+=(const double2& o) { x += o.x; y += o.y; return *this; }
    __host__ __device__ double2& operator+=(double s) { x += s; y += s; return *this; }
    __host__ __device__ double2& operator-=(const double2& o) { x -= o.x; y -= o.y; return *this; }
    __host__ __device__ double2& operator-=(double s) { x -= s; y -= s; return *this; }
    __host__ __device__ double2& operator*=(const double2& o) { x *= o.x; y *= o.y; return *this; }
    __host__ __device__ double2& operator*=(double s) { x *= s; y *= s; return *this; }
    __host__ __device__ double2& operator/=(const double2& o) { x /= o.x; y /= o.y; return *this; }
    __host__ __device__ double2& operator/=(double s) { x /= s; y /= s; return *this; }
#endif
} double2;
#ifdef __cplusplus
__FERROCM_VHD double2 make_double2(double x, double y) { return double2(x, y); }
__FERROCM_VHD double2 operator+(double2 a, const double2& b) { return a += b; }
__FERROCM_VHD double2 operator+(double2 a, double s) { return a += s; }
__FERROCM_VHD double2 operator+(double s, const double2& b) { double2 a(s, s); return a += b; }
__FERROCM_VHD double2 operator-(double2 a, const double2& b) { return a -= b; }
__FERROCM_VHD double2 operator-(double2 a, double s) { return a -= s; }
__FERROCM_VHD double2 operator-(double s, const double2& b) { double2 a(s, s); return a -= b; }
__FERROCM_VHD double2 operator*(double2 a, const double2& b) { return a *= b; }
__FERROCM_VHD double2 operator*(double2 a, double s) { return a *= s; }
__FERROCM_VHD double2 operator*(double s, const double2& b) { double2 a(s, s); return a *= b; }
__FERROCM_VHD double2 operator/(double2 a, const double2& b) { return a /= b; }
__FERROCM_VHD double2 operator/(double2 a, double s) { return a /= s; }
__FERROCM_VHD double2 operator/(double s, const double2& b) { double2 a(s, s); return a /= b; }
__FERROCM_VHD double2 operator-(const double2& a) { return double2(-a.x, -a.y); }
__FERROCM_VHD bool operator==(const double2& a, const double2& b) { return a.x == b.x && a.y == b.y; }
__FERROCM_VHD bool operator!=(const double2& a, const double2& b) { return !(a == b); }
#else
__FERROCM_VHD double2 make_double2(double x, double y) { double2 v; v.x = x; v.y = y; return v; }
#endif
typedef struct __attribute__((aligned(8))) double3 {
    double x, y, z;
#ifdef __cplusplus
    __host__ __device__ constexpr double3() : x(0), y(0), z(0) {}
    __host__ __device__ constexpr double3(double _x, double _y, double _z) : x(_x), y(_y), z(_z) {}
    __host__ __device__ explicit constexpr double3(double s) : x(s), y(s), z(s) {}
    __host__ __device__ double3& operator+=(const double3& o) { x += o.x; y += o.y; z += o.z; return *this; }
    __host__ __device__ double3& operator+=(double s) { x += s; y += s; z += s; return *this; }
    __host__ __device__ double3& operator-=(const double3& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    __host__ __device__ double3& operator-=(double s) { x -= s; y -= s; z -= s; return *this; }
    __host__ __device__ double3& operator*=(const double3& o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
    __host__ __device__ double3& operator*=(double s) { x *= s; y *= s; z *= s; return *this; }
    __host__ __device__ double3& operator/=(const double3& o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
    __host__ __device__ double3& operator/=(double s) { x /= s; y /= s; z /= s; return *this; }
#endif
} double3;
#ifdef __cplusplus
__FERROCM_VHD double3 make_double3(double x, double y, double z) { return double3(x, y, z); }
__FERROCM_VHD double3 operator+(double3 a, const double3& b) { return a += b; }
__FERROCM_VHD double3 operator+(double3 a, double s) { return a += s; }
__FERROCM_VHD double3 operator+(double s, const double3& b) { double3 a(s, s, s); return a += b; }
__FERROCM_VHD double3 operator-(double3 a, const double3& b) { return a -= b; }
__FERROCM_VHD double3 operator-(double3 a, double s) { return a -= s; }
__FERROCM_VHD double3 operator-(double s, const double3& b) { double3 a(s, s, s); return a -= b; }
__FERROCM_VHD double3 operator*(double3 a, const double3& b) { return a *= b; }
__FERROCM_VHD double3 operator*(double3 a, double s) { return a *= s; }
__FERROCM_VHD double3 operator*(double s, const double3& b) { double3 a(s, s, s); return a *= b; }
__FERROCM_VHD double3 operator/(double3 a, const double3& b) { return a /= b; }
__FERROCM_VHD double3 operator/(double3 a, double s) { return a /= s; }
__FERROCM_VHD double3 operator/(double s, const double3& b) { double3 a(s, s, s); return a /= b; }
__FERROCM_VHD double3 operator-(const double3& a) { return double3(-a.x, -a.y, -a.z); }
__FERROCM_VHD bool operator==(const double3& a, const double3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__FERROCM_VHD bool operator!=(const double3& a, const double3& b) { return !(a == b); }
#else
__FERROCM_VHD double3 make_double3(double x, double y, double z) { double3 v; v.x = x; v.y = y; v.z = z; return v; }
#endif
typedef struct __attribute__((aligned(16))) double4 {
    double x, y, z, w;
#ifdef __cplusplus
    __host__ __device__ constexpr double4() : x(0), y(0), z(0), w(0) {}
    __host__ __device__ constexpr double4(double _x, double _y, double _z, double _w) : x(_x), y(_y), z(_z), w(_w) {}
    __host__ __device__ explicit constexpr double4(double s) : x(s), y(s), z(s), w(s) {}
    __host__ __device__ double4& operator+=(const double4& o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
    __host__ __device__ double4& operator+=(double s) { x += s; y += s; z += s; w += s; return *this; }
    __host__ __device__ double4& operator-=(const double4& o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
    __host__ __device__ double4& operator-=(double s) { x -= s; y -= s; z -= s; w -= s; return *this; }
    __host__ __device__ double4& operator*=(const double4& o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
    __host__ __device__ double4& operator*=(double s) { x *= s; y *= s; z *= s; w *= s; return *this; }
    __host__ __device__ double4& operator/=(const double4& o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
    __host__ __device__ double4& operator/=(double s) { x /= s; y /= s; z /= s; w /= s; return *this; }
#endif
} double4;
#ifdef __cplusplus
__FERROCM_VHD double4 make_double4(double x, double y, double z, double w) { return double4(x, y, z, w); }
__FERROCM_VHD double4 operator+(double4 a, const double4& b) { return a += b; }
__FERROCM_VHD double4 operator+(double4 a, double s) { return a += s; }
__FERROCM_VHD double4 operator+(double s, const double4& b) { double4 a(s, s, s, s); return a += b; }
__FERROCM_VHD double4 operator-(double4 a, const double4& b) { return a -= b; }
__FERROCM_VHD double4 operator-(double4 a, double s) { return a -= s; }
__FERROCM_VHD double4 operator-(double s, const double4& b) { double4 a(s, s, s, s); return a -= b; }
__FERROCM_VHD double4 operator*(double4 a, const double4& b) { return a *= b; }
__FERROCM_VHD double4 operator*(double4 a, double s) { return a *= s; }
__FERROCM_VHD double4 operator*(double s, const double4& b) { double4 a(s, s, s, s); return a *= b; }
__FERROCM_VHD double4 operator/(double4 a, const double4& b) { return a /= b; }
__FERROCM_VHD double4 operator/(double4 a, double s) { return a /= s; }
__FERROCM_VHD double4 operator/(double s, const double4& b) { double4 a(s, s, s, s); return a /= b; }
__FERROCM_VHD double4 operator-(const double4& a) { return double4(-a.x, -a.y, -a.z, -a.w); }
__FERROCM_VHD bool operator==(const double4& a, const double4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__FERROCM_VHD bool operator!=(const double4& a, const double4& b) { return !(a == b); }
#else
__FERROCM_VHD double4 make_double4(double x, double y, double z, double w) { double4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#endif

#undef __FERROCM_VHD
#endif /* FERROCM_HIP_VECTOR_TYPES_H */
