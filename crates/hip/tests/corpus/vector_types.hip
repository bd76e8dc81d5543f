// Every HIP vector type (char1 .. double4): size and alignment as HIP and CUDA lay them out, and
// each operator and make_* function on the device, checked component by component against the
// scalar operation on the host.
#include "common.h"
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

constexpr size_t expected_align(size_t n, size_t elem) {
    return (n == 1 || n == 3) ? elem : (n * elem < 16 ? n * elem : 16);
}

#define LAYOUT(V, T, N)                                                                   \
    static_assert(sizeof(V) == N * sizeof(T), #V " size");                               \
    static_assert(alignof(V) == expected_align(N, sizeof(T)), #V " alignment");          \
    static_assert(std::is_same<decltype(V().x), T>::value, #V " element type");
#define LAYOUTS(NAME, T) LAYOUT(NAME##1, T, 1) LAYOUT(NAME##2, T, 2) LAYOUT(NAME##3, T, 3) LAYOUT(NAME##4, T, 4)
LAYOUTS(char, signed char)
LAYOUTS(uchar, unsigned char)
LAYOUTS(short, short)
LAYOUTS(ushort, unsigned short)
LAYOUTS(int, int)
LAYOUTS(uint, unsigned int)
LAYOUTS(long, long)
LAYOUTS(ulong, unsigned long)
LAYOUTS(longlong, long long)
LAYOUTS(ulonglong, unsigned long long)
LAYOUTS(float, float)
LAYOUTS(double, double)

// Results per element: 12 vectors, then 2 comparison flags.
constexpr int kResults = 12;

template <typename V, typename T>
__device__ __host__ T& at(V& v, int c) { return reinterpret_cast<T*>(&v)[c]; }

template <typename V, typename T>
__global__ void ops(const V* a, const V* b, const T* s, V* out, int* flags, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    V x = a[i], y = b[i];
    T k = s[i];
    V* o = out + kResults * i;
    o[0] = x + y;
    o[1] = x - y;
    o[2] = x * y;
    o[3] = x / y;
    o[4] = x + k;
    o[5] = k - x;
    o[6] = x * k;
    o[7] = k / y;
    o[8] = x - k;
    o[9] = k + y;
    V z = x;
    z += y;
    z *= k;
    z -= x;
    z /= y;
    o[10] = z;
    V m = y;
    m /= k;
    m += k;
    m -= y;
    m *= x;
    o[11] = m;
    flags[2 * i] = (x == x) && !(x != x);
    flags[2 * i + 1] = (x == y) ? 1 : ((x != y) ? 2 : 3);
}

template <typename T>
bool same(T got, T want) {
    if (std::is_floating_point<T>::value) {
        double g = (double)got, w = (double)want;
        // The device may contract a multiply and an add into one rounding (clang's CUDA
        // default), the host reference does not: a few units in the last place of operands
        // up to about 150 in magnitude.
        double tol = (std::is_same<T, float>::value ? 1e-4 : 1e-12) * (std::fabs(w) + 1.0);
        return std::fabs(g - w) <= tol;
    }
    return got == want;
}

// Small nonzero values, so no integer division by zero and no overflow before the narrowing
// every integer operation of a vector ends in (as the scalar reference below does too).
template <typename T>
T value(Rng& rng, bool is_signed) {
    unsigned r = rng.next();
    int v = (int)(r % 11) + 1;
    if (is_signed && (r & 0x800)) v = -v;
    if (std::is_floating_point<T>::value) return (T)(v + (T)((r >> 12) % 1000) / (T)1000);
    return (T)v;
}

template <typename V, typename T, int N>
void check(const char* name, bool is_signed) {
    const int n = 300; // more than one block of 128, with a partial last block
    Rng rng(N * 1000 + sizeof(T) + is_signed);
    std::vector<V> a(n), b(n), out(kResults * n);
    std::vector<T> s(n);
    std::vector<int> flags(2 * n);
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < N; c++) {
            at<V, T>(a[i], c) = value<T>(rng, is_signed);
            at<V, T>(b[i], c) = value<T>(rng, is_signed);
        }
        s[i] = value<T>(rng, is_signed);
    }
    b[7] = a[7]; // one equal pair
    V *da, *db, *dout;
    T* ds;
    int* dflags;
    HIP_CHECK(hipMalloc(&da, n * sizeof(V)));
    HIP_CHECK(hipMalloc(&db, n * sizeof(V)));
    HIP_CHECK(hipMalloc(&dout, kResults * n * sizeof(V)));
    HIP_CHECK(hipMalloc(&ds, n * sizeof(T)));
    HIP_CHECK(hipMalloc(&dflags, 2 * n * sizeof(int)));
    HIP_CHECK(hipMemcpy(da, a.data(), n * sizeof(V), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(db, b.data(), n * sizeof(V), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(ds, s.data(), n * sizeof(T), hipMemcpyHostToDevice));
    ops<V, T><<<(n + 127) / 128, 128>>>(da, db, ds, dout, dflags, n);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(out.data(), dout, kResults * n * sizeof(V), hipMemcpyDeviceToHost));
    HIP_CHECK(hipMemcpy(flags.data(), dflags, 2 * n * sizeof(int), hipMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        bool equal = true;
        for (int c = 0; c < N; c++) {
            T x = at<V, T>(a[i], c), y = at<V, T>(b[i], c), k = s[i];
            T want[kResults] = {
                (T)(x + y), (T)(x - y), (T)(x * y), (T)(x / y), (T)(x + k), (T)(k - x),
                (T)(x * k), (T)(k / y), (T)(x - k), (T)(k + y),
                (T)((T)((T)((T)(x + y) * k) - x) / y),
                (T)((T)((T)((T)(y / k) + k) - y) * x),
            };
            for (int r = 0; r < kResults; r++) {
                T got = at<V, T>(out[kResults * i + r], c);
                CHECK_THAT(same(got, want[r]), "%s: element %d result %d component %d: got %g, want %g", name, i, r,
                           c, (double)got, (double)want[r]);
            }
            equal = equal && x == y;
        }
        CHECK_THAT(flags[2 * i] == 1, "%s: element %d: x == x or x != x", name, i);
        CHECK_THAT(flags[2 * i + 1] == (equal ? 1 : 2), "%s: element %d: == / != gave %d", name, i, flags[2 * i + 1]);
    }
    HIP_CHECK(hipFree(da));
    HIP_CHECK(hipFree(db));
    HIP_CHECK(hipFree(dout));
    HIP_CHECK(hipFree(ds));
    HIP_CHECK(hipFree(dflags));
}

// make_* and unary minus on the host side of the same header.
void host_functions() {
    int3 v = make_int3(1, -2, 3);
    int3 m = -v;
    CHECK_THAT(m.x == -1 && m.y == 2 && m.z == -3, "unary minus of int3");
    double2 d = -make_double2(0.5, -4.0);
    CHECK_THAT(d.x == -0.5 && d.y == 4.0, "unary minus of double2");
    uchar4 u = make_uchar4(1, 2, 3, 250);
    CHECK_THAT(u.x == 1 && u.y == 2 && u.z == 3 && u.w == 250, "make_uchar4");
    float4 splat(2.5f);
    CHECK_THAT(splat.x == 2.5f && splat.w == 2.5f, "float4 splat constructor");
    longlong1 l = make_longlong1(-7);
    CHECK_THAT(l.x == -7, "make_longlong1");
}

#define CHECKS(NAME, T, SIGNED)                    \
    check<NAME##1, T, 1>(#NAME "1", SIGNED);       \
    check<NAME##2, T, 2>(#NAME "2", SIGNED);       \
    check<NAME##3, T, 3>(#NAME "3", SIGNED);       \
    check<NAME##4, T, 4>(#NAME "4", SIGNED);

int main() {
    host_functions();
    CHECKS(char, signed char, true)
    CHECKS(uchar, unsigned char, false)
    CHECKS(short, short, true)
    CHECKS(ushort, unsigned short, false)
    CHECKS(int, int, true)
    CHECKS(uint, unsigned int, false)
    CHECKS(long, long, true)
    CHECKS(ulong, unsigned long, false)
    CHECKS(longlong, long long, true)
    CHECKS(ulonglong, unsigned long long, false)
    CHECKS(float, float, true)
    CHECKS(double, double, true)
    std::printf("Validation passed: 48 vector types\n");
    return 0;
}
