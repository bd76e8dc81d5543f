#ifndef H
#define H
#pragma once
#include "cublas_v2.h"
#if CUDA_VERSION >= 11000
cudaMemcpyToSymbol(sym, h, n);
#else
cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);
#endif
auto s = R"x(cudaMalloc)x"; const char* m = "cudaMalloc failed";
#endif
