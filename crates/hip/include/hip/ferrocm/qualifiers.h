/* Function and variable qualifiers of the HIP kernel language. Under `ferrocm hipcc` (clang in
 * CUDA mode) they are clang's CUDA attributes; under a plain host compiler they are empty, so
 * host files that include the runtime API compile anywhere.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef FERROCM_HIP_QUALIFIERS_H
#define FERROCM_HIP_QUALIFIERS_H

#if defined(__CUDA__) && defined(__clang__)
#define __FERROCM_KERNEL_LANGUAGE__ 1
#ifndef __host__
#define __host__ __attribute__((host))
#endif
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
#ifndef __constant__
#define __constant__ __attribute__((constant))
#endif
#ifndef __managed__
#define __managed__ __attribute__((managed))
#endif
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#else
#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __shared__
#define __shared__
#endif
#ifndef __constant__
#define __constant__
#endif
#ifndef __managed__
#define __managed__
#endif
#define __launch_bounds__(...)
#endif

#ifndef __forceinline__
#define __forceinline__ inline __attribute__((always_inline))
#endif
#ifndef __noinline__
#define __noinline__ __attribute__((noinline))
#endif

#if defined(__CUDA_ARCH__)
/* The device pass of `ferrocm hipcc`. */
#define __HIP_DEVICE_COMPILE__ 1
#endif
#if defined(__FERROCM_KERNEL_LANGUAGE__)
#define __HIPCC__ 1
#define __HIP__ 1
#endif

#endif /* FERROCM_HIP_QUALIFIERS_H */
