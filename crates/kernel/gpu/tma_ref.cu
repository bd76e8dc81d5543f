// Reference TMA harness (device-side diagnosis for ferrocm kernel2): loads a 2D u16 box with
// nvcc-compiled inline PTX, or runs a given PTX module's entry with the ferrocm slice ABI
// (x ptr, x len, tensor map, dump ptr, dump len), and checks the dumped shared-memory image.
// usage: tma_ref W H BW BH SWZ CX CY GRID [ptx entry]
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    CUresult r_ = (x);                                                         \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char* s_ = "?";                                                    \
      cuGetErrorString(r_, &s_);                                               \
      printf("FAIL %s -> %d %s\n", #x, (int)r_, s_);                           \
      return 1;                                                                \
    }                                                                          \
  } while (0)

__global__ void ref_kernel(const __grid_constant__ CUtensorMap map, unsigned char* dump, int bytes,
                           int cx, int cy) {
  __shared__ __align__(1024) unsigned char s[8192];
  __shared__ __align__(8) uint64_t bar;
  unsigned sa = (unsigned)__cvta_generic_to_shared(s);
  unsigned ba = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(ba));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(ba), "r"(bytes));
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(sa),
        "l"((uint64_t)&map), "r"(cx), "r"(cy), "r"(ba)
        : "memory");
  }
  unsigned ok = 0;
  while (!ok) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(ok)
        : "r"(ba), "r"(0)
        : "memory");
  }
  for (int i = threadIdx.x; i < bytes; i += blockDim.x) dump[blockIdx.x * bytes + i] = s[i];
}

static size_t swz(size_t off, int s) {
  if (s == 0) return off;
  size_t mask = (1u << s) - 1;
  return off ^ (((off >> 7) & mask) << 4);
}

int main(int argc, char** argv) {
  if (argc < 9) {
    printf("usage\n");
    return 2;
  }
  int W = atoi(argv[1]), H = atoi(argv[2]), BW = atoi(argv[3]), BH = atoi(argv[4]);
  int SWZ = atoi(argv[5]), CX = atoi(argv[6]), CY = atoi(argv[7]), GRID = atoi(argv[8]);
  CK(cuInit(0));
  if (cudaFree(0) != cudaSuccess) {
    printf("FAIL cudaFree\n");
    return 1;
  }
  std::vector<uint16_t> h(W * H);
  for (size_t i = 0; i < h.size(); i++) h[i] = (uint16_t)((i * 2654435761u) >> 9);
  int bytes = BW * BH * 2;
  CUdeviceptr dx, dd;
  CK(cuMemAlloc(&dx, h.size() * 2));
  CK(cuMemcpyHtoD(dx, h.data(), h.size() * 2));
  CK(cuMemAlloc(&dd, (size_t)bytes * GRID));
  CK(cuMemsetD8(dd, 0, (size_t)bytes * GRID));
  CUtensorMap map;
  cuuint64_t dims[2] = {(cuuint64_t)W, (cuuint64_t)H};
  cuuint64_t strides[1] = {(cuuint64_t)W * 2};
  cuuint32_t box[2] = {(cuuint32_t)BW, (cuuint32_t)BH};
  cuuint32_t es[2] = {1, 1};
  CUtensorMapSwizzle sw[4] = {CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
                              CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B};
  CK(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, (void*)dx, dims, strides, box,
                            es, CU_TENSOR_MAP_INTERLEAVE_NONE, sw[SWZ],
                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  if (argc < 11) {
    ref_kernel<<<GRID, 128>>>(map, (unsigned char*)dd, bytes, CX, CY);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
      printf("FAIL ref kernel: %s\n", cudaGetErrorString(e));
      return 1;
    }
  } else {
    std::ifstream f(argv[9]);
    std::stringstream ss;
    ss << f.rdbuf();
    std::string text = ss.str();
    CUmodule m;
    CK(cuModuleLoadData(&m, text.c_str()));
    CUfunction fn;
    CK(cuModuleGetFunction(&fn, m, argv[10]));
    uint64_t p0 = dx, l0 = h.size(), p2 = dd, l2 = (uint64_t)bytes * GRID;
    void* params[] = {&p0, &l0, &map, &p2, &l2};
    CK(cuLaunchKernel(fn, GRID, 1, 1, 128, 1, 1, 0, 0, params, nullptr));
    CK(cuCtxSynchronize());
  }
  std::vector<unsigned char> got((size_t)bytes * GRID);
  CK(cuMemcpyDtoH(got.data(), dd, got.size()));
  std::vector<unsigned char> want(bytes);
  for (int n = 0; n < BW * BH; n++) {
    int gx = CX + n % BW, gy = CY + n / BW;
    uint16_t v = (gx >= 0 && gx < W && gy >= 0 && gy < H) ? h[gy * W + gx] : 0;
    size_t at = swz((size_t)n * 2, SWZ);
    want[at] = v & 0xff;
    want[at + 1] = v >> 8;
  }
  for (int b = 0; b < GRID; b++)
    for (int i = 0; i < bytes; i++)
      if (got[(size_t)b * bytes + i] != want[i]) {
        printf("FAIL block %d byte %d: got %d want %d\n", b, i, got[(size_t)b * bytes + i], want[i]);
        return 1;
      }
  printf("PASS\n");
  return 0;
}
