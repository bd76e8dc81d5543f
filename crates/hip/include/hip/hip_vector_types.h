/* HIP's vector types (char1..double4) with make_* functions and component-wise operators.
 * Sizes and alignments follow HIP and CUDA: an n-vector of 2 or 4 elements is aligned to its
 * size (at most 16 bytes), a 1- or 3-vector to its element.
 *
 * Every type is written by one macro, __FERROCM_VECTOR(name, element, width, alignment, sign),
 * from the per-width component lists below; the whole list of types is at the end.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef FERROCM_HIP_VECTOR_TYPES_H
#define FERROCM_HIP_VECTOR_TYPES_H

#include "hip/ferrocm/qualifiers.h"

#ifdef __cplusplus
#define __FERROCM_VHD static __host__ __device__ inline
#else
#define __FERROCM_VHD static inline
#endif

/* __FERROCM_EACH<n>(F, SEP, A): F(c, A) for each component c of an n-vector, with SEP() between. */
#define __FERROCM_EACH1(F, SEP, A) F(x, A)
#define __FERROCM_EACH2(F, SEP, A) F(x, A) SEP() F(y, A)
#define __FERROCM_EACH3(F, SEP, A) F(x, A) SEP() F(y, A) SEP() F(z, A)
#define __FERROCM_EACH4(F, SEP, A) F(x, A) SEP() F(y, A) SEP() F(z, A) SEP() F(w, A)
#define __FERROCM_COMMA() ,
#define __FERROCM_AND() &&
#define __FERROCM_NOTHING()

#define __FERROCM_NAME(c, A) c
#define __FERROCM_INIT(c, v) c(v)
#define __FERROCM_INIT_ARG(c, A) c(_##c)
#define __FERROCM_PARAM(c, T) T _##c
#define __FERROCM_ARG(c, T) T c
#define __FERROCM_ASSIGN(c, OP) c OP o.c;
#define __FERROCM_ASSIGN_SCALAR(c, OP) c OP s;
#define __FERROCM_NEGATE(c, A) -a.c
#define __FERROCM_EQUAL(c, A) a.c == b.c
#define __FERROCM_SET(c, A) v.c = c;
#define __FERROCM_SPLAT(c, A) s

#ifdef __cplusplus
/* Splat constructor: an n-vector of n > 1 elements can be made from one scalar (explicitly). */
#define __FERROCM_SPLAT_CTOR1(V, T)
#define __FERROCM_SPLAT_CTOR2(V, T) __FERROCM_SPLAT_CTOR(V, T, 2)
#define __FERROCM_SPLAT_CTOR3(V, T) __FERROCM_SPLAT_CTOR(V, T, 3)
#define __FERROCM_SPLAT_CTOR4(V, T) __FERROCM_SPLAT_CTOR(V, T, 4)
#define __FERROCM_SPLAT_CTOR(V, T, N) \
    __host__ __device__ explicit constexpr V(T s) : __FERROCM_EACH##N(__FERROCM_INIT, __FERROCM_COMMA, s) {}

#define __FERROCM_COMPOUND(V, T, N, OP) \
    __host__ __device__ V& operator OP(const V& o) { __FERROCM_EACH##N(__FERROCM_ASSIGN, __FERROCM_NOTHING, OP) return *this; } \
    __host__ __device__ V& operator OP(T s) { __FERROCM_EACH##N(__FERROCM_ASSIGN_SCALAR, __FERROCM_NOTHING, OP) return *this; }

#define __FERROCM_MEMBERS(V, T, N) \
    __host__ __device__ constexpr V() : __FERROCM_EACH##N(__FERROCM_INIT, __FERROCM_COMMA, 0) {} \
    __host__ __device__ constexpr V(__FERROCM_EACH##N(__FERROCM_PARAM, __FERROCM_COMMA, T)) \
        : __FERROCM_EACH##N(__FERROCM_INIT_ARG, __FERROCM_COMMA, ~) {} \
    __FERROCM_SPLAT_CTOR##N(V, T) \
    __FERROCM_COMPOUND(V, T, N, +=) \
    __FERROCM_COMPOUND(V, T, N, -=) \
    __FERROCM_COMPOUND(V, T, N, *=) \
    __FERROCM_COMPOUND(V, T, N, /=)

#define __FERROCM_BINARY(V, T, N, OP, ASSIGN) \
    __FERROCM_VHD V operator OP(V a, const V& b) { return a ASSIGN b; } \
    __FERROCM_VHD V operator OP(V a, T s) { return a ASSIGN s; } \
    __FERROCM_VHD V operator OP(T s, const V& b) { V a(__FERROCM_EACH##N(__FERROCM_SPLAT, __FERROCM_COMMA, ~)); return a ASSIGN b; }

/* Unary minus, for vectors of signed elements only. */
#define __FERROCM_NEGATION_signed(V, N) \
    __FERROCM_VHD V operator-(const V& a) { return V(__FERROCM_EACH##N(__FERROCM_NEGATE, __FERROCM_COMMA, ~)); }
#define __FERROCM_NEGATION_unsigned(V, N)

#define __FERROCM_FUNCTIONS(V, T, N, SIGN) \
    __FERROCM_VHD V make_##V(__FERROCM_EACH##N(__FERROCM_ARG, __FERROCM_COMMA, T)) { \
        return V(__FERROCM_EACH##N(__FERROCM_NAME, __FERROCM_COMMA, ~)); \
    } \
    __FERROCM_BINARY(V, T, N, +, +=) \
    __FERROCM_BINARY(V, T, N, -, -=) \
    __FERROCM_BINARY(V, T, N, *, *=) \
    __FERROCM_BINARY(V, T, N, /, /=) \
    __FERROCM_NEGATION_##SIGN(V, N) \
    __FERROCM_VHD bool operator==(const V& a, const V& b) { return __FERROCM_EACH##N(__FERROCM_EQUAL, __FERROCM_AND, ~); } \
    __FERROCM_VHD bool operator!=(const V& a, const V& b) { return !(a == b); }
#else
#define __FERROCM_MEMBERS(V, T, N)
#define __FERROCM_FUNCTIONS(V, T, N, SIGN) \
    __FERROCM_VHD V make_##V(__FERROCM_EACH##N(__FERROCM_ARG, __FERROCM_COMMA, T)) { \
        V v; __FERROCM_EACH##N(__FERROCM_SET, __FERROCM_NOTHING, ~) return v; \
    }
#endif

#define __FERROCM_VECTOR(V, T, N, ALIGN, SIGN) \
    typedef struct __attribute__((aligned(ALIGN))) V { \
        T __FERROCM_EACH##N(__FERROCM_NAME, __FERROCM_COMMA, ~); \
        __FERROCM_MEMBERS(V, T, N) \
    } V; \
    __FERROCM_FUNCTIONS(V, T, N, SIGN)

/* The four widths of one element type: 2- and 4-vectors aligned to their size (at most 16
 * bytes), 1- and 3-vectors to their element. */
#define __FERROCM_VECTORS(NAME, T, SIZE, ALIGN2, ALIGN4, SIGN) \
    __FERROCM_VECTOR(NAME##1, T, 1, SIZE, SIGN) \
    __FERROCM_VECTOR(NAME##2, T, 2, ALIGN2, SIGN) \
    __FERROCM_VECTOR(NAME##3, T, 3, SIZE, SIGN) \
    __FERROCM_VECTOR(NAME##4, T, 4, ALIGN4, SIGN)

__FERROCM_VECTORS(char, signed char, 1, 2, 4, signed)
__FERROCM_VECTORS(uchar, unsigned char, 1, 2, 4, unsigned)
__FERROCM_VECTORS(short, short, 2, 4, 8, signed)
__FERROCM_VECTORS(ushort, unsigned short, 2, 4, 8, unsigned)
__FERROCM_VECTORS(int, int, 4, 8, 16, signed)
__FERROCM_VECTORS(uint, unsigned int, 4, 8, 16, unsigned)
__FERROCM_VECTORS(long, long, 8, 16, 16, signed)
__FERROCM_VECTORS(ulong, unsigned long, 8, 16, 16, unsigned)
__FERROCM_VECTORS(longlong, long long, 8, 16, 16, signed)
__FERROCM_VECTORS(ulonglong, unsigned long long, 8, 16, 16, unsigned)
__FERROCM_VECTORS(float, float, 4, 8, 16, signed)
__FERROCM_VECTORS(double, double, 8, 16, 16, signed)

#undef __FERROCM_VECTORS
#undef __FERROCM_VECTOR
#undef __FERROCM_FUNCTIONS
#undef __FERROCM_MEMBERS
#undef __FERROCM_NEGATION_signed
#undef __FERROCM_NEGATION_unsigned
#undef __FERROCM_BINARY
#undef __FERROCM_COMPOUND
#undef __FERROCM_SPLAT_CTOR
#undef __FERROCM_SPLAT_CTOR1
#undef __FERROCM_SPLAT_CTOR2
#undef __FERROCM_SPLAT_CTOR3
#undef __FERROCM_SPLAT_CTOR4
#undef __FERROCM_SPLAT
#undef __FERROCM_SET
#undef __FERROCM_EQUAL
#undef __FERROCM_NEGATE
#undef __FERROCM_ASSIGN_SCALAR
#undef __FERROCM_ASSIGN
#undef __FERROCM_ARG
#undef __FERROCM_PARAM
#undef __FERROCM_INIT_ARG
#undef __FERROCM_INIT
#undef __FERROCM_NAME
#undef __FERROCM_NOTHING
#undef __FERROCM_AND
#undef __FERROCM_COMMA
#undef __FERROCM_EACH1
#undef __FERROCM_EACH2
#undef __FERROCM_EACH3
#undef __FERROCM_EACH4
#undef __FERROCM_VHD
#endif /* FERROCM_HIP_VECTOR_TYPES_H */
