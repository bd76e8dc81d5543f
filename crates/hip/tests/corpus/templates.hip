// Templates: kernels over element types and functors, a device lambda, a struct of arrays, and
// template recursion at compile time.
#include "common.h"
#include <cmath>
#include <vector>

template <typename T, typename Op>
__global__ void transform(const T* in, T* out, int n, Op op) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = op(in[i]);
}

template <typename T>
struct Affine {
    T a, b;
    __host__ __device__ T operator()(T x) const { return a * x + b; }
};

template <int N>
struct Power {
    template <typename T>
    __host__ __device__ static T of(T x) { return x * Power<N - 1>::of(x); }
};
template <>
struct Power<0> {
    template <typename T>
    __host__ __device__ static T of(T) { return T(1); }
};

template <typename T>
__global__ void cube(T* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = Power<3>::of(x[i]);
}

template <typename T>
bool run(int n, Rng& rng) {
    std::vector<T> in(n), out(n);
    for (auto& v : in) v = (T)(rng.uniform() * 100);
    T *din, *dout;
    HIP_CHECK(hipMalloc(&din, n * sizeof(T)));
    HIP_CHECK(hipMalloc(&dout, n * sizeof(T)));
    HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(T), hipMemcpyHostToDevice));
    Affine<T> f{T(3), T(-2)};
    transform<<<(n + 63) / 64, 64>>>(din, dout, n, f);
    HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(T), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        if (std::fabs((double)(out[i] - f(in[i]))) > 1e-6 * std::fabs((double)f(in[i]))) return false;
    auto square = [] __device__(T x) { return x * x; };
    transform<<<(n + 63) / 64, 64>>>(din, dout, n, square);
    HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(T), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        if (out[i] != in[i] * in[i]) return false;
    cube<<<(n + 63) / 64, 64>>>(din, n);
    HIP_CHECK(hipMemcpy(out.data(), din, n * sizeof(T), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        if (out[i] != in[i] * (in[i] * in[i])) return false;
    HIP_CHECK(hipFree(din));
    HIP_CHECK(hipFree(dout));
    return true;
}

int main() {
    Rng rng(7);
    CHECK_THAT(run<float>(1000, rng), "float");
    CHECK_THAT(run<double>(777, rng), "double");
    CHECK_THAT(run<int>(513, rng), "int");
    CHECK_THAT(run<long long>(300, rng), "long long");
    std::printf("Validation passed\n");
    return 0;
}
