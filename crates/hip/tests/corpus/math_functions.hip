// Math functions on the device against the host's C library.
#include "common.h"
#include <cmath>
#include <vector>

constexpr int F = 14, D = 8;

__global__ void fmath(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], *o = out + F * i;
    o[0] = sinf(v);
    o[1] = cosf(v);
    o[2] = tanf(v * 0.3f);
    o[3] = expf(v);
    o[4] = logf(fabsf(v) + 0.5f);
    o[5] = powf(fabsf(v), 0.75f);
    o[6] = sqrtf(fabsf(v));
    o[7] = tanhf(v);
    o[8] = atan2f(v, 1.5f);
    o[9] = exp2f(v);
    o[10] = log2f(fabsf(v) + 1.0f);
    o[11] = fmaf(v, v, -1.0f);
    o[12] = std::floor(v) + ceilf(v) + truncf(v);
    o[13] = cbrtf(v);
}

__global__ void dmath(const double* x, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i], *o = out + D * i;
    o[0] = sin(v);
    o[1] = cos(v);
    o[2] = exp(v);
    o[3] = log(fabs(v) + 0.5);
    o[4] = pow(fabs(v), 1.25);
    o[5] = sqrt(fabs(v));
    o[6] = atan(v);
    o[7] = tanh(v);
}

static double ulps(double got, double want, double eps) {
    if (got == want) return 0;
    return std::fabs(got - want) / (std::fmax(std::fabs(want), 1e-30) * eps);
}

int main() {
    const int n = 1000;
    std::vector<float> x(n), out(F * n);
    std::vector<double> xd(n), outd(D * n);
    Rng rng(8);
    for (int i = 0; i < n; ++i) {
        x[i] = rng.uniform() * 10.0f;
        xd[i] = rng.uniform() * 20.0;
    }
    float *dx, *dout;
    double *dxd, *doutd;
    HIP_CHECK(hipMalloc(&dx, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dout, F * n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dxd, n * sizeof(double)));
    HIP_CHECK(hipMalloc(&doutd, D * n * sizeof(double)));
    HIP_CHECK(hipMemcpy(dx, x.data(), n * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(dxd, xd.data(), n * sizeof(double), hipMemcpyHostToDevice));
    fmath<<<(n + 127) / 128, 128>>>(dx, dout, n);
    dmath<<<(n + 127) / 128, 128>>>(dxd, doutd, n);
    HIP_CHECK(hipMemcpy(out.data(), dout, F * n * sizeof(float), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(outd.data(), doutd, D * n * sizeof(double), hipMemcpyDeviceToHost));
    double worst = 0, worstd = 0;
    for (int i = 0; i < n; ++i) {
        double v = x[i];
        double want[F] = {std::sin(v), std::cos(v), std::tan((double)(x[i] * 0.3f)), std::exp(v),
                          std::log(std::fabs(v) + 0.5), std::pow(std::fabs(v), 0.75), std::sqrt(std::fabs(v)),
                          std::tanh(v), std::atan2(v, 1.5), std::exp2(v), std::log2(std::fabs(v) + 1.0),
                          std::fma(v, v, -1.0), std::floor(v) + std::ceil(v) + std::trunc(v), std::cbrt(v)};
        for (int k = 0; k < F; ++k) {
            double u = ulps(out[F * i + k], want[k], 1.1920929e-7);
            // Near zero crossings a relative bound is meaningless: an absolute one applies.
            if (std::fabs(out[F * i + k] - want[k]) < 1e-6) u = 0;
            CHECK_THAT(u <= 4, "function %d at %.9g: %.9g, want %.9g (%.1f ulp)", k, v, out[F * i + k], want[k], u);
            worst = std::fmax(worst, u);
        }
        double vd = xd[i];
        double wd[D] = {std::sin(vd), std::cos(vd), std::exp(vd), std::log(std::fabs(vd) + 0.5),
                        std::pow(std::fabs(vd), 1.25), std::sqrt(std::fabs(vd)), std::atan(vd), std::tanh(vd)};
        for (int k = 0; k < D; ++k) {
            double u = ulps(outd[D * i + k], wd[k], 2.220446e-16);
            if (std::fabs(outd[D * i + k] - wd[k]) < 1e-15) u = 0;
            CHECK_THAT(u <= 4, "double function %d at %.17g: %.17g, want %.17g", k, vd, outd[D * i + k], wd[k]);
            worstd = std::fmax(worstd, u);
        }
    }
    std::printf("largest error: %.1f ulp (float), %.1f ulp (double)\n", worst, worstd);
    HIP_CHECK(hipFree(dx));
    HIP_CHECK(hipFree(dout));
    HIP_CHECK(hipFree(dxd));
    HIP_CHECK(hipFree(doutd));
    std::printf("Validation passed\n");
    return 0;
}
