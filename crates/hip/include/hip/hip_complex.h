/* Complex numbers for ferrocm's HIP: hipFloatComplex (float2) and hipDoubleComplex (double2)
 * with HIP's functions, usable on the host and the device.
 * SPDX-License-Identifier: MIT OR Apache-2.0 */
#ifndef FERROCM_HIP_COMPLEX_H
#define FERROCM_HIP_COMPLEX_H

#include "hip/hip_runtime.h"
#include <math.h>

typedef float2 hipFloatComplex;
typedef double2 hipDoubleComplex;
typedef hipFloatComplex hipComplex;

#define __FERROCM_C static __host__ __device__ __forceinline__

__FERROCM_C hipFloatComplex make_hipFloatComplex(float r, float i) { return make_float2(r, i); }
__FERROCM_C hipDoubleComplex make_hipDoubleComplex(double r, double i) { return make_double2(r, i); }
__FERROCM_C hipComplex make_hipComplex(float r, float i) { return make_float2(r, i); }
__FERROCM_C float hipCrealf(hipFloatComplex z) { return z.x; }
__FERROCM_C float hipCimagf(hipFloatComplex z) { return z.y; }
__FERROCM_C double hipCreal(hipDoubleComplex z) { return z.x; }
__FERROCM_C double hipCimag(hipDoubleComplex z) { return z.y; }
__FERROCM_C hipFloatComplex hipConjf(hipFloatComplex z) { return make_float2(z.x, -z.y); }
__FERROCM_C hipDoubleComplex hipConj(hipDoubleComplex z) { return make_double2(z.x, -z.y); }
__FERROCM_C hipFloatComplex hipCaddf(hipFloatComplex a, hipFloatComplex b) { return make_float2(a.x + b.x, a.y + b.y); }
__FERROCM_C hipDoubleComplex hipCadd(hipDoubleComplex a, hipDoubleComplex b) { return make_double2(a.x + b.x, a.y + b.y); }
__FERROCM_C hipFloatComplex hipCsubf(hipFloatComplex a, hipFloatComplex b) { return make_float2(a.x - b.x, a.y - b.y); }
__FERROCM_C hipDoubleComplex hipCsub(hipDoubleComplex a, hipDoubleComplex b) { return make_double2(a.x - b.x, a.y - b.y); }
__FERROCM_C hipFloatComplex hipCmulf(hipFloatComplex a, hipFloatComplex b) {
    return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__FERROCM_C hipDoubleComplex hipCmul(hipDoubleComplex a, hipDoubleComplex b) {
    return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__FERROCM_C float hipCsqabsf(hipFloatComplex z) { return z.x * z.x + z.y * z.y; }
__FERROCM_C double hipCsqabs(hipDoubleComplex z) { return z.x * z.x + z.y * z.y; }
__FERROCM_C hipFloatComplex hipCdivf(hipFloatComplex a, hipFloatComplex b) {
    float d = hipCsqabsf(b);
    return make_float2((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d);
}
__FERROCM_C hipDoubleComplex hipCdiv(hipDoubleComplex a, hipDoubleComplex b) {
    double d = hipCsqabs(b);
    return make_double2((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d);
}
__FERROCM_C float hipCabsf(hipFloatComplex z) { return sqrtf(hipCsqabsf(z)); }
__FERROCM_C double hipCabs(hipDoubleComplex z) { return sqrt(hipCsqabs(z)); }
__FERROCM_C hipFloatComplex hipCfmaf(hipFloatComplex a, hipFloatComplex b, hipFloatComplex c) {
    return hipCaddf(hipCmulf(a, b), c);
}
__FERROCM_C hipDoubleComplex hipCfma(hipDoubleComplex a, hipDoubleComplex b, hipDoubleComplex c) {
    return hipCadd(hipCmul(a, b), c);
}
__FERROCM_C hipFloatComplex hipComplexDoubleToFloat(hipDoubleComplex z) { return make_float2((float)z.x, (float)z.y); }
__FERROCM_C hipDoubleComplex hipComplexFloatToDouble(hipFloatComplex z) { return make_double2(z.x, z.y); }

#undef __FERROCM_C
#endif /* FERROCM_HIP_COMPLEX_H */
