// Half and bfloat16 arithmetic, vector types and complex numbers on the device.
#include "common.h"
#include <hip/hip_bf16.h>
#include <hip/hip_complex.h>
#include <hip/hip_fp16.h>
#include <cmath>
#include <vector>

__global__ void halves(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half a = __float2half(x[i]), b = __float2half(0.5f);
    __half c = __hfma(a, b, __hmul(a, a));
    __half2 p = __floats2half2_rn(x[i], -x[i]);
    __half2 q = __hadd2(p, __half2half2(__float2half(1.0f)));
    out[4 * i + 0] = __half2float(c);
    out[4 * i + 1] = __low2float(q) + __high2float(q);
    __hip_bfloat16 bf = __float2bfloat16(x[i]);
    out[4 * i + 2] = __bfloat162float(bf * __float2bfloat16(3.0f));
    out[4 * i + 3] = __half2float(__hlt(a, b) ? a : b);
}

__global__ void vectors(const float4* in, float4* out, const hipFloatComplex* z, hipFloatComplex* zo, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = in[i];
    out[i] = v * 2.0f + make_float4(1, 2, 3, 4) - float4(v.w, v.z, v.y, v.x);
    zo[i] = hipCaddf(hipCmulf(z[i], hipConjf(z[i])), hipCdivf(z[i], make_hipFloatComplex(0.0f, 2.0f)));
}

int main() {
    const int n = 500;
    std::vector<float> x(n), out(4 * n);
    Rng rng(10);
    for (auto& v : x) v = rng.uniform() * 4.0f;
    float *dx, *dout;
    HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dout, 4 * n * sizeof(float)));
    HIP_CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
    halves<<<(n + 127) / 128, 128>>>(dx, dout, n);
    HIP_CHECK(hipMemcpy(out.data(), dout, 4 * n * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        // The same operations on the host (the headers work there too).
        __half a = __float2half(x[i]), b = __float2half(0.5f);
        float want0 = __half2float(__hfma(a, b, __hmul(a, a)));
        CHECK_THAT(out[4 * i] == want0, "half fma [%d]: %g, want %g", i, out[4 * i], want0);
        float want1 = __half2float((__half)(__float2half(x[i]) + (__half)1.0f)) +
                      __half2float((__half)(__float2half(-x[i]) + (__half)1.0f));
        CHECK_THAT(out[4 * i + 1] == want1, "half2 [%d]", i);
        float want2 = __bfloat162float(__float2bfloat16(x[i]) * __float2bfloat16(3.0f));
        CHECK_THAT(out[4 * i + 2] == want2, "bf16 [%d]: %g, want %g", i, out[4 * i + 2], want2);
        CHECK_THAT(std::fabs(want2 - 3.0f * x[i]) <= 0.02f * std::fabs(3.0f * x[i]) + 1e-6f, "bf16 precision [%d]", i);
        CHECK_THAT(out[4 * i + 3] == std::fmin(__half2float(a), 0.5f), "half compare [%d]", i);
    }
    std::vector<float4> v(n), vo(n);
    std::vector<hipFloatComplex> z(n), zo(n);
    for (int i = 0; i < n; ++i) {
        v[i] = make_float4(rng.uniform(), rng.uniform(), rng.uniform(), rng.uniform());
        z[i] = make_hipFloatComplex(rng.uniform(), rng.uniform());
    }
    float4 *dv, *dvo;
    hipFloatComplex *dz, *dzo;
    HIP_CHECK(hipMalloc(&dv, n * sizeof(float4)));
    HIP_CHECK(hipMalloc(&dvo, n * sizeof(float4)));
    HIP_CHECK(hipMalloc(&dz, n * sizeof(hipFloatComplex)));
    HIP_CHECK(hipMalloc(&dzo, n * sizeof(hipFloatComplex)));
    HIP_CHECK(hipMemcpy(dv, v.data(), n * sizeof(float4), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(dz, z.data(), n * sizeof(hipFloatComplex), hipMemcpyHostToDevice));
    vectors<<<(n + 63) / 64, 64>>>(dv, dvo, dz, dzo, n);
    HIP_CHECK(hipMemcpy(vo.data(), dvo, n * sizeof(float4), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(zo.data(), dzo, n * sizeof(hipFloatComplex), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        float4 w = v[i] * 2.0f + make_float4(1, 2, 3, 4) - float4(v[i].w, v[i].z, v[i].y, v[i].x);
        CHECK_THAT(vo[i] == w, "float4 [%d]", i);
        hipFloatComplex want = hipCaddf(hipCmulf(z[i], hipConjf(z[i])), hipCdivf(z[i], make_hipFloatComplex(0.0f, 2.0f)));
        CHECK_THAT(std::fabs(zo[i].x - want.x) < 1e-6f && std::fabs(zo[i].y - want.y) < 1e-6f, "complex [%d]", i);
    }
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dout));
    HIP_CHECK(hipFree(dv));
    HIP_CHECK(hipFree(dvo));
    HIP_CHECK(hipFree(dz));
    HIP_CHECK(hipFree(dzo));
    std::printf("Validation passed\n");
    return 0;
}
