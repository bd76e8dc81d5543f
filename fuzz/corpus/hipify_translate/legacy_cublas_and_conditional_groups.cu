#ifndef H
#define H
#if 0
#include <cublas_v2.h>
#else
#include <cublas.h>
#endif
void g(cublasHandle_t h) { cublasSaxpy(h, n, &a, x, 1, y, 1); cublasSgemm_v2(h); __host__ dim3 d; }
#endif
