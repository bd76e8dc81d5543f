#include <cub/cub.cuh>
using namespace cub;
template <int B, cub::BlockReduceAlgorithm A = cub::BLOCK_REDUCE_RAKING>
__global__ void k(int* x) { typedef cub::BlockReduce<int, B, A> BR; typedef const ::cub::WarpReduce<int> W; typedef typename cub::BlockScan<int, B>::TempStorage T; }
template <cub::BlockReduceAlgorithm A> struct S {};
void f() { cub::DeviceReduce::Sum(0, n, a, b, n); k<4, cub::BLOCK_REDUCE_WARP_REDUCTIONS><<<1, 2>>>(x); }
