// Kernels for the PTX front end's tests: `ferrocm hipcc --device-only` (clang-19, sm_80) turns
// this file into kernels.ptx, which the tests embed. Regenerate with tests/data/regen.sh.
#include <hip/hip_runtime.h>

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy_loop(int n, float a, const float* x, float* y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

// Block sums with shared memory and warp shuffles.
extern "C" __global__ void block_sum(const float* in, float* out, int n) {
    __shared__ float warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    for (int d = 16; d > 0; d /= 2) v += __shfl_down(v, d);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (blockDim.x + 31) / 32 ? warp_sums[lane] : 0.0f;
        for (int d = 16; d > 0; d /= 2) v += __shfl_xor(v, d);
        if (lane == 0) out[blockIdx.x] = v;
    }
}

// Tiled matrix multiply, C = A * B, row-major, any sizes.
#define TILE 16
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ka = t * TILE + threadIdx.x, kb = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" __global__ void histogram(const unsigned char* data, int n, unsigned int* bins) {
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

extern "C" __global__ void math_funcs(const float* x, float* out, const double* xd, double* outd, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[8 * i + 0] = sinf(v);
    out[8 * i + 1] = expf(v);
    out[8 * i + 2] = logf(fabsf(v) + 1.0f);
    out[8 * i + 3] = powf(fabsf(v), 1.5f);
    out[8 * i + 4] = tanhf(v);
    out[8 * i + 5] = sqrtf(fabsf(v));
    out[8 * i + 6] = atan2f(v, 0.5f);
    out[8 * i + 7] = erff(v);
    double d = xd[i];
    outd[4 * i + 0] = sin(d);
    outd[4 * i + 1] = exp(d);
    outd[4 * i + 2] = log(fabs(d) + 1.0);
    outd[4 * i + 3] = cos(d);
}

__constant__ float coefficients[4] = {0.5f, -1.0f, 2.0f, 0.25f};
__device__ int launches;

extern "C" __global__ void polynomial(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) atomicAdd(&launches, 1);
    if (i < n) {
        float v = x[i];
        y[i] = ((coefficients[3] * v + coefficients[2]) * v + coefficients[1]) * v + coefficients[0];
    }
}

extern "C" __global__ void dynamic_reverse(int* data, int n) {
    extern __shared__ int s[];
    int t = threadIdx.x;
    if (t < n) s[t] = data[t];
    __syncthreads();
    if (t < n) data[t] = s[n - 1 - t];
}

extern "C" __global__ void hello(int tag) {
    printf("block %d thread %d tag %d %s %.3f\n", (int)blockIdx.x, (int)threadIdx.x, tag, "ok", 0.5 * threadIdx.x);
}

extern "C" __global__ void checked(const int* v, int n) {
    int i = threadIdx.x;
    if (i < n) assert(v[i] >= 0);
}

struct Params {
    float scale;
    int offset;
    double bias;
    char tag;
};

extern "C" __global__ void by_value(Params p, const int* in, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = p.scale * (in[i] + p.offset) + p.bias + p.tag;
}

extern "C" __global__ void ballot_votes(const int* in, unsigned* ballots, int* anys, int* alls) {
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    unsigned long long b = __ballot(v > 0);
    int an = __any(v > 100), al = __all(v >= 0);
    if (threadIdx.x % 32 == 0) {
        int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
        ballots[w] = (unsigned)b;
        anys[w] = an;
        alls[w] = al;
    }
}

template <typename T, int N>
__device__ T local_sum(const T* p, int stride) {
    T buf[N];
    for (int k = 0; k < N; ++k) buf[k] = p[k * stride];
    T s = 0;
    for (int k = N - 1; k >= 0; --k) s += buf[k] * (T)(k + 1);
    return s;
}

extern "C" __global__ void local_array(const double* in, double* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = local_sum<double, 5>(in + i, n);
}

extern "C" __global__ void integer_ops(const unsigned* in, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i];
    out[8 * i + 0] = __popc(v);
    out[8 * i + 1] = __clz((int)v);
    out[8 * i + 2] = __brev(v);
    out[8 * i + 3] = (unsigned)__ffs((int)v);
    out[8 * i + 4] = __byte_perm(v, 0x01234567u, 0x5140);
    out[8 * i + 5] = (v >> 7) & 0x3ff;
    out[8 * i + 6] = (unsigned)((int)v / 7) ^ (v % 13u);
    out[8 * i + 7] = __umulhi(v, 0x9e3779b9u) + (unsigned)(((unsigned long long)v * v) >> 40);
}
