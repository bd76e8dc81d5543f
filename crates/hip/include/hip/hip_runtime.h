/* ferrocm's HIP runtime header: the runtime API, the vector types and, when compiled by
 * `ferrocm hipcc`, the kernel language (built-in variables, barriers, warp functions, atomics,
 * math, printf, assert) and the launch syntax.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef FERROCM_HIP_RUNTIME_H
#define FERROCM_HIP_RUNTIME_H

#include "hip/ferrocm/qualifiers.h"

#if defined(__FERROCM_KERNEL_LANGUAGE__)
/* Device printf overloads the host's by target, so it is declared before <stdio.h> is seen
 * from the device side; math.h likewise precedes the device math. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <assert.h>
#endif

#include "hip/hip_runtime_api.h"
#include "hip/hip_vector_types.h"

#if defined(__FERROCM_KERNEL_LANGUAGE__)
#include "hip/ferrocm/device.h"
#include "hip/ferrocm/math.h"

/* The hooks clang's CUDA mode calls for `kernel<<<grid, block, shared, stream>>>(args)`. */
extern "C" {
hipError_t __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                       hipStream_t stream = 0);
hipError_t cudaLaunchKernel(const void* function, dim3 gridDim, dim3 blockDim, void** args,
                            size_t sharedMem, hipStream_t stream);
}
#endif

/* hipLaunchKernelGGL(kernel, grid, block, sharedMemBytes, stream, args...) */
#define hipLaunchKernelGGL(kernelName, numBlocks, numThreads, memPerBlock, streamId, ...) \
    do {                                                                                  \
        kernelName<<<(numBlocks), (numThreads), (memPerBlock), (streamId)>>>(__VA_ARGS__); \
    } while (0)
#define hipLaunchKernelGGLInternal hipLaunchKernelGGL
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

#endif /* FERROCM_HIP_RUNTIME_H */
