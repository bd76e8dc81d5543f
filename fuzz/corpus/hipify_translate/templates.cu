template <typename T> __global__ void __launch_bounds__(256) s(T* x) {}
void f(float* x) { s<<<1, 256>>>(x); s<float><<<dim3(1), 2, 0, st>>>(x); }
#define RUN(k, n) k<<<(n + 255) / 256, 256>>>(n)
