k<<<<<,R>>>(>><<<m,8>>>(x)#include <cude <cuda_runtii.h>
#include <cuda_runtime.h> exmcpyHostToDevice);
#endif
auto s = R"x(cudaMalloc)x"; const cha// Loading  cublasSetStream(handle, strers.h" x
inteam);öç  y  cub;
lasSetPointerM
);
