// TMA rule probe (device-side diagnosis for ferrocm's executor): one tiled TMA load or store of a
// 1-5D tensor per process (a trap poisons the context), then a comparison of the GPU's result
// with candidate layouts of the box in shared memory.
//
// usage: tma_probe load|store ESIZE DIMS BOX ESTRIDES SWZ COORDS SMEM_OFF
//   lists are comma-separated, dimension 0 first; ESIZE 1, 2 or 4 (u8/u16/u32); SWZ 0..3 (none,
//   32B, 64B, 128B); SMEM_OFF the box's byte offset from a 1024-byte-aligned shared array.
// Prints one line: the CUDA error if the kernel failed, else which layouts match:
//   dense  = element n at byte n*esize from the destination (ferrocm's executor before the fix),
//   padded = each inner row at a pitch of max(inner bytes, swizzle span),
//   each with the swizzle applied to the absolute shared offset (abs) or to the box offset (rel).
// nvcc -arch=sm_90a -O2 -o tma_probe tma_probe.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    CUresult r_ = (x);                                                         \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char* s_ = "?";                                                    \
      cuGetErrorName(r_, &s_);                                                 \
      printf("FAIL %s -> %s\n", #x, s_);                                       \
      return 1;                                                                \
    }                                                                          \
  } while (0)

constexpr int SMEM = 16384;
struct Coords {
  int c[5];
};

__device__ __forceinline__ void tma_load(int rank, unsigned dst, const CUtensorMap* map, Coords k,
                                         unsigned bar) {
  uint64_t m = (uint64_t)map;
  switch (rank) {
    case 1:
      asm volatile(
          "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];" ::"r"(dst),
          "l"(m), "r"(k.c[0]), "r"(bar)
          : "memory");
      break;
    case 2:
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
          "l"(m), "r"(k.c[0]), "r"(k.c[1]), "r"(bar)
          : "memory");
      break;
    case 3:
      asm volatile(
          "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(dst),
          "l"(m), "r"(k.c[0]), "r"(k.c[1]), "r"(k.c[2]), "r"(bar)
          : "memory");
      break;
    case 4:
      asm volatile(
          "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];" ::"r"(dst),
          "l"(m), "r"(k.c[0]), "r"(k.c[1]), "r"(k.c[2]), "r"(k.c[3]), "r"(bar)
          : "memory");
      break;
    default:
      asm volatile(
          "cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];" ::"r"(dst),
          "l"(m), "r"(k.c[0]), "r"(k.c[1]), "r"(k.c[2]), "r"(k.c[3]), "r"(k.c[4]), "r"(bar)
          : "memory");
  }
}

__device__ __forceinline__ void tma_store(int rank, const CUtensorMap* map, Coords k, unsigned src) {
  uint64_t m = (uint64_t)map;
  switch (rank) {
    case 1:
      asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%1}], [%2];" ::"l"(m),
                   "r"(k.c[0]), "r"(src)
                   : "memory");
      break;
    case 2:
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(m),
                   "r"(k.c[0]), "r"(k.c[1]), "r"(src)
                   : "memory");
      break;
    case 3:
      asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3}], [%4];" ::"l"(m),
                   "r"(k.c[0]), "r"(k.c[1]), "r"(k.c[2]), "r"(src)
                   : "memory");
      break;
    case 4:
      asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3, %4}], [%5];" ::"l"(m),
                   "r"(k.c[0]), "r"(k.c[1]), "r"(k.c[2]), "r"(k.c[3]), "r"(src)
                   : "memory");
      break;
    default:
      asm volatile(
          "cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3, %4, %5}], [%6];" ::"l"(m),
          "r"(k.c[0]), "r"(k.c[1]), "r"(k.c[2]), "r"(k.c[3]), "r"(k.c[4]), "r"(src)
          : "memory");
  }
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// Loads: shared memory starts as 0xEE everywhere, the box lands at `off`, all 16 KiB are dumped
// with a flag saying whether the barrier completed (bounded wait: a tx count the copy does not
// match shows as a timeout rather than a hang). Stores: shared memory holds (i*7+3) at offset i
// from the box start.
__global__ void probe(const __grid_constant__ CUtensorMap map, int store, int rank, Coords k, int off,
                      int tx, unsigned char* dump, int* flag) {
  __shared__ __align__(1024) unsigned char s[SMEM];
  __shared__ __align__(8) uint64_t bar;
  for (int i = threadIdx.x; i < SMEM; i += blockDim.x)
    s[i] = store ? (unsigned char)((i - off) * 7 + 3) : 0xEE;
  unsigned sa = (unsigned)__cvta_generic_to_shared(s) + off;
  unsigned ba = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(ba));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (store) {
    if (threadIdx.x == 0) tma_store(rank, &map, k, sa);
    return;
  }
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(ba), "r"(tx) : "memory");
    tma_load(rank, sa, &map, k, ba);
  }
  unsigned ok = 0;
  for (long n = 0; n < (1 << 22) && !ok; n++) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(ok)
        : "r"(ba), "r"(0)
        : "memory");
  }
  if (threadIdx.x == 0) *flag = ok;
  __syncthreads();
  for (int i = threadIdx.x; i < SMEM; i += blockDim.x) dump[i] = s[i];
}

static std::vector<long> list(const char* s) {
  std::vector<long> v;
  for (const char* p = s; *p;) {
    v.push_back(strtol(p, (char**)&p, 10));
    if (*p == ',') p++;
  }
  return v;
}

static size_t swz(size_t off, int s) {
  if (s == 0) return off;
  size_t mask = (1u << s) - 1;
  return off ^ (((off >> 7) & mask) << 4);
}

int main(int argc, char** argv) {
  if (argc < 9) {
    printf("usage: tma_probe load|store ESIZE DIMS BOX ESTRIDES SWZ COORDS SMEM_OFF\n");
    return 2;
  }
  int store = strcmp(argv[1], "store") == 0;
  int es = atoi(argv[2]);
  auto dims = list(argv[3]), box = list(argv[4]), estr = list(argv[5]), co = list(argv[7]);
  int SW = atoi(argv[6]), off = atoi(argv[8]);
  int rank = dims.size();
  CK(cuInit(0));
  if (cudaFree(0) != cudaSuccess) return 1;
  size_t n = 1;
  for (auto d : dims) n *= d;
  // Global data: element i holds i + 1 (little-endian, truncated to the element size); stores
  // start from 0xAA bytes.
  std::vector<unsigned char> h(n * es);
  for (size_t i = 0; i < n; i++)
    for (int b = 0; b < es; b++) h[i * es + b] = store ? 0xAA : (unsigned char)((i + 1) >> (8 * b));
  CUdeviceptr dx, dd, df;
  CK(cuMemAlloc(&dx, h.size()));
  CK(cuMemcpyHtoD(dx, h.data(), h.size()));
  CK(cuMemAlloc(&dd, SMEM));
  CK(cuMemAlloc(&df, 4));
  CK(cuMemsetD8(dd, 0, SMEM));
  CK(cuMemsetD8(df, 0, 4));
  CUtensorMap map;
  cuuint64_t gd[5], gs[4];
  cuuint32_t bd[5], el[5];
  uint64_t stride = es;
  for (int d = 0; d < rank; d++) {
    gd[d] = dims[d];
    if (d > 0) gs[d - 1] = stride;
    stride *= dims[d];
    bd[d] = box[d];
    el[d] = estr[d];
  }
  CUtensorMapDataType ty = es == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                           : es == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                     : CU_TENSOR_MAP_DATA_TYPE_UINT32;
  CUtensorMapSwizzle sw[4] = {CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
                              CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B};
  CK(cuTensorMapEncodeTiled(&map, ty, rank, (void*)dx, gd, gs, bd, el, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            sw[SW], CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  // The box: counts per dimension, elements in order (dimension 0 fastest), global index or -1.
  long cnt[5] = {1, 1, 1, 1, 1}, total = 1;
  for (int d = 0; d < rank; d++) cnt[d] = (box[d] + estr[d] - 1) / estr[d], total *= cnt[d];
  std::vector<long> gidx(total);
  for (long e = 0; e < total; e++) {
    long m = e, idx = 0, mul = 1;
    bool in = true;
    for (int d = 0; d < rank; d++) {
      long j = m % cnt[d];
      m /= cnt[d];
      long c = co[d] + j * estr[d];
      if (c < 0 || c >= dims[d]) in = false;
      idx += c * mul;
      mul *= dims[d];
    }
    gidx[e] = in ? idx : -1;
  }
  long inner = cnt[0] * es, span = SW ? 16L << SW : 0;
  long pitch = inner < span ? span : inner;
  Coords k = {{0, 0, 0, 0, 0}};
  for (int d = 0; d < rank; d++) k.c[d] = co[d];
  int tx = total * es;
  probe<<<1, 128>>>(map, store, rank, k, off, tx, (unsigned char*)dd, (int*)df);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    printf("KERNEL %s\n", cudaGetErrorName(e));
    return 1;
  }
  // Where element e of the box sits in shared memory (offset in the 16 KiB array) under each layout.
  auto where = [&](long e, bool padded, bool abs) -> size_t {
    long row = e / cnt[0], col = e % cnt[0];
    size_t rel = padded ? row * pitch + col * es : e * es;
    return abs ? swz(off + rel, SW) : off + swz(rel, SW);
  };
  const char* names[4] = {"dense-abs", "dense-rel", "padded-abs", "padded-rel"};
  std::string verdict;
  if (!store) {
    std::vector<unsigned char> s(SMEM);
    int ok = 0;
    CK(cuMemcpyDtoH(s.data(), dd, SMEM));
    CK(cuMemcpyDtoH(&ok, df, 4));
    long written = 0, lo = -1, hi = -1;
    for (int i = 0; i < SMEM; i++)
      if (s[i] != 0xEE) {
        written++;
        if (lo < 0) lo = i;
        hi = i;
      }
    printf("%s written=%ld [%ld..%ld] ", ok ? "complete" : "TIMEOUT", written, lo, hi);
    for (int h2 = 0; h2 < 4; h2++) {
      bool good = true;
      for (long el2 = 0; el2 < total && good; el2++) {
        size_t at = where(el2, h2 >= 2, h2 % 2 == 0);
        for (int b = 0; b < es; b++) {
          unsigned char want = gidx[el2] < 0 ? 0 : (unsigned char)((gidx[el2] + 1) >> (8 * b));
          if (at + b >= (size_t)SMEM || s[at + b] != want) good = false;
        }
      }
      if (good) verdict += std::string(" MATCH:") + names[h2];
    }
    if (verdict.empty()) {
      // Where the first element of each of the first rows landed.
      verdict = " nomatch rows@";
      for (long r = 0; r < total / cnt[0] && r < 6; r++) {
        long e2 = r * cnt[0];
        if (gidx[e2] < 0) {
          verdict += " oob";
          continue;
        }
        long found = -1;
        for (int i = 0; i + es <= SMEM && found < 0; i++) {
          bool m = true;
          for (int b = 0; b < es; b++) m = m && s[i + b] == (unsigned char)((gidx[e2] + 1) >> (8 * b));
          if (m) found = i;
        }
        verdict += " " + std::to_string(found);
      }
      verdict += " | head:";
      for (int i = off; i < off + 64; i++) {
        char b[4];
        snprintf(b, 4, "%02x", s[i]);
        verdict += b;
      }
    }
  } else {
    std::vector<unsigned char> g(h.size());
    CK(cuMemcpyDtoH(g.data(), dx, g.size()));
    long changed = 0;
    for (size_t i = 0; i < n; i++)
      for (int b = 0; b < es; b++) changed += g[i * es + b] != 0xAA;
    printf("stored changed_bytes=%ld ", changed);
    for (int h2 = 0; h2 < 4; h2++) {
      std::vector<unsigned char> want(h.size(), 0xAA);
      for (long el2 = 0; el2 < total; el2++) {
        if (gidx[el2] < 0) continue;
        size_t at = where(el2, h2 >= 2, h2 % 2 == 0);
        for (int b = 0; b < es; b++) want[gidx[el2] * es + b] = (unsigned char)((at + b - off) * 7 + 3);
      }
      if (want == g) verdict += std::string(" MATCH:") + names[h2];
    }
    if (verdict.empty()) verdict = " nomatch";
  }
  printf("%s\n", verdict.c_str());
  return 0;
}
