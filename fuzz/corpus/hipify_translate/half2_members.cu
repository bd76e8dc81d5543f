#include <cuda_fp16.h>
struct Pair { half2 v; __device__ half first() const { return v.x; } };
__device__ half2 add(half2 a, const half2 b, half2 &c, half2 *p, __half2 u) {
  half2 s = a, t[4];
  s.x = a.y;                        // both
  t[threadIdx.x].y = b.x;           // t indexed; b is const: left
  c.x = reinterpret_cast<half&>(a.x);  // a.x already cast
  p[1].x = u.x;                     // p indexed; u is __half2: left
  Pair q; q.v.x = s.y;              // q.v.x: not seen; s.y wrapped
  auto w = s; w.x = s.x;            // auto: left
  return s;
}
__global__ void k(float2 a) { float f = a.x; }
half2 g(half2 h);
__device__ void m() { float2 h; h.x = 1.0f; }
